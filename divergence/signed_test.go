package divergence_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// TestSignedResolution: per-warp resolution reads each operation at the
// instruction's own type, whatever produced its operands (issue 9, item
// 2): rem.s32(-1, 33) is -1, max.s32(-1, 8) is 8, shr.s32 keeps the sign,
// div.s32 rounds towards zero, for a value loaded with ld.param.u32.
func TestSignedResolution(t *testing.T) {
	launch := func(lim int64) pass.Launch {
		return pass.Launch{Block: [3]int{64, 1, 1}, Args: map[string]int64{"k_param_n": lim}}
	}
	for _, tc := range []struct {
		name string
		body string
		lim  int64
		want map[string][]string // class -> outcome of the only branch
	}{
		{
			// if (t < max(lim, 8)): lim = -1 gives 8: lanes 0-7 of warp 0.
			name: "max.s32", lim: -1, body: `
	ld.param.u32 %r1, [k_param_n];
	max.s32 %r2, %r1, 8;
	mov.u32 %r3, %tid.x;
	setp.lt.s32 %p1, %r3, %r2;
	@%p1 bra DONE;
	add.s32 %r4, %r3, 1;
DONE:
	ret;`,
			want: map[string][]string{"warp 0": {"divergent"}, "warp 1": {"never-taken"}},
		},
		{
			// max.s32(0x80000000 | tid, 0) is 0 in every lane.
			name: "max.s32 of or", lim: 0, body: `
	mov.u32 %r3, %tid.x;
	or.b32 %r1, %r3, -2147483648;
	max.s32 %r2, %r1, 0;
	setp.eq.s32 %p1, %r2, 0;
	@%p1 bra DONE;
	add.s32 %r4, %r3, 1;
DONE:
	ret;`,
			want: map[string][]string{"warps 0-1": {"always-taken"}},
		},
		{
			// rem.s32(-1, 33) = -1: "r < 0" is taken.
			name: "rem.s32", lim: -1, body: `
	ld.param.u32 %r1, [k_param_n];
	rem.s32 %r2, %r1, 33;
	setp.lt.s32 %p1, %r2, 0;
	@%p1 bra DONE;
	add.s32 %r4, %r2, 1;
DONE:
	ret;`,
			want: map[string][]string{"warps 0-1": {"always-taken"}},
		},
		{
			// A loop guard n / 2 > 0 with n = -5: div.s32 gives -2, the
			// loop is skipped; shr.s32 -5 >> 1 = -3 likewise.
			name: "div.s32 and shr.s32", lim: -5, body: `
	ld.param.u32 %r1, [k_param_n];
	div.s32 %r2, %r1, 2;
	shr.s32 %r5, %r1, 1;
	add.s32 %r6, %r2, %r5;
	setp.lt.s32 %p1, %r6, -4;
	@%p1 bra DONE;
	add.s32 %r4, %r2, 1;
DONE:
	ret;`,
			want: map[string][]string{"warps 0-1": {"always-taken"}},
		},
	} {
		info := analyze(t, kernel(tc.body), launch(tc.lim))
		got := summarize(info).Classes
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: classes (-want +got):\n%s", tc.name, diff)
		}
	}
}
