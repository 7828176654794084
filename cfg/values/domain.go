package values

import (
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Domain is an interpretation of values: per-lane concrete values
// (Lanes), ranges over a launch (Range). Eval walks the value graph once
// and calls one transfer function per operation.
type Domain[V any] interface {
	// Top is the value that says nothing, at width w.
	Top(w int) V
	// Const is the w-bit constant x.
	Const(w int, x uint64) V
	// Leaf interprets a parameter, special register, frame address,
	// opaque or undefined value.
	Leaf(v *Value) V
	// Op is the transfer function of code at width w on operands of
	// widths argW.
	Op(code Code, w int, args []V, argW []int) V
	// Phi joins the values of a phi's operands.
	Phi(v *Value, args []V) V
}

// Evaluator evaluates values in a domain, memoised; cycles (a loop phi
// that depends on itself) give Top.
type Evaluator[V any] struct {
	D Domain[V]
	// Pre, when set, gives the interpretation of a value before the
	// domain is asked (facts that refine it).
	Pre  func(v *Value) (V, bool)
	memo map[*Value]V
	busy map[*Value]bool
}

// NewEvaluator returns an evaluator in d.
func NewEvaluator[V any](d Domain[V]) *Evaluator[V] {
	return &Evaluator[V]{D: d, memo: map[*Value]V{}, busy: map[*Value]bool{}}
}

// Eval returns the interpretation of v.
func (e *Evaluator[V]) Eval(v *Value) V {
	if r, ok := e.memo[v]; ok {
		return r
	}
	if e.busy[v] {
		return e.D.Top(v.W)
	}
	if e.Pre != nil {
		if r, ok := e.Pre(v); ok {
			e.memo[v] = r
			return r
		}
	}
	var r V
	switch v.Kind {
	case VConst:
		r = e.D.Const(v.W, v.Imm)
	case VOp:
		e.busy[v] = true
		args := make([]V, len(v.Args))
		ws := make([]int, len(v.Args))
		for i, a := range v.Args {
			args[i] = e.Eval(a)
			ws[i] = a.W
		}
		delete(e.busy, v)
		r = e.D.Op(v.Code, v.W, args, ws)
	case VPhi:
		e.busy[v] = true
		args := make([]V, len(v.Args))
		for i, a := range v.Args {
			args[i] = e.Eval(a)
		}
		delete(e.busy, v)
		r = e.D.Phi(v, args)
	default:
		r = e.D.Leaf(v)
	}
	e.memo[v] = r
	return r
}

// Guard returns the value of in's guard predicate as read by in (before
// negation), or nil when in is unguarded or not analysed.
func (f *Func) Guard(in *isa.Instr) *Value {
	if ii := f.info[in]; ii != nil {
		return ii.guard
	}
	return nil
}

// BranchCond returns the condition under which a SASS branch with a
// predicate operand beyond its guard ("@P0 BRA P1, L", "@!P0 BRA !P2, L":
// taken when the guard and the operand hold) goes to its label L, as a
// 1-bit value; nil for every other instruction, for the forms whose
// condition is not a predicate (BRA.DIV, BRA.CONV, "BRA CC.NEU, L"), and
// when in is unreachable. The front end makes such a branch an indirect
// branch to L and the next instruction (cfg/sass), so that no consumer
// reads its guard alone as its condition; this is its exact condition for
// those that read it here.
func (f *Func) BranchCond(in *isa.Instr) *Value {
	ii := f.info[in]
	o, ok := branchPredOperand(f.Dialect, in)
	if ii == nil || !ok {
		return nil
	}
	var c *Value
	switch {
	case len(o.Regs) == 1 && o.Regs[0] == "PT":
		c = f.Const(1, 1) // "BRA !PT" is handled below: never taken
		if o.Neg {
			c = f.Const(1, 0)
		}
	case ii.cond != nil:
		c = ii.cond
		if o.Neg {
			c = f.Op(Not, 1, c)
		}
	default:
		return nil
	}
	if ii.guard != nil {
		g := ii.guard
		if in.Guard.Neg {
			g = f.Op(Not, 1, g)
		}
		c = f.Op(And, 1, g, c)
	}
	return c
}

// branchPredOperand returns the predicate operand of a SASS BRA with a
// condition beyond its guard (the only register operand of a BRA that is
// not .DIV or .CONV: P0–P6, UP0–UP6, PT), and whether there is one.
func branchPredOperand(d isa.Dialect, in *isa.Instr) (isa.Operand, bool) {
	if d != isa.DialectSASS || in.Kind != isa.KindIndirectBranch || in.Opcode != "BRA" || in.HasMod("DIV") || in.HasMod("CONV") {
		return isa.Operand{}, false
	}
	var found isa.Operand
	n := 0
	for _, o := range in.Srcs {
		if o.Kind == isa.OpReg {
			found = o
			n++
		}
		if o.Kind == isa.OpSpecial {
			return isa.Operand{}, false // CC.NEU: a condition code
		}
	}
	if n != 1 || len(found.Regs) > 1 || len(found.Regs) == 0 && !found.Neg {
		return isa.Operand{}, false
	}
	if len(found.Regs) == 0 { // "!PT" parses with no register read
		found.Regs = []string{"PT"}
	}
	r := found.Regs[0]
	if r != "PT" && !isPredName(r) {
		return isa.Operand{}, false
	}
	return found, true
}

// Sem returns the decoded semantics of in, or nil when in is unreachable.
func (f *Func) Sem(in *isa.Instr) *Sem {
	if ii := f.info[in]; ii != nil {
		return ii.sem
	}
	return nil
}

// Inputs returns the values of in's inputs (Sem(in).Ins).
func (f *Func) Inputs(in *isa.Instr) []*Value {
	if ii := f.info[in]; ii != nil {
		return ii.ins
	}
	return nil
}

// Outputs returns the values in writes (Sem(in).Outs; nil for an output
// the analysis does not follow, a store to memory it does not model).
func (f *Func) Outputs(in *isa.Instr) []*Value {
	if ii := f.info[in]; ii != nil {
		return ii.outs
	}
	return nil
}

// Reads returns the values of the registers in reads (in.Uses(), SASS
// special registers left out), as read by in.
func (f *Func) Reads(in *isa.Instr) []*Value {
	if ii := f.info[in]; ii != nil {
		return ii.reads
	}
	return nil
}

// Block returns the block holding in, or nil when in is not analysed.
func (f *Func) Block(in *isa.Instr) *cfg.Block {
	if ii := f.info[in]; ii != nil {
		return ii.block
	}
	return nil
}

// Output returns the value in writes to register r, or nil.
func (f *Func) Output(in *isa.Instr, r string) *Value {
	ii := f.info[in]
	if ii == nil {
		return nil
	}
	for k, o := range ii.sem.Outs {
		if o.Kind == OutReg && o.Name == r {
			return ii.outs[k]
		}
	}
	return nil
}

// Locations returns the variables in reads and writes: registers, frame
// cells ("frame:<frame>@<offset>") and parameter cells
// ("param:<symbol>@<offset>"). A load from a promoted cell reads the cell;
// an inlined callee's parameter load reads the caller's argument cell.
func (f *Func) Locations(in *isa.Instr) (uses, defs []string) {
	if ii := f.info[in]; ii != nil {
		return ii.uses, ii.defs
	}
	return nil, nil
}

// AtEnd returns the value of variable v at the end of block b (a register
// name or a cell name), read at width w.
func (f *Func) AtEnd(b *cfg.Block, v string, w int) *Value {
	if !b.Reachable {
		return nil
	}
	x := resolve(f.b.read(v, b, f.varWidth(v, w)))
	if x.W != w {
		x = f.resize(nil, x, w, false)
	}
	return x
}

// Values returns every value of the function, by ID.
func (f *Func) Values() []*Value { return f.values }
