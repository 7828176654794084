package loops

import (
	"math/big"

	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// divByConst recognises x as the quotient of v by a constant d >= 2, in
// every form compilers write it (docs/model.md, "Division by a constant in
// a recurrence"):
//
//   - udiv v, d and sdiv v, d (the divide instructions, nvcc -O0);
//   - the unsigned multiply-high form floor(v·M / 2^K): mul.hi.u32 (PTX),
//     IMAD.HI.U32 or a 64-bit IMAD.WIDE.U32 product shifted right (SASS),
//     then shifted right by constants;
//   - the signed form q + (q >>u (w-1)), q = mul.hi.s32(v, M) shifted right
//     arithmetically by constants, M > 0: v / d rounding towards zero.
//
// A multiply-high form is accepted only when Granlund and Montgomery's
// condition (Theorem 4.2 of "Division by invariant integers using
// multiplication", PLDI 1994) proves it equal to floor(v/d) for every
// v < 2^N: 2^K <= M·d <= 2^K + 2^(K-N), with d = ceil(2^K / M), N = w for
// the unsigned form and N = w-1 (v >= 0) for the signed one. signed
// reports the signed forms: v / d rounds towards zero, so a negative v
// gives a quotient at or below 0.
func divByConst(x, v *values.Value) (d uint64, signed bool, ok bool) {
	if x == nil || x.Kind != values.VOp {
		return 0, false, false
	}
	w := v.W
	switch x.Code {
	case values.UDiv, values.SDiv:
		if x.Args[0] != v {
			return 0, false, false
		}
		c, isc := x.Args[1].IsConst()
		if !isc || c < 2 || x.Code == values.SDiv && c >= 1<<uint(w-1) {
			return 0, false, false
		}
		return c, x.Code == values.SDiv, true
	case values.Add:
		// Signed: q + (q >>u (w-1)).
		for i := 0; i < 2; i++ {
			q, t := x.Args[i], x.Args[1-i]
			if t.Kind != values.VOp || t.Code != values.LShr {
				continue
			}
			if c, isc := t.Args[1].IsConst(); !isc || c != uint64(w-1) {
				continue
			}
			// The sign term reads the same quotient (the same
			// multiplier and shift of v; compilers compute it once,
			// a listing may compute it twice).
			m, k, found := mulHighOf(q, v, true)
			m2, k2, found2 := mulHighOf(t.Args[0], v, true)
			if !found || !found2 || m2 != m || k2 != k {
				continue
			}
			if d, ok := gmDivisor(m, k, w-1); ok {
				return d, true, true
			}
		}
		return 0, false, false
	}
	m, k, found := mulHighOf(x, v, false)
	if !found {
		return 0, false, false
	}
	d, ok = gmDivisor(m, k, w)
	return d, false, ok
}

// mulHighOf reads x as floor(v·M / 2^K) for a constant M: right shifts by
// constants (arithmetic ones in the signed form) over a multiply-high of v
// (the signed one with M > 0 in the signed form, read on v >= 0), or over
// a product of the zero-extended v by M < 2^w at twice v's width, under
// one truncation to v's width with shifts of at least w below it (the
// truncation then drops no bit).
func mulHighOf(x, v *values.Value, signed bool) (m uint64, k int, ok bool) {
	w := v.W
	shift := 0
	truncAt := -1 // the shift above the truncation, once one is seen
	for depth := 0; depth < 8; depth++ {
		if x.Kind != values.VOp {
			return 0, 0, false
		}
		switch x.Code {
		case values.LShr, values.AShr:
			if x.Code == values.AShr && !signed {
				return 0, 0, false
			}
			c, isc := x.Args[1].IsConst()
			if !isc || c >= uint64(x.W) {
				return 0, 0, false
			}
			shift += int(c)
			x = x.Args[0]
			continue
		case values.Trunc:
			if x.W != w || truncAt >= 0 {
				return 0, 0, false
			}
			truncAt = shift
			x = x.Args[0]
			continue
		case values.MulHiU, values.MulHiS:
			if x.W != w || (x.Code == values.MulHiS) != signed {
				return 0, 0, false
			}
			for i := 0; i < 2; i++ {
				if x.Args[i] != v {
					continue
				}
				c, isc := x.Args[1-i].IsConst()
				if !isc || c == 0 || signed && c >= 1<<uint(w-1) {
					return 0, 0, false
				}
				return c, w + shift, true
			}
			return 0, 0, false
		case values.Mul:
			// The 2w-bit product of the extended v (zero-extended;
			// sign-extended in the signed form, equal on v >= 0) and
			// M < 2^w (2^(w-1) signed); the shifts must take at least
			// its high half (a truncation above is then exact, and on
			// v < 0 it is the high word of the signed product).
			if x.W != 2*w || truncAt < 0 || shift-truncAt < w {
				return 0, 0, false
			}
			ext, limit := values.ZExt, uint64(1)<<uint(w)
			if signed {
				ext, limit = values.SExt, uint64(1)<<uint(w-1)
			}
			for i := 0; i < 2; i++ {
				z := x.Args[i]
				if z.Kind != values.VOp || z.Code != ext || z.Args[0] != v {
					continue
				}
				c, isc := x.Args[1-i].IsConst()
				if !isc || c == 0 || c >= limit {
					return 0, 0, false
				}
				return c, shift, true
			}
			return 0, 0, false
		}
		return 0, 0, false
	}
	return 0, 0, false
}

// gmDivisor returns d = ceil(2^k / m) when 2^k <= m·d <= 2^k + 2^(k-n)
// (then floor(v·m / 2^k) = floor(v/d) for every 0 <= v < 2^n) and d >= 2.
func gmDivisor(m uint64, k, n int) (uint64, bool) {
	if m == 0 || k < n || k > 127 {
		return 0, false
	}
	p := new(big.Int).Lsh(big.NewInt(1), uint(k))
	M := new(big.Int).SetUint64(m)
	d := new(big.Int).Add(p, new(big.Int).Sub(M, big.NewInt(1)))
	d.Quo(d, M)
	if !d.IsUint64() || d.Uint64() < 2 {
		return 0, false
	}
	md := new(big.Int).Mul(M, d)
	hi := new(big.Int).Add(p, new(big.Int).Lsh(big.NewInt(1), uint(k-n)))
	if md.Cmp(p) < 0 || md.Cmp(hi) > 0 {
		return 0, false
	}
	return d.Uint64(), true
}

// divSteps is the number of divisions by d that bring q to 0
// (floor(log_d q) + 1 for q >= 1, 0 for q = 0); at most 64.
func divSteps(q, d uint64) int64 {
	k := int64(0)
	for q >= 1 {
		q /= d
		k++
	}
	return k
}
