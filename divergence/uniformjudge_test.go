package divergence_test

import (
	"fmt"
	"go/token"
	"math/rand"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/divergence"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

// TestUniformJudged checks the uniformity classification against the
// independent judge (phases/sim/simt: its own PTX interpreter, lane by
// lane, with per-thread local memory reached through cvta.local's generic
// window), on the unoptimised PTX of the team's kernel corpus (clang -O0,
// nvcc -O0: every variable in a frame slot, [%SP+k] or ld/st.local) and
// at the manifest's launches and random variations of their block size
// and integer arguments (at most 512), in several side orders. In every execution:
//
//   - a branch classified warp-uniform (Branch.Divergent false) never
//     splits the active lanes of a warp;
//   - a branch bound/static takes as uniform across the block (warp-uniform,
//     the same outcome in every warp class) is decided alike by every warp:
//     the k-th execution of the branch in one warp goes the way the k-th
//     goes in every other warp.
//
// Kernels with device calls are skipped (the analysis inlines them, the
// judge runs them on a call stack: the graphs differ). A run the judge
// cannot finish (past MaxInstrs: a loop ended by drawn data) is counted,
// not judged.
func TestUniformJudged(t *testing.T) {
	if testing.Short() {
		t.Skip("kernel corpus run skipped in -short mode")
	}
	c := cfgtest.Open(t)
	configs := map[string]bool{"clang-O0-sm_80": true, "nvcc-O0-sm_87": true}
	r := rand.New(rand.NewSource(10))
	var kernels, runs, decisions, uniformDecisions, unfinished int
	for _, lst := range c.Listings() {
		if !configs[lst.Config.String()] {
			continue
		}
		src, err := lst.PTX()
		if err != nil {
			continue
		}
		fset := token.NewFileSet()
		file, err := load.File(fset, lst.String()+".ptx", src, load.PTX)
		if err != nil {
			t.Fatal(err)
		}
		for _, kn := range c.KernelsOf(lst.Source) {
			fn := file.Func(kn.Symbol)
			if fn == nil || hasCall(fn) {
				continue
			}
			g, err := cfg.Build(fset, fn)
			if err != nil {
				t.Fatal(err)
			}
			k, err := simt.New(file, fn)
			if err != nil {
				t.Fatal(err)
			}
			kernels++
			for li, ml := range kn.Launch {
				for v := 0; v < 2; v++ {
					l := pass.Launch{Args: ml.PTXArgs(kn)}
					for i := 0; i < 3; i++ {
						l.Block[i], l.Grid[i] = int(ml.Block[i]), int(ml.Grid[i])
					}
					if v > 0 {
						// A random variation: another block width (the
						// block at most 256 threads), arguments scaled.
						l.Block[0] = []int{1, 7, 32, 33, 64, 96, 128}[r.Intn(7)]
						for l.Block[0]*max(l.Block[1], 1)*max(l.Block[2], 1) > 128 {
							l.Block[0] /= 2
						}
						l.Block[0] = max(l.Block[0], 1)
					} else if l.Block[0]*max(l.Block[1], 1)*max(l.Block[2], 1) > 256 {
						continue
					}
					// Arguments at most 512 (or drawn up to twice the
					// manifest's): the judge runs every lane of -O0 code.
					for name, a := range l.Args {
						if a > 512 || v > 0 && a > 0 && r.Intn(2) == 0 {
							l.Args[name] = 1 + r.Int63n(min(2*a, 512))
						}
					}
					info, err := divergence.Analyze(g, l, divergence.Options{})
					if err != nil {
						continue // refused (serial loop iterations): nothing classified
					}
					warpUniform := map[int]bool{}
					blockUniform := map[int]bool{}
					for _, br := range info.Branches {
						if br.Divergent {
							continue
						}
						warpUniform[br.Block.Index] = true
						same := true
						for _, o := range br.Outcomes[1:] {
							same = same && o == br.Outcomes[0]
						}
						blockUniform[br.Block.Index] = same
					}
					for run := 0; run < 1+v; run++ {
						opt := simt.Options{Order: simt.Orders[(li+v+run)%len(simt.Orders)], Seed: uint64(r.Int63()), MaxInstrs: 1 << 16}
						jl := simt.Launch{Block: l.Block, Grid: l.Grid, Args: l.Args}
						b, err := k.Run(jl, opt)
						if err != nil {
							if strings.Contains(err.Error(), "instructions") {
								unfinished++
								continue
							}
							t.Fatalf("%s %s %v: %v", lst, kn.Name, l, err)
						}
						runs++
						what := fmt.Sprintf("%s %s block %v args %v order %v seed %d", lst, kn.Name, l.Block, l.Args, opt.Order, opt.Seed)
						seq := map[int][][]int8{} // block -> per warp: direction of each execution
						for w, ds := range b.Decisions {
							for _, d := range ds {
								if d.Func != fn {
									continue
								}
								decisions++
								if !warpUniform[d.Block] {
									continue
								}
								uniformDecisions++
								if d.Split() {
									t.Errorf("%s: warp %d: branch %q (line %d) classified warp-uniform splits the lanes %08x", what, w,
										g.Blocks[d.Block].Last().Text, fset.Position(g.Blocks[d.Block].Last().Pos).Line, d.Lanes)
									continue
								}
								if !blockUniform[d.Block] {
									continue
								}
								s := seq[d.Block]
								for len(s) <= w {
									s = append(s, nil)
								}
								s[w] = append(s[w], direction(d))
								seq[d.Block] = s
							}
						}
						for bi, ws := range seq {
							for w := 1; w < len(ws); w++ {
								for i := 0; i < len(ws[w]) && i < len(ws[0]); i++ {
									if ws[w][i] != ws[0][i] {
										t.Errorf("%s: branch %q (line %d) taken as uniform across the block: execution %d goes to successor %d in warp 0 and %d in warp %d", what,
											g.Blocks[bi].Last().Text, fset.Position(g.Blocks[bi].Last().Pos).Line, i, ws[0][i], ws[w][i], w)
										break
									}
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d kernels, %d executions (%d unfinished), %d branch executions, %d of branches classified uniform", kernels, runs, unfinished, decisions, uniformDecisions)
	if kernels == 0 {
		t.Fatal("no kernel judged")
	}
}

// TestUniformJudgedSlots runs the frame-slot cases of TestClassify (a
// stride reloaded under a divergent if, a slot stored on one side of a
// divergent branch, a slot counted in a loop left in different
// iterations, the stack check's trap) through the judge at random block
// sizes and arguments: no branch classified warp-uniform may split a
// warp's lanes, in the executions that do not trap (A-NO-TRAP).
func TestUniformJudgedSlots(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, body := range []string{slotLoop, slotDivergentStore, slotLoopExit, slotTrap} {
		src := kernel(body)
		fset := token.NewFileSet()
		file, err := load.File(fset, "k.ptx", []byte(src), load.PTX)
		if err != nil {
			t.Fatal(err)
		}
		fn := file.Funcs[0]
		g, err := cfg.Build(fset, fn)
		if err != nil {
			t.Fatal(err)
		}
		k, err := simt.New(file, fn)
		if err != nil {
			t.Fatal(err)
		}
		split, trapped := 0, 0
		for run := 0; run < 40; run++ {
			l := pass.Launch{Block: [3]int{1 + r.Intn(96), 1, 1}, Args: map[string]int64{"k_param_n": r.Int63n(64)}}
			info, err := divergence.Analyze(g, l, divergence.Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := k.Run(simt.Launch{Block: l.Block, Args: l.Args}, simt.Options{Order: simt.Orders[run%len(simt.Orders)], Seed: uint64(run)})
			if err != nil {
				t.Fatal(err)
			}
			if traps(b) {
				// The launch is aborted: A-NO-TRAP excludes it.
				trapped++
				continue
			}
			for w, ds := range b.Decisions {
				for _, d := range ds {
					br := info.Branch(g.Blocks[d.Block])
					if !d.Split() {
						continue
					}
					split++
					if br != nil && !br.Divergent {
						t.Errorf("block %v warp %d: branch %q classified warp-uniform splits the lanes\n%s", l.Block, w, br.Instr.Text, body)
					}
				}
			}
		}
		if split == 0 && body != slotLoop && body != slotTrap {
			t.Errorf("no execution split a warp: the case does not exercise its divergent branches\n%s", body)
		}
		if body == slotTrap && (trapped == 0 || trapped == 40) {
			t.Errorf("%d of 40 executions trapped: the trap case is not exercised both ways", trapped)
		}
	}
}

// traps reports whether some warp of an execution ran a trap (the launch
// is then aborted).
func traps(b *simt.Block) bool {
	for _, p := range b.Paths {
		for _, in := range p {
			if in.Kind == isa.KindExit && strings.EqualFold(in.Opcode, "trap") {
				return true
			}
		}
	}
	return false
}

// direction is where the active lanes of a decision that does not split
// went.
func direction(d simt.Decision) int8 {
	for l := 0; l < 32; l++ {
		if d.Lanes&(1<<l) != 0 {
			return d.Succ[l]
		}
	}
	return -2
}

// hasCall reports whether fn calls a function.
func hasCall(fn *isa.Func) bool {
	for _, in := range fn.Instrs {
		if in.Kind == isa.KindCall || in.Kind == isa.KindIndirectCall {
			return true
		}
	}
	return false
}
