package loops

import (
	"fmt"
	"go/token"
	"math/rand"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// TestGeometricSound: loops halving a value (shr.s32, shr.u32, div.s32
// and div.u32 by 2 or 4, clang's and nvcc's forms) from an argument that
// may be negative, tested with >, >= or != against a small limit, top
// tested or rotated, run concretely for random arguments: every derived
// bound is at least the header executions. Negative starts are bounded
// only where they never stay (arithmetic halving, signed test, x > L >= 0
// or x >= L >= 1).
func TestGeometricSound(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	derivedNeg := 0
	for i := 0; i < 400; i++ {
		step := []string{"shr.s32 %r2, %r2, 1", "shr.u32 %r2, %r2, 1", "div.s32 %r2, %r2, 2", "div.s32 %r2, %r2, 4", "div.u32 %r2, %r2, 2", "shr.s32 %r2, %r2, 2"}[r.Intn(6)]
		cmp := []string{"gt", "ge", "ne"}[r.Intn(3)]
		ty := []string{"s32", "u32"}[r.Intn(2)]
		lim := []int{0, 1, 2, -1, 3}[r.Intn(5)]
		rotated := r.Intn(2) == 0
		var body string
		if rotated {
			body = fmt.Sprintf("$L_head:\n\t%s;\n\tsetp.%s.%s %%p1, %%r2, %d;\n\t@%%p1 bra $L_head;\n", step, cmp, ty, lim)
		} else {
			body = fmt.Sprintf("$L_head:\n\tsetp.%s.%s %%p1, %%r2, %d;\n\t@!%%p1 bra $L_exit;\n\t%s;\n\tbra.uni $L_head;\n", cmp, ty, lim, step)
		}
		src := `.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_param_0, .param .u32 k_param_1, .param .u64 k_param_2)
{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	ld.param.u32 %r2, [k_param_0];
` + body + `$L_exit:
	ret;
}
`
		fset := token.NewFileSet()
		file, err := ptx.ParseFile(fset, "geo.ptx", []byte(src), 0)
		if err != nil {
			t.Fatal(err)
		}
		g, err := cfg.Build(fset, file.Funcs[0])
		if err != nil {
			t.Fatal(err)
		}
		vf, err := values.Build(g, values.Options{Dialect: isa.DialectPTX})
		if err != nil {
			t.Fatal(err)
		}
		ex := newExecutor(g)
		for k := 0; k < 25; k++ {
			n := []int64{int64(r.Intn(100)) - 50, -int64(r.Intn(1 << 30)), int64(r.Intn(1 << 30)), -0x80000000, 0x7fffffff, -1, 0, 1}[r.Intn(8)]
			l := pass.Launch{Block: [3]int{32, 1, 1}, Grid: [3]int{1, 1, 1}, Args: map[string]int64{"k_param_0": n, "k_param_1": 0, "k_param_2": 0}}
			res, err := ComputeValues(vf, l, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			counts, capped := ex.run(l, [3]uint64{0, 0, 0}, 0)
			for li, lb := range res.Loops {
				if lb.Bound == nil {
					continue
				}
				if n < 0 {
					derivedNeg++
				}
				if capped[li] && lb.Bound.Max <= maxSteps || counts[li] > lb.Bound.Max {
					t.Fatalf("UNSOUND: n = %d: %d header executions (capped %v), derived %d = %s\n%s", n, counts[li], capped[li], lb.Bound.Max, lb.Bound.Expr, src)
				}
			}
		}
	}
	if derivedNeg == 0 {
		t.Error("no bound derived from a negative start")
	}
}
