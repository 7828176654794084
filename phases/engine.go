package phases

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// RegID is an interned register or predicate name; ids are dense, from 0,
// in order of first appearance in an Engine.
type RegID int32

// NoUnit is the Op.Unit (and Op.Res) of an instruction that issues
// nothing (by default ret, exit and block-wide barriers; see
// hwdesc.Pipeline).
const NoUnit = -1

// Engine applies the timing model of one hardware description to
// instructions, one warp at a time. It interns register names and caches the
// unit of each opcode. Units whose hwdesc group is the same share one
// resource: one initiation FIFO (State.UnitFree is indexed by resource). An Engine is not safe for concurrent use (Prepare and
// Reg intern names); Step on prepared Ops only reads it.
type Engine struct {
	hw       *hwdesc.Desc
	units    []hwdesc.Unit
	res      []int // resource (FIFO) of each unit: the index of the first unit of its hwdesc group
	pipe     hwdesc.Pipeline
	byOp     map[string]int // dotted opcode -> unit index
	regs     map[string]RegID
	regNames []string

	// Strict refuses the description's default unit: an opcode that no
	// rule routes is an error even when the description has a
	// default_unit (gpuwcet --strict).
	Strict bool
	// defaults records the instructions timed on the default unit.
	defaults map[*isa.Instr]string
	byDef    map[string]bool // dotted opcode -> routed by the default unit
}

// DefaultUse is an opcode that no rule of the description routes, timed
// on its default unit: the number of instructions prepared with it and the
// first one's position.
type DefaultUse struct {
	Op    string
	Count int
	Pos   token.Pos
}

// DefaultUses returns the opcodes the engine timed on the description's
// default unit, sorted, with the number of distinct instructions of each
// (an inlined device function's copies count once per call site).
func (e *Engine) DefaultUses() []DefaultUse {
	by := map[string]*DefaultUse{}
	for in, op := range e.defaults {
		u := by[op]
		if u == nil {
			u = &DefaultUse{Op: op, Pos: in.Pos}
			by[op] = u
		}
		u.Count++
		if in.Pos < u.Pos {
			u.Pos = in.Pos
		}
	}
	out := make([]DefaultUse, 0, len(by))
	for _, u := range by {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b DefaultUse) int { return strings.Compare(a.Op, b.Op) })
	return out
}

// NewEngine returns an engine for hw. It checks the parts of the description
// the model depends on: every unit has Init ≥ 1 and Lat ≥ 0.
func NewEngine(hw *hwdesc.Desc) (*Engine, error) {
	if hw == nil {
		return nil, fmt.Errorf("phases: no hardware description")
	}
	for _, u := range hw.Units {
		if u.Init < 1 {
			return nil, fmt.Errorf("phases: hardware description %q: unit %q has init %d; the model needs init ≥ 1 (an issued instruction occupies its unit at least one cycle)", hw.Name, u.Name, u.Init)
		}
		if u.Lat < 0 {
			return nil, fmt.Errorf("phases: hardware description %q: unit %q has negative lat %d", hw.Name, u.Name, u.Lat)
		}
	}
	if o := hw.Pipeline.Overhead; o < 0 {
		return nil, fmt.Errorf("phases: hardware description %q: negative pipeline overhead %d", hw.Name, o)
	}
	switch hw.Pipeline.BranchWait {
	case "", hwdesc.BranchWaitNone, hwdesc.BranchWaitTaken, hwdesc.BranchWaitAll:
	default:
		return nil, fmt.Errorf("phases: hardware description %q: unknown branch_wait %q", hw.Name, hw.Pipeline.BranchWait)
	}
	// The FIFO of a group is indexed by its first unit, so that an
	// ungrouped unit's FIFO is its own index (as for Ops built by hand).
	res := make([]int, len(hw.Units))
	first := map[string]int{}
	for u := range hw.Units {
		g := hw.GroupOf(u)
		f, ok := first[g]
		if !ok {
			f = u
			first[g] = u
		}
		res[u] = f
	}
	return &Engine{
		hw:       hw,
		units:    slices.Clone(hw.Units),
		res:      res,
		pipe:     hw.Pipeline,
		byOp:     map[string]int{},
		regs:     map[string]RegID{},
		defaults: map[*isa.Instr]string{},
		byDef:    map[string]bool{},
	}, nil
}

// HW returns the engine's hardware description.
func (e *Engine) HW() *hwdesc.Desc { return e.hw }

// Reg interns a register name.
func (e *Engine) Reg(name string) RegID {
	if id, ok := e.regs[name]; ok {
		return id
	}
	id := RegID(len(e.regNames))
	e.regs[name] = id
	e.regNames = append(e.regNames, name)
	return id
}

// RegName returns the name of an interned register.
func (e *Engine) RegName(id RegID) string { return e.regNames[id] }

// NumRegs returns the number of registers interned so far.
func (e *Engine) NumRegs() int { return len(e.regNames) }

// Resource returns the resource (initiation FIFO, the index of its entry
// in State.UnitFree) of unit u: the index of the first unit of u's hwdesc
// group, so u itself when u is alone in its group.
func (e *Engine) Resource(u int) int { return e.res[u] }

// Op is an instruction prepared for Step: its unit, resource, initiation
// interval and latency, and its interned registers.
type Op struct {
	Instr *isa.Instr
	Unit  int           // index in HW().Units; NoUnit when the instruction issues nothing
	Init  hwdesc.Cycles // 0 when Unit is NoUnit
	Lat   hwdesc.Cycles // the unit's lat plus the description's pipeline overhead
	Uses  []RegID       // registers and predicates read, the guard included
	Defs  []RegID       // registers and predicates written (all destinations)
	Sync  bool          // a block-wide barrier (bar.sync, bar.red): ends a section
	// Res is 1 + the resource (initiation FIFO, its entry in
	// State.UnitFree) of Unit: units of one hwdesc group share one
	// (Engine.Resource). 0 means the unit's own FIFO, UnitFree[Unit] (Ops
	// built by hand, without an Engine). See Resource.
	Res int
	// WaitTaken and WaitFallThrough: after this instruction (a branch),
	// the warp issues nothing until its result is ready on an edge that
	// redirects the warp (taken) or that falls through (hwdesc
	// Pipeline.BranchWait). Apply with WaitAfter.
	WaitTaken, WaitFallThrough bool
}

// Resource returns the index in State.UnitFree of o's initiation FIFO.
func (o *Op) Resource() int {
	if o.Res > 0 {
		return o.Res - 1
	}
	return o.Unit
}

// WaitsAfter reports whether the edge out of o (taken: to an instruction
// other than the fall-through) makes the warp wait for o's result. A static
// analysis that does not know the outcome of an edge uses
// WaitsAfter(true) || WaitsAfter(false); waiting is never optimistic since
// Step is monotone.
func (o *Op) WaitsAfter(taken bool) bool {
	if taken {
		return o.WaitTaken
	}
	return o.WaitFallThrough
}

// WaitAfter applies the control hazard of o on the edge taken (see
// WaitsAfter) to s, given o's timing t: the warp's next issue is no earlier
// than o's result.
func WaitAfter(s *State, o *Op, t Timing, taken bool) {
	if o.WaitsAfter(taken) {
		s.Next = max(s.Next, t.Ready)
	}
}

// Redirects reports whether next is not the fall-through of in (a taken
// branch on a known path).
func Redirects(in, next *isa.Instr) bool { return next.Index != in.Index+1 }

// Issues reports whether the instruction issues (occupies an issue slot and
// a unit).
func (o *Op) Issues() bool { return o.Unit != NoUnit }

// IsSync reports whether in is a barrier that makes the warp wait for its
// whole block, and so ends a timing section.
func IsSync(in *isa.Instr) bool {
	return in.Kind == isa.KindBarrier && in.Barrier.WaitsForBlock()
}

// IssuesNothing reports whether in issues nothing under the engine's
// description: ret/exit unless Pipeline.RetIssues, block barriers unless
// Pipeline.BarrierIssues (the default model, the ECRTS 2025 one, issues
// none of them).
func (e *Engine) IssuesNothing(in *isa.Instr) bool {
	switch {
	case in.Kind == isa.KindReturn || in.Kind == isa.KindExit:
		return !e.pipe.RetIssues
	case IsSync(in):
		return !e.pipe.BarrierIssues
	}
	return false
}

// Prepare resolves the unit and resource of in and interns its registers. An opcode that
// no rule of the description routes (and no default unit catches) is an
// error positioned at the instruction (fset may be nil).
func (e *Engine) Prepare(fset *token.FileSet, in *isa.Instr) (Op, error) {
	op := Op{Instr: in, Unit: NoUnit, Sync: IsSync(in)}
	if e.IssuesNothing(in) {
		return op, nil
	}
	name := in.Op()
	u, ok := e.byOp[name]
	if !ok {
		var err error
		var rule int
		u, rule, err = e.hw.Lookup(name)
		if err != nil {
			return op, &isa.Error{Pos: position(fset, in.Pos), Msg: fmt.Sprintf("opcode %q: %v", name, err)}
		}
		if rule < 0 && e.Strict {
			return op, &isa.Error{Pos: position(fset, in.Pos), Msg: fmt.Sprintf("opcode %q: no rule of hardware description %q matches it, and --strict refuses its default_unit %q (add a rule: docs/hwdesc.md, \"Extending a description\")", name, e.hw.Name, e.hw.DefaultUnit)}
		}
		e.byOp[name] = u
		e.byDef[name] = rule < 0
	}
	if e.byDef[name] {
		e.defaults[in] = name
	}
	op.Unit = u
	op.Res = e.res[u] + 1
	op.Init = e.units[u].Init
	op.Lat = e.units[u].Lat + e.pipe.Overhead
	if in.Kind == isa.KindBranch || in.Kind == isa.KindIndirectBranch {
		op.WaitTaken = e.pipe.WaitsAfterBranch(true)
		op.WaitFallThrough = e.pipe.WaitsAfterBranch(false)
	}
	for _, r := range in.Uses() {
		op.Uses = append(op.Uses, e.Reg(r))
	}
	for _, r := range in.Defs() {
		op.Defs = append(op.Defs, e.Reg(r))
	}
	return op, nil
}

func position(fset *token.FileSet, pos token.Pos) token.Position {
	if fset == nil || !pos.IsValid() {
		return token.Position{}
	}
	return fset.Position(pos)
}

// State is the timing state of one warp between two instructions, in cycles
// relative to the start of the current section. The zero-length slices mean
// "everything free/ready at cycle 0"; entries beyond a slice's length read as
// 0. States are plain values: Clone copies, Join takes the latest time of
// each entry (a sound over-approximation of both states, since Step is
// monotone in every entry).
type State struct {
	// Next is the earliest cycle at which the warp may issue its next
	// instruction (one cycle after its last issue).
	Next hwdesc.Cycles
	// UnitFree[r] is the cycle at which resource r (Op.Resource(): a
	// hwdesc group of units, indexed by its first unit) finishes the
	// initiations queued on it so far.
	UnitFree []hwdesc.Cycles
	// RegReady[r] is the cycle at which the last pending write of register r
	// is ready; an instruction reading or writing r cannot issue earlier.
	RegReady []hwdesc.Cycles
	// End is the latest cycle at which a result is ready or an initiation
	// ends: the warp's work so far is finished at End.
	End hwdesc.Cycles
}

// NewState returns the state of a warp at the start of a section: every
// resource free and every register ready at cycle 0. UnitFree has one entry
// per unit; the entry of a unit that is not the first of its group is
// unused.
func (e *Engine) NewState() *State {
	return &State{UnitFree: make([]hwdesc.Cycles, len(e.units))}
}

// Clone returns a deep copy of s.
func (s *State) Clone() *State {
	return &State{Next: s.Next, UnitFree: slices.Clone(s.UnitFree), RegReady: slices.Clone(s.RegReady), End: s.End}
}

// Join sets every entry of s to the later of s and o.
func (s *State) Join(o *State) {
	s.Next = max(s.Next, o.Next)
	s.End = max(s.End, o.End)
	s.UnitFree = joinSlice(s.UnitFree, o.UnitFree)
	s.RegReady = joinSlice(s.RegReady, o.RegReady)
}

func joinSlice(a, b []hwdesc.Cycles) []hwdesc.Cycles {
	if len(a) < len(b) {
		a = append(a, make([]hwdesc.Cycles, len(b)-len(a))...)
	}
	for i, v := range b {
		a[i] = max(a[i], v)
	}
	return a
}

// Equal reports whether s and o are the same state (missing entries read
// as 0).
func (s *State) Equal(o *State) bool {
	return s.Next == o.Next && s.End == o.End && eqSlice(s.UnitFree, o.UnitFree) && eqSlice(s.RegReady, o.RegReady)
}

func eqSlice(a, b []hwdesc.Cycles) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	for i, v := range a {
		var w hwdesc.Cycles
		if i < len(b) {
			w = b[i]
		}
		if v != w {
			return false
		}
	}
	return true
}

// Leq reports whether every entry of s is at most the entry of o (s is at
// least as early as o everywhere).
func (s *State) Leq(o *State) bool {
	if s.Next > o.Next || s.End > o.End {
		return false
	}
	return leqSlice(s.UnitFree, o.UnitFree) && leqSlice(s.RegReady, o.RegReady)
}

func leqSlice(a, b []hwdesc.Cycles) bool {
	for i, v := range a {
		var w hwdesc.Cycles
		if i < len(b) {
			w = b[i]
		}
		if v > w {
			return false
		}
	}
	return true
}

func (s *State) reg(r RegID) hwdesc.Cycles {
	if int(r) < len(s.RegReady) {
		return s.RegReady[r]
	}
	return 0
}

func (s *State) setReg(r RegID, c hwdesc.Cycles) {
	if int(r) >= len(s.RegReady) {
		n := max(int(r)+1, 2*len(s.RegReady))
		s.RegReady = append(s.RegReady, make([]hwdesc.Cycles, n-len(s.RegReady))...)
	}
	s.RegReady[r] = c
}

func (s *State) unit(u int) hwdesc.Cycles {
	if u < len(s.UnitFree) {
		return s.UnitFree[u]
	}
	return 0
}

func (s *State) setUnit(u int, c hwdesc.Cycles) {
	if u >= len(s.UnitFree) {
		s.UnitFree = append(s.UnitFree, make([]hwdesc.Cycles, u+1-len(s.UnitFree))...)
	}
	s.UnitFree[u] = c
}

// Timing is what Step computed for one instruction.
type Timing struct {
	Issue hwdesc.Cycles // cycle the instruction issues (enters its unit's queue)
	Start hwdesc.Cycles // cycle its initiation starts: max(Issue, resource free)
	Ready hwdesc.Cycles // cycle its results are ready: Start + Init + Lat (Lat includes the pipeline overhead)
}

// Step advances s over one instruction of the warp, in isolation, and
// returns its timing:
//
//	Issue = max(s.Next, RegReady[r] for r in Uses ∪ Defs)   // RAW and WAW scoreboard
//	Start = max(Issue, UnitFree[r])                            // FIFO of the resource r = op.Resource()
//	UnitFree[r] = Start + Init
//	RegReady[d] = Ready = Start + Init + Lat, for every d in Defs
//	Next = Issue + 1                                           // one issue per cycle
//
// An Op that issues nothing (ret, exit, bar.sync by default) leaves s
// unchanged and gets Issue = Start = s.Next, Ready = s.End. The control
// hazard after a branch is not part of Step: it belongs to the edge to the
// next instruction (WaitAfter). Step needs no engine once the Op is
// prepared.
func Step(s *State, op *Op) Timing {
	if op.Unit == NoUnit {
		return Timing{Issue: s.Next, Start: s.Next, Ready: s.End}
	}
	issue := s.Next
	for _, r := range op.Uses {
		issue = max(issue, s.reg(r))
	}
	for _, r := range op.Defs {
		issue = max(issue, s.reg(r))
	}
	r := op.Resource()
	start := max(issue, s.unit(r))
	free := start + op.Init
	ready := free + op.Lat
	s.setUnit(r, free)
	for _, r := range op.Defs {
		s.setReg(r, ready)
	}
	s.Next = issue + 1
	s.End = max(s.End, ready)
	return Timing{Issue: issue, Start: start, Ready: ready}
}

// StepInstr prepares in and steps s over it.
func (e *Engine) StepInstr(fset *token.FileSet, s *State, in *isa.Instr) (Timing, error) {
	op, err := e.Prepare(fset, in)
	if err != nil {
		return Timing{}, err
	}
	return Step(s, &op), nil
}
