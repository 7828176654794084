package loops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// frameBounds derives the loops of the kernel of src (the unit's first
// function) at n = k_param_0 and returns each loop's bound (-1: none) and
// reason.
func frameBounds(t *testing.T, name, src string, n int64) ([]int64, []string) {
	t.Helper()
	f, _ := graphs(t, name, []byte(src))
	vfs := valuesOf(t, f)
	l := pass.Launch{Block: [3]int{32, 1, 1}, Grid: [3]int{1, 1, 1}, Args: map[string]int64{"k_param_0": n}}
	vf := vfs[len(vfs)-1] // the kernel, last in source order
	r, err := ComputeValues(vf, l, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	var max []int64
	var why []string
	for _, lb := range r.Loops {
		if lb.Bound == nil {
			max = append(max, -1)
			why = append(why, lb.Why)
			continue
		}
		max = append(max, lb.Bound.Max)
		why = append(why, lb.Bound.Expr)
	}
	return max, why
}

const frameHead = `.version 7.8
.target sm_80
.address_size 64
`

// TestFrameEscapePerFrame: a device function (inlined) whose own frame's
// address escapes (stored, as clang -O0 does for a memcpy) leaves the
// kernel's frame slots promoted: the kernel's counter, kept in its frame,
// is derived.
func TestFrameEscapePerFrame(t *testing.T) {
	src := frameHead + `
.func (.param .b32 r) g(.param .b32 g_param_0)
{
	.local .align 8 .b8 __local_depot1[16];
	.reg .b64 %SP;
	.reg .b64 %SPL;
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	mov.u64 %SPL, __local_depot1;
	cvta.local.u64 %SP, %SPL;
	ld.param.u32 %r1, [g_param_0];
	add.u64 %rd1, %SP, 8;
	st.u64 [%SP+0], %rd1;
	ld.u64 %rd2, [%SP+0];
	st.u32 [%rd2], %r1;
	ld.u32 %r2, [%SP+8];
	st.param.b32 [r+0], %r2;
	ret;
}
.visible .entry k(.param .u32 k_param_0)
{
	.local .align 8 .b8 __local_depot0[16];
	.reg .b64 %SP;
	.reg .b64 %SPL;
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	mov.u64 %SPL, __local_depot0;
	cvta.local.u64 %SP, %SPL;
	ld.param.u32 %r1, [k_param_0];
	st.u32 [%SP+0], %r1;
	mov.u32 %r2, 0;
	st.u32 [%SP+4], %r2;
$L_head:
	ld.u32 %r3, [%SP+4];
	ld.u32 %r4, [%SP+0];
	setp.ge.s32 %p1, %r3, %r4;
	@%p1 bra $L_exit;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r3;
	.param .b32 retval0;
	call.uni (retval0), g, (param0);
	ld.param.b32 %r5, [retval0+0];
	}
	ld.u32 %r6, [%SP+4];
	add.s32 %r7, %r6, 1;
	st.u32 [%SP+4], %r7;
	bra.uni $L_head;
$L_exit:
	ret;
}
`
	max, why := frameBounds(t, "escape.ptx", src, 10)
	if len(max) != 1 || max[0] != 11 {
		t.Fatalf("bounds %v (%q), want [11]", max, why)
	}
}

// TestFrameStoreUnfollowedAddress: a store through an address computed
// from the frame's by an operation the classification does not follow (a
// multiplication by an argument, 1 at this launch) may write any slot of the frame: the counter kept
// there (reset to 0 by that store, so the loop never ends) is not bounded.
func TestFrameStoreUnfollowedAddress(t *testing.T) {
	src := frameHead + `
.visible .entry k(.param .u32 k_param_0)
{
	.local .align 8 .b8 __local_depot0[16];
	.reg .b64 %SPL;
	.reg .b64 %rd<4>;
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	mov.u64 %SPL, __local_depot0;
	ld.param.u32 %r1, [k_param_0];
	cvt.u64.u32 %rd3, %r1;
	mul.lo.s64 %rd1, %SPL, %rd3;
	mov.u32 %r2, 0;
	st.local.u32 [%SPL+8], %r2;
$L_head:
	ld.local.u32 %r3, [%SPL+8];
	setp.ge.s32 %p1, %r3, 10;
	@%p1 bra $L_exit;
	st.local.u32 [%rd1+8], %r2;
	ld.local.u32 %r6, [%SPL+8];
	add.s32 %r7, %r6, 1;
	st.local.u32 [%SPL+8], %r7;
	bra.uni $L_head;
$L_exit:
	ret;
}
`
	max, why := frameBounds(t, "unfollowed.ptx", src, 1)
	if len(max) != 1 || max[0] >= 0 {
		t.Fatalf("bounds %v (%q), want none", max, why)
	}
	if !strings.Contains(why[0], "local") {
		t.Errorf("why %q does not name the local store", why[0])
	}
}

// frameArrayKernel is a -O0 style loop for (i = 0; i < n; i++) a[i + c] =
// x with the counter at frame offset 8 and the array of four words at
// frame offset base.
func frameArrayKernel(base int) string {
	return frameHead + `
.visible .entry k(.param .u32 k_param_0)
{
	.local .align 8 .b8 __local_depot0[64];
	.reg .b64 %SPL;
	.reg .b64 %rd<16>;
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	mov.u64 %SPL, __local_depot0;
	ld.param.u32 %r1, [k_param_0];
	mov.u32 %r2, 0;
	st.local.u32 [%SPL+8], %r2;
$L_head:
	ld.local.u32 %r3, [%SPL+8];
	setp.ge.s32 %p1, %r3, %r1;
	@%p1 bra $L_exit;
	ld.local.u32 %r4, [%SPL+8];
	cvt.s64.s32 %rd1, %r4;
	shl.b64 %rd2, %rd1, 2;
	add.s64 %rd3, %SPL, ` + fmt.Sprint(base) + `;
	add.s64 %rd4, %rd3, %rd2;
	st.local.u32 [%rd4], %r2;
	ld.local.u32 %r6, [%SPL+8];
	add.s32 %r7, %r6, 1;
	st.local.u32 [%SPL+8], %r7;
	bra.uni $L_head;
$L_exit:
	ret;
}
`
}

// TestFrameArraySpan: a store into a local array indexed by a counter
// kept in the same frame writes only the bytes its index range reaches;
// the counter's slot lies outside them when the counter stays below the
// array's end, so the loop is bounded; when the index can reach the
// counter's slot (the array just below it, or past its end at this
// launch) it is not: the store may reset the counter.
func TestFrameArraySpan(t *testing.T) {
	for _, tc := range []struct {
		base int
		n    int64
		want int64
	}{
		{base: 16, n: 4, want: 5},     // a[0..3] at 16..31: the counter at 8 is never written
		{base: 12, n: 100, want: 101}, // i >= 0: never below 12
		{base: -8, n: 2, want: -1},    // a[4] is the counter: n is not known when the values are built
		{base: 0, n: 10, want: -1},    // a[2] is the counter
	} {
		max, why := frameBounds(t, "array.ptx", frameArrayKernel(tc.base), tc.n)
		if len(max) != 1 || max[0] != tc.want {
			t.Errorf("base %d, n %d: bounds %v (%q), want [%d]", tc.base, tc.n, max, why, tc.want)
		}
	}
}

// TestFrameMixedWidths: a frame variable written at 64 bits and read at
// 32 (clang -O0 for (long long k = big; (int)k < 100; ++k)), and one
// written as two 32-bit halves and read at 64: the variable has the width
// of its widest access, a narrower store merges into its bytes, a
// narrower load truncates it, so the counter is followed.
func TestFrameMixedWidths(t *testing.T) {
	src := func(body string) string {
		return frameHead + `
.visible .entry k(.param .u32 k_param_0)
{
	.local .align 8 .b8 __local_depot0[64];
	.reg .b64 %SPL;
	.reg .b64 %rd<16>;
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	mov.u64 %SPL, __local_depot0;
	ld.param.u32 %r1, [k_param_0];
` + body + `
$L_exit:
	ret;
}
`
	}
	for _, tc := range []struct {
		name, body string
		n, want    int64
	}{
		{"store64_load32", `
	cvt.s64.s32 %rd1, %r1;
	st.local.u64 [%SPL+16], %rd1;
$L_head:
	ld.local.u32 %r3, [%SPL+16];
	setp.gt.s32 %p1, %r3, 99;
	@%p1 bra $L_exit;
	ld.local.u64 %rd2, [%SPL+16];
	add.s64 %rd3, %rd2, 1;
	st.local.u64 [%SPL+16], %rd3;
	bra.uni $L_head;`, 90, 11},
		{"halves_load64", `
	st.local.u32 [%SPL+16], %r1;
	mov.u32 %r2, 0;
	st.local.u32 [%SPL+20], %r2;
$L_head:
	ld.local.u64 %rd2, [%SPL+16];
	setp.gt.s64 %p1, %rd2, 99;
	@%p1 bra $L_exit;
	add.s64 %rd3, %rd2, 1;
	st.local.u64 [%SPL+16], %rd3;
	bra.uni $L_head;`, 90, 11},
		{"high_half_overwritten", `
	st.local.u32 [%SPL+16], %r1;
	mov.u32 %r2, 0;
	st.local.u32 [%SPL+20], %r2;
$L_head:
	ld.local.u64 %rd2, [%SPL+16];
	setp.gt.s64 %p1, %rd2, 99;
	@%p1 bra $L_exit;
	add.s64 %rd3, %rd2, 1;
	st.local.u64 [%SPL+16], %rd3;
	st.local.u32 [%SPL+20], %r2;
	bra.uni $L_head;`, 90, -1},
	} {
		max, why := frameBounds(t, tc.name+".ptx", src(tc.body), tc.n)
		if len(max) != 1 || max[0] != tc.want {
			t.Errorf("%s: bounds %v (%q), want [%d]", tc.name, max, why, tc.want)
		}
	}
}
