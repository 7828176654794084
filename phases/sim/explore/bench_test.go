package explore_test

import (
	"fmt"
	"testing"

	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/explore"
	"github.com/gpuwcet/gpuwcet/phases/sim/simtest"
)

// BenchmarkWorst: the exhaustive search of the Figure 2 block with 2, 4
// and 8 warps (22, 1,648 and 245,871 normalised states).
func BenchmarkWorst(b *testing.B) {
	for _, w := range []int{2, 4, 8} {
		c, err := simtest.Parse(fmt.Appendf(nil, fig2, w-1))
		if err != nil {
			b.Fatal(err)
		}
		p, err := sim.Compile(c.HW, c.Warps, sim.BarrierReach)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("warps=%d", w), func(b *testing.B) {
			var states int
			for i := 0; i < b.N; i++ {
				r, err := explore.Worst(p, explore.Options{})
				if err != nil || !r.Exact {
					b.Fatal(err, r.Exact)
				}
				states = r.States
			}
			b.ReportMetric(float64(states), "states")
		})
	}
}
