package loops

import (
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

func TestExamples(t *testing.T) {
	for _, tc := range []struct {
		file   string
		launch pass.Launch
		want   []int64
		expr   []string
	}{
		{"../../examples/counted-loop/kernel.ptx", pass.Launch{Block: [3]int{32, 1, 1}, Grid: [3]int{1, 1, 1}, Args: map[string]int64{"colsum_param_2": 100}}, []int64{100}, []string{"(colsum_param_2 - 1) % 4294967296 + 1"}},
		{"../../examples/reduce/kernel.ptx", pass.Launch{Block: [3]int{256, 1, 1}, Grid: [3]int{1, 1, 1}}, []int64{8}, []string{"8"}},
	} {
		_, gs := graphs(t, tc.file, readFile(t, tc.file))
		r, err := Compute(gs[0], tc.launch, nil, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if len(r.Loops) != len(tc.want) {
			t.Fatalf("%s: %d loops, want %d", tc.file, len(r.Loops), len(tc.want))
		}
		for i, lb := range r.Loops {
			if lb.Bound == nil {
				t.Errorf("%s: loop %d unbounded: %s", tc.file, i, lb.Why)
				continue
			}
			t.Logf("%s: %s = %d (%s)", tc.file, lb.Bound.Expr, lb.Bound.Max, lb.Bound.Why)
			if lb.Bound.Max != tc.want[i] || lb.Bound.Expr != tc.expr[i] {
				t.Errorf("%s: loop %d: got %d = %s, want %d = %s", tc.file, i, lb.Bound.Max, lb.Bound.Expr, tc.want[i], tc.expr[i])
			}
		}
	}
}
