package values

// 64-bit values split into 32-bit halves (SASS register pairs, .EX
// comparison chains): shared by the loop bounds (cfg/loops) and the
// release points (cfg/release).

// Pair returns the 64-bit value with the 32-bit halves lo and hi.
func (f *Func) Pair(lo, hi *Value) *Value {
	return f.Op(Or, 64, f.Op(ZExt, 64, lo), f.Op(Shl, 64, f.Op(ZExt, 64, hi), f.Const(32, 32)))
}

// Compare64 reads a .EX comparison chain as a 64-bit comparison:
// hi_a < hi_b || hi_a == hi_b && lo_a <u lo_b is pair(a) < pair(b) (<=
// with <=u on the low words, signed when the high comparison is), and
// hi_a != hi_b || lo_a != lo_b, hi_a == hi_b && lo_a == lo_b likewise.
func (f *Func) Compare64(c *Value) (code Code, x, y *Value, ok bool) {
	if c.Kind != VOp || c.Code != Or && c.Code != And {
		return 0, nil, nil, false
	}
	for i := 0; i < 2; i++ {
		h, rest := c.Args[i], c.Args[1-i]
		if h.Kind != VOp || rest.Kind != VOp {
			continue
		}
		switch {
		case c.Code == Or && rest.Code == And && (h.Code == SLt || h.Code == ULt):
			// h = hp < hq; rest = (hp == hq) && lo compare.
			for j := 0; j < 2; j++ {
				eq, lc := rest.Args[j], rest.Args[1-j]
				if eq.Kind != VOp || eq.Code != Eq || lc.Kind != VOp || lc.Code != ULt && lc.Code != ULe {
					continue
				}
				hp, hq := h.Args[0], h.Args[1]
				if !(eq.Args[0] == hp && eq.Args[1] == hq || eq.Args[0] == hq && eq.Args[1] == hp) {
					continue
				}
				lp, lq := lc.Args[0], lc.Args[1]
				code := map[[2]Code]Code{
					{SLt, ULt}: SLt, {SLt, ULe}: SLe,
					{ULt, ULt}: ULt, {ULt, ULe}: ULe,
				}[[2]Code{h.Code, lc.Code}]
				return code, f.Pair(lp, hp), f.Pair(lq, hq), true
			}
		case c.Code == Or && h.Code == Ne && rest.Code == Ne,
			c.Code == And && h.Code == Eq && rest.Code == Eq:
			if h.Args[0].W != 32 || rest.Args[0].W != 32 || i == 1 {
				continue
			}
			// Which is the high comparison is not known from the shape:
			// both orders give the same equality of the pairs.
			return h.Code, f.Pair(rest.Args[0], h.Args[0]), f.Pair(rest.Args[1], h.Args[1]), true
		}
	}
	return 0, nil, nil, false
}
