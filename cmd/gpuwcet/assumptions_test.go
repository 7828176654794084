package main

import (
	"bytes"
	"slices"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound/report"
	"github.com/gpuwcet/gpuwcet/cfg/assume"
)

// reportKeys runs analyze --format json with args and returns the report
// and the ledger IDs of its numbered assumptions.
func reportKeys(t *testing.T, want int, args ...string) (*report.Report, map[string]bool) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"gpuwcet", "analyze", "--format", "json"}, args...), &out, &errb); code != want {
		t.Fatalf("analyze %v: exit %d, want %d: %s", args, code, want, errb.String())
	}
	r, err := report.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	checkAssumptions(t, r)
	keys := map[string]bool{}
	for _, a := range r.NumberedAssumptions {
		keys[a.Key] = true
	}
	return r, keys
}

// TestAssumptionsNeeded: a report lists the conditional assumptions of
// the ledger exactly when its run rests on them (issue 14: "the IDs that
// this run needed, and only those").
func TestAssumptionsNeeded(t *testing.T) {
	facts := annotatedFacts(t)
	sass := sassKernel(t, "k.sass", "FADD R30, R17, R18", "EXIT")
	// ptxas's stack-overflow check before a barrier (A-NO-TRAP).
	stackCheck := sassKernel(t, "trap.sass", "MOV R1, c[0x0][0x28]", "IADD3 R1, R1, -0x8, RZ", "S2R R0, SR_LMEMHIOFF",
		"ISETP.GE.U32.AND P0, PT, R1, R0, PT", "@P0 BRA 0x60", "BPT.TRAP 0x1", "BAR.SYNC 0x0", "EXIT")
	conditional := []string{assume.LoopAnnotated, assume.ReleaseTrigger, assume.TimerSplitRead, assume.InlinedCalls, assume.FramePrivate, assume.NoTrap, assume.PTXAsExecuted, assume.ArchMismatch,
		assume.DefaultUnit, assume.HWOverride, assume.GridDispatch, assume.GridAlone, assume.CoResident, assume.GridClock}
	for _, tc := range []struct {
		name string
		code int
		args []string
		want []string // the conditional IDs present
	}{
		{"ptx", 0, []string{"--hw", "ecrts25-orin-200", "--block", "256", "../../examples/reduce/kernel.ptx"}, []string{assume.PTXAsExecuted}},
		{"sass", 0, []string{"--hw", "sass-sm86", "--block", "32", sass}, nil},
		{"stack-check", 0, []string{"--hw", "sass-sm86", "--block", "64", stackCheck}, []string{assume.NoTrap}},
		{"sass-arch", 0, []string{"--hw", "sass-sm70", "--block", "32", sass}, []string{assume.ArchMismatch}},
		{"device-call", 0, []string{"--hw", "rtx3070", "--block", "256", "../../examples/device-call/kernel.ptx"}, []string{assume.PTXAsExecuted, assume.InlinedCalls}},
		{"annotated", 0, []string{"--hw", "rtx3070", "--block", "256", "--arg", "colsum_param_2=4", "--facts", facts, "../../examples/counted-loop/kernel.ptx"}, []string{assume.PTXAsExecuted, assume.LoopAnnotated}},
		{"derived", 0, []string{"--hw", "rtx3070", "--block", "256", "--arg", "colsum_param_2=4", "../../examples/counted-loop/kernel.ptx"}, []string{assume.PTXAsExecuted}},
		{"release", 0, []string{"--hw", "rtx3070", "--block", "64", "--kernel", "^release$", "testdata/analyze/timer.ptx"}, []string{assume.PTXAsExecuted, assume.ReleaseTrigger}},
		{"release-sm62", 0, []string{"--hw", "sass-sm61", "--block", "64", "--kernel", "^spin_gt$", "../../cfg/release/testdata/spin_sm_62.sass"}, []string{assume.ArchMismatch, assume.ReleaseTrigger, assume.TimerSplitRead}},
		{"release-sm80", 0, []string{"--hw", "sass-sm86", "--block", "64", "--kernel", "^spin_gt$", "../../cfg/release/testdata/spin_sm_80.sass"}, []string{assume.ReleaseTrigger}},
		{"frame-O0", 0, []string{"--hw", "ecrts25-orin-200", "--block", "32", "--grid", "1", "--kernel", "^_Z11loop_sdiv16PKfPfi$", "--arg", "_Z11loop_sdiv16PKfPfi_param_2=15", "../../testdata/kernels/listings/clang-O0-sm_80/loops.ptx"},
			[]string{assume.PTXAsExecuted, assume.FramePrivate}},
		{"frame-O2", 0, []string{"--hw", "ecrts25-orin-200", "--block", "32", "--grid", "1", "--kernel", "^_Z11loop_sdiv16PKfPfi$", "--arg", "_Z11loop_sdiv16PKfPfi_param_2=15", "../../testdata/kernels/listings/clang-O2-sm_80/loops.ptx"},
			[]string{assume.PTXAsExecuted}},
		{"default-unit", 0, []string{"--hw", "ecrts25-orin-200", "--block", "64", "testdata/analyze/default-unit.ptx"}, []string{assume.PTXAsExecuted, assume.DefaultUnit}},
		{"extends", 0, []string{"--hw", "testdata/analyze/shfl-orin.toml", "--block", "64", "testdata/analyze/shfl.ptx"}, []string{assume.PTXAsExecuted, assume.HWOverride}},
		{"grid", 0, []string{"--hw", "ecrts25-orin-200", "--block", "256", "--grid", "64", "--platform", "jetson-agx-orin", "--regs", "16", "--sms", "2", "../../examples/reduce/kernel.ptx"},
			[]string{assume.PTXAsExecuted, assume.GridDispatch, assume.GridAlone, assume.CoResident, assume.GridClock}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, keys := reportKeys(t, tc.code, tc.args...)
			for _, id := range conditional {
				if keys[id] != slices.Contains(tc.want, id) {
					t.Errorf("%s: in the report %v, want %v", id, keys[id], slices.Contains(tc.want, id))
				}
			}
		})
	}
}

// TestPremAssumptionsNeeded: a prem check report whose phase bounds come
// from the analysis states what the analysis rests on (as analyze does
// for the same kernel: its fixed entries, PTX as executed, release
// points), and one whose bounds are all given in the schedule does not.
func TestPremAssumptionsNeeded(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string // present
		not  []string // absent
	}{
		{"analysed-ptx", []string{"--hw", "rtx3070", "../../examples/prem-conv2d/tile-1400.toml"},
			[]string{assume.UnitTimings, assume.MemFixedLatency, assume.Pipeline, assume.PTXAsExecuted, assume.PremIsolation},
			[]string{assume.LoopAnnotated, assume.TimerSplitRead}},
		{"analysed-release", []string{"--hw", "rtx3070", "../../examples/prem-conv2d/phase-3000-1000.toml"},
			[]string{assume.UnitTimings, assume.PTXAsExecuted, assume.ReleaseTrigger},
			nil},
		{"analysed-sass-sm62", []string{"--hw", "sass-sm61", "testdata/prem/sass-tiles-sm62.toml"},
			[]string{assume.UnitTimings, assume.TimerSplitRead, assume.ReleaseTrigger},
			[]string{assume.PTXAsExecuted}},
		{"given", []string{"testdata/prem/notes-kw-whole-1400.toml"},
			[]string{assume.PremIsolation, assume.PremGivenBounds},
			[]string{assume.UnitTimings, assume.PTXAsExecuted, assume.ReleaseTrigger}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append([]string{"gpuwcet", "prem", "check", "--format", "json"}, tc.args...), &out, &errb)
			if code != 0 && code != 3 {
				t.Fatalf("prem check %v: exit %d: %s", tc.args, code, errb.String())
			}
			r, err := report.Parse(out.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			keys := map[string]bool{}
			for _, a := range r.NumberedAssumptions {
				keys[a.Key] = true
			}
			for _, id := range tc.want {
				if !keys[id] {
					t.Errorf("%s missing from the report", id)
				}
			}
			for _, id := range tc.not {
				if keys[id] {
					t.Errorf("%s in the report, not needed", id)
				}
			}
		})
	}
}
