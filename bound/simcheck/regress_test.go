package simcheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/txtar"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simtest"
)

// TestRegress runs the cases of testdata/regress (counterexamples and
// hand-picked blocks): every makespan must be at most the bound (a hard
// failure, whatever the golden file says), and the outputs are compared
// with the "want" section (go test -update rewrites it).
func TestRegress(t *testing.T) {
	txtar.Golden(t, "testdata/regress/*.txtar", func(t *testing.T, a *txtar.Archive) map[string][]byte {
		c, err := simtest.Parse(txtar.Format(a))
		if err != nil {
			t.Fatal(err)
		}
		b, err := ComputeBounds(c)
		if err != nil {
			t.Fatal(err)
		}
		p, err := sim.Compile(c.HW, c.Warps, sim.BarrierReach)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		fmt.Fprintf(&out, "bound %d\npaper_gub %d\n", b.Bound, b.PaperGUB)
		for _, ps := range []string{"lrr", "gto", "random:1", "adversarial:1:200"} {
			pol, _ := sim.ParsePolicy(ps)
			for _, mode := range []sim.BarrierMode{sim.BarrierReach, sim.BarrierDrain} {
				q, err := p.WithBarrier(mode)
				if err != nil {
					t.Fatal(err)
				}
				r, err := q.Run(pol, sim.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if r.Makespan > b.Bound {
					t.Errorf("UNSOUND: %s, barriers %s: makespan %d > bound %d", r.Policy, mode, r.Makespan, b.Bound)
				}
				fmt.Fprintf(&out, "%s %s: makespan %d (witness %s)\n", ps, mode, r.Makespan, r.Policy)
			}
		}
		return map[string][]byte{"want": []byte(out.String())}
	})
}
