// Package simt draws concrete executions of a thread block through a PTX
// kernel with control flow, for the reference simulator (package sim): the
// judge of the static bound (gpuwcet analyze). The warps' paths come from
// the instruction semantics, lane by lane, on a SIMT reconvergence stack;
// the instructions each warp issues form its path, which sim times.
//
// # Independence
//
// A judge that shares code with what it judges cannot see that code's
// mistakes (issue 9: the former drawer took its branch classes and
// per-warp outcomes from the divergence pass and its loop bounds from the
// loops pass, so a branch wrongly classified uniform, or a condition
// wrongly evaluated, gave the same answer on both sides). This package
// therefore imports no analysis: not divergence, not cfg/loops, not the
// value analysis (cmd/gpuwcet TestDependencies fails otherwise). It uses
// the IR (cfg/isa), the graph structure (cfg: blocks, post-dominators,
// natural loops) and nothing else, and has its own interpreter
// (docs/decisions.md).
//
// # What an execution is
//
//   - Every lane interprets the kernel's instructions (sem.go: integer and
//     predicate arithmetic at the instruction's width and signedness,
//     conversions, comparisons, f32/f64 arithmetic, loads and stores,
//     atomics, vote, shfl, redux; thread and block indices, launch
//     dimensions, kernel arguments, literals). Memory starts undefined: a
//     byte first read is drawn from the execution's seed (Options.Seed),
//     or given by Options.Memory, and memory then keeps what is written
//     (global and shared memory of the block, local memory per thread).
//     Kernel arguments not given in Launch.Args are drawn once per block,
//     the block index within the grid too.
//   - Branches are decided by the lanes' values. Where a decision that
//     depends on drawn data would run a loop past the cap the user's flow
//     facts give it (Launch.Caps; never a bound the analysis derived), the
//     lane takes another edge instead, as data that ends the loop would;
//     no other decision is overridden. A loop whose exit does not depend
//     on data runs as its arithmetic says; running past a cap is an error
//     (the fact is wrong at these inputs).
//   - Device functions run with a call stack: the caller's .param
//     arguments are copied into the callee's parameters, its return
//     parameters back; each call has its own registers.
//   - Block barriers (bar.sync, bar.red) stop a warp until every warp of
//     the block has reached one (or ended): the warps run in lockstep
//     phases, so memory written before a barrier is seen after it.
//
// # The stack
//
// GPGPU-Sim's simt_stack::update. An entry is (frame, pc, reconvergence
// pc, mask). At a branch on which the active lanes disagree, with
// reconvergence point R (the immediate post-dominator in the function's
// graph, the virtual exit when there is none): the lanes going to R wait
// in the entry below; if R is the top entry's reconvergence point the
// groups replace the top entry, otherwise the top entry becomes the
// reconvergence entry (pc R) and one entry per group is pushed above it.
// An entry whose pc reaches its reconvergence point pops. The order of the
// groups is every order a stack may choose (Options.Order): taken first
// (Pascal, docs/divergence.md), fall-through first, random at each
// divergence, GPGPU-Sim's (the group holding the highest lane runs last:
// when those lanes leave a loop they run after its remaining iterations),
// or Options.Choose, which Exhaustive uses to enumerate them all.
//
// The path of a warp is every instruction its top entry issues, guarded
// ones included (they are timed whatever the guard). Consecutive
// instructions of a path that are not a fall-through redirect the warp for
// the description's branch_wait, the predicate of sim.Redirects on the
// instruction indices (Block.Program passes no function: within one
// function, the instruction after a branch in the path is the branch's
// fall-through exactly when its index is the next).
package simt

import (
	"fmt"
	"go/token"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
)

// Order is the order in which the lane groups of a divergence run.
type Order uint8

const (
	// TakenFirst runs the lanes taking the branch first (Pascal).
	TakenFirst Order = iota
	// FallThroughFirst runs the lanes falling through first.
	FallThroughFirst
	// RandomOrder draws the order at every divergence.
	RandomOrder
	// GPGPUSim runs the group holding the highest lane last
	// (simt_stack::update).
	GPGPUSim
)

// Orders lists every order, in the order of their values.
var Orders = []Order{TakenFirst, FallThroughFirst, RandomOrder, GPGPUSim}

func (o Order) String() string {
	switch o {
	case TakenFirst:
		return "taken-first"
	case FallThroughFirst:
		return "fallthrough-first"
	case RandomOrder:
		return "random"
	case GPGPUSim:
		return "gpgpusim"
	}
	return "order?"
}

// ParseOrder parses "taken-first" (or ""), "fallthrough-first", "random"
// or "gpgpusim".
func ParseOrder(s string) (Order, error) {
	for _, o := range Orders {
		if s == o.String() {
			return o, nil
		}
	}
	if s == "" {
		return TakenFirst, nil
	}
	return 0, fmt.Errorf("unknown side order %q (want taken-first, fallthrough-first, random or gpgpusim)", s)
}

// Caps gives the flow-fact cap of a loop of function fn headed by the
// block starting with instruction header: the most executions of the
// header per entry into the loop. Data-dependent exits are steered to
// respect it.
type Caps func(fn *isa.Func, header *isa.Instr) (int64, bool)

// Launch is the launch configuration and the inputs of an execution.
type Launch struct {
	Block [3]int // threads per block (required)
	Grid  [3]int // blocks per grid; zero: drawn
	// CTA is the index of the block in the grid; nil: drawn.
	CTA *[3]int
	// Args are kernel arguments by parameter name (raw bits); a parameter
	// not given is drawn.
	Args map[string]int64
	// Caps are the user's flow facts (nil: none).
	Caps Caps
}

// Options tune one execution.
type Options struct {
	Order Order
	// Seed draws memory, arguments not given, and random orders.
	Seed uint64
	// Choose, when set, picks the order at each divergence of two or more
	// groups: one of n orders (n = groups!, the permutations of the
	// groups sorted taken first, 0 that order); it overrides Order.
	Choose func(n int) int
	// MaxLoops draws memory never written as non-zero values: loops ended
	// by a zero in memory (a sentinel, a flag) run to their flow-fact caps.
	MaxLoops bool
	// MaxInstrs bounds the path of one warp (0: 1<<22).
	MaxInstrs int
	// Memory fixes the initial content of memory (nil: drawn).
	Memory Memory
	// Volatile makes a register read before any write draw a new value at
	// every read (the live-in predicates of synthetic test functions then
	// act as data-dependent conditions).
	Volatile bool
}

// Step is one block a warp ran: Func's block Block (thread-level graph).
type Step struct {
	Func  *isa.Func
	Block int
}

// Decision is one execution of a block ending in a conditional branch
// (guarded branch, guarded ret or exit, indirect branch) by one warp: the
// lanes that reached it and where each went.
type Decision struct {
	Func  *isa.Func
	Block int    // Func's block (thread-level graph)
	Lanes uint32 // the active lanes
	// Succ gives, per active lane, the index in the block's successors of
	// the edge it took (-1: it exited).
	Succ [32]int8
}

// Split reports whether the active lanes went different ways.
func (d Decision) Split() bool {
	first := true
	var s int8
	for l := 0; l < 32; l++ {
		if d.Lanes&(1<<l) == 0 {
			continue
		}
		if !first && d.Succ[l] != s {
			return true
		}
		first, s = false, d.Succ[l]
	}
	return false
}

// Block is one execution of the thread block.
type Block struct {
	Paths [][]*isa.Instr // per warp: the instructions it issues, in order
	Steps [][]Step       // per warp: the blocks it runs, in order
	// Decisions are, per warp, its conditional branches in execution
	// order, lane by lane.
	Decisions [][]Decision
	// Orders gives the number of orders at each divergence of two or more
	// groups, in execution order (Exhaustive enumerates them).
	Orders []int
	// Divergences counts the branches at which lanes disagreed.
	Divergences int
	// Drawn counts the results the interpreter drew instead of computing.
	Drawn int
	// Args are the kernel arguments used (given or drawn), CTA the block
	// index.
	Args map[string]uint64
	CTA  [3]int
}

// Program compiles the execution for the simulator.
func (b *Block) Program(hw *hwdesc.Desc, mode sim.BarrierMode) (*sim.Program, error) {
	return sim.CompileFunc(hw, b.Paths, mode, nil)
}

// function is a function prepared for execution.
type function struct {
	fn    *isa.Func
	g     *cfg.Graph
	dc    *decoder
	code  []*dinstr // by instruction index
	ipdom []int     // by block: reconvergence block index, or exitIdx
}

// Kernel is a PTX kernel prepared for execution, with the device
// functions it calls.
type Kernel struct {
	file  *isa.File
	fn    *isa.Func
	main  *function
	funcs map[string]*function
}

// New prepares kernel fn of file (a PTX listing) and every device
// function it may call.
func New(file *isa.File, fn *isa.Func) (*Kernel, error) {
	if file.Dialect != isa.DialectPTX {
		return nil, fmt.Errorf("simt: %s: the execution drawer interprets PTX only (this listing is %s)", fn.Name, file.Dialect)
	}
	if fn.Decl {
		return nil, fmt.Errorf("simt: %s has no body", fn.Name)
	}
	k := &Kernel{file: file, fn: fn, funcs: map[string]*function{}}
	main, err := k.prepare(fn)
	if err != nil {
		return nil, err
	}
	k.main = main
	// Prepare every function reachable by calls now: a missing body is an
	// error before anything runs.
	queue := []*function{main}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, in := range f.fn.Instrs {
			if in.Kind != isa.KindCall || len(in.Targets) == 0 {
				continue
			}
			if _, ok := k.funcs[in.Targets[0]]; ok {
				continue
			}
			g, err := k.function(in.Targets[0])
			if err != nil {
				return nil, fmt.Errorf("simt: %s: %w", k.pos(in), err)
			}
			queue = append(queue, g)
		}
	}
	return k, nil
}

func (k *Kernel) function(name string) (*function, error) {
	if f, ok := k.funcs[name]; ok {
		return f, nil
	}
	fn := k.file.Func(name)
	if fn == nil || fn.Decl {
		return nil, fmt.Errorf("call to %s, whose code is not in the listing", name)
	}
	return k.prepare(fn)
}

func (k *Kernel) prepare(fn *isa.Func) (*function, error) {
	g, err := cfg.Build(k.file.Fset, fn)
	if err != nil {
		return nil, fmt.Errorf("simt: %s: %w", fn.Name, err)
	}
	f := &function{fn: fn, g: g, dc: &decoder{regs: map[string]int{}}}
	f.code = make([]*dinstr, len(fn.Instrs))
	for i, in := range fn.Instrs {
		f.code[i] = f.dc.decode(in)
	}
	f.ipdom = make([]int, len(g.Blocks))
	for i, b := range g.Blocks {
		f.ipdom[i] = exitIdx
		if p := b.IPdom(); p != nil && p != g.Exit {
			f.ipdom[i] = p.Index
		}
	}
	k.funcs[fn.Name] = f
	return f, nil
}

func (k *Kernel) pos(in *isa.Instr) string {
	if k.file.Fset == nil || !in.Pos.IsValid() {
		return in.Text
	}
	return k.file.Fset.Position(in.Pos).String()
}

// Func returns the kernel.
func (k *Kernel) Func() *isa.Func { return k.fn }

// Position returns the position of p in the listing.
func (k *Kernel) Position(p token.Pos) token.Position {
	if k.file.Fset == nil {
		return token.Position{}
	}
	return k.file.Fset.Position(p)
}

// Run draws one execution of the block.
func (k *Kernel) Run(l Launch, opt Options) (*Block, error) {
	x, err := k.execute(l, opt)
	if err != nil {
		return nil, err
	}
	b := &Block{Orders: x.orders, Divergences: x.divergences, Drawn: x.drawnOps, CTA: x.cta, Args: map[string]uint64{}}
	for _, w := range x.warps {
		b.Paths = append(b.Paths, w.path)
		b.Steps = append(b.Steps, w.steps)
		b.Decisions = append(b.Decisions, w.decisions)
	}
	for name, buf := range x.args {
		var v uint64
		for i := 0; i < len(buf) && i < 8; i++ {
			v |= uint64(buf[i]) << (8 * i)
		}
		b.Args[name] = v
	}
	return b, nil
}

// execute runs the block.
func (k *Kernel) execute(l Launch, opt Options) (*run, error) {
	x := &run{k: k, launch: l, opt: opt, src: newSource(opt.Seed)}
	x.order = newSource(opt.Seed ^ 0x5eed0de5).r
	x.mem = &memory{bytes: map[memKey]mbyte{}, src: x.src, fixed: opt.Memory, nonZero: opt.MaxLoops}
	if err := x.init(); err != nil {
		return nil, err
	}
	if err := x.execute(); err != nil {
		return nil, fmt.Errorf("simt: %s: %w", k.fn.Name, err)
	}
	return x, nil
}

// Exhaustive runs every execution of the block that differs in the order
// of the lane groups at some divergence (the memory, arguments and block
// index drawn from opt.Seed, the same for all), calling visit on each,
// at most limit of them. It reports whether it enumerated them all.
func (k *Kernel) Exhaustive(l Launch, opt Options, limit int, visit func(*Block) error) (bool, error) {
	var prefix []int
	for n := 0; ; n++ {
		if n >= limit {
			return false, nil
		}
		var made []int
		i := 0
		opt.Choose = func(arity int) int {
			c := 0
			if i < len(prefix) {
				c = prefix[i]
			}
			made = append(made, c)
			i++
			return c
		}
		b, err := k.Run(l, opt)
		if err != nil {
			return false, err
		}
		if err := visit(b); err != nil {
			return false, err
		}
		// Next choice sequence: the last position that can still grow.
		j := len(made) - 1
		for j >= 0 && made[j]+1 >= b.Orders[j] {
			j--
		}
		if j < 0 {
			return true, nil
		}
		prefix = append(made[:j:j], made[j]+1)
	}
}

// Registers runs the block and returns the final values, in each lane of
// warp w, of the kernel's registers named (integers and predicates, as
// the interpreter holds them: sign-extended for signed results), leaving
// out a register that holds a drawn value in some lane. It is for
// differential tests against another implementation of the semantics.
func (k *Kernel) Registers(l Launch, opt Options, w int, names []string) (map[string][]uint64, error) {
	x, err := k.execute(l, opt)
	if err != nil {
		return nil, err
	}
	if w < 0 || w >= len(x.warps) {
		return nil, fmt.Errorf("simt: no warp %d", w)
	}
	wp := x.warps[w]
	fr := wp.base
	out := map[string][]uint64{}
next:
	for _, n := range names {
		r, ok := fr.f.dc.regs[n]
		if !ok {
			continue
		}
		vs := make([]uint64, wp.lanes)
		for l := range vs {
			v, drawn := fr.get(x, r, l)
			if drawn {
				continue next
			}
			vs[l] = v
		}
		out[n] = vs
	}
	return out, nil
}
