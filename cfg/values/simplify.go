package values

import "github.com/gpuwcet/gpuwcet/cfg/isa"

// opKey identifies an operation for hash-consing.
type opKey struct {
	code Code
	w    int
	a    [3]int
}

// constant returns the w-bit constant x.
func (f *Func) constant(w int, x uint64) *Value {
	x &= Mask(w)
	k := [2]uint64{uint64(w), x}
	if v := f.consts[k]; v != nil {
		return v
	}
	v := f.newValue(&Value{Kind: VConst, W: w, Imm: x})
	f.consts[k] = v
	return v
}

// opaque returns a fresh value the analysis does not follow. Its Args are
// the values it may depend on: the registers the instruction interpreted
// reads (for the uniformity analysis).
func (f *Func) opaque(in *isa.Instr, w int, why string, deps ...*Value) *Value {
	v := &Value{Kind: VOpaque, W: w, Instr: in, Why: why}
	if f.cur != nil {
		v.Args = append(v.Args, f.cur.reads...)
	}
	v.Args = append(v.Args, deps...)
	return f.newValue(v)
}

func (f *Func) newValue(v *Value) *Value {
	v.ID = len(f.values)
	f.values = append(f.values, v)
	return v
}

// mk returns the value of code applied to args at width w, simplified by
// exact rewriting rules (constant folding, identities, truncation pushed
// through ring operations, register-pair joins and splits), hash-consed.
// in is the instruction computing it (kept for messages).
func (f *Func) mk(in *isa.Instr, code Code, w int, args ...*Value) *Value {
	for i := range args {
		args[i] = resolve(args[i])
	}
	if v := f.simplify(in, code, w, args); v != nil {
		return v
	}
	if code.Commutative() && len(args) == 2 {
		_, c0 := args[0].IsConst()
		_, c1 := args[1].IsConst()
		if c0 && !c1 || c0 == c1 && args[0].ID > args[1].ID {
			args[0], args[1] = args[1], args[0]
		}
	}
	k := opKey{code: code, w: w}
	for i, a := range args {
		k.a[i] = a.ID
	}
	if v := f.ops[k]; v != nil {
		return v
	}
	v := f.newValue(&Value{Kind: VOp, Code: code, W: w, Args: append([]*Value(nil), args...), Instr: in})
	f.ops[k] = v
	for _, a := range args {
		if a.Kind == VPhi {
			a.users = append(a.users, v)
		}
	}
	return v
}

func (f *Func) simplify(in *isa.Instr, code Code, w int, args []*Value) *Value {
	if code == Unknown {
		return f.opaque(in, w, "a value the ISA leaves undefined")
	}
	// Constant folding.
	all := true
	for _, a := range args {
		if a.Kind != VConst {
			all = false
			break
		}
	}
	if all {
		xs := make([]uint64, len(args))
		ws := make([]int, len(args))
		for i, a := range args {
			xs[i], ws[i] = a.Imm, a.W
		}
		r, ok := Apply(code, w, xs, ws)
		if !ok {
			return f.opaque(in, w, "an undefined result ("+code.String()+" by zero or overflowing)")
		}
		return f.constant(w, r)
	}
	var x, y *Value
	if len(args) > 0 {
		x = args[0]
	}
	if len(args) > 1 {
		y = args[1]
	}
	cx, xc := x.IsConst()
	var cy uint64
	var yc bool
	if y != nil {
		cy, yc = y.IsConst()
	}
	if xc && !yc && code.Commutative() {
		x, y, cx, cy, xc, yc = y, x, cy, cx, yc, xc
	}
	m := Mask(w)
	switch code {
	case Add:
		if yc && cy == 0 {
			return x
		}
		if yc && x.Kind == VOp && x.Code == Add {
			if c2, ok := x.Args[1].IsConst(); ok {
				return f.mk(in, Add, w, x.Args[0], f.constant(w, c2+cy))
			}
		}
		if y.Kind == VOp && y.Code == Neg && y.Args[0] == x || x.Kind == VOp && x.Code == Neg && x.Args[0] == y {
			return f.constant(w, 0)
		}
	case Sub:
		if x == y {
			return f.constant(w, 0)
		}
		if yc {
			return f.mk(in, Add, w, x, f.constant(w, -cy))
		}
		if xc && cx == 0 {
			return f.mk(in, Neg, w, y)
		}
	case Mul:
		if yc && cy == 0 {
			return f.constant(w, 0)
		}
		if yc && cy == 1 {
			return x
		}
		if yc && cy == m {
			return f.mk(in, Neg, w, x)
		}
		if yc && x.Kind == VOp && x.Code == Mul {
			if c2, ok := x.Args[1].IsConst(); ok {
				return f.mk(in, Mul, w, x.Args[0], f.constant(w, c2*cy))
			}
		}
	case And:
		if yc && cy == 0 || complements(x, y) {
			return f.constant(w, 0) // x & ~x is 0
		}
		if yc && cy == m || x == y {
			return x
		}
		if yc && x.Kind == VOp && x.Code == And {
			if c2, ok := x.Args[1].IsConst(); ok {
				return f.mk(in, And, w, x.Args[0], f.constant(w, c2&cy))
			}
		}
		if yc && x.Kind == VOp && x.Code == ZExt && cy&Mask(x.Args[0].W) == Mask(x.Args[0].W) {
			return x // the mask keeps every bit the extension can set
		}
	case Or:
		if yc && cy == 0 || x == y {
			return x
		}
		if yc && cy == m || complements(x, y) {
			return f.constant(w, m) // x | ~x is every bit
		}
		if v := f.joinPair(x, y, w); v != nil {
			return v
		}
		if lo, hi := f.pairHalves(x, y); lo != nil {
			if v := f.joinCarry(lo, hi, w); v != nil {
				return v
			}
			if v := f.joinWords(lo, hi, w); v != nil {
				return v
			}
		}
	case Xor:
		if yc && cy == 0 {
			return x
		}
		if x == y {
			return f.constant(w, 0)
		}
		if yc && cy == m {
			return f.mk(in, Not, w, x)
		}
		// x ^ (x ^ z) = z (a swap through xor, clang -O0 of a 64-bit
		// value moved between register pairs).
		for _, p := range [2][2]*Value{{x, y}, {y, x}} {
			a, b := p[0], p[1]
			if b.Kind == VOp && b.Code == Xor && b.W == w {
				if b.Args[0] == a {
					return b.Args[1]
				}
				if b.Args[1] == a {
					return b.Args[0]
				}
			}
		}
	case Not:
		if x.Kind == VOp && x.Code == Not {
			return x.Args[0]
		}
		if w == 1 && x.Kind == VOp {
			// The negation of a comparison is the complementary one.
			a := x.Args
			switch x.Code {
			case Eq:
				return f.mk(in, Ne, 1, a[0], a[1])
			case Ne:
				return f.mk(in, Eq, 1, a[0], a[1])
			case ULt:
				return f.mk(in, ULe, 1, a[1], a[0])
			case ULe:
				return f.mk(in, ULt, 1, a[1], a[0])
			case SLt:
				return f.mk(in, SLe, 1, a[1], a[0])
			case SLe:
				return f.mk(in, SLt, 1, a[1], a[0])
			}
		}
	case Neg:
		if x.Kind == VOp && x.Code == Neg {
			return x.Args[0]
		}
	case Shl, LShr, AShr:
		if yc && cy == 0 {
			return x
		}
		if xc && cx == 0 {
			return x
		}
		if yc && cy >= uint64(w) && code != AShr {
			return f.constant(w, 0)
		}
		if code == LShr && yc {
			if v := f.splitHigh(x, int(cy), w); v != nil {
				return v
			}
		}
		if yc && x.Kind == VOp {
			if v := f.shiftChain(in, code, w, x, cy); v != nil {
				return v
			}
		}
	case Eq, ULe, SLe:
		if x == y {
			return f.constant(1, 1)
		}
		// No carry: x <=u x + c is c <=u x + c.
		if code == ULe && y.Kind == VOp && y.Code == Add && y.Args[0] == x {
			if c, ok := y.Args[1].IsConst(); ok && c != 0 {
				return f.mk(in, ULe, 1, y.Args[1], y)
			}
		}
	case Ne, ULt, SLt:
		if x == y {
			return f.constant(1, 0)
		}
		// The carry of y + c (c a non-zero constant): y + c <u y is
		// y + c <u c (both say y + c wrapped).
		if code == ULt && x.Kind == VOp && x.Code == Add && x.Args[0] == y {
			if c, ok := x.Args[1].IsConst(); ok && c != 0 {
				return f.mk(in, ULt, 1, x, x.Args[1])
			}
		}
	case Select:
		z := args[2]
		if c, ok := x.IsConst(); ok {
			if c != 0 {
				return y
			}
			return z
		}
		if y == z {
			return y
		}
		if w == 32 && f.Dialect == isa.DialectSASS && !noDivide {
			if v := f.divide(in, x, y, z); v != nil {
				return v
			}
			if v := f.signedDivide(in, x, y, z); v != nil {
				return v
			}
		}
		if w == 1 {
			cy, yc := y.IsConst()
			cz, zc := z.IsConst()
			if yc && zc && cy == 1 && cz == 0 {
				return x
			}
			if yc && zc && cy == 0 && cz == 1 {
				return f.mk(in, Not, 1, x)
			}
			// A predicate chosen by a predicate is a conjunction or a
			// disjunction (&& and || compiled with branches).
			switch {
			case yc && cy == 0:
				return f.mk(in, And, 1, f.mk(in, Not, 1, x), z)
			case yc && cy == 1:
				return f.mk(in, Or, 1, x, z)
			case zc && cz == 0:
				return f.mk(in, And, 1, x, y)
			case zc && cz == 1:
				return f.mk(in, Or, 1, f.mk(in, Not, 1, x), y)
			}
		}
	case Trunc:
		return f.trunc(in, x, w)
	case ZExt, SExt:
		if x.W == w {
			return x
		}
		if x.Kind == VOp && (x.Code == ZExt || x.Code == code && code == SExt) {
			return f.mk(in, x.Code, w, x.Args[0])
		}
	case UMin, UMax, SMin, SMax:
		if x == y {
			return x
		}
	}
	return nil
}

// trunc is the low w bits of x, pushed through ring operations so that a
// 64-bit value compared at 32 bits reads as its 32-bit computation.
func (f *Func) trunc(in *isa.Instr, x *Value, w int) *Value {
	if x.W == w {
		return x
	}
	if x.W < w {
		return nil
	}
	if x.Kind != VOp {
		return nil
	}
	a := x.Args
	// The high word of a funnel shift right of a pair: SHF.R.S32.HI
	// d, lo, k, hi is hi >> k (k < 32).
	if x.Code == LShr && x.W == 2*w {
		if c, ok := a[1].IsConst(); ok && c == uint64(w) && a[0].Kind == VOp && a[0].Code == AShr {
			if k, ok := a[0].Args[1].IsConst(); ok && k < uint64(w) {
				if hi := pairHigh(a[0].Args[0], w); hi != nil {
					return f.mk(in, AShr, w, hi, f.constant(32, k))
				}
			}
		}
	}
	// The high word of a sign-extended word shifted left by k <= 32
	// (LEA.HI d, a, b, c, k with c the sign of a: LEA.HI.X.SX32) is the
	// word shifted right arithmetically by 32 - k.
	if x.Code == LShr && x.W == 64 && w == 32 {
		if c, ok := a[1].IsConst(); ok && c == 32 && a[0].Kind == VOp && a[0].Code == Shl {
			if k, ok := a[0].Args[1].IsConst(); ok && k <= 32 {
				if s := a[0].Args[0]; s.Kind == VOp && s.Code == SExt && s.Args[0].W == 32 {
					return f.mk(in, AShr, 32, s.Args[0], f.constant(32, min(31, 32-k)))
				}
			}
		}
	}
	if w == 1 {
		if v := f.carryCompare(in, x); v != nil {
			return v
		}
	}
	switch x.Code {
	case Trunc:
		return f.mk(in, Trunc, w, a[0])
	case ZExt, SExt:
		switch {
		case a[0].W == w:
			return a[0]
		case a[0].W > w:
			return f.mk(in, Trunc, w, a[0])
		}
		return f.mk(in, x.Code, w, a[0])
	case Add, Sub, Mul, And, Or, Xor:
		return f.mk(in, x.Code, w, f.mk(in, Trunc, w, a[0]), f.mk(in, Trunc, w, a[1]))
	case Not, Neg:
		return f.mk(in, x.Code, w, f.mk(in, Trunc, w, a[0]))
	case Shl:
		if k, ok := a[1].IsConst(); ok {
			if k >= uint64(w) {
				return f.constant(w, 0)
			}
			return f.mk(in, Shl, w, f.mk(in, Trunc, w, a[0]), a[1])
		}
	case Select:
		return f.mk(in, Select, w, a[0], f.mk(in, Trunc, w, a[1]), f.mk(in, Trunc, w, a[2]))
	}
	return nil
}

// shiftChain simplifies a shift by the constant c of the shift or
// extension x: two shifts the same way add up; (zext(y) << a) >>u b loses
// no bit of y when y.W + a <= w, so it is zext(y) shifted by b - a;
// zext(y) >>u c is zext(y >>u c); (lo | hi) >>u c drops lo when lo is
// below 2^c.
func (f *Func) shiftChain(in *isa.Instr, code Code, w int, x *Value, c uint64) *Value {
	a := x.Args
	if x.Code == code && len(a) == 2 {
		if k, ok := a[1].IsConst(); ok {
			t := k + c
			if t >= uint64(w) {
				if code == AShr {
					t = uint64(w - 1)
				} else {
					return f.constant(w, 0)
				}
			}
			return f.mk(in, code, w, a[0], f.constant(32, t))
		}
	}
	if code != LShr {
		return nil
	}
	switch x.Code {
	case Shl:
		k, ok := a[1].IsConst()
		if !ok || a[0].Kind != VOp || a[0].Code != ZExt || uint64(a[0].Args[0].W)+k > uint64(w) {
			return nil
		}
		if c >= k {
			return f.mk(in, LShr, w, a[0], f.constant(32, c-k))
		}
		return f.mk(in, Shl, w, a[0], f.constant(32, k-c))
	case ZExt:
		if c >= uint64(a[0].W) {
			return f.constant(w, 0)
		}
		return f.mk(in, ZExt, w, f.mk(in, LShr, a[0].W, a[0], f.constant(32, c)))
	case Or:
		for i := 0; i < 2; i++ {
			if fitsLow(a[i], int(c)) {
				return f.mk(in, LShr, w, a[1-i], f.constant(32, c))
			}
		}
	}
	return nil
}

// carryCompare reads the carry out of a 32-bit sum, bit 32 of a 33- or
// 34-bit sum of zero-extended words and a constant (the carry SASS keeps
// in a predicate or CC), as the comparison it is: x + c carries when x >=u
// 2^32 - c; x + ~y + 1 (x - y) when x >=u y; x + y when x >u ~y; x + y + 1
// when x >=u ~y.
func (f *Func) carryCompare(in *isa.Instr, x *Value) *Value {
	if x.Code != LShr || x.W < 33 || x.W > 34 {
		return nil
	}
	if k, ok := x.Args[1].IsConst(); !ok || k != 32 {
		return nil
	}
	var terms []*Value
	var c uint64
	var walk func(v *Value) bool
	walk = func(v *Value) bool {
		if k, ok := v.IsConst(); ok {
			c += k
			return true
		}
		if v.Kind == VOp && v.Code == Add && v.W == x.W {
			return walk(v.Args[0]) && walk(v.Args[1])
		}
		if v.Kind == VOp && v.Code == ZExt && v.Args[0].W == 32 && len(terms) < 2 {
			terms = append(terms, v.Args[0])
			return true
		}
		return false
	}
	if !walk(x.Args[0]) {
		return nil
	}
	switch {
	case len(terms) == 1 && c == 0:
		return f.constant(1, 0)
	case len(terms) == 1 && c < 1<<32:
		return f.mk(in, ULe, 1, f.constant(32, 1<<32-c), terms[0])
	case len(terms) == 2 && c == 0:
		return f.mk(in, ULt, 1, f.mk(in, Not, 32, terms[1]), terms[0])
	case len(terms) == 2 && c == 1:
		for i := 0; i < 2; i++ {
			if t := terms[1-i]; t.Kind == VOp && t.Code == Not {
				return f.mk(in, ULe, 1, t.Args[0], terms[i])
			}
		}
		return f.mk(in, ULe, 1, f.mk(in, Not, 32, terms[1]), terms[0])
	}
	return nil
}

// complements reports whether one of x, y is the bitwise not of the other.
func complements(x, y *Value) bool {
	return x.Kind == VOp && x.Code == Not && x.Args[0] == y || y.Kind == VOp && y.Code == Not && y.Args[0] == x
}

// pairHalves returns lo, hi when x | y is zext(lo) | zext(hi) << 32 with
// 32-bit halves (a narrower high half, a carry bit, is read as its 32-bit
// zero extension).
func (f *Func) pairHalves(x, y *Value) (lo, hi *Value) {
	for _, p := range [2][2]*Value{{x, y}, {y, x}} {
		l, h := p[0], p[1]
		if l.Kind != VOp || l.Code != ZExt || l.Args[0].W != 32 || h.Kind != VOp || h.Code != Shl {
			continue
		}
		if k, ok := h.Args[1].IsConst(); !ok || k != 32 {
			continue
		}
		if z := h.Args[0]; z.Kind == VOp && z.Code == ZExt && z.Args[0].W == 32 {
			return l.Args[0], z.Args[0]
		}
		if z := h.Args[0]; z.Kind == VOp && z.Code == ZExt && z.Args[0].W < 32 {
			return l.Args[0], f.mk(nil, ZExt, 32, z.Args[0])
		}
	}
	return nil, nil
}

// pairHigh returns hi when x is lo | zext(hi) << k (lo below 2^k, hi of
// k bits) or zext(hi) << k, k the width of hi.
func pairHigh(x *Value, k int) *Value {
	if x.Kind != VOp {
		return nil
	}
	if x.Code == Or {
		for i := 0; i < 2; i++ {
			if fitsLow(x.Args[i], k) {
				if h := pairHigh(x.Args[1-i], k); h != nil {
					return h
				}
			}
		}
		return nil
	}
	if x.Code != Shl || x.W != 2*k {
		return nil
	}
	if c, ok := x.Args[1].IsConst(); !ok || c != uint64(k) {
		return nil
	}
	z := x.Args[0]
	if z.Kind == VOp && z.Code == ZExt && z.Args[0].W == k {
		return z.Args[0]
	}
	return nil
}

// IsCarry reports whether c is ZExt32 of the carry out of p + q (the bit
// 32 of their zero-extended sum).
func IsCarry(c, p, q *Value) bool {
	if c.Kind != VOp || c.Code != ZExt || c.W != 32 {
		return false
	}
	t := c.Args[0]
	// The simplified forms (carryCompare): p + q carries when
	// ~q <u p; p + k when 2^32 - k <=u p.
	if t.Kind == VOp && t.Code == ULt {
		for _, o := range [2][2]*Value{{p, q}, {q, p}} {
			n := t.Args[0]
			if t.Args[1] == o[0] && n.Kind == VOp && n.Code == Not && n.Args[0] == o[1] {
				return true
			}
			if t.Args[1] == o[0] && o[1].Kind == VConst && n.Kind == VConst && n.Imm == ^o[1].Imm&0xffffffff {
				return true
			}
		}
		return false
	}
	if t.Kind == VOp && t.Code == ULe {
		k, ok := t.Args[0].IsConst()
		for _, o := range [2][2]*Value{{p, q}, {q, p}} {
			if c, okc := o[1].IsConst(); ok && okc && t.Args[1] == o[0] && c != 0 && k == 1<<32-c {
				return true
			}
		}
		return false
	}
	if t.Kind != VOp || t.Code != Trunc || t.W != 1 {
		return false
	}
	sh := t.Args[0]
	if sh.Kind != VOp || sh.Code != LShr {
		return false
	}
	if k, ok := sh.Args[1].IsConst(); !ok || k != 32 {
		return false
	}
	s := sh.Args[0]
	if s.Kind != VOp || s.Code != Add || s.W < 33 {
		return false
	}
	ext := func(x, y *Value) bool {
		if x.Kind == VOp && x.Code == ZExt && x.Args[0] == y {
			return true
		}
		xc, ok1 := x.IsConst()
		yc, ok2 := y.IsConst()
		return ok1 && ok2 && xc == yc
	}
	return ext(s.Args[0], p) && ext(s.Args[1], q) || ext(s.Args[0], q) && ext(s.Args[1], p)
}

// joinCarry reads pair(p + q, h + carry(p + q)) as pair(p, h) + zext(q)
// (exact modulo 2^64: the low words' carry is what the 64-bit sum adds to
// the high word), choosing p so that pair(p, h) is itself one value.
func (f *Func) joinCarry(lo, hi *Value, w int) *Value {
	if w != 64 || lo.W != 32 || lo.Kind != VOp || lo.Code != Add {
		return nil
	}
	var hs []*Value
	var flat func(v *Value)
	flat = func(v *Value) {
		if v.Kind == VOp && v.Code == Add && v.W == 32 && len(hs) < 8 {
			flat(v.Args[0])
			flat(v.Args[1])
			return
		}
		hs = append(hs, v)
	}
	flat(hi)
	for k, t := range hs {
		if !IsCarry(t, lo.Args[0], lo.Args[1]) {
			continue
		}
		rest := f.constant(32, 0)
		for j, x := range hs {
			if j != k {
				rest = f.mk(nil, Add, 32, rest, x)
			}
		}
		for i := 0; i < 2; i++ {
			p, q := lo.Args[i], lo.Args[1-i]
			pp := f.mk(nil, Or, 64, f.mk(nil, ZExt, 64, p), f.mk(nil, Shl, 64, f.mk(nil, ZExt, 64, rest), f.constant(32, 32)))
			if !onePair(pp) {
				continue // not one value: no gain
			}
			return f.mk(nil, Add, 64, pp, f.mk(nil, ZExt, 64, q))
		}
		// pair(p + q, hp + hq + carry) = pair(p, hp) + pair(q, hq) with
		// hq one addend of the high word (a constant: the high word of a
		// negative constant, -12 = pair(0xfffffff4, 0xffffffff); the sign
		// word of q: a sign-extended addend) when both pairs are one
		// value each.
		for j, hq := range hs {
			if j == k {
				continue
			}
			hp := f.constant(32, 0)
			for m, x := range hs {
				if m != j && m != k {
					hp = f.mk(nil, Add, 32, hp, x)
				}
			}
			for i := 0; i < 2; i++ {
				p, q := lo.Args[i], lo.Args[1-i]
				qq := f.Pair(q, hq)
				if !onePair(qq) {
					continue
				}
				pp := f.Pair(p, hp)
				if !onePair(pp) {
					continue
				}
				return f.mk(nil, Add, 64, pp, qq)
			}
		}
		return nil
	}
	return nil
}

// onePair reports whether the 64-bit value v, built as a pair of words,
// is one value: not a pair of words, or the pair of two phis of one block
// over the same edges (the halves of a 64-bit value a loop steps, which
// the loop analysis reads as one: cfg/loops, pairPhis).
func onePair(v *Value) bool {
	if v.Kind != VOp || v.Code != Or {
		return true
	}
	lo, hi := PairWords(v)
	return lo != nil && SamePhis(lo, hi)
}

// PairWords returns the words lo, hi of v = ZExt64(lo) | ZExt64(hi) << 32
// (32-bit halves), or nil.
func PairWords(v *Value) (lo, hi *Value) {
	if v.Kind != VOp || v.Code != Or || v.W != 64 {
		return nil, nil
	}
	for i := 0; i < 2; i++ {
		l, h := v.Args[i], v.Args[1-i]
		if l.Kind != VOp || l.Code != ZExt || l.Args[0].W != 32 {
			continue
		}
		if h.Kind != VOp || h.Code != Shl || h.Args[0].Kind != VOp || h.Args[0].Code != ZExt || h.Args[0].Args[0].W != 32 {
			continue
		}
		if k, ok := h.Args[1].IsConst(); !ok || k != 32 {
			continue
		}
		return l.Args[0], h.Args[0].Args[0]
	}
	return nil, nil
}

// SamePhis reports whether x and y are distinct, complete, non-trivial
// phis of one block over the same edges in the same order. (While the
// SSA form is built, a phi of a block not yet sealed has no operands and
// may turn out trivial, forwarding to one value: it is not one.)
func SamePhis(x, y *Value) bool {
	if x == y || !realPhi(x) || !realPhi(y) || x.Block != y.Block || len(x.Args) != len(y.Args) {
		return false
	}
	for i := range x.Preds {
		if x.Preds[i] != y.Preds[i] {
			return false
		}
	}
	return true
}

func realPhi(x *Value) bool {
	if x.Kind != VPhi || x.fwd != nil || x.Block == nil || len(x.Args) < 2 || len(x.Preds) != len(x.Args) {
		return false
	}
	for _, a := range x.Args {
		if a == nil || a != x.Args[0] && a != x {
			return a != nil
		}
	}
	return false // every operand the same value (or the phi itself)
}

// joinWords reads the pair of 32-bit words lo, hi as one 64-bit value
// when its words are: pair(x, x >>s 31) = sext(x) (the sign word ptxas
// writes with SHF.R.S32.HI or LEA.HI.X.SX32), and pair(select(c, a, b),
// select(c, d, e)) = select(c, pair(a, d), pair(b, e)) (a 64-bit select
// as two SEL under one predicate). Both are exact.
func (f *Func) joinWords(lo, hi *Value, w int) *Value {
	if w != 64 || lo.W != 32 || hi.W != 32 || hi.Kind != VOp {
		return nil
	}
	if hi.Code == AShr && hi.Args[0] == lo {
		if k, ok := hi.Args[1].IsConst(); ok && k == 31 {
			return f.mk(nil, SExt, 64, lo)
		}
	}
	if hi.Code == Select && lo.Kind == VOp && lo.Code == Select && lo.Args[0] == hi.Args[0] {
		return f.mk(nil, Select, 64, lo.Args[0], f.Pair(lo.Args[1], hi.Args[1]), f.Pair(lo.Args[2], hi.Args[2]))
	}
	return f.joinMinMax(lo, hi)
}

// joinMinMax reads a 64-bit minimum or maximum computed a word at a time
// (Maxwell/Pascal IMNMX.XHI then IMNMX.XLO): hi = min(ha, hb) and lo =
// ha != hb ? (ha < hb ? la : lb) : minu(la, lb) is min(pair(la, ha),
// pair(lb, hb)) (signed or unsigned as the high words are compared; the
// low words unsigned; max alike with the order reversed). Exact: the high
// words decide when they differ, the low words when they are equal.
func (f *Func) joinMinMax(lo, hi *Value) *Value {
	var lowOp, lt Code
	var wide Code
	switch hi.Code {
	case SMin:
		lowOp, lt, wide = UMin, SLt, SMin
	case UMin:
		lowOp, lt, wide = UMin, ULt, UMin
	case SMax:
		lowOp, lt, wide = UMax, SLt, SMax
	case UMax:
		lowOp, lt, wide = UMax, ULt, UMax
	default:
		return nil
	}
	if lo.Kind != VOp || lo.Code != Select {
		return nil
	}
	ha, hb := hi.Args[0], hi.Args[1]
	ne, pick, eq := lo.Args[0], lo.Args[1], lo.Args[2]
	if ne.Kind != VOp || ne.Code != Ne || !(ne.Args[0] == ha && ne.Args[1] == hb || ne.Args[0] == hb && ne.Args[1] == ha) {
		return nil
	}
	if pick.Kind != VOp || pick.Code != Select || eq.Kind != VOp || eq.Code != lowOp {
		return nil
	}
	ord := pick.Args[0]
	if ord.Kind != VOp || ord.Code != lt {
		return nil
	}
	// The word pair of the operand the order selects: for a minimum, ha
	// when ha < hb; for a maximum, ha when hb < ha.
	var sel, other *Value
	switch {
	case (wide == SMin || wide == UMin) && ord.Args[0] == ha && ord.Args[1] == hb,
		(wide == SMax || wide == UMax) && ord.Args[0] == hb && ord.Args[1] == ha:
		sel, other = ha, hb
	case (wide == SMin || wide == UMin) && ord.Args[0] == hb && ord.Args[1] == ha,
		(wide == SMax || wide == UMax) && ord.Args[0] == ha && ord.Args[1] == hb:
		sel, other = hb, ha
	default:
		return nil
	}
	ls, lothr := pick.Args[1], pick.Args[2]
	if !(eq.Args[0] == ls && eq.Args[1] == lothr || eq.Args[0] == lothr && eq.Args[1] == ls) {
		return nil
	}
	return f.mk(nil, wide, 64, f.Pair(ls, sel), f.Pair(lothr, other))
}

// joinPair recognises lo | hi << k where lo and hi are the two halves of
// one value: Or(ZExt(Trunc(v)), Shl(ZExt(Trunc(LShr(v, k))), k)) = v.
func (f *Func) joinPair(x, y *Value, w int) *Value {
	for _, p := range [2][2]*Value{{x, y}, {y, x}} {
		lo, hi := p[0], p[1]
		if hi.Kind != VOp || hi.Code != Shl || lo.Kind != VOp || lo.Code != ZExt {
			continue
		}
		k, ok := hi.Args[1].IsConst()
		if !ok || int(k) != lo.Args[0].W {
			continue
		}
		h := hi.Args[0]
		if h.Kind != VOp || h.Code != ZExt || h.Args[0].W != w-int(k) {
			continue
		}
		l, hh := lo.Args[0], h.Args[0]
		if hh.Kind != VOp || hh.Code != Trunc {
			continue
		}
		if l.Kind != VOp || l.Code != Trunc {
			// The low half computed on its own (lo = p + k beside
			// hi = (zext(p) + k) >> k): the same value when truncating
			// the high half's source gives lo.
			if sh := hh.Args[0]; sh.Kind == VOp && sh.Code == LShr && sh.Args[0].W == w {
				if s, ok := sh.Args[1].IsConst(); ok && s == k && f.mk(nil, Trunc, l.W, sh.Args[0]) == l {
					return sh.Args[0]
				}
			}
			continue
		}
		v := l.Args[0]
		if v.W != w {
			continue
		}
		sh := hh.Args[0]
		if sh.Kind == VOp && sh.Code == LShr && sh.Args[0] == v {
			if s, ok := sh.Args[1].IsConst(); ok && s == k {
				return v
			}
		}
	}
	return nil
}

// splitHigh simplifies (lo | hi << k) >> k to hi when lo fits in k bits
// and hi in w-k bits (zero extensions).
func (f *Func) splitHigh(x *Value, k, w int) *Value {
	if x.Kind != VOp || x.Code != Or {
		return nil
	}
	for _, p := range [2][2]*Value{{x.Args[0], x.Args[1]}, {x.Args[1], x.Args[0]}} {
		lo, hi := p[0], p[1]
		if hi.Kind != VOp || hi.Code != Shl {
			continue
		}
		s, ok := hi.Args[1].IsConst()
		if !ok || int(s) != k {
			continue
		}
		if !fitsLow(lo, k) {
			continue
		}
		h := hi.Args[0]
		if h.Kind == VOp && h.Code == ZExt && h.Args[0].W <= w-k {
			return h
		}
	}
	return nil
}

// fitsLow reports whether v is known to be below 2^k.
func fitsLow(v *Value, k int) bool {
	if c, ok := v.IsConst(); ok {
		return k >= 64 || c < 1<<uint(k)
	}
	return v.Kind == VOp && v.Code == ZExt && v.Args[0].W <= k
}
