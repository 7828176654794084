// Package sim is gpuwcet's reference simulator: a cycle-exact model of one
// thread block on one streaming multiprocessor, the judge of the analyzer's
// bounds.
//
// The timing model is that of the ECRTS 2025 paper (docs/model.md): one SM,
// one warp scheduler, at most one instruction issued per cycle for the whole
// SM, no data cache, pipelined memory with a fixed latency. Per warp,
// instructions issue in program order. At cycle t an instruction of warp w
// may issue when every register it reads (sources, guard predicate, address
// registers) and every register it writes has no pending write still in
// flight after t (a scoreboard with RAW and WAW: a result ready at cycle r
// may be used by an instruction issued at r). Issue does not wait for the
// functional unit: the instruction joins its unit's FIFO, its initiation
// starts at start = max(issue, unit free), the unit is busy until
// start+Init, and the result is ready at start+Init+Lat (hwdesc.Unit).
// Units are shared by all warps of the block, one FIFO per unit in issue
// order. ret and exit issue nothing. Predicated instructions issue and occupy
// their unit whether or not the guard holds (the simulator executes no data).
//
// Block barriers (bar.sync, bar.red) end a section. Under the default
// BarrierReach semantics (docs/model.md) a warp reaches the barrier at the
// cycle it could issue its next instruction (one cycle after its last issue,
// or after a branch it waits for, or the previous release, or 0); when every
// warp of the block has reached it, the block is released at the latest
// reaching cycle, and every warp may issue its next instruction from that
// cycle on. Results of the previous section may still be in flight and
// units busy: the scoreboard and the FIFOs carry over. BarrierDrain releases
// only when, in addition, every result of the block is ready (each section
// then starts from an idle SM, exactly as the per-section isolation profiles
// assume). BarrierIssue makes bar.sync issue on the unit its opcode maps to
// (as the description's Pipeline.BarrierIssues does); an issuing barrier is
// reached one cycle after its issue.
//
// The description's [pipeline] table (hwdesc.Pipeline) applies as in
// package phases: Overhead is added to every ready time; units of one group
// share one initiation FIFO (each keeps its own init and lat); RetIssues
// makes ret and exit issue; BranchWait makes the warp wait, after a branch,
// for the branch's result on the edges it names.
//
// The block ends when the last result of the last warp is ready; that cycle
// is the makespan.
//
// The simulator is event-driven: it jumps over cycles in which no warp can
// issue. Policies (lrr, gto, random:SEED, priority orders, adversarial) are
// all work-conserving: when a warp can issue, one does.
package sim

import (
	"fmt"
	"math/bits"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// MaxWarps is the largest block the simulator accepts (a CUDA block has at
// most 1024 threads, 32 warps).
const MaxWarps = 64

// BarrierMode selects the semantics of block barriers.
type BarrierMode uint8

const (
	// BarrierReach (the model of docs/model.md): bar.sync issues nothing;
	// the warps continue when every warp has reached it.
	BarrierReach BarrierMode = iota
	// BarrierDrain: bar.sync issues nothing; the warps continue when every
	// warp has reached it and every result of the block is ready.
	BarrierDrain
	// BarrierIssue: bar.sync issues on its unit; the warps continue one
	// cycle after the last warp issued it. (Pipeline.BarrierIssues makes
	// barriers issue under the other two semantics too.)
	BarrierIssue
)

func (m BarrierMode) String() string {
	switch m {
	case BarrierReach:
		return "reach"
	case BarrierDrain:
		return "drain"
	case BarrierIssue:
		return "issue"
	}
	return "barrier?"
}

// ParseBarrierMode parses "reach" (or ""), "drain" or "issue".
func ParseBarrierMode(s string) (BarrierMode, error) {
	switch s {
	case "reach", "":
		return BarrierReach, nil
	case "drain":
		return BarrierDrain, nil
	case "issue":
		return BarrierIssue, nil
	}
	return 0, fmt.Errorf("unknown barrier semantics %q (want reach, drain or issue)", s)
}

const (
	opNormal uint8 = iota
	opBarrier
)

// cinstr is a compiled instruction.
type cinstr struct {
	op     uint8
	wait   bool  // a branch whose result the warp waits for before its next issue (hwdesc Pipeline.BranchWait)
	unit   int32 // unit (timing class) index
	res    int32 // resource: the initiation FIFO (hwdesc group)
	chk    int32 // regs to check: pool[chk:end] (uses, then defs)
	def    int32 // defs: pool[def:end]
	end    int32
	index  int32 // index in the warp's path
	init   int64
	initLt int64 // init + lat + pipeline overhead
}

// prog is one compiled path, shared by warps with the same path.
type prog struct {
	ins   []cinstr
	pool  []int32
	nregs int
	path  []*isa.Instr
	bars  int
}

// Program is a block compiled for a hardware description; it can be run
// many times with different policies.
type Program struct {
	HW      *hwdesc.Desc // read-only
	Barrier BarrierMode  // read-only: use WithBarrier to change it
	warps   []*prog
	units   int  // resources (initiation FIFOs)
	issuing bool // block barriers issue (BarrierIssue, or hwdesc Pipeline.BarrierIssues)
	fn      *isa.Func
	regOff  []int // offset of each warp's registers in the flat register file
	nregs   int
	issues  int64 // instructions issued per run (barriers included in issue mode)
}

// Compile resolves the units and registers of a block: paths[w] is the
// instruction sequence warp w executes. Identical paths (the same slice)
// are compiled once. The description's [pipeline] table applies (hwdesc
// Pipeline): the overhead is added to every ready time, units of one group
// share one initiation FIFO, ret/exit and block barriers issue when it says
// so, and after a branch the warp waits for the branch's result on the
// edges it names (taken: the next instruction of the path is not the
// fall-through, see CompileFunc).
func Compile(hw *hwdesc.Desc, paths [][]*isa.Instr, mode BarrierMode) (*Program, error) {
	return CompileFunc(hw, paths, mode, nil)
}

// CompileFunc is Compile for the paths of a function fn (may be nil): an
// edge of a path also redirects the warp when the next instruction carries
// a label the branch targets (traces keep only executed instructions, so a
// taken branch and its target may have consecutive indices).
func CompileFunc(hw *hwdesc.Desc, paths [][]*isa.Instr, mode BarrierMode, fn *isa.Func) (*Program, error) {
	if hw == nil {
		return nil, fmt.Errorf("no hardware description")
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("block has no warps")
	}
	if len(paths) > MaxWarps {
		return nil, fmt.Errorf("block has %d warps; the simulator supports at most %d", len(paths), MaxWarps)
	}
	for i, u := range hw.Units {
		if u.Init < 1 || u.Lat < 0 {
			return nil, fmt.Errorf("hardware description %q: unit %d (%q) has init %d and lat %d; want init ≥ 1 and lat ≥ 0", hw.Name, i, u.Name, u.Init, u.Lat)
		}
	}
	if hw.Pipeline.Overhead < 0 {
		return nil, fmt.Errorf("hardware description %q: negative pipeline overhead %d", hw.Name, hw.Pipeline.Overhead)
	}
	switch hw.Pipeline.BranchWait {
	case "", hwdesc.BranchWaitNone, hwdesc.BranchWaitTaken, hwdesc.BranchWaitAll:
	default:
		return nil, fmt.Errorf("hardware description %q: unknown branch_wait %q", hw.Name, hw.Pipeline.BranchWait)
	}
	res, nres := hw.Resources()
	p := &Program{HW: hw, Barrier: mode, units: nres, issuing: mode == BarrierIssue || hw.Pipeline.BarrierIssues, fn: fn}
	unitOf := map[string]int{}
	cache := map[*isa.Instr]*prog{}
	for w, path := range paths {
		var pr *prog
		if len(path) > 0 {
			if c := cache[path[0]]; c != nil && sameSlice(c.path, path) {
				pr = c
			}
		}
		if pr == nil {
			var err error
			pr, err = compilePath(hw, res, path, p.issuing, fn, unitOf)
			if err != nil {
				return nil, fmt.Errorf("warp %d: %w", w, err)
			}
			if len(path) > 0 {
				cache[path[0]] = pr
			}
		}
		if w > 0 && pr.bars != p.warps[0].bars {
			return nil, fmt.Errorf("warp %d reaches %d block barriers but warp 0 reaches %d: the warps of a block must reach the same barriers", w, pr.bars, p.warps[0].bars)
		}
		p.warps = append(p.warps, pr)
		p.regOff = append(p.regOff, p.nregs)
		p.nregs += pr.nregs
		p.issues += pr.issued()
	}
	return p, nil
}

// issued returns the number of instructions of the path that issue.
func (pr *prog) issued() int64 {
	var n int64
	for _, in := range pr.ins {
		if in.unit >= 0 {
			n++
		}
	}
	return n
}

// Redirects reports whether the edge from in to next, consecutive in a
// path of fn (nil: unknown), leaves the fall-through: next is not the
// following instruction, or it carries a label in targets.
func Redirects(fn *isa.Func, in, next *isa.Instr) bool {
	if next.Index != in.Index+1 {
		return true
	}
	if fn != nil {
		for _, t := range in.Targets {
			if j, ok := fn.Labels[t]; ok && j == next.Index {
				return true
			}
		}
	}
	return false
}

func isBranch(in *isa.Instr) bool {
	return in.Kind == isa.KindBranch || in.Kind == isa.KindIndirectBranch
}

func sameSlice(a, b []*isa.Instr) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func compilePath(hw *hwdesc.Desc, res []int, path []*isa.Instr, issuing bool, fn *isa.Func, unitOf map[string]int) (*prog, error) {
	pr := &prog{path: path}
	regs := map[string]int32{}
	reg := func(r string) int32 {
		id, ok := regs[r]
		if !ok {
			id = int32(len(regs))
			regs[r] = id
		}
		return id
	}
	for i, in := range path {
		if in == nil {
			return nil, fmt.Errorf("instruction %d is nil", i)
		}
		switch in.Kind {
		case isa.KindReturn, isa.KindExit:
			if !hw.Pipeline.RetIssues {
				continue // issue nothing
			}
		}
		c := cinstr{index: int32(i)}
		isBar := in.Kind == isa.KindBarrier && in.Barrier.WaitsForBlock()
		if isBar {
			c.op = opBarrier
			pr.bars++
			if !issuing {
				c.unit, c.res = -1, -1
				c.chk, c.def, c.end = int32(len(pr.pool)), int32(len(pr.pool)), int32(len(pr.pool))
				pr.ins = append(pr.ins, c)
				continue
			}
		}
		op := in.Op()
		u, ok := unitOf[op]
		if !ok {
			var err error
			u, _, err = hw.Lookup(op)
			if err != nil {
				return nil, fmt.Errorf("instruction %d (%s): %w", i, in.Text, err)
			}
			unitOf[op] = u
		}
		c.unit = int32(u)
		c.res = int32(res[u])
		c.init = int64(hw.Units[u].Init)
		c.initLt = int64(hw.Units[u].Init + hw.Units[u].Lat + hw.Pipeline.Overhead)
		if isBranch(in) && i+1 < len(path) {
			c.wait = hw.Pipeline.WaitsAfterBranch(Redirects(fn, in, path[i+1]))
		}
		defs := in.Defs()
		uses := in.Uses()
		c.chk = int32(len(pr.pool))
		for _, r := range uses {
			if !contains(defs, r) {
				pr.pool = append(pr.pool, reg(r))
			}
		}
		c.def = int32(len(pr.pool))
		for _, r := range defs {
			pr.pool = append(pr.pool, reg(r))
		}
		c.end = int32(len(pr.pool))
		pr.ins = append(pr.ins, c)
	}
	pr.nregs = len(regs)
	return pr, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Warps returns the number of warps of the block.
func (p *Program) Warps() int { return len(p.warps) }

// Issues returns the number of instructions one run issues.
func (p *Program) Issues() int64 { return p.issues }

// Path returns warp w's instruction path.
func (p *Program) Path(w int) []*isa.Instr { return p.warps[w].path }

// Event is the timing of one instruction of one warp. For a barrier that
// issues nothing (BarrierReach, BarrierDrain), Issue is the cycle the warp
// reached it, Start and Ready the cycle the block was released.
type Event struct {
	Index   int           // index in the warp's path
	Unit    int           // unit index; -1 for a barrier that issues nothing
	Barrier bool          // a block barrier
	Issue   hwdesc.Cycles // issue cycle
	Start   hwdesc.Cycles // start of initiation
	Ready   hwdesc.Cycles // result ready (end of the instruction)
}

// Result is the outcome of one simulation.
type Result struct {
	Policy   string          // the policy that produced this schedule (for adversarial: the witness)
	Makespan hwdesc.Cycles   // cycle at which the last result of the block is ready
	WarpEnd  []hwdesc.Cycles // per warp, cycle its last result is ready
	Issued   int64           // instructions issued
	Releases []hwdesc.Cycles // per block barrier, the cycle the warps were released
	Timeline [][]Event       // per warp, per compiled instruction (nil unless requested)
}

// Options tune a run.
type Options struct {
	Timeline bool // record per-instruction events
}

// chooser picks one warp among the eligible ones (mask != 0); last is the
// warp that issued last (-1 before the first issue).
type chooser interface {
	choose(mask uint64, last int) int
}

// Run simulates the block under a policy.
func (p *Program) Run(pol Policy, opt Options) (*Result, error) {
	if pol.Kind == Adversarial {
		return p.adversarial(pol, opt)
	}
	ch, err := pol.chooser(len(p.warps))
	if err != nil {
		return nil, err
	}
	r := p.run(ch, opt)
	r.Policy = pol.String()
	return r, nil
}

// warpState is the per-warp state of a run.
type warpState struct {
	pr        *prog
	regs      []int64 // the warp's slice of the register file: ready cycles
	pc        int
	lastReady int64
}

// run is the event-driven simulation loop.
func (p *Program) run(ch chooser, opt Options) *Result {
	nw := len(p.warps)
	ws := make([]warpState, nw)
	regFile := make([]int64, p.nregs)
	for w, pr := range p.warps {
		ws[w] = warpState{pr: pr, regs: regFile[p.regOff[w] : p.regOff[w]+pr.nregs : p.regOff[w]+pr.nregs]}
	}
	if b, ok := ch.(interface{ bind([]warpState) }); ok {
		b.bind(ws)
	}
	unitFree := make([]int64, p.units)
	res := &Result{WarpEnd: make([]hwdesc.Cycles, nw)}
	if opt.Timeline {
		res.Timeline = make([][]Event, nw)
		for w, pr := range p.warps {
			res.Timeline[w] = make([]Event, len(pr.ins))
		}
	}
	quiet := !p.issuing // barriers issue nothing
	var reachMax int64

	var ready, arrived uint64 // ready: may issue now; arrived: at a barrier
	var maxReady int64
	last := -1
	t := int64(0)
	// pend is a min-heap of the warps that wait for a cycle to issue; a
	// warp's earliest cycle does not change while it waits.
	pend := make(wakeHeap, 0, nw)

	// enter makes warp w wait for (or reach) its instruction pc, which it
	// may not issue before cycle from; it returns the warp's ready bit when
	// it may issue at now.
	enter := func(w int, from, now int64) uint64 {
		x := &ws[w]
		if x.pc >= len(x.pr.ins) {
			return 0 // done
		}
		in := &x.pr.ins[x.pc]
		if in.op == opBarrier && quiet {
			arrived |= 1 << uint(w)
			reachMax = max(reachMax, from)
			if opt.Timeline {
				res.Timeline[w][x.pc] = Event{Index: int(in.index), Unit: -1, Barrier: true, Issue: hwdesc.Cycles(from)}
			}
			return 0
		}
		e := from
		for _, r := range x.pr.pool[in.chk:in.end] {
			e = max(e, x.regs[r])
		}
		if e <= now {
			return 1 << uint(w)
		}
		pend.push(e, int32(w))
		return 0
	}
	for w := 0; w < nw; w++ {
		ready |= enter(w, 0, 0)
	}

	for {
		// Move the pending warps whose time has come to ready.
		for len(pend) > 0 && pend[0].t <= t {
			ready |= 1 << uint(pend[0].w)
			pend.pop()
		}
		if ready == 0 {
			if len(pend) > 0 {
				t = pend[0].t
				continue
			}
			if arrived == 0 {
				break // every warp is done
			}
			// Every active warp is at a barrier: release the block.
			rel := reachMax
			if p.Barrier == BarrierDrain {
				rel = max(rel, maxReady)
			}
			reachMax = 0
			res.Releases = append(res.Releases, hwdesc.Cycles(rel))
			m := arrived
			arrived = 0
			for ; m != 0; m &= m - 1 {
				w := bits.TrailingZeros64(m)
				if quiet {
					if opt.Timeline {
						ev := &res.Timeline[w][ws[w].pc]
						ev.Start, ev.Ready = hwdesc.Cycles(rel), hwdesc.Cycles(rel)
					}
					ws[w].pc++
				}
				ready |= enter(w, rel, rel)
			}
			t = max(t, rel)
			continue
		}
		w := ch.choose(ready, last)
		last = w
		x := &ws[w]
		in := &x.pr.ins[x.pc]
		s := max(unitFree[in.res], t)
		unitFree[in.res] = s + in.init
		rd := s + in.initLt
		for _, r := range x.pr.pool[in.def:in.end] {
			x.regs[r] = rd
		}
		x.lastReady = max(x.lastReady, rd)
		maxReady = max(maxReady, rd)
		res.Issued++
		if opt.Timeline {
			res.Timeline[w][x.pc] = Event{Index: int(in.index), Unit: int(in.unit), Barrier: in.op == opBarrier,
				Issue: hwdesc.Cycles(t), Start: hwdesc.Cycles(s), Ready: hwdesc.Cycles(rd)}
		}
		ready &^= 1 << uint(w)
		x.pc++
		t++
		if in.op == opBarrier { // an issuing barrier: reached one cycle after its issue
			arrived |= 1 << uint(w)
			reachMax = max(reachMax, t)
			continue
		}
		from := t
		if in.wait { // control hazard: wait for the branch's result
			from = max(t, rd)
		}
		// The warp's next instruction, inline for the common case.
		if x.pc < len(x.pr.ins) {
			nx := &x.pr.ins[x.pc]
			if nx.op == opBarrier && quiet {
				ready |= enter(w, from, t)
				continue
			}
			e := from
			for _, r := range x.pr.pool[nx.chk:nx.end] {
				e = max(e, x.regs[r])
			}
			if e <= t {
				ready |= 1 << uint(w)
			} else {
				pend.push(e, int32(w))
			}
		}
	}
	var mk int64
	for w := range ws {
		res.WarpEnd[w] = hwdesc.Cycles(ws[w].lastReady)
		mk = max(mk, ws[w].lastReady)
	}
	for _, r := range res.Releases {
		mk = max(mk, int64(r))
	}
	res.Makespan = hwdesc.Cycles(mk)
	return res
}

type wakeup struct {
	t int64
	w int32
}

// wakeHeap is a binary min-heap of wakeups by cycle, then warp.
type wakeHeap []wakeup

func (h wakeHeap) less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].w < h[j].w
}

func (h *wakeHeap) push(t int64, w int32) {
	*h = append(*h, wakeup{t, w})
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *wakeHeap) pop() {
	a := *h
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && a.less(r, l) {
			m = r
		}
		if !a.less(m, i) {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
}

// WithBarrier returns the program under another barrier semantics, sharing
// the compiled paths when their compiled form does not change (whether
// barriers issue); otherwise it recompiles.
func (p *Program) WithBarrier(mode BarrierMode) (*Program, error) {
	if mode == p.Barrier {
		return p, nil
	}
	if (mode == BarrierIssue || p.HW.Pipeline.BarrierIssues) == p.issuing {
		q := *p
		q.Barrier = mode
		return &q, nil
	}
	paths := make([][]*isa.Instr, len(p.warps))
	for w, pr := range p.warps {
		paths[w] = pr.path
	}
	return CompileFunc(p.HW, paths, mode, p.fn)
}

// Warp returns the block made of warp w alone (its isolated execution),
// sharing the compiled path.
func (p *Program) Warp(w int) *Program {
	pr := p.warps[w]
	return &Program{HW: p.HW, Barrier: p.Barrier, warps: []*prog{pr}, units: p.units, issuing: p.issuing, fn: p.fn,
		regOff: []int{0}, nregs: pr.nregs, issues: pr.issued()}
}
