package simt

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

const (
	exitIdx = -1 // the virtual exit of a function
	noRPC   = -2 // the bottom entry: no reconvergence point
)

// run is one execution of the block.
type run struct {
	k      *Kernel
	launch Launch
	opt    Options
	src    *source    // drawn values
	order  *rand.Rand // random side orders
	mem    *memory
	args   map[string][]byte // kernel parameters, little-endian
	argDr  map[string]bool   // drawn (not given)
	cta    [3]int
	grid   [3]int
	// ctaDrawn, gridDrawn: the block's index and the grid were drawn
	ctaDrawn, gridDrawn bool
	warps               []*warp
	caps                map[*function][]int64
	feas                map[string]bool // feasible's searches
	orders              []int           // number of orders at each divergence, in execution order
	choice              int             // next choice of Options.Choose
	drawnOps            int
	divergences         int
}

func (x *run) init() error {
	l := x.launch
	for i := range 3 {
		if l.Block[i] <= 0 {
			if i == 0 {
				return fmt.Errorf("simt: the block dimensions are unknown (give Launch.Block)")
			}
			x.launch.Block[i] = 1
		}
	}
	b := x.launch.Block
	threads := b[0] * b[1] * b[2]
	if threads > 1024*64 {
		return fmt.Errorf("simt: %d threads per block", threads)
	}
	for i := range 3 {
		switch {
		case l.Grid[0] > 0:
			x.grid[i] = max(l.Grid[i], 1)
			if l.CTA != nil {
				x.cta[i] = l.CTA[i]
			} else {
				x.cta[i] = x.src.r.IntN(x.grid[i])
				x.ctaDrawn = true
			}
		default:
			x.grid[i] = 1 + x.src.r.IntN(4)
			x.gridDrawn = true
			if l.CTA != nil {
				x.cta[i] = l.CTA[i]
				x.grid[i] = max(x.grid[i], x.cta[i]+1)
			} else {
				x.cta[i] = x.src.r.IntN(x.grid[i])
				x.ctaDrawn = true
			}
		}
	}
	// Kernel parameters: given, or drawn once for the block.
	x.args, x.argDr = map[string][]byte{}, map[string]bool{}
	for _, p := range x.k.fn.Params {
		size := p.Size
		if size <= 0 || size > 8 {
			size = 8
		}
		if p.Array > 0 {
			size = p.Size
		}
		v, ok := l.Args[p.Name]
		var raw uint64
		if ok {
			raw = uint64(v)
		} else {
			raw = x.src.value(8*min(size, 8), false)
			x.argDr[p.Name] = true
		}
		buf := make([]byte, size)
		for i := range buf {
			if i < 8 {
				buf[i] = byte(raw >> (8 * i))
			}
		}
		x.args[p.Name] = buf
	}
	for name := range l.Args {
		if _, ok := x.args[name]; !ok {
			return fmt.Errorf("simt: %s has no parameter %s", x.k.fn.Name, name)
		}
	}
	// Loop caps.
	x.caps = map[*function][]int64{}
	x.feas = map[string]bool{}
	for _, f := range x.k.funcs {
		cs := make([]int64, len(f.g.Loops))
		for i, lp := range f.g.Loops {
			if l.Caps != nil && len(lp.Header.Instrs) > 0 {
				if n, ok := l.Caps(f.fn, lp.Header.Instrs[0]); ok {
					cs[i] = max(n, 1)
				}
			}
		}
		x.caps[f] = cs
	}
	// Warps: warp k holds the linear thread ids 32k..32k+31, x fastest.
	for t0 := 0; t0 < threads; t0 += 32 {
		w := &warp{index: t0 / 32}
		for t := t0; t < t0+32 && t < threads; t++ {
			w.tid = append(w.tid, [3]int{t % b[0], (t / b[0]) % b[1], t / (b[0] * b[1])})
			w.linear = append(w.linear, t)
		}
		w.lanes = len(w.tid)
		fr := newFrame(x.k.main, nil)
		for name, buf := range x.args {
			p := fr.param(name)
			for l := 0; l < w.lanes; l++ {
				p.b[l] = slices.Clone(buf)
				p.drawn[l] = x.argDr[name]
			}
		}
		all := uint32(1<<w.lanes - 1)
		if w.lanes == 32 {
			all = ^uint32(0)
		}
		w.stack = []*entry{{fr: fr, b: 0, rpc: noRPC, mask: all}}
		w.base = fr
		x.enter(fr, all)
		x.warps = append(x.warps, w)
	}
	return nil
}

// enter counts the entry into a function's first block for lanes m.
func (x *run) enter(fr *frame, m uint32) {
	g := fr.f.g
	if len(g.Blocks) == 0 {
		return
	}
	for _, l := range lanesOf(m) {
		x.edge(fr, l, nil, g.Blocks[0])
	}
}

// edge updates lane l's loop counters for the edge from b (nil: from
// outside the function) to t, and reports a loop cap exceeded.
func (x *run) edge(fr *frame, l int, b, t *cfg.Block) (exceeded *cfg.Loop) {
	if t == nil || t.Loop == nil || t.Loop.Header != t {
		return nil
	}
	lp := t.Loop
	k := lp.Index*32 + l
	if b != nil && lp.Contains(b) {
		fr.count[k]++
	} else {
		fr.count[k] = 1
	}
	if c := x.caps[fr.f][lp.Index]; c > 0 && fr.count[k] > c {
		return lp
	}
	return nil
}

// execute runs the block until every warp is done.
func (x *run) execute() error {
	for {
		active, progress := false, false
		for _, w := range x.warps {
			if len(w.stack) == 0 {
				continue
			}
			active = true
			if w.waiting {
				continue
			}
			progress = true
			if err := x.runWarp(w); err != nil {
				return fmt.Errorf("warp %d: %w", w.index, err)
			}
		}
		if !active {
			break
		}
		if !progress {
			// Every warp still running waits at a block barrier:
			// release them (warps that exited count as arrived).
			for _, w := range x.warps {
				w.waiting = false
			}
		}
	}
	for _, w := range x.warps[1:] {
		if w.bars != x.warps[0].bars {
			return fmt.Errorf("warp %d reaches %d block barriers, warp 0 %d: the warps of a block must reach the same barriers (undefined behaviour in CUDA)", w.index, w.bars, x.warps[0].bars)
		}
	}
	return nil
}

// settle pops finished entries, returns from calls and finishes exited
// lanes; false when the warp is done.
func (x *run) settle(w *warp) bool {
	for len(w.stack) > 0 {
		top := w.stack[len(w.stack)-1]
		m := top.mask &^ w.done
		switch {
		case m == 0:
			w.stack = w.stack[:len(w.stack)-1]
		case top.call:
			w.stack = w.stack[:len(w.stack)-1]
			x.ret(top, m)
		case top.b == top.rpc:
			w.stack = w.stack[:len(w.stack)-1]
		case top.b == exitIdx:
			w.stack = w.stack[:len(w.stack)-1]
			if top.fr.caller == nil {
				w.done |= m // the kernel's lanes end
			} // a function's lanes returned: they wait in the call entry
		default:
			return true
		}
	}
	return false
}

// runWarp runs w until it reaches a block barrier or ends.
func (x *run) runWarp(w *warp) error {
	limit := x.opt.MaxInstrs
	if limit <= 0 {
		limit = 1 << 22
	}
	for {
		if !x.settle(w) {
			return nil
		}
		top := w.stack[len(w.stack)-1]
		act := top.mask &^ w.done
		f := top.fr.f
		blk := f.g.Blocks[top.b]
		if top.ip == 0 {
			w.steps = append(w.steps, Step{Func: f.fn, Block: top.b})
		}
		called := false
		for top.ip < len(blk.Instrs) && !called {
			in := blk.Instrs[top.ip]
			d := f.code[in.Index]
			top.ip++
			w.path = append(w.path, in)
			w.instrs++
			if w.instrs > limit {
				return fmt.Errorf("path longer than %d instructions (a loop that does not end at these inputs: give the arguments with --arg, or the loop a flow fact)", limit)
			}
			switch in.Kind {
			case isa.KindBranch, isa.KindIndirectBranch, isa.KindReturn, isa.KindExit:
				// Decided at the end of the block.
			case isa.KindCall:
				if err := x.call(w, top, d, act); err != nil {
					return err
				}
				called = true
			case isa.KindIndirectCall:
				return fmt.Errorf("%s: indirect call %q: not executed", x.k.pos(in), in.Text)
			case isa.KindBarrier:
				if in.Barrier.WaitsForBlock() {
					w.bars++
					w.waiting = true
					if in.Barrier == isa.BarRed {
						x.lanes(w, top.fr, d, act)
					}
					return nil
				}
			default:
				if err := x.instr(w, top.fr, d, act); err != nil {
					return err
				}
			}
		}
		if called {
			continue
		}
		if err := x.endBlock(w, top, act); err != nil {
			return err
		}
	}
}

// guard returns the lanes of m whose guard holds, and those whose guard
// was drawn.
func (x *run) guard(w *warp, fr *frame, d *dinstr, m uint32) (on, drawn uint32) {
	if d.guard < 0 {
		return m, 0
	}
	for _, l := range lanesOf(m) {
		v, dr := fr.get(x, d.guard, l)
		if (v&1 != 0) != d.gneg {
			on |= 1 << l
		}
		if dr {
			drawn |= 1 << l
		}
	}
	return on, drawn
}

// instr executes an ordinary instruction for the active lanes m.
func (x *run) instr(w *warp, fr *frame, d *dinstr, m uint32) error {
	on, _ := x.guard(w, fr, d, m)
	switch d.op {
	case "vote", "activemask", "shfl", "redux", "match":
		return x.warpOp(w, fr, d, m, on)
	case "membar", "fence", "nop", "prefetch", "prefetchu", "pmevent", "griddepcontrol", "discard", "applypriority", "createpolicy", "cp":
		if d.op == "cp" || d.op == "createpolicy" {
			x.lanes(w, fr, d, on)
		}
		return nil
	case "bar", "barrier":
		return nil // bar.warp.sync, bar.arrive: no data
	}
	return x.lanes(w, fr, d, on)
}

// lanes runs d in every lane of m.
func (x *run) lanes(w *warp, fr *frame, d *dinstr, m uint32) error {
	for _, l := range lanesOf(m) {
		c := laneCtx{x: x, w: w, fr: fr, d: d, l: l}
		if err := c.exec(); err != nil {
			return err
		}
	}
	return nil
}

// warpOp executes the instructions whose result depends on other lanes:
// vote, activemask, shfl, redux (match: drawn). m is the active mask, on
// the lanes whose guard holds.
func (x *run) warpOp(w *warp, fr *frame, d *dinstr, m, on uint32) error {
	lanes := lanesOf(on)
	p := typ{'p', 1}
	switch d.op {
	case "activemask":
		for _, l := range lanes {
			fr.set(d.dst[0].reg, l, uint64(m), false)
		}
		return nil
	case "vote":
		if len(d.src) == 0 || len(d.dst) == 0 || d.dst[0].kind != oReg {
			break
		}
		var ballot uint32
		drawn := false
		for _, l := range lanes {
			c := laneCtx{x: x, w: w, fr: fr, d: d, l: l}
			if c.read(&d.src[0], p) != 0 {
				ballot |= 1 << l
			}
			drawn = drawn || c.drawn
		}
		var v uint64
		switch {
		case d.has("ballot"):
			v = uint64(ballot)
		case d.has("all"):
			v = b2u(ballot == on)
		case d.has("any"):
			v = b2u(ballot != 0)
		case d.has("uni"):
			v = b2u(ballot == 0 || ballot == on)
		default:
			return x.lanes(w, fr, d, on)
		}
		for _, l := range lanes {
			fr.set(d.dst[0].reg, l, v, drawn)
		}
		return nil
	case "redux":
		t := d.ty()
		if len(d.src) == 0 || len(d.dst) == 0 || d.dst[0].kind != oReg || t.w != 32 {
			break
		}
		var acc uint64
		drawn := false
		for i, l := range lanes {
			c := laneCtx{x: x, w: w, fr: fr, d: d, l: l}
			v := c.read(&d.src[0], t)
			drawn = drawn || c.drawn
			if i == 0 {
				acc = v
				continue
			}
			switch {
			case d.has("add"):
				acc = mask(acc+v, 32)
			case d.has("and"):
				acc &= v
			case d.has("or"):
				acc |= v
			case d.has("xor"):
				acc ^= v
			case d.has("min"), d.has("max"):
				less := v < acc
				if t.signed() {
					less = sext(v, 32) < sext(acc, 32)
				}
				if less == d.has("min") {
					acc = v
				}
			default:
				return x.lanes(w, fr, d, on)
			}
		}
		for _, l := range lanes {
			fr.set(d.dst[0].reg, l, store(acc, t), drawn)
		}
		return nil
	case "shfl":
		return x.shfl(w, fr, d, m, on)
	}
	return x.lanes(w, fr, d, on) // drawn by exec's default
}

// shfl.mode.b32 d[|p], a, b, c[, membermask] (PTX ISA, shfl.sync).
func (x *run) shfl(w *warp, fr *frame, d *dinstr, m, on uint32) error {
	if len(d.src) < 3 || len(d.dst) == 0 {
		return x.lanes(w, fr, d, on)
	}
	t := typ{'b', 32}
	type res struct {
		v     uint64
		p     bool
		drawn bool
	}
	a := make([]uint64, 32)
	adr := make([]bool, 32)
	for _, l := range lanesOf(m) {
		c := laneCtx{x: x, w: w, fr: fr, d: d, l: l}
		a[l] = c.read(&d.src[0], t)
		adr[l] = c.drawn
	}
	out := map[int]res{}
	for _, l := range lanesOf(on) {
		c := laneCtx{x: x, w: w, fr: fr, d: d, l: l}
		bval := int(c.read(&d.src[1], u32) & 31)
		cv := c.read(&d.src[2], u32)
		cval := int(cv & 31)
		seg := int(cv >> 8 & 31)
		maxLane := l&seg | cval&^seg
		minLane := l & seg
		var j int
		var pv bool
		switch {
		case d.has("up"):
			j = l - bval
			pv = j >= maxLane
		case d.has("down"):
			j = l + bval
			pv = j <= maxLane
		case d.has("bfly"):
			j = l ^ bval
			pv = j <= maxLane
		case d.has("idx"):
			j = minLane | bval&^seg
			pv = j <= maxLane
		default:
			return x.lanes(w, fr, d, on)
		}
		if !pv {
			j = l
		}
		r := res{p: pv, drawn: c.drawn}
		if j < 0 || j >= 32 || m&(1<<j) == 0 {
			r.v, r.drawn = x.src.value(32, false), true // an inactive source lane: undefined
		} else {
			r.v, r.drawn = a[j], r.drawn || adr[j]
		}
		out[l] = r
	}
	for l, r := range out {
		if d.dst[0].kind == oReg {
			fr.set(d.dst[0].reg, l, r.v, r.drawn)
		}
		if len(d.dst) > 1 && d.dst[1].kind == oReg {
			fr.set(d.dst[1].reg, l, b2u(r.p), r.drawn)
		}
	}
	return nil
}

// call runs a device function for the active lanes (those whose guard
// holds): arguments are copied into the callee's .param variables, a call
// entry keeps the caller's lanes, and the callee's first block runs above
// it.
func (x *run) call(w *warp, top *entry, d *dinstr, act uint32) error {
	on, _ := x.guard(w, top.fr, d, act)
	if on == 0 {
		return nil
	}
	var callee string
	var args, rets []string
	for _, o := range d.src {
		switch {
		case o.kind == oSym && callee == "":
			callee = o.sym
		case o.kind == oList && callee != "" && args == nil:
			args = o.names
		}
	}
	if len(d.dst) > 0 && d.dst[0].kind == oList {
		rets = d.dst[0].names
	}
	f, err := x.k.function(callee)
	if err != nil {
		return fmt.Errorf("%s: %w", x.k.pos(d.in), err)
	}
	depth := 0
	for fr := top.fr; fr != nil; fr = fr.caller {
		depth++
	}
	if depth > 64 {
		return fmt.Errorf("%s: calls nested more than 64 deep", x.k.pos(d.in))
	}
	nf := newFrame(f, top.fr)
	for i, a := range args {
		if i >= len(f.fn.Params) {
			break
		}
		src := top.fr.params[a]
		dst := nf.param(f.fn.Params[i].Name)
		for _, l := range lanesOf(on) {
			if src != nil {
				dst.b[l] = slices.Clone(src.b[l])
				dst.drawn[l] = src.drawn[l]
			}
		}
	}
	_ = rets
	w.stack = append(w.stack,
		&entry{fr: nf, b: exitIdx, rpc: noRPC, mask: on, call: true, site: d, back: top.fr},
		&entry{fr: nf, b: 0, rpc: exitIdx, mask: on})
	x.enter(nf, on)
	return nil
}

// ret returns lanes m from the call of entry c: the callee's return
// .param variables are copied into the caller's.
func (x *run) ret(c *entry, m uint32) {
	d := c.site
	if len(d.dst) == 0 || d.dst[0].kind != oList {
		return
	}
	f := c.fr.f
	for i, name := range d.dst[0].names {
		if i >= len(f.fn.RetParams) {
			break
		}
		src := c.fr.params[f.fn.RetParams[i].Name]
		dst := c.back.param(name)
		for _, l := range lanesOf(m) {
			if src != nil {
				dst.b[l] = slices.Clone(src.b[l])
				dst.drawn[l] = src.drawn[l]
			} else {
				dst.b[l], dst.drawn[l] = nil, true
			}
		}
	}
}

// group is the lanes of one divergence going to one block.
type group struct {
	t    int // block index or exitIdx
	succ int // smallest successor index of the edge(s) taken
	mask uint32
}

// endBlock decides, per lane, the successor of the block the top entry
// ran, and updates the stack: one group continues, several diverge
// (GPGPU-Sim's simt_stack::update, the order of the groups chosen by
// Options).
func (x *run) endBlock(w *warp, top *entry, act uint32) error {
	fr := top.fr
	f := fr.f
	b := f.g.Blocks[top.b]
	last := b.Last()
	var d *dinstr
	if last != nil {
		d = f.code[last.Index]
	}
	succ := make([]int, 32) // per lane: index in b.Succs, -1: the lane exits
	var drawn uint32
	reached := act
	switch b.Kind {
	case cfg.BlockIf:
		on, dr := x.guard(w, fr, d, act)
		drawn = dr
		for _, l := range lanesOf(act) {
			if on&(1<<l) == 0 {
				succ[l] = len(b.Succs) - 1
			}
		}
	case cfg.BlockReturn, cfg.BlockExit:
		on, dr := x.guard(w, fr, d, act)
		drawn = dr
		for _, l := range lanesOf(act) {
			switch {
			case on&(1<<l) != 0 && b.Kind == cfg.BlockExit:
				succ[l] = -1
			case on&(1<<l) == 0:
				succ[l] = len(b.Succs) - 1
			}
		}
	case cfg.BlockIndirect:
		on, dr := x.guard(w, fr, d, act)
		drawn = dr
		if err := x.indirect(w, fr, b, d, act, on, succ, &drawn); err != nil {
			return err
		}
	}
	conditional := false
	switch b.Kind {
	case cfg.BlockIf, cfg.BlockIndirect:
		conditional = true
	case cfg.BlockReturn, cfg.BlockExit:
		conditional = last != nil && last.Guard.Reg != ""
	}
	// Exits (exit, trap): those lanes end.
	for _, l := range lanesOf(act) {
		if succ[l] < 0 {
			w.done |= 1 << l
			act &^= 1 << l
		}
	}
	// Data-dependent decisions obey the loop caps.
	for _, l := range lanesOf(act) {
		if drawn&(1<<l) != 0 && len(b.Succs) > 1 {
			succ[l] = x.steer(fr, l, b, succ[l])
		}
	}
	if conditional {
		dec := Decision{Func: f.fn, Block: b.Index, Lanes: reached}
		for _, l := range lanesOf(reached) {
			dec.Succ[l] = int8(succ[l])
		}
		w.decisions = append(w.decisions, dec)
	}
	if act == 0 {
		return nil
	}
	// Every edge counts.
	for _, l := range lanesOf(act) {
		to := b.Succs[succ[l]].To
		if lp := x.edge(fr, l, b, blockOrNil(f.g, to)); lp != nil {
			return fmt.Errorf("%s: lane %d runs the loop headed here more than its flow fact's %d times (the fact does not hold at these inputs)", x.k.pos(lp.Header.Instrs[0]), w.linear[l], x.caps[f][lp.Index])
		}
	}
	// Group the lanes by target.
	var gs []*group
	byT := map[int]*group{}
	for _, l := range lanesOf(act) {
		t := blockIdx(f.g, b.Succs[succ[l]].To)
		g := byT[t]
		if g == nil {
			g = &group{t: t, succ: succ[l]}
			byT[t] = g
			gs = append(gs, g)
		}
		g.succ = min(g.succ, succ[l])
		g.mask |= 1 << l
	}
	if len(gs) == 1 {
		top.b, top.ip = gs[0].t, 0
		return nil
	}
	x.divergences++
	r := f.ipdom[b.Index]
	var run []*group
	for _, g := range gs {
		if g.t != r {
			run = append(run, g) // a group at r waits in the entry below
		}
	}
	x.arrange(run)
	if r == top.rpc {
		w.stack = w.stack[:len(w.stack)-1]
	} else {
		top.b, top.ip = r, 0 // the reconvergence entry
	}
	for i := len(run) - 1; i >= 0; i-- {
		w.stack = append(w.stack, &entry{fr: fr, b: run[i].t, rpc: r, mask: run[i].mask})
	}
	return nil
}

func blockIdx(g *cfg.Graph, b *cfg.Block) int {
	if b == g.Exit {
		return exitIdx
	}
	return b.Index
}

func blockOrNil(g *cfg.Graph, b *cfg.Block) *cfg.Block {
	if b == g.Exit {
		return nil
	}
	return b
}

// indirect sets the successor of each lane at brx.idx: the target named
// by the index (lanes whose guard fails fall through).
func (x *run) indirect(w *warp, fr *frame, b *cfg.Block, d *dinstr, act, on uint32, succ []int, drawn *uint32) error {
	in := d.in
	f := fr.f
	for _, l := range lanesOf(act) {
		if on&(1<<l) == 0 {
			succ[l] = len(b.Succs) - 1
			continue
		}
		c := laneCtx{x: x, w: w, fr: fr, d: d, l: l}
		idx := c.read(&d.src[0], u32)
		if c.drawn {
			*drawn |= 1 << l
		}
		if idx >= uint64(len(in.Targets)) {
			if c.drawn {
				idx %= uint64(len(in.Targets))
			} else {
				return fmt.Errorf("%s: brx.idx index %d out of range (%d targets)", x.k.pos(in), idx, len(in.Targets))
			}
		}
		j, ok := f.fn.Labels[in.Targets[idx]]
		if !ok {
			return fmt.Errorf("%s: brx.idx target %s undefined", x.k.pos(in), in.Targets[idx])
		}
		found := false
		for s, e := range b.Succs {
			if e.To != f.g.Exit && e.To.First == j {
				succ[l], found = s, true
				break
			}
		}
		if !found {
			return fmt.Errorf("%s: brx.idx target %s is no successor of the block", x.k.pos(in), in.Targets[idx])
		}
	}
	return nil
}

// steer returns the successor a data-dependent decision takes for lane l
// at the end of b (nat: the one the drawn data gives). The data decides,
// unless its edge would run a capped loop header more often than the
// user's flow fact allows, now or on every way out of the loop (the
// lane could then only leave by iterating once more): the lane then takes
// the first edge that keeps to the caps, as data that ends the loop
// would. Nothing else is overridden: a decision the data cannot take (a
// comparison a range argument settles) must not appear in an execution,
// or the judge would blame the analysis for a path no input runs.
func (x *run) steer(fr *frame, l int, b *cfg.Block, nat int) int {
	if x.feasible(fr, l, b, nat) {
		return nat
	}
	for s := range b.Succs {
		if x.feasible(fr, l, b, s) {
			return s
		}
	}
	return nat
}

// feasible reports whether lane l may take successor s of b: the edge
// keeps every capped header within its cap and, after it, the lane can
// reach the function's exit without taking the back edge of a loop at
// its cap (a loop re-entered from outside would restart its count; the
// search ignores that, so it may refuse an edge it could allow).
func (x *run) feasible(fr *frame, l int, b *cfg.Block, s int) bool {
	f := fr.f
	caps := x.caps[f]
	t := b.Succs[s].To
	if t == f.g.Exit {
		return true
	}
	var sat []int // capped loops holding t, at their cap after the edge
	for lp := t.Loop; lp != nil; lp = lp.Parent {
		c := caps[lp.Index]
		if c == 0 {
			continue
		}
		n := fr.count[lp.Index*32+l]
		if lp.Header == t {
			if lp.Contains(b) {
				n++
			} else {
				n = 1
			}
		}
		if n > c {
			return false
		}
		if n == c {
			sat = append(sat, lp.Index)
		}
	}
	if len(sat) == 0 {
		return true
	}
	key := fmt.Sprint(f.fn.Name, t.Index, sat)
	if v, ok := x.feas[key]; ok {
		return v
	}
	seen := map[*cfg.Block]bool{}
	stack := []*cfg.Block{t}
	ok := false
	for len(stack) > 0 && !ok {
		y := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if y == f.g.Exit {
			ok = true
			break
		}
		if seen[y] {
			continue
		}
		seen[y] = true
	next:
		for _, e := range y.Succs {
			if h := e.To; h != f.g.Exit && h.Loop != nil && h.Loop.Header == h && h.Loop.Contains(y) && slices.Contains(sat, h.Loop.Index) {
				continue next
			}
			stack = append(stack, e.To)
		}
	}
	x.feas[key] = ok
	return ok
}

// arrange orders the groups of a divergence: run[0] runs first.
func (x *run) arrange(gs []*group) {
	// Canonical order: by successor index (taken first).
	slices.SortStableFunc(gs, func(a, b *group) int { return a.succ - b.succ })
	if len(gs) < 2 {
		return
	}
	n := factorial(len(gs))
	x.orders = append(x.orders, n)
	if x.opt.Choose != nil {
		k := x.opt.Choose(n)
		if k < 0 || k >= n {
			k = 0
		}
		permute(gs, k)
		return
	}
	switch x.opt.Order {
	case FallThroughFirst:
		slices.Reverse(gs)
	case RandomOrder:
		x.order.Shuffle(len(gs), func(i, j int) { gs[i], gs[j] = gs[j], gs[i] })
	case GPGPUSim:
		// simt_stack::update takes the group of the highest lane first
		// and pushes it deepest: the group holding the highest lane runs
		// last, the one whose highest lane is lowest first.
		slices.SortStableFunc(gs, func(a, b *group) int {
			return (31 - bits.LeadingZeros32(a.mask)) - (31 - bits.LeadingZeros32(b.mask))
		})
	}
}

func factorial(n int) int {
	r := 1
	for i := 2; i <= n; i++ {
		r *= i
	}
	return r
}

// permute reorders gs into the k-th permutation (factorial number system,
// k = 0 keeps the order).
func permute(gs []*group, k int) {
	rest := slices.Clone(gs)
	for i := range gs {
		f := factorial(len(rest) - 1)
		j := k / f
		k %= f
		gs[i] = rest[j]
		rest = slices.Delete(rest, j, j+1)
	}
}
