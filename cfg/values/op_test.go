package values

import (
	"fmt"
	"testing"
)

// TestApply checks the reference semantics of each operation against
// values computed by hand from the C standard and the PTX ISA manual (the
// independent check of the semantics layer).
func TestApply(t *testing.T) {
	const m32 = 0xffffffff
	neg := func(x int64) uint64 { return uint64(x) & m32 }
	for _, tc := range []struct {
		code Code
		w    int
		args []uint64
		ws   []int // default: w for each
		want uint64
		bad  bool // undefined
	}{
		{code: Add, w: 32, args: []uint64{m32, 1}, want: 0},
		{code: Sub, w: 32, args: []uint64{0, 1}, want: m32},
		{code: Mul, w: 32, args: []uint64{0x10000, 0x10000}, want: 0},
		{code: Mul, w: 16, args: []uint64{300, 300}, want: 90000 % 65536},
		{code: MulHiU, w: 32, args: []uint64{m32, m32}, want: 0xfffffffe},
		{code: MulHiU, w: 64, args: []uint64{1 << 63, 4}, want: 2},
		{code: MulHiS, w: 32, args: []uint64{neg(-1), neg(-1)}, want: 0},
		{code: MulHiS, w: 32, args: []uint64{neg(-2), 3}, want: m32}, // -6 >> 32 = -1
		{code: MulHiS, w: 64, args: []uint64{^uint64(0), 5}, want: ^uint64(0)},
		{code: MulHiS, w: 64, args: []uint64{1 << 62, 4}, want: 1},
		// C: (-7) / 2 == -3, (-7) % 2 == -1; PTX div.s / rem.s likewise.
		{code: SDiv, w: 32, args: []uint64{neg(-7), 2}, want: neg(-3)},
		{code: SRem, w: 32, args: []uint64{neg(-7), 2}, want: neg(-1)},
		// Issue 9 item 2: rem.s32(-1, 33) is -1.
		{code: SRem, w: 32, args: []uint64{neg(-1), 33}, want: neg(-1)},
		{code: URem, w: 32, args: []uint64{neg(-1), 33}, want: 0xffffffff % 33},
		{code: SDiv, w: 32, args: []uint64{7, neg(-2)}, want: neg(-3)},
		{code: SRem, w: 32, args: []uint64{7, neg(-2)}, want: 1},
		{code: UDiv, w: 32, args: []uint64{m32, 2}, want: 0x7fffffff},
		{code: UDiv, w: 32, args: []uint64{1, 0}, bad: true},
		{code: SDiv, w: 32, args: []uint64{0x80000000, m32}, bad: true},
		{code: SRem, w: 32, args: []uint64{5, 0}, bad: true},
		{code: And, w: 32, args: []uint64{0xf0f0, 0xff00}, want: 0xf000},
		{code: Or, w: 32, args: []uint64{0xf0f0, 0xff00}, want: 0xfff0},
		{code: Xor, w: 32, args: []uint64{0xf0f0, 0xff00}, want: 0x0ff0},
		{code: Not, w: 16, args: []uint64{0}, want: 0xffff},
		{code: Neg, w: 32, args: []uint64{1}, want: m32},
		// PTX: shift amounts beyond the width clamp: shl/shr.u give 0,
		// shr.s the sign.
		{code: Shl, w: 32, args: []uint64{1, 31}, ws: []int{32, 32}, want: 0x80000000},
		{code: Shl, w: 32, args: []uint64{1, 32}, ws: []int{32, 32}, want: 0},
		{code: LShr, w: 32, args: []uint64{0x80000000, 31}, ws: []int{32, 32}, want: 1},
		{code: AShr, w: 32, args: []uint64{neg(-8), 1}, ws: []int{32, 32}, want: neg(-4)},
		{code: AShr, w: 32, args: []uint64{neg(-1), 40}, ws: []int{32, 32}, want: m32},
		{code: AShr, w: 32, args: []uint64{0x7fffffff, 40}, ws: []int{32, 32}, want: 0},
		{code: LShr, w: 64, args: []uint64{1 << 63, 63}, ws: []int{64, 32}, want: 1},
		{code: Eq, w: 1, args: []uint64{5, 5}, ws: []int{32, 32}, want: 1},
		{code: ULt, w: 1, args: []uint64{neg(-1), 0}, ws: []int{32, 32}, want: 0},
		{code: SLt, w: 1, args: []uint64{neg(-1), 0}, ws: []int{32, 32}, want: 1},
		{code: SLe, w: 1, args: []uint64{0x8000, 0x7fff}, ws: []int{16, 16}, want: 1},
		{code: Select, w: 32, args: []uint64{1, 7, 9}, ws: []int{1, 32, 32}, want: 7},
		{code: Select, w: 32, args: []uint64{0, 7, 9}, ws: []int{1, 32, 32}, want: 9},
		{code: Trunc, w: 16, args: []uint64{0x12345678}, ws: []int{32}, want: 0x5678},
		{code: ZExt, w: 64, args: []uint64{0x80000000}, ws: []int{32}, want: 0x80000000},
		{code: SExt, w: 64, args: []uint64{0x80000000}, ws: []int{32}, want: 0xffffffff80000000},
		{code: SExt, w: 32, args: []uint64{0x7f}, ws: []int{8}, want: 0x7f},
		{code: UMin, w: 32, args: []uint64{neg(-1), 0}, want: 0},
		{code: SMin, w: 32, args: []uint64{neg(-1), 0}, want: neg(-1)},
		// Issue 9 item 2: max.s32(0x80000000 | tid, 0) is 0.
		{code: SMax, w: 32, args: []uint64{0x80000005, 0}, want: 0},
		{code: UMax, w: 32, args: []uint64{0x80000005, 0}, want: 0x80000005},
		{code: Popc, w: 32, args: []uint64{0xf00f}, ws: []int{32}, want: 8},
		{code: Popc, w: 32, args: []uint64{^uint64(0)}, ws: []int{64}, want: 64},
		{code: Clz, w: 32, args: []uint64{0}, ws: []int{32}, want: 32},
		{code: Clz, w: 32, args: []uint64{1}, ws: []int{32}, want: 31},
		{code: Clz, w: 32, args: []uint64{1}, ws: []int{64}, want: 63},
		{code: Brev, w: 32, args: []uint64{1}, want: 0x80000000},
		{code: Brev, w: 8, args: []uint64{0x01}, want: 0x80},
	} {
		ws := tc.ws
		if ws == nil {
			for range tc.args {
				ws = append(ws, tc.w)
			}
		}
		name := fmt.Sprintf("%s.%d%v", tc.code, tc.w, tc.args)
		got, ok := Apply(tc.code, tc.w, tc.args, ws)
		if tc.bad {
			if ok {
				t.Errorf("%s = %#x, want undefined", name, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("%s = %#x (ok %v), want %#x", name, got, ok, tc.want)
		}
	}
}
