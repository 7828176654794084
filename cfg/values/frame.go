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

// frameCells decides, from the values of pass 1, which loads and stores
// are frame cells. A frame whose address escapes (is read by an
// instruction other than as an address, or reaches an address the
// classification cannot place in one frame) has no cells: its loads are
// unknown. The other frames keep theirs: no address the analysis does not
// derive from a frame's own address can point into a frame whose address
// never escaped.
func (f *Func) frameCells() {
	f.frameOut = map[*isa.Instr][]string{}
	f.frameLoads = map[frameKey]string{}
	f.clobber = map[*isa.Instr]string{}
	f.escaped = map[string]bool{}
	f.frameOK = true
	sets, ok := f.frameSets()
	if !ok {
		f.frameOK = false
		return
	}
	memo := map[*Value]frameClass{}
	f.frameSet = sets
	isFrame := func(v *Value) bool { return v != nil && f.classify(v, memo).kind != notFrame }
	escape := func(c frameClass) {
		if c.frame == "" {
			f.frameOK = false
		}
		f.escaped[c.frame] = true
	}
	var ins []*isa.Instr
	for in := range f.info {
		ins = append(ins, in)
	}
	sort.Slice(ins, func(i, j int) bool { return ins[i].Index < ins[j].Index })
	// Escapes first: a frame that escapes anywhere has no cells.
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
			if !addrOnly {
				escape(f.classify(ii.ins[k], memo))
			}
		}
		if !f.frameOK {
			return
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
			nv = f.opaque(in, cw, "a partial overwrite of "+c.name, old)
		}
		f.b.write(c.name, blk, nv)
	}
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
			f.b.write(c.name, blk, f.opaque(in, 8*int(c.end-c.off), "a store to a local address the analysis does not follow", old))
		}
	}
}
