package values

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Frame slots (docs/model.md, Values: the local frame). Unoptimised code
// keeps every variable in the function's local frame (PTX __local_depot,
// SASS the stack at c[0x0][0x28], through LDL/STL or, at -O0, through
// generic addresses local_window + frame address) and reloads it from there. A load or
// store at the frame's address plus a constant is a variable of the SSA
// form (a cell), provided the frame's address does not escape: it is only
// ever used as the base of loads and stores, or offset (add, sub, cvta,
// mov) into another such address. Then no other address can point into
// the frame (local memory is private to the thread, and only its frame
// pointer reaches it), so the cells are exact. A store at a frame address
// plus an unknown offset (a local array) writes every cell of that frame
// with an unknown value; a load from it is unknown. When the address
// escapes (stored, passed to a call, compared, multiplied), no cell is
// promoted: every frame load is unknown.

// frameClass classifies an address value.
type frameClass struct {
	kind  uint8 // 0 not derived from a frame, 1 frame + constant, 2 frame + unknown, 3 escapes
	frame string
	off   int64
}

const (
	notFrame uint8 = iota
	frameConst
	frameVar
	frameEscape
)

func (f *Func) classify(v *Value, memo map[*Value]frameClass) frameClass {
	if c, ok := memo[v]; ok {
		return c
	}
	switch x := f.frameSet[v]; x {
	case "":
		memo[v] = frameClass{}
		return frameClass{}
	case "*":
		memo[v] = frameClass{kind: frameEscape}
		return memo[v]
	default:
		memo[v] = frameClass{kind: frameVar, frame: x} // cycles through phis: unknown offset
	}
	var c frameClass
	switch v.Kind {
	case VFrame:
		c = frameClass{kind: frameConst, frame: v.Name}
	case VOpaque:
		// A stale cell that held a frame address: somewhere in that
		// frame.
		c = frameClass{kind: frameVar, frame: f.frameSet[v]}
	case VPhi:
		for _, a := range v.Args {
			ac := f.classify(resolve(a), memo)
			if ac.kind == notFrame {
				continue
			}
			if c.kind != notFrame && c.frame != ac.frame {
				// An address into one of two frames: every frame
				// escapes.
				c = frameClass{kind: frameEscape}
				break
			}
			if ac.kind == frameEscape {
				c = ac
				continue
			}
			if c.kind == frameEscape {
				continue
			}
			c = frameClass{kind: frameVar, frame: ac.frame}
		}
	case VOp:
		var fr []frameClass
		for _, a := range v.Args {
			fr = append(fr, f.classify(resolve(a), memo))
		}
		n := 0
		for _, x := range fr {
			if x.kind != notFrame {
				n++
			}
		}
		switch {
		case n == 0:
		case n > 1:
			// Two operands from the frame (a 64-bit pair whose high word
			// takes the low words' carry): an address the classification
			// does not follow, into the one frame both come from.
			c = frameClass{kind: frameEscape}
			if x := f.frameSet[v]; x != "*" {
				c.frame = x
			}
		default:
			var x frameClass
			for _, y := range fr {
				if y.kind != notFrame {
					x = y
				}
			}
			switch v.Code {
			case ZExt, SExt, Trunc:
				c = x
			case Add:
				if x.kind == frameEscape {
					c = x
					break
				}
				other := v.Args[0]
				if fr[0].kind != notFrame {
					other = v.Args[1]
				}
				if other.Kind == VSpecial && other.Name == "local_window" {
					// The generic address of a local address (SASS's
					// cvta.local): the same frame location.
					c = x
					break
				}
				if k, ok := other.SignedConst(); ok && x.kind == frameConst {
					c = frameClass{kind: frameConst, frame: x.frame, off: x.off + k}
				} else {
					c = frameClass{kind: frameVar, frame: x.frame}
				}
			case Or:
				// sm_50 … sm_53: ptxas forms the generic address of a
				// local address a as window | a (the window is aligned
				// above every local address): the same frame location.
				other := v.Args[0]
				if fr[0].kind != notFrame {
					other = v.Args[1]
				}
				if x.kind != frameEscape && isLocalWindow(other) {
					c = x
				} else {
					c = frameClass{kind: frameEscape, frame: x.frame}
				}
			case Sub:
				if fr[0].kind == notFrame || x.kind == frameEscape {
					c = frameClass{kind: frameEscape, frame: x.frame}
					break
				}
				c = frameClass{kind: frameVar, frame: x.frame}
			case Select:
				if fr[0].kind != notFrame {
					c = frameClass{kind: frameEscape, frame: x.frame}
				} else {
					c = frameClass{kind: frameVar, frame: x.frame}
				}
			default:
				c = frameClass{kind: frameEscape, frame: x.frame}
			}
		}
	}
	memo[v] = c
	return c
}

// isLocalWindow reports whether v is the generic address of the local
// window (SASS), or its low word (sm_50 … sm_53, where it is one word).
func isLocalWindow(v *Value) bool {
	if v.Kind == VOp && v.Code == Trunc && v.W == 32 && len(v.Args) == 1 {
		v = resolve(v.Args[0])
	}
	return v.Kind == VSpecial && v.Name == "local_window"
}

// frameSets gives, for every value, the frame its address may point into
// ("" none, "*" more than one), following operations and phis (a
// fixpoint: phis close cycles). ok is false when it did not converge.
func (f *Func) frameSets() (map[*Value]string, bool) {
	sets := map[*Value]string{}
	join := func(a, b string) string {
		switch {
		case a == b || b == "":
			return a
		case a == "":
			return b
		}
		return "*"
	}
	for round := 0; round < 64; round++ {
		changed := false
		for _, v := range f.values {
			v = resolve(v)
			var x string
			switch v.Kind {
			case VFrame:
				x = v.Name
			case VOp, VPhi:
				for _, a := range v.Args {
					x = join(x, sets[resolve(a)])
				}
			case VOpaque:
				if !v.stale || len(v.Args) == 0 {
					continue
				}
				x = sets[resolve(v.Args[len(v.Args)-1])]
			default:
				continue
			}
			if x != sets[v] {
				sets[v] = x
				changed = true
			}
		}
		if !changed {
			return sets, true
		}
	}
	return nil, false
}

// frameCells decides, from the values of the last build, which loads and
// stores are frame cells. A frame whose address escapes (is read by an
// instruction other than as an address, or reaches an address the
// classification cannot place in one frame) has no cells: its loads are
// unknown. The other frames keep theirs: no address the analysis does not
// derive from a frame's own address can point into a frame whose address
// never escaped.
//
// With spill set, a frame's address stored into a cell (a frame slot at a
// constant offset of a frame that does not escape, or the parameter cell
// of an inlined call) does not escape (docs/model.md, "Frame addresses
// kept in cells"): the cell holds it as a value, and a load from the cell
// gives it back, so that a load or store through the reloaded address is
// the cell at that offset again. The frames it may hold escape after all
// when their holder is read at an offset the analysis does not know (the
// loaded value would be a pointer it does not see) or, unless optimistic
// (the first round, whose values do not read cells yet), when a load from
// a cell holding them gives a value not derived from a frame (the cell was
// overwritten by a store the analysis does not place). prior lists the
// frames found to escape in earlier rounds (escapes only accumulate).
func (f *Func) frameCells(spill, optimistic bool, prior map[string]bool) {
	f.frameOut = map[*isa.Instr][]string{}
	f.frameLoads = map[frameKey]string{}
	f.clobber = map[*isa.Instr]string{}
	f.escaped = map[string]bool{}
	for fr := range prior {
		f.escaped[fr] = true
	}
	f.frameOK = true
	sets, ok := f.frameSets()
	if !ok {
		f.frameOK = false
		return
	}
	memo := map[*Value]frameClass{}
	f.frameSet = sets
	isFrame := func(v *Value) bool { return v != nil && f.classify(v, memo).kind != notFrame }
	changed := false
	escape := func(c frameClass) {
		if c.frame == "" {
			f.frameOK = false
		}
		if !f.escaped[c.frame] {
			f.escaped[c.frame] = true
			changed = true
		}
	}
	var ins []*isa.Instr
	for in := range f.info {
		ins = append(ins, in)
	}
	sort.Slice(ins, func(i, j int) bool { return ins[i].Index < ins[j].Index })
	var scopes map[string][]*isa.Instr
	if spill {
		scopes = f.callsByScope()
	}
	// Escapes first: a frame that escapes anywhere has no cells. A spill
	// depends on its holder not escaping: repeat until nothing changes.
	for {
		changed = false
		var held []heldRegion
		for _, in := range ins {
			ii := f.info[in]
			s := ii.sem
			bases := map[int32]bool{}
			for _, x := range s.Ins {
				if x.Kind == InMem && x.Base >= 0 {
					bases[x.Base] = true
				}
			}
			for _, o := range s.Outs {
				if o.Kind == OutMem && o.Base >= 0 {
					bases[o.Base] = true
				}
			}
			// Escapes: a frame-derived register read other than as an address
			// base, by an instruction that does not compute another address.
			var spills []heldRegion
			spillsDone := false
			for k, x := range s.Ins {
				if x.Kind != InReg || bases[int32(k)] || !isFrame(ii.ins[k]) {
					continue
				}
				// A carry out of address arithmetic (a predicate: the low
				// words' carry into the high word of a 64-bit address) is not
				// an address.
				addrOnly := len(s.Outs) > 0 && in.Kind == isa.KindOther
				for i, o := range s.Outs {
					if o.Kind == OutReg && o.W == 1 {
						continue
					}
					if o.Kind == OutReg && o.Node >= 0 && ii.outs[i] != nil && f.classify(ii.outs[i], memo).kind == notFrame {
						// A modelled result that does not depend on the
						// frame's address (LEA.HI.X's high word of a 64-bit
						// address whose shift drops the low word): nothing
						// escapes into it.
						continue
					}
					if o.Kind != OutReg || ii.outs[i] == nil || !isFrame(ii.outs[i]) {
						addrOnly = false
					}
				}
				if addrOnly || f.storesNoFrame(ii, memo) {
					continue
				}
				c := f.classify(ii.ins[k], memo)
				if spill && c.frame != "" {
					if !spillsDone {
						spills, spillsDone = f.spillTargets(in, ii, memo, scopes), true
					}
					if spills != nil {
						for _, r := range spills {
							r.frames = map[string]bool{c.frame: true}
							held = append(held, r)
						}
						continue
					}
				}
				escape(c)
			}
			if !f.frameOK {
				return
			}
		}
		if len(held) > 0 {
			f.heldEscapes(ins, held, optimistic, memo, escape)
			if !f.frameOK {
				return
			}
		}
		if !changed {
			break
		}
	}
	for _, in := range ins {
		ii := f.info[in]
		s := ii.sem
		if in.Kind == isa.KindCall || in.Kind == isa.KindIndirectCall {
			continue
		}
		for k, x := range s.Ins {
			if x.Kind != InMem || x.Base < 0 {
				continue
			}
			c := f.classify(ii.ins[x.Base], memo)
			if c.kind == frameConst && !f.escaped[c.frame] {
				f.frameLoads[frameKey{in, k}] = f.registerCell("frame:"+c.frame, c.off+x.Off, int64(x.W)/8)
			}
		}
		outs := make([]string, len(s.Outs))
		any := false
		for k, o := range s.Outs {
			if o.Kind != OutMem {
				continue
			}
			if o.Base < 0 {
				if o.Name == "?" || o.Space == isa.SpaceLocal || isDepot(o.Name) {
					f.clobber[in] = "*" // an unknown local address, or a frame by its symbol
				}
				continue
			}
			c := f.classify(ii.ins[o.Base], memo)
			if f.escaped[c.frame] {
				continue // the frame has no cells
			}
			switch c.kind {
			case frameConst:
				outs[k] = f.registerCell("frame:"+c.frame, c.off+o.Off, int64(o.W)/8)
				any = true
			case frameVar:
				f.clobber[in] = "frame:" + c.frame
			case frameEscape:
				// An address computed from a frame's in a way the
				// classification does not follow (a 64-bit pair whose
				// high word takes a carry from the frame's address):
				// it may write anywhere in that frame (every frame, when
				// it is not known which).
				f.clobber[in] = "*"
				if c.frame != "" {
					f.clobber[in] = "frame:" + c.frame
				}
			case notFrame:
				if o.Space == isa.SpaceLocal {
					f.clobber[in] = "*" // a local address not derived from a frame
				}
			}
		}
		if any {
			f.frameOut[in] = outs
		}
	}
}

// storesNoFrame reports whether ii is a plain store whose every stored
// value is modelled and not derived from a frame's address (a byte of a
// register whose other bits held an address): a frame-derived register
// it reads as data passes no address on.
func (f *Func) storesNoFrame(ii *instrInfo, memo map[*Value]frameClass) bool {
	if len(ii.sem.Outs) == 0 || len(ii.data) != len(ii.sem.Outs) {
		return false
	}
	for k, o := range ii.sem.Outs {
		if o.Kind != OutMem || ii.data[k] == nil || f.classify(ii.data[k], memo).kind != notFrame {
			return false
		}
	}
	return true
}

// heldRegion is the bytes [off, end) of a cell base (a frame or a
// parameter cell) that a store of a frame address writes, and the frames
// whose addresses it may hold.
type heldRegion struct {
	base     string
	off, end int64
	frames   map[string]bool
}

func (r heldRegion) overlaps(base string, off, end int64) bool {
	return r.base == base && off < r.end && r.off < end
}

// spillTargets returns the regions a plain store writes when every one of
// them is a cell that can hold a frame address as a value: a frame slot at
// a constant offset of a frame that does not escape, or the argument or
// return cell of an inlined call (read back by the callee or the caller
// as the value stored). nil otherwise.
func (f *Func) spillTargets(in *isa.Instr, ii *instrInfo, memo map[*Value]frameClass, scopes map[string][]*isa.Instr) []heldRegion {
	s := ii.sem
	if in.Kind != isa.KindStore && in.Kind != isa.KindOther || len(s.Outs) == 0 {
		return nil
	}
	var out []heldRegion
	for k, o := range s.Outs {
		if o.Kind != OutMem || o.W == 0 {
			return nil
		}
		if o.Base < 0 {
			if o.Space != isa.SpaceParam || o.Name == "" || !f.paramHolds(in, o.Name, scopes) {
				return nil
			}
			base, off, ok := cellBase(f.storeCell(in, s, k, o))
			if !ok {
				return nil
			}
			out = append(out, heldRegion{base: base, off: off, end: off + int64(o.W)/8})
			continue
		}
		if ii.ins == nil || int(o.Base) >= len(ii.ins) {
			return nil
		}
		c := f.classify(ii.ins[o.Base], memo)
		if c.kind != frameConst || f.escaped[c.frame] {
			return nil
		}
		off := c.off + o.Off
		out = append(out, heldRegion{base: "frame:" + c.frame, off: off, end: off + int64(o.W)/8})
	}
	return out
}

// paramHolds reports whether a store to parameter symbol sym by in writes
// a cell the value analysis follows to its reader: the return cell of the
// inlined callee in is part of (the caller reads it), or an argument of
// calls that are all inlined (the callee reads it).
func (f *Func) paramHolds(in *isa.Instr, sym string, scopes map[string][]*isa.Instr) bool {
	if f.opts.Inlined == nil {
		return false
	}
	if ci := f.copyIdx(in); ci >= 0 {
		for _, p := range f.opts.Inlined.Copies[ci].Callee.RetParams {
			if p.Name == sym {
				return true
			}
		}
	}
	n := 0
	for _, call := range scopes[f.prefixOf(in)] {
		args, _ := callLists(call)
		for _, a := range args {
			if a == sym {
				if !f.opts.Inlined.Calls[call] {
					return false
				}
				n++
			}
		}
	}
	return n > 0
}

// callsByScope lists the call instructions per inlined copy's prefix.
func (f *Func) callsByScope() map[string][]*isa.Instr {
	out := map[string][]*isa.Instr{}
	for in := range f.info {
		if in.Kind == isa.KindCall || in.Kind == isa.KindIndirectCall {
			p := f.prefixOf(in)
			out[p] = append(out[p], in)
		}
	}
	for _, l := range out {
		sort.Slice(l, func(i, j int) bool { return l[i].Index < l[j].Index })
	}
	return out
}

// heldEscapes makes the frames held in cells escape where the cells do not
// give them back as values: a load from a holding frame at an offset the
// analysis does not place (it may read a held address the values do not
// show), a spill into a frame that escapes, and (unless optimistic) a load
// from a holding cell whose value is not derived from a frame (the cell
// was overwritten by a store the analysis does not place).
func (f *Func) heldEscapes(ins []*isa.Instr, held []heldRegion, optimistic bool, memo map[*Value]frameClass, escape func(frameClass)) {
	byBase := map[string][]heldRegion{}
	for _, r := range held {
		byBase[r.base] = append(byBase[r.base], r)
	}
	escapeAll := func(base string, off, end int64, all bool) {
		var frames []string
		for _, r := range byBase[base] {
			if all || r.overlaps(base, off, end) {
				for fr := range r.frames {
					frames = append(frames, fr)
				}
			}
		}
		sort.Strings(frames)
		for _, fr := range frames {
			escape(frameClass{kind: frameEscape, frame: fr})
		}
	}
	for base := range byBase {
		if strings.HasPrefix(base, "frame:") && f.escaped[base[len("frame:"):]] {
			escapeAll(base, 0, 0, true)
		}
	}
	var ra *rangeAnalysis
	for _, in := range ins {
		ii := f.info[in]
		if ii.ins == nil {
			continue
		}
		for k, x := range ii.sem.Ins {
			if !optimistic && x.Kind == InMem && x.Base >= 0 && int(x.Base) < len(ii.ins) {
				c := f.classify(ii.ins[x.Base], memo)
				switch {
				case c.kind != frameVar && c.kind != frameEscape:
				case c.frame == "":
					for base := range byBase {
						escapeAll(base, 0, 0, true)
					}
				case len(byBase["frame:"+c.frame]) > 0:
					// A load at an offset the analysis does not know:
					// the bytes it may read must hold no frame address.
					if ra == nil {
						ra = &rangeAnalysis{f: f, inv: map[*Value]Num{}, busy: map[*Value]bool{}, conds: map[*cfg.Block][]cond{}}
					}
					sp := f.accessSpan(ra, ii, ii.ins[x.Base], x.Off, x.W, c.frame)
					escapeAll("frame:"+c.frame, sp.lo, sp.hi, sp.all)
				}
			}
			if optimistic || k >= len(ii.inCells) || ii.inCells[k] == "" {
				continue
			}
			base, off, ok := cellBase(ii.inCells[k])
			if !ok || len(byBase[base]) == 0 {
				continue
			}
			// A cell holding a frame address read back as a value the
			// analysis does not know (a load wider than the value stored,
			// an opaque value of this instruction): the address is lost.
			// (An opaque value stored into the cell is the cell's content
			// exactly: a load the analysis does not place, which reads no
			// frame address once the decisions are a fixpoint.)
			if v := ii.ins[k]; v.Kind == VOpaque && v.Instr == in && f.classify(v, memo).kind == notFrame {
				escapeAll(base, off, off+max(int64(x.W)/8, 1), false)
			}
		}
	}
}

// registerCell records a cell of base at [off, off+size) and returns its
// name.
func (f *Func) registerCell(base string, off, size int64) string {
	name := f.cellName(base, off)
	if f.cellsOf == nil {
		f.cellsOf = map[string][]cellRef{}
	}
	for _, c := range f.cellsOf[base] {
		if c.name == name && c.end-c.off >= size {
			return name
		}
	}
	f.cellsOf[base] = append(f.cellsOf[base], cellRef{name: name, off: off, end: off + max(size, 1)})
	return name
}

// cellBase splits a cell name into its base and offset.
func cellBase(cell string) (string, int64, bool) {
	i := strings.LastIndexByte(cell, '@')
	if i < 0 {
		return "", 0, false
	}
	var off int64
	if _, err := fmt.Sscan(cell[i+1:], &off); err != nil {
		return "", 0, false
	}
	return cell[:i], off, true
}

// cellWidth is the width of frame variable cell: its widest access (a
// frame variable is read and written at that width; a narrower store
// merges into it, a narrower load truncates it). 0 for other variables.
func (f *Func) cellWidth(cell string) int {
	if !strings.HasPrefix(cell, "frame:") {
		return 0
	}
	base, _, ok := cellBase(cell)
	if !ok {
		return 0
	}
	w := 0
	for _, c := range f.cellsOf[base] {
		if c.name == cell {
			w = max(w, int(8*(c.end-c.off)))
		}
	}
	return min(w, 64)
}

// mergeInto is old with x written at bit shift sh: (old & ~(mask << sh))
// | (x << sh), at old's width (x and its shifted bits inside old).
func (f *Func) mergeInto(in *isa.Instr, old, x *Value, sh int) *Value {
	w := old.W
	keep := Mask(w) &^ (Mask(x.W) << uint(sh))
	nx := f.resize(in, x, w, false)
	if sh > 0 {
		nx = f.mk(in, Shl, w, nx, f.constant(32, uint64(sh)))
	}
	return f.mk(in, Or, w, f.mk(in, And, w, old, f.constant(w, keep)), nx)
}

// clobberOverlaps updates every other cell of cell's base that overlaps
// the bytes a store of x to cell writes: a cell inside those bytes takes
// its part of x, a cell holding all of them takes x in its own bytes
// (exact), any other overlap (or a guarded store) makes the cell unknown.
func (f *Func) clobberOverlaps(in *isa.Instr, blk *cfg.Block, cell string, x *Value, guarded bool) {
	base, off, ok := cellBase(cell)
	if !ok {
		return
	}
	size := int64(x.W) / 8
	if size == 0 {
		size = 1
	}
	frame := strings.HasPrefix(base, "frame:")
	done := map[string]bool{cell: true}
	for _, c := range f.cellsOf[base] {
		if frame && done[c.name] {
			continue
		}
		cw := 8 * int(c.end-c.off)
		if frame {
			cw = f.cellWidth(c.name) // the variable's width (its widest access)
		}
		end := c.off + int64(max(cw/8, 1))
		if !(c.off < off+size && off < end) {
			continue
		}
		if frame {
			done[c.name] = true
		}
		old := f.b.read(c.name, blk, cw)
		var nv *Value
		switch {
		case !frame || guarded || old.W != cw:
		case off <= c.off && end <= off+size:
			// The variable lies inside the stored bytes.
			nv = x
			if sh := 8 * (c.off - off); sh > 0 {
				nv = f.mk(in, LShr, x.W, x, f.constant(32, uint64(sh)))
			}
			nv = f.resize(in, nv, cw, false)
		case c.off <= off && off+size <= end:
			// The stored bytes lie inside the variable.
			nv = f.mergeInto(in, old, x, int(8*(off-c.off)))
		}
		if nv == nil {
			nv = f.staleCell(in, cw, "a partial overwrite of "+c.name, old)
		}
		f.b.write(c.name, blk, nv)
	}
}

// staleCell is the unknown content of a cell after a store the analysis
// does not place: it may still be old (a frame address kept in the cell
// stays one: frameSets and classify follow old).
func (f *Func) staleCell(in *isa.Instr, w int, why string, old *Value) *Value {
	v := f.opaque(in, w, why, old)
	v.stale = true
	return v
}

// clobberAll makes every cell of a frame ("*": of every frame) unknown.
func (f *Func) clobberAll(in *isa.Instr, blk *cfg.Block, frame string) {
	var bases []string
	for b := range f.cellsOf {
		if strings.HasPrefix(b, "frame:") && (frame == "*" || b == frame) {
			bases = append(bases, b)
		}
	}
	sort.Strings(bases)
	for _, b := range bases {
		for _, c := range f.cellsOf[b] {
			old := f.b.read(c.name, blk, 8*int(c.end-c.off))
			f.b.write(c.name, blk, f.staleCell(in, 8*int(c.end-c.off), "a store to a local address the analysis does not follow", old))
		}
	}
}
