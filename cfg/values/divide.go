package values

import (
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Division by the reciprocal (docs/model.md, "Division by the
// reciprocal"). ptxas expands a 32-bit integer division by a value it
// does not know (and, at -O0, by every divisor) into
//
//	e  = F2I.U32.TRUNC(bits(MUFU.RCP(I2F.U32.RP(d))) + 0x0ffffffe)
//	e' = e + hi(e · (-(d·e)))                    one Newton step
//	q0 = hi(e' · n);  r0 = n - d·q0
//	q1, r1 = r0 >= d ? (q0+1, r0-d) : (q0, r0)   two corrections
//	q2, r2 = r1 >= d ? (q1+1, r1-d) : (q1, r1)
//
// (LLVM's AMDGPU expandDivRem32 is the same algorithm), with the signed
// forms on the absolute values and a sign fix-up after. For every d != 0
// and every float MUFU.RCP may return within the PTX ISA's bound for
// rcp.approx.f32 (1 ulp), q2 = n / d and r2 = n % d. The float steps are
// not modelled (they are opaque values); divide recognises the whole
// integer part structurally, every step checked and every operand tied to
// the same n, d and e, and gives q2 and r2 the semantics UDiv and URem
// (undefined, that is unknown, for d = 0, where the hardware computes
// something else: nvcc's own d = 0 select after the sequence decides that
// case). A sequence matched only in part keeps its opaque value.

// noDivide turns the recognition off (the differential test builds the
// graph both ways).
var noDivide bool

// lterm is a term of a linear form: an atom (b nil) or the product of
// two atoms (a.ID <= b.ID).
type lterm struct{ a, b *Value }

// linear is a 32-bit value as c + Σ k·term, modulo 2^32.
type linear struct {
	c uint64
	t map[lterm]uint64
}

const linMask = 1<<32 - 1

func (l linear) add(m linear, k uint64) linear {
	r := linear{c: (l.c + k*m.c) & linMask, t: map[lterm]uint64{}}
	for t, x := range l.t {
		r.t[t] = x
	}
	for t, x := range m.t {
		r.t[t] = (r.t[t] + k*x) & linMask
		if r.t[t] == 0 {
			delete(r.t, t)
		}
	}
	return r
}

func (l linear) equal(m linear) bool {
	if l.c != m.c || len(l.t) != len(m.t) {
		return false
	}
	for t, x := range l.t {
		if m.t[t] != x {
			return false
		}
	}
	return true
}

func atom(v *Value) linear { return linear{t: map[lterm]uint64{{a: v}: 1}} }

// lin writes the 32-bit value v as a linear form over atoms and products
// of two atoms: additions, subtractions, negations, complements (~x =
// -x - 1) and products by constants are expanded, anything else is an
// atom. Two values with equal forms are equal (ring identities modulo
// 2^32).
func lin(v *Value, depth int) linear {
	if v.W != 32 || depth > 24 {
		return atom(v)
	}
	if c, ok := v.IsConst(); ok {
		return linear{c: c & linMask, t: map[lterm]uint64{}}
	}
	if v.Kind != VOp {
		return atom(v)
	}
	switch v.Code {
	case Add:
		return lin(v.Args[0], depth+1).add(lin(v.Args[1], depth+1), 1)
	case Sub:
		return lin(v.Args[0], depth+1).add(lin(v.Args[1], depth+1), linMask)
	case Neg:
		return linear{t: map[lterm]uint64{}}.add(lin(v.Args[0], depth+1), linMask)
	case Not:
		return linear{c: linMask, t: map[lterm]uint64{}}.add(lin(v.Args[0], depth+1), linMask)
	case Mul:
		if p, ok := linMul(lin(v.Args[0], depth+1), lin(v.Args[1], depth+1)); ok {
			return p
		}
	}
	return atom(v)
}

// linMul multiplies two linear forms when one is a constant or both are
// one atom scaled (k·x · m·y = km·(x·y)).
func linMul(a, b linear) (linear, bool) {
	zero := linear{t: map[lterm]uint64{}}
	if len(a.t) == 0 {
		return zero.add(b, a.c), true
	}
	if len(b.t) == 0 {
		return zero.add(a, b.c), true
	}
	if a.c != 0 || b.c != 0 || len(a.t) != 1 || len(b.t) != 1 {
		return zero, false
	}
	for ta, ka := range a.t {
		for tb, kb := range b.t {
			if ta.b != nil || tb.b != nil {
				return zero, false
			}
			x, y := ta.a, tb.a
			if x.ID > y.ID {
				x, y = y, x
			}
			return linear{t: map[lterm]uint64{{a: x, b: y}: ka * kb & linMask}}, true
		}
	}
	return zero, false
}

// linEq reports whether x and y have equal linear forms.
func linEq(x, y linear) bool { return x.equal(y) }

// floatOp reports whether v is the opaque result of an unguarded SASS
// instruction of opcode op whose modifiers are all in allowed and include
// every one of need, and returns its one input.
func (f *Func) floatOp(v *Value, op string, allowed, need []string) (*Value, bool) {
	if v == nil || v.Kind != VOpaque || v.W != 32 || v.Instr == nil {
		return nil, false
	}
	in := v.Instr
	if in.Opcode != op || in.Guard.Reg != "" || f.Guard(in) != nil {
		return nil, false
	}
	outs := f.Outputs(in)
	if len(outs) != 1 || outs[0] != v {
		return nil, false
	}
	have := map[string]bool{}
	for _, m := range in.Mods {
		ok := false
		for _, a := range allowed {
			ok = ok || m == a
		}
		if !ok || have[m] {
			return nil, false
		}
		have[m] = true
	}
	for _, m := range need {
		if !have[m] {
			return nil, false
		}
	}
	ins := f.Inputs(in)
	if len(ins) != 1 || ins[0] == nil || ins[0].W != 32 {
		return nil, false
	}
	return ins[0], true
}

// recipEstimate reports whether e is ptxas's estimate of 2^32/d,
// F2I.FTZ.U32.TRUNC(bits(MUFU.RCP(I2F.RP(d))) + 0x0ffffffe), and
// returns d.
func (f *Func) recipEstimate(e *Value) (*Value, bool) {
	if f.Dialect != isa.DialectSASS {
		return nil, false
	}
	a, ok := f.floatOp(e, "F2I", []string{"FTZ", "U32", "F32", "TRUNC", "NTZ"}, []string{"U32", "TRUNC"})
	if !ok || a.Kind != VOp || a.Code != Add {
		return nil, false
	}
	if c, ok := a.Args[1].IsConst(); !ok || c != 0x0ffffffe {
		return nil, false
	}
	r, ok := f.floatOp(a.Args[0], "MUFU", []string{"RCP"}, []string{"RCP"})
	if !ok {
		return nil, false
	}
	// I2F.RP of a 32-bit integer, read unsigned or signed (a divisor of
	// 2^31 or more read signed gives a negative float, e = 0: still
	// exact, docs/model.md).
	d, ok := f.floatOp(r, "I2F", []string{"F32", "U32", "S32", "RP"}, []string{"RP"})
	if !ok {
		return nil, false
	}
	in := r.Instr
	for _, m := range in.Mods {
		if m == "U32" || m == "S32" {
			for _, m2 := range in.Mods {
				if m2 != m && (m2 == "U32" || m2 == "S32") {
					return nil, false
				}
			}
		}
	}
	return d, true
}

// atLeast reads the predicate p as "r >= d" (unsigned): it returns r, d
// and whether p is that comparison (true) or its negation (false).
func atLeast(p *Value) (r, d *Value, sense, ok bool) {
	if p.W != 1 || p.Kind != VOp {
		return nil, nil, false, false
	}
	switch p.Code {
	case Not:
		r, d, sense, ok = atLeast(p.Args[0])
		return r, d, !sense, ok
	case ULe: // d <= r
		return p.Args[1], p.Args[0], true, p.Args[1].W == 32
	case ULt: // r < d
		return p.Args[0], p.Args[1], false, p.Args[0].W == 32
	}
	return nil, nil, false, false
}

// sameDivisor reports whether x and d are the same divisor: one value
// (constants are hash-consed: equal constants are one value).
func sameDivisor(x, d *Value) bool { return x == d }

// correction reads v = select(r >= d, yes, no) (the comparison written
// d <=u r or r <u d, either way round) and returns r, yes, no.
func correction(v, d *Value) (r, yes, no *Value, ok bool) {
	if v == nil || v.Kind != VOp || v.Code != Select || v.W != 32 {
		return nil, nil, nil, false
	}
	r, x, sense, ok := atLeast(v.Args[0])
	if !ok || !sameDivisor(x, d) {
		return nil, nil, nil, false
	}
	yes, no = v.Args[1], v.Args[2]
	if !sense {
		yes, no = no, yes
	}
	return r, yes, no, true
}

// divide recognises select(p, a, b) as the quotient or the remainder of
// ptxas's division by the reciprocal, and returns UDiv(n, d) or
// URem(n, d); nil otherwise.
func (f *Func) divide(in *isa.Instr, p, a, b *Value) *Value {
	if a.W != 32 || b.W != 32 || p.W != 1 {
		return nil
	}
	// The second correction: select(r1 >= d, ...).
	_, d, _, ok := atLeast(p)
	if !ok {
		return nil
	}
	sel := &Value{Kind: VOp, Code: Select, W: 32, Args: []*Value{p, a, b}}
	r1, yes, no, ok := correction(sel, d)
	if !ok {
		return nil
	}
	// r1 = select(r0 >= d, r0 - d, r0).
	r0, ryes, rno, ok := correction(r1, d)
	if !ok || rno != r0 || !linEq(lin(ryes, 0), lin(r0, 0).add(lin(d, 0), linMask)) {
		return nil
	}
	rem := false
	var q0 *Value
	switch {
	case no == r1 && linEq(lin(yes, 0), lin(r1, 0).add(lin(d, 0), linMask)):
		rem = true
	case linEq(lin(yes, 0), lin(no, 0).add(linear{c: 1, t: map[lterm]uint64{}}, 1)):
		// q1 = select(r0 >= d, q0 + 1, q0).
		r, qyes, qno, ok := correction(no, d)
		if !ok || r != r0 || !linEq(lin(qyes, 0), lin(qno, 0).add(linear{c: 1, t: map[lterm]uint64{}}, 1)) {
			return nil
		}
		q0 = qno
	default:
		return nil
	}
	// r0 = n - d·q0 with q0 = hi(e'·n): for the remainder, q0 is the
	// multiple of d that r0 subtracts.
	l0 := lin(r0, 0)
	try := func(q *Value) *Value {
		if q == nil {
			return nil
		}
		a, b, c, ok := mulHi(q)
		if !ok || c != nil {
			return nil
		}
		args := [2]*Value{a, b}
		for i := 0; i < 2; i++ {
			e2, n := args[i], args[1-i]
			if _, ok := f.newtonStep(e2, d); !ok {
				continue
			}
			dq, ok := linMul(lin(d, 0), lin(q, 0))
			if !ok || !linEq(l0, lin(n, 0).add(dq, linMask)) {
				continue
			}
			return n
		}
		return nil
	}
	if rem {
		// Find q0 among r0's terms: the product d·q0 (or k·q0 for a
		// constant d).
		for t := range l0.t {
			for _, q := range []*Value{t.a, t.b} {
				if n := try(q); n != nil {
					f.divisions++
					return f.mk(in, URem, 32, n, d)
				}
			}
		}
		return nil
	}
	if n := try(q0); n != nil {
		f.divisions++
		return f.mk(in, UDiv, 32, n, d)
	}
	return nil
}

// mulHi reads v as hi(a·b) + c, a and b 32-bit values read unsigned, c a
// 32-bit value or nil (0): MulHiU(a, b), or the high word of the 64-bit
// sum a·b + c·2^32 (IMAD.WIDE.U32's high register; IMAD.HI.U32 with the
// pair {0, c} as its addend).
func mulHi(v *Value) (a, b, c *Value, ok bool) {
	if v.W != 32 || v.Kind != VOp {
		return nil, nil, nil, false
	}
	if v.Code == MulHiU {
		return v.Args[0], v.Args[1], nil, true
	}
	if v.Code != Trunc {
		return nil, nil, nil, false
	}
	x := v.Args[0]
	if x.W != 64 || x.Kind != VOp || x.Code != LShr {
		return nil, nil, nil, false
	}
	if k, ok := x.Args[1].IsConst(); !ok || k != 32 {
		return nil, nil, nil, false
	}
	zext := func(y *Value) (*Value, bool) {
		if y.Kind == VOp && y.Code == ZExt && y.W == 64 && y.Args[0].W == 32 {
			return y.Args[0], true
		}
		return nil, false
	}
	prod := func(y *Value) (*Value, *Value, bool) {
		if y.Kind != VOp || y.Code != Mul || y.W != 64 {
			return nil, nil, false
		}
		p, ok1 := zext(y.Args[0])
		q, ok2 := zext(y.Args[1])
		return p, q, ok1 && ok2
	}
	s := x.Args[0]
	if p, q, ok := prod(s); ok {
		return p, q, nil, true
	}
	if s.Kind != VOp || s.Code != Add || s.W != 64 {
		return nil, nil, nil, false
	}
	for i := 0; i < 2; i++ {
		p, q, ok := prod(s.Args[i])
		h := s.Args[1-i]
		if !ok || h.Kind != VOp || h.Code != Shl || h.W != 64 {
			continue
		}
		if k, ok := h.Args[1].IsConst(); !ok || k != 32 {
			continue
		}
		if y, ok := zext(h.Args[0]); ok {
			return p, q, y, true
		}
	}
	return nil, nil, nil, false
}

// newtonStep reports whether e2 = e + hi(e·(-(d·e))) for the reciprocal
// estimate e of d, and returns e.
func (f *Func) newtonStep(e2, d *Value) (*Value, bool) {
	// e2 = e + h, h = hi(e·t), as a sum or with e the high addend of h.
	var e, t *Value
	if a, b, c, ok := mulHi(e2); ok && c != nil {
		e = c
		switch e {
		case a:
			t = b
		case b:
			t = a
		default:
			return nil, false
		}
	} else {
		l := lin(e2, 0)
		if l.c != 0 || len(l.t) != 2 {
			return nil, false
		}
		var h *Value
		for tm, k := range l.t {
			if tm.b != nil || k != 1 {
				return nil, false
			}
			if _, _, c, ok := mulHi(tm.a); ok && c == nil {
				h = tm.a
			} else {
				e = tm.a
			}
		}
		if h == nil || e == nil {
			return nil, false
		}
		a, b, _, _ := mulHi(h)
		switch e {
		case a:
			t = b
		case b:
			t = a
		default:
			return nil, false
		}
	}
	de, ok := f.recipEstimate(e)
	if !ok || !sameDivisor(de, d) {
		return nil, false
	}
	// t = -(d·e).
	want, ok := linMul(lin(d, 0), atom(e))
	if !ok || !linEq(lin(t, 0), linear{t: map[lterm]uint64{}}.add(want, linMask)) {
		return nil, false
	}
	return e, true
}

// signedDivide recognises select(c, a, b) as the sign fix-up of a signed
// division or remainder done on absolute values: a and b are u and -u
// for u = UDiv(|n|, |d|) chosen by the signs of n and d (SDiv(n, d)), or
// u = URem(|n|, |d|) chosen by the sign of n (SRem(n, d)).
func (f *Func) signedDivide(in *isa.Instr, c, a, b *Value) *Value {
	if a.W != 32 || c.W != 1 {
		return nil
	}
	var u *Value
	pos := true // c chooses u (not -u)
	switch neg := lin(b, 0); {
	case a.Kind == VOp && (a.Code == UDiv || a.Code == URem) && linEq(neg, linear{t: map[lterm]uint64{}}.add(atom(a), linMask)):
		u = a
	case b.Kind == VOp && (b.Code == UDiv || b.Code == URem) && linEq(lin(a, 0), linear{t: map[lterm]uint64{}}.add(atom(b), linMask)):
		u, pos = b, false
	default:
		return nil
	}
	n, ok := absOf(u.Args[0])
	if !ok {
		return nil
	}
	// The condition: x >= 0 (signed) or x < 0, possibly complemented.
	x, nonneg, ok := signTest(c)
	if !ok {
		return nil
	}
	if !nonneg {
		pos = !pos
	}
	if !pos {
		return nil // u chosen when x < 0: not a sign fix-up
	}
	if u.Code == URem {
		d, ok := absOf(u.Args[1])
		if !ok || x != n {
			return nil
		}
		if dc, ok := u.Args[1].IsConst(); ok {
			// A constant |d|: the sign of d does not matter for the
			// remainder; d = |d| as well.
			if Signed(dc, 32) < 0 {
				return nil
			}
			d = u.Args[1]
		}
		return f.mk(in, SRem, 32, n, d)
	}
	// x = n ^ d.
	if x.Kind != VOp || x.Code != Xor || x.W != 32 {
		return nil
	}
	var d *Value
	switch {
	case x.Args[0] == n:
		d = x.Args[1]
	case x.Args[1] == n:
		d = x.Args[0]
	default:
		return nil
	}
	if dc, ok := d.IsConst(); ok {
		uc, ok := u.Args[1].IsConst()
		s := Signed(dc, 32)
		if !ok || s == -1<<31 || uint64(max(s, -s)) != uc {
			return nil
		}
	} else if dd, ok := absOf(u.Args[1]); !ok || dd != d {
		return nil
	}
	return f.mk(in, SDiv, 32, n, d)
}

// absOf reads v = |x| = select(x < 0, -x, x) and returns x; a
// non-negative constant is its own absolute value.
func absOf(v *Value) (*Value, bool) {
	if c, ok := v.IsConst(); ok {
		return v, Signed(c, 32) >= 0
	}
	if v.Kind != VOp || v.Code != Select || v.W != 32 {
		return nil, false
	}
	t := v.Args[0]
	if t.Kind != VOp || t.Code != SLt || t.Args[1].Kind != VConst || t.Args[1].Imm != 0 {
		return nil, false
	}
	x := t.Args[0]
	if v.Args[2] != x || !linEq(lin(v.Args[1], 0), linear{t: map[lterm]uint64{}}.add(atom(x), linMask)) {
		return nil, false
	}
	return x, true
}

// signTest reads the predicate c as x >= 0 (nonneg true) or x < 0
// (signed).
func signTest(c *Value) (x *Value, nonneg, ok bool) {
	if c.Kind != VOp || c.W != 1 {
		return nil, false, false
	}
	switch c.Code {
	case Not:
		x, nonneg, ok = signTest(c.Args[0])
		return x, !nonneg, ok
	case SLe: // 0 <= x
		if z, ok := c.Args[0].IsConst(); ok && z == 0 && c.Args[1].W == 32 {
			return c.Args[1], true, true
		}
	case SLt: // x < 0
		if z, ok := c.Args[1].IsConst(); ok && z == 0 && c.Args[0].W == 32 {
			return c.Args[0], false, true
		}
	}
	return nil, false, false
}

// gatePhi returns the value of phi, a merge of two values at the join of
// a two-way branch, as select(condition, value along the taken edge,
// value along the other): the join's two predecessors are the branch
// block or blocks entered only from it (a triangle or a diamond), so the
// branch of the same pass decided which value arrives. nil when phi is
// no such merge.
func (f *Func) gatePhi(phi *Value) *Value {
	j := phi.Block
	if j == nil || j == f.Graph.Entry() || len(phi.Args) != 2 || phi.W == 0 {
		return nil
	}
	// arm returns the branch block p is an arm of and whether p is on
	// the taken side.
	arm := func(p *cfg.Block) (*cfg.Block, bool, bool) {
		if p == nil {
			return nil, false, false
		}
		if p.Kind == cfg.BlockIf {
			for _, e := range p.Succs {
				if e.To == j {
					return p, e.Kind == cfg.EdgeTaken, true
				}
			}
		}
		var from *cfg.Edge
		n := 0
		for i := range p.Preds {
			if p.Preds[i].From.Reachable {
				from = &p.Preds[i]
				n++
			}
		}
		if n != 1 || len(p.Succs) != 1 || p.Succs[0].To != j || from.From.Kind != cfg.BlockIf {
			return nil, false, false
		}
		return from.From, from.Kind == cfg.EdgeTaken, true
	}
	b0, t0, ok0 := arm(phi.Preds[0])
	b1, t1, ok1 := arm(phi.Preds[1])
	if !ok0 || !ok1 || b0 != b1 || t0 == t1 || phi.Preds[0] == phi.Preds[1] {
		return nil
	}
	br := b0
	if len(br.Succs) != 2 || br.Succs[0].To == br.Succs[1].To {
		return nil
	}
	k := 0
	for _, e := range j.Preds {
		if e.From.Reachable {
			k++
		}
	}
	if k != 2 {
		return nil
	}
	// A two-way branch (BlockIf) is taken exactly when its guard holds:
	// a branch with a condition beyond its guard (BRA.DIV, "@P0 BRA P1")
	// is an indirect branch of the graph (cfg/sass).
	last := br.Last()
	if last == nil || cfg.FlowKind(last) != isa.KindBranch || last.Guard.Reg == "" {
		return nil
	}
	g := f.Guard(last)
	if g == nil {
		return nil
	}
	if last.Guard.Neg {
		g = f.mk(last, Not, 1, g)
	}
	taken, other := phi.Args[0], phi.Args[1]
	if t1 {
		taken, other = other, taken
	}
	return f.mk(nil, Select, phi.W, g, resolve(taken), resolve(other))
}
