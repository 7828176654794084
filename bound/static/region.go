package static

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// Region is the bound of a region of a kernel: the part of an execution
// from the barrier From (nil: the kernel's start) to the next crossing of
// one of the barriers in To (a nil entry: the kernel's end).
type Region struct {
	From *isa.Instr
	To   []*isa.Instr
	// Bound covers every execution of the region from completion to
	// completion: from the first cycle at which the block is released
	// from From and every result issued before is ready, to the cycle at
	// which every result issued before the release of the To barrier
	// crossed is ready (the block's end for nil). With barriers that do
	// not drain (docs/model.md, reach semantics) results may still be in
	// flight at a release; the section induction of docs/model.md
	// ("Sections: why summing is sound") starts from a drained SM, so the
	// sum of the sections crossed bounds completion to completion, not
	// release to release.
	Bound hwdesc.Cycles
	// Path lists the sections of a longest path, in order, when the
	// region crosses no loop holding barriers; otherwise Crossings gives
	// the sections of a worst stretch with their counts (nil when they
	// cannot be told apart).
	Path      []*Segment
	Crossings []Crossing
	// Lower is a lower bound of every execution of the region from
	// release to release (the block alone or sharing its SM): the largest
	// of LowerWarp and LowerIssued (regionLower); 0 when none is known.
	Lower                  hwdesc.Cycles
	LowerWarp, LowerIssued hwdesc.Cycles
}

// Region bounds the executions between two barriers of the barrier path:
// from barrier from (nil: the start of the block) until the block first
// crosses one of the barriers to (nil in to: the end of the block),
// without crossing from again, from completion to completion (Region.Bound)
// and from release to release (Region.Lower). A PREM phase delimited by
// barriers is such a region (docs/prem.md, "Phase bounds").
//
// The bound is the barrier-path walk of the block bound (docs/model.md,
// "Edge-weighted barrier path") started at from in the context of from
// and stopped at the barriers of to: each section crossed costs its bound,
// and by the section induction (anchored at the region's first completion
// instead of the block's start) the sum over a stretch covers it. A loop
// the stretch crosses that holds barriers but neither from nor one of to
// is summarised with its bound, as the block bound does (its sections
// counted once per iteration); a loop holding from or one of to is walked,
// and each of its cycles must pass one of them. The region needs only the
// bounds of the loops its stretches cross: with Input.Partial it is
// bounded even when the block is not, and refused (an *Error with
// Unbounded set) when a stretch needs an unknown bound.
//
// A one-warp block bounded as one section has no barrier structure: only
// the whole block (nil, [nil]) is a region.
func (r *Result) Region(from *isa.Instr, to []*isa.Instr) (*Region, error) {
	if len(to) == 0 {
		return nil, fmt.Errorf("static: region from %s: no end given", r.barText(from, "the start"))
	}
	stop := map[*isa.Instr]bool{}
	stopEnd := false
	for _, t := range to {
		if t == nil {
			stopEnd = true
		} else {
			stop[t] = true
		}
	}
	if f := r.Failed[from]; f != nil {
		return nil, fmt.Errorf("static: the sections from %s are not bounded: %w", r.barText(from, "the start"), f.Err)
	}
	starts := map[*isa.Instr]bool{}
	for _, s := range r.Segments {
		starts[s.From] = true
	}
	if !starts[from] {
		if r.OneWarp && from == nil {
			return nil, fmt.Errorf("static: the block is one warp bounded as a single section: only the whole block is a region")
		}
		return nil, fmt.Errorf("static: no barrier section starts at %s", r.barText(from, "the start"))
	}
	path, pathBound, cyclic, err := r.regionPath(from, stop, stopEnd)
	if err != nil {
		return nil, err
	}
	if r.rg == nil {
		// A one-warp block: its single section is the region.
		if cyclic || pathBound < 0 {
			return nil, fmt.Errorf("static: no path from %s reaches %s", r.barText(from, "the start"), r.endsText(to))
		}
		return &Region{From: from, To: to, Bound: hwdesc.Cycles(pathBound), Path: path}, nil
	}
	w, ok, err := r.regionWalk(r.rg.sg, from, to, stop, stopEnd)
	if err != nil {
		return nil, fmt.Errorf("static: region from %s to %s: %w", r.barText(from, "the start"), r.endsText(to), err)
	}
	if !ok {
		return nil, fmt.Errorf("static: no path from %s reaches %s", r.barText(from, "the start"), r.endsText(to))
	}
	reg := &Region{From: from, To: to, Bound: hwdesc.Cycles(w)}
	if !cyclic && pathBound == w {
		reg.Path = path
	} else {
		reg.Crossings = r.regionCrossings(from, to, stop, stopEnd, w)
	}
	if err := r.regionLower(reg, stop, stopEnd); err != nil {
		return nil, err
	}
	return reg, nil
}

// regionLower sets the region's lower bound: every execution, from the
// release of from to the release of the first barrier of to (or the end),
// lasts at least
//
//   - LowerWarp: for each class, the shortest isolated time from a warp's
//     release to its arrival at a barrier of to (the issue cycle of its last
//     instruction before it; its End for the block's end), over the class's
//     paths with the loops entered inside the region at their minimum (no
//     back edge), joins taking the entrywise minimum, other barriers passed
//     at once. Every warp is released at the same cycle t0 and its state
//     then is at least the idle one; by monotonicity and extensivity of Step
//     (docs/model.md, "Lower bounds") its real arrival is no earlier, and a
//     path that goes around a loop entered in the region reaches each point
//     after its first pass no earlier than the first pass does. A loop that
//     holds from keeps its back edge: going around it is the region's way
//     to its end (the next tile's release), not a second pass, and a path
//     that meets from again is not a stretch of the region.
//   - LowerIssued: the region's instructions of all warps issue at distinct
//     cycles (one per cycle per SM), all at or after t0 and before the
//     release of to: Σ over classes of warps × fewest issues, minus one.
//
// A class whose region graph has a cycle (a loop holding from whose cycles
// can avoid it, which Region refuses anyway) gives no lower bound.
func (r *Result) regionLower(reg *Region, stop map[*isa.Instr]bool, stopEnd bool) error {
	rg := r.rg
	if rg == nil || rg.eng == nil {
		return nil
	}
	from := reg.From
	var issued int64
	for _, c := range rg.classes {
		warp, iss, ok, err := lowerStretch(c.Graph, rg.ops, rg.eng, from, stop, stopEnd)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		reg.LowerWarp = max(reg.LowerWarp, warp)
		x, fits := mulAdd(issued, int64(len(c.Warps)), int64(iss))
		if !fits {
			return fmt.Errorf("static: region lower bound overflows 64-bit cycles")
		}
		issued = x
	}
	reg.LowerIssued = hwdesc.Cycles(max(issued-1, 0))
	reg.Lower = max(reg.LowerWarp, reg.LowerIssued)
	return nil
}

// lowerStretch returns, over the paths of g from barrier from (nil: the
// entry) to the first barrier of stop (or the end, with stopEnd), the
// shortest isolated arrival of a warp and its fewest issued instructions
// (regionLower); ok is false when no path reaches the region's end or the
// region graph has a cycle.
func lowerStretch(g *cfg.Graph, ops map[*isa.Instr]*phases.Op, eng *phases.Engine, from *isa.Instr, stop map[*isa.Instr]bool, stopEnd bool) (warp, iss hwdesc.Cycles, ok bool, err error) {
	nb := len(g.Blocks)
	startB, startK := g.Entry(), 0
	if from != nil {
		found := false
		for _, b := range g.Blocks {
			for i, x := range b.Instrs {
				if x == from && b.Reachable {
					startB, startK, found = b, i+1, true
				}
			}
		}
		if !found {
			return 0, 0, false, nil
		}
	}
	holdsFrom := func(l *cfg.Loop) bool { return from != nil && l.Contains(startB) }
	back := func(e cfg.Edge) bool {
		for l := e.From.Loop; l != nil; l = l.Parent {
			if l.Header == e.To {
				return !holdsFrom(l)
			}
		}
		return false
	}
	// Node nb is the rest of the start block after from; the others are
	// blocks from their first instruction. scan returns where a node's
	// walk stops: the index of the first stop barrier or of from (-1:
	// none).
	first := func(n int) (*cfg.Block, int) {
		if n == nb {
			return startB, startK
		}
		return g.Blocks[n], 0
	}
	scan := func(n int) int {
		b, k := first(n)
		for j := k; j < len(b.Instrs); j++ {
			if x := b.Instrs[j]; phases.IsSync(x) && (stop[x] || x == from) {
				return j
			}
		}
		return -1
	}
	succ := func(n int) []cfg.Edge {
		if scan(n) >= 0 {
			return nil
		}
		b, _ := first(n)
		var out []cfg.Edge
		for _, e := range b.Succs {
			if !back(e) {
				out = append(out, e)
			}
		}
		return out
	}
	idx := func(b *cfg.Block) int {
		if b == g.Exit {
			return nb + 1
		}
		return b.Index
	}
	// Kahn's order over the nodes reachable from the start.
	indeg := make([]int, nb+2)
	seen := make([]bool, nb+2)
	stack := []int{nb}
	seen[nb] = true
	reached := 1
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range succ(n) {
			t := idx(e.To)
			indeg[t]++
			if !seen[t] {
				seen[t] = true
				if e.To != g.Exit {
					reached++
					stack = append(stack, t)
				}
			}
		}
	}
	type lval struct {
		ok  bool
		s   *phases.State
		iss hwdesc.Cycles
	}
	vals := make([]lval, nb+2)
	meet := func(dst *lval, v lval) {
		if !dst.ok {
			*dst = lval{ok: true, s: v.s.Clone(), iss: v.iss}
			return
		}
		dst.s = meetState(dst.s, v.s)
		dst.iss = min(dst.iss, v.iss)
	}
	var best lval
	arrive := func(v lval, t hwdesc.Cycles) {
		if !best.ok {
			best = lval{ok: true, s: &phases.State{End: t}, iss: v.iss}
			return
		}
		best.s.End = min(best.s.End, t)
		best.iss = min(best.iss, v.iss)
	}
	vals[nb] = lval{ok: true, s: eng.NewState()}
	queue := []int{nb}
	visited := 0
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		visited++
		v := vals[n]
		if !v.ok {
			continue
		}
		b, k := first(n)
		end := len(b.Instrs)
		j := scan(n)
		if j >= 0 {
			end = j
		}
		var last phases.Timing
		for _, x := range b.Instrs[k:end] {
			op := ops[x]
			if op == nil {
				return 0, 0, false, fmt.Errorf("static: internal error: instruction %q not prepared", x.Text)
			}
			last = phases.Step(v.s, op)
			if op.Issues() {
				v.iss++
			}
		}
		if j >= 0 {
			if x := b.Instrs[j]; stop[x] {
				arrive(v, max(v.s.Next-1, 0))
			}
			continue // from again: not a stretch of the region
		}
		for _, e := range succ(n) {
			out := v
			if e.To != g.Exit && len(b.Instrs) > 0 {
				out.s = lowerEdgeState(g, ops, b, e.To, v.s, last)
			}
			t := idx(e.To)
			if e.To == g.Exit {
				if stopEnd {
					arrive(out, out.s.End)
				}
				continue
			}
			meet(&vals[t], out)
			indeg[t]--
			if indeg[t] == 0 {
				queue = append(queue, t)
			}
		}
	}
	if visited != reached || !best.ok {
		return 0, 0, false, nil
	}
	return best.s.End, best.iss, true, nil
}

// Crossing is a section a worst stretch of a region crosses, with the
// number of times it crosses it.
type Crossing struct {
	Segment *Segment
	Count   int64
}

// regionWalk is the barrier-path walk of a region over the section graph
// sg: from the release of from (context from, weight 0) to the first
// crossing of a barrier of stop (or the end, with stopEnd).
func (r *Result) regionWalk(sg *sectionGraph, from *isa.Instr, to []*isa.Instr, stop map[*isa.Instr]bool, stopEnd bool) (int64, bool, error) {
	rg := r.rg
	g := rg.g
	stops := map[*isa.Instr]bool{}
	for t := range stop {
		stops[t] = true
	}
	b, k := g.Entry(), 0
	if from != nil {
		stops[from] = true
		found := false
		for _, blk := range g.Blocks {
			if !blk.Reachable {
				continue
			}
			for i, x := range blk.Instrs {
				if x == from {
					b, k, found = blk, i+1, true
				}
			}
		}
		if !found {
			return 0, false, fmt.Errorf("%s is not in the kernel's graph", r.barText(from, "the start"))
		}
	}
	hasBar := make([]bool, len(g.Loops))
	for _, l := range g.Loops {
		for _, blk := range l.Blocks {
			for _, x := range blk.Instrs {
				if stops[x] {
					hasBar[l.Index] = true
				}
			}
		}
	}
	// A private copy of the section graph: its memoised loop iterations
	// are the walker's.
	sgr := &sectionGraph{id: sg.id, end: sg.end, s: sg.s, failed: sg.failed, iter: map[[2]int]*outcome{}}
	w := &walker{g: g, ops: rg.ops, d: rg.d, stop: true, stops: stops, bound: rg.bound, hasBar: hasBar,
		cache: map[string][]exitVal{}, sect: sgr}
	o, err := w.walk(nil, b, k, val{ok: true, c: ctxVec{sg.id[from]: 0}})
	if err != nil {
		return 0, false, err
	}
	var total int64
	ok := false
	take := func(c ctxVec, node int) error {
		x, has, err := sgr.cross(c, node)
		if err != nil {
			return err
		}
		if has && (!ok || x > total) {
			total, ok = x, true
		}
		return nil
	}
	for _, t := range to {
		var err error
		switch {
		case t == nil && o.end.ok:
			err = take(o.end.c, sg.end)
		case t != nil && o.arrivals[t] != nil && o.arrivals[t].ok:
			err = take(o.arrivals[t].c, sg.id[t])
		}
		if err != nil {
			return 0, false, err
		}
	}
	return total, ok, nil
}

// regionCrossings returns, for a region whose worst stretch is not one
// path of sections (it crosses a loop holding barriers), how many times
// that stretch crosses each section: the region walk with the weights
// M·S(p) + [p = e] for each pair e (as sectionCounts). nil when a count
// is not exact or there are too many pairs.
func (r *Result) regionCrossings(from *isa.Instr, to []*isa.Instr, stop map[*isa.Instr]bool, stopEnd bool, total int64) []Crossing {
	sg := r.rg.sg
	pairs := slices.SortedFunc(maps.Keys(sg.s), func(x, y [2]int) int {
		if x[0] != y[0] {
			return x[0] - y[0]
		}
		return x[1] - y[1]
	})
	if len(pairs) > maxCountWalks {
		return nil
	}
	base, fits := mulAdd(0, countScale, total)
	if !fits {
		return nil
	}
	count := map[[2]int]int64{}
	for _, e := range pairs {
		sc := &sectionGraph{id: sg.id, end: sg.end, failed: sg.failed, s: map[[2]int]int64{}}
		for p, x := range sg.s {
			y, fits := mulAdd(0, countScale, x)
			if !fits {
				return nil
			}
			if p == e {
				y++
			}
			sc.s[p] = y
		}
		t, ok, err := r.regionWalk(sc, from, to, stop, stopEnd)
		if err != nil || !ok || t < base || t-base >= countScale {
			return nil
		}
		count[e] = t - base
	}
	var out []Crossing
	var sum int64
	seen := map[[2]int]bool{}
	for _, s := range r.Segments {
		p := sg.pair(s)
		if count[p] == 0 || int64(s.Bound) != sg.s[p] || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, Crossing{Segment: s, Count: count[p]})
		sum += count[p] * int64(s.Bound)
	}
	if sum != total {
		return nil // the worst stretches tie with different counts
	}
	return out
}

// regionPath is the longest path over the section graph from from to the
// first of stop (or the end, with stopEnd), each section costing its
// bound, without the loop bounds: cyclic reports a cycle of the section
// graph in the region (a loop holding barriers), for which the path says
// nothing; the bound is -1 when no path reaches the region's end.
func (r *Result) regionPath(from *isa.Instr, stop map[*isa.Instr]bool, stopEnd bool) ([]*Segment, int64, bool, error) {
	// out lists, per start node, the heaviest segment to each successor.
	type edge struct {
		to  *isa.Instr
		end bool
		seg *Segment
	}
	out := map[*isa.Instr][]edge{}
	for _, s := range r.Segments {
		e := edge{to: s.To, end: s.To == nil, seg: s}
		found := false
		for i, x := range out[s.From] {
			if x.to == e.to && x.end == e.end {
				if s.Bound > x.seg.Bound {
					out[s.From][i] = e
				}
				found = true
			}
		}
		if !found {
			out[s.From] = append(out[s.From], e)
		}
	}
	// Longest path by depth-first search with memoisation; a node met
	// again on the current path is a barrier loop inside the region.
	const (
		unseen = iota
		active
		done
	)
	state := map[*isa.Instr]int{}
	best := map[*isa.Instr]int64{} // -1: the region's end is not reached
	next := map[*isa.Instr]edge{}
	cyclic := false
	var visit func(n *isa.Instr) (int64, error)
	visit = func(n *isa.Instr) (int64, error) {
		switch state[n] {
		case active:
			cyclic = true
			return -1, nil
		case done:
			return best[n], nil
		}
		state[n] = active
		w := int64(-1)
		for _, e := range out[n] {
			var x int64
			switch {
			case e.end && stopEnd, !e.end && stop[e.to]:
				x = int64(e.seg.Bound)
			case e.end, e.to == from:
				continue // the end, or from again, before the region's end
			default:
				y, err := visit(e.to)
				if err != nil {
					return 0, err
				}
				if y < 0 {
					continue
				}
				var ok bool
				if x, ok = mulAdd(y, 1, int64(e.seg.Bound)); !ok {
					return 0, errOverflow
				}
			}
			if x > w {
				w = x
				next[n] = e
			}
		}
		state[n] = done
		best[n] = w
		return w, nil
	}
	w, err := visit(from)
	if err != nil || cyclic || w < 0 {
		return nil, w, cyclic, err
	}
	var path []*Segment
	for n := from; ; {
		e := next[n]
		path = append(path, e.seg)
		if (e.end && stopEnd) || (!e.end && stop[e.to]) {
			break
		}
		n = e.to
	}
	return path, w, false, nil
}

func (r *Result) barText(in *isa.Instr, none string) string {
	if in == nil {
		return none
	}
	if r.rg != nil {
		if p := position(r.rg.g.Fset, in.Pos); p.IsValid() {
			return fmt.Sprintf("barrier %q at %s", in.Text, p)
		}
	}
	return fmt.Sprintf("barrier %q (instruction %d)", in.Text, in.Index)
}

func (r *Result) endsText(to []*isa.Instr) string {
	s := ""
	for i, t := range to {
		if i > 0 {
			s += " or "
		}
		s += r.barText(t, "the end")
	}
	return s
}
