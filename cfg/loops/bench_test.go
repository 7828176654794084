package loops

import (
	"fmt"
	"testing"
)

// BenchmarkBoundValue derives and evaluates the bound of the counted
// loop of examples/counted-loop (a loop over an argument) at arguments
// from 10 to 10^9: the cost of a derivation does not depend on the numbers (closed
// forms, no iteration). docs/performance.md records the figures.
func BenchmarkBoundValue(b *testing.B) {
	f, _ := graphs(b, "kernel.ptx", readFile(b, "../../examples/counted-loop/kernel.ptx"))
	vs := valuesOf(b, f)
	for _, n := range []int64{10, 1000, 1000000, 1000000000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			env := LaunchEnv{}
			env.Args = map[string]int64{"colsum_param_2": n}
			env.Block, env.Grid = [3]int{256, 1, 1}, [3]int{4, 1, 1}
			var max int64
			for i := 0; i < b.N; i++ {
				for _, vf := range vs {
					for _, d := range Derive(vf) {
						if m, err := d.Eval(env); err == nil {
							max = m
						}
					}
				}
			}
			if max < n {
				b.Fatalf("bound %d below %d", max, n)
			}
		})
	}
}
