package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"

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
