package static

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// nodeWeightedBound is the barrier path as computed before edge weighting:
// every barrier charged W(b) = max_a S(a,b) (the end likewise), the
// longest node-weighted path under the loop bounds. The edge-weighted
// bound must never be above it.
func nodeWeightedBound(t testing.TB, k *kernel, res *Result, bounds map[string]int64) int64 {
	t.Helper()
	in := &Input{Engine: k.eng, Graph: k.g, Classes: []Class{{Graph: k.g}}, Bound: boundsByLabel(bounds)}
	ops, err := prepare(in, k.g.Fset)
	if err != nil {
		t.Fatal(err)
	}
	weight := map[*isa.Instr]int64{}
	var endWeight int64
	for _, s := range res.Segments {
		if s.To == nil {
			endWeight = max(endWeight, int64(s.Bound))
		} else {
			weight[s.To] = max(weight[s.To], int64(s.Bound))
		}
	}
	pw := &walker{g: k.g, ops: ops, bound: in.Bound, hasBar: loopBarriers(k.g), cache: map[string][]exitVal{},
		weight: func(op *phases.Op) int64 { return weight[op.Instr] }}
	o, err := pw.walk(nil, k.g.Entry(), 0, val{ok: true})
	if err != nil {
		t.Fatal(err)
	}
	if !o.end.ok {
		t.Fatal("node-weighted path: no path reaches the end")
	}
	return o.end.i + endWeight
}

// pathSections returns the sum of the segment bounds of the barrier pairs
// a concrete path meets, or an error naming a pair without a segment.
func pathSections(res *Result, path []*isa.Instr) (int64, error) {
	seg := map[segKey]int64{}
	for _, s := range res.Segments {
		seg[segKey{s.From, s.To}] = int64(s.Bound)
	}
	var from *isa.Instr
	var sum int64
	cross := func(to *isa.Instr) error {
		b, ok := seg[segKey{from, to}]
		if !ok {
			return fmt.Errorf("no segment %v -> %v", from, to)
		}
		sum += b
		from = to
		return nil
	}
	for _, in := range path {
		if phases.IsSync(in) {
			if err := cross(in); err != nil {
				return 0, err
			}
		}
	}
	if err := cross(nil); err != nil {
		return 0, err
	}
	return sum, nil
}

// heaviestSections returns the largest sum of the segment bounds of res
// along the concrete paths of k under bounds (every path enumerated).
func heaviestSections(t *testing.T, k *kernel, res *Result, bounds map[string]int64) int64 {
	t.Helper()
	heaviest := int64(-1)
	if _, complete, err := EnumeratePaths(k.g, boundsByLabel(bounds), 10000, func(p []*isa.Instr) bool {
		x, err := pathSections(res, p)
		if err != nil {
			t.Fatal(err)
		}
		heaviest = max(heaviest, x)
		return true
	}); err != nil || !complete {
		t.Fatalf("enumeration: %v, complete %v", err, complete)
	}
	return heaviest
}

// The shape of hotspot's calculate_temp: a costly prologue before the
// barrier loop (so the first section into the loop's first barrier is
// heavier than the later ones), a break between the loop's two barriers,
// and a cheap tail after the second one.
const breakLoop = `ld r1 r0
	ld r2 r1
	bar
	mul r3 r2
	mul r4 r3
	mul r5 r4
L:
	add r6 r5
	bar
	add r7 r6
	@p bra OUT
	ld r8 r7
	bar
	@q bra L
	bra DONE
OUT:
	st r9 r7
	mul r9 r9
DONE:
	ret
`

// TestEdgeWeightsHandBuilt: on breakLoop the node weighting charges the
// loop's first barrier its heaviest incoming section (from the prologue)
// in every iteration and the end its heaviest incoming section (after the
// break); the edge-weighted path is the heaviest concrete path exactly.
func TestEdgeWeightsHandBuilt(t *testing.T) {
	k := build(t, breakLoop)
	fn := k.g.Func
	bar1, bar2, bar3 := fn.Instrs[2], fn.Instrs[7], fn.Instrs[11]
	for _, B := range []int64{1, 2, 3, 5, 1_000_000_000} {
		bounds := map[string]int64{"L": B}
		r, err := k.analyze(t, 2, bounds)
		if err != nil {
			t.Fatal(err)
		}
		S := map[[2]*isa.Instr]int64{}
		for _, s := range r.Segments {
			S[[2]*isa.Instr{s.From, s.To}] = int64(s.Bound)
		}
		e1, a, b, c := S[[2]*isa.Instr{nil, bar1}], S[[2]*isa.Instr{bar1, bar2}], S[[2]*isa.Instr{bar2, bar3}], S[[2]*isa.Instr{bar3, bar2}]
		endB, endC := S[[2]*isa.Instr{bar2, nil}], S[[2]*isa.Instr{bar3, nil}]
		if len(S) != 6 || a <= c || endB <= endC {
			t.Fatalf("test shape: segments %v", r.Segments)
		}
		// Leaving after bar3 at the last iteration, or by the break after
		// bar2 (in the last iteration: every earlier one only adds).
		want := e1 + a + max(b+(B-1)*(c+b)+endC, (B-1)*(b+c)+endB)
		if int64(r.Bound) != want {
			t.Errorf("B=%d: bound %d, want %d (segments entry-1 %d, 1-2 %d, 2-3 %d, 3-2 %d, 2-end %d, 3-end %d)", B, r.Bound, want, e1, a, b, c, endB, endC)
		}
		old := nodeWeightedBound(t, k, r, bounds)
		// Node weights: bar2 is charged a (> c) at each of its B
		// executions, bar3 b, the end max(endB, endC) = endB after
		// whichever barrier.
		if wantOld := e1 + B*(a+b) + endB; old != wantOld {
			t.Errorf("B=%d: node-weighted bound %d, want %d", B, old, wantOld)
		}
		if int64(r.Bound) >= old {
			t.Errorf("B=%d: edge-weighted bound %d not below the node-weighted %d", B, r.Bound, old)
		}
		if B > 5 {
			continue
		}
		if heaviest := heaviestSections(t, k, r, bounds); int64(r.Bound) != heaviest {
			t.Errorf("B=%d: bound %d, heaviest concrete path %d", B, r.Bound, heaviest)
		}
	}
}

// TestBarrierLoopBoundArithmetic: the cost of a barrier loop's summary is
// independent of the bound's value, and the bound grows by exactly one
// iteration's sections per unit of loop bound.
func TestBarrierLoopBoundArithmetic(t *testing.T) {
	k := build(t, breakLoop)
	at := func(B int64) hwdesc.Cycles {
		r, err := k.analyze(t, 2, map[string]int64{"L": B})
		if err != nil {
			t.Fatal(err)
		}
		return r.Bound
	}
	d := at(11) - at(10)
	for _, B := range []int64{3, 100, 1_000_000, 1_000_000_000_000} {
		if got := at(B+1) - at(B); got != d {
			t.Errorf("bound(%d+1) - bound(%d) = %d, want %d", B, B, got, d)
		}
	}
	if at(0) != at(1) {
		t.Errorf("bound 0 (%d) differs from bound 1 (%d)", at(0), at(1))
	}
	_, err := k.analyze(t, 2, map[string]int64{"L": 1 << 62})
	var se *Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("bound 2^62: err = %v, want an overflow error", err)
	}
}

// TestSectionPathAgainstConcretePaths: random structured programs with
// barriers at every depth (and at the top of half the loops, guarded in
// some; loops skipped by a branch around them), among them loops holding
// barriers whose iterations may cross none (docs/model.md, "Barrier loops
// with barrier-free iterations"): the bound is at least the sum of the
// segment bounds along every concrete path, equal to the heaviest such sum
// when every walk is computed exactly, and never above the node-weighted
// bound; each section of every concrete path, run through the engine
// (phases.BuildClassPath, as a trace would be), lasts at most the static D
// of its segment and its load and per-resource loads are at most the
// static ones, the load being the heaviest concrete one exactly.
func TestSectionPathAgainstConcretePaths(t *testing.T) {
	for _, mode := range []int{walkAuto, walkExact, walkMean} {
		t.Run([]string{"auto", "exact", "mean"}[mode], func(t *testing.T) {
			defer func(m int) { walkMode = m }(walkMode)
			walkMode = mode
			sectionPathAgainstConcretePaths(t, mode == walkExact, mode == walkAuto)
		})
	}
}

// barrierProgram draws, from seed, a random description and a random
// program with barriers at every depth and in loops, among them loops
// holding barriers with iterations that cross none (gen.free).
func barrierProgram(t *testing.T, seed int64) (*rand.Rand, *gen, string, *kernel) {
	r := rand.New(rand.NewSource(seed))
	hw := randomHW(r)
	g := &gen{r: r, bounds: map[string]int64{}, bars: true, anywhere: true, free: true}
	g.sb.WriteString(".entry random\n")
	g.block(0, "")
	g.sb.WriteString("\tret\n")
	src := g.sb.String()
	return r, g, src, buildHW(t, src, hw)
}

func sectionPathAgainstConcretePaths(t *testing.T, exact, engine bool) {
	analysed, enumerated, barrierLoops, free, freeRan, below, tight, engineRuns := 0, 0, 0, 0, 0, 0, 0, 0
	for seed := int64(1); seed <= int64(3**propN); seed++ {
		_, g, src, k := barrierProgram(t, seed)
		res, err := k.analyze(t, 3, g.bounds)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		analysed++
		hb := loopBarriers(k.g)
		if slices.Contains(hb, true) {
			barrierLoops++
		}
		hasFree := slices.Contains(freeBarrierCycles(k.g, hb), true)
		if hasFree {
			free++
		}
		old := nodeWeightedBound(t, k, res, g.bounds)
		if int64(res.Bound) > old {
			t.Errorf("seed %d: bound %d above the node-weighted bound %d\n%s", seed, res.Bound, old, src)
		}
		if int64(res.Bound) < old {
			below++
		}
		seg := map[segKey]*SegClass{}
		for _, s := range res.Segments {
			sc := s.Classes[0]
			seg[segKey{s.From, s.To}] = sc
			// The contribution table decomposes L exactly, through the
			// summaries of loops holding barriers too.
			var sum int64
			for _, u := range sc.Blocks {
				sum += u.I
			}
			if sum != int64(sc.Load) {
				t.Errorf("seed %d: segment %v -> %v: block table sums to %d, L %d\n%s", seed, s.From, s.To, sum, sc.Load, src)
			}
		}
		// The counts of the worst barrier path add up to the bound when
		// they are said to (ties between worst paths, as with a
		// barrier-free iteration beside one crossing a barrier that costs
		// nothing, can leave them not exact even with exact walks).
		var csum int64
		known := true
		for _, s := range res.Segments {
			known = known && s.Count >= 0
			csum += s.Count * int64(s.Bound)
		}
		if known && res.CountsExact != (csum == int64(res.Bound)) {
			t.Errorf("seed %d: CountsExact %v but sum of count x section bound %d, bound %d\n%s", seed, res.CountsExact, csum, res.Bound, src)
		}
		maxI := map[segKey]hwdesc.Cycles{}
		prepared := map[*isa.Instr]*phases.Op{}
		heaviest := int64(-1)
		ranFree := false
		// The engine runs on a sample of the paths that run a
		// barrier-free iteration of a barrier loop and of the others
		// (every stride-th of each; all of them when there are at most
		// 500).
		headers := barrierHeaders(k.g)
		stride, strideFree := 1, 1
		if engine && hasFree {
			n, nFree := 0, 0
			EnumeratePaths(k.g, boundsByLabel(g.bounds), 20000, func(p []*isa.Instr) bool {
				if freeIteration(headers, p) {
					nFree++
				} else {
					n++
				}
				return true
			})
			stride, strideFree = max(1, n/500), max(1, nFree/500)
		}
		idx, idxFree, runs := -1, -1, 0
		_, complete, err := EnumeratePaths(k.g, boundsByLabel(g.bounds), 20000, func(p []*isa.Instr) bool {
			x, err := pathSections(res, p)
			if err != nil {
				t.Errorf("seed %d: %v\n%s", seed, err, src)
				return false
			}
			if x > int64(res.Bound) {
				t.Errorf("seed %d: a concrete path meets sections summing to %d, above the bound %d\n%s", seed, x, res.Bound, src)
				return false
			}
			heaviest = max(heaviest, x)
			runsFree := hasFree && freeIteration(headers, p)
			ranFree = ranFree || runsFree
			sampled := false
			if runsFree {
				idxFree++
				sampled = idxFree%strideFree == 0
			} else {
				idx++
				sampled = idx%stride == 0
			}
			if !engine || !hasFree || !sampled {
				// The segments do not depend on walkMode; the engine
				// runs only on the programs with barrier-free
				// iterations (its cost).
				return true
			}
			// Section by section, the engine on the concrete path.
			runs++
			c := enginePath(t, k, prepared, p)
			if err := pathSectionsWithin(c, seg, func(sk segKey, s *phases.Section) {
				maxI[sk] = max(maxI[sk], s.InitSum+hwdesc.Cycles(s.Issued))
			}); err != nil {
				t.Errorf("seed %d: hw %+v: concrete path of %d instructions: %v\n%s", seed, k.eng.HW().Pipeline, len(p), err, src)
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
		enumerated++
		engineRuns += runs
		if ranFree {
			freeRan++
		}
		if heaviest == int64(res.Bound) {
			tight++
		}
		if exact && heaviest != int64(res.Bound) {
			t.Errorf("seed %d: bound %d, heaviest concrete path %d (exact walks)\n%s", seed, res.Bound, heaviest, src)
		}
		// A loop of bound 1 whose cycles all pass a barrier is walked
		// through by the segment walk, its back edge included, which no
		// concrete path takes: the loads are the heaviest concrete ones
		// when every loop can take its back edge.
		backEdges := true
		for _, n := range g.bounds {
			backEdges = backEdges && n >= 2
		}
		for sk, sc := range seg {
			if engine && hasFree && stride == 1 && strideFree == 1 && backEdges && maxI[sk] != sc.Load {
				t.Errorf("seed %d: segment %v -> %v: L %d is not the heaviest concrete section's %d (the weight analysis is exact)\n%s", seed, sk.from, sk.to, sc.Load, maxI[sk], src)
			}
		}
	}
	t.Logf("%d programs analysed (%d with a barrier loop, %d with barrier-free iterations of one), %d fully enumerated (%d with a path running such an iteration), bound equal to the heaviest concrete path in %d; bound below the node-weighted one in %d; %d concrete paths run through the engine",
		analysed, barrierLoops, free, enumerated, freeRan, tight, below, engineRuns)
	if analysed < *propN || enumerated < analysed/2 || barrierLoops < *propN/4 || free < *propN/4 || freeRan < *propN/4 || below == 0 {
		t.Errorf("too few cases: %d analysed, %d enumerated, %d with a barrier loop, %d with barrier-free iterations (%d run), %d improved", analysed, enumerated, barrierLoops, free, freeRan, below)
	}
}

// barrierHeaders maps the first instruction of the header of every loop
// of g holding a barrier to the loop.
func barrierHeaders(g *cfg.Graph) map[*isa.Instr]*cfg.Loop {
	hb := loopBarriers(g)
	header := map[*isa.Instr]*cfg.Loop{}
	for _, l := range g.Loops {
		if hb[l.Index] {
			header[l.Header.Instrs[0]] = l
		}
	}
	return header
}

// freeIteration reports whether path p runs an iteration of a loop holding
// a barrier (header: barrierHeaders) from its header back to it without
// crossing a barrier.
func freeIteration(header map[*isa.Instr]*cfg.Loop, p []*isa.Instr) bool {
	last := map[*cfg.Loop]int{} // index in p of the header's last execution, -1 after a barrier
	for i, in := range p {
		if phases.IsSync(in) {
			for l := range last {
				last[l] = -1
			}
		}
		if l := header[in]; l != nil {
			if j, ok := last[l]; ok && j >= 0 {
				return true
			}
			last[l] = i
		}
	}
	return false
}

// TestWalkBound compares walkBound with the heaviest walks of length 0..K
// by dynamic programming on random small graphs: always at least them,
// equal in the exact modes, never above K times the largest weight
// (the node-weighted bound's per-iteration charge), and unreachable
// exactly where no walk of length ≤ K exists.
func TestWalkBound(t *testing.T) {
	defer func(m int) { walkMode = m }(walkMode)
	r := rand.New(rand.NewSource(7))
	for iter := 0; iter < 3000; iter++ {
		n := 1 + r.Intn(5)
		T := newMat(n)
		var mu int64
		for i := range n {
			for j := range n {
				if r.Intn(3) == 0 {
					T[i][j] = int64(r.Intn(20))
					mu = max(mu, T[i][j])
				}
			}
		}
		K := int64(r.Intn(13))
		// want[a][b]: heaviest walk of length ≤ K.
		cur := newMat(n)
		for i := range n {
			cur[i][i] = 0
		}
		want := newMat(n)
		for k := int64(0); ; k++ {
			for i := range n {
				for j := range n {
					want[i][j] = max(want[i][j], cur[i][j])
				}
			}
			if k == K {
				break
			}
			cur, _ = mul(cur, T)
		}
		for _, mode := range []int{walkAuto, walkExact, walkMean, -1} {
			walkMode = mode
			var P [][]int64
			var err error
			if mode < 0 {
				P, err = coarseWalkBound(T, K)
			} else {
				P, err = walkBound(T, K)
			}
			if err != nil {
				t.Fatal(err)
			}
			for a := range n {
				for b := range n {
					got, w := P[a][b], want[a][b]
					bad := got < w || got > K*mu || (mode >= 0 && (got == none) != (w == none)) ||
						((mode == walkExact || mode == walkAuto && K <= int64(n)) && got != w)
					if bad {
						t.Fatalf("mode %d, T %v, K %d: P[%d][%d] = %d, heaviest walk %d", mode, T, K, a, b, got, w)
					}
				}
			}
		}
	}
}

// guardedBarrier is a loop whose barrier a uniform branch may skip: its
// iterations that take the branch cross no barrier.
const guardedBarrier = "L:\n@p bra S\nbar\nS:\nadd r1 r1\n@q bra L\nret\n"

// TestBarrierFreeIterations: on guardedBarrier (refused before: "a cycle
// through this block passes no block-wide barrier") the section from the
// entry to the barrier runs up to B−1 barrier-free iterations (6 weight
// units each: the header's branch, the add, the back branch) before the
// header's branch (2) that falls to the barrier; the section from the
// barrier back to it runs the rest of its iteration (4) and, in the rest
// of the entry (bound B−1), up to B−2 free ones and the header (2); with B
// = 1 the back edge is never taken and that section does not exist. The
// bound is the heaviest sum of sections of the concrete paths.
func TestBarrierFreeIterations(t *testing.T) {
	k := build(t, guardedBarrier)
	bar := k.g.Func.Instrs[1]
	for B := int64(1); B <= 5; B++ {
		bounds := map[string]int64{"L": B}
		r, err := k.analyze(t, 2, bounds)
		if err != nil {
			t.Fatalf("B=%d: %v", B, err)
		}
		if r.OneWarp {
			t.Fatalf("B=%d: bounded as one warp", B)
		}
		L := map[[2]*isa.Instr]int64{}
		for _, s := range r.Segments {
			L[[2]*isa.Instr{s.From, s.To}] = int64(s.Classes[0].Load)
		}
		want := map[[2]*isa.Instr]int64{{nil, bar}: 6*(B-1) + 2, {nil, nil}: 6 * B, {bar, nil}: 4 + 6*(B-1)}
		if B >= 2 {
			want[[2]*isa.Instr{bar, bar}] = 4 + 6*(B-2) + 2
			want[[2]*isa.Instr{bar, nil}] = 4 + 6*(B-1) // the rest of the iteration, then up to B−1 free ones
		}
		if diff := cmp.Diff(want, L); diff != "" {
			t.Errorf("B=%d: segment loads (-want +got):\n%s", B, diff)
		}
		if heaviest := heaviestSections(t, k, r, bounds); int64(r.Bound) != heaviest {
			t.Errorf("B=%d: bound %d, heaviest concrete path %d", B, r.Bound, heaviest)
		}
	}
}
