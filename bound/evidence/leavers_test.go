package evidence

import (
	"os"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

// TestLeaversLast is the review's item 4 (issue 9): a divergent loop exit
// through a store (odd lanes leave in one iteration, the others iterate
// on), ecrts25-orin-200 with branch_wait = "none". A SIMT stack that runs
// the looping lanes first (GPGPU-Sim runs the group holding the highest
// lane last) issues the store after the loop's remaining iterations; its
// latency then ends the block. The warp-level CFG placed the leavers'
// code only in the iteration where they leave: bound 1882 against an
// execution of 2069. Every drawn execution, in every order, must be
// within the bound.
func TestLeaversLast(t *testing.T) {
	src, err := os.ReadFile("testdata/leavers-last.ptx")
	if err != nil {
		t.Fatal(err)
	}
	hw, err := hwdesc.Resolve("ecrts25-orin-200")
	if err != nil {
		t.Fatal(err)
	}
	hw.Pipeline.BranchWait = hwdesc.BranchWaitNone
	a, err := Analyze("leavers-last.ptx", src, "k", hw, pass.Launch{Block: [3]int{32, 1, 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var worst hwdesc.Cycles
	for seed := uint64(1); seed <= 3000; seed++ {
		for _, last := range []bool{false, true} {
			opt := simt.Options{Order: simt.Order(seed % 3), LeaversLast: last}
			p, _, err := a.Program(seed, opt, sim.BarrierReach)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := Simulate(p, seed, []sim.Policy{{Kind: sim.LRR}})
			if err != nil {
				t.Fatal(err)
			}
			worst = max(worst, runs[0].Makespan)
			if runs[0].Makespan > a.Report.Bound {
				t.Fatalf("seed %d (%+v): makespan %d > static bound %d", seed, opt, runs[0].Makespan, a.Report.Bound)
			}
		}
	}
	t.Logf("static bound %d, longest drawn execution %d", a.Report.Bound, worst)
}
