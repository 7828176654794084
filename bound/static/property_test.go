package static

import (
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

var propN = flag.Int("static.n", 120, "random programs for TestSoundAgainstConcretePaths")

// genProgram writes a random structured program: straight code, if/else,
// loops (do-while, bound 1-4) with an optional break in the middle, nested
// up to depth 3. Bounds are keyed by the header label.
type gen struct {
	r      *rand.Rand
	sb     strings.Builder
	n      int
	bounds map[string]int64
	bars   bool // emit block-wide barriers in the top-level straight code
	// anywhere: barriers at every depth, and one at the top of half the
	// loop bodies (barrier loops for the section path); with bars.
	anywhere bool
	// free: barrier loops with iterations that cross no barrier: the
	// barrier at the top of a loop body is guarded by a branch in a third
	// of the bodies, and a third of the loops are skipped by a branch
	// around them (an outer loop's iteration may then run no inner barrier
	// loop: a sorting network's shape); with anywhere.
	free bool
}

func (g *gen) instr() {
	ops := []string{"add", "add", "mul", "ld", "st"}
	op := ops[g.r.Intn(len(ops))]
	fmt.Fprintf(&g.sb, "\t%s r%d r%d r%d\n", op, g.r.Intn(6), g.r.Intn(6), g.r.Intn(6))
}

func (g *gen) block(depth int, exit string) {
	for k := 1 + g.r.Intn(3); k > 0; k-- {
		switch x := g.r.Intn(10); {
		case (depth == 0 || g.anywhere) && g.bars && x == 0:
			g.sb.WriteString("\tbar\n")
		case x < 5 || depth >= 3:
			g.instr()
		case x < 7:
			g.n++
			id := g.n
			fmt.Fprintf(&g.sb, "\t@p%d bra E%d\n", g.r.Intn(3), id)
			g.block(depth+1, exit)
			fmt.Fprintf(&g.sb, "\tbra J%d\nE%d:\n", id, id)
			g.block(depth+1, exit)
			fmt.Fprintf(&g.sb, "J%d:\n", id)
		case x < 9:
			g.n++
			id := g.n
			g.bounds[fmt.Sprintf("H%d", id)] = int64(g.r.Intn(4)) // 0 reads as 1
			skip := g.free && g.r.Intn(3) == 0
			if g.free && g.r.Intn(2) == 0 {
				g.bounds[fmt.Sprintf("H%d", id)] = 2 // back edges taken more often
			}
			if skip {
				fmt.Fprintf(&g.sb, "\t@p%d bra S%d\n", g.r.Intn(3), id)
			}
			fmt.Fprintf(&g.sb, "H%d:\n", id)
			if g.anywhere && g.r.Intn(2) == 0 {
				if g.free && g.r.Intn(3) == 0 {
					fmt.Fprintf(&g.sb, "\t@p%d bra G%d\n\tbar\nG%d:\n", g.r.Intn(3), id, id)
				} else {
					g.sb.WriteString("\tbar\n")
				}
			}
			g.block(depth+1, fmt.Sprintf("X%d", id))
			fmt.Fprintf(&g.sb, "\t@p%d bra H%d\nX%d:\n", g.r.Intn(3), id, id)
			if skip {
				fmt.Fprintf(&g.sb, "S%d:\n", id)
			}
		default:
			if exit != "" {
				fmt.Fprintf(&g.sb, "\t@p%d bra %s\n", g.r.Intn(3), exit)
			}
			g.instr()
		}
	}
}

// randomHW draws a hardware description with the pipeline options and
// shared resources: units alu, mul, mem and br with random timings, each
// in its own group or in one of two shared groups; bra, ret and bar routed
// to random units; random overhead, branch_wait, ret_issues and
// barrier_issues.
func randomHW(r *rand.Rand) *hwdesc.Desc {
	hw := &hwdesc.Desc{Name: "random", ClockMHz: 1000, DefaultUnit: "alu"}
	for _, n := range []string{"alu", "mul", "mem", "br"} {
		u := hwdesc.Unit{Name: n, Init: hwdesc.Cycles(1 + r.Intn(4)), Lat: hwdesc.Cycles(r.Intn(12))}
		if n == "mem" {
			u.Lat = hwdesc.Cycles(r.Intn(30))
		}
		if g := r.Intn(3); g > 0 {
			u.Group = fmt.Sprintf("g%d", g)
		}
		hw.Units = append(hw.Units, u)
	}
	unit := func() string { return hw.Units[r.Intn(len(hw.Units))].Name }
	hw.Map = []hwdesc.Rule{{Match: "mul*", Unit: "mul"}, {Match: "ld*", Unit: "mem"}, {Match: "st*", Unit: "mem"},
		{Match: "bra", Unit: unit()}, {Match: "ret", Unit: unit()}, {Match: "bar", Unit: unit()}}
	hw.Pipeline = hwdesc.Pipeline{
		Overhead:      hwdesc.Cycles(r.Intn(5)),
		BranchWait:    []string{"", hwdesc.BranchWaitNone, hwdesc.BranchWaitTaken, hwdesc.BranchWaitAll}[r.Intn(4)],
		RetIssues:     r.Intn(2) == 0,
		BarrierIssues: r.Intn(2) == 0,
	}
	return hw
}

// TestSoundAgainstConcretePaths: on single-warp random structured
// programs, the static D and I of every barrier section are at least the
// duration, InitSum+Issued and per-resource Issued and InitSum of the
// same section of every concrete path (and the weights are exact)
// allowed by the bounds, run through the engine with the redirect
// semantics of a known path (phases.BuildClassPath, PathRedirects). The
// "pipeline" variants draw a random hardware description per program
// (shared resources, overhead, branch_wait, ret_issues, barrier_issues)
// and put block-wide barriers in the top-level code.
func TestSoundAgainstConcretePaths(t *testing.T) {
	for _, acc := range []struct {
		exact int64
		widen int
		pipe  bool
	}{{4, 6, false}, {1, 6, false}, {1, 0, false}, {2, 1, false}, {4, 6, true}, {1, 6, true}, {1, 0, true}} {
		name := fmt.Sprintf("exact%d-widen%d", acc.exact, acc.widen)
		if acc.pipe {
			name += "-pipeline"
		}
		t.Run(name, func(t *testing.T) {
			defer func(e int64, w int) { exactIters, widenRounds = e, w }(exactIters, widenRounds)
			exactIters, widenRounds = acc.exact, acc.widen
			soundAgainstConcretePaths(t, acc.pipe)
		})
	}
}

func soundAgainstConcretePaths(t *testing.T, pipe bool) {
	checked, tight := 0, 0
	for seed := int64(1); seed <= int64(*propN); seed++ {
		r := rand.New(rand.NewSource(seed))
		hw := testHW()
		if pipe {
			hw = randomHW(r)
		}
		g := &gen{r: r, bounds: map[string]int64{}, bars: pipe}
		g.sb.WriteString(".entry random\n")
		g.block(0, "")
		g.sb.WriteString("\tret\n")
		src := g.sb.String()
		k := buildHW(t, src, hw)
		res, err := k.analyze(t, 1, g.bounds)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		checkSectionCounts(t, fmt.Sprintf("seed %d", seed), res, src)
		seg := map[segKey]*SegClass{}
		for _, s := range res.Segments {
			sc := s.Classes[0]
			seg[segKey{s.From, s.To}] = sc
			// The contribution table decomposes I exactly.
			var sum int64
			for _, u := range sc.Blocks {
				if u.Count < 1 {
					t.Errorf("seed %d: block %s counted %d times", seed, u.Block, u.Count)
				}
				sum += u.I
			}
			if sum != int64(sc.Load) {
				t.Errorf("seed %d: block table sums to L %d, segment L %d\n%s", seed, sum, sc.Load, src)
			}
		}
		maxD, maxI := map[segKey]hwdesc.Cycles{}, map[segKey]hwdesc.Cycles{}
		maxL := map[segKey][]phases.Load{}
		prepared := map[*isa.Instr]*phases.Op{}
		n, complete, err := EnumeratePaths(k.g, boundsByLabel(g.bounds), 20000, func(path []*isa.Instr) bool {
			c := enginePath(t, k, prepared, path)
			if err := pathSectionsWithin(c, seg, func(sk segKey, s *phases.Section) {
				d, i := s.Duration, s.InitSum+hwdesc.Cycles(s.Issued)
				maxD[sk], maxI[sk] = max(maxD[sk], d), max(maxI[sk], i)
				maxL[sk] = joinLoads(maxL[sk], s.Loads)
			}); err != nil {
				t.Errorf("seed %d: hw %+v: concrete path of %d instructions: %v\n%s", seed, hw.Pipeline, len(path), err, src)
				return false
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			return
		}
		if !complete {
			continue
		}
		checked++
		allTight := true
		for sk, sc := range seg {
			if n > 0 && maxI[sk] != sc.Load {
				t.Errorf("seed %d: L %d is not the longest path weight %d (the weight analysis is exact)", seed, sc.Load, maxI[sk])
			}
			if n > 0 && !(leqLoads(maxL[sk], sc.Loads) && leqLoads(sc.Loads, maxL[sk])) {
				t.Errorf("seed %d: resource loads %v are not the longest path weights %v (the weight analysis is exact)", seed, sc.Loads, maxL[sk])
			}
			allTight = allTight && maxD[sk] == sc.Duration
		}
		if allTight {
			tight++
		}
	}
	t.Logf("%d programs fully enumerated; static D equal to the worst concrete duration in every section in %d", checked, tight)
	if checked < *propN/2 {
		t.Errorf("only %d of %d programs enumerated completely", checked, *propN)
	}
}

// enginePath runs the engine along a concrete path of k's graph, as it
// runs a trace (phases.BuildClassPath with the path's redirects); prepared
// memoises the instructions' Ops.
func enginePath(t testing.TB, k *kernel, prepared map[*isa.Instr]*phases.Op, path []*isa.Instr) *phases.Class {
	t.Helper()
	ops := make([]*phases.Op, len(path))
	for i, in := range path {
		ops[i] = prepareOp(t, k, prepared, in)
	}
	return phases.BuildClassPath(k.eng, ops, phases.PathRedirects(k.g.Func, path), false)
}

// prepareOp returns the engine's Op of in, memoised in prepared.
func prepareOp(t testing.TB, k *kernel, prepared map[*isa.Instr]*phases.Op, in *isa.Instr) *phases.Op {
	t.Helper()
	if op := prepared[in]; op != nil {
		return op
	}
	o, err := k.eng.Prepare(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	prepared[in] = &o
	return &o
}

// pathSectionsWithin checks each section of the engine's run c against
// the static segment of its barrier pair (seg, one class): its duration,
// load and per-resource loads must be at most the segment's D, L and
// loads. It calls visit with each section within them.
func pathSectionsWithin(c *phases.Class, seg map[segKey]*SegClass, visit func(segKey, *phases.Section)) error {
	var from *isa.Instr
	for _, s := range c.Sections {
		sk := segKey{from, s.Barrier}
		from = s.Barrier
		sc := seg[sk]
		if sc == nil {
			return fmt.Errorf("section %d (%v -> %v) has no static segment", s.Index, sk.from, sk.to)
		}
		d, l := s.Duration, s.InitSum+hwdesc.Cycles(s.Issued)
		if d > sc.Duration || l > sc.Load || !leqLoads(s.Loads, sc.Loads) {
			return fmt.Errorf("section %d (%v -> %v): duration %d, load %d, resource loads %v; static D %d, L %d, loads %v",
				s.Index, sk.from, sk.to, d, l, s.Loads, sc.Duration, sc.Load, sc.Loads)
		}
		visit(sk, s)
	}
	return nil
}

// checkSectionCounts checks the segments' counts on the worst barrier
// path: known, and Σ count × section bound = the bound whenever
// CountsExact, which must hold when no loop is summarised by its mean
// cycle weight (walkMode walkExact).
func checkSectionCounts(t *testing.T, what string, res *Result, src string) {
	t.Helper()
	var sum int64
	for _, s := range res.Segments {
		if s.Count < 0 {
			t.Errorf("%s: segment count unknown\n%s", what, src)
			return
		}
		sum += s.Count * int64(s.Bound)
	}
	if res.CountsExact != (sum == int64(res.Bound)) {
		t.Errorf("%s: CountsExact %v but sum of count x section bound %d, bound %d\n%s", what, res.CountsExact, sum, res.Bound, src)
	}
	if walkMode == walkExact && !res.CountsExact {
		t.Errorf("%s: sum of count x section bound %d != bound %d with exact loop walks\n%s", what, sum, res.Bound, src)
	}
}

// TestSectionCountsExact: with every barrier loop walked exactly, the
// counts of the sections on the worst barrier path add up to the bound.
func TestSectionCountsExact(t *testing.T) {
	defer func(m int) { walkMode = m }(walkMode)
	walkMode = walkExact
	soundAgainstConcretePaths(t, true)
}
