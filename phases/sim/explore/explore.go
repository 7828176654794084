// Package explore computes the exact worst case of a small thread block:
// the largest makespan over every work-conserving schedule of the
// reference model (docs/model.md), by exhaustive search. It is a judge of
// the bounds, like the simulator whose compiled programs it reads (package
// sim): it shares no code with packages phases and bound.
//
// # The search
//
// A schedule is determined by the warp issued at each issue decision: at
// every cycle at which some warp may issue, any one of the warps that may
// issue is issued (a work-conserving scheduler issues one when one can;
// which one is free). The explorer enumerates every such choice, with the
// simulator's semantics for everything else: the scoreboard (RAW and WAW),
// one initiation FIFO per resource, results ready Init+Lat+overhead after
// the start, branch waits, ret/exit and barriers that issue or not, and
// the barrier semantics of the program (reach, drain, issue; sim.BarrierMode).
//
// # Memoisation on normalised states
//
// The future of a run depends only on its state at a decision: per warp
// the next instruction, the earliest cycle it may issue, the ready cycle
// of every register it still reads or writes, whether it waits at a
// barrier; per resource the cycle it is free; the latest reaching cycle
// of the barrier being gathered and, for drained barriers, the latest
// result. Shifting every time by the decision's cycle t and raising every
// time below t to t (a register ready or a resource free before t is the
// same as one ready at t: nothing can issue before t) gives the
// normalised state; the largest makespan of the run is then
//
//	max(latest result issued before t, t + V(normalised state)),
//
// with V the largest event time (result or barrier release) of the rest
// of the run, relative to t. V is memoised per normalised state. Warps
// that run the same compiled path are interchangeable, so their parts of
// the state are sorted (symmetry reduction). Registers no later
// instruction of the warp reads or writes, and resources no later
// instruction of any warp uses, are dropped from the state: they change
// nothing to come.
//
// # Budget
//
// Worst explores at most Budget distinct normalised states (DefaultBudget
// when 0). When the budget runs out the search stops: the result is not
// exact (Result.Exact is false) and its Makespan is only the longest
// makespan found so far, a lower bound of the worst case. A fully explored
// block gives the exact worst case and a witness schedule (the warp issued
// at each issue), which sim replays (Replay) and sim.Program.Verify checks.
package explore

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
)

// DefaultBudget is the number of distinct normalised states explored when
// Options.Budget is 0: a few hundred megabytes at most.
const DefaultBudget = 1 << 20

// Options tune a search.
type Options struct {
	// Budget is the largest number of distinct normalised states
	// explored (0: DefaultBudget).
	Budget int
}

// Result is the outcome of a search.
type Result struct {
	// Makespan is the largest makespan over every work-conserving
	// schedule when Exact, otherwise the largest found before the budget
	// ran out (a lower bound of the worst case).
	Makespan hwdesc.Cycles
	// Exact reports that every schedule was explored.
	Exact bool
	// States is the number of distinct normalised states explored.
	States int
	// Witness is the warp issued at each issue of a schedule reaching
	// Makespan (nil when not Exact); Replay runs it.
	Witness []int
}

const none = int64(-1) << 62 // "no event": below every cycle

// warp is the per-warp part of the search state.
type warp struct {
	pc      int
	from    int64 // earliest issue of instruction pc (next cycle, branch wait, release)
	arrived bool  // waits at a barrier
	regs    []int64
}

type state struct {
	t        int64 // current cycle: nothing issues before it
	warps    []warp
	free     []int64 // per resource
	reachMax int64
	maxReady int64 // latest result so far (drained barriers)
}

type explorer struct {
	p      *sim.Program
	drain  bool
	code   [][]sim.Instr
	group  []int      // class of interchangeable warps (same compiled path), by first warp
	live   [][][]int  // per warp and pc: registers read or written at pc or later
	resAt  [][]uint64 // per warp and pc: resources instructions pc.. use
	memo   map[string]int64
	budget int
	states int // distinct states entered
	full   bool
	buf    []byte
}

// Worst explores every work-conserving schedule of p.
func Worst(p *sim.Program, opt Options) (Result, error) {
	if p.Warps() > 64 {
		return Result{}, fmt.Errorf("explore: %d warps; at most 64", p.Warps())
	}
	if p.Resources() > 64 {
		return Result{}, fmt.Errorf("explore: %d resources; at most 64", p.Resources())
	}
	e := &explorer{p: p, drain: p.Barrier == sim.BarrierDrain, memo: map[string]int64{}, budget: opt.Budget, full: true}
	if e.budget <= 0 {
		e.budget = DefaultBudget
	}
	nw := p.Warps()
	s := &state{free: make([]int64, p.Resources())}
	for w := 0; w < nw; w++ {
		code := p.Instrs(w)
		e.code = append(e.code, code)
		g := w
		for v := 0; v < w; v++ {
			if p.SamePath(v, w) {
				g = e.group[v]
				break
			}
		}
		e.group = append(e.group, g)
		e.live = append(e.live, liveRegs(code))
		e.resAt = append(e.resAt, resAfter(code))
		s.warps = append(s.warps, warp{regs: make([]int64, p.Regs(w))})
	}
	ev := e.settle(s)
	v := e.value(s)
	res := Result{States: e.states, Exact: e.full}
	res.Makespan = hwdesc.Cycles(max(ev, v+s.t, 0))
	if e.full {
		res.Witness = e.witness(s)
	}
	return res, nil
}

// Replay runs a witness schedule on the simulator, with its timeline (for
// sim.Program.Verify).
func Replay(p *sim.Program, witness []int) (*sim.Result, error) {
	return p.Run(sim.Policy{Kind: sim.Script, Order: witness}, sim.Options{Timeline: true})
}

// liveRegs returns, per pc, the registers instructions pc.. check.
func liveRegs(code []sim.Instr) [][]int {
	out := make([][]int, len(code)+1)
	var cur []int
	for i := len(code) - 1; i >= 0; i-- {
		for _, r := range code[i].Check {
			if !slices.Contains(cur, r) {
				cur = append(cur, r)
			}
		}
		out[i] = slices.Sorted(slices.Values(cur))
	}
	return out
}

// resAfter returns, per pc, the resources instructions pc.. issue on.
func resAfter(code []sim.Instr) []uint64 {
	out := make([]uint64, len(code)+1)
	var m uint64
	for i := len(code) - 1; i >= 0; i-- {
		if code[i].Issues {
			m |= 1 << uint(code[i].Res)
		}
		out[i] = m
	}
	return out
}

func (s *state) clone() *state {
	c := &state{t: s.t, warps: make([]warp, len(s.warps)), free: slices.Clone(s.free), reachMax: s.reachMax, maxReady: s.maxReady}
	for i, w := range s.warps {
		c.warps[i] = w
		c.warps[i].regs = slices.Clone(w.regs)
	}
	return c
}

// eligible returns the earliest cycle warp w may issue its instruction
// (it is active and not at a barrier).
func (e *explorer) eligible(s *state, w int) int64 {
	x := &s.warps[w]
	c := max(x.from, s.t)
	for _, r := range e.code[w][x.pc].Check {
		c = max(c, x.regs[r])
	}
	return c
}

// settle brings s to its next decision: it marks warps reaching a barrier
// that issues nothing, releases the block when every active warp waits at
// a barrier, and moves t to the first cycle at which a warp may issue. It
// returns the largest event (release) it produced, or none.
func (e *explorer) settle(s *state) int64 {
	ev := none
	for {
		anyActive, waiting := false, false
		next := int64(-1)
		for w := range s.warps {
			x := &s.warps[w]
			if x.arrived {
				waiting = true
				continue
			}
			if x.pc >= len(e.code[w]) {
				continue
			}
			in := &e.code[w][x.pc]
			if in.Barrier && !in.Issues {
				x.arrived = true
				s.reachMax = max(s.reachMax, x.from)
				waiting = true
				continue
			}
			anyActive = true
			c := e.eligible(s, w)
			if next < 0 || c < next {
				next = c
			}
		}
		if anyActive {
			s.t = next
			return ev
		}
		if !waiting {
			return ev // every warp is done
		}
		rel := s.reachMax
		if e.drain {
			rel = max(rel, s.maxReady)
		}
		ev = max(ev, rel)
		s.reachMax = 0
		for w := range s.warps {
			x := &s.warps[w]
			if !x.arrived {
				continue
			}
			x.arrived = false
			if x.pc < len(e.code[w]) {
				if in := &e.code[w][x.pc]; in.Barrier && !in.Issues {
					x.pc++
				}
			}
			x.from = rel
		}
		s.t = max(s.t, rel)
	}
}

// issue issues warp w's instruction at s.t and settles; it returns the
// largest event (result ready, release) of the step.
func (e *explorer) issue(s *state, w int) int64 {
	x := &s.warps[w]
	in := &e.code[w][x.pc]
	t := s.t
	start := max(s.free[in.Res], t)
	s.free[in.Res] = start + int64(in.Init)
	rd := start + int64(in.InitLat)
	for _, r := range in.Defs {
		x.regs[r] = rd
	}
	s.maxReady = max(s.maxReady, rd)
	x.pc++
	s.t = t + 1
	if in.Barrier { // an issuing barrier: reached one cycle after its issue
		x.arrived = true
		s.reachMax = max(s.reachMax, t+1)
		x.from = t + 1
	} else {
		x.from = t + 1
		if in.Wait {
			x.from = max(x.from, rd)
		}
	}
	return max(rd, e.settle(s))
}

// decision returns the warps that may issue at s.t (s settled).
func (e *explorer) decision(s *state) []int {
	var ws []int
	for w := range s.warps {
		x := &s.warps[w]
		if x.pc >= len(e.code[w]) || x.arrived {
			continue
		}
		if e.eligible(s, w) <= s.t {
			ws = append(ws, w)
		}
	}
	return ws
}

// value returns the largest event time of the rest of the run from the
// settled state s, relative to s.t (none − s.t when nothing happens).
func (e *explorer) value(s *state) int64 {
	ws := e.decision(s)
	if len(ws) == 0 {
		return none
	}
	k := e.key(s)
	if v, ok := e.memo[k]; ok {
		return v
	}
	if e.states >= e.budget {
		e.full = false
		return e.greedy(s)
	}
	e.states++
	best := none
	tried := map[int]bool{}
	for _, w := range ws {
		if tried[e.group[w]] && e.sameWarp(s, w) {
			continue // an interchangeable warp in the same state was tried
		}
		tried[e.group[w]] = true
		c := s.clone()
		ev := e.issue(c, w)
		v := max(ev, c.t+e.value(c))
		best = max(best, v-s.t)
	}
	e.memo[k] = best
	return best
}

// greedy completes the run from s with the lowest-numbered warp that may
// issue (a schedule, once the budget is spent), and returns its largest
// event relative to s.t.
func (e *explorer) greedy(s *state) int64 {
	t0 := s.t
	s = s.clone()
	best := none
	for {
		ws := e.decision(s)
		if len(ws) == 0 {
			return best - t0
		}
		best = max(best, e.issue(s, ws[0]))
	}
}

// sameWarp reports whether an earlier warp of w's group, among those
// that may issue, is in the same state as w (issuing either is the same
// schedule up to renaming).
func (e *explorer) sameWarp(s *state, w int) bool {
	for v := 0; v < w; v++ {
		if e.group[v] == e.group[w] && e.warpKey(s, v) == e.warpKey(s, w) {
			return true
		}
	}
	return false
}

// witness rebuilds a schedule reaching the memoised worst case from s.
func (e *explorer) witness(s *state) []int {
	var out []int
	s = s.clone()
	for {
		ws := e.decision(s)
		if len(ws) == 0 {
			return out
		}
		want := e.memo[e.key(s)]
		found := false
		for _, w := range ws {
			c := s.clone()
			ev := e.issue(c, w)
			v := ev
			if len(e.decision(c)) > 0 {
				v = max(v, c.t+e.memo[e.key(c)])
			}
			if v-s.t == want {
				out = append(out, w)
				s = c
				found = true
				break
			}
		}
		if !found {
			panic("explore: witness: no choice reaches the memoised value")
		}
	}
}

// norm is a time relative to the decision's cycle t, raised to 0.
func norm(x, t int64) int64 { return max(x-t, 0) }

// warpKey encodes warp w's part of the normalised state.
func (e *explorer) warpKey(s *state, w int) string {
	x := &s.warps[w]
	b := make([]byte, 0, 32)
	b = binary.AppendUvarint(b, uint64(x.pc))
	switch {
	case x.arrived: // the release sets from
		b = append(b, 1)
	case x.pc >= len(e.code[w]):
		return string(b)
	default:
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(norm(x.from, s.t)))
	}
	for _, r := range e.live[w][x.pc] {
		b = binary.AppendUvarint(b, uint64(norm(x.regs[r], s.t)))
	}
	return string(b)
}

// key encodes the normalised state of a settled s.
func (e *explorer) key(s *state) string {
	nw := len(s.warps)
	parts := make([]string, nw)
	var used uint64
	for w := 0; w < nw; w++ {
		parts[w] = e.warpKey(s, w)
		if pc := s.warps[w].pc; pc < len(e.code[w]) {
			used |= e.resAt[w][pc]
		}
	}
	// Interchangeable warps: sort their parts within each group.
	for w := 0; w < nw; w++ {
		if e.group[w] != w {
			continue
		}
		var idx []int
		for v := w; v < nw; v++ {
			if e.group[v] == w {
				idx = append(idx, v)
			}
		}
		if len(idx) > 1 {
			ps := make([]string, len(idx))
			for i, v := range idx {
				ps[i] = parts[v]
			}
			slices.Sort(ps)
			for i, v := range idx {
				parts[v] = ps[i]
			}
		}
	}
	b := e.buf[:0]
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	for r, f := range s.free {
		if used&(1<<uint(r)) != 0 {
			b = binary.AppendUvarint(b, uint64(norm(f, s.t)))
		} else {
			b = append(b, 0)
		}
	}
	b = binary.AppendUvarint(b, uint64(norm(s.reachMax, s.t)))
	if e.drain {
		b = binary.AppendUvarint(b, uint64(norm(s.maxReady, s.t)))
	}
	e.buf = b
	return string(b)
}
