package values

import (
	"fmt"
	"math/bits"
)

// Code is a generic operation on bit vectors, after LLVM IR's integer
// instructions and the Go compiler's generic SSA ops. Every integer and
// predicate instruction of PTX and SASS is decoded into a small graph of
// these (Sem); the domains (per-lane values, symbolic values, ranges) give
// each Code one transfer function.
//
// A value of width W (1 to 64 bits) is held in a uint64, zero-extended:
// bits above W are 0. Signed operations read the W bits as two's
// complement.
type Code uint8

const (
	Invalid Code = iota
	Const        // the constant Imm
	Input        // the value of Sem.Ins[Imm]

	Add    // a + b mod 2^W
	Sub    // a - b mod 2^W
	Mul    // a * b mod 2^W
	MulHiU // the high W bits of the 2W-bit unsigned product
	MulHiS // the high W bits of the 2W-bit signed product
	UDiv   // unsigned quotient; undefined when b = 0
	SDiv   // signed quotient, rounded towards zero; undefined when b = 0 or on overflow
	URem   // unsigned remainder; undefined when b = 0
	SRem   // signed remainder, the sign of a (C, PTX rem.s); undefined when b = 0 or on overflow
	And    // bitwise and
	Or     // bitwise or
	Xor    // bitwise exclusive or
	Not    // bitwise complement
	Neg    // -a mod 2^W
	Shl    // a << b; b read unsigned at its own width, b >= W gives 0
	LShr   // a >> b, zeros shifted in; b >= W gives 0
	AShr   // a >> b, the sign shifted in; b >= W gives 0 or all ones
	Eq     // a == b (W = 1)
	Ne     // a != b (W = 1)
	ULt    // a < b unsigned (W = 1)
	ULe    // a <= b unsigned (W = 1)
	SLt    // a < b signed (W = 1)
	SLe    // a <= b signed (W = 1)
	Select // a (W = 1) ? b : c
	Trunc  // the low W bits of a (a wider)
	ZExt   // a zero-extended to W bits (a narrower or equal)
	SExt   // a sign-extended to W bits (a narrower or equal)
	UMin   // unsigned minimum
	UMax   // unsigned maximum
	SMin   // signed minimum
	SMax   // signed maximum
	Popc   // number of one bits of a, at width W
	Clz    // number of leading zero bits of a (its width if a = 0), at width W
	Brev   // a with its bits reversed
	// Unknown is an unspecified value: a case the ISA leaves undefined or
	// the decoder does not model (used under a Select).
	Unknown
	numCodes
)

var codeNames = [...]string{
	Invalid: "invalid", Const: "const", Input: "input",
	Add: "add", Sub: "sub", Mul: "mul", MulHiU: "mulhi.u", MulHiS: "mulhi.s",
	UDiv: "div.u", SDiv: "div.s", URem: "rem.u", SRem: "rem.s",
	And: "and", Or: "or", Xor: "xor", Not: "not", Neg: "neg",
	Shl: "shl", LShr: "shr.u", AShr: "shr.s",
	Eq: "eq", Ne: "ne", ULt: "lt.u", ULe: "le.u", SLt: "lt.s", SLe: "le.s",
	Select: "select", Trunc: "trunc", ZExt: "zext", SExt: "sext",
	UMin: "min.u", UMax: "max.u", SMin: "min.s", SMax: "max.s",
	Popc: "popc", Clz: "clz", Brev: "brev", Unknown: "unknown",
}

func (c Code) String() string {
	if int(c) < len(codeNames) && codeNames[c] != "" {
		return codeNames[c]
	}
	return fmt.Sprintf("code(%d)", c)
}

// Arity is the number of operands of c.
func (c Code) Arity() int {
	switch c {
	case Const, Input, Invalid, Unknown:
		return 0
	case Not, Neg, Trunc, ZExt, SExt, Popc, Clz, Brev:
		return 1
	case Select:
		return 3
	}
	return 2
}

// IsCompare reports whether c is a comparison (a 1-bit result).
func (c Code) IsCompare() bool { return c >= Eq && c <= SLe }

// Commutative reports whether the operands of c may be swapped.
func (c Code) Commutative() bool {
	switch c {
	case Add, Mul, MulHiU, MulHiS, And, Or, Xor, Eq, Ne, UMin, UMax, SMin, SMax:
		return true
	}
	return false
}

// Mask returns the mask of a w-bit value.
func Mask(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(w) - 1
}

// Signed reads the w-bit value x as a two's-complement integer.
func Signed(x uint64, w int) int64 {
	if w >= 64 {
		return int64(x)
	}
	x &= Mask(w)
	if x>>(uint(w)-1)&1 == 1 {
		return int64(x | ^Mask(w))
	}
	return int64(x)
}

// Apply is the reference semantics of one operation on concrete values:
// the result of c at width w on the operands args, whose widths are
// argW. Operands are zero-extended w-bit values (argW-bit for Trunc, ZExt,
// SExt and shift amounts, 1-bit conditions). ok is false when the result
// is undefined (a division by zero, a signed overflow of a division).
// Every domain's transfer function must agree with Apply; table tests
// check Apply against hand-computed C and PTX-manual values.
func Apply(c Code, w int, args []uint64, argW []int) (r uint64, ok bool) {
	m := Mask(w)
	a := func(i int) uint64 { return args[i] & Mask(argW[i]) }
	switch c {
	case Add:
		return (a(0) + a(1)) & m, true
	case Sub:
		return (a(0) - a(1)) & m, true
	case Mul:
		return (a(0) * a(1)) & m, true
	case MulHiU:
		hi, lo := bits.Mul64(a(0), a(1))
		return shr128(hi, lo, w) & m, true
	case MulHiS:
		x, y := Signed(a(0), w), Signed(a(1), w)
		hi, lo := bits.Mul64(uint64(x), uint64(y))
		// The 128-bit two's-complement product from the unsigned one.
		if x < 0 {
			hi -= uint64(y)
		}
		if y < 0 {
			hi -= uint64(x)
		}
		return shr128(hi, lo, w) & m, true
	case UDiv, URem:
		if a(1) == 0 {
			return 0, false
		}
		if c == UDiv {
			return a(0) / a(1), true
		}
		return a(0) % a(1), true
	case SDiv, SRem:
		x, y := Signed(a(0), w), Signed(a(1), w)
		if y == 0 || y == -1 && x == Signed(1<<uint(w-1), w) {
			return 0, false
		}
		if c == SDiv {
			return uint64(x/y) & m, true // Go rounds towards zero, as C and PTX
		}
		return uint64(x%y) & m, true // the sign of the dividend, as C and PTX
	case And:
		return a(0) & a(1), true
	case Or:
		return a(0) | a(1), true
	case Xor:
		return a(0) ^ a(1), true
	case Not:
		return ^a(0) & m, true
	case Neg:
		return -a(0) & m, true
	case Shl, LShr, AShr:
		x, s := a(0), a(1)
		if s >= uint64(w) {
			if c == AShr && Signed(x, w) < 0 {
				return m, true
			}
			return 0, true
		}
		switch c {
		case Shl:
			return (x << s) & m, true
		case LShr:
			return x >> s, true
		}
		return uint64(Signed(x, w)>>s) & m, true
	case Eq:
		return b2u(a(0) == a(1)), true
	case Ne:
		return b2u(a(0) != a(1)), true
	case ULt:
		return b2u(a(0) < a(1)), true
	case ULe:
		return b2u(a(0) <= a(1)), true
	case SLt:
		return b2u(Signed(a(0), argW[0]) < Signed(a(1), argW[1])), true
	case SLe:
		return b2u(Signed(a(0), argW[0]) <= Signed(a(1), argW[1])), true
	case Select:
		if a(0) != 0 {
			return a(1) & m, true
		}
		return a(2) & m, true
	case Trunc, ZExt:
		return a(0) & m, true
	case SExt:
		return uint64(Signed(a(0), argW[0])) & m, true
	case UMin:
		return min(a(0), a(1)), true
	case UMax:
		return max(a(0), a(1)), true
	case SMin:
		if Signed(a(0), w) < Signed(a(1), w) {
			return a(0), true
		}
		return a(1), true
	case SMax:
		if Signed(a(0), w) > Signed(a(1), w) {
			return a(0), true
		}
		return a(1), true
	case Popc:
		return uint64(bits.OnesCount64(a(0))) & m, true
	case Clz:
		return uint64(bits.LeadingZeros64(a(0))-(64-argW[0])) & m, true
	case Brev:
		return bits.Reverse64(a(0)) >> uint(64-w), true
	}
	return 0, false
}

// shr128 shifts the 128-bit value hi:lo right by s (0 < s <= 64) and
// returns the low 64 bits.
func shr128(hi, lo uint64, s int) uint64 {
	if s >= 64 {
		return hi
	}
	return lo>>uint(s) | hi<<uint(64-s)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
