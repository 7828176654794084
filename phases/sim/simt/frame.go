package simt

import (
	"fmt"
	"math/bits"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// frame is one activation of a function: the registers of the lanes that
// called it (PTX registers are per function), its .param buffers, and the
// loop header counts of its lanes.
type frame struct {
	f      *function
	regs   []uint64 // reg*32 + lane
	flags  []uint8  // reg*32 + lane: flagSet, flagDrawn
	params map[string]*pbuf
	count  []int64 // loop*32 + lane: header executions since the lane entered the loop
	caller *frame
}

const (
	flagSet   = 1
	flagDrawn = 2
)

// pbuf is a .param variable: bytes per lane (kernel parameters have the
// same bytes in every lane).
type pbuf struct {
	b     [32][]byte
	drawn [32]bool
}

func newFrame(f *function, caller *frame) *frame {
	n := len(f.dc.regs)
	return &frame{f: f, regs: make([]uint64, n*32), flags: make([]uint8, n*32),
		params: map[string]*pbuf{}, count: make([]int64, len(f.g.Loops)*32), caller: caller}
}

// get returns register r of lane l and whether it is drawn. A register
// the function never wrote before reading it holds an undefined value:
// drawn (once, or at every read with Options.Volatile).
func (fr *frame) get(x *run, r, l int) (uint64, bool) {
	if r >= len(fr.regs)/32 {
		fr.grow(r)
	}
	k := r*32 + l
	if fr.flags[k]&flagSet == 0 {
		v := x.src.value(64, false)
		if !x.opt.Volatile {
			fr.regs[k], fr.flags[k] = v, flagSet|flagDrawn
		}
		return v, true
	}
	return fr.regs[k], fr.flags[k]&flagDrawn != 0
}

func (fr *frame) set(r, l int, v uint64, drawn bool) {
	if r >= len(fr.regs)/32 {
		fr.grow(r)
	}
	k := r*32 + l
	fr.regs[k] = v
	fr.flags[k] = flagSet
	if drawn {
		fr.flags[k] |= flagDrawn
	}
}

func (fr *frame) grow(r int) {
	n := (r + 1) * 32
	fr.regs = append(fr.regs, make([]uint64, n-len(fr.regs))...)
	fr.flags = append(fr.flags, make([]uint8, n-len(fr.flags))...)
}

// param returns the buffer of .param variable name, created on demand.
func (fr *frame) param(name string) *pbuf {
	p := fr.params[name]
	if p == nil {
		p = &pbuf{}
		fr.params[name] = p
	}
	return p
}

func (p *pbuf) read(x *run, l, off, size int, float bool) (uint64, bool) {
	b := p.b[l]
	if off < 0 || off+size > len(b) {
		// Bytes never written: drawn.
		v := x.src.value(8*size, float)
		p.write(l, off, size, v, true)
		b = p.b[l]
	}
	var v uint64
	for i := 0; i < size; i++ {
		v |= uint64(b[off+i]) << (8 * i)
	}
	return v, p.drawn[l]
}

func (p *pbuf) write(l, off, size int, v uint64, drawn bool) {
	if off < 0 {
		return
	}
	if need := off + size; need > len(p.b[l]) {
		p.b[l] = append(p.b[l], make([]byte, need-len(p.b[l]))...)
	}
	for i := 0; i < size; i++ {
		p.b[l][off+i] = byte(v >> (8 * i))
	}
	p.drawn[l] = p.drawn[l] || drawn
}

// paramRead reads a .param operand [name+off] of lane l.
func (x *run) paramRead(w *warp, fr *frame, l int, o *opnd, off, size int, t typ) (uint64, bool, bool) {
	if o.kind != oMem || o.sym == "" || o.reg >= 0 {
		return 0, false, false
	}
	p := fr.params[o.sym]
	if p == nil {
		p = fr.param(o.sym)
	}
	v, dr := p.read(x, l, int(o.off)+off, size, t.k == 'f')
	return v, dr, true
}

func (x *run) paramWrite(fr *frame, l int, o *opnd, off, size int, v uint64, drawn bool) {
	if o.kind != oMem || o.sym == "" || o.reg >= 0 {
		return
	}
	fr.param(o.sym).write(l, int(o.off)+off, size, v, drawn)
}

// special returns the value of a special register for lane l of warp w.
func (x *run) special(w *warp, l int, s special) (uint64, bool) {
	v, dr := x.special1(w, l, s)
	if s.neg {
		v = -v
	}
	return v, dr
}

func (x *run) special1(w *warp, l int, s special) (uint64, bool) {
	dim := func(a [3]int) uint64 {
		if s.dim < 0 {
			return 0
		}
		return uint64(a[s.dim])
	}
	switch s.name {
	case "%tid":
		return dim(w.tid[l]), false
	case "%ntid":
		return dim(x.launch.Block), false
	case "%ctaid":
		return dim(x.cta), x.ctaDrawn
	case "%nctaid":
		return dim(x.grid), x.gridDrawn
	case "%laneid":
		return uint64(l), false
	case "%warpid":
		return uint64(w.index), false
	case "%nwarpid":
		return 64, false
	case "%smid", "%gridid":
		return 0, false
	case "%nsmid":
		return 1, false
	case "WARP_SZ":
		return 32, false
	case "%lanemask_eq":
		return 1 << l, false
	case "%lanemask_lt":
		return 1<<l - 1, false
	case "%lanemask_le":
		return 1<<(l+1) - 1, false
	case "%lanemask_gt":
		return uint64(0xffffffff) &^ (1<<(l+1) - 1), false
	case "%lanemask_ge":
		return uint64(0xffffffff) &^ (1<<l - 1), false
	case "%dynamic_smem_size", "%total_smem_size", "%aggr_smem_size", "%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap":
		return 0, false
	}
	// Clocks, timers, performance counters, environment registers and
	// anything unknown: drawn.
	return x.src.value(64, false), true
}

// warp is one warp of the block during an execution.
type warp struct {
	index  int
	lanes  int      // threads in the warp (the last may be partial)
	tid    [][3]int // per lane
	linear []int    // per lane: linear thread id in the block
	stack  []*entry // SIMT stack, top last
	base   *frame   // the kernel's frame
	done   uint32   // lanes that exited
	path   []*isa.Instr
	steps  []Step
	// decisions are the conditional branches the warp ran (Decision).
	decisions []Decision
	bars      int  // block barriers reached
	waiting   bool // at a block barrier
	instrs    int
}

// thread returns lane l's linear thread id (local memory is per thread).
func (w *warp) thread(l int) int { return w.linear[l] }

// entry is a SIMT stack entry: the lanes (mask) that run function frame
// fr from block b, instruction ip, until they reach reconvergence block
// rpc. A call entry holds the lanes that called a function, while the
// function runs in the entries above it; popping it returns them.
type entry struct {
	fr   *frame
	b    int
	ip   int
	rpc  int
	mask uint32
	call bool
	site *dinstr // the call instruction of a call entry
	back *frame  // the caller's frame of a call entry
}

func (e *entry) String() string {
	return fmt.Sprintf("{%s b%d+%d rpc %d mask %08x call %v}", e.fr.f.fn.Name, e.b, e.ip, e.rpc, e.mask, e.call)
}

func lanesOf(m uint32) []int {
	var out []int
	for m != 0 {
		l := bits.TrailingZeros32(m)
		out = append(out, l)
		m &^= 1 << l
	}
	return out
}
