package static

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// Totals are what the kernel-level bound (package bound/kernel) needs of a
// block beyond its bound: an upper bound of the load the block puts on its
// SM over its whole execution, and lower bounds of the block's duration
// and of its SM-exclusive work (docs/model.md, "Kernel-level bound" and
// "Lower bounds").
type Totals struct {
	// Load ≥ Σ over the block's warps of InitSum + Issued over the whole
	// execution, every barrier section included: the most cycles in
	// which the block can issue or initiate an instruction.
	Load hwdesc.Cycles
	// Lower ≤ the duration of every execution of the block, alone or
	// sharing its SM: max(LowerWarp, LowerIssued, LowerInit).
	Lower hwdesc.Cycles
	// LowerWarp is the largest, over the classes, shortest isolated
	// duration of a warp (every path of the class's graph, loops at their
	// minimum, barriers passed at once, no interference).
	LowerWarp hwdesc.Cycles
	// LowerIssued ≤ the instructions the block issues (one per cycle per
	// SM), LowerInit ≤ the initiation cycles of its busiest resource.
	LowerIssued, LowerInit hwdesc.Cycles
	// Classes are the per-class figures, in the order of Input.Classes.
	Classes []ClassTotals
	// LoopMinimum says how loops were counted in the lower bounds.
	LoopMinimum string
}

// ClassTotals are one class's figures, per warp.
type ClassTotals struct {
	Warps       []int
	Load        hwdesc.Cycles   // longest path for InitSum + Issued, whole execution
	MinDuration hwdesc.Cycles   // shortest isolated duration
	MinIssued   hwdesc.Cycles   // fewest instructions issued
	MinInit     []hwdesc.Cycles // per resource, fewest initiation cycles
}

// LoopMinimumRule is how the lower bounds count loop iterations: the loops
// pass gives maxima only, so a loop entered is taken to execute its header
// once and leave (0 iterations of a body after the exit test, 1 of a
// rotated loop's body, as the structure allows), which no execution
// undercuts (every step only delays, docs/model.md "Lower bounds").
const LoopMinimumRule = "loops at their structural minimum: the loops pass derives maxima only, so every loop entered executes its header once and leaves (no back edge taken)"

// totals computes the Totals of a kernel's input.
func totals(in *Input) (*Totals, error) {
	fset := in.Graph.Fset
	for _, c := range in.Classes {
		if err := refuse(c.Graph); err != nil {
			return nil, err
		}
	}
	ops, err := prepare(in, fset)
	if err != nil {
		return nil, err
	}
	d := dims{units: len(in.Engine.HW().Units), regs: in.Engine.NumRegs()}
	t := &Totals{LoopMinimum: LoopMinimumRule}
	var initTot []hwdesc.Cycles
	for _, c := range in.Classes {
		cg := c.Graph
		w := &walker{g: cg, ops: ops, d: d, bound: func(l *cfg.Loop) (int64, error) {
			n, err := in.Bound(l)
			if err == nil && n < 0 {
				err = &Error{Pos: position(fset, l.Header.Pos()), Msg: fmt.Sprintf("negative loop bound %d", n)}
			}
			return n, err
		}, hasBar: loopBarriers(cg), cache: map[string][]exitVal{}, weight: interference, pipe: in.Engine.HW().Pipeline}
		o, err := w.walk(nil, cg.Entry(), 0, val{ok: true})
		if err != nil {
			return nil, err
		}
		if !o.end.ok {
			return nil, &Error{Pos: position(fset, cg.Func.Pos), Unbounded: true, Msg: fmt.Sprintf("%s: no path reaches the end of the kernel", cg.Func.Name)}
		}
		ct := ClassTotals{Warps: c.Warps, Load: hwdesc.Cycles(o.end.i)}
		if ct.MinDuration, ct.MinIssued, ct.MinInit, err = lowerClass(cg, ops, in.Engine); err != nil {
			return nil, err
		}
		n := hwdesc.Cycles(len(c.Warps))
		var ok bool
		if t.Load, ok = addMulCycles(t.Load, n, ct.Load); !ok {
			return nil, &Error{Pos: position(fset, cg.Func.Pos), Msg: "block load overflows 64-bit cycles"}
		}
		if t.LowerIssued, ok = addMulCycles(t.LowerIssued, n, ct.MinIssued); !ok {
			return nil, &Error{Pos: position(fset, cg.Func.Pos), Msg: "block issue count overflows 64-bit cycles"}
		}
		for len(initTot) < len(ct.MinInit) {
			initTot = append(initTot, 0)
		}
		for r, x := range ct.MinInit {
			if initTot[r], ok = addMulCycles(initTot[r], n, x); !ok {
				return nil, &Error{Pos: position(fset, cg.Func.Pos), Msg: "block initiation count overflows 64-bit cycles"}
			}
		}
		t.LowerWarp = max(t.LowerWarp, ct.MinDuration)
		t.Classes = append(t.Classes, ct)
	}
	for _, x := range initTot {
		t.LowerInit = max(t.LowerInit, x)
	}
	t.Lower = max(t.LowerWarp, t.LowerIssued, t.LowerInit)
	return t, nil
}

func addMulCycles(acc, m, x hwdesc.Cycles) (hwdesc.Cycles, bool) {
	v, ok := mulAdd(int64(acc), int64(m), int64(x))
	return hwdesc.Cycles(v), ok
}

// lowerClass returns, over every path of g from the entry to the end with
// the back edges removed (each loop entered runs its header once and
// leaves), the shortest isolated duration of a warp, the fewest
// instructions issued and, per resource, the fewest initiation cycles.
//
// Every concrete path of a warp is at least one of these: a path that
// takes a back edge passes the header again, and every step (Step, an edge
// wait) only raises the timing state, so by monotonicity the exits it
// reaches are at least those reached on the first pass; weights are
// non-negative. Joins take the entrywise minimum (a lower bound of both
// states, Step being monotone); a block-wide barrier is passed at once
// (the warp's real release is no earlier than its own arrival), stepped
// like any instruction when it issues (docs/model.md, "Lower bounds").
func lowerClass(g *cfg.Graph, ops map[*isa.Instr]*phases.Op, eng *phases.Engine) (dur, issued hwdesc.Cycles, init []hwdesc.Cycles, err error) {
	nb := len(g.Blocks)
	back := func(e cfg.Edge) bool {
		for l := e.From.Loop; l != nil; l = l.Parent {
			if l.Header == e.To {
				return true
			}
		}
		return false
	}
	// Kahn's order over the reachable blocks without back edges.
	indeg := make([]int, nb+1)
	seen := make([]bool, nb+1)
	stack := []*cfg.Block{g.Entry()}
	seen[g.Entry().Index] = true
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range b.Succs {
			if back(e) {
				continue
			}
			indeg[e.To.Index]++
			if !seen[e.To.Index] {
				seen[e.To.Index] = true
				if e.To != g.Exit {
					stack = append(stack, e.To)
				}
			}
		}
	}
	type lval struct {
		ok   bool
		s    *phases.State
		iss  hwdesc.Cycles
		init []hwdesc.Cycles
	}
	vals := make([]lval, nb+1)
	vals[g.Entry().Index] = lval{ok: true, s: eng.NewState()}
	meet := func(dst *lval, v lval) {
		if !dst.ok {
			*dst = lval{ok: true, s: v.s.Clone(), iss: v.iss, init: slices.Clone(v.init)}
			return
		}
		dst.s = meetState(dst.s, v.s)
		dst.iss = min(dst.iss, v.iss)
		n := min(len(dst.init), len(v.init)) // a missing entry is 0
		dst.init = dst.init[:n]
		for r := range n {
			dst.init[r] = min(dst.init[r], v.init[r])
		}
	}
	queue := []*cfg.Block{g.Entry()}
	visited := 0
	for len(queue) > 0 {
		b := queue[0]
		queue = queue[1:]
		visited++
		v := vals[b.Index]
		if !v.ok {
			return 0, 0, nil, fmt.Errorf("static: internal error: block %d reached without a value", b.Index)
		}
		var last phases.Timing
		for _, x := range b.Instrs {
			op := ops[x]
			if op == nil {
				return 0, 0, nil, fmt.Errorf("static: internal error: instruction %q not prepared", x.Text)
			}
			last = phases.Step(v.s, op)
			if op.Issues() {
				v.iss++
				r := op.Resource()
				for len(v.init) <= r {
					v.init = append(v.init, 0)
				}
				v.init[r] += op.Init
			}
		}
		for _, e := range b.Succs {
			if back(e) {
				continue
			}
			out := v
			if e.To != g.Exit && len(b.Instrs) > 0 {
				out.s = lowerEdgeState(g, ops, b, e.To, v.s, last)
			}
			meet(&vals[e.To.Index], out)
			indeg[e.To.Index]--
			if indeg[e.To.Index] == 0 && e.To != g.Exit {
				queue = append(queue, e.To)
			}
		}
	}
	x := vals[g.Exit.Index]
	if !x.ok {
		// No path reaches the end without a back edge: 0 is a lower
		// bound of anything.
		return 0, 0, nil, nil
	}
	if x.s.End < 0 || x.s.End > math.MaxInt64/4 {
		return 0, 0, nil, fmt.Errorf("static: lower bound out of range")
	}
	return x.s.End, x.iss, x.init, nil
}

// meetState returns the entrywise minimum of a and b (entries beyond a
// slice read 0, so the shorter slice's length is kept).
func meetState(a, b *phases.State) *phases.State {
	m := &phases.State{Next: min(a.Next, b.Next), End: min(a.End, b.End)}
	m.UnitFree = make([]hwdesc.Cycles, min(len(a.UnitFree), len(b.UnitFree)))
	for i := range m.UnitFree {
		m.UnitFree[i] = min(a.UnitFree[i], b.UnitFree[i])
	}
	m.RegReady = make([]hwdesc.Cycles, min(len(a.RegReady), len(b.RegReady)))
	for i := range m.RegReady {
		m.RegReady[i] = min(a.RegReady[i], b.RegReady[i])
	}
	return m
}

// lowerEdgeState is the state of a warp taking the edge b -> to for a
// lower bound: s, or a copy whose next issue waits for the result of b's
// last instruction (timing last) when the warp surely waits for it on
// that edge. An edge into an empty block waits only if the instruction
// waits whichever way it goes (the upper bound's walk takes either).
func lowerEdgeState(g *cfg.Graph, ops map[*isa.Instr]*phases.Op, b, to *cfg.Block, s *phases.State, last phases.Timing) *phases.State {
	x := b.Last()
	op := ops[x]
	var wait bool
	if len(to.Instrs) == 0 {
		wait = op.WaitsAfter(true) && op.WaitsAfter(false)
	} else {
		wait = op.WaitsAfter(phases.EdgeRedirects(g.Func, x, to.Instrs[0]))
	}
	if !wait || last.Ready <= s.Next {
		return s
	}
	c := s.Clone()
	c.Next = last.Ready
	return c
}
