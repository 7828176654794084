package values

import (
	"fmt"
	"go/token"
	"math/rand"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/load"
)

// TestJoinMinMax: the words of a 64-bit minimum or maximum as ptxas
// writes it for sm_5x/sm_6x (IMNMX.XHI on the high words, writing the
// order to the condition code, then IMNMX.U32.XLO on the low words) read
// as one 64-bit value (joinMinMax), which must be the 64-bit min/max of
// the two parameters for random and extreme arguments (the joined value
// evaluated on the per-lane domain, against Go's min/max).
func TestJoinMinMax(t *testing.T) {
	rng := rand.New(rand.NewSource(61))
	vals := []int64{0, 1, -1, 1 << 32, -1 << 32, 1<<32 - 1, 1<<63 - 1, -1 << 63, 0x7fffffff, -0x80000000}
	for _, tc := range []struct {
		xhi string
		pt  string
		ref func(a, b int64) uint64
	}{
		{"IMNMX.XHI", "PT", func(a, b int64) uint64 { return uint64(min(a, b)) }},
		{"IMNMX.XHI", "!PT", func(a, b int64) uint64 { return uint64(max(a, b)) }},
		{"IMNMX.U32.XHI", "PT", func(a, b int64) uint64 { return min(uint64(a), uint64(b)) }},
		{"IMNMX.U32.XHI", "!PT", func(a, b int64) uint64 { return max(uint64(a), uint64(b)) }},
	} {
		body := []string{
			"MOV R2, c[0x0][0x140]", "MOV R3, c[0x0][0x144]", "MOV R4, c[0x0][0x148]", "MOV R5, c[0x0][0x14c]",
			fmt.Sprintf("%s R1.CC, R3, R5, %s", tc.xhi, tc.pt),
			fmt.Sprintf("IMNMX.U32.XLO R0, R2, R4, %s", tc.pt),
			"EXIT",
		}
		var b strings.Builder
		b.WriteString("\n\tcode for sm_52\n\t\tFunction : _Z1kxx\n\t.headerflags    @\"EF_CUDA_SM52 EF_CUDA_PTX_SM(EF_CUDA_SM52)\"\n")
		for k, line := range body {
			fmt.Fprintf(&b, "        /*%04x*/                   %s ;   /* 0x0000000000007802 */\n", 8+8*k+8*(k/3), line)
		}
		b.WriteString("\t\t..........\n")
		fset := token.NewFileSet()
		file, err := load.File(fset, "k.sass", []byte(b.String()), load.SASS)
		if err != nil {
			t.Fatal(err)
		}
		fn := file.Funcs[0]
		g, err := cfg.Build(fset, fn)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Build(g, Options{Dialect: file.Dialect, Arch: "sm_52"})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := f.Output(fn.Instrs[5], "R0"), f.Output(fn.Instrs[4], "R1")
		v := f.Pair(lo, hi)
		if v.Kind != VOp || v.Code == Or {
			t.Fatalf("%s/%s: the words %s, %s are not joined: %s", tc.xhi, tc.pt, lo, hi, v)
		}
		var cases [][2]int64
		for _, x := range vals {
			for _, y := range vals {
				cases = append(cases, [2]int64{x, y})
			}
		}
		for i := 0; i < 2000; i++ {
			x := int64(rng.Uint64())
			y := x
			switch i % 3 {
			case 0:
				y = int64(rng.Uint64())
			case 1:
				y = x&^0xffffffff | int64(rng.Uint32()) // the same high word
			default:
				y = x&0xffffffff | int64(rng.Uint32())<<32 // the same low word
			}
			cases = append(cases, [2]int64{x, y})
		}
		for _, c := range cases {
			env := &LaneEnv{Tid: [][3]uint64{{0, 0, 0}}, Args: map[string]int64{"_Z1kxx_param_0": c[0], "_Z1kxx_param_1": c[1]}}
			got := NewEvaluator[Lanes](LaneDomain{Env: env}).Eval(v)
			if len(got) != 1 || got[0] != tc.ref(c[0], c[1]) {
				t.Fatalf("%s/%s(%#x, %#x): the joined value %s gives %v, want %#x", tc.xhi, tc.pt, c[0], c[1], v, got, tc.ref(c[0], c[1]))
			}
		}
	}
}
