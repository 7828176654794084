package divergence_test

import (
	"errors"
	"math/rand"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/divergence"
)

// simulate runs a warp of lanes through the thread-level CFG g on a SIMT
// reconvergence stack (reconvergence points from info), with random
// per-lane decisions, and returns the sequence of blocks the warp issues,
// or nil when it runs too long. The stack follows GPGPU-Sim's
// simt_stack::update: at a divergence whose reconvergence point differs
// from the top entry's, the top entry becomes the reconvergence entry and
// one entry per lane group is pushed above it; when the two are equal (a
// lane group that diverges again on its way to the same point, as the
// lanes still looping after a divergent loop exit do) the groups replace
// the top entry; groups whose next block is the reconvergence point wait
// in the entry below. The groups run in a random order (any order a stack
// may choose: GPGPU-Sim's runs the group holding the highest lane last,
// so lanes leaving a loop may run after the loop's remaining iterations).
func simulate(r *rand.Rand, g *cfg.Graph, info *divergence.Info, lanes int) []int {
	type entry struct {
		pc, rpc int // -1: exit
		mask    []bool
	}
	idx := func(b *cfg.Block) int {
		if b == g.Exit {
			return -1
		}
		return b.Index
	}
	all := make([]bool, lanes)
	for i := range all {
		all[i] = true
	}
	stack := []*entry{{pc: 0, rpc: -2, mask: all}}
	finish := func(ls []int) {
		for _, e := range stack {
			for _, l := range ls {
				e.mask[l] = false
			}
		}
	}
	empty := func(m []bool) bool {
		for _, x := range m {
			if x {
				return false
			}
		}
		return true
	}
	var seq []int
	for steps := 0; ; steps++ {
		if steps > 3000 {
			return nil
		}
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if empty(top.mask) || top.pc == top.rpc {
				stack = stack[:len(stack)-1]
				continue
			}
			if top.pc == -1 {
				var ls []int
				for l, on := range top.mask {
					if on {
						ls = append(ls, l)
					}
				}
				finish(ls)
				continue
			}
			break
		}
		if len(stack) == 0 {
			return seq
		}
		top := stack[len(stack)-1]
		b := g.Blocks[top.pc]
		seq = append(seq, b.Index)
		// Per-lane successor.
		var order []int           // distinct targets in successor order
		groups := map[int][]int{} // target -> lanes
		for l, on := range top.mask {
			if !on {
				continue
			}
			e := b.Succs[0]
			if len(b.Succs) > 1 {
				e = b.Succs[r.Intn(len(b.Succs))]
			}
			t := idx(e.To)
			if _, ok := groups[t]; !ok {
				order = append(order, t)
			}
			groups[t] = append(groups[t], l)
		}
		if len(order) == 1 {
			top.pc = order[0]
			continue
		}
		br := info.Branch(b)
		if br.Exit {
			for _, t := range order {
				if t == -1 {
					finish(groups[t])
				} else {
					top.pc = t
				}
			}
			continue
		}
		rc := idx(br.Reconv)
		var run []int
		for _, t := range order {
			if t != rc {
				run = append(run, t)
			}
		}
		r.Shuffle(len(run), func(i, j int) { run[i], run[j] = run[j], run[i] })
		if rc == top.rpc {
			stack = stack[:len(stack)-1]
		} else {
			top.pc = rc
		}
		for i := len(run) - 1; i >= 0; i-- {
			m := make([]bool, lanes)
			for _, l := range groups[run[i]] {
				m[l] = true
			}
			stack = append(stack, &entry{pc: run[i], rpc: rc, mask: m})
		}
	}
}

var debugf = func(string, ...any) {}

// accepts reports whether the warp-level graph w has a path from its
// entry to its exit whose blocks copy seq, in order.
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
		cur = next
		if len(cur) == 0 {
			debugf("accepts: stuck before %d", s)
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

// TestWarpPathsCovered checks, on random structured CFGs (fixed seeds),
// that every execution of a 4-lane warp on a SIMT reconvergence stack is a
// path of the warp-level CFG, block for block; since each lane's path is a
// subsequence of its warp's sequence, every thread path is covered too.
// Every warp-level CFG must pass Check.
func TestWarpPathsCovered(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 60
	}
	refused := 0
	defer func() {
		t.Logf("%d of %d functions refused (serialized divergent loops)", refused, seeds)
		if refused > seeds/4 {
			t.Errorf("%d of %d functions refused: the generator or the model degenerated", refused, seeds)
		}
	}()
	for seed := int64(1); seed <= int64(seeds); seed++ {
		r := rand.New(rand.NewSource(seed))
		src := cfgtest.Structured(r, 12)
		fset, fn := cfgtest.Must(t, src)
		g, err := cfg.Build(fset, fn)
		if err != nil {
			t.Fatalf("seed %d: Build: %v", seed, err)
		}
		info, err := divergence.Analyze(g, pass.Launch{Block: [3]int{4, 1, 1}}, divergence.Options{})
		var re *divergence.RefusedError
		if errors.As(err, &re) {
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: Analyze: %v\n%s", seed, err, src)
		}
		w := info.Classes[0].Graph
		if err := w.Check(); err != nil {
			t.Fatalf("seed %d: Check: %v\n%s", seed, err, src)
		}
		for run := 0; run < 20; run++ {
			seq := simulate(r, g, info, 4)
			if seq == nil {
				continue
			}
			if !accepts(w, seq) {
				debugf = t.Logf
				accepts(w, seq)
				var wb strings.Builder
				divergence.Format(&wb, info)
				t.Log(wb.String())
				var sb strings.Builder
				cfg.Format(&sb, g)
				t.Fatalf("seed %d run %d: warp sequence %v is not a path of the warp-level CFG\n%s\n%s", seed, run, seq, src, sb.String())
			}
		}
	}
}
