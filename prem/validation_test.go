package prem

import (
	"fmt"
	"testing"
)

// ttgpuRun is one tt-gpu run of prem-schedules.md §2.2 (4 kernels x 2
// blocks, 512 tiles per block): its schedule and its measured makespan,
// reconstructed as the notes model it, WU + 510*T_hyper + last_offset +
// residual, with the residual they give (max block end - min block start,
// the precision of the residual: 0.1 µs, or 1 µs for the self-timed
// runs, so ±50 or ±500 ns).
type ttgpuRun struct {
	name       string
	mode       string
	gran       string
	pf, wb     int64
	measuredNS int64
	plusMinus  int64 // the measurement's precision (half the residual's last digit)
}

var ttgpuRuns = []ttgpuRun{
	{"kernel-wise, PF_off 1000", "whole_tile", "kernel", 1000, 0, 10000 + 510*4000 + 3*1000 + 431_000, 500},
	{"kernel-wise, PF_off 1200", "whole_tile", "kernel", 1200, 0, 10000 + 510*4800 + 3*1200 + 36_000, 500},
	{"kernel-wise, PF_off 1300", "whole_tile", "kernel", 1300, 0, 10000 + 510*5200 + 3*1300 + 4_300, 50},
	{"kernel-wise, PF_off 1400", "whole_tile", "kernel", 1400, 0, 10000 + 510*5600 + 3*1400 + 3_600, 50},
	{"kernel-wise, PF_off 2500", "whole_tile", "kernel", 2500, 0, 10000 + 510*10000 + 3*2500 + 3_000, 50},
	{"block-wise, PF_off 500", "whole_tile", "block", 500, 0, 10000 + 510*4000 + 7*500 + 434_000, 500},
	{"block-wise, PF_off 1000", "whole_tile", "block", 1000, 0, 10000 + 510*8000 + 7*1000 + 2_900, 50},
	{"block-wise, PF_off 2500", "whole_tile", "block", 2500, 0, 10000 + 510*20000 + 7*2500 + 2_700, 50},
	{"phase kernel-wise, PF 3000 / WB 1000", "phase", "kernel", 3000, 1000, 10000 + 510*20000 + 15000 + 3*1000 + 600, 50},
	{"phase kernel-wise, PF 0 / WB 3000", "phase", "kernel", 0, 3000, 10000 + 510*17000 + 6000 + 3*3000 + 700, 50},
	{"phase block-wise, PF 3000 / WB 3000", "phase", "block", 3000, 3000, 10000 + 510*50000 + 27000 + 7*3000 + 700, 50},
}

func (run ttgpuRun) schedule(t *testing.T) *Schedule {
	p, c, w := 2800, 800, 700 // kernel participant (2 blocks), prem-schedules.md §6
	scope := "participant"
	if run.gran == "block" {
		p, c, w, scope = 2300, 700, 500, "block"
	}
	extra := ""
	if run.mode == "phase" {
		extra = fmt.Sprintf("wb_offset_ns = %d\nbudget_pf_ns = 4000\nbudget_c_ns = 2000\nbudget_wb_ns = 2000\n", run.wb)
	}
	src := fmt.Sprintf(`schema_version = 1
[platform]
timer_resolution_ns = 20
release_jitter_ns = 160
[schedule]
mode = %q
granularity = %q
warmup_ns = 10000
pf_offset_ns = %d
%s
[[kernel]]
id = "conv"
instances = 4
blocks = 2
threads_per_block = 512
tiles_per_block = 512
[[bound]]
kernel = "conv"
phase = "prefetch"
wcet_ns = %d
scope = %q
[[bound]]
kernel = "conv"
phase = "compute"
wcet_ns = %d
scope = %q
[[bound]]
kernel = "conv"
phase = "writeback"
wcet_ns = %d
scope = %q
`, run.mode, run.gran, run.pf, extra, p, scope, c, scope, w, scope)
	s, err := Decode("ttgpu.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTTGPUMakespans: the makespans predicted for the tt-gpu runs (the
// table of docs/validation.md, printed with -v) are above the measured ones
// whenever the schedule passes C5 (the bounds are valid under it); where C5
// fails the prediction is reported unsound, and below the measurement for
// the runs that drifted into self-timed execution.
func TestTTGPUMakespans(t *testing.T) {
	t.Log("| Run (4 kernels x 2 blocks) | T_hyper (ns) | C4 | C5 | Predicted makespan (ns) | Measured (ns) | Measured - predicted (ns) |")
	for _, run := range ttgpuRuns {
		s := run.schedule(t)
		r, _, err := Evaluate(s, Bounds(s, nil))
		if err != nil {
			t.Fatal(err)
		}
		st := map[string]string{}
		for _, c := range r.Checks {
			st[c.ID] = c.Status
		}
		res := run.measuredNS - r.Makespan.NS
		note := ""
		if r.Makespan.Unsound {
			note = " (unsound)"
		}
		t.Logf("| %s | %d | %s | %s | %d%s | %d ± %d | %+d |", run.name, r.HyperperiodNS, st["C4"], st["C5"], r.Makespan.NS, note, run.measuredNS, run.plusMinus, res)
		if st["C5"] == StatusPass && r.Makespan.NS < run.measuredNS-run.plusMinus {
			t.Errorf("%s: C5 passes but the predicted makespan %d is below the measured %d ± %d", run.name, r.Makespan.NS, run.measuredNS, run.plusMinus)
		}
		if st["C5"] == StatusFail && !r.Makespan.Unsound {
			t.Errorf("%s: C5 fails but the makespan is not reported unsound", run.name)
		}
	}
}
