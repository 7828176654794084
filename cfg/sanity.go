package cfg

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// NaiveCheckLimit is the largest number of blocks for which Check also
// cross-checks the dominator trees against the naive quadratic algorithm;
// every graph is cross-checked against Lengauer and Tarjan's algorithm
// (ltDom, O(E log N)).
var NaiveCheckLimit = 256

// Check verifies the invariants of g, in the spirit of go/ssa's sanity
// checker and the compiler's checkFunc: block numbering, that every
// instruction is in exactly one block in program order, terminators only
// last, successor counts and edge kinds per block kind, pred/succ
// cross-links, reachability, both dominator trees against the naive
// algorithm, and the loop nest. It returns nil or an error listing the
// first violations.
//
// A derived graph (Graph.Orig set, see Derive) replaces the layout and
// block-kind rules by: every block copies a block of Graph.Orig, and every
// edge is an edge of the original block (same kind, to a copy of the same
// target) or an EdgeResume.
func (g *Graph) Check() error {
	c := checker{g: g}
	c.check()
	if len(c.errs) == 0 {
		return nil
	}
	const max = 10
	msg := c.errs
	more := ""
	if len(msg) > max {
		more = fmt.Sprintf("\n(and %d more)", len(msg)-max)
		msg = msg[:max]
	}
	name := "?"
	if g != nil && g.Func != nil {
		name = g.Func.Name
	}
	return fmt.Errorf("cfg: %s: invalid graph:\n%s%s", name, strings.Join(msg, "\n"), more)
}

type checker struct {
	g    *Graph
	errs []string
}

func (c *checker) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

func (c *checker) check() {
	g := c.g
	if g == nil || g.Func == nil {
		c.errorf("nil graph or function")
		return
	}
	if len(g.Blocks) == 0 {
		c.errorf("no blocks: Blocks[0] must be the entry")
		return
	}
	if g.Exit == nil || g.Exit.Index != len(g.Blocks) || g.Exit.Kind != BlockVirtualExit {
		c.errorf("exit node missing or misnumbered")
		return
	}
	if len(g.Exit.Succs) != 0 || len(g.Exit.Instrs) != 0 {
		c.errorf("exit has successors or instructions")
	}
	if g.Orig != nil {
		c.checkDerived()
	} else {
		c.checkBlocks()
	}
	if len(c.errs) > 0 {
		return // the rest assumes a well-formed graph
	}
	c.checkEdges()
	c.checkReach()
	if len(c.errs) > 0 {
		return
	}
	c.checkDom()
	c.checkLoops()
}

func (c *checker) checkBlocks() {
	g := c.g
	fn := g.Func
	next := 0
	unresolved := map[*isa.Instr]bool{}
	for _, in := range g.Unresolved {
		unresolved[in] = true
	}
	for i, b := range g.Blocks {
		if b == nil {
			c.errorf("Blocks[%d] is nil", i)
			return
		}
		if b.Index != i {
			c.errorf("Blocks[%d].Index = %d", i, b.Index)
		}
		if b.Kind == BlockVirtualExit {
			c.errorf("%s: virtual exit in Blocks", b)
		}
		if b.First != next {
			c.errorf("%s: starts at instruction %d, want %d", b, b.First, next)
			return
		}
		if len(b.Instrs) == 0 && len(fn.Instrs) > 0 {
			c.errorf("%s: empty block", b)
		}
		for k, in := range b.Instrs {
			if next+k >= len(fn.Instrs) || fn.Instrs[next+k] != in {
				c.errorf("%s: instruction %d is not Func.Instrs[%d]", b, k, next+k)
				return
			}
			if k < len(b.Instrs)-1 && FlowKind(in).IsTerminator() {
				c.errorf("%s: terminator %q is not last", b, in.Text)
			}
		}
		next += len(b.Instrs)
		var rec []*isa.Instr
		for _, in := range b.Instrs {
			if in.Kind == isa.KindReconverge {
				rec = append(rec, in)
			}
		}
		if len(rec) != len(b.Reconverge) {
			c.errorf("%s: %d reconvergence instructions, Reconverge lists %d", b, len(rec), len(b.Reconverge))
		} else {
			for k := range rec {
				if rec[k] != b.Reconverge[k] {
					c.errorf("%s: Reconverge[%d] differs", b, k)
				}
			}
		}
		c.checkKind(b, unresolved)
	}
	if next != len(fn.Instrs) {
		c.errorf("blocks cover %d instructions of %d", next, len(fn.Instrs))
	}
	for _, in := range g.Unresolved {
		b := c.blockOf(in)
		if b == nil || b.Last() != in || b.Kind != BlockIndirect {
			c.errorf("unresolved %q does not end an indirect block", in.Text)
		}
	}
}

// blockOf returns the block holding in (the blocks are in instruction
// order: checkBlocks checked it), by binary search.
func (c *checker) blockOf(in *isa.Instr) *Block {
	bs := c.g.Blocks
	i := sort.Search(len(bs), func(i int) bool { return bs[i].First+len(bs[i].Instrs) > in.Index })
	if i < len(bs) && in.Index >= bs[i].First {
		return bs[i]
	}
	return nil
}

// checkKind checks the block kind against its last instruction, and its
// successors' number, kinds and order.
func (c *checker) checkKind(b *Block, unresolved map[*isa.Instr]bool) {
	g := c.g
	last := b.Last()
	var next *Block = g.Exit
	if b.Index+1 < len(g.Blocks) {
		next = g.Blocks[b.Index+1]
	}
	fall := func(e Edge) bool {
		if next == g.Exit {
			return e.To == g.Exit && e.Kind == EdgeExit
		}
		return e.To == next && e.Kind == EdgeFallThrough
	}
	kinds := func() string {
		var ks []string
		for _, e := range b.Succs {
			ks = append(ks, e.To.Name()+":"+e.Kind.String())
		}
		return strings.Join(ks, " ")
	}
	for _, e := range b.Succs {
		if e.From != b {
			c.errorf("%s: successor edge from %s", b, e.From)
		}
	}
	guarded := last != nil && last.Guard.Reg != ""
	// withFall checks that the last successor is the fall-through when
	// guarded and returns the others.
	withFall := func() []Edge {
		s := b.Succs
		if guarded {
			if len(s) == 0 || !fall(s[len(s)-1]) {
				c.errorf("%s: guarded %s without fall-through last (succs %s)", b, b.Kind, kinds())
				return nil
			}
			s = s[:len(s)-1]
		}
		return s
	}
	switch b.Kind {
	case BlockPlain:
		if last != nil && FlowKind(last).IsTerminator() {
			c.errorf("%s: plain block ends in terminator %q", b, last.Text)
		}
		if len(b.Succs) != 1 || !fall(b.Succs[0]) {
			c.errorf("%s: plain block needs one fall-through successor, has %s", b, kinds())
		}
	case BlockIf, BlockJump:
		if last == nil || FlowKind(last) != isa.KindBranch || guarded != (b.Kind == BlockIf) {
			c.errorf("%s: %s block does not end in a matching branch", b, b.Kind)
			return
		}
		s := withFall()
		want := EdgeJump
		if guarded {
			want = EdgeTaken
		}
		if len(s) != 1 || s[0].Kind != want {
			c.errorf("%s: %s block successors %s", b, b.Kind, kinds())
		}
	case BlockIndirect:
		if last == nil || last.Kind != isa.KindIndirectBranch {
			c.errorf("%s: indirect block does not end in an indirect branch", b)
			return
		}
		s := withFall()
		for _, e := range s {
			if e.Kind != EdgeIndirect {
				c.errorf("%s: indirect block successors %s", b, kinds())
			}
		}
		if (len(s) == 0) != unresolved[last] {
			c.errorf("%s: %d targets, unresolved=%v", b, len(s), unresolved[last])
		}
	case BlockReturn, BlockExit:
		want := isa.KindReturn
		if b.Kind == BlockExit {
			want = isa.KindExit
		}
		if last == nil || last.Kind != want {
			c.errorf("%s: %s block does not end in %s", b, b.Kind, want)
			return
		}
		s := withFall()
		if len(s) != 1 || s[0].To != g.Exit || s[0].Kind != EdgeExit {
			c.errorf("%s: %s block successors %s", b, b.Kind, kinds())
		}
	default:
		c.errorf("%s: bad kind %d", b, b.Kind)
	}
}

// checkEdges checks that Succs and Preds mirror each other, with
// multiplicity, and that Preds are ordered.
func (c *checker) checkEdges() {
	g := c.g
	all := append(append([]*Block(nil), g.Blocks...), g.Exit)
	want := make([][]Edge, len(all))
	for _, b := range all {
		for _, e := range b.Succs {
			want[e.To.Index] = append(want[e.To.Index], e)
		}
	}
	for _, b := range all {
		got := b.Preds
		if len(got) != len(want[b.Index]) {
			c.errorf("%s: %d preds, %d edges lead to it", b, len(got), len(want[b.Index]))
			continue
		}
		for k, e := range got {
			if e != want[b.Index][k] {
				c.errorf("%s: Preds[%d] = %s->%s:%s, want %s->%s:%s", b, k, e.From, e.To, e.Kind,
					want[b.Index][k].From, want[b.Index][k].To, want[b.Index][k].Kind)
			}
		}
	}
}

func (c *checker) checkReach() {
	g := c.g
	if !g.Blocks[0].Reachable {
		c.errorf("entry not reachable")
	}
	for _, b := range append(append([]*Block(nil), g.Blocks...), g.Exit) {
		has := b.Index == 0
		for _, e := range b.Preds {
			if e.From.Reachable {
				has = true
			}
		}
		if has != b.Reachable {
			c.errorf("%s: Reachable = %v, has reachable predecessor = %v", b, b.Reachable, has)
		}
	}
}

func (c *checker) checkDom() {
	g := c.g
	n := len(g.Blocks) + 1
	succ, pred := g.adjacency()
	exit := int32(len(g.Blocks))
	trees := []struct {
		name      string
		t         *domTree
		root      int32
		fwd, back csr
		get       func(b *Block) *Block
	}{
		{"dominator", &g.dom, 0, succ, pred, (*Block).Idom},
		{"post-dominator", &g.pdom, exit, pred, succ, (*Block).IPdom},
	}
	for _, tr := range trees {
		t := tr.t
		if len(t.idom) != n || len(t.pre) != n || len(t.post) != n {
			c.errorf("%s tree has wrong size", tr.name)
			continue
		}
		for v := 0; v < n; v++ {
			p := t.idom[v]
			if p < 0 || int32(v) == tr.root {
				continue
			}
			if !(t.pre[p] < t.pre[v] && t.post[v] < t.post[p]) {
				c.errorf("%s tree: numbering of %s is not inside its parent %s", tr.name, g.node(int32(v)), g.node(p))
			}
		}
		for _, b := range g.Blocks {
			var want *Block
			if p := t.idom[b.Index]; p >= 0 && int32(b.Index) != tr.root {
				want = g.node(p)
			}
			if got := tr.get(b); got != want {
				c.errorf("%s tree: %s: accessor says %v, tree says %v", tr.name, b, got, want)
			}
			if !b.Reachable && t.idom[b.Index] >= 0 {
				c.errorf("%s tree contains unreachable %s", tr.name, b)
			}
		}
		refs := []struct {
			name string
			dom  func(n int, root int32, fwd, back csr) []int32
		}{{"Lengauer-Tarjan", ltDom}}
		if len(g.Blocks) <= NaiveCheckLimit {
			refs = append(refs, struct {
				name string
				dom  func(n int, root int32, fwd, back csr) []int32
			}{"naive", naiveDom})
		}
		for _, ref := range refs {
			var want []int32
			if tr.root == exit && !g.Exit.Reachable {
				want = make([]int32, n)
				for i := range want {
					want[i] = -1
				}
			} else {
				want = ref.dom(n, tr.root, tr.fwd, tr.back)
			}
			for v := 0; v < n; v++ {
				if want[v] != t.idom[v] {
					c.errorf("%s tree: idom of %s is %s, %s algorithm says %s", tr.name,
						g.node(int32(v)), nodeName(g, t.idom[v]), ref.name, nodeName(g, want[v]))
				}
			}
		}
	}
}

func nodeName(g *Graph, v int32) string {
	if v < 0 {
		return "-"
	}
	return g.node(v).Name()
}

func (c *checker) checkLoops() {
	g := c.g
	headers := map[*Block]*Loop{}
	// members counts, per loop, the blocks whose Loop chain (Block.Loop and
	// its parents: what Contains follows) reaches it; inner is, per block,
	// the smallest loop listing it in Blocks. Both cost O(blocks x depth),
	// where asking every loop about every block was quadratic.
	members := map[*Loop]int{}
	for _, b := range g.Blocks {
		for x, d := b.Loop, 0; x != nil && d <= len(g.Loops); x, d = x.Parent, d+1 {
			members[x]++
		}
	}
	inner := make([]*Loop, len(g.Blocks))
	for _, l := range g.Loops {
		for _, b := range l.Blocks {
			if b.Index >= 0 && b.Index < len(inner) && (inner[b.Index] == nil || len(l.Blocks) < len(inner[b.Index].Blocks)) {
				inner[b.Index] = l
			}
		}
	}
	for i, l := range g.Loops {
		if l.Index != i {
			c.errorf("Loops[%d].Index = %d", i, l.Index)
		}
		if i > 0 && g.Loops[i-1].Header.Index >= l.Header.Index {
			c.errorf("loops not ordered by header")
		}
		headers[l.Header] = l
		h := l.Header
		if !l.Contains(h) {
			c.errorf("loop %d: header %s not in body", i, h)
		}
		inBody := 0
		for k, b := range l.Blocks {
			if k > 0 && l.Blocks[k-1].Index >= b.Index {
				c.errorf("loop %d: blocks not sorted", i)
			}
			if !l.Contains(b) {
				c.errorf("loop %d: %s listed but not contained", i, b)
			}
			if !g.Dominates(h, b) {
				c.errorf("loop %d: header %s does not dominate %s", i, h, b)
			}
			if b != h {
				for _, e := range b.Preds {
					if e.From.Reachable && !l.Contains(e.From) {
						c.errorf("loop %d: %s has predecessor %s outside the loop", i, b, e.From)
					}
				}
			}
			for _, e := range b.Succs {
				if e.To == h && !containsBlock(l.Latches, b) {
					c.errorf("loop %d: back edge from %s missing from latches", i, b)
				}
			}
		}
		inBody = members[l]
		if inBody != len(l.Blocks) {
			c.errorf("loop %d: membership has %d blocks, Blocks %d", i, inBody, len(l.Blocks))
		}
		for _, t := range l.Latches {
			if !l.Contains(t) || !hasEdge(t, h) {
				c.errorf("loop %d: latch %s has no edge to the header or is outside", i, t)
			}
		}
		nexits := 0
		for _, b := range l.Blocks {
			for _, e := range b.Succs {
				if e.To == g.Exit || !l.Contains(e.To) {
					if nexits >= len(l.Exits) || l.Exits[nexits] != e {
						c.errorf("loop %d: exit edges differ at %s->%s", i, e.From, e.To)
					}
					nexits++
				}
			}
		}
		if nexits != len(l.Exits) {
			c.errorf("loop %d: %d exit edges, Exits lists %d", i, nexits, len(l.Exits))
		}
		if l.Parent == nil {
			if l.Depth != 1 {
				c.errorf("loop %d: outermost with depth %d", i, l.Depth)
			}
		} else {
			if l.Depth != l.Parent.Depth+1 {
				c.errorf("loop %d: depth %d, parent depth %d", i, l.Depth, l.Parent.Depth)
			}
			for _, b := range l.Blocks {
				if !l.Parent.Contains(b) {
					c.errorf("loop %d: %s not in parent loop %d", i, b, l.Parent.Index)
				}
			}
			found := false
			for _, ch := range l.Parent.Children {
				found = found || ch == l
			}
			if !found {
				c.errorf("loop %d: not among its parent's children", i)
			}
		}
	}
	// Every back edge has its loop, and each block's Loop is the
	// innermost loop containing it.
	for _, b := range g.Blocks {
		if b.Reachable {
			for _, e := range b.Succs {
				if e.To != g.Exit && g.Dominates(e.To, b) && headers[e.To] == nil {
					c.errorf("back edge %s->%s has no loop", b, e.To)
				}
			}
		}
		if b.Loop != inner[b.Index] {
			c.errorf("%s: Loop is %v, innermost containing loop is %v", b, loopName(b.Loop), loopName(inner[b.Index]))
		}
	}
	for _, r := range g.Irreducible {
		if len(r.Entries) < 2 {
			c.errorf("irreducible region with %d entries", len(r.Entries))
		}
	}
}

func loopName(l *Loop) string {
	if l == nil {
		return "none"
	}
	return "loop " + itoa(l.Index)
}

func containsBlock(bs []*Block, b *Block) bool {
	for _, x := range bs {
		if x == b {
			return true
		}
	}
	return false
}

func hasEdge(from, to *Block) bool {
	for _, e := range from.Succs {
		if e.To == to {
			return true
		}
	}
	return false
}
