package cfg

import "fmt"

// Derive returns a graph over orig's function whose block i copies
// origins[i] (a block of orig): same instructions, kind, labels, first
// instruction and reconvergence instructions, and Orig pointing at it.
// A block of orig may be copied several times; origins[0] becomes the
// entry. The graph has no edges: add them with AddEdge, then call
// Recompute. Check verifies a derived graph with the rules that do not
// depend on program layout (see Check).
//
// The divergence pass builds its warp-level graphs this way, so that
// dominators, loops, Format, Check and cfgdot apply to them unchanged.
func Derive(orig *Graph, origins []*Block) (*Graph, error) {
	if orig == nil || len(origins) == 0 {
		return nil, fmt.Errorf("cfg: Derive: no original graph or no blocks")
	}
	g := &Graph{Func: orig.Func, Fset: orig.Fset, Orig: orig, Unresolved: orig.Unresolved}
	store := make([]Block, len(origins)+1)
	g.Blocks = make([]*Block, len(origins))
	for i, o := range origins {
		if o == nil || o.Kind == BlockVirtualExit || o.Index >= len(orig.Blocks) || orig.Blocks[o.Index] != o {
			return nil, fmt.Errorf("cfg: Derive: origin %d is not a block of the original graph", i)
		}
		b := &store[i]
		*b = Block{Index: i, Kind: o.Kind, Instrs: o.Instrs, First: o.First, Labels: o.Labels,
			Reconverge: o.Reconverge, Orig: o}
		g.Blocks[i] = b
	}
	g.Exit = &store[len(origins)]
	g.Exit.Index = len(origins)
	g.Exit.Kind = BlockVirtualExit
	g.Exit.Orig = orig.Exit
	return g, nil
}

// AddEdge appends an edge from→to of kind k to from.Succs of a derived
// graph. Preds are rebuilt by Recompute.
func (g *Graph) AddEdge(from, to *Block, k EdgeKind) {
	from.Succs = append(from.Succs, Edge{From: from, To: to, Kind: k})
}

// Recompute rebuilds Preds from Succs (in the canonical order: by source
// block index, then successor position) and recomputes reachability,
// dominator and post-dominator trees, loops and irreducible regions. It
// is meant for graphs built with Derive and AddEdge.
func (g *Graph) Recompute() {
	all := append(append([]*Block(nil), g.Blocks...), g.Exit)
	for _, b := range all {
		b.Preds = nil
		b.Reachable = false
		b.Loop = nil
		b.idom, b.ipdom = nil, nil
	}
	for _, b := range g.Blocks {
		for _, e := range b.Succs {
			e.To.Preds = append(e.To.Preds, e)
		}
	}
	g.Loops = nil
	g.Irreducible = nil
	g.analyze()
}

// checkDerived checks the blocks of a derived graph: numbering, that each
// block copies a block of the original graph (same instructions and kind),
// and that each edge is explained by an edge of the original block (same
// kind; the target copies the original target, or is the exit) or is an
// EdgeResume.
func (c *checker) checkDerived() {
	g := c.g
	o := g.Orig
	if g.Exit.Orig != o.Exit {
		c.errorf("exit does not copy the original exit")
	}
	for i, b := range g.Blocks {
		if b == nil {
			c.errorf("Blocks[%d] is nil", i)
			return
		}
		if b.Index != i {
			c.errorf("Blocks[%d].Index = %d", i, b.Index)
		}
		ob := b.Orig
		if ob == nil || ob.Index >= len(o.Blocks) || o.Blocks[ob.Index] != ob {
			c.errorf("%s: Orig is not a block of the original graph", b)
			return
		}
		if b.Kind != ob.Kind || b.First != ob.First || len(b.Instrs) != len(ob.Instrs) {
			c.errorf("%s: does not copy %s (kind %s, first %d, %d instrs)", b, ob, b.Kind, b.First, len(b.Instrs))
			continue
		}
		for k := range b.Instrs {
			if b.Instrs[k] != ob.Instrs[k] {
				c.errorf("%s: instruction %d differs from %s", b, k, ob)
			}
		}
		for _, e := range b.Succs {
			if e.From != b {
				c.errorf("%s: successor edge from %s", b, e.From)
			}
			if e.To == nil || (e.To != g.Exit && (e.To.Index >= len(g.Blocks) || g.Blocks[e.To.Index] != e.To)) {
				c.errorf("%s: edge to a block outside the graph", b)
				continue
			}
			if e.Kind == EdgeResume {
				continue
			}
			ok := false
			for _, oe := range ob.Succs {
				if oe.Kind == e.Kind && oe.To == e.To.Orig {
					ok = true
				}
			}
			if !ok {
				c.errorf("%s: edge to %s (%s) has no counterpart %s->%s:%s in the original graph",
					b, e.To, e.Kind, ob, e.To.Orig, e.Kind)
			}
		}
	}
}
