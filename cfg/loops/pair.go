package loops

import (
	"fmt"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// SASS computes 64-bit values in register pairs: the low words with a
// carry out (IADD3 R0, P0, a, b, RZ), the high words adding the carry
// (IADD3.X R1, c, d, RZ, P0, !PT), and compares them in two steps
// (ISETP ... .U32 on the low words, ISETP ... .EX on the high words with
// the low result). The value graph keeps the words apart; these functions
// read them as the 64-bit values they are (exactly: a carry chain is the
// 64-bit sum modulo 2^64, a .EX chain the 64-bit comparison).

// pairOf builds the 64-bit value of the halves lo and hi.
func (a *analysis) pairOf(lo, hi *values.Value) *values.Value { return a.f.Pair(lo, hi) }

// asPair recognises ZExt64(lo) | ZExt64(hi) << 32 with 32-bit halves.
func asPair(v *values.Value) (lo, hi *values.Value, ok bool) {
	if v.Kind != values.VOp || v.Code != values.Or || v.W != 64 {
		return nil, nil, false
	}
	for i := 0; i < 2; i++ {
		l, h := v.Args[i], v.Args[1-i]
		if l.Kind != values.VOp || l.Code != values.ZExt || l.Args[0].W != 32 {
			continue
		}
		if h.Kind != values.VOp || h.Code != values.Shl || h.Args[0].Kind != values.VOp || h.Args[0].Code != values.ZExt || h.Args[0].Args[0].W != 32 {
			continue
		}
		if k, ok := h.Args[1].IsConst(); !ok || k != 32 {
			continue
		}
		return l.Args[0], h.Args[0].Args[0], true
	}
	return nil, nil, false
}

// addends flattens a 32-bit sum.
func addends(v *values.Value) []*values.Value {
	if v.Kind == values.VOp && v.Code == values.Add {
		return append(addends(v.Args[0]), addends(v.Args[1])...)
	}
	return []*values.Value{v}
}

// sum32 adds 32-bit values (0 for none).
func (a *analysis) sum32(vs []*values.Value) *values.Value {
	s := a.f.Const(32, 0)
	for _, v := range vs {
		s = a.f.Op(values.Add, 32, s, v)
	}
	return s
}

// splitCarry reads pair(lo, hi) as pair(p, hi') + ZExt64(q) when lo = p +
// q and hi = hi' + carry(p + q).
// want, when set, chooses between the two readings (p, q) and (q, p).
func (a *analysis) splitCarry(lo, hi *values.Value, want func(p, q *values.Value) bool) (p, q, rest *values.Value, ok bool) {
	if lo.Kind != values.VOp || lo.Code != values.Add || lo.W != 32 {
		return nil, nil, nil, false
	}
	hs := addends(hi)
	for i := 0; i < 2; i++ {
		p, q := lo.Args[i], lo.Args[1-i]
		if want != nil && !want(p, q) {
			continue
		}
		for k, t := range hs {
			if values.IsCarry(t, p, q) {
				others := append(append([]*values.Value(nil), hs[:k]...), hs[k+1:]...)
				return p, q, a.sum32(others), true
			}
		}
	}
	return nil, nil, nil, false
}

// evolvePair reads the 64-bit value of the halves lo, hi as a recurrence
// of l.
func (a *analysis) evolvePair(lo, hi *values.Value, l *cfg.Loop, depth int) (rec, string) {
	f := a.f
	// pair(p + q, hi' + carry) = pair(p, hi') + q.
	if p, q, rest, ok := a.splitCarry(lo, hi, func(_, q *values.Value) bool { return a.invariant(q, l) }); ok {
		r, why := a.evolvePair(p, rest, l, depth+1)
		if why != "" || r.kind != recAdd {
			if why == "" {
				why = "a 64-bit sum that is not a linear recurrence"
			}
			return rec{}, why
		}
		r.start = f.Op(values.Add, 64, r.start, f.Op(values.ZExt, 64, q))
		return r, ""
	}
	// pair(lo, h + inv) = pair(lo, h) + inv << 32.
	var variant, inv []*values.Value
	for _, t := range addends(hi) {
		if a.invariant(t, l) {
			inv = append(inv, t)
		} else {
			variant = append(variant, t)
		}
	}
	if len(inv) > 0 && len(variant) > 0 {
		r, why := a.evolvePair(lo, a.sum32(variant), l, depth+1)
		if why != "" || r.kind != recAdd {
			return rec{}, why
		}
		r.start = f.Op(values.Add, 64, r.start, f.Op(values.Shl, 64, f.Op(values.ZExt, 64, a.sum32(inv)), f.Const(32, 32)))
		return r, ""
	}
	if lo.Kind == values.VPhi && hi.Kind == values.VPhi && lo.Block == l.Header && hi.Block == l.Header && len(lo.Args) == len(hi.Args) {
		return a.pairPhis(lo, hi, l)
	}
	if a.invariant(lo, l) && a.invariant(hi, l) {
		v := a.pairOf(lo, hi)
		return rec{kind: recAdd, start: v, step: f.Const(64, 0), w: 64}, ""
	}
	return rec{}, fmt.Sprintf("the 64-bit value with halves %s and %s is not a recurrence the analysis follows", a.pretty(lo), a.pretty(hi))
}

// maxPairChain bounds the carry chain pairPhis follows from a back edge's
// value to the header's pair (one link per 32-bit addend of the step).
const maxPairChain = 16

// pairPhis reads a pair of header phis (the halves of a 64-bit induction
// value): on entry the pair of their entry values, on each back edge the
// pair stepped by one invariant 64-bit amount.
func (a *analysis) pairPhis(lo, hi *values.Value, l *cfg.Loop) (rec, string) {
	var start, step *values.Value
	for i := range lo.Args {
		p := lo.Preds[i]
		if hi.Preds[i] != p {
			return rec{}, "the halves of a 64-bit value enter the loop differently"
		}
		x, y := lo.Args[i], hi.Args[i]
		if !l.Contains(p) {
			if a.entryLoop == l && p != a.entry {
				continue
			}
			s := a.pairOf(x, y)
			if start != nil && start != s {
				a.multiEntry = true
				return rec{}, "a 64-bit value enters the loop with different values"
			}
			start = s
			continue
		}
		st, why := a.carriedStep(x, y, lo, hi, l)
		if why != "" {
			return rec{}, why
		}
		if step != nil && step != st {
			return rec{}, "a 64-bit value is stepped differently on different paths"
		}
		step = st
	}
	if start == nil || step == nil {
		return rec{}, "a 64-bit value without entry or step"
	}
	return rec{kind: recAdd, start: start, step: step, w: 64}, ""
}

// pairStepOf returns the 64-bit step s when x, the value a 64-bit phi v
// takes on a back edge, is v + s computed in words (clang -O0 adds a
// 64-bit frame slot's words to a product's words; carriedStep). nil when
// x is no such sum.
func (a *analysis) pairStepOf(x, v *values.Value, l *cfg.Loop) *values.Value {
	if v.W != 64 {
		return nil
	}
	lo, hi, ok := asPair(x)
	if !ok {
		return nil
	}
	f := a.f
	vlo := f.Op(values.Trunc, 32, v)
	vhi := f.Op(values.Trunc, 32, f.Op(values.LShr, 64, v, f.Const(32, 32)))
	st, why := a.carriedStep(lo, hi, vlo, vhi, l)
	if why != "" {
		return nil
	}
	return st
}

// carriedStep returns the 64-bit step s, invariant in l, when the words
// x, y are pair(lo, hi) + s: x = lo + q, y = hi + carry(lo + q) + r
// steps by q + r << 32, and a chain of such sums (x = (lo + q1) + q2, y =
// hi + carry(lo + q1) + carry(lo + q1 + q2) + r: an unrolled step, or a
// three-operand IADD3's) by q1 + q2 + r << 32. why says why not.
func (a *analysis) carriedStep(x, y, lo, hi *values.Value, l *cfg.Loop) (*values.Value, string) {
	f := a.f
	var qs []*values.Value
	rest := y
	for x != lo && len(qs) < maxPairChain {
		pp, q, r, ok := a.splitCarry(x, rest, func(_, q *values.Value) bool { return a.invariant(q, l) })
		if !ok {
			break
		}
		qs = append(qs, q)
		x, rest = pp, r
	}
	if x != lo || len(qs) == 0 {
		return nil, fmt.Sprintf("the 64-bit value with halves %s and %s is not stepped by an invariant amount", a.name(lo), a.name(hi))
	}
	var rs []*values.Value
	seenHi := false
	for _, t := range addends(rest) {
		if t == hi && !seenHi {
			seenHi = true
			continue
		}
		if !a.invariant(t, l) {
			return nil, fmt.Sprintf("the high half %s of a 64-bit value is not stepped by an invariant amount", a.name(hi))
		}
		rs = append(rs, t)
	}
	if !seenHi {
		return nil, fmt.Sprintf("the high half %s of a 64-bit value does not carry over", a.name(hi))
	}
	st := f.Op(values.Shl, 64, f.Op(values.ZExt, 64, a.sum32(rs)), f.Const(32, 32))
	for _, q := range qs {
		st = f.Op(values.Add, 64, st, f.Op(values.ZExt, 64, q))
	}
	return st, ""
}

// pair64Compare reads a .EX comparison chain as a 64-bit comparison
// (values.Func.Compare64).
func (a *analysis) pair64Compare(c *values.Value) (code values.Code, x, y *values.Value, ok bool) {
	return a.f.Compare64(c)
}
