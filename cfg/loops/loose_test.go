package loops

import (
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
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
			lst, rs := listingResults(t, c, cfgtest.Config{Compiler: "clang", Opt: "O2", Arch: arch}, k, tc.kind)
			for li, r := range rs {
				for _, lb := range r.Loops {
					if lb.Bound != nil && lb.Bound.Max > 1000 {
						t.Errorf("%s %s %s launch %d: loop %s bound %d = %s", lst, tc.kind, tc.kernel, li, lb.Key, lb.Bound.Max, lb.Bound.Expr)
					}
				}
			}
		}
	}
}

// TestConvColsRowLoop: conv_cols' row loop (clang -O2 SASS), a rotated
// loop y != min(y0 + rows_per_thread, h) entered under y0 < y1, was
// derived with the bound 2^32 (the modular count of a distance that is
// negative for the threads the guard keeps out), which analyze then
// refused (the bound times the cycles per iteration overflows). Read as
// the ordered loop it is under its guard, with the limit's arm y0 + n, it
// is bounded by rows_per_thread: at the manifest's first launch (n = 16)
// every loop of the kernel is below 1,000.
func TestConvColsRowLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("kernel corpus run skipped in -short mode")
	}
	c := cfgtest.Open(t)
	k := c.Kernel("conv_cols")
	for _, arch := range []string{"sm_52", "sm_70", "sm_80"} {
		lst, rs := listingResults(t, c, cfgtest.Config{Compiler: "clang", Opt: "O2", Arch: arch}, k, "sass")
		for _, lb := range rs[0].Loops {
			if lb.Bound == nil || lb.Bound.Max > 1000 {
				t.Errorf("%s conv_cols launch 0: loop %s bound %+v: %s", lst, lb.Key, lb.Bound, lb.Why)
			}
		}
	}
}
