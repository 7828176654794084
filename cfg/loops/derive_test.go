package loops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// kernel wraps a body in a PTX kernel k with parameters n (k_param_0) and
// m (k_param_1), both .u32.
func kernel(body string) []byte {
	return []byte(`.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_param_0, .param .u32 k_param_1, .param .u64 k_param_2)
{
	.reg .pred %p<8>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	ld.param.u32 %r1, [k_param_0];
` + body + `
$L_exit:
	ret;
}
`)
}

func TestDerive(t *testing.T) {
	launch := func(n, m int64) pass.Launch {
		return pass.Launch{Block: [3]int{64, 1, 1}, Grid: [3]int{4, 1, 1}, Args: map[string]int64{"k_param_0": n, "k_param_1": m}}
	}
	type want struct {
		max  int64  // per loop in order; -1: unbounded
		expr string // or the unbounded reason (substring)
	}
	for _, tc := range []struct {
		name string
		body string
		n, m int64
		rd   int64 // k_param_2 (default n)
		grid int   // nctaid.x (default 4)
		want []want
		err  string // Compute error (substring)
	}{
		{name: "nvcc_top_test_lt", n: 10, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	add.s32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{11, "max(0, k_param_0) + 1"}}},
		{name: "clang_rotated_guarded", n: 10, body: `
	setp.lt.s32 %p1, %r1, 1;
	@%p1 bra $L_exit;
	mov.u32 %r2, 0;
$L_body:
	add.s32 %r2, %r2, 1;
	setp.lt.s32 %p2, %r2, %r1;
	@%p2 bra $L_body;`, want: []want{{10, "max(0, k_param_0 - 1) + 1"}}},
		// Two consecutive loops sharing a counter (ptxas's unrolled
		// count-down): a prologue of n & 3 steps, then a remainder by 4
		// down to 0 from n or from the prologue's exit value φ - 1 (it
		// exits from its latch). TestAfterEarlierLoop has the listing
		// whose evaluation order lost φ - 1's range.
		{name: "after_earlier_loop", n: 13, body: `
	setp.lt.s32 %p1, %r1, 1;
	@%p1 bra $L_exit;
	mov.u32 %r3, %r1;
	and.b32 %r6, %r1, 3;
	setp.eq.s32 %p2, %r6, 0;
	@%p2 bra $L_mid;
$L_pro:
	add.s32 %r6, %r6, -1;
	add.s32 %r3, %r3, -1;
	setp.ne.s32 %p3, %r6, 0;
	@%p3 bra $L_pro;
$L_mid:
	setp.eq.s32 %p4, %r3, 0;
	@%p4 bra $L_exit;
$L_rem:
	add.s32 %r3, %r3, -4;
	setp.ne.s32 %p5, %r3, 0;
	@%p5 bra $L_rem;`, want: []want{{1, ""}, {3, ""}}},
		{name: "clang_count_down_to_zero", n: 7, body: `
	setp.lt.s32 %p1, %r1, 1;
	@%p1 bra $L_exit;
	mov.u32 %r3, %r1;
$L_body:
	add.s32 %r3, %r3, -1;
	setp.eq.s32 %p2, %r3, 0;
	@%p2 bra $L_exit;
	bra.uni $L_body;`, want: []want{{7, "k_param_0"}}},
		{name: "count_down_gt", n: 5, body: `
	mov.u32 %r3, %r1;
$L_head:
	setp.gt.s32 %p1, %r3, 0;
	@!%p1 bra $L_exit;
	sub.s32 %r3, %r3, 1;
	bra.uni $L_head;`, want: []want{{6, "max(0, k_param_0) + 1"}}},
		{name: "step4", n: 10, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.lt.s32 %p1, %r2, %r1;
	@!%p1 bra $L_exit;
	add.s32 %r2, %r2, 4;
	bra.uni $L_head;`, want: []want{{4, "max(0, (k_param_0 + 3) / 4) + 1"}}},
		{name: "le", n: 10, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.gt.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	add.s32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{12, "max(0, k_param_0 + 1) + 1"}}},
		{name: "unsigned_lo_mov_chain", n: 3, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.lo.u32 %p1, %r2, %r1;
	@!%p1 bra $L_exit;
	add.u32 %r4, %r2, 1;
	mov.u32 %r2, %r4;
	bra.uni $L_head;`, want: []want{{4, "max(0, k_param_0) + 1"}}},
		{name: "unsigned_limit_too_large", n: -1, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.lt.u32 %p1, %r2, %r1;
	@!%p1 bra $L_exit;
	add.u32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{4294967296, ""}}},
		{name: "ntid_limit_tid_start", n: 0, body: `
	mov.u32 %r2, %tid.x;
	mov.u32 %r5, %ntid.x;
$L_head:
	setp.ge.u32 %p1, %r2, %r5;
	@%p1 bra $L_exit;
	add.u32 %r2, %r2, 32;
	bra.uni $L_head;`, want: []want{{3, "max(0, (ntid.x + 31) / 32) + 1"}}},
		{name: "tid_start_ntid_stride", n: 1000, body: `
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r2, %r3, %r4, %r5;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	add.s32 %r2, %r2, %r4;
	bra.uni $L_head;`, want: []want{{17, "max(0, (k_param_0 + (ntid.x - 1)) / ntid.x) + 1"}}},
		{name: "nested", n: 4, m: 6, body: `
	ld.param.u32 %r6, [k_param_1];
	mov.u32 %r2, 0;
$L_outer:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	mov.u32 %r3, 0;
$L_inner:
	setp.ge.s32 %p2, %r3, %r6;
	@%p2 bra $L_next;
	add.s32 %r3, %r3, 1;
	bra.uni $L_inner;
$L_next:
	add.s32 %r2, %r2, 1;
	bra.uni $L_outer;`, want: []want{{5, "max(0, k_param_0) + 1"}, {7, "max(0, k_param_1) + 1"}}},
		{name: "triangular_inner_top_test", n: 4, body: `
	mov.u32 %r2, 0;
$L_outer:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	mov.u32 %r3, 0;
$L_inner:
	setp.ge.s32 %p2, %r3, %r2;
	@%p2 bra $L_next;
	add.s32 %r3, %r3, 1;
	bra.uni $L_inner;
$L_next:
	add.s32 %r2, %r2, 1;
	bra.uni $L_outer;`, want: []want{{5, "max(0, k_param_0) + 1"}, {4, "max(0, min(max(0, k_param_0), k_param_0 - 1)) + 1"}}},
		// (1) guards before rotated loops.
		{name: "guard_count_down_n0", n: 0, body: `
	setp.lt.s32 %p1, %r1, 1;
	@%p1 bra $L_exit;
	mov.u32 %r3, %r1;
$L_body:
	add.s32 %r3, %r3, -1;
	setp.eq.s32 %p2, %r3, 0;
	@%p2 bra $L_exit;
	bra.uni $L_body;`, want: []want{{1, "k_param_0"}}},
		{name: "guard_count_down_negative", n: -5, body: `
	setp.lt.s32 %p1, %r1, 1;
	@%p1 bra $L_exit;
	mov.u32 %r3, %r1;
$L_body:
	add.s32 %r3, %r3, -1;
	setp.eq.s32 %p2, %r3, 0;
	@%p2 bra $L_exit;
	bra.uni $L_body;`, want: []want{{1, "k_param_0"}}},
		{name: "guard_count_down_n1", n: 1, body: `
	setp.lt.s32 %p1, %r1, 1;
	@%p1 bra $L_exit;
	mov.u32 %r3, %r1;
$L_body:
	add.s32 %r3, %r3, -1;
	setp.eq.s32 %p2, %r3, 0;
	@%p2 bra $L_exit;
	bra.uni $L_body;`, want: []want{{1, "k_param_0"}}},
		{name: "no_guard_count_down_n0_wraps", n: 0, body: `
	mov.u32 %r3, %r1;
$L_body:
	add.s32 %r3, %r3, -1;
	setp.eq.s32 %p2, %r3, 0;
	@%p2 bra $L_exit;
	bra.uni $L_body;`, want: []want{{4294967296, ""}}},
		{name: "guard_other_register_not_used", n: 0, body: `
	ld.param.u32 %r6, [k_param_1];
	setp.lt.s32 %p1, %r6, 1;
	@%p1 bra $L_exit;
	mov.u32 %r3, %r1;
$L_body:
	add.s32 %r3, %r3, -1;
	setp.eq.s32 %p2, %r3, 0;
	@%p2 bra $L_exit;
	bra.uni $L_body;`, want: []want{{1, ""}}},
		{name: "guard_register_rewritten_not_used", n: 1, body: `
	setp.lt.s32 %p1, %r1, 1;
	@%p1 bra $L_exit;
	add.s32 %r1, %r1, -1;
	mov.u32 %r3, %r1;
$L_body:
	add.s32 %r3, %r3, -1;
	setp.eq.s32 %p2, %r3, 0;
	@%p2 bra $L_exit;
	bra.uni $L_body;`, want: []want{{4294967296, ""}}},
		{name: "guard_thread_dependent_mask", n: 0, body: `
	mov.u32 %r5, %tid.x;
	and.b32 %r3, %r5, 3;
	setp.eq.s32 %p1, %r3, 0;
	@%p1 bra $L_exit;
$L_body:
	add.s32 %r3, %r3, -1;
	setp.ne.s32 %p2, %r3, 0;
	@%p2 bra $L_body;`, want: []want{{3, "3"}}},
		// (2) triangular loops: limit and start from the outer register.
		{name: "triangular_rotated_ne", n: 0, body: `
	mov.u32 %r2, 0;
$L_outer:
	setp.le.s32 %p1, %r2, 0;
	@%p1 bra $L_next;
	mov.u32 %r3, 0;
$L_inner:
	add.s32 %r3, %r3, 1;
	setp.ne.s32 %p2, %r3, %r2;
	@%p2 bra $L_inner;
$L_next:
	add.s32 %r2, %r2, 1;
	setp.ne.s32 %p3, %r2, 16;
	@%p3 bra $L_outer;`, want: []want{{16, "16"}, {15, "15"}}},
		{name: "triangular_start_from_outer", n: 10, body: `
	mov.u32 %r2, 0;
$L_outer:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	add.s32 %r3, %r2, 1;
$L_inner:
	setp.ge.s32 %p2, %r3, %r1;
	@%p2 bra $L_next;
	add.s32 %r3, %r3, 1;
	bra.uni $L_inner;
$L_next:
	add.s32 %r2, %r2, 1;
	bra.uni $L_outer;`, want: []want{{11, "max(0, k_param_0) + 1"}, {10, "max(0, k_param_0 - 1) + 1"}}},
		{name: "triangular_outer_not_counted_unbounded", n: 4, body: `
	mov.u32 %r2, 0;
$L_outer:
	ld.param.u64 %rd1, [k_param_2];
	ld.global.u32 %r7, [%rd1];
	setp.eq.s32 %p1, %r7, 0;
	@%p1 bra $L_exit;
	mov.u32 %r3, 0;
$L_inner:
	setp.ge.s32 %p2, %r3, %r2;
	@%p2 bra $L_next;
	add.s32 %r3, %r3, 1;
	bra.uni $L_inner;
$L_next:
	add.s32 %r2, %r2, 1;
	bra.uni $L_outer;`, want: []want{{-1, "load from global memory"}, {-1, "changes in a loop the analysis does not bound"}}},
		// (3) conversions between integer widths.
		{name: "cvt_tid_u16_start", n: 100, body: `
	cvt.u32.u16 %r2, %tid.x;
$L_head:
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	add.u32 %r2, %r2, 64;
	bra.uni $L_head;`, want: []want{{3, "max(0, (k_param_0 + 63) / 64) + 1"}}},
		{name: "cvt_ctaid_u16_too_large", n: 100, grid: 70000, body: `
	cvt.u32.u16 %r2, %ctaid.x;
$L_head:
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	add.u32 %r2, %r2, 64;
	bra.uni $L_head;`, want: []want{{3, ""}}},
		{name: "cvt_truncated_64bit_register_ne", n: 0, body: `
	mov.u64 %rd2, 0;
$L_head:
	add.s64 %rd2, %rd2, 8;
	cvt.u32.u64 %r2, %rd2;
	setp.ne.s32 %p1, %r2, 128;
	@%p1 bra $L_head;`, want: []want{{16, "16"}}},
		{name: "cvt_truncated_wraps_at_32_bits", n: 0, body: `
	mov.u64 %rd2, 0;
$L_head:
	add.s64 %rd2, %rd2, 3;
	cvt.u32.u64 %r2, %rd2;
	setp.ne.s32 %p1, %r2, 128;
	@%p1 bra $L_head;`, want: []want{{1431655808, ""}}},
		{name: "cvt_sign_extended_register_s64", n: 0, body: `
	ld.param.u64 %rd1, [k_param_2];
	mov.u32 %r2, 0;
$L_head:
	add.s32 %r2, %r2, 1;
	cvt.s64.s32 %rd2, %r2;
	setp.gt.s64 %p1, %rd1, %rd2;
	@%p1 bra $L_head;`, rd: 100, want: []want{{100, "max(0, k_param_2 - 1) + 1"}}},
		{name: "cvt_sign_extended_wraps_at_32_bits", n: 0, rd: 1 << 40, body: `
	ld.param.u64 %rd1, [k_param_2];
	mov.u32 %r2, 0;
$L_head:
	add.s32 %r2, %r2, 1;
	cvt.s64.s32 %rd2, %r2;
	setp.gt.s64 %p1, %rd1, %rd2;
	@%p1 bra $L_head;`, want: []want{{-1, "wrap around s32"}}},
		{name: "cvt_limit_widened_before_loop", n: 10, body: `
	cvt.u64.u32 %rd3, %r1;
	mov.u64 %rd2, 0;
$L_head:
	setp.ge.u64 %p1, %rd2, %rd3;
	@%p1 bra $L_exit;
	add.s64 %rd2, %rd2, 1;
	bra.uni $L_head;`, want: []want{{11, "max(0, k_param_0) + 1"}}},
		{name: "cvt_limit_negative_not_zero_extended", n: -1, body: `
	cvt.u64.u32 %rd3, %r1;
	mov.u64 %rd2, 0;
$L_head:
	setp.ge.s64 %p1, %rd2, %rd3;
	@%p1 bra $L_exit;
	add.s64 %rd2, %rd2, 1;
	bra.uni $L_head;`, want: []want{{4294967296, ""}}},
		// (4) selp start values.
		{name: "selp_start", n: 10, m: 1, body: `
	ld.param.u32 %r6, [k_param_1];
	setp.eq.s32 %p3, %r6, 0;
	selp.b32 %r2, 4, 0, %p3;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	add.s32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{11, "max(0, k_param_0) + 1"}}},
		// (5) geometric loops counting up.
		{name: "geometric_up_shl_lt", n: 100, body: `
	mov.u32 %r2, 1;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	shl.b32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{8, "max(0, log2(max(0, k_param_0 - 1)) + 1) + 1"}}},
		{name: "geometric_up_exact_power", n: 64, body: `
	mov.u32 %r2, 1;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	shl.b32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{7, "max(0, log2(max(0, k_param_0 - 1)) + 1) + 1"}}},
		{name: "geometric_up_limit_1", n: 1, body: `
	mov.u32 %r2, 1;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	shl.b32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{1, "max(0, log2(max(0, k_param_0 - 1)) + 1) + 1"}}},
		{name: "geometric_up_rotated_mul2_le", n: 16, body: `
	mov.u32 %r2, 1;
$L_head:
	mul.lo.s32 %r2, %r2, 2;
	setp.le.s32 %p1, %r2, %r1;
	@%p1 bra $L_head;`, want: []want{{5, "max(0, log2(max(0, k_param_0) / 2) + 1) + 1"}}},
		{name: "geometric_up_from_zero_refused", n: 16, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	shl.b32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{-1, "0 never grows"}}},
		{name: "geometric_up_wraps", n: 2147483647, body: `
	mov.u32 %r2, 1;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	shl.b32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{-1, "wrap around"}}},
		{name: "geometric_up_ne_unbounded", n: 16, body: `
	mov.u32 %r2, 1;
$L_head:
	setp.eq.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	shl.b32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{-1, "only < and <="}}},
		{name: "geometric_up_mul3_unbounded", n: 16, body: `
	mov.u32 %r2, 1;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	mul.lo.s32 %r2, %r2, 3;
	bra.uni $L_head;`, want: []want{{-1, "not a power of two"}}},
		{name: "two_exits", n: 10, m: 3, body: `
	ld.param.u32 %r6, [k_param_1];
	mov.u32 %r2, 0;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	setp.ge.s32 %p2, %r2, %r6;
	@%p2 bra $L_exit;
	add.s32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{4, "min(max(0, k_param_0) + 1, max(0, k_param_1) + 1)"}}},
		{name: "while_loaded_data_unbounded", body: `
	ld.param.u64 %rd1, [k_param_2];
$L_head:
	ld.global.u32 %r2, [%rd1];
	setp.eq.s32 %p1, %r2, 0;
	@%p1 bra $L_exit;
	add.s64 %rd1, %rd1, 4;
	bra.uni $L_head;`, want: []want{{-1, "load from global memory"}}},
		{name: "iv_modified_in_body_unbounded", n: 10, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	setp.eq.s32 %p2, %r2, 5;
	@!%p2 bra $L_latch;
	add.s32 %r2, %r2, 2;
$L_latch:
	add.s32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{-1, "written conditionally in the loop (a guarded instruction or a branch arm)"}}},
		{name: "guarded_update_unbounded", n: 10, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	setp.eq.s32 %p2, %r2, 5;
	@%p2 sub.s32 %r2, %r2, 1;
	add.s32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{-1, "written conditionally"}}},
		{name: "ne_wrong_step_refused_at_eval", n: 11, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.eq.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	add.s32 %r2, %r2, 2;
	bra.uni $L_head;`, want: []want{{-1, "may not be a multiple of the step"}}},
		// A distance made a multiple of the step through four optional
		// steps (the merges SASS leaves after splitting an unrolled
		// remainder into 16-, 8- and 4-step parts): 16 paths.
		{name: "ne_multiple_through_four_merges", n: 100, body: `
	and.b32 %r3, %r1, -4;
	setp.lt.s32 %p1, %r3, 16;
	@%p1 bra $L_a;
	add.s32 %r3, %r3, -16;
$L_a:
	setp.lt.s32 %p2, %r3, 8;
	@%p2 bra $L_b;
	add.s32 %r3, %r3, -8;
$L_b:
	setp.lt.s32 %p3, %r3, 4;
	@%p3 bra $L_c;
	add.s32 %r3, %r3, -4;
$L_c:
	setp.lt.s32 %p4, %r3, 32;
	@%p4 bra $L_d;
	add.s32 %r3, %r3, -12;
$L_d:
	setp.eq.s32 %p5, %r3, 0;
	@%p5 bra $L_exit;
$L_head:
	add.s32 %r3, %r3, -4;
	setp.ne.s32 %p6, %r3, 0;
	@%p6 bra $L_head;`, want: []want{{15, ""}}},
		{name: "ne_step2_even", n: 10, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.eq.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	add.s32 %r2, %r2, 2;
	bra.uni $L_head;`, want: []want{{6, "k_param_0 / 2 + 1"}}},
		{name: "counts_away_unbounded", n: 10, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $L_exit;
	add.s32 %r2, %r2, -1;
	bra.uni $L_head;`, want: []want{{-1, "counts away"}}},
		{name: "unsigned_ge_zero_never_ends", n: 10, body: `
	mov.u32 %r2, %r1;
$L_head:
	setp.lt.u32 %p1, %r2, 0;
	@%p1 bra $L_exit;
	add.s32 %r2, %r2, -1;
	bra.uni $L_head;`, want: []want{{-1, "wrap around u32"}}},
		{name: "wraps_at_int_max", n: 2147483647, body: `
	mov.u32 %r2, 0;
$L_head:
	setp.le.s32 %p1, %r2, %r1;
	@!%p1 bra $L_exit;
	add.s32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{-1, "wrap around s32"}}},
		{name: "geometric_halving_ne_zero", n: 0, body: `
	mov.u32 %r2, %ntid.x;
	shr.u32 %r2, %r2, 1;
$L_head:
	setp.eq.s32 %p1, %r2, 0;
	@%p1 bra $L_exit;
	shr.u32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{7, "max(0, log2(ntid.x / 2) + 1) + 1"}}},
		{name: "width_mismatch_unbounded", n: 10, body: `
	mov.u32 %r2, 0;
$L_head:
	cvt.u64.u32 %rd2, %r2;
	cvt.u64.u32 %rd3, %r1;
	setp.ge.u64 %p1, %rd2, %rd3;
	@%p1 bra $L_exit;
	add.s32 %r2, %r2, 1;
	bra.uni $L_head;`, want: []want{{11, ""}}},
		{name: "s64_induction", n: 9, body: `
	ld.param.u64 %rd1, [k_param_2];
	mov.u64 %rd2, 0;
$L_head:
	setp.ge.s64 %p1, %rd2, %rd1;
	@%p1 bra $L_exit;
	add.s64 %rd2, %rd2, 3;
	bra.uni $L_head;`, want: []want{{4, "max(0, (k_param_2 + 2) / 3) + 1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := launch(tc.n, tc.m)
			l.Args["k_param_2"] = tc.n
			if tc.rd != 0 {
				l.Args["k_param_2"] = tc.rd
			}
			if tc.grid != 0 {
				l.Grid[0] = tc.grid
			}
			_, gs := graphs(t, tc.name+".ptx", kernel(tc.body))
			r, err := Compute(gs[0], l, nil, "")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					var got []string
					for _, lb := range r.Loops {
						if lb.Bound != nil {
							got = append(got, fmt.Sprint(lb.Bound.Max))
						} else {
							got = append(got, lb.Why)
						}
					}
					t.Fatalf("Compute error = %v, want %q; got %q", err, tc.err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Loops) != len(tc.want) {
				t.Fatalf("%d loops, want %d", len(r.Loops), len(tc.want))
			}
			for i, w := range tc.want {
				lb := r.Loops[i]
				if w.max < 0 {
					if lb.Bound != nil || !strings.Contains(lb.Why, w.expr) {
						t.Errorf("loop %d: bound %v, why %q; want unbounded with %q", i, lb.Bound, lb.Why, w.expr)
					}
					continue
				}
				if lb.Bound == nil {
					t.Errorf("loop %d: unbounded (%s), want %d", i, lb.Why, w.max)
					continue
				}
				// The expression is for review (its text is checked by
				// TestDerivedText); the number is the bound.
				if lb.Bound.Max != w.max {
					t.Errorf("loop %d: %d = %s, want %d (%s)", i, lb.Bound.Max, lb.Bound.Expr, w.max, lb.Bound.Why)
				}
			}
			unb := false
			for _, w := range tc.want {
				unb = unb || w.max < 0
			}
			if r.Bounded() == unb {
				t.Errorf("Bounded() = %v, problems %v", r.Bounded(), r.Problems)
			}
			for _, p := range r.Problems {
				if !strings.Contains(p.Message, "gpuwcet facts template "+tc.name+".ptx") || !strings.Contains(p.Message, tc.name+".ptx:") {
					t.Errorf("problem message without position or template hint: %s", p.Message)
				}
			}
		})
	}
}

// TestDivideHalving: nvcc -O0 halves with div.s32 x, 2 (for (off = 16;
// off > 0; off /= 2)): a geometric recurrence like x >> 1 for the
// non-negative values the loop stays at.
func TestDivideHalving(t *testing.T) {
	_, gs := graphs(t, "div.ptx", kernel(`
	mov.u32 %r2, 16;
$L_head:
	setp.gt.s32 %p1, %r2, 0;
	not.pred %p2, %p1;
	@%p2 bra $L_exit;
	div.s32 %r2, %r2, 2;
	bra.uni $L_head;`))
	l := pass.Launch{Block: [3]int{32, 1, 1}, Grid: [3]int{1, 1, 1}, Args: map[string]int64{"k_param_0": 1, "k_param_1": 1, "k_param_2": 1}}
	r, err := Compute(gs[0], l, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Loops) != 1 || r.Loops[0].Bound == nil || r.Loops[0].Bound.Max != 6 {
		t.Fatalf("loops %+v, want one bounded at 6 (16, 8, 4, 2, 1, 0)", r.Loops)
	}
}
