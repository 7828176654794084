package loops

import (
	"go/token"
	"regexp"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// listingResults derives the loop bounds of kernel k in the kind ("ptx"
// or "sass") listing of config cf of the kernel corpus, at each of the
// manifest's launches, through the loops pass.
func listingResults(t *testing.T, c *cfgtest.Corpus, cf cfgtest.Config, k *cfgtest.Kernel, kind string) (*cfgtest.Listing, []*Result) {
	t.Helper()
	lst := c.Listing(cf, k.Source)
	src, err := lst.PTX()
	if kind == "sass" {
		src, err = lst.SASS()
	}
	if err != nil {
		t.Fatal(err)
	}
	file, err := load.File(token.NewFileSet(), lst.String()+"."+kind, src, load.Auto)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Result
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
			t.Fatalf("%s %s launch %d: %v", lst, kind, li, act.Err)
		}
		out = append(out, act.Result.(*Result))
	}
	return lst, out
}

// TestAfterEarlierLoop: ptxas splits stencil1d's loop over 2r+1 taps
// (clang -O2 SASS) into a prologue, a main loop by 16 and a remainder by 4
// that share one counter; the remainder starts from the prologue's exit
// value φ - 1 (it exits from its latch) or the main loop's. Evaluating a
// header phi's operands meets the phi again on its back edge, cut to every
// value; that cut was kept for φ - 1 although the phi itself then took its
// induction range, and the remainder had no bound at any launch.
func TestAfterEarlierLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("kernel corpus run skipped in -short mode")
	}
	c := cfgtest.Open(t)
	k := c.Kernel("stencil1d")
	if k == nil {
		t.Fatal("stencil1d not in the kernel corpus manifest")
	}
	for _, arch := range []string{"sm_52", "sm_70", "sm_80"} {
		lst, rs := listingResults(t, c, cfgtest.Config{Compiler: "clang", Opt: "O2", Arch: arch}, k, "sass")
		for li, r := range rs {
			if len(r.Loops) < 3 {
				t.Errorf("%s: %d loops, want the split loop's three at least", lst, len(r.Loops))
			}
			for _, lb := range r.Loops {
				if lb.Bound == nil || lb.Bound.Source != Derived {
					t.Errorf("%s launch %d: loop %s not derived: %s", lst, li, lb.Key, lb.Why)
				}
			}
		}
	}
}
