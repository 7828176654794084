package static

import (
	"errors"
	"testing"

	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// oneWarpSrc has a barrier under a branch (instructions 0-1) and a loop
// whose iterations cross 0 or 1 barriers (3-6): the section analysis
// refuses it for a block of several warps.
const oneWarpSrc = "@p bra S\nbar\nS:\nld r1 r0\nL:\n@p bra T\nbar\nT:\nadd r2 r1\n@q bra L\nret\n"

func issuingBarriers() *hwdesc.Desc {
	hw := testHW()
	hw.Pipeline.BarrierIssues = true
	return hw
}

// TestOneWarpBarriers: with one warp the kernel is bounded as one section,
// at least the fixed-path bound (the bound command's figure) of every
// concrete path; with two warps it is still refused.
func TestOneWarpBarriers(t *testing.T) {
	for _, hw := range []*hwdesc.Desc{testHW(), issuingBarriers()} {
		k := buildHW(t, oneWarpSrc, hw)
		bounds := boundsByLabel(map[string]int64{"L": 3})
		r, err := Analyze(&Input{Engine: k.eng, Graph: k.g, Classes: []Class{{Warps: []int{0}, Graph: k.g}}, Bound: bounds})
		if err != nil {
			t.Fatalf("barrier_issues %v: one warp: %v", hw.Pipeline.BarrierIssues, err)
		}
		if !r.OneWarp || len(r.Segments) != 1 || r.Segments[0].Count != 1 || !r.CountsExact || r.Segments[0].Classes[0].Interference != 0 {
			t.Errorf("one warp: result %+v", r)
		}
		rep := &Report{Result: r}
		if err := rep.Check(); err != nil {
			t.Error(err)
		}
		var worst hwdesc.Cycles
		for _, pre := range [][]int{{0, 1, 2}, {0, 2}} {
			var walk func(p []int, left int)
			walk = func(p []int, left int) {
				if left == 0 {
					return
				}
				for _, it := range [][]int{{3, 4, 5, 6}, {3, 5, 6}} {
					q := append(append([]int(nil), p...), it...)
					b := fixedPath(t, k, pick(k.g.Func, append(q, 7)...), 1)
					if b > r.Bound {
						t.Errorf("barrier_issues %v: path %v: fixed-path bound %d above the static bound %d", hw.Pipeline.BarrierIssues, q, b, r.Bound)
					}
					worst = max(worst, b)
					walk(q, left-1)
				}
			}
			walk(pre, 3)
		}
		t.Logf("barrier_issues %v: static %d, worst concrete path %d", hw.Pipeline.BarrierIssues, r.Bound, worst)
		_, err = Analyze(&Input{Engine: k.eng, Graph: k.g, Classes: []Class{{Warps: []int{0, 1}, Graph: k.g}}, Bound: bounds})
		var se *Error
		if !errors.As(err, &se) || !se.Unbounded {
			t.Errorf("two warps: err = %v, want a refusal", err)
		}
	}
}

// TestOneWarpStraightLineEqualsBound: the single-section analysis of a
// straight-line one-warp kernel with barriers is the bound command's figure.
func TestOneWarpStraightLineEqualsBound(t *testing.T) {
	for _, hw := range []*hwdesc.Desc{testHW(), issuingBarriers()} {
		for _, src := range []string{
			"ld r1 r0\nbar\nadd r2 r1\nmul r3 r2\nbar\nst r9 r3\nret\n",
			"bar\nbar\nret\n",
			"mul r1 r0\nld r2 r0\nbar\nmul r3 r1\nbar\nadd r4 r2\nret\n",
		} {
			k := buildHW(t, src, hw)
			r, err := analyzeOneWarp(&Input{Engine: k.eng, Graph: k.g, Classes: []Class{{Warps: []int{0}, Graph: k.g}}, Bound: boundsByLabel(nil)})
			if err != nil {
				t.Fatal(err)
			}
			if want := fixedPath(t, k, k.g.Func.Instrs, 1); r.Bound != want {
				t.Errorf("barrier_issues %v: %q: single-section bound %d, bound command %d", hw.Pipeline.BarrierIssues, src, r.Bound, want)
			}
		}
	}
}
