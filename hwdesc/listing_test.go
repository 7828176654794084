package hwdesc

import (
	"strings"
	"testing"
)

func TestCheckISA(t *testing.T) {
	ptx := &Desc{Name: "p", ISA: "ptx", Arch: "sm_86"}
	sass := &Desc{Name: "s", ISA: "sass", Arch: "sm_86"}
	any := &Desc{Name: "a"}
	for _, tc := range []struct {
		d        *Desc
		dialect  string
		wantErrs []string // nil: accepted
	}{
		{ptx, "ptx", nil}, {ptx, "trace", nil}, {sass, "sass", nil},
		{any, "ptx", nil}, {any, "sass", nil},
		{ptx, "sass", []string{`"p" times PTX opcodes (isa = "ptx")`, "listing is SASS (sm_52)", "sass-sm86"}},
		{sass, "ptx", []string{`"s" times SASS opcodes (isa = "sass")`, "listing is PTX (sm_52)", "ecrts25-orin-200"}},
		{sass, "trace", []string{"listing is PTX"}},
	} {
		err := tc.d.CheckISA(tc.dialect, "sm_52")
		if tc.wantErrs == nil {
			if err != nil {
				t.Errorf("%s on %s: %v", tc.d.Name, tc.dialect, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s on %s: accepted", tc.d.Name, tc.dialect)
			continue
		}
		for _, w := range tc.wantErrs {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s on %s: %v; want %q", tc.d.Name, tc.dialect, err, w)
			}
		}
	}
}

func TestArchMismatch(t *testing.T) {
	d := &Desc{Name: "d", Arch: "sm_86"}
	for _, tc := range []struct {
		dialect, target, want string // want "" = no mismatch
	}{
		{"sass", "sm_86", ""}, {"sass", "sm_80", ""}, {"ptx", "sm_80", ""}, {"ptx", "", ""}, {"sass", "sm_90a", "newer"},
		{"sass", "sm_87", "SASS for sm_87 targets a newer architecture than sm_86"},
		{"sass", "sm_100", "newer architecture"},
		{"sass", "sm_75", "SASS for sm_75 does not run on sm_86"},
		{"ptx", "sm_20", "PTX for sm_20 would be compiled for sm_86"},
		{"ptx", "sm_100", "PTX for sm_100 targets a newer architecture than sm_86"},
	} {
		got := d.ArchMismatch(tc.dialect, tc.target)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s %s on sm_86: %q, want %q", tc.dialect, tc.target, got, tc.want)
		}
	}
	if m := (&Desc{Name: "x"}).ArchMismatch("sass", "sm_100"); m != "" {
		t.Errorf("description without arch: %q", m)
	}
}
