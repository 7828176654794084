package cfgtest_test

import (
	"fmt"
	"log"

	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
)

// The trip counts of the loops of one corpus kernel for each of its
// launches, and the PTX names of its arguments.
func ExampleLoad() {
	root, err := cfgtest.RepoRoot()
	if err != nil {
		log.Fatal(err)
	}
	c, err := cfgtest.Load(root)
	if err != nil {
		log.Fatal(err)
	}
	k := c.Kernel("loop_unroll_rem")
	fmt.Println(k.Symbol, k.PTXParam("n"))
	for _, kl := range k.Loops() {
		fmt.Printf("%s:%d %s %s\n", kl.Loop.Source.Name, kl.Loop.Line, kl.Trip.Class, kl.Trip.Expr)
		for _, l := range k.Launch {
			v, err := l.Max(kl.Trip.Expr)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("  n=%d: %d\n", l.Args["n"], v)
		}
	}
	// Output:
	// _Z15loop_unroll_remPKfS0_Pfi _Z15loop_unroll_remPKfS0_Pfi_param_3
	// loops.cu:27 launch-only max(0, (n & -4) / 4)
	//   n=1003: 250
	//   n=3: 0
	//   n=-7: 0
	//   n=4096: 1024
	// loops.cu:33 launch-only n > 0 ? n & 3 : 0
	//   n=1003: 3
	//   n=3: 3
	//   n=-7: 0
	//   n=4096: 0
}
