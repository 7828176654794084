package values

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Func is the value graph of one function: every register, frame slot
// and parameter cell in static single assignment form (Braun et al.,
// "Simple and Efficient Construction of Static Single Assignment Form",
// CC 2013), over the thread-level CFG. Each instruction is decoded once
// (DecodePTX, DecodeSASS); its inputs and outputs are Values.
type Func struct {
	Graph   *cfg.Graph
	Dialect isa.Dialect
	Layout  *Layout      // SASS constant-bank layout (nil for PTX)
	Inlined *cfg.Inlined // the inlined calls of Graph's function, or nil

	values []*Value
	consts map[[2]uint64]*Value
	ops    map[opKey]*Value

	info    map[*isa.Instr]*instrInfo
	regW    map[string]int
	written map[string]bool // registers some instruction writes
	anyCall bool            // a call instruction (a SASS call not inlined writes every register)

	opts       Options
	copyOf     []int                   // per instruction index of the function: the inlined copy holding it, or -1
	frameOK    bool                    // frame slots are promoted to values
	escaped    map[string]bool         // frames whose address escapes: no cells
	spans      map[*isa.Instr]span     // the bytes a store through a computed frame address may write (spans.go)
	frameSet   map[*Value]string       // the frame an address value points into ("*": several)
	frameOut   map[*isa.Instr][]string // per Sem output: the frame cell a store writes
	frameLoads map[frameKey]string     // per Sem input: the frame cell a load reads
	clobber    map[*isa.Instr]string   // a store to an unknown address of this frame ("*": any)
	cellsOf    map[string][]cellRef    // cells by base (frame or parameter symbol)
	leaves     map[string]*Value

	b   *ssaBuilder
	cur *instrInfo // the instruction being interpreted

	// mask is the active mask read in the block being interpreted since
	// the last instruction that may change it (nil: none yet); maskShared
	// is set when a second read took it (assume.ActiveMask).
	mask       *Value
	maskBlk    *cfg.Block
	maskShared bool

	divisions int // values read as ptxas's division by the reciprocal (divide.go)
}

// instrInfo holds the decoded semantics and the values of one instruction.
type instrInfo struct {
	sem   *Sem
	ins   []*Value
	reads []*Value // the values of the registers in.Uses() names, as read
	outs  []*Value // per Sem output: the value written (after the guard)
	guard *Value   // the guard predicate as read (before negation), nil when unguarded
	// cond: for a SASS branch with a condition beyond its guard ("@P0 BRA
	// P1, L"), the predicate operand as read (before negation); nil
	// otherwise (BranchCond).
	cond  *Value
	block *cfg.Block
	// locs: the variables (registers, cells) the instruction reads and
	// writes, for the uniformity analysis.
	uses, defs []string
	// inCells: per input, the cell a load or parameter read returns ("":
	// none), for the check of cells holding frame addresses.
	inCells []string
	// data: per memory output, the value stored (before the guard), nil
	// when not modelled.
	data []*Value
}

type cellRef struct {
	name     string
	off, end int64
}

type frameKey struct {
	in *isa.Instr
	k  int
}

// Options configure Build.
type Options struct {
	Dialect isa.Dialect
	// Inlined describes the inlined calls of the function (cfg.Inline),
	// nil when it has none: the parameters of an inlined callee are bound
	// to the caller's arguments, and its return cells to the caller's.
	Inlined *cfg.Inlined
	// Arch is the SASS target ("sm_80"), for the constant-bank layout.
	Arch string
}

// ErrTooLarge is returned for functions above the analysis's size limit.
var ErrTooLarge = errors.New("values: function too large")

// maxValues bounds the values of one function (each instruction makes a
// bounded number).
const maxValues = 1 << 24

// Build computes the value graph of g's function. Entry functions read
// their parameters as kernel arguments; a device function analysed on its
// own reads its parameters as opaque values (they are the caller's).
func Build(g *cfg.Graph, opts Options) (*Func, error) {
	if g == nil || g.Func == nil {
		return nil, errors.New("values: nil graph")
	}
	if opts.Dialect == 0 {
		opts.Dialect = DialectOf(g.Func)
	}
	f := &Func{Graph: g, Dialect: opts.Dialect, Inlined: opts.Inlined, opts: opts, info: map[*isa.Instr]*instrInfo{}, regW: map[string]int{}, written: map[string]bool{}}
	if f.Dialect == isa.DialectSASS {
		f.Layout = LayoutFor(opts.Arch, g.Func)
	}
	fn := g.Func
	f.copyOf = make([]int, len(fn.Instrs))
	for i := range f.copyOf {
		f.copyOf[i] = -1
	}
	if opts.Inlined != nil {
		for k, c := range opts.Inlined.Copies {
			for i := c.Start; i < c.End && i < len(f.copyOf); i++ {
				f.copyOf[i] = k // later copies are nested in earlier ones
			}
		}
	}
	for _, b := range g.Blocks {
		if !b.Reachable {
			continue
		}
		for _, in := range b.Instrs {
			var s *Sem
			if f.Dialect == isa.DialectSASS {
				arch := 0
				if f.Layout != nil {
					arch = f.Layout.Arch
				}
				s = DecodeSASSArch(in, arch)
			} else {
				s = DecodePTX(in)
			}
			if f.Dialect != isa.DialectSASS {
				if c := f.copyIdx(in); c >= 0 {
					s = renameSem(s, opts.Inlined.Copies[c].Prefix)
				}
			}
			f.info[in] = &instrInfo{sem: s, block: b}
			for _, x := range s.Ins {
				switch {
				case x.Kind == InReg && x.Hi != "":
					// A pair: two 32-bit registers.
					f.regW[x.Name] = max(f.regW[x.Name], 32)
					f.regW[x.Hi] = max(f.regW[x.Hi], 32)
				case x.Kind == InReg:
					f.regW[x.Name] = max(f.regW[x.Name], int(x.W))
				}
			}
			for _, o := range s.Outs {
				if o.Kind == OutReg {
					f.regW[o.Name] = max(f.regW[o.Name], int(o.W))
					f.written[o.Name] = true
				}
			}
			for _, r := range in.Defs() {
				f.written[f.regName(in, r)] = true
			}
			if in.Kind == isa.KindCall || in.Kind == isa.KindIndirectCall {
				f.anyCall = true
			}
			if in.Guard.Reg != "" {
				g := f.regName(in, in.Guard.Reg)
				f.regW[g] = max(f.regW[g], 1)
			}
		}
	}
	// Pass 1: registers and parameter cells, to find the frame addresses
	// and every cell (for overlapping stores).
	f.reset()
	if err := f.build(); err != nil {
		return nil, err
	}
	f.finishValues()
	if !f.hasFrameAccess() {
		return f, nil
	}
	// Then the frame cells, decided from the values of the last build,
	// until the decisions give back the values they were made from (frame
	// addresses kept in cells are followed once the cells are read,
	// frame.go); rounds without a fixpoint fall back to every stored frame
	// address escaping, decided from the values of pass 1.
	spill := f.allCallsInlined()
	escaped := map[string]bool{}
	var prev *frameDecisions
	for round := 0; ; round++ {
		if round == maxFrameRounds {
			f.reset()
			if err := f.build(); err != nil {
				return nil, err
			}
			f.finishValues()
			f.frameCells(false, false, nil)
			if err := f.buildSpans(); err != nil {
				return nil, err
			}
			break
		}
		f.frameCells(spill, round == 0, escaped)
		for fr := range f.escaped {
			escaped[fr] = true
		}
		cur := f.decisions()
		if prev != nil && cur.equal(prev) {
			break // the values of the last build are those of cur
		}
		prev = cur
		if err := f.buildSpans(); err != nil {
			return nil, err
		}
		if !spill {
			break // decided from pass 1 alone, as before
		}
	}
	return f, nil
}

// maxFrameRounds bounds the rounds of frame-cell decisions.
const maxFrameRounds = 6

// buildSpans builds the values with the current frame cells; stores
// through computed frame addresses clobber the spans assumed for them
// (spans.go), until the spans derived from the values lie inside the
// assumed ones.
func (f *Func) buildSpans() error {
	f.spans = nil
	stores := f.spanStores()
	if len(stores) > 0 && f.frameOK {
		f.spans = map[*isa.Instr]span{}
		for _, in := range stores {
			f.spans[in] = span{lo: 1, hi: 0}
		}
	}
	for round := 0; ; round++ {
		f.reset()
		if err := f.build(); err != nil {
			return err
		}
		f.finishValues()
		if f.spans == nil {
			return nil
		}
		next := f.deriveSpans(stores)
		done := true
		for _, in := range stores {
			if !f.spans[in].contains(next[in]) {
				done = false
				f.spans[in] = f.spans[in].join(next[in])
			}
		}
		if done {
			return nil
		}
		if round+1 >= maxSpanRounds {
			f.spans = nil // every such store clobbers its whole frame
		}
	}
}

// allCallsInlined reports whether every call of the function is followed
// by its callee's body (a call that is not may keep a frame address the
// analysis does not see).
func (f *Func) allCallsInlined() bool {
	for in := range f.info {
		if (in.Kind == isa.KindCall || in.Kind == isa.KindIndirectCall) && !(f.opts.Inlined != nil && f.opts.Inlined.Calls[in]) {
			return false
		}
	}
	return true
}

// frameDecisions is what frameCells decided: the values built under them
// are those of a fixpoint when the next decisions are the same.
type frameDecisions struct {
	ok      bool
	escaped map[string]bool
	loads   map[frameKey]string
	outs    map[*isa.Instr][]string
	clobber map[*isa.Instr]string
}

func (f *Func) decisions() *frameDecisions {
	return &frameDecisions{ok: f.frameOK, escaped: f.escaped, loads: f.frameLoads, outs: f.frameOut, clobber: f.clobber}
}

func (d *frameDecisions) equal(e *frameDecisions) bool {
	if d.ok != e.ok || len(d.escaped) != len(e.escaped) || len(d.loads) != len(e.loads) || len(d.outs) != len(e.outs) || len(d.clobber) != len(e.clobber) {
		return false
	}
	for k := range d.escaped {
		if !e.escaped[k] {
			return false
		}
	}
	for k, v := range d.loads {
		if e.loads[k] != v {
			return false
		}
	}
	for k, v := range d.clobber {
		if w, ok := e.clobber[k]; !ok || w != v {
			return false
		}
	}
	for k, v := range d.outs {
		w, ok := e.outs[k]
		if !ok || len(w) != len(v) {
			return false
		}
		for i := range v {
			if v[i] != w[i] {
				return false
			}
		}
	}
	return true
}

// DialectOf tells PTX from SASS by the case of the opcodes.
func DialectOf(fn *isa.Func) isa.Dialect {
	for _, in := range fn.Instrs {
		if in.Opcode != "" {
			if c := in.Opcode[0]; c >= 'A' && c <= 'Z' {
				return isa.DialectSASS
			}
			return isa.DialectPTX
		}
	}
	return isa.DialectPTX
}

func (f *Func) reset() {
	f.values = nil
	f.mask, f.maskBlk, f.maskShared = nil, nil, false
	f.consts = map[[2]uint64]*Value{}
	f.ops = map[opKey]*Value{}
	f.leaves = nil
	for _, ii := range f.info {
		ii.ins, ii.outs, ii.guard, ii.uses, ii.defs, ii.reads, ii.inCells, ii.data = nil, nil, nil, nil, nil, nil, nil, nil
	}
}

func (f *Func) hasFrameAccess() bool {
	for _, ii := range f.info {
		for _, x := range ii.sem.Ins {
			if x.Kind == InMem && x.Base >= 0 && (x.Space == isa.SpaceLocal || x.Space == isa.SpaceGeneric) {
				return true
			}
		}
	}
	return false
}

// ssaBuilder is the state of one construction.
type ssaBuilder struct {
	f          *Func
	cur        map[string]map[*cfg.Block]*Value
	sealed     map[*cfg.Block]bool
	filled     map[*cfg.Block]bool
	incomplete map[*cfg.Block]map[string]*Value
	preds      map[*cfg.Block][]*cfg.Block
}

func (f *Func) build() error {
	g := f.Graph
	b := &ssaBuilder{f: f, cur: map[string]map[*cfg.Block]*Value{}, sealed: map[*cfg.Block]bool{},
		filled: map[*cfg.Block]bool{}, incomplete: map[*cfg.Block]map[string]*Value{}, preds: map[*cfg.Block][]*cfg.Block{}}
	f.b = b
	for _, blk := range g.Blocks {
		if !blk.Reachable {
			continue
		}
		for _, e := range blk.Preds {
			if e.From.Reachable {
				b.preds[blk] = append(b.preds[blk], e.From)
			}
		}
	}
	for _, blk := range reversePostorder(g) {
		if !b.sealed[blk] && b.allPredsFilled(blk) {
			b.seal(blk)
		}
		for _, in := range blk.Instrs {
			f.step(blk, in)
			if len(f.values) > maxValues {
				return ErrTooLarge
			}
		}
		b.filled[blk] = true
		for _, e := range blk.Succs {
			s := e.To
			if s.Reachable && s != g.Exit && !b.sealed[s] && b.allPredsFilled(s) {
				b.seal(s)
			}
		}
	}
	for _, blk := range g.Blocks {
		if blk.Reachable && !b.sealed[blk] {
			b.seal(blk)
		}
	}
	return nil
}

func reversePostorder(g *cfg.Graph) []*cfg.Block {
	seen := map[*cfg.Block]bool{}
	var post []*cfg.Block
	type frame struct {
		b *cfg.Block
		i int
	}
	stack := []frame{{g.Entry(), 0}}
	seen[g.Entry()] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i < len(top.b.Succs) {
			s := top.b.Succs[top.i].To
			top.i++
			if s != g.Exit && s.Reachable && !seen[s] {
				seen[s] = true
				stack = append(stack, frame{s, 0})
			}
			continue
		}
		post = append(post, top.b)
		stack = stack[:len(stack)-1]
	}
	for i, j := 0, len(post)-1; i < j; i, j = i+1, j-1 {
		post[i], post[j] = post[j], post[i]
	}
	return post
}

func (b *ssaBuilder) allPredsFilled(blk *cfg.Block) bool {
	for _, p := range b.preds[blk] {
		if !b.filled[p] {
			return false
		}
	}
	return true
}

func (b *ssaBuilder) write(v string, blk *cfg.Block, x *Value) {
	m := b.cur[v]
	if m == nil {
		m = map[*cfg.Block]*Value{}
		b.cur[v] = m
	}
	m[blk] = x
}

// read returns the value of variable v at the end of blk (or at the
// current point while blk is being filled).
func (b *ssaBuilder) read(v string, blk *cfg.Block, w int) *Value {
	if x, ok := b.cur[v][blk]; ok {
		return resolve(x)
	}
	if !b.f.written[v] && !(b.f.anyCall && b.f.Dialect == isa.DialectSASS) && !strings.HasPrefix(v, "param:") && !strings.HasPrefix(v, "frame:") {
		// A register no instruction writes is undefined everywhere: no
		// walk back to the entry (which would cost a map entry per block
		// for each such register, quadratic in a long inlined chain).
		return b.f.leaf(&Value{Kind: VUndef, Name: v, W: max(w, 1)})
	}
	return b.readRec(v, blk, w)
}

func (b *ssaBuilder) readRec(v string, blk *cfg.Block, w int) *Value {
	f := b.f
	var x *Value
	preds := b.preds[blk]
	switch {
	case !b.sealed[blk]:
		x = f.newValue(&Value{Kind: VPhi, Name: v, W: w, Block: blk})
		if b.incomplete[blk] == nil {
			b.incomplete[blk] = map[string]*Value{}
		}
		b.incomplete[blk][v] = x
	case len(preds) == 0:
		x = f.entryValue(v, w)
	case len(preds) == 1 && blk != f.Graph.Entry():
		x = b.read(v, preds[0], w)
	default:
		// The entry block is also entered from the function's entry
		// (addPhiOperands): a cycle of single-predecessor blocks through
		// it recursed forever.
		phi := f.newValue(&Value{Kind: VPhi, Name: v, W: w, Block: blk})
		b.write(v, blk, phi)
		x = b.addPhiOperands(v, phi)
		if x == phi {
			// A merge after a branch, in the pass that took it: a select
			// on the branch's condition (gated SSA).
			if g := f.gatePhi(phi); g != nil {
				phi.fwd = g
				x = g
			}
		}
	}
	b.write(v, blk, x)
	return x
}

// addPhiOperands fills phi with the values of v along the predecessors of
// its block. The entry block is also entered from the function's entry (a
// loop whose header is the first block): there the phi's first operand is
// v's entry value, along a nil element of Preds.
func (b *ssaBuilder) addPhiOperands(v string, phi *Value) *Value {
	if phi.Block == b.f.Graph.Entry() {
		phi.Args = append(phi.Args, b.f.entryValue(v, phi.W))
		phi.Preds = append(phi.Preds, nil)
	}
	for _, p := range b.preds[phi.Block] {
		a := b.read(v, p, phi.W)
		phi.Args = append(phi.Args, a)
		phi.Preds = append(phi.Preds, p)
		if a.Kind == VPhi {
			a.users = append(a.users, phi)
		}
	}
	return b.tryRemoveTrivialPhi(phi)
}

func (b *ssaBuilder) tryRemoveTrivialPhi(phi *Value) *Value {
	var same *Value
	for _, op := range phi.Args {
		op = resolve(op)
		if op == same || op == phi {
			continue
		}
		if same != nil {
			return phi
		}
		same = op
	}
	if same == nil {
		same = b.f.entryValue(phi.Name, phi.W) // unreachable or undefined
	}
	phi.fwd = same
	users := phi.users
	phi.users = nil
	if same.Kind == VPhi {
		// The users of phi now use same: they must be checked again when
		// same is replaced in turn.
		same.users = append(same.users, users...)
	}
	for _, u := range users {
		if u.Kind == VPhi && u != phi && u.fwd == nil {
			b.tryRemoveTrivialPhi(u)
		}
	}
	return same
}

func (b *ssaBuilder) seal(blk *cfg.Block) {
	for v, phi := range b.incomplete[blk] {
		b.addPhiOperands(v, phi)
	}
	delete(b.incomplete, blk)
	b.sealed[blk] = true
}

// entryValue is the value of a variable never written on a path from the
// entry: undefined for registers and cells.
func (f *Func) entryValue(v string, w int) *Value {
	if w == 0 {
		w = 32
	}
	return f.newValue(&Value{Kind: VUndef, Name: v, W: w})
}

// varWidth is the width a variable holds.
func (f *Func) varWidth(v string, w int) int {
	if rw := f.regW[v]; rw > 0 {
		return rw
	}
	return w
}

// readVar reads variable v in blk at width w. A cell read wider than the
// value stored there is unknown (the other bytes come from elsewhere).
func (f *Func) readVar(in *isa.Instr, v string, blk *cfg.Block, w int) *Value {
	vw := f.varWidth(v, w)
	if cw := f.cellWidth(v); cw > 0 {
		vw = cw
	}
	x := f.b.read(v, blk, vw)
	if x.W < w && (strings.HasPrefix(v, "param:") || strings.HasPrefix(v, "frame:")) {
		return f.opaque(in, w, "a load wider than the value stored at "+v)
	}
	return f.resize(in, x, w, false)
}

func (f *Func) resize(in *isa.Instr, x *Value, w int, signed bool) *Value {
	switch {
	case x.W == w:
		return x
	case x.W > w:
		return f.mk(in, Trunc, w, x)
	case signed:
		return f.mk(in, SExt, w, x)
	}
	return f.mk(in, ZExt, w, x)
}

// step interprets one instruction.
func (f *Func) step(blk *cfg.Block, in *isa.Instr) {
	if f.maskBlk != blk {
		f.mask, f.maskBlk = nil, blk
	}
	defer func() {
		if changesMask(in) {
			f.mask = nil
		}
	}()
	ii := f.info[in]
	s := ii.sem
	// Every register the instruction reads (guard, operands, addresses),
	// decoded or not: the dependences of the values it does not model.
	ii.reads = ii.reads[:0]
	for _, r := range in.Uses() {
		if strings.HasPrefix(strings.ToUpper(r), "SR_") {
			continue // a SASS special register, not a variable
		}
		r = f.regName(in, r)
		ii.reads = append(ii.reads, f.b.read(r, blk, f.varWidth(r, 32)))
	}
	f.cur = ii
	defer func() { f.cur = nil }()
	// Inputs.
	ii.ins = make([]*Value, len(s.Ins))
	for k, x := range s.Ins {
		ii.ins[k] = f.input(in, blk, s, k, x)
	}
	if in.Guard.Reg != "" {
		g := f.regName(in, in.Guard.Reg)
		ii.guard = f.readVar(in, g, blk, 1)
		ii.uses = append(ii.uses, g)
	}
	if o, ok := branchPredOperand(f.Dialect, in); ok && len(o.Regs) == 1 && o.Regs[0] != "PT" {
		r := f.regName(in, o.Regs[0])
		ii.cond = f.readVar(in, r, blk, 1)
	}
	// Nodes.
	nodes := make([]*Value, len(s.Nodes))
	for i, n := range s.Nodes {
		switch n.Code {
		case Const:
			nodes[i] = f.constant(int(n.W), n.Imm)
		case Input:
			nodes[i] = f.resize(in, ii.ins[n.Imm], int(n.W), false)
		default:
			args := make([]*Value, n.Code.Arity())
			for k := range args {
				args[k] = nodes[n.Args[k]]
			}
			nodes[i] = f.mk(in, n.Code, int(n.W), args...)
		}
	}
	guarded := func(v string, x *Value) *Value {
		if ii.guard == nil {
			return x
		}
		old := f.b.read(v, blk, x.W)
		if old.W != x.W {
			old = f.resize(in, old, x.W, false)
		}
		g := ii.guard
		if in.Guard.Neg {
			g = f.mk(in, Not, 1, g)
		}
		return f.mk(in, Select, x.W, g, x, old)
	}
	// Outputs.
	ii.outs = make([]*Value, len(s.Outs))
	for k, o := range s.Outs {
		switch o.Kind {
		case OutReg:
			w := f.varWidth(o.Name, int(o.W))
			var x *Value
			if o.Node < 0 {
				x = f.opaque(in, w, s.Opaque)
			} else {
				x = f.resize(in, nodes[o.Node], w, o.Signed)
			}
			x = guarded(o.Name, x)
			f.b.write(o.Name, blk, x)
			ii.outs[k] = x
			ii.defs = append(ii.defs, o.Name)
		case OutMem:
			if o.Node >= 0 {
				if ii.data == nil {
					ii.data = make([]*Value, len(s.Outs))
				}
				ii.data[k] = f.resize(in, nodes[o.Node], int(o.W), false)
			}
			cell := f.storeCell(in, s, k, o)
			if cell == "" {
				if fr, ok := f.clobber[in]; ok && f.frameOK {
					if sp, ok := f.spans[in]; ok && !sp.all && fr != "*" {
						f.clobberSpan(in, blk, fr, sp)
					} else {
						f.clobberAll(in, blk, fr)
					}
				}
				continue
			}
			var x *Value
			if o.Node < 0 {
				x = f.opaque(in, int(o.W), s.Opaque)
			} else {
				x = f.resize(in, nodes[o.Node], int(o.W), false)
			}
			f.clobberOverlaps(in, blk, cell, x, ii.guard != nil)
			if cw := f.cellWidth(cell); cw > x.W {
				// A store narrower than the frame variable writes its
				// low bytes; the others keep their value.
				x = f.mergeInto(in, f.b.read(cell, blk, cw), x, 0)
			}
			x = guarded(cell, x)
			f.b.write(cell, blk, x)
			ii.outs[k] = x
			ii.defs = append(ii.defs, cell)
		}
	}
	// Calls that are not followed by their callee's body.
	if (in.Kind == isa.KindCall || in.Kind == isa.KindIndirectCall) && !(f.opts.Inlined != nil && f.opts.Inlined.Calls[in]) {
		f.opaqueCall(blk, in)
	}
}

// opaqueCall makes what a call may write unknown: its return cells
// (PTX), every register (SASS: the callee shares the register file), and
// the frame cells when the frame escaped.
func (f *Func) opaqueCall(blk *cfg.Block, in *isa.Instr) {
	ii := f.info[in]
	why := "the result of call " + in.Text
	if f.Dialect == isa.DialectSASS {
		regs := make([]string, 0, len(f.regW))
		for r := range f.regW {
			regs = append(regs, r)
		}
		sort.Strings(regs)
		for _, r := range regs {
			f.b.write(r, blk, f.opaque(in, f.regW[r], why))
			ii.defs = append(ii.defs, r)
		}
		return
	}
	for _, o := range in.Dsts {
		if o.Kind != isa.OpList {
			continue
		}
		for _, name := range listNames(o.Text) {
			cell := f.paramCell(f.prefixOf(in), name)
			for _, c := range f.cellsOf[cell] {
				f.b.write(c.name, blk, f.opaque(in, 64, why))
				ii.defs = append(ii.defs, c.name)
			}
		}
	}
}

// listNames reads "(a, b)".
func listNames(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// regName is the variable of register r as instruction in names it: in
// an inlined PTX copy, the copy's own register (prefixed).
func (f *Func) regName(in *isa.Instr, r string) string {
	if f.Dialect == isa.DialectSASS {
		return r
	}
	return f.prefixOf(in) + r
}

// renameSem gives the registers of a decoded PTX instruction of an
// inlined copy the copy's prefix.
func renameSem(s *Sem, prefix string) *Sem {
	c := *s
	c.Ins = append([]In(nil), s.Ins...)
	c.Outs = append([]Out(nil), s.Outs...)
	for i := range c.Ins {
		if c.Ins[i].Kind == InReg {
			c.Ins[i].Name = prefix + c.Ins[i].Name
		}
	}
	for i := range c.Outs {
		if c.Outs[i].Kind == OutReg {
			c.Outs[i].Name = prefix + c.Outs[i].Name
		}
	}
	return &c
}

// prefixOf is the inlined copy's prefix of an instruction ("" outside
// copies).
func (f *Func) prefixOf(in *isa.Instr) string {
	if c := f.copyIdx(in); c >= 0 {
		return f.opts.Inlined.Copies[c].Prefix
	}
	return ""
}

func (f *Func) copyIdx(in *isa.Instr) int {
	if in.Index >= 0 && in.Index < len(f.copyOf) && f.Graph.Func.Instrs[in.Index] == in {
		return f.copyOf[in.Index]
	}
	return -1
}

// paramCell names the parameter cell sym declared in the scope of prefix.
func (f *Func) paramCell(prefix, sym string) string { return "param:" + prefix + sym }

// input is the value of input x of in.
func (f *Func) input(in *isa.Instr, blk *cfg.Block, s *Sem, k int, x In) *Value {
	ii := f.info[in]
	w := int(x.W)
	switch x.Kind {
	case InReg:
		ii.uses = append(ii.uses, x.Name)
		if x.Hi != "" {
			ii.uses = append(ii.uses, x.Hi)
			lo, hi := f.readVar(in, x.Name, blk, 32), f.readVar(in, x.Hi, blk, 32)
			return f.mk(in, Or, 64, f.mk(in, ZExt, 64, lo), f.mk(in, Shl, 64, f.mk(in, ZExt, 64, hi), f.constant(32, 32)))
		}
		return f.readVar(in, x.Name, blk, w)
	case InSpecial:
		if x.Name == ActiveMask {
			return f.activeMask(in, blk, w)
		}
		if info, ok := specials[x.Name]; ok && info.Varying && !info.Launch {
			// A volatile counter (%clock, %globaltimer): each read is a
			// value of its own.
			return f.opaque(in, w, "the volatile special register %"+x.Name)
		}
		return f.leaf(&Value{Kind: VSpecial, Name: x.Name, W: w})
	case InFrame:
		return f.leaf(&Value{Kind: VFrame, Name: f.prefixOf(in) + x.Name, W: w})
	case InConst:
		if x.Idx > 0 {
			// c[b][Rn + off]: a constant register index only.
			c, ok := ii.ins[x.Idx-1].IsConst()
			if !ok {
				return f.opaque(in, w, "a constant-bank word at a register index")
			}
			x.Off += int64(c)
			x.Idx = 0
		}
		return f.constBank(in, x)
	case InParam:
		n := len(ii.uses)
		v := f.paramIn(in, blk, x)
		if len(ii.uses) > n {
			ii.setInCell(k, len(s.Ins), ii.uses[len(ii.uses)-1])
		}
		return v
	case InMem:
		if cell := f.loadCell(in, s, k); cell != "" {
			ii.setInCell(k, len(s.Ins), cell)
			ii.uses = append(ii.uses, cell)
			return f.readVar(in, cell, blk, w)
		}
		return f.opaque(in, w, loadWhy(x))
	}
	return f.opaque(in, w, "an input the analysis does not read")
}

// activeMask is the mask of the lanes executing in, a VOTE.ANY Rd, PT,
// PT: one value per execution of its block (a straight-line block is
// executed by one set of lanes, assume.ActiveMask; docs/model.md, "The
// active mask"), so that two reads in one block are one value, unknown
// otherwise. An instruction that may change the set (a reconvergence, a
// barrier or warp synchronisation, a call) starts a new value.
func (f *Func) activeMask(in *isa.Instr, blk *cfg.Block, w int) *Value {
	if f.mask != nil && f.maskBlk == blk && f.mask.W == w {
		f.maskShared = true
		return f.mask
	}
	f.mask = f.opaque(in, w, "the active mask of the warp (the lanes executing this block)")
	f.maskBlk = blk
	return f.mask
}

// changesMask reports whether in may change the set of lanes executing
// the rest of its block.
func changesMask(in *isa.Instr) bool {
	switch in.Kind {
	case isa.KindOther, isa.KindLoad, isa.KindStore, isa.KindAtomic, isa.KindNop:
		return false
	}
	return true
}

// ActiveMasks reports whether the active mask was read twice in one block
// execution and taken as one value (the premise assume.ActiveMask).
func (f *Func) ActiveMasks() bool { return f.maskShared }

// setInCell records that input k (of n) reads cell.
func (ii *instrInfo) setInCell(k, n int, cell string) {
	if ii.inCells == nil {
		ii.inCells = make([]string, n)
	}
	ii.inCells[k] = cell
}

func loadWhy(x In) string {
	switch x.Space {
	case isa.SpaceLocal:
		return "a load from per-thread local memory at an address the analysis does not follow"
	case isa.SpaceGeneric, isa.SpaceNone:
		return "a load through a generic address"
	}
	return "a load from " + x.Space.String() + " memory"
}

// leaf hash-conses parameter, special-register and frame leaves.
func (f *Func) leaf(v *Value) *Value {
	key := fmt.Sprintf("%d/%s/%d/%d", v.Kind, v.Name, v.Off, v.W)
	if f.leaves == nil {
		f.leaves = map[string]*Value{}
	}
	if x := f.leaves[key]; x != nil {
		return x
	}
	x := f.newValue(v)
	f.leaves[key] = x
	return x
}

// paramIn reads a .param symbol: a kernel argument, an inlined callee's
// parameter (the caller's argument cell), a call's return cell, or a
// device function's own parameter (opaque: the caller's value).
func (f *Func) paramIn(in *isa.Instr, blk *cfg.Block, x In) *Value {
	ii := f.info[in]
	w := int(x.W)
	ci := f.copyIdx(in)
	callee := f.Graph.Func
	if ci >= 0 {
		callee = f.opts.Inlined.Copies[ci].Callee
	}
	if ci < 0 && f.Graph.Func.Entry {
		for _, p := range f.Graph.Func.Params {
			if p.Name == x.Name {
				return f.leaf(&Value{Kind: VParam, Name: x.Name, Off: x.Off, W: w})
			}
		}
	}
	if ci >= 0 {
		c := f.opts.Inlined.Copies[ci]
		parent := ""
		if c.Parent >= 0 {
			parent = f.opts.Inlined.Copies[c.Parent].Prefix
		}
		args, rets := callLists(c.Call)
		for i, p := range callee.Params {
			if p.Name == x.Name && i < len(args) {
				cell := f.registerCell(f.paramCell(parent, args[i]), x.Off, int64(w)/8)
				ii.uses = append(ii.uses, cell)
				return f.readVar(in, cell, blk, w)
			}
		}
		for i, p := range callee.RetParams {
			if p.Name == x.Name && i < len(rets) {
				cell := f.registerCell(f.paramCell(parent, rets[i]), x.Off, int64(w)/8)
				ii.uses = append(ii.uses, cell)
				return f.readVar(in, cell, blk, w)
			}
		}
	}
	for _, p := range callee.Params {
		if p.Name == x.Name {
			return f.opaque(in, w, "a parameter of device function "+callee.Name+" (its callers' argument)")
		}
	}
	// A cell of the current scope: a call's argument or return value.
	cell := f.registerCell(f.paramCell(f.prefixOf(in), x.Name), x.Off, int64(w)/8)
	ii.uses = append(ii.uses, cell)
	return f.readVar(in, cell, blk, w)
}

// callLists returns the argument and return symbols of a PTX call.
func callLists(call *isa.Instr) (args, rets []string) {
	for _, o := range call.Dsts {
		if o.Kind == isa.OpList {
			rets = listNames(o.Text)
		}
	}
	for _, o := range call.Srcs {
		if o.Kind == isa.OpList {
			args = listNames(o.Text)
			break
		}
	}
	return args, rets
}

func (f *Func) cellName(base string, off int64) string {
	return base + "@" + strconv.FormatInt(off, 10)
}

// storeCell names the cell a memory output writes, or "".
func (f *Func) storeCell(in *isa.Instr, s *Sem, k int, o Out) string {
	if o.Space == isa.SpaceParam && o.Base < 0 && o.Name != "" {
		ci := f.copyIdx(in)
		if ci >= 0 {
			c := f.opts.Inlined.Copies[ci]
			parent := ""
			if c.Parent >= 0 {
				parent = f.opts.Inlined.Copies[c.Parent].Prefix
			}
			_, rets := callLists(c.Call)
			for i, p := range c.Callee.RetParams {
				if p.Name == o.Name && i < len(rets) {
					return f.registerCell(f.paramCell(parent, rets[i]), o.Off, int64(o.W)/8)
				}
			}
		}
		return f.registerCell(f.paramCell(f.prefixOf(in), o.Name), o.Off, int64(o.W)/8)
	}
	if names := f.frameOut[in]; len(names) > k && f.frameOK {
		return names[k]
	}
	return ""
}

// loadCell names the frame cell input k of in reads, or "".
func (f *Func) loadCell(in *isa.Instr, s *Sem, k int) string {
	if !f.frameOK {
		return ""
	}
	return f.frameLoads[frameKey{in, k}]
}

// canonicalize merges the operations that became equal once trivial phis
// were replaced (an operation built on a phi before the phi was found to
// be a copy is the same as one built on the copied value afterwards), and
// removes the phis whose operands thereby became one value, until nothing
// changes: equal values are one value, as the analyses compare them by
// identity.
func (f *Func) canonicalize() {
	for round := 0; round < 16; round++ {
		changed := false
		ops := make(map[opKey]*Value, len(f.ops))
		// dirty: operations whose operands changed in place this round
		// (their users are simplified again too).
		dirty := map[*Value]bool{}
		for _, v := range f.values {
			if v.fwd != nil {
				continue
			}
			switch v.Kind {
			case VOp:
				moved := false
				for i, a := range v.Args {
					if r := resolve(a); r != a || dirty[a] {
						v.Args[i], moved = r, true
					}
				}
				if moved {
					// The rules may apply to the copied values.
					if x := f.simplify(v.Instr, v.Code, v.W, append([]*Value(nil), v.Args...)); x != nil && x != v {
						v.fwd = resolve(x)
						changed = true
						continue
					}
					dirty[v] = true
				}
				args := v.Args
				if v.Code.Commutative() && len(args) == 2 {
					_, c0 := args[0].IsConst()
					_, c1 := args[1].IsConst()
					if c0 && !c1 || c0 == c1 && args[0].ID > args[1].ID {
						args[0], args[1] = args[1], args[0]
					}
				}
				k := opKey{code: v.Code, w: v.W}
				for i, a := range args {
					k.a[i] = a.ID
				}
				if x := ops[k]; x != nil && x != v {
					v.fwd = x
					changed = true
					continue
				}
				ops[k] = v
			case VPhi:
				var same *Value
				trivial := true
				for _, a := range v.Args {
					a = resolve(a)
					if a == v || a == same {
						continue
					}
					if same != nil {
						trivial = false
						break
					}
					same = a
				}
				if trivial && same != nil {
					v.fwd = same
					changed = true
				}
			}
		}
		f.ops = ops
		if !changed {
			return
		}
	}
}

// finishValues resolves the replaced phis everywhere.
func (f *Func) finishValues() {
	f.canonicalize()
	for _, v := range f.values {
		for i, a := range v.Args {
			v.Args[i] = resolve(a)
		}
	}
	for _, ii := range f.info {
		for i := range ii.ins {
			ii.ins[i] = resolve(ii.ins[i])
		}
		for i := range ii.outs {
			ii.outs[i] = resolve(ii.outs[i])
		}
		for i := range ii.data {
			ii.data[i] = resolve(ii.data[i])
		}
		for i := range ii.reads {
			ii.reads[i] = resolve(ii.reads[i])
		}
		ii.guard = resolve(ii.guard)
	}
}
