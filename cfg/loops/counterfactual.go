package loops

import (
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// WithMax returns a copy of r in which the loop lb (one of r.Loops) has
// the bound n, its other loops unchanged; r is not modified. It serves
// counterfactual analyses (package bound/pessimism: how much of a bound
// rests on an annotated loop bound), never a bound.
func (r *Result) WithMax(lb *LoopBound, n int64) *Result {
	c := *r
	c.Loops = make([]*LoopBound, len(r.Loops))
	repl := map[*LoopBound]*LoopBound{}
	for i, x := range r.Loops {
		if x == lb {
			y := *x
			if x.Bound != nil {
				b := *x.Bound
				b.Max = n
				y.Bound = &b
			} else {
				y.Bound = &Bound{Max: n}
			}
			repl[x] = &y
			c.Loops[i] = &y
			continue
		}
		c.Loops[i] = x
	}
	swap := func(x *LoopBound) *LoopBound {
		if y, ok := repl[x]; ok {
			return y
		}
		return x
	}
	c.byBlock = make(map[*cfg.Block]*LoopBound, len(r.byBlock))
	for k, v := range r.byBlock {
		c.byBlock[k] = swap(v)
	}
	c.byInstr = make(map[*isa.Instr]*LoopBound, len(r.byInstr))
	for k, v := range r.byInstr {
		c.byInstr[k] = swap(v)
	}
	return &c
}
