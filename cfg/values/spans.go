package values

import (
	"math/bits"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Stores into local arrays (docs/model.md, Values: the local frame). A
// store at a frame's address plus a computed offset (a[i] = x, -O0 code
// keeping the array in the frame) writes the cells its offsets can reach,
// not the whole frame: Build derives, per such store, the byte range
// [lo, hi) of its offsets from the frame's address (a span), and the
// store clobbers only the cells overlapping it.
//
// The span of a store depends on the values of the cells it is computed
// from (the loop counter i kept in the same frame), which depend on the
// spans of the stores. Build therefore assumes a span per store (none at
// first), builds the values under that hypothesis, derives each store's
// span from them, and stops when every derived span lies inside the
// assumed one; otherwise it widens the assumed spans to include the
// derived ones and builds again (a few rounds, then the whole frame).
//
// Soundness: let H be the spans assumed in the last round, whose derived
// spans lie inside H. Suppose some execution has a store outside its
// span in H, and take the first such store. Every store before it stayed
// inside H, and the values built under H describe every execution up to
// a store outside H, so the value of the store's address there is one the
// derivation over those values accounts for: it lies in the derived span,
// inside H, a contradiction. So every store stays inside H, and the
// values built under H describe every execution.
//
// The offsets are derived by interval arithmetic (Num) over the value
// graph: a loop phi takes the least invariant the interval iteration
// finds (widened once it grows, then narrowed by one step), and a value
// tested by the branches that lead to a point takes the tests' bounds
// there (i < 4 on the edge into the loop body). Every step
// over-approximates the values the point can see; an address the
// decomposition does not follow (through a phi, or two frames) makes the
// store clobber the whole frame, as before.

// span is a byte range [lo, hi) of a frame, relative to its address; all:
// any byte.
type span struct {
	lo, hi int64
	all    bool
}

func (s span) contains(t span) bool {
	return s.all || !t.all && (t.lo >= t.hi || s.lo <= t.lo && t.hi <= s.hi)
}

func (s span) join(t span) span {
	switch {
	case s.all || t.all:
		return span{all: true}
	case s.lo >= s.hi:
		return t
	case t.lo >= t.hi:
		return s
	}
	return span{lo: min(s.lo, t.lo), hi: max(s.hi, t.hi)}
}

// maxSpanRounds bounds the rounds of the span hypothesis before every
// store through a computed frame address clobbers its whole frame.
const maxSpanRounds = 4

// spanStores returns the stores through a computed address of one frame
// (clobber "frame:X").
func (f *Func) spanStores() []*isa.Instr {
	var out []*isa.Instr
	for in, fr := range f.clobber {
		if fr != "*" {
			out = append(out, in)
		}
	}
	return out
}

// deriveSpans derives the span of every store through a computed frame
// address from the current values.
func (f *Func) deriveSpans(stores []*isa.Instr) map[*isa.Instr]span {
	sets, ok := f.frameSets()
	out := map[*isa.Instr]span{}
	ra := &rangeAnalysis{f: f, inv: map[*Value]Num{}, busy: map[*Value]bool{}, conds: map[*cfg.Block][]cond{}}
	for _, in := range stores {
		ii := f.info[in]
		frame := f.clobber[in][len("frame:"):]
		sp := span{lo: 1, hi: 0}
		for _, o := range ii.sem.Outs {
			if o.Kind != OutMem {
				continue
			}
			if !ok || o.Base < 0 || ii.ins == nil {
				sp = span{all: true}
				break
			}
			a := f.spanOf(ra, ii, ii.ins[o.Base], o.Off, o.W, frame, sets)
			if a.all {
				sp = a
				break
			}
			sp = sp.join(a)
		}
		out[in] = sp
	}
	return out
}

// accessSpan is the bytes of frame an access of w bits at addr + off by
// the instruction of ii may touch, derived from the current values.
func (f *Func) accessSpan(ra *rangeAnalysis, ii *instrInfo, addr *Value, off int64, w uint8, frame string) span {
	return f.spanOf(ra, ii, addr, off, w, frame, f.frameSet)
}

func (f *Func) spanOf(ra *rangeAnalysis, ii *instrInfo, addr *Value, off int64, w uint8, frame string, sets map[*Value]string) span {
	p := ra.point(ii.block)
	lo, hi, good := p.offset(addr, frame, sets)
	if good {
		lo, good = addOK64(lo, off)
	}
	if good {
		hi, good = addOK64(hi, off+max(int64(w)/8, 1))
	}
	if !good {
		return span{all: true}
	}
	return span{lo: lo, hi: hi}
}

func addOK64(a, b int64) (int64, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// clobberSpan makes the cells of frame (a "frame:X" base) that overlap
// bytes [sp.lo, sp.hi) unknown.
func (f *Func) clobberSpan(in *isa.Instr, blk *cfg.Block, frame string, sp span) {
	for _, c := range f.cellsOf[frame] {
		if c.off < sp.hi && sp.lo < c.end {
			old := f.b.read(c.name, blk, 8*int(c.end-c.off))
			f.b.write(c.name, blk, f.staleCell(in, 8*int(c.end-c.off), "a store to a local array element that may be this variable", old))
		}
	}
}

// cond is a comparison known to be truth at a point.
type cond struct {
	code  Code
	a, b  *Value
	truth bool
}

// rangeAnalysis derives intervals of values at points of the function.
type rangeAnalysis struct {
	f     *Func
	inv   map[*Value]Num // loop-phi invariants
	busy  map[*Value]bool
	conds map[*cfg.Block][]cond
}

// condsAt returns the comparisons the branches leading to blk decide: for
// each block T dominating blk (blk included) entered only by one edge
// of a two-way branch, the branch's condition, true or false along that
// edge. Every path to blk takes that edge after the last definition of
// the compared values (they dominate the branch), so the comparison holds
// of their values at blk.
func (r *rangeAnalysis) condsAt(blk *cfg.Block) []cond {
	if cs, ok := r.conds[blk]; ok {
		return cs
	}
	var cs []cond
	for t, n := blk, 0; t != nil && n < 1024; t, n = t.Idom(), n+1 {
		var e *cfg.Edge
		k := 0
		for i := range t.Preds {
			if t.Preds[i].From.Reachable {
				e = &t.Preds[i]
				k++
			}
		}
		if k != 1 || e.From == t || e.From.Kind != cfg.BlockIf || len(e.From.Succs) != 2 || e.From.Succs[0].To == e.From.Succs[1].To {
			continue
		}
		br := e.From.Last()
		g := r.f.Guard(br)
		if g == nil {
			continue
		}
		truth := (e.Kind == cfg.EdgeTaken) != br.Guard.Neg
		cs = decompose(cs, g, truth, 0)
	}
	r.conds[blk] = cs
	return cs
}

// decompose adds the comparisons that predicate g having value truth
// implies.
func decompose(cs []cond, g *Value, truth bool, depth int) []cond {
	if g == nil || g.Kind != VOp || depth > 8 {
		return cs
	}
	switch {
	case g.Code == Not && g.W == 1:
		return decompose(cs, g.Args[0], !truth, depth+1)
	case g.Code == Xor && g.W == 1:
		if c, ok := g.Args[1].IsConst(); ok {
			return decompose(cs, g.Args[0], truth != (c&1 == 1), depth+1)
		}
		if c, ok := g.Args[0].IsConst(); ok {
			return decompose(cs, g.Args[1], truth != (c&1 == 1), depth+1)
		}
	case g.Code == And && g.W == 1 && truth, g.Code == Or && g.W == 1 && !truth:
		cs = decompose(cs, g.Args[0], truth, depth+1)
		return decompose(cs, g.Args[1], truth, depth+1)
	case g.Code.IsCompare():
		return append(cs, cond{code: g.Code, a: g.Args[0], b: g.Args[1], truth: truth})
	case g.Code == Or && g.W == 1 && truth:
		// A .EX chain hp <u hq || hp == hq && lp <u lq (or <=u) with hq
		// = 0: hp <u 0 is false, so hp == 0 and lp <u lq (a 64-bit
		// counter below a bound under 2^32, split into two words).
		for i := 0; i < 2; i++ {
			h, rest := g.Args[i], g.Args[1-i]
			if h.Kind != VOp || h.Code != ULt || rest.Kind != VOp || rest.Code != And || rest.W != 1 {
				continue
			}
			if c, ok := h.Args[1].IsConst(); !ok || c != 0 {
				continue
			}
			hp := h.Args[0]
			for j := 0; j < 2; j++ {
				eq, lc := rest.Args[j], rest.Args[1-j]
				if eq.Kind != VOp || eq.Code != Eq || lc.Kind != VOp || lc.Code != ULt && lc.Code != ULe {
					continue
				}
				if !(eq.Args[0] == hp && eq.Args[1] == h.Args[1] || eq.Args[1] == hp && eq.Args[0] == h.Args[1]) {
					continue
				}
				cs = append(cs, cond{code: Eq, a: hp, b: h.Args[1], truth: true})
				return append(cs, cond{code: lc.Code, a: lc.Args[0], b: lc.Args[1], truth: true})
			}
		}
	}
	return cs
}

// edgeConds adds to cs the comparison the branch ending from decides
// along its edge into to (none when from is not a two-way branch with
// two distinct successors).
func (r *rangeAnalysis) edgeConds(cs []cond, from, to *cfg.Block) []cond {
	if from == nil || from.Kind != cfg.BlockIf || len(from.Succs) != 2 || from.Succs[0].To == from.Succs[1].To {
		return cs
	}
	for _, e := range from.Succs {
		if e.To != to {
			continue
		}
		br := from.Last()
		g := r.f.Guard(br)
		if g == nil {
			return cs
		}
		truth := (e.Kind == cfg.EdgeTaken) != br.Guard.Neg
		return decompose(append([]cond(nil), cs...), g, truth, 0)
	}
	return cs
}

// point evaluates values at one block.
type pointEval struct {
	r     *rangeAnalysis
	conds []cond
	memo  map[*Value]Num
	busy  map[*Value]bool
	over  map[*Value]Num // a loop phi's invariant being iterated
}

func (r *rangeAnalysis) point(blk *cfg.Block) *pointEval {
	p := &pointEval{r: r, memo: map[*Value]Num{}, busy: map[*Value]bool{}, over: map[*Value]Num{}}
	if blk != nil {
		p.conds = r.condsAt(blk)
	}
	return p
}

// edgePoint evaluates values along the edge from -> to: at the end of
// from, with the comparison its branch decides along the edge.
func (r *rangeAnalysis) edgePoint(from, to *cfg.Block) *pointEval {
	p := r.point(from)
	p.conds = r.edgeConds(p.conds, from, to)
	return p
}

// eval is an interval of v's values at the point.
func (p *pointEval) eval(v *Value) Num {
	if n, ok := p.memo[v]; ok {
		return n
	}
	if v.Kind == VConst {
		return ConstNum(v.W, v.Imm) // not refined: its other side would see it busy
	}
	if p.busy[v] || len(p.busy) > 4096 {
		return TopNum(v.W)
	}
	p.busy[v] = true
	var n Num
	switch v.Kind {
	case VConst:
		n = ConstNum(v.W, v.Imm)
	case VOp:
		args := make([]Num, len(v.Args))
		ws := make([]int, len(v.Args))
		for i, a := range v.Args {
			args[i] = p.eval(a)
			ws[i] = a.W
		}
		n = NumApply(v.Code, v.W, args, ws)
	case VPhi:
		if x, ok := p.over[v]; ok {
			n = x
		} else {
			n = p.r.invariant(v)
		}
	case VSpecial:
		n = RangeDomain{Env: &RangeEnv{}}.special(v)
	default:
		n = TopNum(v.W)
	}
	for _, c := range p.conds {
		if c.a == v && c.b != v {
			n = Meet(n, bound(c.code, c.truth, p.eval(c.b), v.W, true))
		}
		if c.b == v && c.a != v {
			n = Meet(n, bound(c.code, c.truth, p.eval(c.a), v.W, false))
		}
	}
	delete(p.busy, v)
	p.memo[v] = n
	return n
}

// bound is the set of values x with x code o (left) or o code x (not
// left) equal to truth, for o in the set other.
func bound(code Code, truth bool, o Num, w int, left bool) Num {
	top := TopNum(w)
	if o.Empty() {
		return top
	}
	// Normalise to x < o, x <= o, x > o, x >= o.
	lt := code == SLt || code == ULt
	signed := code == SLt || code == SLe
	switch code {
	case Eq:
		if truth {
			return o
		}
		return top
	case Ne:
		if !truth {
			return o
		}
		return top
	case SLt, SLe, ULt, ULe:
	default:
		return top
	}
	// below: x is below o (x < o or x <= o); strict: strictly.
	below, strict := left, lt
	if !truth {
		below, strict = !below, !strict
	}
	if signed {
		if below {
			hi := o.SHi
			if strict {
				if hi == smin(w) {
					return EmptyNum(w)
				}
				hi--
			}
			return SRange(w, smin(w), hi)
		}
		lo := o.SLo
		if strict {
			if lo == smax(w) {
				return EmptyNum(w)
			}
			lo++
		}
		return SRange(w, lo, smax(w))
	}
	if below {
		hi := o.Hi
		if strict {
			if hi == 0 {
				return EmptyNum(w)
			}
			hi--
		}
		return URange(w, 0, hi)
	}
	lo := o.Lo
	if strict {
		if lo == Mask(w) {
			return EmptyNum(w)
		}
		lo++
	}
	return URange(w, lo, Mask(w))
}

// invariant is an interval holding every value phi takes.
func (r *rangeAnalysis) invariant(phi *Value) Num {
	if n, ok := r.inv[phi]; ok {
		return n
	}
	if r.busy[phi] || len(r.busy) > 64 {
		return TopNum(phi.W)
	}
	r.busy[phi] = true
	defer delete(r.busy, phi)
	var l *cfg.Loop
	for _, x := range r.f.Graph.Loops {
		if x.Header == phi.Block {
			l = x
		}
	}
	// init: the operands along edges from outside the loop (all of them
	// for a phi that heads no loop).
	init := EmptyNum(phi.W)
	var back []int
	for i, a := range phi.Args {
		var pred *cfg.Block
		if i < len(phi.Preds) {
			pred = phi.Preds[i]
		}
		if l != nil && pred != nil && l.Contains(pred) {
			back = append(back, i)
			continue
		}
		init = Join(init, r.edgePoint(pred, phi.Block).eval(a))
	}
	step := func(x Num) Num {
		n := init
		for _, i := range back {
			p := r.edgePoint(phi.Preds[i], phi.Block)
			p.over[phi] = x
			n = Join(n, p.eval(phi.Args[i]))
		}
		return n
	}
	x := init
	res := TopNum(phi.W)
	for k := 0; k < 4; k++ {
		nx := step(x)
		if within(nx, x) {
			// x is a post-fixpoint: every value of phi is in x, so in
			// step(x) (its entry values, or a step from a value in x).
			res = nx
			break
		}
		x = widen(x, Join(x, nx))
	}
	r.inv[phi] = res
	return res
}

// within reports whether every value of a is in b (componentwise).
func within(a, b Num) bool {
	if a.Empty() {
		return true
	}
	return a.Lo >= b.Lo && a.Hi <= b.Hi && a.SLo >= b.SLo && a.SHi <= b.SHi && a.Zero&b.Zero == b.Zero && a.One&b.One == b.One
}

// widen moves every bound of old that next exceeds to its extreme.
func widen(old, next Num) Num {
	w := old.W
	n := next
	if next.Lo < old.Lo {
		n.Lo = 0
	}
	if next.Hi > old.Hi {
		n.Hi = Mask(w)
	}
	if next.SLo < old.SLo {
		n.SLo = smin(w)
	}
	if next.SHi > old.SHi {
		n.SHi = smax(w)
	}
	n.Zero = old.Zero & next.Zero
	n.One = old.One & next.One
	if next.Lo < old.Lo || next.Hi > old.Hi || next.SLo < old.SLo || next.SHi > old.SHi {
		// Keep only the known low bits (the congruence): the high ones
		// come from the interval's common high bits (norm) and would
		// bound the widened interval again, one bit per round.
		low := Mask(bits.TrailingZeros64(^(n.Zero | n.One)))
		n.Zero &= low
		n.One &= low
	}
	return n.norm()
}

// offset returns the signed interval [lo, hi] of v - the address of
// frame, at the point; ok is false when v is not the frame's address
// plus terms the decomposition follows.
func (p *pointEval) offset(v *Value, frame string, sets map[*Value]string) (lo, hi int64, ok bool) {
	for depth := 0; depth < 64; depth++ {
		switch {
		case v.Kind == VFrame && v.Name == frame:
			return lo, hi, true
		case v.Kind == VOp && (v.Code == Add || v.Code == Sub) && len(v.Args) == 2:
			a, b := v.Args[0], v.Args[1]
			neg := v.Code == Sub
			if sets[b] == frame && !neg && sets[a] == "" {
				a, b = b, a
			}
			if sets[a] != frame || sets[b] != "" {
				return 0, 0, false
			}
			if isLocalWindow(b) && !neg {
				v = a // the generic address of the local address a
				continue
			}
			n := p.eval(b)
			if n.Empty() {
				return 0, 0, false
			}
			tl, th := n.SLo, n.SHi
			if neg {
				if tl == smin(64) {
					return 0, 0, false
				}
				tl, th = -th, -tl
			}
			var ok1, ok2 bool
			lo, ok1 = addOK64(lo, tl)
			hi, ok2 = addOK64(hi, th)
			// The address wraps at its width: the offsets must stay
			// within the width's signed range for the interval to be
			// the set of offsets.
			if !ok1 || !ok2 || lo < smin(v.W) || hi > smax(v.W) {
				return 0, 0, false
			}
			v = a
		case v.Kind == VOp && v.Code == Or && len(v.Args) == 2:
			a, b := v.Args[0], v.Args[1]
			if sets[b] == frame && sets[a] == "" {
				a, b = b, a
			}
			if lo, ok := pairLow(v); ok && v.W == 64 && lo.W == 32 && sets[lo] == frame {
				// A 64-bit generic address built from two words (SASS):
				// when it falls in the local window, the local address
				// is the address minus the window, which is the low word
				// minus the window's low word modulo 2^32 (local
				// addresses are 32-bit), whatever the high word; when it
				// does not, the store writes no frame. So the low word
				// places the store.
				v = lo
				continue
			}
			if sets[a] == frame && sets[b] == "" && isLocalWindow(b) {
				v = a // sm_50 … sm_53: window | a, the window aligned above every local address
				continue
			}
			return 0, 0, false
		default:
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// pairLow returns lo when v = zext(lo) | (zext(hi) << 32) (in either
// order).
func pairLow(v *Value) (*Value, bool) {
	for i := 0; i < 2; i++ {
		x, y := v.Args[i], v.Args[1-i]
		if x.Kind != VOp || x.Code != ZExt || y.Kind != VOp || y.Code != Shl {
			continue
		}
		if k, ok := y.Args[1].IsConst(); !ok || k != 32 {
			continue
		}
		if h := y.Args[0]; h.Kind != VOp || h.Code != ZExt || h.Args[0].W != 32 {
			continue
		}
		return x.Args[0], true
	}
	return nil, false
}
