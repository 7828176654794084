package simt

import (
	"fmt"
	"go/token"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg/ptx"
)

// kernelOf wraps body in a PTX kernel with parameters a (u32) and b
// (u64) and enough registers.
func kernelOf(body string) string {
	return `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(
	.param .u32 k_param_0,
	.param .u64 k_param_1
)
{
	.reg .pred %p<16>;
	.reg .b16 %h<16>;
	.reg .b32 %r<64>;
	.reg .b64 %rd<32>;
	.reg .f32 %f<32>;
	.reg .f64 %fd<16>;
` + body + `
	ret;
}
`
}

func prepare(t *testing.T, src string) *Kernel {
	t.Helper()
	f, err := ptx.ParseFile(token.NewFileSet(), "k.ptx", []byte(src), 0)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	k, err := New(f, f.Funcs[len(f.Funcs)-1])
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// regsAfter runs body in one lane (thread 0 of a block of threads) and
// returns the registers' final values in lane 0, masked to their declared
// widths here: %p 1 bit, %h 16, %r and %f 32, %rd and %fd 64.
func regsAfter(t *testing.T, body string, threads int, names ...string) map[string]uint64 {
	t.Helper()
	k := prepare(t, kernelOf(body))
	x, err := k.execute(Launch{Block: [3]int{threads, 1, 1}, Args: map[string]int64{"k_param_0": -1, "k_param_1": 0x1000}}, Options{Seed: 1})
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	fr := x.warps[0].base
	out := map[string]uint64{}
	for _, n := range names {
		r, ok := fr.f.dc.regs[n]
		if !ok {
			t.Fatalf("no register %s in\n%s", n, body)
		}
		v, drawn := fr.get(x, r, 0)
		if drawn {
			t.Errorf("%s: %s is drawn", body, n)
		}
		switch {
		case strings.HasPrefix(n, "%p"):
			v &= 1
		case strings.HasPrefix(n, "%h"):
			v &= 0xffff
		case strings.HasPrefix(n, "%rd"), strings.HasPrefix(n, "%fd"):
		default:
			v &= 0xffffffff
		}
		out[n] = v
	}
	return out
}

func f32(f float32) uint64 { return uint64(math.Float32bits(f)) }

// TestSemantics: PTX ISA semantics against values computed by hand. The
// signedness is the instruction's type whatever produced the value
// (issue 9, item 2: rem.s32(-1, 33) is -1, not 3).
func TestSemantics(t *testing.T) {
	const neg1 = 0xffffffff
	tests := []struct {
		body string
		want uint64 // of %r9 (or the register named in reg)
		reg  string
	}{
		// Signed and unsigned division and remainder on negative values.
		{body: "mov.u32 %r1, -1; rem.s32 %r9, %r1, 33;", want: neg1},
		{body: "ld.param.u32 %r1, [k_param_0]; rem.s32 %r9, %r1, 33;", want: neg1}, // the argument is -1 (0xffffffff as .u32)
		{body: "or.b32 %r1, 0, -1; rem.s32 %r9, %r1, 33;", want: neg1},
		{body: "mov.u32 %r1, -1; rem.u32 %r9, %r1, 33;", want: 3},                  // 4294967295 = 33 * 130150524 + 3
		{body: "mov.u32 %r1, -7; div.s32 %r9, %r1, 2;", want: 0xfffffffd},          // -3: truncation towards zero
		{body: "mov.u32 %r1, -7; div.u32 %r9, %r1, 2;", want: 0x7ffffffc},          // 4294967289 / 2
		{body: "mov.u32 %r1, -7; rem.s32 %r9, %r1, 2;", want: neg1},                // the dividend's sign
		{body: "mov.u32 %r1, 7; rem.s32 %r9, %r1, -2;", want: 1},                   //
		{body: "mov.u32 %r1, 0x80000000; div.s32 %r9, %r1, -1;", want: 0x80000000}, // overflow: INT_MIN
		{body: "mov.u32 %r1, 0x80000000; rem.s32 %r9, %r1, -1;", want: 0},
		// min and max.
		{body: "mov.u32 %r1, 0x80000005; max.s32 %r9, %r1, 0;", want: 0},
		{body: "mov.u32 %r1, 0x80000005; max.u32 %r9, %r1, 0;", want: 0x80000005},
		{body: "mov.u32 %r1, %tid.x; or.b32 %r2, %r1, 0x80000000; max.s32 %r9, %r2, 0;", want: 0}, // issue 9: max.s32(0x80000000|tid, 0)
		{body: "min.s32 %r9, -1, 1;", want: neg1},
		{body: "min.u32 %r9, -1, 1;", want: 1},
		{body: "mov.u32 %r1, -3; max.relu.s32 %r9, %r1, -5;", want: 0},
		// Shifts, also by the width or more.
		{body: "mov.u32 %r1, -8; shr.s32 %r9, %r1, 1;", want: 0xfffffffc},
		{body: "mov.u32 %r1, -8; shr.u32 %r9, %r1, 1;", want: 0x7ffffffc},
		{body: "mov.u32 %r1, -8; shr.b32 %r9, %r1, 1;", want: 0x7ffffffc},
		{body: "mov.u32 %r1, -8; shr.s32 %r9, %r1, 40;", want: neg1},
		{body: "mov.u32 %r1, 8; shr.s32 %r9, %r1, 40;", want: 0},
		{body: "mov.u32 %r1, -8; shr.u32 %r9, %r1, 32;", want: 0},
		{body: "shl.b32 %r9, 1, 32;", want: 0},
		{body: "shl.b32 %r9, 1, 31;", want: 0x80000000},
		{body: "mov.u32 %r1, 33; shl.b32 %r9, 3, %r1;", want: 0},
		{body: "shl.b64 %rd9, 1, 63;", want: 1 << 63, reg: "%rd9"},
		// Wrap-around and saturation.
		{body: "add.s32 %r9, 0x7fffffff, 1;", want: 0x80000000},
		{body: "sub.u32 %r9, 0, 1;", want: neg1},
		{body: "add.sat.s32 %r9, 0x7fffffff, 1;", want: 0x7fffffff},
		{body: "sub.sat.s32 %r9, 0x80000000, 1;", want: 0x80000000},
		{body: "neg.s32 %r9, 0x80000000;", want: 0x80000000},
		{body: "abs.s32 %r9, -5;", want: 5},
		{body: "abs.s32 %r9, 0x80000000;", want: 0x80000000},
		// Multiplications.
		{body: "mul.hi.s32 %r9, -2, 3;", want: neg1}, // -6 = 0xffffffff_fffffffa
		{body: "mul.hi.u32 %r9, 0xfffffffe, 3;", want: 2},
		{body: "mul.lo.s32 %r9, 0x10000, 0x10000;", want: 0},
		{body: "mul.wide.s32 %rd9, -2, 3;", want: 0xfffffffffffffffa, reg: "%rd9"},
		{body: "mul.wide.u32 %rd9, 0xffffffff, 2;", want: 0x1fffffffe, reg: "%rd9"},
		{body: "mul.wide.s16 %r9, -2, 3;", want: 0xfffffffa},
		{body: "mul.hi.s64 %rd9, -2, 3;", want: 0xffffffffffffffff, reg: "%rd9"},
		{body: "mul.hi.u64 %rd9, 0xffffffffffffffff, 2;", want: 1, reg: "%rd9"},
		{body: "mad.lo.s32 %r9, 3, 4, -20;", want: 0xfffffff8},
		{body: "mad.wide.s32 %rd9, -1, 1, 10;", want: 9, reg: "%rd9"},
		{body: "mad.hi.u32 %r9, 0xfffffffe, 3, 5;", want: 7},
		{body: "mul24.lo.s32 %r9, 0x00ffffff, 2;", want: 0xfffffffe}, // the low 24 bits, signed: -1
		{body: "mul24.lo.u32 %r9, 0x01000003, 2;", want: 6},
		{body: "mul24.hi.u32 %r9, 0xffffff, 0xffffff;", want: 0xfffffe00}, // 0xfffffe000001 >> 16
		{body: "mad24.lo.u32 %r9, 2, 3, 4;", want: 10},
		{body: "sad.s32 %r9, -3, 4, 1;", want: 8},
		{body: "sad.u32 %r9, -3, 4, 1;", want: 0xfffffffa}, // |0xfffffffd - 4| + 1
		// Conversions.
		{body: "cvt.s32.s8 %r9, 0x80;", want: 0xffffff80},
		{body: "cvt.u32.u8 %r9, 0x1ff;", want: 0xff},
		{body: "cvt.s64.s32 %rd9, -1;", want: math.MaxUint64, reg: "%rd9"},
		{body: "cvt.u64.u32 %rd9, -1;", want: 0xffffffff, reg: "%rd9"},
		{body: "cvt.u64.s32 %rd9, -1;", want: math.MaxUint64, reg: "%rd9"},
		{body: "cvt.u32.u64 %r9, 0x123456789;", want: 0x23456789},
		{body: "cvt.s16.s32 %h9, 0x18000;", want: 0x8000, reg: "%h9"},
		{body: "cvt.sat.u8.s32 %r9, 300;", want: 255},
		{body: "cvt.sat.s8.s32 %r9, -300;", want: 0xffffff80},
		{body: "cvt.sat.u32.s32 %r9, -5;", want: 0},
		{body: "cvt.rzi.s32.f32 %r9, 0fC02CCCCD;", want: 0xfffffffe}, // -2.7 -> -2
		{body: "cvt.rni.s32.f32 %r9, 0f40200000;", want: 2},          // 2.5 -> 2 (even)
		{body: "cvt.rmi.s32.f32 %r9, 0fC0200000;", want: 0xfffffffd}, // -2.5 -> -3
		{body: "cvt.rpi.s32.f32 %r9, 0f40100000;", want: 3},          // 2.25 -> 3
		{body: "cvt.rzi.s32.f32 %r9, 0f50DF8476;", want: 0x7fffffff}, // 3e10 saturates
		{body: "cvt.rzi.u32.f32 %r9, 0fBF800000;", want: 0},          // -1 -> 0
		{body: "cvt.rzi.s32.f32 %r9, 0f7FC00000;", want: 0},          // NaN -> 0
		{body: "cvt.rn.f32.s32 %r9, -3;", want: f32(-3)},
		{body: "cvt.rn.f32.u32 %r9, -1;", want: f32(4294967296)},
		{body: "cvt.rn.f32.f64 %r9, 0d3FF8000000000000;", want: f32(1.5)},
		{body: "cvt.f64.f32 %fd9, 0f3FC00000;", want: math.Float64bits(1.5), reg: "%fd9"},
		{body: "cvt.rni.f32.f32 %r9, 0f40200000;", want: f32(2)},
		// selp, slct, setp and predicate logic.
		{body: "setp.ne.s32 %p1, 1, 0; selp.b32 %r9, 5, 6, %p1;", want: 5},
		{body: "setp.eq.s32 %p1, 1, 0; selp.b32 %r9, 5, 6, %p1;", want: 6},
		{body: "slct.u32.s32 %r9, 5, 6, -1;", want: 6},
		{body: "slct.u32.s32 %r9, 5, 6, 0;", want: 5},
		{body: "setp.lt.s32 %p9, -1, 0;", want: 1, reg: "%p9"},
		{body: "setp.lt.u32 %p9, -1, 0;", want: 0, reg: "%p9"},
		{body: "setp.lo.u32 %p9, 1, -1;", want: 1, reg: "%p9"},
		{body: "setp.hs.u32 %p9, -1, 1;", want: 1, reg: "%p9"},
		{body: "setp.gt.s32 %p9, -1, 1;", want: 0, reg: "%p9"},
		{body: "setp.ge.u32 %p9, -1, 1;", want: 1, reg: "%p9"},
		{body: "ld.param.u32 %r1, [k_param_0]; setp.lt.s32 %p9, %r1, 8;", want: 1, reg: "%p9"}, // issue 9: --arg lim=-1
		{body: "setp.eq.s32 %p2, 0, 0; setp.lt.and.s32 %p9|%p8, -1, 0, %p2;", want: 1, reg: "%p9"},
		{body: "setp.eq.s32 %p2, 0, 0; setp.lt.and.s32 %p8|%p9, -1, 0, %p2;", want: 0, reg: "%p9"},
		{body: "setp.eq.s32 %p2, 0, 0; setp.lt.and.s32 %p8|%p9, -1, 0, !%p2;", want: 0, reg: "%p9"},
		{body: "setp.eq.s32 %p2, 0, 1; setp.gt.or.s32 %p9, 0, 1, !%p2;", want: 1, reg: "%p9"},
		{body: "setp.eq.s32 %p1, 0, 0; setp.eq.s32 %p2, 0, 1; and.pred %p9, %p1, %p2;", want: 0, reg: "%p9"},
		{body: "setp.eq.s32 %p1, 0, 0; setp.eq.s32 %p2, 0, 1; and.pred %p9, %p1, !%p2;", want: 1, reg: "%p9"},
		{body: "setp.eq.s32 %p1, 0, 0; setp.eq.s32 %p2, 0, 1; or.pred %p9, %p2, %p2;", want: 0, reg: "%p9"},
		{body: "setp.eq.s32 %p1, 0, 0; xor.pred %p9, %p1, %p1;", want: 0, reg: "%p9"},
		{body: "setp.eq.s32 %p1, 0, 0; not.pred %p9, %p1;", want: 0, reg: "%p9"},
		{body: "set.lt.u32.s32 %r9, -1, 0;", want: neg1},
		{body: "set.lt.f32.s32 %r9, 1, 0;", want: 0},
		{body: "set.lt.f32.s32 %r9, -1, 0;", want: f32(1)},
		// Bits.
		{body: "not.b32 %r9, 0;", want: neg1},
		{body: "cnot.b32 %r9, 0;", want: 1},
		{body: "cnot.b32 %r9, 7;", want: 0},
		{body: "xor.b32 %r9, 0xff00, 0x0ff0;", want: 0xf0f0},
		{body: "and.b32 %r9, -1, 0x80000001;", want: 0x80000001},
		{body: "popc.b32 %r9, 0xf0f0;", want: 8},
		{body: "popc.b64 %r9, -1;", want: 64},
		{body: "clz.b32 %r9, 1;", want: 31},
		{body: "clz.b32 %r9, 0;", want: 32},
		{body: "clz.b64 %r9, 1;", want: 63},
		{body: "brev.b32 %r9, 1;", want: 0x80000000},
		{body: "bfind.u32 %r9, 0x10;", want: 4},
		{body: "bfind.u32 %r9, 0;", want: neg1},
		{body: "bfind.s32 %r9, -1;", want: neg1},
		{body: "bfind.s32 %r9, -2;", want: 0},
		{body: "bfind.shiftamt.u32 %r9, 0x10;", want: 27},
		{body: "bfe.u32 %r9, 0x80, 4, 4;", want: 8},
		{body: "bfe.s32 %r9, 0x80, 4, 4;", want: 0xfffffff8},
		{body: "bfe.u32 %r9, 0xff00, 8, 40;", want: 0xff},
		{body: "bfe.s32 %r9, 0x80000000, 28, 10;", want: 0xfffffff8},
		{body: "bfi.b32 %r9, 0xf, 0, 4, 4;", want: 0xf0},
		{body: "bfi.b32 %r9, 0xff, 0x12345678, 28, 8;", want: 0xf2345678},
		{body: "prmt.b32 %r9, 0x33221100, 0x77665544, 0x3210;", want: 0x33221100},
		{body: "prmt.b32 %r9, 0x33221100, 0x77665544, 0x7654;", want: 0x77665544},
		{body: "prmt.b32 %r9, 0x33221180, 0x77665544, 0x0008;", want: 0x808080ff}, // byte 0 = 0x80: sign replicated; bytes 1-3 select byte 0
		{body: "lop3.b32 %r9, 0xF0, 0xCC, 0xAA, 0x80;", want: 0x80},
		{body: "lop3.b32 %r9, 0xF0, 0xCC, 0xAA, 0x96;", want: 0x96},
		{body: "shf.l.wrap.b32 %r9, 0x80000000, 1, 1;", want: 3},
		{body: "shf.l.wrap.b32 %r9, 0x80000000, 1, 33;", want: 3},
		{body: "shf.l.clamp.b32 %r9, 0x80000000, 1, 40;", want: 0x80000000},
		{body: "shf.r.clamp.b32 %r9, 5, 7, 40;", want: 7},
		{body: "shf.r.wrap.b32 %r9, 0, 1, 1;", want: 0x80000000},
		// Moves, vectors, specials.
		{body: "mov.b64 %rd1, {%r2, %r3}; mov.u32 %r2, 0; mov.u32 %r3, 0; mov.b64 {%r4, %r9}, %rd1;", want: 0x11111111}, // {lo, hi}
		{body: "mov.u32 %r9, %ntid.x;", want: 96},
		{body: "mov.u32 %r9, %laneid;", want: 0},
		{body: "mov.u32 %r9, %lanemask_le;", want: 1},
		{body: "mov.u32 %r9, WARP_SZ;", want: 32},
		// Floats: f32 rounding, NaN rules, FMA.
		{body: "add.f32 %r9, 0f3DCCCCCD, 0f3E4CCCCD;", want: f32(float32(0.1) + float32(0.2))},
		{body: "fma.rn.f32 %r9, 0f40000000, 0f40400000, 0f3F800000;", want: f32(7)},
		{body: "div.rn.f32 %r9, 0f3F800000, 0f40400000;", want: f32(1.0 / 3.0)},
		{body: "min.f32 %r9, 0f7FC00000, 0f40000000;", want: f32(2)},
		{body: "max.f32 %r9, 0fBF800000, 0f40000000;", want: f32(2)},
		{body: "setp.lt.f32 %p9, 0f7FC00000, 0f40000000;", want: 0, reg: "%p9"},
		{body: "setp.ltu.f32 %p9, 0f7FC00000, 0f40000000;", want: 1, reg: "%p9"},
		{body: "setp.nan.f32 %p9, 0f7FC00000, 0f40000000;", want: 1, reg: "%p9"},
		{body: "setp.ne.f32 %p9, 0f7FC00000, 0f40000000;", want: 0, reg: "%p9"},
		{body: "setp.neu.f32 %p9, 0f7FC00000, 0f40000000;", want: 1, reg: "%p9"},
		{body: "add.sat.f32 %r9, 0f40000000, 0f40000000;", want: f32(1)},
		{body: "neg.f32 %r9, 0f40000000;", want: f32(-2)},
		{body: "abs.f32 %r9, 0fC0000000;", want: f32(2)},
		{body: "add.f64 %fd9, 0d3FF0000000000000, 0d3FF0000000000000;", want: math.Float64bits(2), reg: "%fd9"},
		{body: "testp.notanumber.f32 %p9, 0f7FC00000;", want: 1, reg: "%p9"},
	}
	// %r2, %r3 for the vector case.
	pre := "mov.u32 %r2, 0x87654321; mov.u32 %r3, 0x11111111;\n"
	for _, tc := range tests {
		reg := tc.reg
		if reg == "" {
			reg = "%r9"
		}
		body := pre + strings.ReplaceAll(tc.body, "; ", ";\n")
		got := regsAfter(t, body, 96, reg)[reg]
		if got != tc.want {
			t.Errorf("%s\n  %s = %#x, want %#x", tc.body, reg, got, tc.want)
		}
	}
}

// TestMemory: stores are seen by later loads (global, shared, local per
// thread, vectors, narrow signed loads), and memory never written is
// drawn, the same for every lane reading the same address.
func TestMemory(t *testing.T) {
	body := `
	ld.param.u64 %rd1, [k_param_1];
	st.global.u32 [%rd1+8], -2;
	ld.global.s8 %r1, [%rd1+8];
	ld.global.u16 %r2, [%rd1+8];
	st.shared.v2.u32 [16], {%r1, %r2};
	ld.shared.u32 %r3, [20];
	st.local.u32 [0], 77;
	ld.local.u32 %r4, [0];
	atom.global.add.u32 %r5, [%rd1+8], 3;
	ld.global.u32 %r6, [%rd1+8];
	atom.global.cas.b32 %r7, [%rd1+8], 1, 9;
	atom.global.exch.b32 %r8, [%rd1+8], 4;
	ld.global.u32 %r10, [%rd1+8];
`
	got := regsAfter(t, strings.ReplaceAll(body, "\t", ""), 1, "%r1", "%r2", "%r3", "%r4", "%r5", "%r6", "%r7", "%r8", "%r10")
	want := map[string]uint64{"%r1": 0xfffffffe, "%r2": 0xfffe, "%r3": 0xfffe, "%r4": 77, "%r5": 0xfffffffe, "%r6": 1, "%r7": 1, "%r8": 9, "%r10": 4}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	// Drawn memory: one value per address, whatever the lane.
	k := prepare(t, kernelOf(`
	ld.param.u64 %rd1, [k_param_1];
	ld.global.u32 %r1, [%rd1];
	mov.u32 %r2, %tid.x;
	and.b32 %r3, %r2, 1;
	mul.wide.u32 %rd2, %r3, 4;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.u32 %r4, [%rd3];`))
	x, err := k.execute(Launch{Block: [3]int{32, 1, 1}}, Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	fr := x.warps[0].base
	reg := func(n string, l int) (uint64, bool) { return fr.get(x, fr.f.dc.regs[n], l) }
	v0, dr := reg("%r1", 0)
	if !dr {
		t.Errorf("a load of memory never written is not marked drawn")
	}
	for l := 1; l < 32; l++ {
		if v, _ := reg("%r1", l); v != v0 {
			t.Errorf("lane %d read %#x at the address lane 0 read %#x", l, v, v0)
		}
		if v, _ := reg("%r4", l); l%2 == 0 && v != v0 {
			t.Errorf("lane %d: [base] is %#x, lane 0 read %#x", l, v, v0)
		}
	}
}

// TestWarpOps: vote, activemask, redux and shfl see the other lanes.
func TestWarpOps(t *testing.T) {
	body := `
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 5;
	vote.sync.ballot.b32 %r2, %p1, -1;
	vote.sync.any.pred %p2, %p1, -1;
	vote.sync.all.pred %p3, %p1, -1;
	activemask.b32 %r3;
	redux.sync.add.u32 %r4, %r1, -1;
	redux.sync.max.s32 %r5, %r1, -1;
	shfl.sync.bfly.b32 %r6, %r1, 1, 31, -1;
	shfl.sync.down.b32 %r7|%p4, %r1, 1, 31, -1;
	shfl.sync.idx.b32 %r8, %r1, 7, 31, -1;
	shfl.sync.up.b32 %r10|%p5, %r1, 1, 0, -1;
`
	got := regsAfter(t, strings.ReplaceAll(body, "\t", ""), 32, "%r2", "%p2", "%p3", "%r3", "%r4", "%r5", "%r6", "%r7", "%p4", "%r8", "%r10", "%p5")
	want := map[string]uint64{"%r2": 0x1f, "%p2": 1, "%p3": 0, "%r3": 0xffffffff, "%r4": 496, "%r5": 31,
		"%r6": 1, "%r7": 1, "%p4": 1, "%r8": 7, "%r10": 0, "%p5": 0}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lane 0 (-want +got)\n%s", d)
	}
}

func ExampleParseOrder() {
	for _, s := range []string{"taken-first", "gpgpusim", "left"} {
		o, err := ParseOrder(s)
		fmt.Println(o, err)
	}
	// Output:
	// taken-first <nil>
	// gpgpusim <nil>
	// taken-first unknown side order "left" (want taken-first, fallthrough-first, random or gpgpusim)
}
