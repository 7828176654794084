package static

import (
	"fmt"
	"maps"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// Loop acceleration parameters: explicit iterations before the shift
// argument, and widening rounds before falling back to the largest entry
// growth (docs/model.md, "Loops: iteration up to a time shift"). Neither
// depends on the numeric value of a loop bound.
// They are variables only so that tests can force the acceleration on
// small bounds.
var (
	exactIters  int64 = 4
	widenRounds       = 6
)

const maxWalkNodes = 1 << 22 // guard against pathological nesting

// val is the abstract value at a program point: an upper bound of the
// warp's timing state (nil when time is not tracked) and of the weight
// accumulated so far (the load InitSum + Issued, and per resource in l), or, on
// the barrier path, the context vector of the section bounds crossed so
// far (sections.go). ok is false for "unreachable".
type val struct {
	s   *phases.State
	i   int64
	l   []phases.Load // per-resource weights (walkers with loads set), each an independent longest path; shared, copied on write
	ok  bool
	wit *witness // a path realising i (walkers with track set), nil otherwise
	c   ctxVec   // the barrier path's context vector (walkers with sect set), nil otherwise
}

// join sets v to the entrywise later/larger of v and o; v owns its state.
func (v *val) join(o val) {
	if !o.ok {
		return
	}
	if !v.ok {
		*v = val{i: o.i, ok: true, wit: o.wit, l: o.l}
		if o.s != nil {
			v.s = o.s.Clone()
		}
		if o.c != nil {
			v.c = maps.Clone(o.c)
		}
		return
	}
	if v.s != nil && o.s != nil {
		v.s.Join(o.s)
	}
	if o.c != nil {
		if v.c == nil {
			v.c = ctxVec{}
		}
		v.c.join(o.c)
	}
	if o.i > v.i {
		v.i, v.wit = o.i, o.wit // ties keep the first path met (deterministic order)
	}
	v.l = joinLoads(v.l, o.l)
}

// joinLoads returns the entrywise maximum of a and b, without modifying
// either (a or b itself when it is already the maximum).
func joinLoads(a, b []phases.Load) []phases.Load {
	if len(b) <= len(a) && leqLoads(b, a) {
		return a
	}
	if len(a) <= len(b) && leqLoads(a, b) {
		return b
	}
	out := make([]phases.Load, max(len(a), len(b)))
	copy(out, a)
	for r, x := range b {
		out[r].Issued = max(out[r].Issued, x.Issued)
		out[r].InitSum = max(out[r].InitSum, x.InitSum)
	}
	return out
}

// leqLoads reports whether a ≤ b entrywise (missing entries are 0).
func leqLoads(a, b []phases.Load) bool {
	for r, x := range a {
		var y phases.Load
		if r < len(b) {
			y = b[r]
		}
		if x.Issued > y.Issued || x.InitSum > y.InitSum {
			return false
		}
	}
	return true
}

// mulAddLoads returns a + m·b entrywise, false on overflow (the head room
// of mulAdd).
func mulAddLoads(a []phases.Load, m int64, b []phases.Load) ([]phases.Load, bool) {
	out := make([]phases.Load, max(len(a), len(b)))
	copy(out, a)
	for r, x := range b {
		i, ok1 := mulAdd(out[r].Issued, m, x.Issued)
		s, ok2 := mulAdd(int64(out[r].InitSum), m, int64(x.InitSum))
		if !ok1 || !ok2 {
			return nil, false
		}
		out[r] = phases.Load{Issued: i, InitSum: hwdesc.Cycles(s)}
	}
	return out, true
}

// walker runs the structural analysis over one graph.
type walker struct {
	g     *cfg.Graph
	ops   map[*isa.Instr]*phases.Op
	d     dims
	timed bool // track the timing state
	stop  bool // segment mode: stop at block-wide barriers; loops holding one are walked, not summarised
	// stops, when set (region mode, Result.Region), restricts stop to
	// these barriers: the others are crossed (context mode), and hasBar
	// then marks the loops holding one of them.
	stops map[*isa.Instr]bool
	// drain: one-warp mode (analyzeOneWarp): a block-wide barrier is
	// stepped like any instruction, then drains the warp (drainState).
	drain  bool
	weight func(op *phases.Op) int64
	// loads: also compute, per resource, the longest path for the
	// instructions issued there and for their initiation intervals
	// (val.l), each a weight like weight.
	loads  bool
	hasBar []bool // by loop index: the loop's body holds a block-wide barrier
	// freeBar (segment mode, by loop index): the loop holds a barrier and
	// it or a loop nested in it has a cycle through its header that
	// passes no barrier (freeBarrierCycles). Such a loop is summarised in
	// segment mode like a loop without barrier, its barriers ending the
	// walk like exits (docs/model.md, "Barrier loops with barrier-free
	// iterations").
	freeBar []bool
	// open (segment mode, by loop index, for the walk in progress from a
	// barrier): the loops containing that barrier. A section starting
	// there is inside the current iteration of each: their blocks are
	// walked, and the header of a freeBar one, reached by its back edge,
	// is its continuation node (the rest of that entry of the loop).
	open  []bool
	bound func(l *cfg.Loop) (int64, error)
	cache map[string][]exitVal
	nodes int // nodes visited, for the guard

	// pipe is the description's pipeline: the control hazard of
	// redirecting edges without a branch (edgeWait).
	pipe hwdesc.Pipeline
	// track: record a witness path for the weight (val.wit) and, when
	// timed, the largest End increase of each block range (delay).
	track bool
	delay map[blockRange]hwdesc.Cycles

	// sect: the barrier-path walk (context mode, docs/model.md,
	// "Edge-weighted barrier path"): values carry context vectors, a
	// block-wide barrier crosses a section graph edge, loops are
	// summarised by summarizeCtx; weight is unused.
	sect *sectionGraph
}

// blockRange is the instructions lo..hi-1 of block blk: a whole block, or
// the part of one before or after a block-wide barrier.
type blockRange struct{ blk, lo, hi int }

type exitVal struct {
	e   cfg.Edge
	v   val
	bar *isa.Instr // segment mode: an arrival at this barrier instead of exit e
}

// outcome is what a walk of a region computes.
type outcome struct {
	back     val                 // at the region's back edges (loop regions)
	exits    map[cfg.Edge]*val   // at edges leaving the region (loop regions)
	arrivals map[*isa.Instr]*val // at block-wide barriers (segment mode)
	barOrder []*isa.Instr        // arrivals in first-reached order
	end      val                 // at the virtual exit (top-level regions)
}

type target struct {
	kind int // tNode, tBack, tExit, tEnd
	node int
	e    cfg.Edge
}

const (
	tNode = iota
	tBack
	tExit
	tEnd
)

// nodeOf returns the node entering block b from inside region: b itself, or
// the outermost summarised loop that b heads.
func (w *walker) nodeOf(region *cfg.Loop, b *cfg.Block) (int, error) {
	var out *cfg.Loop
	for l := b.Loop; l != nil && l != region; l = l.Parent {
		if w.open != nil && w.open[l.Index] {
			break // the walk started inside l (and its parents)
		}
		if w.summarised(l) {
			out = l
		}
	}
	if out == nil {
		return b.Index, nil
	}
	if out.Header != b {
		return 0, &Error{Pos: w.pos(b.Pos()), Msg: fmt.Sprintf("control enters the loop headed at %s other than through its header", w.posString(out.Header.Pos())), Unbounded: true}
	}
	return len(w.g.Blocks) + out.Index, nil
}

// summarised reports whether the walk summarises loop l when it enters it:
// always outside segment mode; in segment mode a loop holding a barrier
// only when it has barrier-free iterations (freeBar; not in region mode).
func (w *walker) summarised(l *cfg.Loop) bool {
	if !w.stop || !w.hasBar[l.Index] {
		return true
	}
	return w.stops == nil && w.freeBar != nil && w.freeBar[l.Index]
}

// contNode is the node of the rest of the current entry of loop l, an
// open freeBar loop whose header the walk reaches by a back edge.
func (w *walker) contNode(l *cfg.Loop) int {
	return len(w.g.Blocks) + len(w.g.Loops) + 1 + l.Index
}

func (w *walker) route(region *cfg.Loop, e cfg.Edge) (target, error) {
	if w.open != nil && e.To != w.g.Exit {
		if l := e.To.Loop; l != nil && l.Header == e.To && w.open[l.Index] && w.summarised(l) {
			return target{kind: tNode, node: w.contNode(l)}, nil
		}
	}
	switch {
	case e.To == w.g.Exit:
		if region == nil {
			return target{kind: tEnd}, nil
		}
		return target{kind: tExit, e: e}, nil
	case region != nil && e.To == region.Header:
		return target{kind: tBack}, nil
	case region != nil && !region.Contains(e.To):
		return target{kind: tExit, e: e}, nil
	}
	n, err := w.nodeOf(region, e.To)
	return target{kind: tNode, node: n}, err
}

// barrierAt returns the index of the first block-wide barrier of b at or
// after k, or -1 (always -1 outside segment mode).
func (w *walker) barrierAt(b *cfg.Block, k int) int {
	if !w.stop {
		return -1
	}
	for j := k; j < len(b.Instrs); j++ {
		if phases.IsSync(b.Instrs[j]) && (w.stops == nil || w.stops[b.Instrs[j]]) {
			return j
		}
	}
	return -1
}

// succs lists the targets of a node.
func (w *walker) succs(region *cfg.Loop, n int, startBlock *cfg.Block, startK int) ([]target, error) {
	nb, nl := len(w.g.Blocks), len(w.g.Loops)
	var edges []cfg.Edge
	switch {
	case n < nb || n == nb+nl:
		b, k := startBlock, startK
		if n < nb {
			b, k = w.g.Blocks[n], 0
		}
		if w.barrierAt(b, k) >= 0 {
			return nil, nil
		}
		edges = b.Succs
	case n > nb+nl:
		edges = w.g.Loops[n-nb-nl-1].Exits
	default:
		edges = w.g.Loops[n-nb].Exits
	}
	ts := make([]target, 0, len(edges))
	for _, e := range edges {
		t, err := w.route(region, e)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// walk propagates in from instruction k of block b through region (a loop
// whose back edges and exits end the walk, or nil for the whole graph).
// Inner loops are summarised; in segment mode, block-wide barriers end the
// walk and loops holding one are walked through when each of their cycles
// passes a barrier, summarised with their barriers as exits otherwise
// (freeBar), and the header of an open freeBar loop reached by its back
// edge is the rest of that entry of the loop (contNode).
func (w *walker) walk(region *cfg.Loop, b *cfg.Block, k int, in val) (*outcome, error) {
	nb, nl := len(w.g.Blocks), len(w.g.Loops)
	// A segment walk from a barrier (the middle of block b) starts inside
	// the current iteration of every loop containing b.
	defer func(o []bool) { w.open = o }(w.open)
	w.open = nil
	if region == nil && k > 0 && w.stop && w.stops == nil && w.freeBar != nil {
		w.open = make([]bool, nl)
		for l := b.Loop; l != nil; l = l.Parent {
			w.open[l.Index] = true
		}
	}
	var start int
	if k > 0 {
		start = nb + nl
	} else {
		var err error
		if start, err = w.nodeOf(region, b); err != nil {
			return nil, err
		}
	}
	// Topological order of the nodes reachable from start (reverse
	// postorder of a DFS); a cycle means a loop that is neither a region
	// boundary nor summarised: a cycle without barrier in region mode.
	color := make(map[int]uint8)
	var post []int
	type frame struct {
		n  int
		ts []target
		i  int
	}
	var stack []frame
	push := func(n int) error {
		ts, err := w.succs(region, n, b, k)
		if err != nil {
			return err
		}
		color[n] = 1
		stack = append(stack, frame{n: n, ts: ts})
		return nil
	}
	if err := push(start); err != nil {
		return nil, err
	}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i == len(f.ts) {
			color[f.n] = 2
			post = append(post, f.n)
			stack = stack[:len(stack)-1]
			continue
		}
		t := f.ts[f.i]
		f.i++
		if t.kind != tNode {
			continue
		}
		switch color[t.node] {
		case 0:
			if err := push(t.node); err != nil {
				return nil, err
			}
		case 1:
			return nil, w.cycleError(t.node)
		}
	}
	w.nodes += len(post)
	if w.nodes > maxWalkNodes {
		return nil, &Error{Pos: w.pos(b.Pos()), Msg: "static analysis: too many nodes visited (loop nest too deep or too wide)", Unbounded: true}
	}

	out := &outcome{exits: map[cfg.Edge]*val{}, arrivals: map[*isa.Instr]*val{}}
	vals := make(map[int]*val, len(post))
	vals[start] = &val{}
	vals[start].join(in)
	deliver := func(t target, v val) {
		switch t.kind {
		case tNode:
			p := vals[t.node]
			if p == nil {
				p = &val{}
				vals[t.node] = p
			}
			p.join(v)
		case tBack:
			out.back.join(v)
		case tExit:
			p := out.exits[t.e]
			if p == nil {
				p = &val{}
				out.exits[t.e] = p
			}
			p.join(v)
		case tEnd:
			out.end.join(v)
		}
	}
	for idx := len(post) - 1; idx >= 0; idx-- {
		n := post[idx]
		v := vals[n]
		if v == nil || !v.ok {
			continue
		}
		if n >= nb && n != nb+nl {
			var exits []exitVal
			var err error
			if n < nb+nl {
				exits, err = w.summarize(w.g.Loops[n-nb], *v, false)
			} else {
				exits, err = w.summarize(w.g.Loops[n-nb-nl-1], *v, true)
			}
			if err != nil {
				return nil, err
			}
			for _, ev := range exits {
				if ev.bar != nil {
					p := out.arrivals[ev.bar]
					if p == nil {
						p = &val{}
						out.arrivals[ev.bar] = p
						out.barOrder = append(out.barOrder, ev.bar)
					}
					p.join(ev.v)
					continue
				}
				t, err := w.route(region, ev.e)
				if err != nil {
					return nil, err
				}
				deliver(t, ev.v)
			}
			continue
		}
		blk, from := b, k
		if n < nb {
			blk, from = w.g.Blocks[n], 0
		}
		to := len(blk.Instrs)
		bar := w.barrierAt(blk, from)
		if bar >= 0 {
			to = bar
			if op := w.ops[blk.Instrs[bar]]; op != nil && op.Issues() && w.sect == nil {
				// An issuing barrier (Pipeline.BarrierIssues) is the
				// last instruction of the section it ends (in context
				// mode the barrier is crossed at its arrival instead).
				to = bar + 1
			}
		}
		last, err := w.transfer(v, blk, from, to)
		if err != nil {
			return nil, err
		}
		if bar >= 0 {
			in := blk.Instrs[bar]
			p := out.arrivals[in]
			if p == nil {
				p = &val{}
				out.arrivals[in] = p
				out.barOrder = append(out.barOrder, in)
			}
			p.join(*v)
			continue
		}
		for _, e := range blk.Succs {
			t, err := w.route(region, e)
			if err != nil {
				return nil, err
			}
			deliver(t, w.edgeWait(*v, e, last))
		}
	}
	return out, nil
}

// edgeWait applies the control hazard of the edge e leaving a block whose
// last instruction had timing last (docs/model.md, "Control hazards on
// the edges"). The edge redirects the warp when the engine, running a
// concrete path along e, would say so (phases.PathRedirects on the last
// instruction and the first of e.To). A branch waits as its Op says
// (Op.WaitsAfter). A resume edge of a warp-level graph that redirects after
// an instruction that is not a branch (the SIMT stack switching to the
// other side of a divergent branch) is charged as a taken branch when the
// description waits after taken branches: the model has no cost for it,
// and waiting for the instruction's result is never optimistic for the
// engine (monotonicity). The exit needs no wait (Next is not observable).
func (w *walker) edgeWait(v val, e cfg.Edge, last phases.Timing) val {
	if v.s == nil || e.To == w.g.Exit || len(e.From.Instrs) == 0 {
		return v
	}
	x := e.From.Last()
	op := w.ops[x]
	if op == nil {
		return v
	}
	wait := false
	if len(e.To.Instrs) == 0 {
		// No next instruction known here: either outcome.
		wait = op.WaitsAfter(true) || op.WaitsAfter(false)
	} else {
		redirect := phases.EdgeRedirects(w.g.Func, x, e.To.Instrs[0])
		wait = op.WaitsAfter(redirect)
		if !wait && !op.WaitTaken && !op.WaitFallThrough && redirect && e.Kind == cfg.EdgeResume && w.pipe.WaitsAfterBranch(true) {
			wait = true
		}
	}
	if !wait || last.Ready <= v.s.Next {
		return v
	}
	s := v.s.Clone()
	s.Next = last.Ready
	v.s = s
	return v
}

func (w *walker) cycleError(n int) error {
	nb := len(w.g.Blocks)
	var b *cfg.Block
	if n < nb {
		b = w.g.Blocks[n]
	} else {
		b = w.g.Loops[n-nb].Header
	}
	if w.stops != nil {
		return &Error{Pos: w.pos(b.Pos()), Msg: "a cycle through this block passes neither the region's first barrier nor one of its last, inside a loop that holds one of them: the region would start or end at a varying place of the loop, which a region bound does not support", Unbounded: true}
	}
	// Cannot happen: a loop with a barrier-free cycle is summarised
	// (freeBarrierCycles).
	return &Error{Pos: w.pos(b.Pos()), Msg: "internal error: a cycle through this block passes no block-wide barrier and its loop is not summarised", Unbounded: true, sections: true}
}

// transfer applies the instructions lo..hi-1 of blk to v in place and
// returns the timing of the last one (zero when untimed or empty).
func (w *walker) transfer(v *val, blk *cfg.Block, lo, hi int) (phases.Timing, error) {
	var last phases.Timing
	var end0 hwdesc.Cycles
	owned := false // v.l is a private copy
	if v.s != nil {
		end0 = v.s.End
	}
	for _, in := range blk.Instrs[lo:hi] {
		op := w.ops[in]
		if op == nil {
			return last, &Error{Pos: w.pos(in.Pos), Msg: fmt.Sprintf("internal error: instruction %q not prepared", in.Text)}
		}
		if w.sect != nil {
			if v.ok && phases.IsSync(in) {
				if err := w.crossBarrier(v, in); err != nil {
					return last, err
				}
			}
			continue
		}
		if v.s != nil {
			last = phases.Step(v.s, op)
			if w.drain && op.Sync {
				drainState(v.s)
			}
		}
		wt := w.weight(op)
		if wt != 0 {
			x, ok := mulAdd(v.i, 1, wt)
			if !ok {
				return last, &Error{Pos: w.pos(in.Pos), Msg: "bound overflows 64-bit cycles", Unbounded: true}
			}
			v.i = x
		}
		if w.loads && op.Issues() {
			// Copy on write, once per range: v.l may be shared with
			// other values. Each entry stays below v.i (init ≥ 1),
			// checked above.
			if !owned {
				l := make([]phases.Load, len(v.l), max(len(v.l), w.d.units))
				copy(l, v.l)
				v.l, owned = l, true
			}
			v.l = phases.AddLoad(v.l, op.Resource(), op.Init)
		}
	}
	if w.track {
		r := blockRange{blk.Index, lo, hi}
		v.wit = &witness{prev: v.wit, r: r, mult: 1}
		if v.s != nil {
			w.delay[r] = max(w.delay[r], v.s.End-end0)
		}
	}
	return last, nil
}

// summarize returns the values at the exits of loop l entered with in:
// for each exit edge, an upper bound over every iteration (1..B) at which
// the edge can be taken. In segment mode a loop holding barriers
// (summarised when it has barrier-free iterations, freeBar) also returns
// the values at its barriers, which end the walk like exits: the section
// runs through barrier-free iterations and stops at the first barrier.
// cont: the rest of the current entry of l, reached by its back edge from
// inside an iteration (an open loop): at most B−1 header executions
// remain (none when B ≤ 1: the back edge is then never taken).
func (w *walker) summarize(l *cfg.Loop, in val, cont bool) ([]exitVal, error) {
	if w.sect != nil {
		return w.summarizeCtx(l, in)
	}
	B, err := w.bound(l)
	if err != nil {
		return nil, err
	}
	if cont {
		if B <= 1 {
			return nil, nil // no header execution remains: the back edge is never taken
		}
		B--
	}
	B = max(B, 1) // an entered loop executes its header at least once
	var x0 *phases.State
	var base hwdesc.Cycles
	ck := ""
	if in.s != nil {
		x0 = clamp(in.s, w.d)
		base = x0.Next
		x0 = shifted(x0, -base)
		ck = key(l.Index, x0) + fmt.Sprintf("/%d", B)
	} else {
		ck = fmt.Sprintf("%d/%d", l.Index, B)
	}
	rel, ok := w.cache[ck]
	if !ok {
		rel, err = w.summarizeRel(l, B, x0)
		if err != nil {
			return nil, err
		}
		w.cache[ck] = rel
	}
	out := make([]exitVal, len(rel))
	for i, ev := range rel {
		v := val{ok: true}
		if ev.v.s != nil {
			v.s = shifted(ev.v.s, base)
		}
		x, ok := mulAdd(in.i, 1, ev.v.i)
		if !ok {
			return nil, &Error{Pos: w.pos(l.Header.Pos()), Msg: "bound overflows 64-bit cycles", Unbounded: true}
		}
		v.i = x
		if w.loads {
			if v.l, ok = mulAddLoads(in.l, 1, ev.v.l); !ok {
				return nil, &Error{Pos: w.pos(l.Header.Pos()), Msg: "bound overflows 64-bit cycles", Unbounded: true}
			}
		}
		v.wit = in.wit
		if ev.v.wit != nil {
			v.wit = &witness{prev: in.wit, sub: ev.v.wit, mult: 1}
		}
		out[i] = exitVal{e: ev.e, v: v, bar: ev.bar}
	}
	return out, nil
}

// summarizeRel summarises l with bound B from the normalised entry state x0
// (Next = 0; nil when untimed) and weight 0: the values at its exits, then
// (segment mode) at its barriers, in the order the first iteration's walk
// meets them.
func (w *walker) summarizeRel(l *cfg.Loop, B int64, x0 *phases.State) ([]exitVal, error) {
	first, err := w.walk(l, l.Header, 0, val{s: x0, ok: true})
	if err != nil {
		return nil, err
	}
	// Weights are independent of time: every iteration but the last takes
	// a header-to-back-edge path (at most C), the last one a header-to-exit
	// path (at most X_e) or, in segment mode, a header-to-barrier path.
	// In segment mode back edges are reached only along paths without a
	// barrier: C is the heaviest barrier-free iteration.
	C := first.back.i
	if !first.back.ok {
		B = 1 // no iteration comes back (every cycle passes a barrier)
	}
	acc := map[cfg.Edge]*val{}
	accBar := map[*isa.Instr]*val{}
	join := func(p *val, v *val, shift hwdesc.Cycles) *val {
		if p == nil {
			p = &val{}
		}
		c := val{ok: true}
		if v.s != nil {
			c.s = v.s
			if shift != 0 {
				c.s = shifted(clamp(v.s, w.d), shift)
			}
		}
		p.join(c)
		return p
	}
	add := func(o *outcome, shift hwdesc.Cycles) {
		for e, v := range o.exits {
			acc[e] = join(acc[e], v, shift)
		}
		for in, v := range o.arrivals {
			accBar[in] = join(accBar[in], v, shift)
		}
	}
	if x0 != nil {
		add(first, 0)
		x := first.back.s
		k := int64(1)
		for ; k < B && k < exactIters; k++ {
			o, err := w.walk(l, l.Header, 0, val{s: clamp(x, w.d), ok: true})
			if err != nil {
				return nil, err
			}
			add(o, 0)
			x = o.back.s
		}
		if k < B {
			// Iterations k+1..B remain (R of them), entered at x.
			R := B - k
			y := clamp(x, w.d)
			var o *outcome
			var c hwdesc.Cycles
			for round := 0; ; round++ {
				if o, err = w.walk(l, l.Header, 0, val{s: y, ok: true}); err != nil {
					return nil, err
				}
				cb := clamp(o.back.s, w.d)
				delta := cb.Next - y.Next
				g := growth(cb, y)
				if g == delta || round == widenRounds {
					c = g
					break
				}
				y.Join(shifted(cb, -delta))
			}
			sh, ok := mulAdd(0, R-1, int64(c))
			if !ok {
				return nil, &Error{Pos: w.pos(l.Header.Pos()), Msg: fmt.Sprintf("loop bound %d times %d cycles per iteration overflows 64-bit cycles", B, c), Unbounded: true}
			}
			add(o, hwdesc.Cycles(sh))
		}
	}
	// leave is the value of the last iteration leaving by a path of
	// weight fv (B−1 iterations coming back before it) in state p.
	leave := func(fv, p *val) (val, error) {
		v := val{ok: true}
		if p != nil {
			v.s = p.s
		}
		x, ok := mulAdd(fv.i, B-1, C)
		if !ok {
			return v, &Error{Pos: w.pos(l.Header.Pos()), Msg: fmt.Sprintf("loop bound %d times weight %d overflows 64-bit cycles", B, C), Unbounded: true}
		}
		v.i = x
		if w.loads {
			// Each resource's weight is a longest path of its own, in
			// the same form: B−1 iterations coming back, one leaving.
			if v.l, ok = mulAddLoads(fv.l, B-1, first.back.l); !ok {
				return v, &Error{Pos: w.pos(l.Header.Pos()), Msg: fmt.Sprintf("loop bound %d times a resource weight overflows 64-bit cycles", B), Unbounded: true}
			}
		}
		if w.track {
			// The weight's path: B−1 iterations coming back, then one
			// leaving.
			v.wit = &witness{sub: fv.wit, mult: 1}
			if B > 1 && first.back.wit != nil {
				v.wit.prev = &witness{sub: first.back.wit, mult: B - 1}
			}
		}
		return v, nil
	}
	var out []exitVal
	for _, e := range l.Exits {
		fv := first.exits[e]
		if fv == nil || !fv.ok {
			continue
		}
		v, err := leave(fv, acc[e])
		if err != nil {
			return nil, err
		}
		out = append(out, exitVal{e: e, v: v})
	}
	for _, in := range first.barOrder {
		fv := first.arrivals[in]
		if fv == nil || !fv.ok {
			continue
		}
		v, err := leave(fv, accBar[in])
		if err != nil {
			return nil, err
		}
		out = append(out, exitVal{bar: in, v: v})
	}
	return out, nil
}
