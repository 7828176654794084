package loops

import (
	"fmt"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/sass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

var sassTargetRE = regexp.MustCompile(`\{(\d+)\}`)

// sassKernel writes a cuobjdump sm_80 listing of function k(int, int)
// with one instruction per line of body, at 0x0, 0x10, ...; {N} is the
// address of instruction N.
func sassKernel(body string) []byte {
	var b strings.Builder
	b.WriteString("\n\tcode for sm_80\n\t\tFunction : _Z1kii\n\t.headerflags    @\"EF_CUDA_SM80 EF_CUDA_PTX_SM(EF_CUDA_SM80)\"\n")
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		line = sassTargetRE.ReplaceAllStringFunc(line, func(s string) string {
			k, _ := strconv.Atoi(s[1 : len(s)-1])
			return fmt.Sprintf("0x%x", 16*k)
		})
		fmt.Fprintf(&b, "        /*%04x*/                   %s ;   /* 0x0000000000007802 */\n", 16*n, line)
		b.WriteString("                                                          /* 0x000fe20000000f00 */\n")
		n++
	}
	b.WriteString("\t\t..........\n")
	return []byte(b.String())
}

func TestDeriveSASS(t *testing.T) {
	launch := pass.Launch{Block: [3]int{64, 1, 1}, Grid: [3]int{4, 1, 1}}
	for _, tc := range []struct {
		name string
		body string
		max  int64  // -1: unbounded (why holds the reason); 0: Compute fails (why)
		why  string // substring of the reason or error
	}{
		// Rotated: the header (IADD3) runs once per value 1..10.
		{"iadd3_ge_leave", `
			MOV R0, RZ
			IADD3 R0, R0, 0x1, RZ
			ISETP.GE.AND P0, PT, R0, 0xa, PT
			@!P0 BRA {1}
			EXIT`, 10, ""},
		{"iadd3_lt_u32_stay", `
			MOV R0, RZ
			IADD3 R0, R0, 0x1, RZ
			ISETP.LT.U32.AND P0, PT, R0, 0x5, PT
			@P0 BRA {1}
			EXIT`, 5, ""},
		// Since CUDA 13: IADD3 d, PT, PT, a, b, c.
		{"iadd3_cuda13", `
			MOV R0, RZ
			IADD3 R0, PT, PT, R0, 0x1, RZ
			ISETP.NE.AND P0, PT, R0, 0x7, PT
			@P0 BRA {1}
			EXIT`, 7, ""},
		// ntid.x read as the low word of a 64-bit uniform pair
		// (c[0x0][0x0]: ntid.x, c[0x0][0x4]: ntid.y), the grid-stride
		// step of nvcc -O3 sm_87.
		{"uldc64_ntid_pair_step", `
			S2R R0, SR_TID.X
			ULDC.64 UR4, c[0x0][0x0]
			IADD3 R0, R0, UR4, RZ
			ISETP.GE.AND P0, PT, R0, 0x100, PT
			@!P0 BRA {2}
			EXIT`, 4, ""},
		// Initial value past the limit: the header still runs once.
		{"zero_iterations", `
			MOV R0, 0x14
			IADD3 R0, R0, 0x1, RZ
			ISETP.LT.AND P0, PT, R0, 0xa, PT
			@P0 BRA {1}
			EXIT`, 1, ""},
		{"one_iteration", `
			MOV R0, 0x9
			IADD3 R0, R0, 0x1, RZ
			ISETP.LT.AND P0, PT, R0, 0xa, PT
			@P0 BRA {1}
			EXIT`, 1, ""},
		{"count_down_ne_rz", `
			MOV R0, 0xa
			IADD3 R0, R0, -0x1, RZ
			ISETP.NE.AND P0, PT, R0, RZ, PT
			@P0 BRA {1}
			EXIT`, 10, ""},
		// cuasm sm_61 shape: MOV32I of a negative value, IADD32I.
		{"iadd32i_negative_start", `
			MOV32I R6, 0xfffffffa
			IADD32I R6, R6, 0x1
			ISETP.NE.AND P0, PT, R6, RZ, PT
			@P0 BRA {1}
			EXIT`, 6, ""},
		// Test at the top: 4 body iterations, 5 tests.
		{"viadd_top_test", `
			IMAD.MOV.U32 R0, RZ, RZ, RZ
			ISETP.GE.AND P0, PT, R0, 0x8, PT
			@P0 BRA {5}
			VIADD R0, R0, 0x2
			BRA {1}
			EXIT`, 5, ""},
		{"imad_iadd_invariant_limit", `
			MOV R0, RZ
			MOV R2, 0x7
			MOV R3, 0x1
			IMAD.IADD R0, R0, 0x1, R3
			ISETP.GE.AND P0, PT, R0, R2, PT
			@!P0 BRA {3}
			EXIT`, 7, ""},
		{"iadd_sub_register_limit", `
			MOV R0, RZ
			MOV R2, 0x7
			IADD3 R0, R0, 0x1, RZ
			ISETP.GE.AND P0, PT, R0, R2, PT
			@!P0 BRA {2}
			EXIT`, 7, ""},
		{"thread_start", `
			S2R R0, SR_TID.X
			IADD3 R0, R0, 0x20, RZ
			ISETP.LT.U32.AND P0, PT, R0, 0x100, PT
			@P0 BRA {1}
			EXIT`, 8, ""},
		{"uniform", `
			UMOV UR4, URZ
			UIADD3 UR4, UR4, 0x1, URZ
			UISETP.GE.AND UP0, UPT, UR4, 0x4, UPT
			PLOP3.LUT P0, PT, UP0, PT, PT, 0x80, 0x0
			@!P0 BRA {1}
			EXIT`, 4, ""},
		// Signedness: 0xffffffff + 1 wraps to 0 before the first test,
		// which then sees 0, 1, ..., 10: 11 executions.
		{"u32_start_wraps_to_zero", `
			MOV R0, 0xffffffff
			IADD3 R0, R0, 0x1, RZ
			ISETP.LT.U32.AND P0, PT, R0, 0xa, PT
			@P0 BRA {1}
			EXIT`, 11, ""},
		// Wrap: 2, 4, ..., 0x7ffffffe < 0x7fffffff, then INT_MIN < it too.
		{"signed_wrap", `
			MOV R0, RZ
			MOV R2, 0x7fffffff
			IADD3 R0, R0, 0x2, RZ
			ISETP.LT.AND P0, PT, R0, R2, PT
			@P0 BRA {2}
			EXIT`, -1, "wrap"},
		// A limit in the constant bank is the parameter of the
		// architecture's layout (sm_80: parameters from 0x160), here
		// _Z1kii(int, int)'s first: its argument must be given.
		{"const_bank_limit", `
			MOV R0, RZ
			IADD3 R0, R0, 0x1, RZ
			ISETP.GE.AND P0, PT, R0, c[0x0][0x160], PT
			@!P0 BRA {1}
			EXIT`, 0, "_Z1kii_param_0"},
		{"const_bank_limit_given", `
			MOV R0, RZ
			IADD3 R0, R0, 0x1, RZ
			ISETP.GE.AND P0, PT, R0, c[0x0][0x164], PT
			@!P0 BRA {1}
			EXIT`, 7, ""},
		{"combine_predicate", `
			MOV R0, RZ
			IADD3 R0, R0, 0x1, RZ
			ISETP.GE.AND P0, PT, R0, 0xa, P1
			@!P0 BRA {1}
			EXIT`, -1, "P1, which may be read before it is written"},
		{"combine_not_pt", `
			MOV R0, RZ
			IADD3 R0, R0, 0x1, RZ
			ISETP.GE.AND P0, PT, R0, 0xa, !PT
			@!P0 BRA {1}
			EXIT`, -1, "never leaves"},
		{"or_pt", `
			MOV R0, RZ
			IADD3 R0, R0, 0x1, RZ
			ISETP.GE.OR P0, PT, R0, 0xa, PT
			@!P0 BRA {1}
			EXIT`, 1, ""},
		{"second_result", `
			MOV R0, RZ
			IADD3 R0, R0, 0x1, RZ
			ISETP.GE.AND P0, P1, R0, 0xa, PT
			@!P0 BRA {1}
			EXIT`, 10, ""},
		{"extended_64bit", `
			MOV R0, RZ
			MOV R1, RZ
			IADD3 R0, P1, R0, 0x1, RZ
			IADD3.X R1, RZ, R1, RZ, P1, !PT
			ISETP.GE.U32.AND P0, PT, R0, 0xa, PT
			ISETP.GE.AND.EX P0, PT, R1, RZ, PT, P0
			@!P0 BRA {2}
			EXIT`, 10, ""},
		{"r2p_clobbers_predicate", `
			MOV R0, RZ
			IADD3 R0, R0, 0x1, RZ
			ISETP.GE.AND P0, PT, R0, 0xa, PT
			R2P PR, R5, 0x7f
			@!P0 BRA {1}
			EXIT`, -1, "R5, which may be read before it is written"},
		{"iadd3_three_operands", `
			MOV R0, RZ
			IADD3 R0, R0, 0x1, R3
			ISETP.GE.AND P0, PT, R0, 0xa, PT
			@!P0 BRA {1}
			EXIT`, -1, "the step R3 + 1 is not positive"},
		{"iadd3_three_operands_known", `
			MOV R0, RZ
			MOV R3, 0x2
			IADD3 R0, R0, 0x1, R3
			ISETP.GE.AND P0, PT, R0, 0xa, PT
			@!P0 BRA {1}
			EXIT`, 4, ""},
		{"iadd3_negated_induction", `
			MOV R0, RZ
			IADD3 R0, -R0, 0x1, RZ
			ISETP.GE.AND P0, PT, R0, 0xa, PT
			@!P0 BRA {1}
			EXIT`, -1, "not stepped by an invariant amount"},
		{"guarded_step", `
			MOV R0, RZ
			@P2 IADD3 R0, R0, 0x1, RZ
			ISETP.GE.AND P0, PT, R0, 0xa, PT
			@!P0 BRA {1}
			EXIT`, -1, "select"},
		// ptxas's convergence loop (clang -O0, sm_70 and later): it
		// repeats while lanes active at the second vote were not at the
		// first; one block reads one active mask (assume.ActiveMask), so
		// R4 & ~R3 is 0 and the loop runs once per entry.
		{"vote_convergence", `
			MOV R0, RZ
			@!PT SHFL.IDX PT, RZ, RZ, RZ, RZ
			VOTE.ANY R3, PT, PT
			YIELD
			@!PT LDC RZ, c[0x0][RZ]
			VOTE.ANY R4, PT, PT
			LOP3.LUT P0, RZ, R3, R4, RZ, 0xc, !PT
			@!P0 BRA.U {9}
			BRA {1}
			EXIT`, 1, ""},
		// The votes separated by a reconvergence, or one of them guarded
		// (the ballot of the lanes it leaves): two masks, not derived.
		{"vote_across_bsync", `
			MOV R0, RZ
			VOTE.ANY R3, PT, PT
			BSYNC B0
			VOTE.ANY R4, PT, PT
			LOP3.LUT P0, RZ, R3, R4, RZ, 0xc, !PT
			@!P0 BRA.U {7}
			BRA {1}
			EXIT`, -1, "active mask"},
		{"vote_guarded", `
			MOV R0, RZ
			VOTE.ANY R3, PT, PT
			@P1 VOTE.ANY R4, PT, PT
			LOP3.LUT P0, RZ, R3, R4, RZ, 0xc, !PT
			@!P0 BRA.U {6}
			BRA {1}
			EXIT`, -1, "VOTE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := tc.name + ".sass"
			f, err := sass.ParseFile(token.NewFileSet(), name, sassKernel(tc.body), 0)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if len(f.Funcs) != 1 {
				t.Fatalf("%d functions", len(f.Funcs))
			}
			g, err := cfg.Build(f.Fset, f.Funcs[0])
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Loops) != 1 {
				t.Fatalf("%d loops", len(g.Loops))
			}
			vf, err := values.Build(g, values.Options{Dialect: f.Dialect, Arch: f.Target})
			if err != nil {
				t.Fatal(err)
			}
			l := launch
			if tc.name == "const_bank_limit_given" {
				l.Args = map[string]int64{"_Z1kii_param_1": 7}
			}
			r, err := ComputeValues(vf, l, nil, "")
			if tc.max == 0 {
				if err == nil || !strings.Contains(err.Error(), tc.why) {
					t.Fatalf("err %v, want one with %q (bound %+v)", err, tc.why, r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lb := r.Loops[0]
			if tc.max < 0 {
				if lb.Bound != nil || !strings.Contains(lb.Why, tc.why) {
					t.Errorf("bound %+v, why %q; want unbounded with %q", lb.Bound, lb.Why, tc.why)
				}
				return
			}
			if lb.Bound == nil {
				t.Fatalf("unbounded: %s", lb.Why)
			}
			if lb.Bound.Max != tc.max {
				t.Errorf("bound %d = %s, want %d (%s)", lb.Bound.Max, lb.Bound.Expr, tc.max, lb.Bound.Why)
			}
		})
	}
}

// convergencePTX is ptxas's convergence loop written in PTX: two reads of
// the active mask, repeated while a lane active at the second was not at
// the first, in the divergent side of a branch. The judge
// (phases/sim/simt, TestConvergenceLoop) runs the same loop once per
// entry on its SIMT stack.
const convergencePTX = `.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_param_0)
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	mov.u32 %r1, %tid.x;
	ld.param.u32 %r2, [k_param_0];
	mov.u32 %r9, 0;
	setp.lt.u32 %p1, %r1, %r2;
	@%p1 bra $L_conv;
	bra.uni $L_join;
$L_conv:
	activemask.b32 %r3;
	activemask.b32 %r4;
	not.b32 %r5, %r3;
	and.b32 %r6, %r5, %r4;
	add.u32 %r9, %r9, 1;
	setp.ne.u32 %p2, %r6, 0;
	@%p2 bra $L_conv;
$L_join:
	ret;
}
`

// TestConvergenceLoopPTX: the loop above is bounded by one execution per
// entry (two reads of the active mask in one block are one value,
// assume.ActiveMask), whatever the divergence before it.
func TestConvergenceLoopPTX(t *testing.T) {
	for _, n := range []int64{0, 5, 32} {
		max, why := frameBounds(t, "conv.ptx", convergencePTX, n)
		if len(max) != 1 || max[0] != 1 {
			t.Errorf("n=%d: bounds %v (%q), want [1]", n, max, why)
		}
	}
}
