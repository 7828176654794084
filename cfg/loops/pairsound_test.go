package loops

import (
	"fmt"
	"go/token"
	"math/rand"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// TestDerivationSoundSASSPairs is the soundness property test of the
// derivation on SASS register pairs: random kernels k(long long, int) with
// a 64-bit induction value in R4:R5 (zero, the thread's global index, or
// the 64-bit argument), stepped by a constant, the 64-bit grid stride
// (IMAD.WIDE.U32), twice (unrolled), or by a three-operand IADD3 with two
// carries (sm_80: predicates; sm_52: the condition code's CF and OF), and
// compared with a 64-bit limit (the sign-extended int, the 64-bit
// argument, a constant) by a .EX / .X chain, signed or not, run
// concretely thread by thread on the decoded semantics (values.Apply on
// DecodeSASSArch's nodes: no value graph, no derivation) for random
// launches; every derived bound must be at least the number of header
// executions of the loop. 2·10^4 cases (10^6 with -long).
func TestDerivationSoundSASSPairs(t *testing.T) {
	cases := 20000
	if *longSound {
		cases = 1000000
	}
	if testing.Short() {
		cases = 2000
	}
	r := rand.New(rand.NewSource(13))
	done, checked := 0, 0
	shapes := map[string]int{}
	for done < cases {
		arch := []string{"sm_80", "sm_52"}[r.Intn(2)]
		src, shape := randomPairKernel(r, arch)
		fset := token.NewFileSet()
		file, err := load.File(fset, "k.sass", src, load.SASS)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		g, err := cfg.Build(fset, file.Funcs[0])
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		vf, err := values.Build(g, values.Options{Dialect: isa.DialectSASS, Arch: arch})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Loops) != 1 {
			t.Fatalf("%d loops\n%s", len(g.Loops), src)
		}
		ex := newSASSExecutor(g, arch)
		for k := 0; k < 20 && done < cases; k++ {
			l := randomLaunch(r)
			big := []int64{0, 1, -1, 5, 1 << 32, 1<<32 - 3, -(1 << 32), 1<<62 + 7, -1 << 63, int64(r.Intn(3000)), -int64(r.Intn(3000))}
			l.Args = map[string]int64{"_Z1kxi_param_0": big[r.Intn(len(big))], "_Z1kxi_param_1": l.Args["k_param_0"]}
			res, err := ComputeValues(vf, l, nil, "")
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			lb := res.Loops[0]
			if lb.Bound == nil {
				continue
			}
			shapes[shape]++
			for _, tid := range [][3]uint64{{0, 0, 0}, {uint64(l.Block[0] - 1), 0, 0}, {uint64(r.Intn(l.Block[0])), 0, 0}} {
				done++
				ctaid := uint64(r.Intn(l.Grid[0]))
				counts, capped := ex.run(l, tid, ctaid)
				if capped[0] && lb.Bound.Max <= maxSteps || counts[0] > lb.Bound.Max {
					t.Fatalf("UNSOUND: %d header executions (capped %v), derived bound %d = %s (%s)\nlaunch %+v, tid %v, ctaid %d\n%s",
						counts[0], capped[0], lb.Bound.Max, lb.Bound.Expr, lb.Bound.Why, l, tid, ctaid, src)
				}
				checked++
			}
		}
	}
	t.Logf("%d cases, %d bounds checked; kernels bounded by shape: %v", done, checked, shapes)
	for _, s := range []string{"sm_80 step3", "sm_52 step3", "sm_80 stride", "sm_80 twice", "sm_52 twice"} {
		if shapes[s] == 0 {
			t.Errorf("no %s kernel was bounded", s)
		}
	}
}

// randomPairKernel writes a cuobjdump listing of k(long long, int) for
// arch with one rotated, guarded loop over the 64-bit value R4:R5, and
// names the shape of its step.
func randomPairKernel(r *rand.Rand, arch string) ([]byte, string) {
	sm80 := arch == "sm_80"
	// Constant-bank words: ntid.x, nctaid.x, the two arguments.
	ntid, nctaid, p0, p1 := "c[0x0][0x0]", "c[0x0][0xc]", 0x160, 0x168
	if !sm80 {
		ntid, nctaid, p0, p1 = "c[0x0][0x8]", "c[0x0][0x14]", 0x140, 0x148
	}
	var pre []string
	pre = append(pre, "S2R R0, SR_TID.X", "S2R R2, SR_CTAID.X", "MOV R12, RZ")
	// The start.
	startArg := false
	switch r.Intn(3) {
	case 0:
		pre = append(pre, "MOV R4, RZ", "MOV R5, RZ")
	case 1:
		if sm80 {
			pre = append(pre, "MOV R1, RZ", fmt.Sprintf("IMAD.WIDE.U32 R4, R2, %s, R0", ntid))
		} else {
			pre = append(pre, "MOV R4, R0", "MOV R5, RZ")
		}
	default:
		startArg = true
		pre = append(pre, fmt.Sprintf("MOV R4, c[0x0][0x%x]", p0), fmt.Sprintf("MOV R5, c[0x0][0x%x]", p0+4))
	}
	// The limit.
	switch k := r.Intn(3); {
	case k == 0 || k == 1 && startArg:
		pre = append(pre, fmt.Sprintf("MOV R10, c[0x0][0x%x]", p1))
		if sm80 {
			pre = append(pre, "SHF.R.S32.HI R11, RZ, 0x1f, R10")
		} else {
			pre = append(pre, "SHR R11, R10, 0x1f")
		}
	case k == 1:
		pre = append(pre, fmt.Sprintf("MOV R10, c[0x0][0x%x]", p0), fmt.Sprintf("MOV R11, c[0x0][0x%x]", p0+4))
	default:
		pre = append(pre, fmt.Sprintf("MOV R10, 0x%x", r.Intn(300)), "MOV R11, RZ")
	}
	// The step's 64-bit amount in R6:R7.
	if sm80 && r.Intn(2) == 0 {
		pre = append(pre, fmt.Sprintf("MOV R8, %s", ntid), fmt.Sprintf("IMAD.WIDE.U32 R6, R8, %s, RZ", nctaid))
	} else if r.Intn(2) == 0 {
		pre = append(pre, fmt.Sprintf("MOV R6, %s", ntid), "MOV R7, RZ")
	} else {
		pre = append(pre, fmt.Sprintf("MOV R6, 0x%x", []int{1, 2, 3, 4, 7}[r.Intn(5)]), "MOV R7, RZ")
	}
	if strings.Contains(strings.Join(pre, "\n"), "IMAD.WIDE.U32 R6") {
		defer func() {}()
	}
	// The comparison R4:R5 >= R10:R11, signed or not, into P2.
	u := []string{"", ".U32"}[r.Intn(2)]
	cmp := func() []string {
		if sm80 {
			return []string{"ISETP.GE.U32.AND P2, PT, R4, R10, PT", "ISETP.GE" + u + ".AND.EX P2, PT, R5, R11, PT, P2"}
		}
		return []string{"IADD RZ.CC, R4, -R10", "ISETP.GE" + u + ".X.AND P2, PT, R5, R11, PT"}
	}
	one := func() []string {
		if sm80 {
			return []string{"IADD3 R4, P0, R4, R6, RZ", "IADD3.X R5, R5, R7, RZ, P0, !PT"}
		}
		return []string{"IADD R4.CC, R4, R6", "IADD.X R5, R5, R7"}
	}
	var step []string
	shape := ""
	switch r.Intn(3) {
	case 0:
		step, shape = one(), "one"
		if strings.Contains(strings.Join(pre, "\n"), "IMAD.WIDE.U32 R6") {
			shape = "stride"
		}
	case 1:
		step, shape = append(one(), one()...), "twice"
	default:
		shape = "step3"
		if sm80 {
			step = []string{"IADD3 R4, P0, P1, R6, R4, R6", "IADD3.X R5, R7, R5, R7, P0, P1"}
		} else {
			step = []string{"IADD3 R4.CC, R6, R4, R6", "IADD3.X R5, R7, R5, R7"}
		}
	}
	var body []string
	body = append(body, pre...)
	body = append(body, cmp()...)
	guard := len(body)
	body = append(body, "@P2 BRA {END}")
	header := len(body)
	body = append(body, "IADD3 R12, R12, 0x1, RZ")
	if !sm80 {
		body[header] = "IADD32I R12, R12, 0x1"
	}
	body = append(body, step...)
	body = append(body, cmp()...)
	body = append(body, fmt.Sprintf("@!P2 BRA {%d}", header))
	end := len(body)
	body = append(body, "EXIT")
	_ = guard
	var b strings.Builder
	if sm80 {
		b.WriteString("\n\tcode for sm_80\n\t\tFunction : _Z1kxi\n\t.headerflags    @\"EF_CUDA_SM80 EF_CUDA_PTX_SM(EF_CUDA_SM80)\"\n")
	} else {
		b.WriteString("\n\tcode for sm_52\n\t\tFunction : _Z1kxi\n\t.headerflags    @\"EF_CUDA_SM52 EF_CUDA_PTX_SM(EF_CUDA_SM52)\"\n")
	}
	addr := func(k int) int {
		if sm80 {
			return 16 * k
		}
		return 8 + 8*k + 8*(k/3)
	}
	for k, line := range body {
		line = strings.ReplaceAll(line, "{END}", fmt.Sprintf("0x%x", addr(end)))
		line = sassTargetRE.ReplaceAllStringFunc(line, func(s string) string {
			var n int
			fmt.Sscanf(s, "{%d}", &n)
			return fmt.Sprintf("0x%x", addr(n))
		})
		fmt.Fprintf(&b, "        /*%04x*/                   %s ;   /* 0x0000000000007802 */\n", addr(k), line)
		if sm80 {
			b.WriteString("                                                          /* 0x000fe20000000f00 */\n")
		}
	}
	b.WriteString("\t\t..........\n")
	return []byte(b.String()), arch + " " + shape
}

// TestOrderedCeilOverflow: the count ceil(D / s) of an ordered exit test
// was computed as (D + s - 1) / s, which wraps when D is near 2^63: a
// 64-bit index from the argument -2^63 stepped by 2·ntid.x up to 196 got
// a negative count, read as the bound 0 (TestDerivationSoundSASSPairs
// found it). The bound must be ceil((2^63 - 58) / 254) + 1.
func TestOrderedCeilOverflow(t *testing.T) {
	body := []string{"S2R R0, SR_TID.X", "MOV R4, c[0x0][0x140]", "MOV R5, c[0x0][0x144]", "MOV R10, 0xc4", "MOV R11, RZ",
		"MOV R6, c[0x0][0x8]", "MOV R7, RZ", "IADD RZ.CC, R4, -R10", "ISETP.GE.X.AND P2, PT, R5, R11, PT", "@P2 BRA 0xc8",
		"IADD32I R12, R12, 0x1", "IADD R4.CC, R4, R6", "IADD.X R5, R5, R7", "IADD R4.CC, R4, R6", "IADD.X R5, R5, R7",
		"IADD RZ.CC, R4, -R10", "ISETP.GE.X.AND P2, PT, R5, R11, PT", "@!P2 BRA 0x70", "EXIT"}
	var b strings.Builder
	b.WriteString("\n\tcode for sm_52\n\t\tFunction : _Z1kxi\n\t.headerflags    @\"EF_CUDA_SM52 EF_CUDA_PTX_SM(EF_CUDA_SM52)\"\n")
	for k, line := range body {
		fmt.Fprintf(&b, "        /*%04x*/                   %s ;   /* 0x0000000000007802 */\n", 8+8*k+8*(k/3), line)
	}
	b.WriteString("\t\t..........\n")
	fset := token.NewFileSet()
	file, err := load.File(fset, "k.sass", []byte(b.String()), load.SASS)
	if err != nil {
		t.Fatal(err)
	}
	g, err := cfg.Build(fset, file.Funcs[0])
	if err != nil {
		t.Fatal(err)
	}
	vf, err := values.Build(g, values.Options{Dialect: isa.DialectSASS, Arch: "sm_52"})
	if err != nil {
		t.Fatal(err)
	}
	l := pass.Launch{Block: [3]int{127, 1, 1}, Grid: [3]int{4, 1, 1}, Args: map[string]int64{"_Z1kxi_param_0": -1 << 63, "_Z1kxi_param_1": 7}}
	res, err := ComputeValues(vf, l, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	want := int64((1<<63-59)/254 + 1 + 1)
	if lb := res.Loops[0]; lb.Bound == nil || lb.Bound.Max < want {
		t.Fatalf("bound %+v, want at least %d (%s)", lb.Bound, want, lb.Why)
	}
}

// TestGuardedCountDown runs nvcc 11.8 -O3's reduce_argmin (testdata
// kernel corpus, PTX for sm_62 and sm_87) concretely for random launches:
// its 64-bit grid-stride loop is entered under gid < n and counted down
// from ((n - 1 - gid) / stride + 1) rounded down to a multiple of 4,
// n - 1 - gid computed from tid another way ((nctaid + ctaid)·ntid + tid);
// its bound needs the guard carried to tid (evaluator.refine). Every loop's
// derived bound must be at least its header executions in every thread
// run (the first, the last, a random one, in a random block), at
// launches where n is below, near and above the grid's threads, and
// negative.
func TestGuardedCountDown(t *testing.T) {
	for _, arch := range []string{"sm_62", "sm_87"} {
		src := readFile(t, "../../testdata/kernels/listings/nvcc-O3-"+arch+"/reduce.ptx")
		_, gs := graphs(t, "reduce.ptx", src)
		var g *cfg.Graph
		for _, x := range gs {
			if x.Func.Name == "_Z13reduce_argminPKfPfPxx" {
				g = x
			}
		}
		if g == nil {
			t.Fatal("no reduce_argmin")
		}
		vf, err := values.Build(g, values.Options{Dialect: isa.DialectPTX})
		if err != nil {
			t.Fatal(err)
		}
		ex := newExecutor(g)
		// The count-down loop: the one stepping a register by -4.
		down := -1
		for i, lp := range g.Loops {
			for _, b := range g.Blocks {
				if lp.Contains(b) {
					for _, in := range b.Instrs {
						if strings.HasPrefix(in.Text, "add.s64") && strings.Contains(in.Text, ", -4") {
							down = i
						}
					}
				}
			}
		}
		if down < 0 {
			t.Fatalf("%s: no count-down loop", arch)
		}
		r := rand.New(rand.NewSource(17))
		checked, countDown := 0, 0
		for k := 0; k < 400; k++ {
			l := pass.Launch{Block: [3]int{1 + r.Intn(256), 1, 1}, Grid: [3]int{1 + r.Intn(6), 1, 1}}
			threads := int64(l.Block[0] * l.Grid[0])
			n := []int64{int64(r.Intn(int(threads) + 2)), threads*int64(1+r.Intn(200)) + int64(r.Intn(9)) - 4, -int64(r.Intn(100)), 0, 1}[r.Intn(5)]
			l.Args = map[string]int64{"_Z13reduce_argminPKfPfPxx_param_3": n}
			res, err := ComputeValues(vf, l, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, tid := range []uint64{0, uint64(l.Block[0] - 1), uint64(r.Intn(l.Block[0]))} {
				ctaid := uint64(r.Intn(l.Grid[0]))
				counts, capped := ex.run(l, [3]uint64{tid, 0, 0}, ctaid)
				for i, lb := range res.Loops {
					if lb.Bound == nil {
						t.Fatalf("%s: loop %d not bounded at n=%d %+v: %s", arch, i, n, l, lb.Why)
					}
					if capped[i] && lb.Bound.Max <= maxSteps || counts[i] > lb.Bound.Max {
						t.Fatalf("UNSOUND %s: loop %d (line %d): %d header executions (capped %v), bound %d = %s\nlaunch %+v n=%d tid %d ctaid %d",
							arch, i, lb.Key.Line, counts[i], capped[i], lb.Bound.Max, lb.Bound.Expr, l, n, tid, ctaid)
					}
					if counts[i] > 1 && i == down {
						countDown++
					}
					checked++
				}
			}
		}
		t.Logf("%s: %d bounds checked, %d runs through the count-down loop", arch, checked, countDown)
		if countDown == 0 {
			t.Errorf("%s: no run went round the count-down loop", arch)
		}
	}
}
