package loops

import "testing"

// framePointerKernel is clang -O0 output (clang-19 --cuda-gpu-arch=sm_80
// -O0) of
//
//	__device__ void bump(int *p, int k) { *p += k; }
//	__device__ void fill(float *a, int m) { for (int j = 0; j < m; ++j) a[j] = 1.0f; }
//	__global__ void k(int n, float *out) {
//	  float buf[4];
//	  int i = 0;
//	  for (; i < n; bump(&i, 2)) { fill(buf, 4); out[i] = buf[i & 3]; }
//	}
//
// (the kernel renamed k): the loop counter and the array live in the
// kernel's frame, and their addresses are passed to the device functions,
// which keep them in their own frames and store through them.
const framePointerKernel = `
.visible .func _Z4bumpPii(
	.param .b64 _Z4bumpPii_param_0,
	.param .b32 _Z4bumpPii_param_1
)
{
	.local .align 8 .b8 	__local_depot0[16];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .b32 	%r<5>;
	.reg .b64 	%rd<3>;
	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u32 	%r1, [_Z4bumpPii_param_1];
	ld.param.u64 	%rd1, [_Z4bumpPii_param_0];
	st.u64 	[%SP+0], %rd1;
	st.u32 	[%SP+8], %r1;
	ld.u32 	%r2, [%SP+8];
	ld.u64 	%rd2, [%SP+0];
	ld.u32 	%r3, [%rd2];
	add.s32 	%r4, %r3, %r2;
	st.u32 	[%rd2], %r4;
	ret;
}
.visible .func _Z4fillPfi(
	.param .b64 _Z4fillPfi_param_0,
	.param .b32 _Z4fillPfi_param_1
)
{
	.local .align 8 .b8 	__local_depot1[16];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<6>;
	mov.u64 	%SPL, __local_depot1;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u32 	%r1, [_Z4fillPfi_param_1];
	ld.param.u64 	%rd1, [_Z4fillPfi_param_0];
	st.u64 	[%SP+0], %rd1;
	st.u32 	[%SP+8], %r1;
	mov.b32 	%r2, 0;
	st.u32 	[%SP+12], %r2;
	bra.uni 	$L__BB1_1;
$L__BB1_1:
	ld.u32 	%r3, [%SP+12];
	ld.u32 	%r4, [%SP+8];
	setp.ge.s32 	%p1, %r3, %r4;
	@%p1 bra 	$L__BB1_4;
	bra.uni 	$L__BB1_2;
$L__BB1_2:
	ld.u64 	%rd2, [%SP+0];
	ld.s32 	%rd3, [%SP+12];
	shl.b64 	%rd4, %rd3, 2;
	add.s64 	%rd5, %rd2, %rd4;
	mov.b32 	%r5, 1065353216;
	st.u32 	[%rd5], %r5;
	bra.uni 	$L__BB1_3;
$L__BB1_3:
	ld.u32 	%r6, [%SP+12];
	add.s32 	%r7, %r6, 1;
	st.u32 	[%SP+12], %r7;
	bra.uni 	$L__BB1_1;
$L__BB1_4:
	ret;
}
.visible .entry k(
	.param .u32 k_param_0,
	.param .u64 k_param_1
)
{
	.local .align 8 .b8 	__local_depot2[40];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .pred 	%p<2>;
	.reg .b32 	%r<7>;
	.reg .f32 	%f<2>;
	.reg .b64 	%rd<13>;
	mov.u64 	%SPL, __local_depot2;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u64 	%rd1, [k_param_1];
	ld.param.u32 	%r1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	cvta.global.u64 	%rd3, %rd2;
	st.u32 	[%SP+0], %r1;
	st.u64 	[%SP+8], %rd3;
	mov.b32 	%r2, 0;
	st.u32 	[%SP+32], %r2;
	bra.uni 	$L__BB2_1;
$L__BB2_1:
	ld.u32 	%r3, [%SP+32];
	ld.u32 	%r4, [%SP+0];
	setp.ge.s32 	%p1, %r3, %r4;
	@%p1 bra 	$L__BB2_4;
	bra.uni 	$L__BB2_2;
$L__BB2_2:
	add.u64 	%rd4, %SP, 16;
	{
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd4;
	.param .b32 param1;
	st.param.b32 	[param1+0], 4;
	call.uni 
	_Z4fillPfi, 
	(
	param0, 
	param1
	);
	}
	ld.u32 	%r5, [%SP+32];
	and.b32  	%r6, %r5, 3;
	cvt.u64.u32 	%rd5, %r6;
	shl.b64 	%rd6, %rd5, 2;
	add.s64 	%rd7, %rd4, %rd6;
	ld.f32 	%f1, [%rd7];
	ld.u64 	%rd8, [%SP+8];
	cvt.s64.s32 	%rd9, %r5;
	shl.b64 	%rd10, %rd9, 2;
	add.s64 	%rd11, %rd8, %rd10;
	st.f32 	[%rd11], %f1;
	bra.uni 	$L__BB2_3;
$L__BB2_3:
	add.u64 	%rd12, %SP, 32;
	{
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd12;
	.param .b32 param1;
	st.param.b32 	[param1+0], 2;
	call.uni 
	_Z4bumpPii, 
	(
	param0, 
	param1
	);
	}
	bra.uni 	$L__BB2_1;
$L__BB2_4:
	ret;
}
`

// TestFramePointerPassedToHelper: a frame address handed to an inlined
// device function (a parameter cell, then the callee's frame slot) is
// followed as a value: the callee's store through it is the caller's
// counter, stepped by 2, and fill's stores stay in the array. Before frame
// addresses were followed through cells, passing &i escaped the frame and
// neither loop was bounded.
func TestFramePointerPassedToHelper(t *testing.T) {
	for _, c := range []struct{ n, want int64 }{{7, 5}, {8, 5}, {1, 2}, {20, 11}} {
		max, why := frameBounds(t, "pointer.ptx", frameHead+framePointerKernel, c.n)
		if len(max) != 2 {
			t.Fatalf("n=%d: %d loops (%q), want 2", c.n, len(max), why)
		}
		// The kernel's loop (i = 0, 2, ... while i < n) and fill's (j < 4).
		got := map[int64]bool{max[0]: true, max[1]: true}
		if !got[c.want] || !got[5] {
			t.Errorf("n=%d: bounds %v (%q), want %d and 5", c.n, max, why, c.want)
		}
	}
}

// framePointerSlotKernel keeps &i in two frame slots (ptrs[0], ptrs[1] at
// offsets 16 and 24), reloads one through access, and halves i through
// it before i++: i never reaches 10, the loop does not end.
func framePointerSlotKernel(access string) string {
	return frameHead + `
.visible .entry k(.param .u32 k_param_0, .param .u64 k_param_1)
{
	.local .align 8 .b8 __local_depot0[64];
	.reg .b64 %SP;
	.reg .b64 %SPL;
	.reg .b64 %rd<16>;
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	mov.u64 %SPL, __local_depot0;
	cvta.local.u64 %SP, %SPL;
	ld.param.u32 %r1, [k_param_0];
	ld.param.u64 %rd9, [k_param_1];
	mov.u32 %r2, 0;
	st.u32 [%SP+0], %r2;
	add.u64 %rd1, %SP, 0;
	st.u64 [%SP+16], %rd1;
	st.u64 [%SP+24], %rd1;
	and.b32 %r4, %r1, 1;
	mul.wide.u32 %rd2, %r4, 8;
	add.s64 %rd3, %SP, %rd2;
$L_head:
	ld.u32 %r3, [%SP+0];
	setp.ge.s32 %p1, %r3, 10;
	@%p1 bra $L_exit;
` + access + `
	ld.u32 %r5, [%rd4];
	shr.s32 %r6, %r5, 1;
	st.u32 [%rd4], %r6;
	ld.u32 %r7, [%SP+0];
	add.s32 %r8, %r7, 1;
	st.u32 [%SP+0], %r8;
	bra.uni $L_head;
$L_exit:
	ret;
}
`
}

// TestFramePointerUnplacedReload: a frame address kept in a slot and read
// back at an offset the analysis does not know (ptrs[n & 1]) or after a
// store it does not place may overwrite the slot (ptrs[n & 1] = global,
// leaving &i in ptrs[0] when n is odd) is not followed: the store through
// it may write i, whose loop does not end, so no bound is derived. (Taking
// the reloaded value for an address outside the frame would bound the
// loop by 11.)
func TestFramePointerUnplacedReload(t *testing.T) {
	for name, access := range map[string]string{
		"unknown offset": "\tld.u64 %rd4, [%rd3+16];",
		"overwritten":    "\tst.u64 [%rd3+16], %rd9;\n\tld.u64 %rd4, [%SP+16];",
	} {
		max, why := frameBounds(t, "slot.ptx", framePointerSlotKernel(access), 7)
		if len(max) != 1 || max[0] >= 0 {
			t.Errorf("%s: bounds %v (%q), want none", name, max, why)
		}
	}
	// The slot read back at its own offset: &i, the store halves i, and
	// the loop does not end either.
	max, why := frameBounds(t, "slot.ptx", framePointerSlotKernel("\tld.u64 %rd4, [%SP+24];"), 7)
	if len(max) != 1 || max[0] >= 0 {
		t.Errorf("exact slot: bounds %v (%q), want none", max, why)
	}
}
