package static

import (
	"fmt"
	"math/rand"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Concrete paths of a graph under loop bounds, for property tests of the
// static bound and for simulators that need one path per warp (draw one
// per class, on the class's warp-level graph).
//
// A path respects the bounds when, for every loop, the header executes at
// most bound times per entry into the loop (a back edge counts one more
// execution; an edge from outside resets the count to 1). Bounds below 1
// are read as 1.

type pathWalker struct {
	g     *cfg.Graph
	bound map[*cfg.Loop]int64
	count map[*cfg.Loop]int64
}

func newPathWalker(g *cfg.Graph, lb LoopBound) (*pathWalker, error) {
	if len(g.Irreducible) > 0 {
		return nil, fmt.Errorf("static: irreducible graph")
	}
	pw := &pathWalker{g: g, bound: map[*cfg.Loop]int64{}, count: map[*cfg.Loop]int64{}}
	for _, l := range g.Loops {
		n, err := lb(l)
		if err != nil {
			return nil, err
		}
		pw.bound[l] = max(n, 1)
	}
	return pw, nil
}

// enter applies the loop counters for edge e; it returns false when the
// edge would exceed a bound, and an undo function.
func (pw *pathWalker) enter(e cfg.Edge) (bool, func()) {
	h := e.To
	if h == pw.g.Exit || h.Loop == nil || h.Loop.Header != h {
		return true, func() {}
	}
	l := h.Loop
	old := pw.count[l]
	n := int64(1)
	if l.Contains(e.From) {
		n = old + 1
	}
	if n > pw.bound[l] {
		return false, func() {}
	}
	pw.count[l] = n
	return true, func() { pw.count[l] = old }
}

// EnumeratePaths calls visit with every entry-to-exit path of g (its
// instructions in order) that respects the loop bounds, in depth-first
// order of the successors, until visit returns false or limit paths were
// visited. It returns the number of paths visited and whether the
// enumeration was complete.
func EnumeratePaths(g *cfg.Graph, lb LoopBound, limit int, visit func([]*isa.Instr) bool) (int, bool, error) {
	pw, err := newPathWalker(g, lb)
	if err != nil {
		return 0, false, err
	}
	n := 0
	stop := false
	var path []*isa.Instr
	var dfs func(b *cfg.Block)
	dfs = func(b *cfg.Block) {
		if stop {
			return
		}
		if b == g.Exit {
			if n >= limit {
				stop = true
				return
			}
			n++
			if !visit(path) {
				stop = true
			}
			return
		}
		mark := len(path)
		path = append(path, b.Instrs...)
		for _, e := range b.Succs {
			ok, undo := pw.enter(e)
			if ok {
				dfs(e.To)
			}
			undo()
			if stop {
				break
			}
		}
		path = path[:mark]
	}
	if len(g.Blocks) > 0 {
		ok, undo := pw.enter(cfg.Edge{From: g.Exit, To: g.Entry()})
		if ok {
			dfs(g.Entry())
		}
		undo()
	}
	return n, !stop, nil
}

// RandomPath draws one entry-to-exit path of g respecting the loop bounds:
// at each block a successor is chosen uniformly among those that do not
// exceed a bound. A choice that can no longer reach the exit within the
// bounds (possible only with malformed bounds) ends in an error after
// maxLen instructions.
func RandomPath(g *cfg.Graph, lb LoopBound, r *rand.Rand, maxLen int) ([]*isa.Instr, error) {
	pw, err := newPathWalker(g, lb)
	if err != nil {
		return nil, err
	}
	var path []*isa.Instr
	b := g.Entry()
	pw.enter(cfg.Edge{From: g.Exit, To: b})
	for b != g.Exit {
		path = append(path, b.Instrs...)
		if len(path) > maxLen {
			return nil, fmt.Errorf("static: random path longer than %d instructions", maxLen)
		}
		var ok []cfg.Edge
		for _, e := range b.Succs {
			if can, undo := pw.enter(e); can {
				undo()
				ok = append(ok, e)
			}
		}
		if len(ok) == 0 {
			return nil, fmt.Errorf("static: %s: every successor exceeds a loop bound", b)
		}
		e := ok[r.Intn(len(ok))]
		pw.enter(e)
		b = e.To
	}
	return path, nil
}
