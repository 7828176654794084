package release

import (
	"fmt"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/sass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

var targetRE = regexp.MustCompile(`\{(\d+)\}`)

// sm62Kernel writes a cuobjdump sm_62 listing of extern "C" k with one
// instruction per line of body at 0x0, 0x10, ...; {N} is the address of
// instruction N.
func sm62Kernel(body string) []byte {
	var b strings.Builder
	b.WriteString("\n\tcode for sm_62\n\t\tFunction : k\n\t.headerflags    @\"EF_CUDA_SM62 EF_CUDA_PTX_SM(EF_CUDA_SM62)\"\n")
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		line = targetRE.ReplaceAllStringFunc(line, func(s string) string {
			k, _ := strconv.Atoi(s[1 : len(s)-1])
			return fmt.Sprintf("0x%x", 16*k)
		})
		fmt.Fprintf(&b, "        /*%04x*/                   %s ;   /* 0x0000000000007802 */\n", 16*n, line)
		n++
	}
	b.WriteString("\t\t..........\n")
	return []byte(b.String())
}

// TestSplitReadOf: the retry loop of a split timer read is recognised only
// when every retry saw the high words differ; the spin loop around it is a
// release point on high:low only then.
func TestSplitReadOf(t *testing.T) {
	const spin = `
MOV R4, RZ
CS2R R0, SR_GLOBALTIMERHI
CS2R R5, SR_GLOBALTIMERLO
CS2R R3, SR_GLOBALTIMERHI
ISETP.NE.U32.AND P0, PT, R0, R3, PT
@!P0 BRA {9}
IADD32I R4, R4, 0x1
ISETP.GE.U32.AND P0, PT, R4, c[0x0][0x10c], PT
@!P0 BRA {1}
IADD RZ.CC, R5, -c[0x0][0x148]
ISETP.GE.U32.X.AND P0, PT, R3, c[0x0][0x14c], PT
@!P0 BRA {0}
BAR.SYNC 0x0
EXIT
`
	for _, tc := range []struct {
		name, body string
		split      string // SplitReadOf of the inner loop: "yes" or the reason's start
		release    string // OfValues of the outer loop: "spins until ..." or the reason's start
	}{
		{"ok", spin, "yes", "spins until %globaltimer >= c[0x0][0x148]:c[0x0][0x14c]"},
		{"retry-when-equal", strings.Replace(spin, "ISETP.NE.U32.AND P0, PT, R0, R3", "ISETP.EQ.U32.AND P0, PT, R0, R3", 1),
			"its branch \"@!P0 BRA 0x90\" does not leave the loop when the high words agree", "\"CS2R R0, SR_GLOBALTIMERHI\" reads a 32-bit word"},
		{"low-high-high", strings.Replace(strings.Replace(spin, "CS2R R0, SR_GLOBALTIMERHI", "CS2R R0, SR_GLOBALTIMERLO", 1), "CS2R R5, SR_GLOBALTIMERLO", "CS2R R5, SR_GLOBALTIMERHI", 1),
			"it reads the timer words globaltimer_lo, globaltimer_hi, globaltimer_hi", "\"CS2R R0, SR_GLOBALTIMERLO\" reads a 32-bit word"},
		{"mixed-counters", strings.Replace(spin, "CS2R R5, SR_GLOBALTIMERLO", "CS2R R5, SR_CLOCKLO", 1),
			"it reads the timer words globaltimer_hi, clock, globaltimer_hi", "\"CS2R R0, SR_GLOBALTIMERHI\" reads a 32-bit word"},
		{"compares-low", strings.Replace(spin, "ISETP.NE.U32.AND P0, PT, R0, R3", "ISETP.NE.U32.AND P0, PT, R0, R5", 1),
			"its branch \"@!P0 BRA 0x90\" does not compare the two high words", "\"CS2R R0, SR_GLOBALTIMERHI\" reads a 32-bit word"},
		// A retry that skips the check: the branch at {1} jumps past it
		// straight to the counter.
		{"skips-check", `
MOV R4, RZ
@P1 BRA {7}
CS2R R0, SR_GLOBALTIMERHI
CS2R R5, SR_GLOBALTIMERLO
CS2R R3, SR_GLOBALTIMERHI
ISETP.NE.U32.AND P0, PT, R0, R3, PT
@!P0 BRA {10}
IADD32I R4, R4, 0x1
ISETP.GE.U32.AND P0, PT, R4, c[0x0][0x10c], PT
@!P0 BRA {1}
IADD RZ.CC, R5, -c[0x0][0x148]
ISETP.GE.U32.X.AND P0, PT, R3, c[0x0][0x14c], PT
@!P0 BRA {0}
BAR.SYNC 0x0
EXIT
`, "a retry can skip the comparison of the high words", "\"CS2R R0, SR_GLOBALTIMERHI\" reads a 32-bit word of the timer (it wraps) in an inner loop that is not a split 64-bit read: a retry can skip"},
		{"store-in-retry", strings.Replace(spin, "IADD32I R4, R4, 0x1", "STG.E [R4], R0", 1),
			"its body has a store instruction", "its body has a store instruction"},
	} {
		fset := token.NewFileSet()
		f, err := sass.ParseFile(fset, tc.name+".sass", sm62Kernel(tc.body), 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		g, err := cfg.Build(fset, f.Funcs[0])
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		vf, err := values.Build(g, values.Options{Arch: "sm_62"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var inner, outer *cfg.Loop
		for _, l := range g.Loops {
			switch l.Depth {
			case 1:
				outer = l
			case 2:
				inner = l
			}
		}
		if inner == nil || outer == nil {
			t.Fatalf("%s: loops %v", tc.name, g.Loops)
		}
		s, why := SplitReadOf(vf, inner)
		got := "yes"
		if s == nil {
			got = why
		}
		if !strings.HasPrefix(got, tc.split) {
			t.Errorf("%s: SplitReadOf = %q, want %q…", tc.name, got, tc.split)
		}
		p, why := OfValues(vf, outer)
		got = why
		if p != nil {
			got = p.String()
		}
		if !strings.HasPrefix(got, tc.release) {
			t.Errorf("%s: OfValues = %q, want %q…", tc.name, got, tc.release)
		}
	}
}
