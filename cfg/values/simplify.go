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
		if yc && cy == 0 {
			return f.constant(w, 0)
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
		if yc && cy == m {
			return f.constant(w, m)
		}
		if v := f.joinPair(x, y, w); v != nil {
			return v
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
		if w == 1 {
			cy, yc := y.IsConst()
			cz, zc := z.IsConst()
			if yc && zc && cy == 1 && cz == 0 {
				return x
			}
			if yc && zc && cy == 0 && cz == 1 {
				return f.mk(in, Not, 1, x)
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
		if l.Kind != VOp || l.Code != Trunc || hh.Kind != VOp || hh.Code != Trunc {
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
