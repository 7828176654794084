package static

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

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
		heaviest := int64(-1)
		if _, complete, err := EnumeratePaths(k.g, boundsByLabel(bounds), 10000, func(p []*isa.Instr) bool {
			x, err := pathSections(r, p)
			if err != nil {
				t.Fatal(err)
			}
			heaviest = max(heaviest, x)
			return true
		}); err != nil || !complete {
			t.Fatalf("enumeration: %v, complete %v", err, complete)
		}
		if int64(r.Bound) != heaviest {
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
// barriers at every depth (and at the top of half the loops): the bound is
// at least the sum of the segment bounds along every concrete path, equal
// to the heaviest such sum when every walk is computed exactly, and never
// above the node-weighted bound. Programs the section analysis refuses (a
// cycle of a barrier loop without barrier) are skipped.
func TestSectionPathAgainstConcretePaths(t *testing.T) {
	for _, mode := range []int{walkAuto, walkExact, walkMean} {
		t.Run([]string{"auto", "exact", "mean"}[mode], func(t *testing.T) {
			defer func(m int) { walkMode = m }(walkMode)
			walkMode = mode
			sectionPathAgainstConcretePaths(t, mode == walkExact)
		})
	}
}

// barrierProgram draws, from seed, a random description and a random
// program with barriers at every depth and in loops.
func barrierProgram(t *testing.T, seed int64) (*rand.Rand, *gen, string, *kernel) {
	r := rand.New(rand.NewSource(seed))
	hw := randomHW(r)
	g := &gen{r: r, bounds: map[string]int64{}, bars: true, anywhere: true}
	g.sb.WriteString(".entry random\n")
	g.block(0, "")
	g.sb.WriteString("\tret\n")
	src := g.sb.String()
	return r, g, src, buildHW(t, src, hw)
}

func sectionPathAgainstConcretePaths(t *testing.T, exact bool) {
	analysed, enumerated, barrierLoops, below, tight := 0, 0, 0, 0, 0
	for seed := int64(1); seed <= int64(3**propN); seed++ {
		_, g, src, k := barrierProgram(t, seed)
		res, err := k.analyze(t, 3, g.bounds)
		if err != nil {
			var se *Error
			if errors.As(err, &se) && se.Unbounded && strings.Contains(err.Error(), "passes no block-wide barrier") {
				continue
			}
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		analysed++
		if hb := loopBarriers(k.g); len(hb) > 0 && func() bool {
			for _, x := range hb {
				if x {
					return true
				}
			}
			return false
		}() {
			barrierLoops++
		}
		old := nodeWeightedBound(t, k, res, g.bounds)
		if int64(res.Bound) > old {
			t.Errorf("seed %d: bound %d above the node-weighted bound %d\n%s", seed, res.Bound, old, src)
		}
		if int64(res.Bound) < old {
			below++
		}
		heaviest := int64(-1)
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
		if heaviest == int64(res.Bound) {
			tight++
		}
		if exact && heaviest != int64(res.Bound) {
			t.Errorf("seed %d: bound %d, heaviest concrete path %d (exact walks)\n%s", seed, res.Bound, heaviest, src)
		}
	}
	t.Logf("%d programs analysed (%d with a barrier loop), %d fully enumerated, bound equal to the heaviest concrete path in %d; bound below the node-weighted one in %d", analysed, barrierLoops, enumerated, tight, below)
	if analysed < *propN || enumerated < analysed/2 || barrierLoops < *propN/4 || below == 0 {
		t.Errorf("too few cases: %d analysed, %d enumerated, %d with a barrier loop, %d improved", analysed, enumerated, barrierLoops, below)
	}
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
