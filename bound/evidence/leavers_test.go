package evidence

import (
	"os"
	"testing"

	"github.com/gpuwcet/gpuwcet/hwdesc"
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
	c := &regressCase{src: string(src), threads: 32, hw: hw, seeds: []uint64{1}}
	a, err := c.analyze()
	if err != nil {
		t.Fatal(err)
	}
	found, bnd, worst, err := c.excess(a)
	if err != nil {
		t.Fatal(err)
	}
	if found != "" {
		t.Error(found)
	}
	t.Logf("static bound %d, longest execution %d", bnd, worst)
}
