package main

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkAnalyzeGrid times gpuwcet analyze on the SGEMM kernel without
// and with the kernel level for a grid of 10^6 blocks on 128 SMs
// (docs/performance.md, "Kernel-level bound"): the difference is the
// block's totals (two more walks of its graphs) and the closed forms,
// whatever the number of blocks.
func BenchmarkAnalyzeGrid(b *testing.B) {
	const s = "_Z17sgemm_double_buffiiifPKfS0_fPf"
	file := "../../../shared/reference/sgemm/" + s + ".ptx"
	if _, err := os.Stat(file); err != nil {
		b.Skipf("shared data not available: %v", err)
	}
	base := []string{"gpuwcet", "analyze", "--hw", "ecrts25-orin-200", "--block", "256", "--format", "json",
		"--arg", s + "_param_0=1024", "--arg", s + "_param_1=1024", "--arg", s + "_param_2=1024"}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"block", nil},
		{"grid-1e6-128sms", []string{"--grid", "1000000", "--arch", "sm_90", "--sms", "128", "--regs", "64"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := append(append(append([]string{}, base...), c.args...), file)
			for b.Loop() {
				var out, errb bytes.Buffer
				if code := run(args, &out, &errb); code != 0 {
					b.Fatalf("exit %d: %s", code, errb.String())
				}
			}
		})
	}
}
