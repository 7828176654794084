// Package simcheck judges the bounds of package bound against the
// reference simulator on the blocks of package simtest: it holds the
// soundness property test (every simulated makespan at most the bound)
// and the regression cases.
package simcheck

import (
	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim/simtest"
)

// Bounds are the bounds of package bound for a case: the sound bound and
// the ECRTS 2025 GUB (reported for comparison).
type Bounds struct {
	Bound, PaperGUB hwdesc.Cycles
}

// ComputeBounds profiles the case and computes its bounds.
func ComputeBounds(c *simtest.Case) (Bounds, error) {
	p, err := c.Profile()
	if err != nil {
		return Bounds{}, err
	}
	r, err := bound.Compute(p)
	if err != nil {
		return Bounds{}, err
	}
	return Bounds{Bound: r.Bound, PaperGUB: r.GUB}, nil
}
