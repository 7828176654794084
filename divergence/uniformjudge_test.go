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

// slotGen writes random unoptimised-style PTX: six variables in frame
// slots ([%SP+0] … [%SP+20], reached through cvta.local as clang -O0
// does), initialised from thread and block indices, the block size, the
// argument and literals, then a random structured body of assignments
// (each operand reloaded from its slot, the result stored back), ifs and
// if/elses on comparisons of two slots, and counted loops whose counter
// is a slot (trip count a slot's value & 7), nested up to three deep.
type slotGen struct {
	r        *rand.Rand
	sb       strings.Builder
	nr, np   int
	nl, size int
}

func (g *slotGen) reg() string  { g.nr++; return fmt.Sprintf("%%r%d", g.nr) }
func (g *slotGen) pred() string { g.np++; return fmt.Sprintf("%%p%d", g.np) }
func (g *slotGen) label() string {
	g.nl++
	return fmt.Sprintf("L%d", g.nl)
}
func (g *slotGen) emit(f string, a ...any) { fmt.Fprintf(&g.sb, "\t"+f+"\n", a...) }

// load reloads slot k into a fresh register.
func (g *slotGen) load(k int) string {
	r := g.reg()
	g.emit("ld.u32 %s, [%%SP+%d];", r, 4*k)
	return r
}

// slot picks a slot not in busy (the counters of enclosing loops).
func (g *slotGen) slot(busy map[int]bool) int {
	for {
		if k := g.r.Intn(6); !busy[k] {
			return k
		}
	}
}

func (g *slotGen) body(depth int, busy map[int]bool) {
	n := 1 + g.r.Intn(3)
	for i := 0; i < n && g.size > 0; i++ {
		g.size--
		c := g.r.Intn(6)
		if depth >= 3 {
			c = g.r.Intn(2)
		}
		switch c {
		case 0: // an operation on two slots
			a, b := g.load(g.r.Intn(6)), g.load(g.r.Intn(6))
			d := g.reg()
			switch op := []string{"add.s32", "sub.s32", "and.b32", "or.b32", "xor.b32", "min.u32", "max.u32", "shr.u32"}[g.r.Intn(8)]; op {
			case "shr.u32":
				g.emit("shr.u32 %s, %s, %d;", d, a, 1+g.r.Intn(5))
			default:
				g.emit("%s %s, %s, %s;", op, d, a, b)
			}
			g.emit("st.u32 [%%SP+%d], %s;", 4*g.slot(busy), d)
		case 1: // a literal
			d := g.reg()
			g.emit("mov.u32 %s, %d;", d, g.r.Intn(40))
			g.emit("st.u32 [%%SP+%d], %s;", 4*g.slot(busy), d)
		case 2, 3: // if, if/else
			a, b := g.load(g.r.Intn(6)), g.load(g.r.Intn(6))
			p := g.pred()
			g.emit("setp.%s.u32 %s, %s, %s;", []string{"lt", "le", "eq", "ne"}[g.r.Intn(4)], p, a, b)
			els, end := g.label(), g.label()
			g.emit("@%s bra %s;", p, els)
			g.body(depth+1, busy)
			if c == 3 {
				g.emit("bra.uni %s;", end)
				fmt.Fprintf(&g.sb, "%s:\n", els)
				g.body(depth+1, busy)
				fmt.Fprintf(&g.sb, "%s:\n", end)
			} else {
				fmt.Fprintf(&g.sb, "%s:\n%s:\n", els, end)
			}
		default: // a counted loop, its counter in a slot
			k := g.slot(busy)
			lim := g.load(g.r.Intn(6))
			m := g.reg()
			g.emit("and.b32 %s, %s, 7;", m, lim)
			// The limit is read once, before the loop.
			z := g.reg()
			g.emit("mov.u32 %s, 0;", z)
			g.emit("st.u32 [%%SP+%d], %s;", 4*k, z)
			head, out := g.label(), g.label()
			fmt.Fprintf(&g.sb, "%s:\n", head)
			i := g.load(k)
			p := g.pred()
			g.emit("setp.ge.u32 %s, %s, %s;", p, i, m)
			g.emit("@%s bra %s;", p, out)
			inner := map[int]bool{k: true}
			for x := range busy {
				inner[x] = true
			}
			if len(inner) < 6 {
				g.body(depth+1, inner)
			}
			j := g.load(k)
			j1 := g.reg()
			g.emit("add.s32 %s, %s, 1;", j1, j)
			g.emit("st.u32 [%%SP+%d], %s;", 4*k, j1)
			g.emit("bra.uni %s;", head)
			fmt.Fprintf(&g.sb, "%s:\n", out)
		}
	}
}

// slotKernel returns a random kernel of slotGen.
func slotKernel(r *rand.Rand) string {
	g := &slotGen{r: r, size: 14}
	inits := []string{"mov.u32 %s, %%tid.x;", "mov.u32 %s, %%ctaid.x;", "mov.u32 %s, %%ntid.x;", "ld.param.u32 %s, [k_param_n];", "mov.u32 %s, 3;"}
	for k := 0; k < 6; k++ {
		d := g.reg()
		g.emit(inits[r.Intn(len(inits))], d)
		if r.Intn(3) == 0 {
			e := g.reg()
			g.emit("shr.u32 %s, %s, %d;", e, d, 1+r.Intn(5))
			d = e
		}
		g.emit("st.u32 [%%SP+%d], %s;", 4*k, d)
	}
	g.body(0, map[int]bool{})
	g.emit("ret;")
	return fmt.Sprintf(`.version 7.0
.target sm_80
.address_size 64
.visible .entry k(
	.param .u32 k_param_n
)
{
	.local .align 4 .b8 __local_depot0[24];
	.reg .b64 %%SP;
	.reg .b64 %%SPL;
	.reg .pred %%p<%d>;
	.reg .b32 %%r<%d>;
	mov.u64 %%SPL, __local_depot0;
	cvta.local.u64 %%SP, %%SPL;
%s}
`, g.np+1, g.nr+1, g.sb.String())
}

// TestUniformJudgedRandomSlots is the property test of the uniformity
// classification on random unoptimised-style kernels (slotKernel), with
// the judge as the oracle: at random block sizes (1–96 threads: one to
// three warps, the last partial) and arguments, in every side order, no
// branch classified warp-uniform splits a warp's lanes, and no branch
// taken as uniform across the block is decided differently by two warps.
func TestUniformJudgedRandomSlots(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 30
	}
	var splits, uniformDecisions int
	for seed := int64(1); seed <= int64(seeds); seed++ {
		r := rand.New(rand.NewSource(seed))
		src := slotKernel(r)
		fset := token.NewFileSet()
		file, err := load.File(fset, "k.ptx", []byte(src), load.PTX)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
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
		for run := 0; run < 6; run++ {
			l := pass.Launch{Block: [3]int{1 + r.Intn(96), 1, 1}, Grid: [3]int{1 + r.Intn(4), 1, 1}, Args: map[string]int64{"k_param_n": r.Int63n(50)}}
			info, err := divergence.Analyze(g, l, divergence.Options{})
			if err != nil {
				continue // refused: serialized loop iterations
			}
			b, err := k.Run(simt.Launch{Block: l.Block, Grid: l.Grid, Args: l.Args}, simt.Options{Order: simt.Orders[run%len(simt.Orders)], Seed: uint64(seed*10 + int64(run))})
			if err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, src)
			}
			seq := map[int][][]int8{}
			for w, ds := range b.Decisions {
				for _, d := range ds {
					br := info.Branch(g.Blocks[d.Block])
					if d.Split() {
						splits++
					}
					if br == nil || br.Divergent {
						continue
					}
					uniformDecisions++
					if d.Split() {
						t.Fatalf("seed %d block %v args %v: warp %d: branch %q classified warp-uniform splits the lanes %08x\n%s", seed, l.Block, l.Args, w, br.Instr.Text, d.Lanes, src)
					}
					same := true
					for _, o := range br.Outcomes[1:] {
						same = same && o == br.Outcomes[0]
					}
					if !same {
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
							t.Fatalf("seed %d block %v: branch %q taken as uniform across the block: execution %d goes to successor %d in warp 0 and %d in warp %d\n%s", seed, l.Block, g.Blocks[bi].Last().Text, i, ws[0][i], ws[w][i], w, src)
						}
					}
				}
			}
		}
	}
	t.Logf("%d kernels: %d executions of branches classified uniform, %d splits of divergent ones", seeds, uniformDecisions, splits)
	if splits == 0 || uniformDecisions == 0 {
		t.Error("the generator exercises no divergent or no uniform branch")
	}
}
