package cfg

import "math/bits"

// Dominator and post-dominator trees.
//
// The trees are computed with the iterative algorithm of Cooper, Harvey
// and Kennedy, "A Simple, Fast Dominance Algorithm" (Software Practice and
// Experience, 2001): idoms are refined in reverse postorder, intersecting
// the dominator-tree paths of processed predecessors by postorder number,
// until nothing changes. Dominates and PostDominates then answer in O(1)
// from pre/post numbers of a walk of the tree, as go/ssa does.
//
// The dominator tree is rooted at the entry and covers the reachable
// blocks. The post-dominator tree is rooted at the virtual exit and covers
// the reachable blocks from which the exit can be reached: a block in an
// infinite loop (or ending in an unresolved indirect branch with no way
// out) has no immediate post-dominator, and a branch one of whose sides
// never reaches the exit is post-dominated as if that side did not exist.
// Unreachable blocks are in neither tree: their Idom and IPdom are nil,
// and they dominate and post-dominate only themselves.
//
// naiveDom, the textbook set-intersection fixpoint, is kept to cross-check
// the fast algorithm in Check.

// domTree is one dominator tree over node numbers 0..len(Blocks), where
// len(Blocks) is the virtual exit.
type domTree struct {
	idom      []int32 // -1 when not in the tree; the root's idom is itself
	pre, post []int32 // numbering of a walk of the tree
	kids      [][]int32
	root      int32
}

func (t *domTree) in(i int) bool { return t.idom != nil && t.idom[i] >= 0 }

func (t *domTree) dominates(a, b int) bool {
	if a == b {
		return true
	}
	if !t.in(a) || !t.in(b) {
		return false
	}
	return t.pre[a] <= t.pre[b] && t.post[b] <= t.post[a]
}

// csr is a compact adjacency list.
type csr struct {
	off []int32
	to  []int32
}

func (c *csr) of(i int) []int32 { return c.to[c.off[i]:c.off[i+1]] }

// graphs returns the forward successor and predecessor adjacency of the
// blocks and the exit, restricted to reachable blocks.
func (g *Graph) adjacency() (succ, pred csr) {
	n := len(g.Blocks) + 1
	node := func(i int) *Block {
		if i == len(g.Blocks) {
			return g.Exit
		}
		return g.Blocks[i]
	}
	succ.off = make([]int32, n+1)
	pred.off = make([]int32, n+1)
	m := 0
	for i := 0; i < n; i++ {
		b := node(i)
		if b.Reachable {
			m += len(b.Succs)
		}
	}
	succ.to = make([]int32, 0, m)
	pred.to = make([]int32, 0, m)
	for i := 0; i < n; i++ {
		b := node(i)
		if b.Reachable {
			for _, e := range b.Succs {
				succ.to = append(succ.to, int32(e.To.Index))
			}
			for _, e := range b.Preds {
				if e.From.Reachable {
					pred.to = append(pred.to, int32(e.From.Index))
				}
			}
		}
		succ.off[i+1] = int32(len(succ.to))
		pred.off[i+1] = int32(len(pred.to))
	}
	return succ, pred
}

func (g *Graph) buildDom() {
	succ, pred := g.adjacency()
	n := len(g.Blocks) + 1
	g.dom = chk(n, 0, succ, pred)
	if g.Exit.Reachable {
		g.pdom = chk(n, int32(len(g.Blocks)), pred, succ)
	} else {
		g.pdom = emptyTree(n, int32(len(g.Blocks)))
	}
	for _, b := range g.Blocks {
		if i := g.dom.idom[b.Index]; i >= 0 && b.Index != 0 {
			b.idom = g.Blocks[i]
		}
		if i := g.pdom.idom[b.Index]; i >= 0 {
			if int(i) == len(g.Blocks) {
				b.ipdom = g.Exit
			} else {
				b.ipdom = g.Blocks[i]
			}
		}
	}
}

func emptyTree(n int, root int32) domTree {
	t := domTree{idom: make([]int32, n), root: root}
	for i := range t.idom {
		t.idom[i] = -1
	}
	t.number()
	return t
}

// chk computes the dominator tree rooted at root of the graph with edges
// fwd (and their reverse, back).
func chk(n int, root int32, fwd, back csr) domTree {
	// Postorder by iterative DFS.
	const unvisited = -1
	po := make([]int32, n) // postorder number, -1 if not reached
	for i := range po {
		po[i] = unvisited
	}
	order := make([]int32, 0, n) // nodes in postorder
	visited := make([]bool, n)
	type frame struct {
		v int32
		i int32
	}
	stack := []frame{{root, 0}}
	visited[root] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		out := fwd.of(int(top.v))
		if int(top.i) < len(out) {
			w := out[top.i]
			top.i++
			if !visited[w] {
				visited[w] = true
				stack = append(stack, frame{w, 0})
			}
			continue
		}
		po[top.v] = int32(len(order))
		order = append(order, top.v)
		stack = stack[:len(stack)-1]
	}

	idom := make([]int32, n)
	for i := range idom {
		idom[i] = -1
	}
	idom[root] = root
	intersect := func(a, b int32) int32 {
		for a != b {
			for po[a] < po[b] {
				a = idom[a]
			}
			for po[b] < po[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for k := len(order) - 2; k >= 0; k-- { // reverse postorder, root excluded
			v := order[k]
			nd := int32(-1)
			for _, p := range back.of(int(v)) {
				if po[p] == unvisited || idom[p] < 0 {
					continue
				}
				if nd < 0 {
					nd = p
				} else {
					nd = intersect(p, nd)
				}
			}
			if nd >= 0 && idom[v] != nd {
				idom[v] = nd
				changed = true
			}
		}
	}
	t := domTree{idom: idom, root: root}
	t.number()
	return t
}

// number fills kids (by node number) and the pre/post numbering.
func (t *domTree) number() {
	n := len(t.idom)
	t.kids = make([][]int32, n)
	for v := 0; v < n; v++ {
		if p := t.idom[v]; p >= 0 && int32(v) != t.root {
			t.kids[p] = append(t.kids[p], int32(v))
		}
	}
	t.pre = make([]int32, n)
	t.post = make([]int32, n)
	for i := range t.pre {
		t.pre[i], t.post[i] = -1, -1
	}
	if t.idom[t.root] < 0 {
		return
	}
	type frame struct {
		v int32
		i int
	}
	var pre, post int32
	stack := []frame{{t.root, 0}}
	t.pre[t.root] = pre
	pre++
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i < len(t.kids[top.v]) {
			w := t.kids[top.v][top.i]
			top.i++
			t.pre[w] = pre
			pre++
			stack = append(stack, frame{w, 0})
			continue
		}
		t.post[top.v] = post
		post++
		stack = stack[:len(stack)-1]
	}
}

// Idom returns the immediate dominator of b: nil for the entry and for
// unreachable blocks.
func (b *Block) Idom() *Block { return b.idom }

// IPdom returns the immediate post-dominator of b (possibly the virtual
// exit): nil for the exit, for unreachable blocks and for blocks from
// which the exit cannot be reached.
func (b *Block) IPdom() *Block { return b.ipdom }

// node returns the block with node number i (len(Blocks) is the exit).
func (g *Graph) node(i int32) *Block {
	if int(i) == len(g.Blocks) {
		return g.Exit
	}
	return g.Blocks[i]
}

// Dominees returns the blocks b immediately dominates, by index.
func (g *Graph) Dominees(b *Block) []*Block { return g.blocks(g.dom.kids[b.Index]) }

// PostDominees returns the blocks b immediately post-dominates, by index
// (for the exit: the blocks whose IPdom is the exit).
func (g *Graph) PostDominees(b *Block) []*Block { return g.blocks(g.pdom.kids[b.Index]) }

func (g *Graph) blocks(ns []int32) []*Block {
	out := make([]*Block, len(ns))
	for i, v := range ns {
		out[i] = g.node(v)
	}
	return out
}

// Dominates reports whether a dominates b (every path from the entry to b
// goes through a). Every block dominates itself.
func (g *Graph) Dominates(a, b *Block) bool { return g.dom.dominates(a.Index, b.Index) }

// PostDominates reports whether a post-dominates b (every path from b to
// the virtual exit goes through a). Every block post-dominates itself.
func (g *Graph) PostDominates(a, b *Block) bool { return g.pdom.dominates(a.Index, b.Index) }

// naiveDom computes immediate dominators by the set-intersection fixpoint
// (Dom(root) = {root}; Dom(v) = {v} ∪ ⋂ Dom(p) over predecessors p), over
// the nodes reached from root along fwd. It returns idom with -1 for
// nodes outside the tree and the root's idom equal to itself.
func naiveDom(n int, root int32, fwd, back csr) []int32 {
	words := (n + 63) / 64
	reached := make([]bool, n)
	stack := []int32{root}
	reached[root] = true
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, w := range fwd.of(int(v)) {
			if !reached[w] {
				reached[w] = true
				stack = append(stack, w)
			}
		}
	}
	dom := make([][]uint64, n)
	for v := 0; v < n; v++ {
		if !reached[v] {
			continue
		}
		dom[v] = make([]uint64, words)
		if int32(v) == root {
			dom[v][v/64] |= 1 << (v % 64)
			continue
		}
		for i := range dom[v] {
			dom[v][i] = ^uint64(0)
		}
	}
	tmp := make([]uint64, words)
	for changed := true; changed; {
		changed = false
		for v := 0; v < n; v++ {
			if !reached[v] || int32(v) == root {
				continue
			}
			for i := range tmp {
				tmp[i] = ^uint64(0)
			}
			for _, p := range back.of(v) {
				if !reached[p] {
					continue
				}
				for i := range tmp {
					tmp[i] &= dom[p][i]
				}
			}
			tmp[v/64] |= 1 << (v % 64)
			for i := range tmp {
				if tmp[i] != dom[v][i] {
					copy(dom[v], tmp)
					changed = true
					break
				}
			}
		}
	}
	// The idom of v is the strict dominator with the most dominators.
	count := func(s []uint64) int {
		c := 0
		for _, w := range s {
			c += bits.OnesCount64(w)
		}
		return c
	}
	size := make([]int, n)
	for v := 0; v < n; v++ {
		if reached[v] {
			size[v] = count(dom[v])
		}
	}
	idom := make([]int32, n)
	for v := 0; v < n; v++ {
		idom[v] = -1
		if !reached[v] {
			continue
		}
		if int32(v) == root {
			idom[v] = root
			continue
		}
		best := -1
		for i, w := range dom[v] {
			for ; w != 0; w &= w - 1 {
				d := i*64 + bits.TrailingZeros64(w)
				if d != v && (best < 0 || size[d] > size[best]) {
					best = d
				}
			}
		}
		idom[v] = int32(best)
	}
	return idom
}
