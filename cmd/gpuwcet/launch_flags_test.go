package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

func TestLaunchFromFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    pass.Launch
		wantErr string
	}{
		{nil, pass.Launch{}, ""},
		{[]string{"--block", "256"}, pass.Launch{Block: [3]int{256, 1, 1}}, ""},
		{[]string{"--block", "256x1"}, pass.Launch{Block: [3]int{256, 1, 1}}, ""},
		{[]string{"--block", "16x16x1", "--grid", "8x2"}, pass.Launch{Block: [3]int{16, 16, 1}, Grid: [3]int{8, 2, 1}}, ""},
		{[]string{"--arg", "n=1024", "--arg", "m=0x10"}, pass.Launch{Args: map[string]int64{"n": 1024, "m": 16}}, ""},
		{[]string{"--block", "0"}, pass.Launch{}, "--block"},
		{[]string{"--block", "2x2x2x2"}, pass.Launch{}, "--block"},
		{[]string{"--grid", "a"}, pass.Launch{}, "--grid"},
		{[]string{"--arg", "n"}, pass.Launch{}, "--arg"},
		{[]string{"--arg", "n=1.5"}, pass.Launch{}, "--arg"},
		{[]string{"--arg", "n=1", "--arg", "n=2"}, pass.Launch{}, "given twice"},
	}
	for _, tt := range tests {
		var got pass.Launch
		var err error
		app := &cli.App{Flags: []cli.Flag{blockFlag, gridFlag, argFlag}, Action: func(c *cli.Context) error {
			got, err = launchFromFlags(c)
			return nil
		}}
		if e := app.Run(append([]string{"x"}, tt.args...)); e != nil {
			t.Fatalf("%v: %v", tt.args, e)
		}
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: error %v, want one naming %s", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("launchFromFlags(%v) mismatch (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestCheckLaunchArgTypes is issue 9 item 7: an --arg value outside its
// parameter's type is an error naming the parameter and the type; C's int
// parameters are .u32 in PTX, so -1 is accepted for them.
func TestCheckLaunchArgTypes(t *testing.T) {
	fn := &isa.Func{Name: "k", Params: []isa.Param{
		{Name: "n", Type: ".u32"}, {Name: "s", Type: ".s32"}, {Name: "h", Type: ".u16"},
		{Name: "q", Type: ".u64"}, {Name: "b", Type: ".b8"}, {Name: "f", Type: ".f32"},
		{Name: "a", Type: ".align 8 .b8", Array: 16}, {Name: "p", Type: ".u64 .ptr .global .align 1"},
		// SASS parameters, typed from the mangled name (isa.MangledParams).
		{Name: "ci", Type: "int"}, {Name: "cu", Type: "unsigned int"}, {Name: "cp", Type: "const float*"},
		{Name: "cf", Type: "float"}, {Name: "cl", Type: "long long"},
	}}
	for _, tc := range []struct {
		name string
		v    int64
		want string // "" = accepted
	}{
		{"n", 0, ""}, {"n", 4294967295, ""}, {"n", -1, ""}, {"n", -2147483648, ""},
		{"n", 99999999999, "out of range for parameter n of kernel k, of type .u32 (-2147483648 to 4294967295)"},
		{"n", -4294967296, "out of range for parameter n of kernel k, of type .u32"},
		{"n", 4294967296, "of type .u32"},
		{"s", 2147483647, ""}, {"s", 2147483648, "of type .s32 (-2147483648 to 2147483647)"},
		{"h", 65535, ""}, {"h", 65536, "of type .u16"}, {"h", -32769, "of type .u16"},
		{"q", -1, ""}, {"q", 1 << 62, ""},
		{"b", 255, ""}, {"b", 256, "of type .b8"},
		{"f", 1, "has type .f32, not an integer"},
		{"a", 1, "an array of 16 .align 8 .b8, not an integer"},
		{"p", 1 << 40, ""},
		{"ci", -1, ""}, {"ci", 2147483647, ""}, {"ci", 2147483648, "of type int (-2147483648 to 2147483647)"},
		{"cu", 4294967295, ""}, {"cu", 4294967296, "of type unsigned int"},
		{"cp", 1 << 40, ""}, {"cf", 1, "has type float, not an integer"}, {"cl", -1 << 62, ""},
	} {
		err := checkLaunchArgs(pass.Launch{Args: map[string]int64{tc.name: tc.v}}, []*isa.Func{fn})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("--arg %s=%d: %v", tc.name, tc.v, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("--arg %s=%d: error %v, want one containing %q", tc.name, tc.v, err, tc.want)
		}
	}
}
