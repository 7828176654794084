package simt

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/divergence"
)

// accepts reports whether the warp-level graph w has an entry-to-exit path
// whose blocks copy seq, in order.
func accepts(w *cfg.Graph, seq []int) bool {
	cur := map[*cfg.Block]bool{}
	if w.Entry().Orig.Index == seq[0] {
		cur[w.Entry()] = true
	}
	for _, s := range seq[1:] {
		next := map[*cfg.Block]bool{}
		for b := range cur {
			for _, e := range b.Succs {
				if e.To != w.Exit && e.To.Orig.Index == s {
					next[e.To] = true
				}
			}
		}
		if cur = next; len(cur) == 0 {
			return false
		}
	}
	for b := range cur {
		for _, e := range b.Succs {
			if e.To == w.Exit {
				return true
			}
		}
	}
	return false
}

// headerCounts checks that along the thread-level block sequence seq every
// loop header runs at most bound times per entry into its loop (an entry
// from outside resets the count) and returns the largest count.
func headerCounts(g *cfg.Graph, seq []int, bound func(*cfg.Loop) int64) (int64, error) {
	count := map[*cfg.Loop]int64{}
	var most int64
	prev := (*cfg.Block)(nil)
	for _, k := range seq {
		b := g.Blocks[k]
		if l := b.Loop; l != nil && l.Header == b {
			if prev != nil && l.Contains(prev) {
				count[l]++
			} else {
				count[l] = 1
			}
			most = max(most, count[l])
			if count[l] > bound(l) {
				return most, fmt.Errorf("loop %s: header %d times, bound %d", b, count[l], bound(l))
			}
		}
		prev = b
	}
	return most, nil
}

// TestWarpPathsCovered: on random structured functions with a known launch
// (2 warps, the second partial), every warp's drawn block sequence is a
// path of its class's warp-level CFG, for every side order, and respects
// the loop bounds per entry, also with LeaversLast (lanes leaving a loop
// run after the looping lanes: the drain of the warp-level CFG).
func TestWarpPathsCovered(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 40
	}
	var refused, draws, leavers, maxed int
	for seed := int64(1); seed <= int64(seeds); seed++ {
		r := rand.New(rand.NewSource(seed))
		src := cfgtest.Structured(r, 12)
		fset, fn := cfgtest.Must(t, src)
		g, err := cfg.Build(fset, fn)
		if err != nil {
			t.Fatal(err)
		}
		info, err := divergence.Analyze(g, pass.Launch{Block: [3]int{50, 1, 1}}, divergence.Options{})
		var re *divergence.RefusedError
		if errors.As(err, &re) {
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		bounds := map[*cfg.Loop]int64{}
		for _, l := range g.Loops {
			bounds[l] = 1 + r.Int63n(3)
		}
		bound := func(l *cfg.Loop) int64 { return bounds[l] }
		gen, err := New(g, info, func(l *cfg.Loop) (int64, bool) { return bounds[l], true })
		if err != nil {
			t.Fatal(err)
		}
		for run := range 12 {
			opt := Options{Order: Order(run % 3), MaxLoops: run%4 == 3}
			blk, err := gen.Draw(uint64(seed*100+int64(run)), opt)
			if err != nil {
				t.Fatalf("seed %d run %d: %v\n%s", seed, run, err, src)
			}
			for w, seq := range blk.Blocks {
				draws++
				most, err := headerCounts(g, seq, bound)
				if err != nil {
					t.Fatalf("seed %d run %d warp %d: %v\n%s", seed, run, w, err, src)
				}
				if opt.MaxLoops && most > 1 {
					maxed++
				}
				cg := info.Classes[gen.Class(w)].Graph
				if !accepts(cg, seq) {
					t.Fatalf("seed %d run %d warp %d (%v): sequence %v is not a path of the warp-level CFG\n%s", seed, run, w, opt.Order, seq, src)
				}
			}
			opt.LeaversLast = true
			blk, err = gen.Draw(uint64(seed*100+int64(run)), opt)
			if err != nil {
				t.Fatal(err)
			}
			for w, seq := range blk.Blocks {
				leavers++
				if !accepts(info.Classes[gen.Class(w)].Graph, seq) {
					t.Fatalf("seed %d run %d warp %d (leavers last): sequence %v is not a path of the warp-level CFG\n%s", seed, run, w, seq, src)
				}
			}
		}
	}
	t.Logf("%d functions refused, %d warp sequences checked (%d max-loop ones iterating), %d LeaversLast sequences", refused, draws, maxed, leavers)
	if refused > seeds/4 {
		t.Errorf("%d of %d refused", refused, seeds)
	}
}
