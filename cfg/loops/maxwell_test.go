package loops

import (
	"fmt"
	"go/token"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/sass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// sassKernelMaxwell writes a cuobjdump listing for arch (sm_5x, sm_6x: one
// instruction word a line, a control word before each group of three) of
// function k(int, int); {N} is the address of instruction N.
func sassKernelMaxwell(arch, body string) []byte {
	var b strings.Builder
	up := strings.ToUpper(arch)
	fmt.Fprintf(&b, "\n\tcode for %s\n\t\tFunction : _Z1kii\n\t.headerflags    @\"EF_CUDA_%s EF_CUDA_PTX_SM(EF_CUDA_%s)\"\n", arch, strings.ReplaceAll(up, "_", ""), strings.ReplaceAll(up, "_", ""))
	n := 0
	addr := func(k int) int { return 8 * (k + k/3 + 1) }
	lines := strings.Split(strings.TrimSpace(body), "\n")
	for len(lines)%3 != 0 {
		lines = append(lines, "NOP") // the last control word's group
	}
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		line = sassTargetRE.ReplaceAllStringFunc(line, func(s string) string {
			var k int
			fmt.Sscanf(s, "{%d}", &k)
			return fmt.Sprintf("0x%x", addr(k))
		})
		if n%3 == 0 {
			b.WriteString("                                                          /* 0x001fc400fe2007f6 */\n")
		}
		fmt.Fprintf(&b, "        /*%04x*/                   %s ;   /* 0x5c98078000070000 */\n", addr(n), line)
		n++
	}
	b.WriteString("\t\t..........\n")
	return []byte(b.String())
}

// maxwellBound derives the bound of the one loop of a Maxwell/Pascal
// listing of _Z1kii (sassKernelMaxwell) at a launch with the arguments
// args.
func maxwellBound(t *testing.T, arch, body string, args map[string]int64) *LoopBound {
	t.Helper()
	f, err := sass.ParseFile(token.NewFileSet(), arch+".sass", sassKernelMaxwell(arch, body), 0)
	if err != nil {
		t.Fatalf("parse: %v", err)
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
	l := pass.Launch{Block: [3]int{64, 1, 1}, Grid: [3]int{4, 1, 1}, Args: args}
	r, err := ComputeValues(vf, l, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return r.Loops[0]
}

// wantMax fails unless lb is a bound of max.
func wantMax(t *testing.T, lb *LoopBound, max int64) {
	t.Helper()
	if lb.Bound == nil {
		t.Fatalf("unbounded: %s", lb.Why)
	}
	if lb.Bound.Max != max {
		t.Errorf("bound %d = %s, want %d (%s)", lb.Bound.Max, lb.Bound.Expr, max, lb.Bound.Why)
	}
}

// TestDeriveSASSMaxwellFrame: clang -O0 code for sm_5x/sm_6x keeps its
// variables in the local frame and reaches them through generic addresses:
// the stack pointer c[0x0][0x20], the local window's generic address
// (sm_50 … sm_53: window | a with the window's one word at c[0x0][0x4];
// sm_60 … sm_62: window + a, its words at c[0x0][0x4] and c[0x0][0x104]),
// the 64-bit address copied through LEA R.CC / LEA.HI.X P (shift left out),
// and LD.E/ST.E with the predicate LEA.HI.X wrote (ptxas's forms, from
// ptxas -O0 of ld/st through cvta.local). The counter is a frame cell.
func TestDeriveSASSMaxwellFrame(t *testing.T) {
	window := map[string]string{
		"sm_52": `
			MOV R5, c[0x0][0x4]
			MOV R6, RZ
			LOP.OR R5, R0, R5
			LOP.OR R6, R2, R6`,
		"sm_61": `
			MOV R5, c[0x0][0x4]
			MOV R6, c[0x0][0x104]
			IADD R5.CC, R0, R5
			IADD.X R6, R2, R6`,
	}
	for _, arch := range []string{"sm_52", "sm_61"} {
		t.Run(arch, func(t *testing.T) {
			body := `
			MOV R1, c[0x0][0x20]
			IADD32I R1, R1, -0x10
			IADD R0, R1, RZ
			MOV R2, RZ` + window[arch] + `
			IADD32I R3.CC, R5, 0x4
			IADD.X R4, R6, RZ
			LEA R2.CC, R3, RZ
			LEA.HI.X P0, R3, R3, RZ, R4
			ST.E [R2], RZ, P0
			IADD32I R3.CC, R5, 0x4
			IADD.X R4, R6, RZ
			LEA R2.CC, R3, RZ
			LEA.HI.X P0, R3, R3, RZ, R4
			LD.E R0, [R2], P0
			IADD32I R0, R0, 0x1
			ST.E [R2], R0, P0
			ISETP.LT.AND P1, PT, R0, c[0x0][0x144], PT
			@P1 BRA {13}
			EXIT`
			wantMax(t, maxwellBound(t, arch, body, map[string]int64{"_Z1kii_param_1": 7}), 7)
		})
	}
}

// TestDeriveSASSXorSwap: a value moved through a swap by xor (clang -O0
// sm_52 moves 64-bit induction values between register pairs this way) is
// the value itself: s ^ (i ^ s) = i.
func TestDeriveSASSXorSwap(t *testing.T) {
	body := `
			MOV R0, RZ
			MOV R2, c[0x0][0x144]
			LOP.XOR R4, R0, R2
			LOP.XOR R6, R2, R4
			IADD32I R0, R6, 0x1
			ISETP.LT.AND P0, PT, R0, 0xa, PT
			@P0 BRA {2}
			EXIT`
	wantMax(t, maxwellBound(t, "sm_52", body, map[string]int64{"_Z1kii_param_1": 12345}), 10)
}

// TestDeriveSASSPascalCountDown64: a 64-bit count-down in a register pair
// (IADD32I .CC / IADD32I.X), left when the pair is 0: IADD RZ.CC, -RZ, lo
// sets the zero flag of the low word, ISETP.NE.X compares the high word
// with it (nvcc -O3 sm_62). The equality of the pairs does not say which
// word is the high one: the reading that is a recurrence is taken.
func TestDeriveSASSPascalCountDown64(t *testing.T) {
	body := `
			MOV R15, c[0x0][0x140]
			MOV R16, RZ
			IADD32I R15.CC, R15, -0x1
			IADD32I.X R16, R16, -0x1
			IADD RZ.CC, -RZ, R15
			ISETP.NE.X.AND P0, PT, R16, RZ, PT
			@P0 BRA {2}
			EXIT`
	wantMax(t, maxwellBound(t, "sm_61", body, map[string]int64{"_Z1kii_param_0": 7}), 7)
}
