package hwdesc

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// TestDecodeGolden decodes the hw.toml section of each
// testdata/decode/*.txtar and compares the canonical encoding, or the
// error messages, with the want section.
func TestDecodeGolden(t *testing.T) {
	txtar.Golden(t, "testdata/decode/*.txtar", func(t *testing.T, a *txtar.Archive) map[string][]byte {
		src := a.Input(t, "hw.toml")
		d, err := Decode("hw.toml", src)
		var out bytes.Buffer
		if err != nil {
			out.WriteString("error:\n" + err.Error() + "\n")
			var se *SyntaxError
			if errors.As(err, &se) {
				out.WriteString("\nwith position:\n" + se.ErrorWithPosition() + "\n")
			}
		} else if err := Encode(&out, d); err != nil {
			t.Fatal(err)
		}
		return map[string][]byte{"want": out.Bytes()}
	})
}

// TestDecodeErrorTypes checks the error types callers can rely on.
func TestDecodeErrorTypes(t *testing.T) {
	tests := []struct {
		name, src string
		check     func(error) bool
	}{
		{"unknown key", "name = \"t\"\nclock_mhz = 1\nfoo = 1\n[[unit]]\nname = \"u\"\ninit = 1\nlat = 0\n", func(err error) bool {
			var e *UnknownKeysError
			return errors.As(err, &e) && len(e.Keys) == 1 && e.Keys[0].Key == "foo" && e.Keys[0].Line == 3
		}},
		{"syntax", "name = \n", func(err error) bool {
			var e *SyntaxError
			return errors.As(err, &e) && e.Line == 1 && e.Col > 0 && strings.Contains(e.ErrorWithPosition(), "^")
		}},
		{"binary", "\x7fELF\x02\x01\x01\x00\xc9H\n\x00\x00", func(err error) bool {
			// No excerpt of the bytes of a binary file.
			var e *SyntaxError
			return errors.As(err, &e) && e.Line == 1 && e.ErrorWithPosition() == e.Error()
		}},
		// Issue 9, item 9: inline tables nested 10,000 deep took 26 s
		// and 5 GB to decode; refused before decoding, positioned.
		{"deep", "name = \"t\"\nnotes = " + strings.Repeat("{a=", 10000) + "1" + strings.Repeat("}", 10000) + "\n", func(err error) bool {
			var e *SyntaxError
			return errors.As(err, &e) && e.Line == 2 && e.Col == 9+3*32 && strings.Contains(e.Msg, "nesting deeper than 32")
		}},
		{"too large", "# " + strings.Repeat("x", 4<<20) + "\n", func(err error) bool {
			var e *SyntaxError
			return errors.As(err, &e) && strings.Contains(e.Msg, "above the limit of 4194304 bytes")
		}},
		{"validation", "name = \"t\"\nclock_mhz = 1\ndefault_unit = \"u\"\n[[unit]]\nname = \"u\"\ninit = 0\nlat = 0\n", func(err error) bool {
			var e ErrorList
			return errors.As(err, &e) && len(e) == 1 && e[0].Line == 6
		}},
	}
	for _, tt := range tests {
		_, err := Decode("x.toml", []byte(tt.src))
		if err == nil || !tt.check(err) {
			t.Errorf("%s: Decode error = %#v (%v)", tt.name, err, err)
		}
	}
}

// TestSchemaKeys checks that the key lists used for hints match the
// struct tags, so that a new field cannot be forgotten there.
func TestSchemaKeys(t *testing.T) {
	d := &Desc{Name: "n", Description: "d", Version: "v", Source: "s", Arch: "a", ISA: "ptx", ClockMHz: 1, MemLatency: 1,
		DefaultUnit: "u", Notes: []string{"n"},
		Pipeline: Pipeline{Overhead: 4, BranchWait: BranchWaitTaken, RetIssues: true, BarrierIssues: true, Doc: "d"},
		Units:    []Unit{{Name: "u", Init: 1, Lat: 1, Group: "g", Count: 2, GPGPUSimLatency: 2, Doc: "d"}},
		Map:      []Rule{{Match: "m", Unit: "u", Doc: "d"}, {Match: "r", Reject: "why"}}}
	var b bytes.Buffer
	if err := Encode(&b, d); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, s := range scanSections(b.Bytes()) {
		for k := range s.keys {
			if !contains(got[s.table], k) {
				got[s.table] = append(got[s.table], k)
			}
		}
	}
	for table, keys := range schemaKeys {
		for _, k := range keys {
			// extends is resolved by the decoder: a decoded description
			// never has it, so Encode never writes it.
			if !contains(got[table], k) && !(table == "" && (k == "unit" || k == "map" || k == "pipeline" || k == "extends")) {
				t.Errorf("schema key %s.%s is not written by Encode", table, k)
			}
		}
		for _, k := range got[table] {
			if !contains(keys, k) {
				t.Errorf("Encode writes %s.%s, missing from schemaKeys", table, k)
			}
		}
	}
	d2, err := Decode("x", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, stripPos(d2)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"add.*", "add.s32", true},
		{"add.*", "add", false},
		{"add.*", "addc.cc.u32", false},
		{"add.*.f32", "add.rn.ftz.f32", true},
		{"add.*.f32", "add.f32", false},
		{"ld.*.global.*", "ld.volatile.global.u32", true},
		{"ld.shared*", "ld.shared::cta.u32", true},
		{"mul.f3?", "mul.f32", true},
		{"*", "", true},
		{"", "", true},
		{"IMAD.*", "IMAD.WIDE.U32", true},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
	}
	for _, tt := range tests {
		if got := Glob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestLookupPaperFig2(t *testing.T) {
	d, err := Builtin("paper-fig2")
	if err != nil {
		t.Fatal(err)
	}
	type timing struct {
		Unit      string
		Init, Lat Cycles
	}
	got := map[string]timing{}
	for _, op := range []string{"mul.f32", "add.s32", "sin.approx.f32"} {
		u, _, err := d.Lookup(op)
		if err != nil {
			t.Fatal(err)
		}
		got[op] = timing{d.Units[u].Name, d.Units[u].Init, d.Units[u].Lat}
	}
	want := map[string]timing{"mul.f32": {"red", 2, 6}, "add.s32": {"blue", 3, 4}, "sin.approx.f32": {"green", 2, 4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paper-fig2 routing mismatch (-want +got):\n%s", diff)
	}
	if _, _, err := d.Lookup("mov.u32"); err == nil || !strings.Contains(err.Error(), "no default_unit") {
		t.Errorf("Lookup(mov.u32) error = %v, want no-rule error", err)
	}
}

// FuzzDecode: Decode never panics; what it accepts validates, encodes and
// decodes back to the same description.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"paper-fig2"} { // large built-ins slow the fuzzer down; TestBuiltins covers them
		src, err := BuiltinSource(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("name = \"t\"\nclock_mhz = 1e3\ndefault_unit = \"u\"\n[[unit]]\nname = \"u\"\ninit = 1\nlat = 0\n"))
	f.Add([]byte("name = \"t\"\nclock_mhz = nan\n[[unit]]\nname = 'u'\ninit = 1\nlat = 0\n[[map]]\nmatch = \"*\"\nreject = \"x\"\n"))
	f.Add([]byte("unit = 1\nmap = [{match = 1}]\n"))
	f.Add([]byte("name = \"x\"\nextends = \"paper-fig2\"\nclock_mhz = 2\n[[unit]]\nname = \"red\"\nlat = 7\n[[unit]]\nname = \"new\"\ninit = 1\nlat = 1\n[[map]]\nmatch = \"i?\"\nunit = \"new\"\n"))
	f.Add([]byte("name = \"t\"\nclock_mhz = 1\nnotes = [\n\"a\\u0001\",\n]\n[[unit]]\nname = \"u\"\ninit = 1\nlat = 0\ncount = -1\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := Decode("fuzz.toml", src)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		var b bytes.Buffer
		if err := Encode(&b, d); err != nil {
			t.Fatal(err)
		}
		d2, err := Decode("enc", b.Bytes())
		if err != nil {
			t.Fatalf("encoding does not decode: %v\n%s", err, b.String())
		}
		if diff := cmp.Diff(stripPos(d), stripPos(d2)); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}

func TestPipeline(t *testing.T) {
	base := "name = \"t\"\nclock_mhz = 1\ndefault_unit = \"u\"\n%s[[unit]]\nname = \"u\"\ninit = 1\nlat = 0\ngroup = \"g\"\n[[unit]]\nname = \"v\"\ninit = 2\nlat = 1\ngroup = \"g\"\n[[unit]]\nname = \"w\"\ninit = 1\nlat = 0\n"
	for _, tt := range []struct{ pipe, err string }{
		{"[pipeline]\nbranch_wait = \"sometimes\"\n", `x:5: pipeline: branch_wait "sometimes" is not one of`},
		{"[pipeline]\noverhead = -1\n", `x:5: pipeline: overhead must be in`},
		{"[pipeline]\nret_issues = 1\n", `x:5: pipeline: ret_issues must be a boolean, not integer`},
		{"[pipeline]\nlatency = 1\n", `unknown key "pipeline.latency"`},
	} {
		_, err := Decode("x", []byte(fmt.Sprintf(base, tt.pipe)))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: err = %v, want %q", tt.pipe, err, tt.err)
		}
	}
	d, err := Decode("x", []byte(fmt.Sprintf(base, "[pipeline]\noverhead = 4\nbranch_wait = \"all\"\nret_issues = true\n")))
	if err != nil {
		t.Fatal(err)
	}
	if p := d.Pipeline; p.Overhead != 4 || !p.WaitsAfterBranch(false) || !p.RetIssues || p.BarrierIssues || p.Line != 4 {
		t.Errorf("pipeline = %+v", p)
	}
	if res, n := d.Resources(); n != 2 || res[0] != res[1] || res[2] == res[0] {
		t.Errorf("Resources = %v, %d; want u and v sharing one of 2", res, n)
	}
	for _, c := range []struct {
		wait       string
		taken, not bool
	}{{"", false, false}, {"none", false, false}, {"taken", true, false}, {"all", true, true}} {
		p := Pipeline{BranchWait: c.wait}
		if p.WaitsAfterBranch(true) != c.taken || p.WaitsAfterBranch(false) != c.not {
			t.Errorf("branch_wait %q: WaitsAfterBranch = %v/%v", c.wait, p.WaitsAfterBranch(true), p.WaitsAfterBranch(false))
		}
	}
}
