package sim

import (
	"fmt"
	"math/bits"

	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// A grid run simulates a kernel: a grid of thread blocks on several SMs,
// several blocks co-resident on one SM. Each SM is the block model of this
// package: one issue per cycle for the whole SM (all its blocks), unit
// FIFOs shared by all its blocks, a scoreboard per warp, barriers per
// block. SMs share nothing: memory is the description's fixed-latency unit
// of each SM (no contention between SMs). A dispatcher hands the blocks out
// in grid order: every SM has Slots block slots; a slot that is free (at
// cycle 0, or when its block's last result is ready) receives the next
// waiting block d cycles later, d drawn in [0, Dispatch] per dispatch from
// Seed. A block starts at its dispatch: its warps may issue from that
// cycle on.

// GridPolicy is the warp scheduling policy of every SM of a grid run; all
// are work-conserving (an SM with an eligible warp issues).
type GridPolicy uint8

const (
	GridLRR    GridPolicy = iota // loose round robin over the SM's warp slots
	GridGTO                      // greedy then lowest warp slot
	GridRandom                   // a uniformly random eligible warp, from the run's seed
	GridOldest                   // the warp of the block dispatched first (ties: lowest slot)
	GridNewest                   // the warp of the block dispatched last: starves older blocks
)

// GridPolicies are the policies, in order.
var GridPolicies = []GridPolicy{GridLRR, GridGTO, GridRandom, GridOldest, GridNewest}

func (p GridPolicy) String() string {
	switch p {
	case GridLRR:
		return "lrr"
	case GridGTO:
		return "gto"
	case GridRandom:
		return "random"
	case GridOldest:
		return "oldest-block"
	case GridNewest:
		return "newest-block"
	}
	return "policy?"
}

// GridSpec describes a grid run.
type GridSpec struct {
	// Blocks are the grid's blocks in dispatch order, each compiled for
	// the same description and barrier semantics (blocks may take
	// different paths).
	Blocks []*Program
	SMs    int
	// Slots is the number of blocks co-resident on an SM: the dispatcher
	// fills every free slot while blocks wait.
	Slots    int
	Dispatch int64 // largest dispatch delay, cycles
	Seed     uint64
	Policy   GridPolicy
}

// GridResult is the outcome of a grid run.
type GridResult struct {
	// Makespan is the cycle at which the last result of the last block
	// is ready, from cycle 0 (when the grid may first be dispatched).
	Makespan hwdesc.Cycles
	// Per block, in grid order: its SM, its dispatch cycle and the cycle
	// its last result is ready.
	SM         []int
	Start, End []hwdesc.Cycles
	Issued     int64
}

type gblock struct {
	sm, slot   int
	start      int64
	warps      int    // warps of the block
	live       int    // warps that have not finished
	arrived    uint64 // warp bits (SM-wide) at the current barrier
	nArrived   int
	reachMax   int64
	maxReady   int64
	lastRel    int64
	lastReady  int64
	firstWarpB int // SM-wide bit of warp 0
}

type gsm struct {
	ws       []warpState
	owner    []int // per warp bit: its block (-1: none)
	unitFree []int64
	ready    uint64
	pend     wakeHeap
	last     int
}

// RunGrid simulates a grid.
func RunGrid(spec GridSpec) (*GridResult, error) {
	if len(spec.Blocks) == 0 {
		return nil, fmt.Errorf("sim: grid without blocks")
	}
	if spec.SMs < 1 || spec.Slots < 1 || spec.Dispatch < 0 {
		return nil, fmt.Errorf("sim: grid of %d SMs, %d slots, dispatch %d: want at least 1, 1, 0", spec.SMs, spec.Slots, spec.Dispatch)
	}
	p0 := spec.Blocks[0]
	maxW := 0
	for i, b := range spec.Blocks {
		if b.HW != p0.HW || b.Barrier != p0.Barrier || b.issuing != p0.issuing || b.units != p0.units {
			return nil, fmt.Errorf("sim: grid block %d is compiled for another description or barrier semantics", i)
		}
		maxW = max(maxW, len(b.warps))
	}
	if spec.Slots*maxW > MaxWarps {
		return nil, fmt.Errorf("sim: %d slots of blocks of up to %d warps: the grid simulator supports at most %d warps per SM", spec.Slots, maxW, MaxWarps)
	}
	rng := newRand(spec.Seed)
	var pick chooser
	switch spec.Policy {
	case GridLRR:
		pick = lrr{}
	case GridGTO:
		pick = gto{}
	case GridRandom:
		pick = &random{rng: newRand(spec.Seed ^ 0x5bd1e995)}
	case GridOldest, GridNewest:
	default:
		return nil, fmt.Errorf("sim: unknown grid policy %d", spec.Policy)
	}
	nb := len(spec.Blocks)
	res := &GridResult{SM: make([]int, nb), Start: make([]hwdesc.Cycles, nb), End: make([]hwdesc.Cycles, nb)}
	blocks := make([]gblock, nb)
	sms := make([]gsm, spec.SMs)
	for s := range sms {
		sms[s] = gsm{ws: make([]warpState, spec.Slots*maxW), owner: make([]int, spec.Slots*maxW), unitFree: make([]int64, p0.units), last: -1}
		for i := range sms[s].owner {
			sms[s].owner[i] = -1
		}
	}
	quiet := !p0.issuing
	// Slot availability events, ordered by cycle, then SM, then slot.
	type avail struct {
		t        int64
		sm, slot int
	}
	var free []avail
	pushFree := func(a avail) {
		free = append(free, a)
		for i := len(free) - 1; i > 0; i-- {
			x, y := free[i-1], free[i]
			if x.t < y.t || x.t == y.t && (x.sm < y.sm || x.sm == y.sm && x.slot < y.slot) {
				break
			}
			free[i-1], free[i] = y, x
		}
	}
	delay := func() int64 {
		if spec.Dispatch == 0 {
			return 0
		}
		return rng.Int64N(spec.Dispatch + 1)
	}
	for s := range spec.SMs {
		for k := range spec.Slots {
			pushFree(avail{t: delay(), sm: s, slot: k})
		}
	}
	next := 0 // next block to dispatch
	done := 0
	var makespan int64

	// finish records the end of block b and frees its slot.
	finish := func(b int) {
		bl := &blocks[b]
		end := max(bl.lastReady, bl.lastRel, bl.start)
		res.End[b] = hwdesc.Cycles(end)
		makespan = max(makespan, end)
		done++
		sm := &sms[bl.sm]
		for w := range bl.warps {
			sm.owner[bl.firstWarpB+w] = -1
		}
		if next < nb {
			pushFree(avail{t: end + delay(), sm: bl.sm, slot: bl.slot})
		}
	}
	// enter makes warp bit w of SM s wait for (or reach) its next
	// instruction, not before cycle from; it returns w's ready bit when
	// it may issue at now.
	var enter, arrive func(s, w int, from, now int64) uint64
	enter = func(s, w int, from, now int64) uint64 {
		sm := &sms[s]
		x := &sm.ws[w]
		b := sm.owner[w]
		bl := &blocks[b]
		if x.pc >= len(x.pr.ins) {
			bl.live--
			if bl.live == 0 {
				finish(b)
			}
			return 0
		}
		in := &x.pr.ins[x.pc]
		if in.op == opBarrier && quiet {
			return arrive(s, w, from, now)
		}
		e := from
		for _, r := range x.pr.pool[in.chk:in.end] {
			e = max(e, x.regs[r])
		}
		if e <= now {
			return 1 << uint(w)
		}
		sm.pend.push(e, int32(w))
		return 0
	}
	// arrive records warp w's arrival at a barrier at cycle from and,
	// when it is the last of its block, releases the block.
	arrive = func(s, w int, from, now int64) uint64 {
		sm := &sms[s]
		bl := &blocks[sm.owner[w]]
		bl.arrived |= 1 << uint(w)
		bl.nArrived++
		bl.reachMax = max(bl.reachMax, from)
		if bl.nArrived < bl.live {
			return 0
		}
		rel := bl.reachMax
		if p0.Barrier == BarrierDrain {
			rel = max(rel, bl.maxReady)
		}
		bl.lastRel = max(bl.lastRel, rel)
		m := bl.arrived
		bl.arrived, bl.nArrived, bl.reachMax = 0, 0, 0
		var rdy uint64
		for ; m != 0; m &= m - 1 {
			v := bits.TrailingZeros64(m)
			if quiet {
				sm.ws[v].pc++
			}
			rdy |= enter(s, v, rel, now)
		}
		return rdy
	}
	dispatch := func(a avail, now int64) {
		b := next
		next++
		p := spec.Blocks[b]
		bl := &blocks[b]
		*bl = gblock{sm: a.sm, slot: a.slot, start: a.t, warps: len(p.warps), live: len(p.warps), firstWarpB: a.slot * maxW}
		res.SM[b], res.Start[b] = a.sm, hwdesc.Cycles(a.t)
		sm := &sms[a.sm]
		regs := make([]int64, p.nregs)
		for w, pr := range p.warps {
			v := bl.firstWarpB + w
			sm.owner[v] = b
			sm.ws[v] = warpState{pr: pr, regs: regs[p.regOff[w] : p.regOff[w]+pr.nregs : p.regOff[w]+pr.nregs], lastReady: a.t}
		}
		if len(p.warps) == 0 {
			finish(b)
			return
		}
		for w := range p.warps {
			sm.ready |= enter(a.sm, bl.firstWarpB+w, a.t, now)
		}
	}
	choose := func(s int) int {
		sm := &sms[s]
		switch spec.Policy {
		case GridOldest, GridNewest:
			best, bestStart := -1, int64(0)
			for m := sm.ready; m != 0; m &= m - 1 {
				w := bits.TrailingZeros64(m)
				st := blocks[sm.owner[w]].start
				if best < 0 || spec.Policy == GridOldest && st < bestStart || spec.Policy == GridNewest && st > bestStart {
					best, bestStart = w, st
				}
			}
			return best
		}
		return pick.choose(sm.ready, sm.last)
	}

	t := int64(0)
	for done < nb {
		for len(free) > 0 && free[0].t <= t && next < nb {
			a := free[0]
			free = free[1:]
			dispatch(a, t)
		}
		if next >= nb {
			free = free[:0]
		}
		issued := false
		for s := range sms {
			sm := &sms[s]
			for len(sm.pend) > 0 && sm.pend[0].t <= t {
				sm.ready |= 1 << uint(sm.pend[0].w)
				sm.pend.pop()
			}
			if sm.ready == 0 {
				continue
			}
			w := choose(s)
			sm.last = w
			x := &sm.ws[w]
			bl := &blocks[sm.owner[w]]
			in := &x.pr.ins[x.pc]
			st := max(sm.unitFree[in.res], t)
			sm.unitFree[in.res] = st + in.init
			rd := st + in.initLt
			for _, r := range x.pr.pool[in.def:in.end] {
				x.regs[r] = rd
			}
			x.lastReady = max(x.lastReady, rd)
			bl.lastReady = max(bl.lastReady, rd)
			bl.maxReady = max(bl.maxReady, rd)
			res.Issued++
			issued = true
			sm.ready &^= 1 << uint(w)
			x.pc++
			if in.op == opBarrier { // an issuing barrier: reached one cycle after its issue
				sm.ready |= arrive(s, w, t+1, t+1)
				continue
			}
			from := t + 1
			if in.wait {
				from = max(from, rd)
			}
			sm.ready |= enter(s, w, from, t+1)
		}
		if done == nb {
			break
		}
		nt := int64(-1)
		if issued {
			nt = t + 1
		}
		for s := range sms {
			if len(sms[s].pend) > 0 && (nt < 0 || sms[s].pend[0].t < nt) {
				nt = sms[s].pend[0].t
			}
			if sms[s].ready != 0 && (nt < 0 || t+1 < nt) {
				nt = t + 1
			}
		}
		if len(free) > 0 && next < nb && (nt < 0 || free[0].t < nt) {
			nt = free[0].t
		}
		if nt < 0 {
			return nil, fmt.Errorf("sim: grid deadlock at cycle %d: %d of %d blocks done", t, done, nb)
		}
		t = max(nt, t+1)
	}
	res.Makespan = hwdesc.Cycles(makespan)
	return res, nil
}
