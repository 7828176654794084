package cfg

import "sort"

// findLoops finds the natural loops: for each header h, the back edges
// t→h where h dominates t, and the body, h plus every block that reaches
// some t without going through h. Loops with one header are merged (a loop
// with several back edges, as a `continue` produces). Natural loops are
// disjoint or nested, so the innermost loop of a block is well defined.
func (g *Graph) findLoops() {
	nb := len(g.Blocks)
	var byHeader []*Loop
	loopOf := map[*Block]*Loop{}
	for _, t := range g.Blocks {
		if !t.Reachable {
			continue
		}
		for _, e := range t.Succs {
			h := e.To
			if h == g.Exit || !g.Dominates(h, t) {
				continue
			}
			l := loopOf[h]
			if l == nil {
				l = &Loop{Header: h}
				loopOf[h] = l
				byHeader = append(byHeader, l)
			}
			if n := len(l.Latches); n == 0 || l.Latches[n-1] != t {
				l.Latches = append(l.Latches, t) // t ascends in this loop
			}
		}
	}
	if len(byHeader) == 0 {
		return
	}
	sort.Slice(byHeader, func(i, j int) bool { return byHeader[i].Header.Index < byHeader[j].Header.Index })

	// Bodies, marking membership with the loop's stamp in a shared array
	// (a bitmap per loop would be quadratic on large kernels).
	mark := make([]int32, nb)
	var stack []*Block
	for k, l := range byHeader {
		stamp := int32(k + 1)
		mark[l.Header.Index] = stamp
		body := []*Block{l.Header}
		stack = stack[:0]
		for _, t := range l.Latches {
			if mark[t.Index] != stamp {
				mark[t.Index] = stamp
				body = append(body, t)
				stack = append(stack, t)
			}
		}
		for len(stack) > 0 {
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, e := range b.Preds {
				p := e.From
				if p.Reachable && mark[p.Index] != stamp {
					mark[p.Index] = stamp
					body = append(body, p)
					stack = append(stack, p)
				}
			}
		}
		sort.Slice(body, func(i, j int) bool { return body[i].Index < body[j].Index })
		l.Blocks = body
		for _, b := range l.Blocks {
			for _, e := range b.Succs {
				if e.To == g.Exit || mark[e.To.Index] != stamp {
					l.Exits = append(l.Exits, e)
				}
			}
		}
	}

	// Nesting: visit loops from the largest body down; a block's current
	// loop is then the innermost one seen so far that contains it.
	bySize := append([]*Loop(nil), byHeader...)
	sort.SliceStable(bySize, func(i, j int) bool { return len(bySize[i].Blocks) > len(bySize[j].Blocks) })
	for _, l := range bySize {
		l.Parent = l.Header.Loop
		if l.Parent != nil {
			l.Depth = l.Parent.Depth + 1
		} else {
			l.Depth = 1
		}
		for _, b := range l.Blocks {
			b.Loop = l
		}
	}
	for i, l := range byHeader {
		l.Index = i
		if l.Parent != nil {
			l.Parent.Children = append(l.Parent.Children, l)
		}
	}
	g.Loops = byHeader
}

// findIrreducible reports the strongly connected regions entered at more
// than one block, by the loop-nesting decomposition of Steensgaard (and
// Ramalingam, "On loops, dominators, and dominance frontiers", 2002): find
// the SCCs of the reachable graph; in each non-trivial SCC the entries are
// the blocks with a predecessor outside it (or the function entry); an SCC
// with several entries is an irreducible region; in either case, remove
// the edges into the entries and decompose the SCC again. This also finds
// irreducible regions nested inside natural loops.
func (g *Graph) findIrreducible() {
	nb := len(g.Blocks)
	cut := make([]bool, nb) // edges into these blocks are ignored
	member := make([]int32, nb)
	for i := range member {
		member[i] = -1
	}
	var sc sccFinder
	sc.init(nb)
	stamp := int32(0)

	var work [][]int32
	var all []int32
	for _, b := range g.Blocks {
		if b.Reachable {
			all = append(all, int32(b.Index))
		}
	}
	work = append(work, all)
	for len(work) > 0 {
		nodes := work[len(work)-1]
		work = work[:len(work)-1]
		stamp++
		for _, v := range nodes {
			member[v] = stamp
		}
		sccs := sc.find(g, nodes, member, stamp, cut)
		for _, s := range sccs {
			if len(s) == 1 {
				v := s[0]
				self := false
				for _, e := range g.Blocks[v].Succs {
					if e.To.Index == int(v) && !cut[v] {
						self = true
					}
				}
				if !self {
					continue
				}
			}
			stamp++
			for _, v := range s {
				member[v] = stamp
			}
			var entries []*Block
			for _, v := range s {
				b := g.Blocks[v]
				entry := v == 0
				for _, e := range b.Preds {
					if e.From.Reachable && member[e.From.Index] != stamp {
						entry = true
						break
					}
				}
				if entry {
					entries = append(entries, b)
				}
			}
			sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
			sort.Slice(entries, func(i, j int) bool { return entries[i].Index < entries[j].Index })
			if len(entries) > 1 {
				r := &Region{Entries: entries, Blocks: make([]*Block, len(s))}
				for i, v := range s {
					r.Blocks[i] = g.Blocks[v]
				}
				g.Irreducible = append(g.Irreducible, r)
			}
			for _, b := range entries {
				cut[b.Index] = true
			}
			work = append(work, s)
		}
	}
	sort.SliceStable(g.Irreducible, func(i, j int) bool {
		a, b := g.Irreducible[i], g.Irreducible[j]
		if a.Blocks[0].Index != b.Blocks[0].Index {
			return a.Blocks[0].Index < b.Blocks[0].Index
		}
		return len(a.Blocks) > len(b.Blocks)
	})
}

// sccFinder is Tarjan's algorithm, iterative, reusable across calls.
type sccFinder struct {
	index, low []int32
	onStack    []bool
	stack      []int32
}

func (s *sccFinder) init(n int) {
	s.index = make([]int32, n)
	s.low = make([]int32, n)
	s.onStack = make([]bool, n)
}

// find returns the SCCs of the subgraph induced by nodes (those with
// member[v] == stamp), ignoring edges into cut blocks.
func (s *sccFinder) find(g *Graph, nodes []int32, member []int32, stamp int32, cut []bool) [][]int32 {
	for _, v := range nodes {
		s.index[v] = -1
	}
	var out [][]int32
	next := int32(0)
	type frame struct {
		v int32
		i int
	}
	var call []frame
	for _, r := range nodes {
		if s.index[r] >= 0 {
			continue
		}
		call = append(call[:0], frame{r, 0})
		s.index[r], s.low[r] = next, next
		next++
		s.stack = append(s.stack, r)
		s.onStack[r] = true
		for len(call) > 0 {
			top := &call[len(call)-1]
			v := top.v
			succs := g.Blocks[v].Succs
			if top.i < len(succs) {
				w := int32(succs[top.i].To.Index)
				top.i++
				if int(w) >= len(g.Blocks) || member[w] != stamp || cut[w] {
					continue
				}
				if s.index[w] < 0 {
					s.index[w], s.low[w] = next, next
					next++
					s.stack = append(s.stack, w)
					s.onStack[w] = true
					call = append(call, frame{w, 0})
				} else if s.onStack[w] && s.index[w] < s.low[v] {
					s.low[v] = s.index[w]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				if s.low[v] < s.low[u] {
					s.low[u] = s.low[v]
				}
			}
			if s.low[v] == s.index[v] {
				var comp []int32
				for {
					w := s.stack[len(s.stack)-1]
					s.stack = s.stack[:len(s.stack)-1]
					s.onStack[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				out = append(out, comp)
			}
		}
	}
	return out
}
