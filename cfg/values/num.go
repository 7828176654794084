package values

import (
	"fmt"
	"math"
	"math/bits"
)

// Num is an abstract set of W-bit values (after LLVM's ConstantRange and
// KnownBits): an unsigned interval [Lo, Hi], a signed interval [SLo, SHi]
// and known bits (Zero: bits known 0, One: bits known 1; a known low bit
// pattern is a congruence modulo a power of two). Each component is a
// sound over-approximation on its own; the set is their intersection.
type Num struct {
	W         int
	Lo, Hi    uint64
	SLo, SHi  int64
	Zero, One uint64
}

func smin(w int) int64 {
	if w >= 64 {
		return math.MinInt64
	}
	return -1 << uint(w-1)
}

func smax(w int) int64 {
	if w >= 64 {
		return math.MaxInt64
	}
	return 1<<uint(w-1) - 1
}

// TopNum is every w-bit value.
func TopNum(w int) Num {
	return Num{W: w, Lo: 0, Hi: Mask(w), SLo: smin(w), SHi: smax(w)}
}

// ConstNum is the single value x.
func ConstNum(w int, x uint64) Num {
	x &= Mask(w)
	s := Signed(x, w)
	return Num{W: w, Lo: x, Hi: x, SLo: s, SHi: s, One: x, Zero: ^x & Mask(w)}
}

// URange is the unsigned interval [lo, hi] (clamped to the width).
func URange(w int, lo, hi uint64) Num {
	n := TopNum(w)
	n.Lo, n.Hi = lo&Mask(w), min(hi, Mask(w))
	if lo > Mask(w) {
		n.Lo = Mask(w)
	}
	return n.norm()
}

// SRange is the signed interval [lo, hi].
func SRange(w int, lo, hi int64) Num {
	n := TopNum(w)
	n.SLo, n.SHi = max(lo, smin(w)), min(hi, smax(w))
	return n.norm()
}

// Exact returns the value and true when the set holds one value.
func (n Num) Exact() (uint64, bool) { return n.Lo, n.Lo == n.Hi }

// Empty reports whether the set is empty (contradictory facts).
func (n Num) Empty() bool { return n.Lo > n.Hi || n.SLo > n.SHi || n.Zero&n.One != 0 }

// EmptyNum is the empty set of w-bit values.
func EmptyNum(w int) Num { return Num{W: w, Lo: 1, Hi: 0, SLo: 1, SHi: 0} }

// Contains reports whether x is in the set.
func (n Num) Contains(x uint64) bool {
	x &= Mask(n.W)
	s := Signed(x, n.W)
	return x >= n.Lo && x <= n.Hi && s >= n.SLo && s <= n.SHi && x&n.Zero == 0 && x&n.One == n.One
}

func (n Num) String() string {
	if x, ok := n.Exact(); ok {
		return fmt.Sprintf("%d", Signed(x, n.W))
	}
	return fmt.Sprintf("u[%d, %d] s[%d, %d] bits 0:%#x 1:%#x (%d)", n.Lo, n.Hi, n.SLo, n.SHi, n.Zero, n.One, n.W)
}

// norm tightens the components against each other.
func (n Num) norm() Num {
	m := Mask(n.W)
	n.Zero &= m
	n.One &= m
	for i := 0; i < 3; i++ {
		// Known bits bound the unsigned interval.
		n.Lo = max(n.Lo, n.One)
		n.Hi = min(n.Hi, ^n.Zero&m)
		// Signed <-> unsigned: the non-negative part.
		sign := uint64(1) << uint(n.W-1)
		switch {
		case n.SLo >= 0:
			n.Lo, n.Hi = max(n.Lo, uint64(n.SLo)), min(n.Hi, uint64(n.SHi))
		case n.SHi < 0:
			n.Lo = max(n.Lo, uint64(n.SLo)&m)
			n.Hi = min(n.Hi, uint64(n.SHi)&m)
		}
		switch {
		case n.Hi < sign:
			n.SLo, n.SHi = max(n.SLo, int64(n.Lo)), min(n.SHi, int64(n.Hi))
		case n.Lo >= sign:
			n.SLo, n.SHi = max(n.SLo, Signed(n.Lo, n.W)), min(n.SHi, Signed(n.Hi, n.W))
		}
		// The unsigned interval fixes its common high bits.
		if n.Lo <= n.Hi {
			common := bits.LeadingZeros64(n.Lo ^ n.Hi)
			if n.Lo == n.Hi {
				n.One |= n.Lo
				n.Zero |= ^n.Lo & m
			} else if common > 64-n.W {
				hm := ^uint64(0) << uint(64-common) & m
				n.One |= n.Lo & hm
				n.Zero |= ^n.Lo & hm
			}
		}
	}
	return n
}

// Join is the smallest Num containing a and b.
func Join(a, b Num) Num {
	if a.Empty() {
		return b
	}
	if b.Empty() {
		return a
	}
	return Num{W: a.W, Lo: min(a.Lo, b.Lo), Hi: max(a.Hi, b.Hi), SLo: min(a.SLo, b.SLo), SHi: max(a.SHi, b.SHi),
		Zero: a.Zero & b.Zero, One: a.One & b.One}.norm()
}

// Meet intersects a and b.
func Meet(a, b Num) Num {
	return Num{W: a.W, Lo: max(a.Lo, b.Lo), Hi: min(a.Hi, b.Hi), SLo: max(a.SLo, b.SLo), SHi: min(a.SHi, b.SHi),
		Zero: a.Zero | b.Zero, One: a.One | b.One}.norm()
}

// addS64 adds, and reports false on int64 overflow.
func addS64(a, b int64) (int64, bool) {
	s := a + b
	if a > 0 && b > 0 && s < 0 || a < 0 && b < 0 && s >= 0 {
		return 0, false
	}
	return s, true
}

func mulS64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || a == -1 && b == math.MinInt64 || b == -1 && a == math.MinInt64 {
		return 0, false
	}
	return p, true
}

// knownLowAdd: the low bits of a + b known from the known low bits of
// both, up to the first unknown bit (with the carry).
func knownLowAdd(a, b Num, w int) (zero, one uint64) { return knownLowAddC(a, b, w, 0) }

// knownLowAddC is knownLowAdd with a carry into bit 0.
func knownLowAddC(a, b Num, w int, carry uint64) (zero, one uint64) {
	for i := 0; i < w; i++ {
		bit := uint64(1) << uint(i)
		ka := (a.Zero|a.One)&bit != 0
		kb := (b.Zero|b.One)&bit != 0
		if !ka || !kb {
			break
		}
		x := (a.One>>uint(i))&1 + (b.One>>uint(i))&1 + carry
		if x&1 == 1 {
			one |= bit
		} else {
			zero |= bit
		}
		carry = x >> 1
	}
	return zero, one
}

// NumApply is the transfer function of code in the Num domain: a sound
// over-approximation of Apply on every combination of operand values, and
// exact (Apply) when every operand is a single value.
func NumApply(code Code, w int, args []Num, argW []int) Num {
	for _, a := range args {
		if a.Empty() {
			return EmptyNum(w) // unreachable
		}
	}
	exact := true
	xs := make([]uint64, len(args))
	for i, a := range args {
		x, ok := a.Exact()
		if !ok {
			exact = false
			break
		}
		xs[i] = x
	}
	if exact && code != Unknown {
		if r, ok := Apply(code, w, xs, argW); ok {
			return ConstNum(w, r)
		}
		return TopNum(w)
	}
	top := TopNum(w)
	m := Mask(w)
	var a, b Num
	if len(args) > 0 {
		a = args[0]
	}
	if len(args) > 1 {
		b = args[1]
	}
	switch code {
	case Add, Sub:
		r := top
		if code == Sub {
			// a - b = a + (-b) when -b is exact in both views.
			if b.Lo >= 1 && a.Lo >= b.Hi {
				r.Lo, r.Hi = a.Lo-b.Hi, a.Hi-b.Lo
			}
			lo, ok1 := addS64(a.SLo, -b.SHi)
			hi, ok2 := addS64(a.SHi, -b.SLo)
			if b.SHi != math.MinInt64 && b.SLo != math.MinInt64 && ok1 && ok2 && lo >= smin(w) && hi <= smax(w) {
				r.SLo, r.SHi = lo, hi
			}
			if b.Lo == 0 && b.Hi == 0 {
				return a
			}
			// a - b = a + ~b + 1.
			nb := Num{W: w, Zero: b.One, One: b.Zero}
			r.Zero, r.One = knownLowAddC(a, nb, w, 1)
			return r.norm()
		}
		loS, c1 := bits.Add64(a.Lo, b.Lo, 0)
		hiS, c2 := bits.Add64(a.Hi, b.Hi, 0)
		switch {
		case w == 64 && c1 == c2:
			// Neither end wraps, or both wrap once: the sums modulo 2^64.
			r.Lo, r.Hi = loS, hiS
		case w < 64 && hiS <= m:
			r.Lo, r.Hi = loS, hiS
		case w < 64 && loS > m:
			// Every sum wraps once.
			r.Lo, r.Hi = loS-(m+1), hiS-(m+1)
		}
		lo, ok1 := addS64(a.SLo, b.SLo)
		hi, ok2 := addS64(a.SHi, b.SHi)
		switch {
		case !ok1 || !ok2:
		case lo >= smin(w) && hi <= smax(w):
			r.SLo, r.SHi = lo, hi
		case w < 64 && lo > smax(w):
			r.SLo, r.SHi = lo-int64(m+1), hi-int64(m+1)
		case w < 64 && hi < smin(w):
			r.SLo, r.SHi = lo+int64(m+1), hi+int64(m+1)
		}
		r.Zero, r.One = knownLowAdd(a, b, w)
		return r.norm()
	case Neg:
		return NumApply(Sub, w, []Num{ConstNum(w, 0), a}, []int{w, w})
	case Mul:
		r := top
		hi, lo := bits.Mul64(a.Hi, b.Hi)
		if hi == 0 && lo <= m {
			r.Lo, r.Hi = a.Lo*b.Lo, lo
		}
		var ps [4]int64
		ok := true
		for i, p := range [][2]int64{{a.SLo, b.SLo}, {a.SLo, b.SHi}, {a.SHi, b.SLo}, {a.SHi, b.SHi}} {
			x, o := mulS64(p[0], p[1])
			ok = ok && o
			ps[i] = x
		}
		if ok {
			lo, hi := min(ps[0], ps[1], ps[2], ps[3]), max(ps[0], ps[1], ps[2], ps[3])
			if lo >= smin(w) && hi <= smax(w) {
				r.SLo, r.SHi = lo, hi
			}
		}
		tz := min(trailingKnownZeros(a, w)+trailingKnownZeros(b, w), w)
		if tz > 0 {
			r.Zero |= Mask(tz)
		}
		return r.norm()
	case MulHiU:
		// Monotone in both operands.
		lh, ll := bits.Mul64(a.Lo, b.Lo)
		hh, hl := bits.Mul64(a.Hi, b.Hi)
		return URange(w, shr128(lh, ll, w), shr128(hh, hl, w))
	case UDiv:
		if b.Lo == 0 {
			return top
		}
		return URange(w, a.Lo/b.Hi, a.Hi/b.Lo)
	case URem:
		if b.Lo == 0 {
			return top
		}
		if a.Hi < b.Lo {
			return a
		}
		return URange(w, 0, min(a.Hi, b.Hi-1))
	case SDiv:
		// With a divisor of one sign, the quotient (rounded towards zero)
		// is monotone in each operand: its extremes are at the corners.
		if b.SLo > 0 || b.SHi < 0 && b.SLo > -1<<62 && (a.SLo > smin(w) || b.SHi < -1) {
			qs := [4]int64{a.SLo / b.SLo, a.SLo / b.SHi, a.SHi / b.SLo, a.SHi / b.SHi}
			return SRange(w, min(qs[0], qs[1], qs[2], qs[3]), max(qs[0], qs[1], qs[2], qs[3]))
		}
		return top
	case SRem:
		if b.SLo > 0 {
			k := b.SHi - 1
			switch {
			case a.SLo >= 0:
				return SRange(w, 0, min(a.SHi, k))
			case a.SHi <= 0:
				return SRange(w, max(a.SLo, -k), 0)
			}
			return SRange(w, max(a.SLo, -k), min(a.SHi, k))
		}
		return top
	case And:
		if x, ok := b.Exact(); ok && x == m {
			return a
		}
		if x, ok := a.Exact(); ok && x == m {
			return b
		}
		r := top
		r.Zero, r.One = a.Zero|b.Zero, a.One&b.One
		r.Hi = min(a.Hi, b.Hi)
		// A non-negative operand bounds the result: 0 <= a & b <= it.
		if a.SLo >= 0 {
			r.SLo, r.SHi = 0, min(r.SHi, a.SHi)
		}
		if b.SLo >= 0 {
			r.SLo, r.SHi = 0, min(r.SHi, b.SHi)
		}
		return r.norm()
	case Or:
		r := top
		r.Zero, r.One = a.Zero&b.Zero, a.One|b.One
		r.Lo = max(a.Lo, b.Lo)
		return r.norm()
	case Xor:
		r := top
		r.Zero = a.Zero&b.Zero | a.One&b.One
		r.One = a.Zero&b.One | a.One&b.Zero
		return r.norm()
	case Not:
		r := top
		r.Zero, r.One = a.One, a.Zero
		r.Lo, r.Hi = ^a.Hi&m, ^a.Lo&m
		if a.SLo != math.MinInt64 {
			r.SLo, r.SHi = -1-a.SHi, -1-a.SLo
		}
		return r.norm()
	case Shl, LShr, AShr:
		k, ok := b.Exact()
		if !ok {
			if code == LShr {
				return URange(w, 0, a.Hi)
			}
			return top
		}
		if k == 0 {
			return a
		}
		if k >= uint64(w) {
			switch {
			case code != AShr:
				return ConstNum(w, 0)
			case a.SLo >= 0:
				return ConstNum(w, 0)
			case a.SHi < 0:
				return ConstNum(w, m)
			}
			return SRange(w, -1, 0)
		}
		r := top
		switch code {
		case Shl:
			if a.Hi <= m>>k {
				r.Lo, r.Hi = a.Lo<<k, a.Hi<<k
			}
			if lo, ok1 := mulS64(a.SLo, 1<<k); ok1 && k < 63 {
				if hi, ok2 := mulS64(a.SHi, 1<<k); ok2 && lo >= smin(w) && hi <= smax(w) {
					r.SLo, r.SHi = lo, hi
				}
			}
			r.Zero = a.Zero<<k | Mask(int(k))
			r.One = a.One << k
		case LShr:
			r.Lo, r.Hi = a.Lo>>k, a.Hi>>k
			r.Zero = a.Zero>>k | ^(m >> k)
			r.One = a.One >> k
		case AShr:
			r.SLo, r.SHi = a.SLo>>k, a.SHi>>k
			sign := uint64(1) << uint(w-1)
			r.Zero = a.Zero >> k
			r.One = a.One >> k
			hi := ^(m >> k) & m
			if a.Zero&sign != 0 {
				r.Zero |= hi
			}
			if a.One&sign != 0 {
				r.One |= hi
			}
		}
		return r.norm()
	case Eq, Ne, ULt, ULe, SLt, SLe:
		t, f := ConstNum(1, 1), ConstNum(1, 0)
		var yes, no bool
		switch code {
		case Eq, Ne:
			if ax, ok := a.Exact(); ok {
				if bx, ok := b.Exact(); ok {
					yes, no = ax == bx, ax != bx
				}
			}
			if a.Hi < b.Lo || b.Hi < a.Lo || a.SHi < b.SLo || b.SHi < a.SLo || a.One&b.Zero != 0 || a.Zero&b.One != 0 {
				no = true
			}
			if code == Ne {
				yes, no = no, yes
			}
		case ULt:
			yes, no = a.Hi < b.Lo, a.Lo >= b.Hi
		case ULe:
			yes, no = a.Hi <= b.Lo, a.Lo > b.Hi
		case SLt:
			yes, no = a.SHi < b.SLo, a.SLo >= b.SHi
		case SLe:
			yes, no = a.SHi <= b.SLo, a.SLo > b.SHi
		}
		switch {
		case yes:
			return t
		case no:
			return f
		}
		return TopNum(1)
	case Select:
		c := args[0]
		if x, ok := c.Exact(); ok {
			if x != 0 {
				return args[1]
			}
			return args[2]
		}
		return Join(args[1], args[2])
	case Trunc:
		r := top
		if a.Hi <= m {
			r.Lo, r.Hi = a.Lo, a.Hi
		}
		if a.SLo >= smin(w) && a.SHi <= smax(w) {
			r.SLo, r.SHi = a.SLo, a.SHi
		}
		r.Zero, r.One = a.Zero&m, a.One&m
		return r.norm()
	case ZExt:
		r := top
		r.Lo, r.Hi = a.Lo, a.Hi
		r.Zero = a.Zero | m&^Mask(argW[0])
		r.One = a.One
		return r.norm()
	case SExt:
		r := top
		r.SLo, r.SHi = a.SLo, a.SHi
		sign := uint64(1) << uint(argW[0]-1)
		ext := m &^ Mask(argW[0])
		r.Zero, r.One = a.Zero, a.One
		if a.Zero&sign != 0 {
			r.Zero |= ext
		}
		if a.One&sign != 0 {
			r.One |= ext
		}
		return r.norm()
	case UMin:
		return URange(w, min(a.Lo, b.Lo), min(a.Hi, b.Hi))
	case UMax:
		return URange(w, max(a.Lo, b.Lo), max(a.Hi, b.Hi))
	case SMin:
		return SRange(w, min(a.SLo, b.SLo), min(a.SHi, b.SHi))
	case SMax:
		return SRange(w, max(a.SLo, b.SLo), max(a.SHi, b.SHi))
	case Popc:
		return URange(w, uint64(bits.OnesCount64(a.One)), uint64(bits.OnesCount64(^a.Zero&Mask(argW[0]))))
	case Clz:
		return URange(w, 0, uint64(argW[0]))
	}
	return top
}

func trailingKnownZeros(a Num, w int) int {
	n := 0
	for n < w && a.Zero>>uint(n)&1 == 1 {
		n++
	}
	return n
}

// RangeDomain interprets values as Num sets over a launch: kernel
// arguments and launch dimensions known or in their ranges, thread
// indices over the block, anything else every value. Facts overrides the
// set of chosen values (the refinement by the tests that lead to a
// point); PhiRange, when set, gives a loop phi's set (the induction range
// of a derived loop).
type RangeDomain struct {
	Env      *RangeEnv
	Facts    map[*Value]Num
	PhiRange func(v *Value) (Num, bool)
}

// RangeEnv is a launch as ranges: dimensions 0 when unknown, arguments by
// parameter name when given.
type RangeEnv struct {
	Ntid, Nctaid [3]uint64
	Args         map[string]int64
}

// Top is every value.
func (d RangeDomain) Top(w int) Num { return TopNum(w) }

// Const is x.
func (d RangeDomain) Const(w int, x uint64) Num { return ConstNum(w, x) }

// Leaf gives the range of a launch value.
func (d RangeDomain) Leaf(v *Value) Num {
	if n, ok := d.Facts[v]; ok {
		return n
	}
	env := d.Env
	switch v.Kind {
	case VParam:
		if a, ok := env.Args[v.Name]; ok && v.Off >= 0 && v.Off < 8 {
			return ConstNum(v.W, uint64(a)>>(8*uint(v.Off)))
		}
	case VSpecial:
		return d.special(v)
	}
	return TopNum(v.W)
}

func (d RangeDomain) special(v *Value) Num {
	env := d.Env
	name := v.Name
	dim := -1
	base := name
	if n := len(name); n > 2 && name[n-2] == '.' {
		dim, base = int(name[n-1]-'x'), name[:n-2]
	}
	if dim < 0 || dim > 2 {
		if name == "laneid" {
			return URange(v.W, 0, 31)
		}
		return TopNum(v.W)
	}
	maxThreads := uint64(1024)
	if dim == 2 {
		maxThreads = 64
	}
	maxGrid := uint64(1<<31 - 1)
	if dim > 0 {
		maxGrid = 65535
	}
	switch base {
	case "ntid":
		if x := env.Ntid[dim]; x > 0 {
			return ConstNum(v.W, x)
		}
		return URange(v.W, 1, maxThreads)
	case "nctaid":
		if x := env.Nctaid[dim]; x > 0 {
			return ConstNum(v.W, x)
		}
		return URange(v.W, 1, maxGrid)
	case "tid":
		if x := env.Ntid[dim]; x > 0 {
			return URange(v.W, 0, x-1)
		}
		return URange(v.W, 0, maxThreads-1)
	case "ctaid":
		if x := env.Nctaid[dim]; x > 0 {
			return URange(v.W, 0, x-1)
		}
		return URange(v.W, 0, maxGrid-1)
	}
	return TopNum(v.W)
}

// Op is NumApply.
func (d RangeDomain) Op(code Code, w int, args []Num, argW []int) Num {
	return NumApply(code, w, args, argW)
}

// Phi joins the operands, or takes the induction range of a loop phi.
func (d RangeDomain) Phi(v *Value, args []Num) Num {
	if n, ok := d.Facts[v]; ok {
		return n
	}
	if d.PhiRange != nil {
		if n, ok := d.PhiRange(v); ok {
			return n
		}
	}
	r := args[0]
	for _, a := range args[1:] {
		r = Join(r, a)
	}
	return r
}
