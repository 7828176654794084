package loops

import (
	"fmt"
	"go/token"
	"math/rand"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/sass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// randomPairLoopKernel writes an sm_80 kernel _Z1kii(int p0, int p1) with
// the 64-bit loop nvcc -O3 makes of `for (long long i = s; i < e; ++i)`
// unrolled by 4: s and e in register pairs (a sign-extended word, a
// 64-bit product, a sum with the carry, a 64-bit minimum as two SEL under
// one .EX comparison, a sum with a negative constant), a remainder loop
// of (e - s) & 3 iterations that the launch may skip (the pair of merge
// phis after it), then the main loop by 4 from the remainder's exit value
// (the pair of its header phis plus 1), and sometimes a third loop after
// it. Branches use {N}: the address of instruction N (sassKernel).
func randomPairLoopKernel(r *rand.Rand) string {
	var b []string
	emit := func(f string, a ...any) { b = append(b, fmt.Sprintf(f, a...)) }
	emit("S2R R11, SR_TID.X")
	// s = (R2, R3).
	switch r.Intn(3) {
	case 0: // sext(p0)
		emit("MOV R2, c[0x0][0x160]")
		emit("SHF.R.S32.HI R3, RZ, 0x1f, R2")
	case 1: // tid * p0, 64-bit signed product
		emit("IMAD.WIDE R2, R11, c[0x0][0x160], RZ")
	default: // p0 + tid as a 64-bit sum of sign-extended words
		emit("MOV R4, c[0x0][0x160]")
		emit("IADD3 R2, P0, R4, R11, RZ")
		emit("LEA.HI.X.SX32 R3, R4, RZ, 0x1, P0")
	}
	// e = (R0, R6): s + sext(p1), optionally min'ed with sext(p0 ^ k).
	emit("MOV R5, c[0x0][0x164]")
	emit("IADD3 R0, P0, R2, R5, RZ")
	emit("LEA.HI.X.SX32 R6, R5, R3, 0x1, P0")
	if r.Intn(2) == 0 {
		k := []int{0, 7, 100, -50}[r.Intn(4)]
		emit("IADD3 R8, R5, %#x, RZ", uint32(int32(k)))
		emit("SHF.R.S32.HI R9, RZ, 0x1f, R8")
		emit("ISETP.LT.U32.AND P0, PT, R0, R8, PT")
		emit("ISETP.LT.AND.EX P0, PT, R6, R9, PT, P0")
		emit("SEL R0, R0, R8, P0")
		emit("SEL R6, R6, R9, P0")
	}
	cmp := []string{"", ".U32"}[r.Intn(2)]
	emit("ISETP.GE.U32.AND P0, PT, R2, R0, PT")
	emit("ISETP.GE%s.AND.EX P0, PT, R3, R6, PT, P0", cmp)
	exitAt := len(b)
	emit("@P0 BRA {EXIT}")
	// Remainder: R10 = (e - s) & 3 iterations of i = (R7, R9) += 1.
	emit("IADD3 R10, R0, -R2, RZ")
	emit("LOP3.LUT R10, R10, 0x3, RZ, 0xc0, !PT")
	emit("MOV R7, R2")
	emit("MOV R9, R3")
	emit("ISETP.NE.AND P1, PT, R10, RZ, PT")
	skip := len(b)
	emit("@!P1 BRA {MAIN}")
	rem := len(b)
	emit("IADD3 R10, R10, -0x1, RZ")
	emit("IADD3 R7, P2, R7, 0x1, RZ")
	emit("IADD3.X R9, RZ, R9, RZ, P2, !PT")
	emit("ISETP.NE.AND P1, PT, R10, RZ, PT")
	emit("@P1 BRA {%d}", rem)
	// Main: while i < e - c (c = 3, or 12 with a step of 16), i += step.
	main := len(b)
	step, c := 4, 3
	if r.Intn(3) == 0 {
		step, c = 16, 12
	}
	emit("IADD3 R12, P3, R0, -%#x, RZ", c)
	emit("IADD3.X R13, R6, -0x1, RZ, P3, !PT")
	emit("ISETP.GE.U32.AND P0, PT, R7, R12, PT")
	emit("ISETP.GE%s.AND.EX P0, PT, R9, R13, PT, P0", cmp)
	emit("@P0 BRA {AFTER}")
	loop := len(b)
	emit("IADD3 R7, P2, R7, %#x, RZ", step)
	emit("IADD3.X R9, RZ, R9, RZ, P2, !PT")
	emit("ISETP.LT.U32.AND P0, PT, R7, R12, PT")
	emit("ISETP.LT%s.AND.EX P0, PT, R9, R13, PT, P0", cmp)
	emit("@P0 BRA {%d}", loop)
	after := len(b)
	if r.Intn(2) == 0 {
		// A third loop from the main loop's exit value up to e.
		emit("ISETP.GE.U32.AND P0, PT, R7, R0, PT")
		emit("ISETP.GE%s.AND.EX P0, PT, R9, R6, PT, P0", cmp)
		emit("@P0 BRA {EXIT}")
		third := len(b)
		emit("IADD3 R7, P2, R7, 0x1, RZ")
		emit("IADD3.X R9, RZ, R9, RZ, P2, !PT")
		emit("ISETP.LT.U32.AND P0, PT, R7, R0, PT")
		emit("ISETP.LT%s.AND.EX P0, PT, R9, R6, PT, P0", cmp)
		emit("@P0 BRA {%d}", third)
	}
	exit := len(b)
	emit("EXIT")
	_ = exitAt
	_ = skip
	s := strings.Join(b, "\n")
	s = strings.ReplaceAll(s, "{EXIT}", fmt.Sprintf("{%d}", exit))
	s = strings.ReplaceAll(s, "{MAIN}", fmt.Sprintf("{%d}", main))
	s = strings.ReplaceAll(s, "{AFTER}", fmt.Sprintf("{%d}", after))
	return s
}

// TestPairLoopsSound checks the 64-bit readings of register pairs (the
// pair rules of values.simplify, the ranges of pairs of phis of
// pairPhiRange) against executions: random kernels of
// randomPairLoopKernel, for random launches and arguments (p0, p1 near 0,
// where a high word is 0 or -1, and anywhere), are run thread by thread on
// their decoded SASS semantics, and each loop's header executions per
// entry must not exceed its derived bound.
func TestPairLoopsSound(t *testing.T) {
	kernels := 200
	if *longSound {
		kernels = 40000
	}
	if testing.Short() {
		kernels = 60
	}
	r := rand.New(rand.NewSource(64))
	checked, derived, loopsSeen := 0, 0, 0
	for kn := 0; kn < kernels; kn++ {
		body := randomPairLoopKernel(r)
		f, err := sass.ParseFile(token.NewFileSet(), "pair.sass", sassKernel(body), 0)
		if err != nil {
			t.Fatalf("%v\n%s", err, body)
		}
		g, err := cfg.Build(f.Fset, f.Funcs[0])
		if err != nil {
			t.Fatal(err)
		}
		vf, err := values.Build(g, values.Options{Dialect: f.Dialect, Arch: f.Target})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range g.Func.Instrs {
			if s := values.DecodeSASSArch(in, 80); s.Opaque != "" && in.Kind != isa.KindBranch && in.Kind != isa.KindExit {
				t.Fatalf("%s: not modelled: %s", in.Text, s.Opaque)
			}
		}
		ex := newSASSExecutor(g, "sm_80")
		for li := 0; li < 8; li++ {
			arg := func() int64 {
				switch r.Intn(3) {
				case 0:
					return int64(r.Intn(41) - 20)
				case 1:
					return int64(r.Intn(2001) - 1000)
				}
				return int64(int32(r.Uint32()))
			}
			l := pass.Launch{Block: [3]int{1 + r.Intn(64), 1, 1}, Grid: [3]int{1, 1, 1},
				Args: map[string]int64{"_Z1kii_param_0": arg(), "_Z1kii_param_1": arg()}}
			res, err := ComputeValues(vf, l, nil, "")
			if err != nil {
				t.Fatalf("%v\n%s", err, body)
			}
			for _, tid := range []uint64{0, uint64(l.Block[0] - 1), uint64(r.Intn(l.Block[0]))} {
				counts, capped := ex.run(l, [3]uint64{tid, 0, 0}, 0)
				for i, lb := range res.Loops {
					loopsSeen++
					if lb.Bound == nil {
						continue
					}
					derived++
					if capped[i] && lb.Bound.Max <= maxSteps || counts[i] > lb.Bound.Max {
						t.Fatalf("UNSOUND: loop %d: %d header executions in one entry (capped %v), derived bound %d = %s\nlaunch %+v, tid %d\n%s",
							i, counts[i], capped[i], lb.Bound.Max, lb.Bound.Expr, l, tid, body)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d kernels: %d loop entries, %d with a derived bound, checked against executions", kernels, loopsSeen, checked)
	if derived*2 < loopsSeen {
		t.Errorf("only %d of %d loops derived: the test no longer exercises the pair readings", derived, loopsSeen)
	}
}
