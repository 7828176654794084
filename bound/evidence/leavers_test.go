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
// code only in the iteration where they leave: bound 1882 against the
// GPGPU-Sim-order execution of 2066 (odd lanes, holding lane 31, leave at
// the fifth header execution). Every execution, in every order, must be
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
	visit := func(blk *simt.Block) error {
		p, err := blk.Program(hw, sim.BarrierReach)
		if err != nil {
			return err
		}
		runs, err := Simulate(p, 1, []sim.Policy{{Kind: sim.LRR}, {Kind: sim.GTO}})
		if err != nil {
			return err
		}
		for _, r := range runs {
			worst = max(worst, r.Makespan)
			if r.Makespan > a.Report.Bound {
				t.Errorf("makespan %d > static bound %d (%s)", r.Makespan, a.Report.Bound, r.Policy)
			}
		}
		return nil
	}
	for _, o := range simt.Orders {
		blk, err := a.Judge.Run(a.Launch, simt.Options{Order: o, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := visit(blk); err != nil {
			t.Fatal(err)
		}
	}
	all, err := a.Judge.Exhaustive(a.Launch, simt.Options{Seed: 1}, 64, visit)
	if err != nil || !all {
		t.Fatalf("exhaustive: complete %v, %v", all, err)
	}
	t.Logf("static bound %d, longest drawn execution %d", a.Report.Bound, worst)
}
