package evidence

import (
	"fmt"
	"math/bits"
	"os"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

// TestBarrierLoopsAgainstSimulation: loops holding barriers whose
// iterations may cross none (docs/model.md, "Barrier loops with
// barrier-free iterations"), as compilers emit them: the bitonic sort of
// the kernel corpus (its stage loop's iteration may skip the inner step
// loop, which holds the barrier) from clang -O2 and nvcc -O3, at several
// block sizes. The static bound must hold for every execution the
// independent judge (phases/sim/simt, lane by lane, random keys) draws,
// under LRR, GTO and random issue, with both barrier semantics; the test
// logs the ratio of the bound to the longest execution.
func TestBarrierLoopsAgainstSimulation(t *testing.T) {
	hw, err := hwdesc.Resolve("ecrts25-orin-200")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ listing, name, inner string }{
		{"clang-O2-sm_80/sort.ptx", "_Z14bitonic_sharedPi", "$L__BB0_4"},
		{"nvcc-O3-sm_87/sort.ptx", "_Z14bitonic_sharedPi", "$L__BB0_4"},
		{"clang-O1-sm_52/sort.ptx", "_Z14bitonic_sharedPi", ""},
		{"clang-O2-sm_80/reduce.ptx", "_Z11reduce_treePKfPfi", ""},
	} {
		src, err := os.ReadFile("../../testdata/kernels/listings/" + c.listing)
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{32, 64, 128} {
			for _, fact := range []bool{false, true} {
				if fact && c.inner == "" {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/%d/fact=%v", c.listing, c.name, threads, fact), func(t *testing.T) {
					var facts *loops.Facts
					if fact {
						// The inner loop's true bound, log2(blockDim.x) (the
						// derivation bounds it by the outer induction
						// variable's type range).
						f := fmt.Sprintf("version = 1\nlisting = %q\nsha256 = %q\n\n[[kernel]]\nname = %q\n\n[[kernel.loop]]\nlabel = %q\nmax = %d\nwhy = \"log2(blockDim.x)\"\nby = \"test\"\n",
							c.listing, loops.SHA256(src), c.name, c.inner, bits.Len(uint(threads))-1)
						if facts, err = loops.DecodeFacts("facts.toml", []byte(f)); err != nil {
							t.Fatal(err)
						}
					}
					a, err := Analyze(c.listing, src, c.name, hw, pass.Launch{Block: [3]int{threads, 1, 1}, Grid: [3]int{2, 1, 1}, Args: args(c.name)}, facts)
					if err != nil {
						t.Fatal(err)
					}
					bnd := a.Report.Bound
					var worst hwdesc.Cycles
					for seed := uint64(1); seed <= 3; seed++ {
						blk, err := a.Judge.Run(a.Launch, simt.Options{Seed: seed, Order: simt.Orders[int(seed)%len(simt.Orders)]})
						if err != nil {
							t.Fatal(err)
						}
						for _, mode := range []sim.BarrierMode{sim.BarrierReach, sim.BarrierDrain} {
							p, err := blk.Program(a.HW, mode)
							if err != nil {
								t.Fatal(err)
							}
							runs, err := Simulate(p, seed, []sim.Policy{{Kind: sim.LRR}, {Kind: sim.GTO}, {Kind: sim.Random, Seed: seed}})
							if err != nil {
								t.Fatal(err)
							}
							for _, r := range runs {
								worst = max(worst, r.Makespan)
								if r.Makespan > bnd {
									t.Errorf("seed %d, %s, barriers %v: makespan %d > static bound %d", seed, r.Policy, mode, r.Makespan, bnd)
								}
							}
						}
					}
					t.Logf("static bound %d, longest execution %d (bound/execution %.2f)", bnd, worst, float64(bnd)/float64(worst))
				})
			}
		}
	}
}

func args(name string) map[string]int64 {
	if name == "_Z11reduce_treePKfPfi" {
		return map[string]int64{"_Z11reduce_treePKfPfi_param_2": 4096}
	}
	return nil
}
