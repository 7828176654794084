// Package isa is gpuwcet's instruction model: one intermediate representation
// for PTX, SASS and simulator traces.
//
// A front end (cfg/ptx, cfg/sass, cfg/trace) turns a listing into a *File: a
// list of functions (kernels and device functions), each a list of
// instructions in program order. Every instruction keeps its source position,
// its opcode with the modifiers kept apart, its guard predicate, its
// destination and source operands, and a Kind that tells the control-flow and
// timing passes what it does. Registers are named as written ("%r12", "R4",
// "P0"); the passes intern them.
//
// The model says nothing about time: latencies and functional units come from
// a hardware description (package hwdesc), applied by the phases pass.
package isa

import (
	"go/token"
	"sort"
	"strings"
)

// Dialect is the language a File was read from.
type Dialect uint8

const (
	DialectPTX   Dialect = iota + 1 // NVIDIA PTX assembly
	DialectSASS                     // NVIDIA machine code listings (cuobjdump, nvdisasm, CuAssembler, maxas)
	DialectTrace                    // simulator issue traces (GPGPU-Sim, Accel-Sim)
)

func (d Dialect) String() string {
	switch d {
	case DialectPTX:
		return "ptx"
	case DialectSASS:
		return "sass"
	case DialectTrace:
		return "trace"
	}
	return "unknown"
}

// File is one parsed listing.
type File struct {
	Fset    *token.FileSet // positions of every Pos below
	Name    string         // file name as given to the front end
	Dialect Dialect

	// Header facts, when the listing states them.
	Version     string // PTX ".version" ("7.8"), or the SASS code version
	Target      string // first target: "sm_80", "sm_75"
	TargetOpts  []string
	AddressSize int // 32 or 64; 0 when not stated

	Funcs []*Func // in source order: kernels and device functions

	// Shared lists the module-scope PTX .shared declarations, visible to
	// every function of the module.
	Shared []SharedVar

	// Warnings are positioned, non-fatal findings of the front end, such as
	// an opcode the model does not know (parsed by the generic rule).
	Warnings ErrorList
}

// Kernels returns the kernels (PTX .entry, SASS functions marked as entries)
// in source order.
func (f *File) Kernels() []*Func {
	var ks []*Func
	for _, fn := range f.Funcs {
		if fn.Entry {
			ks = append(ks, fn)
		}
	}
	return ks
}

// Func returns the function with the given name, or nil.
func (f *File) Func(name string) *Func {
	for _, fn := range f.Funcs {
		if fn.Name == name {
			return fn
		}
	}
	return nil
}

// Param is a formal parameter of a kernel or device function.
type Param struct {
	Name  string
	Type  string // ".u64", ".b32", ".align 8 .b8" (as written, normalised spacing)
	Size  int    // bytes, 0 if unknown
	Array int    // element count for arrays, 0 otherwise
}

// Func is a kernel (PTX .entry) or a device function (PTX .func); for SASS, one
// "Function :" block or text section.
type Func struct {
	Name    string
	Pos     token.Pos
	End     token.Pos // position of the closing brace or last line
	Entry   bool      // a kernel, launched from the host
	Linkage string    // "visible", "extern", "weak" or ""
	Decl    bool      // declaration only: no body

	Params    []Param
	RetParams []Param

	// Launch-bound directives (PTX .maxntid, .reqntid, ...); zero when absent.
	MaxNTid      [3]int
	ReqNTid      [3]int
	MinNCTAPerSM int
	MaxNReg      int

	// Resources, as far as the listing states them (see Resources).
	Res Resources

	Instrs []*Instr // in program order; Instrs[i].Index == i

	// Labels maps a label to the index of the instruction it names. A label
	// at the end of a body names len(Instrs).
	Labels map[string]int

	// BranchTargets holds the .branchtargets lists (brx.idx) and
	// .calltargets lists by name.
	BranchTargets map[string][]string

	// Trace, when non-nil, gives the known execution of this kernel: one
	// instruction sequence per warp, from a simulator trace or derived from
	// a straight-line listing.
	Trace *Trace
}

// LabelAt returns the labels naming instruction i, sorted.
func (fn *Func) LabelAt(i int) []string {
	var ls []string
	for l, j := range fn.Labels {
		if j == i {
			ls = append(ls, l)
		}
	}
	sort.Strings(ls)
	return ls
}

// Kind classifies what an instruction does to control flow and memory.
type Kind uint8

const (
	KindOther          Kind = iota // arithmetic, moves, conversions, ...
	KindLoad                       // memory read
	KindStore                      // memory write
	KindAtomic                     // read-modify-write on memory (atom, red)
	KindBranch                     // direct branch (conditional when guarded)
	KindIndirectBranch             // brx.idx, BRX, JMX
	KindCall                       // direct call
	KindIndirectCall               // call through a register
	KindReturn                     // ret, RET
	KindExit                       // exit, EXIT, trap
	KindBarrier                    // bar.sync, barrier.*, bar.warp.sync, BAR, WARPSYNC
	KindReconverge                 // SASS reconvergence bookkeeping: SSY, SYNC, PBK, BRK, BSSY, BSYNC, ...
	KindNop                        // NOP and padding
)

var kindNames = [...]string{
	KindOther:          "other",
	KindLoad:           "load",
	KindStore:          "store",
	KindAtomic:         "atomic",
	KindBranch:         "branch",
	KindIndirectBranch: "indirect-branch",
	KindCall:           "call",
	KindIndirectCall:   "indirect-call",
	KindReturn:         "return",
	KindExit:           "exit",
	KindBarrier:        "barrier",
	KindReconverge:     "reconverge",
	KindNop:            "nop",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// IsTerminator reports whether an instruction of this kind ends a basic block.
func (k Kind) IsTerminator() bool {
	switch k {
	case KindBranch, KindIndirectBranch, KindReturn, KindExit:
		return true
	}
	return false
}

// Space is a memory address space.
type Space uint8

const (
	SpaceNone    Space = iota
	SpaceGeneric       // generic addressing (PTX ld without space, SASS LD)
	SpaceGlobal
	SpaceShared
	SpaceLocal
	SpaceConst
	SpaceParam
	SpaceTexture
	SpaceSurface
)

var spaceNames = [...]string{"", "generic", "global", "shared", "local", "const", "param", "tex", "surf"}

func (s Space) String() string {
	if int(s) < len(spaceNames) {
		return spaceNames[s]
	}
	return "space?"
}

// BarrierOp distinguishes barrier flavours: only Sync and Red make a warp
// wait for the other warps of its block (and so end a timing section).
type BarrierOp uint8

const (
	BarNone     BarrierOp = iota
	BarSync               // bar.sync, barrier.sync, BAR.SYNC: wait for the block
	BarArrive             // bar.arrive, BAR.ARV: signal without waiting
	BarRed                // bar.red, BAR.RED: wait and reduce
	BarWarpSync           // bar.warp.sync, WARPSYNC: intra-warp only
)

var barNames = [...]string{"", "sync", "arrive", "red", "warp.sync"}

func (b BarrierOp) String() string {
	if int(b) < len(barNames) {
		return barNames[b]
	}
	return "bar?"
}

// WaitsForBlock reports whether the barrier makes the warp wait for every
// warp of its thread block.
func (b BarrierOp) WaitsForBlock() bool { return b == BarSync || b == BarRed }

// Guard is an instruction's guard predicate: @%p1, @!P0. Reg is empty when
// the instruction is unguarded (or guarded by the true predicate PT).
type Guard struct {
	Reg string
	Neg bool
}

func (g Guard) String() string {
	if g.Reg == "" {
		return ""
	}
	if g.Neg {
		return "@!" + g.Reg
	}
	return "@" + g.Reg
}

// Instr is one instruction.
type Instr struct {
	Pos   token.Pos // start of the instruction (the guard, or the opcode)
	Index int       // position in Func.Instrs

	Guard  Guard
	Opcode string   // base mnemonic as written: "ld", "mul", "IMAD"
	Mods   []string // modifiers in source order, without dots: ["global", "v4", "f32"]

	Dsts []Operand // operands written (registers, predicates; the memory of a store is a source)
	Srcs []Operand // operands read, including memory operands and labels

	Kind    Kind
	Space   Space     // for loads, stores, atomics
	Barrier BarrierOp // for KindBarrier
	Uni     bool      // PTX .uni: the branch or call is asserted non-divergent
	// Generic is set when the front end did not know the opcode and parsed
	// it with the generic rule (first operand written, the others read).
	// (The small fields share a word: one instruction is 200 bytes.)
	Generic bool

	// Targets are the labels (or, for SASS, resolved label names) a branch
	// or call may go to, in source order. An indirect branch lists its
	// .branchtargets; a call names its callee.
	Targets []string

	// SASS only.
	Offset int64 // address of the instruction in its section; -1 when unknown
	Ctrl   *Ctrl // decoded scheduling control field, when the encoding is known

	// Text is the instruction as written (normalised spacing, no trailing
	// ';'), used in dumps and graph labels.
	Text string

	// Loc is the high-level source location (PTX .loc), or nil.
	Loc *SourceLoc
}

// Op returns the full dotted opcode as written: "ld.global.v4.f32".
func (in *Instr) Op() string {
	if len(in.Mods) == 0 {
		return in.Opcode
	}
	return in.Opcode + "." + strings.Join(in.Mods, ".")
}

// HasMod reports whether m is among the instruction's modifiers.
func (in *Instr) HasMod(m string) bool {
	for _, x := range in.Mods {
		if x == m {
			return true
		}
	}
	return false
}

// Defs returns the registers the instruction writes, in operand order,
// without duplicates. Sinks ("_"), RZ, PT and memory are not registers.
func (in *Instr) Defs() []string {
	var out []string
	for _, o := range in.Dsts {
		if o.Kind == OpMem {
			continue
		}
		out = appendRegs(out, o.Regs)
	}
	return out
}

// Uses returns the registers the instruction reads, in operand order,
// without duplicates: the guard, the sources, and the address registers of
// memory operands (also of a memory destination).
func (in *Instr) Uses() []string {
	var out []string
	if in.Guard.Reg != "" {
		out = appendRegs(out, []string{in.Guard.Reg})
	}
	for _, o := range in.Srcs {
		out = appendRegs(out, o.Regs)
	}
	for _, o := range in.Dsts {
		if o.Kind == OpMem {
			out = appendRegs(out, o.Regs)
		}
	}
	return out
}

func appendRegs(out, regs []string) []string {
next:
	for _, r := range regs {
		for _, x := range out {
			if x == r {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

// OperandKind classifies an operand.
type OperandKind uint8

const (
	OpReg     OperandKind = iota + 1 // a register or predicate: %r1, R4, P0, !%p2
	OpVec                            // a vector of registers: {%f1, %f2}
	OpImm                            // an integer or float literal
	OpMem                            // a memory operand: [%rd1+4], [var], c[0x0][0x160], desc[UR4][R2.64]
	OpSym                            // a symbol: variable, parameter, function name
	OpLabel                          // a code label (branch target)
	OpSpecial                        // a special register: %tid.x, SR_TID.X, %clock64
	OpSink                           // "_": a discarded destination
	OpList                           // a parenthesised list (call arguments)
)

var operandKindNames = [...]string{"", "reg", "vec", "imm", "mem", "sym", "label", "special", "sink", "list"}

func (k OperandKind) String() string {
	if int(k) < len(operandKindNames) {
		return operandKindNames[k]
	}
	return "operand?"
}

// Operand is one operand as written, with the registers it involves.
//
// Fields are ordered so that the small ones share a word (48 bytes, not
// 56; docs/performance.md, "Input size").
type Operand struct {
	Kind OperandKind
	Neg  bool     // a negated predicate source (!%p1, !P0)
	Text string   // as written, normalised spacing
	Regs []string // registers read or written through this operand (address registers for OpMem)
}

// Ctrl is the scheduling control field the compiler writes into SASS
// (Maxwell and later). See ../shared/notes/isa-and-hardware.md §2.3.
type Ctrl struct {
	Stall    uint8  // cycles before the warp may issue its next instruction (0–15)
	Yield    bool   // raw yield bit (maxas prints raw 0 as "Y")
	WriteBar int8   // scoreboard set when the result is written, 0–5; -1 none
	ReadBar  int8   // scoreboard released when the sources are read, 0–5; -1 none
	WaitMask uint8  // scoreboards waited on, bit i = barrier i
	Reuse    uint8  // operand reuse flags
	Raw      uint32 // the 21 raw bits, when decoded from an encoding
}

// Trace is a known execution of a kernel: the instruction sequence of each
// warp, from a simulator trace or from a listing without branches.
type Trace struct {
	Warps []WarpPath

	// ObservedCycles is the execution time the simulator reported for the
	// launch (GPGPU-Sim "kernel_execution_time"); valid when HasObserved.
	ObservedCycles int64
	HasObserved    bool

	// Deduplicated counts lines dropped by the duplicate-line rule.
	Deduplicated int
}

// WarpPath is the ordered instructions one warp issued.
type WarpPath struct {
	Warp   int
	Instrs []*Instr
}
