package static

import (
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/divergence"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// Rerun analyses the kernel of r again on the same graph with another
// description, divergence result or loop bounds (nil: r's own): the
// counterfactual analyses of package bound/pessimism, which measure what a
// bound owes to an approximation or an assumption. The result is never a
// bound of the kernel unless its inputs are r's. It has no Totals (nor
// DefaultUnit): the split reads its Bound only, and the totals' lower-bound
// walk would cost a third of each analysis.
func (r *Report) Rerun(hw *hwdesc.Desc, info *divergence.Info, lr *loops.Result) (*Report, error) {
	if hw == nil {
		hw = r.HW
	}
	if info == nil {
		info = r.Info
	}
	if lr == nil {
		lr = r.Loops
	}
	if err := lr.Err(); err != nil {
		return nil, err
	}
	eng, err := phases.NewEngine(hw)
	if err != nil {
		return nil, err
	}
	return kernelWith(eng, r.Graph, info, lr, r.inl, false, false)
}
