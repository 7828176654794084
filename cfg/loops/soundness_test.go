package loops

import (
	"flag"
	"fmt"
	"go/token"
	"math/big"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

var soundBudget = flag.Duration("budget", 0, "TestDerivationSound: stop starting kernels after this long (0: no limit) and log how many cases ran")

var longSound = flag.Bool("long", os.Getenv("GPUWCET_LONG") != "", "run the long soundness property test (10^7 cases; also GPUWCET_LONG=1)")

// TestDerivationSound is the soundness property test of the derivation:
// random kernels with counted loops of the shapes compilers write (top
// test and rotated, guards, count-down, !=, steps by constants, arguments
// and launch dimensions, limits through masks, signed division idioms,
// min/max, 64-bit induction values compared at 32 bits, values kept in
// local-frame slots, triangular nests) run concretely, thread by thread,
// on the reference semantics (values.Apply, the per-lane domain's), for
// random launches; every derived bound must be at least the number of
// header executions of every entry into its loop. A case is the execution
// of one thread at one launch of one kernel; 10^5 cases by default, 10^7
// with -long.
func TestDerivationSound(t *testing.T) {
	cases := 100000
	if *longSound {
		cases = 10000000
	}
	if testing.Short() {
		cases = 10000
	}
	r := rand.New(rand.NewSource(7))
	const launchesPerKernel = 25
	checked, bounded, divBounded, geoInner := 0, 0, 0, 0
	start := time.Now()
	done := 0
	for done < cases {
		if *soundBudget > 0 && time.Since(start) > *soundBudget {
			t.Logf("budget %v spent: %d of %d cases run", *soundBudget, done, cases)
			break
		}
		src := randomLoopKernel(r)
		div, geo := false, false
		switch r.Intn(7) {
		case 0, 1:
			src = randomUnrolledKernel(r)
		case 2:
			src, div = randomDivKernel(r), true
		case 3:
			src, geo = randomGeoNestKernel(r), true
		}
		fset := token.NewFileSet()
		file, err := ptx.ParseFile(fset, "rand.ptx", []byte(src), 0)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		fn := file.Funcs[0]
		g, err := cfg.Build(fset, fn)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		vf, err := values.Build(g, values.Options{Dialect: isa.DialectPTX})
		if err != nil {
			t.Fatal(err)
		}
		ex := newExecutor(g)
		for k := 0; k < launchesPerKernel && done < cases; k++ {
			l := randomLaunch(r)
			res, err := ComputeValues(vf, l, nil, "")
			if err != nil {
				continue // a missing argument: not a derivation
			}
			threads := [][3]uint64{{0, 0, 0}, {uint64(l.Block[0] - 1), 0, 0}, {uint64(r.Intn(l.Block[0])), 0, 0}}
			ctaid := uint64(r.Intn(l.Grid[0]))
			for _, tid := range threads {
				done++
				counts, capped := ex.run(l, tid, ctaid)
				for li, lb := range res.Loops {
					if lb.Bound == nil {
						continue
					}
					bounded++
					if div {
						divBounded++
					}
					if geo {
						geoInner++
					}
					n := counts[li]
					if capped[li] && lb.Bound.Max <= maxSteps {
						t.Fatalf("UNSOUND: loop %d (line %d) runs more than %d header executions per entry, derived bound %d = %s (%s)\nlaunch %+v, tid %v, ctaid %d\n%s",
							li, lb.Key.Line, maxSteps, lb.Bound.Max, lb.Bound.Expr, lb.Bound.Why, l, tid, ctaid, src)
					}
					if n > lb.Bound.Max {
						t.Fatalf("UNSOUND: loop %d (line %d): %d header executions in one entry, derived bound %d = %s (%s)\nlaunch %+v, tid %v, ctaid %d\n%s",
							li, lb.Key.Line, n, lb.Bound.Max, lb.Bound.Expr, lb.Bound.Why, l, tid, ctaid, src)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d cases, %d loop bounds checked against executions, in %v", done, checked, time.Since(start).Round(time.Second))
	if checked == 0 {
		t.Fatal("no derived bound was checked")
	}
	t.Logf("%d bounds of loops divided by a constant (randomDivKernel) checked", divBounded)
	if divBounded == 0 {
		t.Fatal("no bound of a loop divided by a constant was checked")
	}
	t.Logf("%d bounds of loops in nests over a doubling value (randomGeoNestKernel) checked", geoInner)
	if geoInner == 0 {
		t.Fatal("no bound of a loop in a nest over a doubling value was checked")
	}
}

const maxSteps = 1 << 9

func randomLaunch(r *rand.Rand) pass.Launch {
	arg := func() int64 {
		switch r.Intn(8) {
		case 0:
			return int64(r.Intn(5)) - 2
		case 1:
			return -int64(r.Intn(100))
		case 2:
			return int64(r.Intn(3000))
		case 3:
			return []int64{0x7fffffff, -0x80000000, 0x7ffffff0, -1, 1 << 20}[r.Intn(5)]
		}
		return int64(r.Intn(64))
	}
	return pass.Launch{
		Block: [3]int{1 + r.Intn(256), 1, 1},
		Grid:  [3]int{1 + r.Intn(8), 1, 1},
		Args:  map[string]int64{"k_param_0": arg(), "k_param_1": arg(), "k_param_2": arg()},
	}
}

// randomLoopKernel writes a kernel with one loop, sometimes two nested.
func randomLoopKernel(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(`.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_param_0, .param .u32 k_param_1, .param .u64 k_param_2)
{
	.local .align 8 .b8 __local_depot0[64];
	.reg .b64 %SP;
	.reg .b64 %SPL;
	.reg .pred %p<32>;
	.reg .b32 %r<64>;
	.reg .b64 %rd<32>;
	mov.u64 %SPL, __local_depot0;
	ld.param.u32 %r1, [k_param_0];
	ld.param.u32 %r2, [k_param_1];
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %ctaid.x;
	mov.u32 %r6, %nctaid.x;
`)
	// The limit (%r10).
	switch r.Intn(10) {
	case 0:
		b.WriteString("\tmov.u32 %r10, %r1;\n")
	case 1:
		b.WriteString("\tand.b32 %r10, %r1, -4;\n")
	case 2: // n / 16, signed, as compilers write it
		b.WriteString("\tshr.s32 %r7, %r1, 31;\n\tshr.u32 %r8, %r7, 28;\n\tadd.s32 %r9, %r1, %r8;\n\tshr.s32 %r10, %r9, 4;\n")
	case 3:
		fmt.Fprintf(&b, "\t%s.%s %%r10, %%r1, %%r2;\n", []string{"min", "max"}[r.Intn(2)], []string{"s32", "u32"}[r.Intn(2)])
	case 4:
		b.WriteString("\tmul.hi.u32 %r7, %r1, -1431655765;\n\tshr.u32 %r10, %r7, 1;\n") // n / 3
	case 5:
		b.WriteString("\tand.b32 %r10, %r1, 7;\n")
	case 6:
		fmt.Fprintf(&b, "\tmov.u32 %%r10, %d;\n", r.Intn(40)-5)
	case 7:
		b.WriteString("\tmov.u32 %r10, %r4;\n")
	case 8:
		b.WriteString("\tadd.s32 %r10, %r1, %r3;\n")
	default:
		b.WriteString("\tmin.s32 %r10, %r1, 100;\n")
	}
	// The start (%r11).
	switch r.Intn(7) {
	case 0, 1:
		b.WriteString("\tmov.u32 %r11, 0;\n")
	case 2:
		b.WriteString("\tmov.u32 %r11, %r3;\n")
	case 3:
		b.WriteString("\tmad.lo.s32 %r11, %r5, %r4, %r3;\n")
	case 4:
		b.WriteString("\tmov.u32 %r11, %r2;\n")
	case 5:
		b.WriteString("\tmov.u32 %r11, %r1;\n")
	default:
		fmt.Fprintf(&b, "\tmov.u32 %%r11, %d;\n", r.Intn(20)-3)
	}
	// A limit relative to the start (y1 = min(y0 + n, h), its select
	// form, or the maximum), where a guard on the start and the limit
	// bounds a != loop.
	if r.Intn(4) == 0 {
		op, ty := []string{"min", "max"}[r.Intn(2)], []string{"s32", "u32"}[r.Intn(2)]
		b.WriteString("\tadd.s32 %r13, %r11, %r1;\n")
		if r.Intn(2) == 0 {
			fmt.Fprintf(&b, "\t%s.%s %%r10, %%r13, %%r2;\n", op, ty)
		} else {
			fmt.Fprintf(&b, "\tsetp.%s.%s %%p5, %%r13, %%r2;\n\tselp.b32 %%r10, %%r13, %%r2, %%p5;\n", map[string]string{"min": "lt", "max": "gt"}[op], ty)
		}
	}
	// The step (%r12).
	switch r.Intn(6) {
	case 0, 1:
		fmt.Fprintf(&b, "\tmov.u32 %%r12, %d;\n", []int{1, 1, 2, 4, 3, -1, -2}[r.Intn(7)])
	case 2:
		b.WriteString("\tmov.u32 %r12, %r4;\n")
	case 3:
		b.WriteString("\tmul.lo.s32 %r12, %r4, %r6;\n")
	case 4:
		b.WriteString("\tmov.u32 %r12, %r2;\n")
	default:
		b.WriteString("\tmov.u32 %r12, -1;\n")
	}
	cmps := []string{"lt", "le", "gt", "ge", "ne", "eq", "lo", "ls", "hi", "hs"}
	cmp := cmps[r.Intn(len(cmps))]
	ty := []string{"s32", "u32"}[r.Intn(2)]
	if strings.HasPrefix(cmp, "l") && len(cmp) == 2 && (cmp == "lo" || cmp == "ls") || cmp == "hi" || cmp == "hs" {
		ty = "u32"
	}
	guard := r.Intn(2) == 0
	rotated := r.Intn(2) == 0
	slot := r.Intn(4) == 0
	// slot64: the slot is written at 64 bits (the counter sign-extended)
	// and read at 32 (its low half); hiJunk: the body also writes its high
	// half, which the low half read must not see.
	slot64 := slot && r.Intn(3) == 0
	hiJunk := slot64 && r.Intn(2) == 0
	wide := r.Intn(5) == 0
	inner := r.Intn(3) == 0
	if guard {
		// The guard's comparison: the loop's, or another (clang guards
		// a rotated != loop with start < limit).
		gcmp, gty := cmp, ty
		if r.Intn(2) == 0 {
			gcmp, gty = cmps[r.Intn(len(cmps))], []string{"s32", "u32"}[r.Intn(2)]
			if gcmp == "lo" || gcmp == "ls" || gcmp == "hi" || gcmp == "hs" {
				gty = "u32"
			}
		}
		fmt.Fprintf(&b, "\tsetp.%s.%s %%p1, %%r11, %%r10;\n\t@!%%p1 bra $L_exit;\n", gcmp, gty)
	}
	iv := "%r11"
	if wide {
		b.WriteString("\tcvt.u64.u32 %rd5, %r11;\n")
	}
	if slot {
		if slot64 {
			b.WriteString("\tcvt.s64.s32 %rd20, %r11;\n\tst.local.u64 [%SPL+8], %rd20;\n")
		} else {
			b.WriteString("\tst.local.u32 [%SPL+8], %r11;\n")
		}
	}
	b.WriteString("$L_head:\n")
	load := func() {
		switch {
		case slot:
			b.WriteString("\tld.local.u32 %r20, [%SPL+8];\n")
			iv = "%r20"
		case wide:
			b.WriteString("\tcvt.u32.u64 %r20, %rd5;\n")
			iv = "%r20"
		}
	}
	test := func(reg string) {
		fmt.Fprintf(&b, "\tsetp.%s.%s %%p2, %s, %%r10;\n\t@!%%p2 bra $L_exit;\n", cmp, ty, reg)
	}
	step := func() {
		switch {
		case slot:
			if slot64 {
				b.WriteString("\tld.local.u64 %rd21, [%SPL+8];\n\tcvt.s64.s32 %rd22, %r12;\n\tadd.s64 %rd21, %rd21, %rd22;\n\tst.local.u64 [%SPL+8], %rd21;\n")
				if hiJunk {
					b.WriteString("\tst.local.u32 [%SPL+12], %r1;\n")
				}
			} else {
				b.WriteString("\tld.local.u32 %r21, [%SPL+8];\n\tadd.s32 %r21, %r21, %r12;\n\tst.local.u32 [%SPL+8], %r21;\n")
			}
		case wide:
			b.WriteString("\tcvt.s64.s32 %rd6, %r12;\n\tadd.s64 %rd5, %rd5, %rd6;\n")
		default:
			b.WriteString("\tadd.s32 %r11, %r11, %r12;\n")
		}
	}
	// A store into a local array indexed by the counter (a[i + c] = x,
	// the array at a random offset of the frame), which may reach the
	// counter's own slot: the derivation must account for it.
	array := slot && r.Intn(3) == 0
	arrayBase := []int{12, 16, 0, -4, 4, 32}[r.Intn(6)]
	arrayVal := []string{"0", "%r1", "%r11", "100"}[r.Intn(4)]
	arrayStore := func() {
		if !array {
			return
		}
		fmt.Fprintf(&b, "\tld.local.u32 %%r40, [%%SPL+8];\n\tcvt.s64.s32 %%rd10, %%r40;\n\tshl.b64 %%rd10, %%rd10, 2;\n\tadd.s64 %%rd11, %%SPL, %d;\n\tadd.s64 %%rd11, %%rd11, %%rd10;\n\tmov.u32 %%r41, %s;\n\tst.local.u32 [%%rd11], %%r41;\n", arrayBase, arrayVal)
	}
	innerLoop := func() {
		if !inner {
			return
		}
		load()
		// for (j = 0; j < i; j++) or j from i to n.
		if r.Intn(2) == 0 {
			fmt.Fprintf(&b, "\tmov.u32 %%r30, 0;\n\tmov.u32 %%r31, %s;\n", iv)
		} else {
			fmt.Fprintf(&b, "\tmov.u32 %%r30, %s;\n\tmov.u32 %%r31, %%r10;\n", iv)
		}
		b.WriteString("$L_inner:\n\tsetp.lt.s32 %p3, %r30, %r31;\n\t@!%p3 bra $L_innerexit;\n\tadd.s32 %r30, %r30, 1;\n\tbra.uni $L_inner;\n$L_innerexit:\n")
	}
	if rotated {
		innerLoop()
		arrayStore()
		step()
		load()
		test(iv)
		b.WriteString("\tbra.uni $L_head;\n")
	} else {
		load()
		test(iv)
		innerLoop()
		arrayStore()
		step()
		b.WriteString("\tbra.uni $L_head;\n")
	}
	b.WriteString("$L_exit:\n\tret;\n}\n")
	return b.String()
}

// randomUnrolledKernel writes the loop shapes of optimising compilers
// that need more than one loop's recurrences: a runtime-unrolled loop (a
// remainder loop of (n - i) & (u-1) iterations, skipped when that is 0,
// then a main loop stepping by u tested with != or counting down
// unsigned, its distance a multiple of u only through the remainder
// loop's exit value), a loop entered from two places with different
// start values, and a loop tested by the carry of its step (i + s <u i).
func randomUnrolledKernel(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(`.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_param_0, .param .u32 k_param_1, .param .u64 k_param_2)
{
	.reg .pred %p<32>;
	.reg .b32 %r<64>;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %ntid.x;
`)
	// The limit (%r10) and the start (%r11).
	switch r.Intn(4) {
	case 0:
		b.WriteString("\tld.param.u32 %r10, [k_param_0];\n")
	case 1:
		b.WriteString("\tld.param.u32 %r1, [k_param_0];\n\tmin.s32 %r10, %r1, 300;\n")
	case 2:
		b.WriteString("\tmov.u32 %r10, %r4;\n")
	default:
		fmt.Fprintf(&b, "\tmov.u32 %%r10, %d;\n", r.Intn(70)-3)
	}
	switch r.Intn(4) {
	case 0:
		b.WriteString("\tmov.u32 %r11, %r3;\n")
	case 1:
		b.WriteString("\tld.param.u32 %r11, [k_param_1];\n")
	default:
		fmt.Fprintf(&b, "\tmov.u32 %%r11, %d;\n", r.Intn(9)-2)
	}
	u := []int{2, 4, 8}[r.Intn(3)]
	switch r.Intn(5) {
	case 4:
		// An exit test of two conditions joined by && or || with
		// branches (-O0): k < c && k + s < n, or k >= c || k + s >= n.
		c := r.Intn(12) - 2
		b.WriteString("\tmov.u32 %r40, 0;\n$L_head:\n")
		switch r.Intn(3) {
		case 2:
			// Stay while either holds: k < c || k + s < n.
			fmt.Fprintf(&b, "\tmov.pred %%p20, 1;\n\tsetp.lt.s32 %%p21, %%r40, %d;\n\t@%%p21 bra $L_merge;\n\tadd.s32 %%r41, %%r40, %%r11;\n\tsetp.lt.s32 %%p20, %%r41, %%r10;\n$L_merge:\n\t@!%%p20 bra $L_exit;\n", c)
		case 0:
			fmt.Fprintf(&b, "\tmov.pred %%p20, 0;\n\tsetp.lt.s32 %%p21, %%r40, %d;\n\t@!%%p21 bra $L_merge;\n\tadd.s32 %%r41, %%r40, %%r11;\n\tsetp.lt.s32 %%p20, %%r41, %%r10;\n$L_merge:\n\t@!%%p20 bra $L_exit;\n", c)
		default:
			fmt.Fprintf(&b, "\tmov.pred %%p20, 1;\n\tsetp.ge.s32 %%p21, %%r40, %d;\n\t@%%p21 bra $L_merge;\n\tadd.s32 %%r41, %%r40, %%r11;\n\tsetp.ge.s32 %%p20, %%r41, %%r10;\n$L_merge:\n\t@%%p20 bra $L_exit;\n", c)
		}
		b.WriteString("\tadd.s32 %r40, %r40, 1;\n\tbra.uni $L_head;\n")
	case 3:
		// A loop stepping by 4u, then one stepping by u until 0: exact
		// only when the start is a multiple of u (masked, stepped down
		// to one by a prologue loop, or not).
		switch r.Intn(3) {
		case 0:
			b.WriteString("\tmov.u32 %r30, %r10;\n")
		case 1:
			// A prologue of %r10 & (u-1) steps by -1 first (ptxas's
			// split count-down, stencil1d at clang -O2): the loops
			// after it start from its exit value φ - 1.
			fmt.Fprintf(&b, "\tmov.u32 %%r30, %%r10;\n\tand.b32 %%r31, %%r10, %d;\n\tsetp.eq.s32 %%p13, %%r31, 0;\n\t@%%p13 bra $L_pro_end;\n", u-1)
			b.WriteString("$L_pro:\n\tadd.s32 %r31, %r31, -1;\n\tadd.s32 %r30, %r30, -1;\n\tsetp.ne.s32 %p14, %r31, 0;\n\t@%p14 bra $L_pro;\n$L_pro_end:\n")
		default:
			fmt.Fprintf(&b, "\tand.b32 %%r30, %%r10, %d;\n", -u)
		}
		big := 4 * u
		if r.Intn(4) == 0 {
			big++ // not a multiple: the start's residue is lost
		}
		fmt.Fprintf(&b, "\tsetp.le.s32 %%p9, %%r30, %d;\n\t@%%p9 bra $L_small;\n$L_big:\n\tadd.s32 %%r30, %%r30, %d;\n\tsetp.gt.s32 %%p10, %%r30, %d;\n\t@%%p10 bra $L_big;\n", 3*u, -big, 3*u)
		fmt.Fprintf(&b, "$L_small:\n\tsetp.lt.s32 %%p11, %%r30, 1;\n\t@%%p11 bra $L_exit;\n$L_rem:\n\tadd.s32 %%r30, %%r30, %d;\n\tsetp.ne.s32 %%p12, %%r30, 0;\n\t@%%p12 bra $L_rem;\n", -u)
	case 0:
		// Runtime unrolling.
		if r.Intn(3) != 0 {
			b.WriteString("\tsetp.ge.s32 %p1, %r11, %r10;\n\t@%p1 bra $L_exit;\n")
		}
		fmt.Fprintf(&b, "\tsub.s32 %%r13, %%r10, %%r11;\n\tand.b32 %%r14, %%r13, %d;\n\tmov.u32 %%r15, %%r11;\n", u-1)
		if r.Intn(2) == 0 {
			b.WriteString("\tsetp.eq.s32 %p3, %r14, 0;\n\t@%p3 bra $L_pre;\n")
		}
		b.WriteString("$L_rem:\n\tadd.s32 %r15, %r15, 1;\n\tadd.s32 %r14, %r14, -1;\n\tsetp.ne.s32 %p4, %r14, 0;\n\t@%p4 bra $L_rem;\n$L_pre:\n")
		fmt.Fprintf(&b, "\tsetp.lt.u32 %%p5, %%r13, %d;\n\t@%%p5 bra $L_exit;\n", u)
		switch r.Intn(3) {
		case 0:
			fmt.Fprintf(&b, "\tsub.s32 %%r16, %%r10, %%r15;\n$L_main:\n\tadd.s32 %%r16, %%r16, %d;\n\tsetp.ne.s32 %%p6, %%r16, 0;\n\t@%%p6 bra $L_main;\n", -u)
		case 1:
			fmt.Fprintf(&b, "$L_main:\n\tadd.s32 %%r15, %%r15, %d;\n\tsetp.ne.s32 %%p6, %%r15, %%r10;\n\t@%%p6 bra $L_main;\n", u)
		default:
			// Down by u while the value before the step is above u - 1
			// (unsigned).
			fmt.Fprintf(&b, "\tsub.s32 %%r16, %%r10, %%r15;\n\tadd.s32 %%r17, %%r16, %d;\n$L_main:\n\tadd.s32 %%r18, %%r17, %d;\n\tadd.s32 %%r17, %%r17, %d;\n\tsetp.gt.u32 %%p6, %%r18, %d;\n\t@%%p6 bra $L_main;\n", -u, u-1, -u, u-1)
		}
	case 1:
		// Two ways in.
		b.WriteString("\tld.param.u32 %r2, [k_param_1];\n\tsetp.lt.s32 %p7, %r2, 0;\n\tmov.u32 %r20, %r11;\n\t@%p7 bra $L_head;\n")
		fmt.Fprintf(&b, "\tmov.u32 %%r20, %d;\n", r.Intn(10))
		fmt.Fprintf(&b, "$L_head:\n\tadd.s32 %%r20, %%r20, %d;\n\tsetp.lt.s32 %%p8, %%r20, %%r10;\n\t@%%p8 bra $L_head;\n", []int{1, 2, 4}[r.Intn(3)])
	default:
		// The carry of the step.
		s := []int{8, 16, 32}[r.Intn(3)]
		fmt.Fprintf(&b, "\tand.b32 %%r21, %%r3, %d;\n\tor.b32 %%r22, %%r21, %d;\n", s-1, -s*(1+r.Intn(3)))
		fmt.Fprintf(&b, "$L_head:\n\tadd.s32 %%r23, %%r22, %d;\n\tsetp.lt.u32 %%p9, %%r23, %%r22;\n\tmov.u32 %%r22, %%r23;\n\t@%%p9 bra $L_head;\n", s)
	}
	b.WriteString("$L_exit:\n\tret;\n}\n")
	return b.String()
}

// executor runs a function's integer code for one thread on the
// reference semantics, counting the header executions of every loop per
// entry.
type executor struct {
	g       *cfg.Graph
	fn      *isa.Func
	sems    []*values.Sem
	blockAt []*cfg.Block
	loopAt  []int // header instruction -> loop index + 1
	reg     map[string]int
	inReg   [][]int // per instruction, per input: register index (-1)
	outReg  [][]int
	guard   []int
	target  []int
	vals    [][]uint64
	ins     [][]uint64
	// layout, for SASS, maps constant-bank words to the launch.
	layout *values.Layout
}

// newSASSExecutor is newExecutor for a SASS function of architecture
// arch (sm_52, sm_80): instructions decoded by DecodeSASSArch, constant-
// bank words read from the launch by the architecture's layout.
func newSASSExecutor(g *cfg.Graph, arch string) *executor {
	n, _ := strconv.Atoi(strings.TrimPrefix(arch, "sm_"))
	ex := newExecutorWith(g, func(in *isa.Instr) *values.Sem { return values.DecodeSASSArch(in, n) })
	ex.layout = values.LayoutFor(arch, g.Func)
	return ex
}

// constWord is the constant-bank word c[0][off] at launch l.
func (ex *executor) constWord(l pass.Launch, x values.In) uint64 {
	lay := ex.layout
	for i := 0; i < 3; i++ {
		if x.Off == lay.Ntid[i] {
			return uint64(l.Block[i])
		}
		if x.Off == lay.Nctaid[i] {
			return uint64(l.Grid[i])
		}
	}
	var v uint64
	for b := int64(0); b < int64(x.W)/8; b++ {
		o := x.Off + b - lay.ParamBase
		for _, p := range lay.Params {
			if o >= p.Off && o < p.Off+p.Size {
				v |= (uint64(l.Args[p.Name]) >> (8 * uint(o-p.Off)) & 0xff) << (8 * uint(b))
			}
		}
	}
	return v
}

func newExecutor(g *cfg.Graph) *executor { return newExecutorWith(g, values.DecodePTX) }

func newExecutorWith(g *cfg.Graph, decode func(*isa.Instr) *values.Sem) *executor {
	n := len(g.Func.Instrs)
	ex := &executor{g: g, fn: g.Func, reg: map[string]int{}, sems: make([]*values.Sem, n), blockAt: make([]*cfg.Block, n),
		loopAt: make([]int, n), inReg: make([][]int, n), outReg: make([][]int, n), guard: make([]int, n), target: make([]int, n),
		vals: make([][]uint64, n), ins: make([][]uint64, n)}
	idx := func(r string) int {
		if i, ok := ex.reg[r]; ok {
			return i
		}
		ex.reg[r] = len(ex.reg)
		return len(ex.reg) - 1
	}
	for i, in := range g.Func.Instrs {
		s := decode(in)
		ex.sems[i] = s
		ex.vals[i] = make([]uint64, len(s.Nodes))
		ex.ins[i] = make([]uint64, len(s.Ins))
		for _, x := range s.Ins {
			k := -1
			if x.Kind == values.InReg {
				k = idx(x.Name)
			}
			ex.inReg[i] = append(ex.inReg[i], k)
		}
		for _, o := range s.Outs {
			k := -1
			if o.Kind == values.OutReg {
				k = idx(o.Name)
			}
			ex.outReg[i] = append(ex.outReg[i], k)
		}
		ex.guard[i] = -1
		if in.Guard.Reg != "" {
			ex.guard[i] = idx(in.Guard.Reg)
		}
		if in.Kind == isa.KindBranch {
			ex.target[i] = g.Func.Labels[in.Targets[0]]
		}
	}
	for _, b := range g.Blocks {
		for _, in := range b.Instrs {
			ex.blockAt[in.Index] = b
		}
	}
	for li, l := range g.Loops {
		ex.loopAt[l.Header.First] = li + 1
	}
	return ex
}

// run executes one thread; it returns, per loop, the largest number of
// header executions in one entry, and whether an entry ran past maxSteps.
func (ex *executor) run(l pass.Launch, tid [3]uint64, ctaid uint64) ([]int64, []bool) {
	regs := make([]uint64, len(ex.reg))
	mem := map[int64]byte{}
	const frame = 0x1000
	counts := make([]int64, len(ex.g.Loops))
	capped := make([]bool, len(ex.g.Loops))
	cur := make([]int64, len(ex.g.Loops))
	special := map[string]uint64{
		"tid.x": tid[0], "tid.y": tid[1], "tid.z": tid[2],
		"ntid.x": uint64(l.Block[0]), "ntid.y": 1, "ntid.z": 1,
		"ctaid.x": ctaid, "nctaid.x": uint64(l.Grid[0]), "nctaid.y": 1, "nctaid.z": 1,
	}
	args := func(x values.In) uint64 { return uint64(l.Args[x.Name]) >> (8 * uint(x.Off)) }
	pc := 0
	prev := -1
	for steps := 0; pc < len(ex.fn.Instrs) && steps < 1<<18; steps++ {
		if li := ex.loopAt[pc] - 1; li >= 0 {
			lp := ex.g.Loops[li]
			if prev >= 0 && lp.Contains(ex.blockAt[prev]) {
				cur[li]++
			} else {
				cur[li] = 1
			}
			counts[li] = max(counts[li], cur[li])
			if cur[li] > maxSteps {
				capped[li] = true
				return counts, capped
			}
		}
		in := ex.fn.Instrs[pc]
		prev = pc
		if g := ex.guard[pc]; g >= 0 && (regs[g]&1 != 0) == in.Guard.Neg {
			pc++
			continue
		}
		switch in.Kind {
		case isa.KindBranch:
			pc = ex.target[pc]
			continue
		case isa.KindReturn, isa.KindExit:
			return counts, capped
		}
		s := ex.sems[pc]
		vals, ins := ex.vals[pc], ex.ins[pc]
		for k, x := range s.Ins {
			switch x.Kind {
			case values.InReg:
				ins[k] = regs[ex.inReg[pc][k]] & values.Mask(int(x.W))
			case values.InSpecial:
				ins[k] = special[x.Name]
			case values.InParam:
				ins[k] = args(x)
			case values.InConst:
				ins[k] = ex.constWord(l, x)
			case values.InFrame:
				ins[k] = frame
			case values.InMem:
				addr := x.Off
				if x.Base >= 0 {
					addr += int64(ins[x.Base])
				}
				var v uint64
				for i := int64(0); i < int64(x.W)/8; i++ {
					v |= uint64(mem[addr+i]) << (8 * uint(i))
				}
				ins[k] = v
			}
		}
		var abuf [3]uint64
		var wbuf [3]int
		for i, n := range s.Nodes {
			switch n.Code {
			case values.Const:
				vals[i] = n.Imm
			case values.Input:
				vals[i] = ins[n.Imm] & values.Mask(int(n.W))
			default:
				k := n.Code.Arity()
				for j := 0; j < k; j++ {
					abuf[j] = vals[n.Args[j]]
					wbuf[j] = int(s.Nodes[n.Args[j]].W)
				}
				vals[i], _ = values.Apply(n.Code, int(n.W), abuf[:k], wbuf[:k])
			}
		}
		for k, o := range s.Outs {
			if o.Node < 0 {
				continue
			}
			v := vals[o.Node]
			switch o.Kind {
			case values.OutReg:
				if o.Signed {
					v = uint64(values.Signed(v, int(o.W)))
				}
				regs[ex.outReg[pc][k]] = v
			case values.OutMem:
				addr := o.Off
				if o.Base >= 0 {
					addr += int64(ins[o.Base])
				}
				for i := int64(0); i < int64(o.W)/8; i++ {
					mem[addr+i] = byte(v >> (8 * uint(i)))
				}
			}
		}
		pc++
	}
	return counts, capped
}

// scalarKernelHead opens the kernels of randomDivKernel and
// randomGeoNestKernel: no frame; %r1, %r2 the arguments, %r3 tid.x, %r4
// ntid.x.
const scalarKernelHead = `.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_param_0, .param .u32 k_param_1, .param .u64 k_param_2)
{
	.reg .pred %p<32>;
	.reg .b32 %r<64>;
	.reg .b64 %rd<32>;
	ld.param.u32 %r1, [k_param_0];
	ld.param.u32 %r2, [k_param_1];
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %ntid.x;
`

// randomDivKernel writes a loop whose value is divided by a constant d in
// every iteration (for (i = S; i > L; i /= d) and its != 0, >= forms), in
// the forms compilers write: div.u32, div.s32, the unsigned multiply-high
// with a post-shift, its 64-bit product form, and the signed
// multiply-high with its sign fix-up. The magic numbers are computed here
// (the smallest post-shift whose ceil(2^(32+s)/d) fits and is close
// enough), and one in four is perturbed by a few units: then the code is
// no longer a division by d, and a derivation that took it for one could
// fall below an execution.
func randomDivKernel(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(scalarKernelHead)
	ds := []uint64{3, 5, 6, 7, 10, 11, 25, 100, 1000, 641, 3 + uint64(r.Intn(1<<20))}
	d := ds[r.Intn(len(ds))]
	// Magic numbers: unsigned, for every 32-bit value (n = 32); signed
	// (M < 2^31), for 31-bit ones (n = 31). None in range: div.
	magic := func(n uint) (m uint64, sh uint, ok bool) {
		for sh = 0; sh < 32; sh++ {
			p := new(big.Int).Lsh(big.NewInt(1), 32+sh)
			mb := new(big.Int).Add(p, new(big.Int).SetUint64(d-1))
			mb.Quo(mb, new(big.Int).SetUint64(d))
			if mb.BitLen() > int(n) {
				return 0, 0, false
			}
			e := new(big.Int).Sub(new(big.Int).Mul(mb, new(big.Int).SetUint64(d)), p)
			if e.Cmp(new(big.Int).Lsh(big.NewInt(1), sh+32-n)) <= 0 {
				m = mb.Uint64()
				if r.Intn(4) == 0 {
					m = uint64(int64(m) + int64(r.Intn(7)) - 3)
				}
				return m, sh, true
			}
		}
		return 0, 0, false
	}
	// The start (%r11) and the limit (%r10).
	switch r.Intn(4) {
	case 0:
		b.WriteString("\tmov.u32 %r11, %r1;\n")
	case 1:
		b.WriteString("\tmov.u32 %r11, %r3;\n")
	case 2:
		b.WriteString("\tmul.lo.s32 %r11, %r1, %r4;\n")
	default:
		fmt.Fprintf(&b, "\tmov.u32 %%r11, %d;\n", []int64{-7, 0, 1, 2, 3, 100, 65536, 0x7fffffff, -1}[r.Intn(9)])
	}
	fmt.Fprintf(&b, "\tmov.u32 %%r10, %d;\n", r.Intn(6))
	cmp := []string{"gt.s32", "gt.u32", "ne.s32", "ge.u32", "ge.s32"}[r.Intn(5)]
	b.WriteString("$L_head:\n")
	fmt.Fprintf(&b, "\tsetp.%s %%p2, %%r11, %%r10;\n\t@!%%p2 bra $L_exit;\n", cmp)
	switch r.Intn(6) {
	case 5:
		// The signed form through the 64-bit product (clang -O0 SASS).
		if m, sh, ok := magic(31); ok {
			fmt.Fprintf(&b, "\tmul.wide.s32 %%rd13, %%r11, %d;\n\tshr.u64 %%rd13, %%rd13, 32;\n\tcvt.u32.u64 %%r13, %%rd13;\n", m)
			if sh > 0 {
				fmt.Fprintf(&b, "\tshr.s32 %%r13, %%r13, %d;\n", sh)
			}
			b.WriteString("\tshr.u32 %r14, %r13, 31;\n\tadd.s32 %r11, %r13, %r14;\n")
		} else {
			fmt.Fprintf(&b, "\tdiv.s32 %%r11, %%r11, %d;\n", d)
		}
	case 0:
		fmt.Fprintf(&b, "\tdiv.u32 %%r11, %%r11, %d;\n", d)
	case 1:
		fmt.Fprintf(&b, "\tdiv.s32 %%r11, %%r11, %d;\n", d)
	case 2:
		if m, sh, ok := magic(32); ok {
			fmt.Fprintf(&b, "\tmul.hi.u32 %%r13, %%r11, %d;\n\tshr.u32 %%r11, %%r13, %d;\n", int32(uint32(m)), sh)
		} else {
			fmt.Fprintf(&b, "\tdiv.u32 %%r11, %%r11, %d;\n", d)
		}
	case 3:
		if m, sh, ok := magic(32); ok {
			fmt.Fprintf(&b, "\tmul.wide.u32 %%rd13, %%r11, %d;\n\tshr.u64 %%rd13, %%rd13, %d;\n\tcvt.u32.u64 %%r11, %%rd13;\n", int32(uint32(m)), 32+sh)
		} else {
			fmt.Fprintf(&b, "\tdiv.u32 %%r11, %%r11, %d;\n", d)
		}
	default:
		if m, sh, ok := magic(31); ok {
			fmt.Fprintf(&b, "\tmul.hi.s32 %%r13, %%r11, %d;\n", m)
			if sh > 0 {
				fmt.Fprintf(&b, "\tshr.s32 %%r13, %%r13, %d;\n", sh)
			}
			b.WriteString("\tshr.u32 %r14, %r13, 31;\n\tadd.s32 %r11, %r13, %r14;\n")
		} else {
			fmt.Fprintf(&b, "\tdiv.s32 %%r11, %%r11, %d;\n", d)
		}
	}
	b.WriteString("\tbra.uni $L_head;\n$L_exit:\n\tret;\n}\n")
	return b.String()
}

// randomGeoNestKernel writes a loop nest whose outer value doubles (or is
// shifted left by 1 or 2) while it is at most a launch value, and whose
// inner loop reads it: j = k >> 1 halved to 0 (a bitonic sort's steps), or
// j counting up to k. The inner bound rests on the range of the outer
// value (its start shifted up to N-1 times).
func randomGeoNestKernel(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(scalarKernelHead)
	lim := []string{"%r4", "%r1", "%r2"}[r.Intn(3)]
	sh := 1 + r.Intn(2)
	down := r.Intn(3) == 0 // for (k = L; k > 0; k >>= sh), as a tree reduction
	if down {
		fmt.Fprintf(&b, "\tmov.u32 %%r11, %s;\n$L_head:\n\tsetp.eq.s32 %%p1, %%r11, 0;\n\t@%%p1 bra $L_exit;\n", lim)
	} else {
		fmt.Fprintf(&b, "\tmov.u32 %%r11, %d;\n", []int{1, 2, 3, 0}[r.Intn(4)])
		cmp := []string{"le.u32", "lt.u32", "le.s32", "lt.s32"}[r.Intn(4)]
		b.WriteString("$L_head:\n")
		fmt.Fprintf(&b, "\tsetp.%s %%p1, %%r11, %s;\n\t@!%%p1 bra $L_exit;\n", cmp, lim)
	}
	if r.Intn(2) == 0 {
		b.WriteString("\tshr.u32 %r20, %r11, 1;\n$L_in:\n\tsetp.eq.s32 %p2, %r20, 0;\n\t@%p2 bra $L_inexit;\n\tshr.u32 %r20, %r20, 1;\n\tbra.uni $L_in;\n$L_inexit:\n")
	} else {
		b.WriteString("\tmov.u32 %r20, 0;\n$L_in:\n\tsetp.ge.u32 %p2, %r20, %r11;\n\t@%p2 bra $L_inexit;\n\tadd.s32 %r20, %r20, 1;\n\tbra.uni $L_in;\n$L_inexit:\n")
	}
	switch {
	case down:
		fmt.Fprintf(&b, "\tshr.u32 %%r11, %%r11, %d;\n", sh)
	case r.Intn(2) == 0:
		fmt.Fprintf(&b, "\tshl.b32 %%r11, %%r11, %d;\n", sh)
	default:
		fmt.Fprintf(&b, "\tmul.lo.s32 %%r11, %%r11, %d;\n", 1<<sh)
	}
	b.WriteString("\tbra.uni $L_head;\n$L_exit:\n\tret;\n}\n")
	return b.String()
}
