package loops

import (
	"go/token"
	"regexp"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// TestNoLooseBounds: loops of the kernel corpus whose derived bounds were
// sound but useless (2^29 to 2^30 iterations at launches of a few to a
// few tens): helper_chain and early_exit at clang -O2 SASS (a remainder
// loop entered after a split loop's exit value, joined over edges the
// launch never takes: joinLive) and lane_trip at clang -O2 PTX and SASS
// (an unrolled main loop the test m & ~7 != 8 skips, lost when an
// interval's common high bits were not known below 64 bits). At the
// manifest's launches every trip count is below 100.
func TestNoLooseBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("kernel corpus run skipped in -short mode")
	}
	c := cfgtest.Open(t)
	for _, tc := range []struct{ kernel, kind string }{
		{"helper_chain", "sass"}, {"early_exit", "sass"}, {"lane_trip", "sass"}, {"lane_trip", "ptx"},
	} {
		k := c.Kernel(tc.kernel)
		for _, arch := range []string{"sm_52", "sm_70", "sm_80"} {
			lst := c.Listing(cfgtest.Config{Compiler: "clang", Opt: "O2", Arch: arch}, k.Source)
			src, err := lst.PTX()
			if tc.kind == "sass" {
				src, err = lst.SASS()
			}
			if err != nil {
				t.Fatal(err)
			}
			file, err := load.File(token.NewFileSet(), lst.String()+"."+tc.kind, src, load.Auto)
			if err != nil {
				t.Fatal(err)
			}
			for li, launch := range k.Launch {
				l := pass.Launch{Args: launch.PTXArgs(k)}
				for i := 0; i < 3; i++ {
					l.Block[i], l.Grid[i] = int(launch.Block[i]), int(launch.Grid[i])
				}
				res, err := pass.Run([]*pass.Analyzer{Analyzer}, file, pass.Options{Launch: l,
					Funcs: regexp.MustCompile("^" + regexp.QuoteMeta(k.Symbol) + "$")})
				if err != nil {
					t.Fatal(err)
				}
				act := res.Get(Analyzer, res.Funcs[0])
				if act.Err != nil {
					t.Fatalf("%s %s launch %d: %v", lst, tc.kind, li, act.Err)
				}
				for _, lb := range act.Result.(*Result).Loops {
					if lb.Bound != nil && lb.Bound.Max > 1000 {
						t.Errorf("%s %s %s launch %d: loop %s bound %d = %s", lst, tc.kind, tc.kernel, li, lb.Key, lb.Bound.Max, lb.Bound.Expr)
					}
				}
			}
		}
	}
}
