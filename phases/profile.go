package phases

import (
	"fmt"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Kind is the kind of a phase.
type Kind uint8

const (
	Exec Kind = iota + 1 // at least one instruction of the warp is in initiation
	Idle                 // no initiation: the warp waits for results
)

func (k Kind) String() string {
	switch k {
	case Exec:
		return "exec"
	case Idle:
		return "idle"
	}
	return "kind?"
}

// MarshalText makes Kind print as "exec" or "idle" in JSON.
func (k Kind) MarshalText() ([]byte, error) {
	if k != Exec && k != Idle {
		return nil, fmt.Errorf("phases: invalid phase kind %d", k)
	}
	return []byte(k.String()), nil
}

// Phase is one phase of a warp's isolated execution of a section, in cycles
// from the start of the section.
type Phase struct {
	Kind  Kind          `json:"kind"`
	Start hwdesc.Cycles `json:"start"`
	Dur   hwdesc.Cycles `json:"dur"`
}

// End returns Start + Dur.
func (p Phase) End() hwdesc.Cycles { return p.Start + p.Dur }

// Builder turns the timings of a warp's instructions, in program order, into
// phases: an exec phase is a maximal interval covered by the union of the
// initiation intervals [Start, Start+Init); idle phases are the gaps, and the
// last idle phase runs to the last result. Its counters (Issued, InitSum)
// feed the block bound.
//
// Add must receive the timings Step produced, in order; the union is then
// built incrementally because an instruction that opens a new exec phase
// starts at its issue cycle, after every earlier issue, and every later
// instruction issues after it.
type Builder struct {
	phases  []Phase
	open    bool          // an exec phase is open
	phStart hwdesc.Cycles // start of the open exec phase
	phEnd   hwdesc.Cycles // end of the open (or last) exec phase
	end     hwdesc.Cycles // latest ready so far

	Exec    hwdesc.Cycles // total exec duration of the closed phases (final after Finish)
	Issued  int           // instructions that issued
	InitSum hwdesc.Cycles // sum of the initiation intervals
	MaxInit hwdesc.Cycles // largest initiation interval
	Loads   []Load        // per resource (Op.Resource), as long as the largest resource seen + 1
}

// Load is a warp's use of one resource (initiation FIFO, Op.Resource) in
// a section: the instructions it issues there and the sum of their
// initiation intervals. The block bound charges per resource
// (docs/model.md, "The bound and its proof").
type Load struct {
	Issued  int64         `json:"issued"`
	InitSum hwdesc.Cycles `json:"init_sum"`
}

// AddLoad adds one instruction with initiation interval init on resource
// res to loads (indexed by resource), growing it as needed.
func AddLoad(loads []Load, res int, init hwdesc.Cycles) []Load {
	for len(loads) <= res {
		loads = append(loads, Load{})
	}
	loads[res].Issued++
	loads[res].InitSum += init
	return loads
}

// Add records one issued instruction with initiation interval init on
// resource res.
func (b *Builder) Add(t Timing, init hwdesc.Cycles, res int) {
	b.Issued++
	b.InitSum += init
	b.Loads = AddLoad(b.Loads, res, init)
	b.MaxInit = max(b.MaxInit, init)
	b.end = max(b.end, t.Ready)
	s, e := t.Start, t.Start+init
	switch {
	case !b.open:
		if s > b.phEnd {
			b.phases = append(b.phases, Phase{Kind: Idle, Start: b.phEnd, Dur: s - b.phEnd})
		}
		b.open, b.phStart, b.phEnd = true, s, e
	case s <= b.phEnd:
		b.phEnd = max(b.phEnd, e)
	default:
		b.closeExec()
		b.phases = append(b.phases, Phase{Kind: Idle, Start: b.phEnd, Dur: s - b.phEnd})
		b.open, b.phStart, b.phEnd = true, s, e
	}
}

func (b *Builder) closeExec() {
	if b.open {
		b.phases = append(b.phases, Phase{Kind: Exec, Start: b.phStart, Dur: b.phEnd - b.phStart})
		b.Exec += b.phEnd - b.phStart
		b.open = false
	}
}

// Finish closes the last exec phase, adds the final idle phase up to end
// (the later of end and the last ready seen), and returns the phases and the
// duration.
func (b *Builder) Finish(end hwdesc.Cycles) ([]Phase, hwdesc.Cycles) {
	b.closeExec()
	end = max(end, b.end, b.phEnd)
	if end > b.phEnd {
		b.phases = append(b.phases, Phase{Kind: Idle, Start: b.phEnd, Dur: end - b.phEnd})
	}
	return b.phases, end
}

// InstrTiming is the timing of one instruction of a path (for --explain).
type InstrTiming struct {
	Instr *isa.Instr
	Index int // position in the warp's path
	Unit  int // NoUnit when the instruction issues nothing
	Timing
}

// Section is a warp's isolated execution of one barrier section: the
// instructions between two block-wide barriers (or the start/end of the
// path). Times are relative to the section's start, with every unit free and
// every register ready at cycle 0.
type Section struct {
	Index    int           `json:"index"`
	Duration hwdesc.Cycles `json:"duration"` // last result ready (0 for an empty section)
	Exec     hwdesc.Cycles `json:"exec"`     // sum of the exec phases
	Issued   int           `json:"issued"`   // instructions issued
	InitSum  hwdesc.Cycles `json:"init_sum"` // sum of their initiation intervals
	MaxInit  hwdesc.Cycles `json:"max_init"` // largest of their initiation intervals
	// Loads are Issued and InitSum per resource, indexed by resource
	// (Op.Resource: the first unit of the hwdesc group); resources past
	// the end are unused. They sum to Issued and InitSum.
	Loads  []Load  `json:"-"`
	Phases []Phase `json:"phases"`

	// Barrier is the barrier that ends the section, nil for the last one.
	Barrier *isa.Instr `json:"-"`

	// Chains cover the paths of the section's dependence graph by the
	// resources they initiate on (Chain); the longest Len is Duration.
	// Empty when the section issues nothing.
	Chains []Chain `json:"-"`

	// Timings holds per-instruction timings when the profile was built
	// with Explain.
	Timings []InstrTiming `json:"-"`
}

// Class is a set of warps that follow the same path (up to timing: the same
// opcodes and registers in the same order), analysed once.
type Class struct {
	Warps    []int         // warp numbers, ascending; the multiplicity is len(Warps)
	Instrs   int           // length of the path, non-issuing instructions included
	Duration hwdesc.Cycles // sum of the section durations
	Exec     hwdesc.Cycles // sum of the section exec totals
	Sections []*Section
}

// Profile is the result of the phases pass: the isolated execution of every
// warp of the block, by class of identical warps.
type Profile struct {
	Func     string
	HW       *hwdesc.Desc
	NumWarps int
	// Classes are in order of their first warp.
	Classes []*Class
	// NumSections is the number of barrier sections (the same for every
	// warp: a block whose warps reach different numbers of barriers is
	// rejected).
	NumSections int
	// Source says where the paths come from: "trace", "straight-line".
	Source string
	// Explain is set when per-instruction timings were kept.
	Explain bool
}

// BuildClass runs the engine over one path, splitting it at block-wide
// barriers, and returns the class (without warps). With explain, every
// section keeps its per-instruction timings. A branch's control hazard
// (Op.WaitsAfter) applies on the edge to the next instruction, taken when
// Redirects says so (Instr.Index not consecutive); BuildClassPath takes the
// edges' outcomes explicitly.
func BuildClass(e *Engine, path []Op, explain bool) *Class {
	return buildClass(e, len(path), func(i int) *Op { return &path[i] }, nil, explain)
}

// BuildClassOps is BuildClass over shared prepared instructions (a path that
// repeats instructions, like a loop trace, needs one Op per distinct
// instruction only).
func BuildClassOps(e *Engine, path []*Op, explain bool) *Class {
	return buildClass(e, len(path), func(i int) *Op { return path[i] }, nil, explain)
}

// BuildClassPath is BuildClassOps with the outcome of every edge of the
// path: redirect[i] reports whether the edge from path[i] to path[i+1]
// leaves the fall-through (PathRedirects). nil means Redirects.
func BuildClassPath(e *Engine, path []*Op, redirect []bool, explain bool) *Class {
	return buildClass(e, len(path), func(i int) *Op { return path[i] }, redirect, explain)
}

// PathRedirects returns, for a known path of fn (a trace), whether each
// edge path[i] -> path[i+1] redirects the warp: the next instruction is not
// the fall-through of path[i] (Index not consecutive), or it carries a
// label path[i] branches to. The second test matters for traces, whose
// Func.Instrs hold only the executed instructions, so that a branch and its
// target may have consecutive indices; a branch to its own fall-through
// counts as taken (never optimistic: waiting is only later).
func PathRedirects(fn *isa.Func, path []*isa.Instr) []bool {
	r := make([]bool, max(len(path)-1, 0))
	for i := range r {
		r[i] = EdgeRedirects(fn, path[i], path[i+1])
	}
	return r
}

// EdgeRedirects is PathRedirects for the one edge in -> next of fn (nil:
// unknown, only Redirects applies).
func EdgeRedirects(fn *isa.Func, in, next *isa.Instr) bool {
	if Redirects(in, next) {
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

func buildClass(e *Engine, n int, at func(int) *Op, redirect []bool, explain bool) *Class {
	c := &Class{Instrs: n}
	// The issued instructions of each section, for its chains.
	var secOps [][]*Op
	var cur []*Op
	for i := 0; i < n; i++ {
		op := at(i)
		if op.Unit != NoUnit {
			cur = append(cur, op)
		}
		if op.Sync {
			secOps, cur = append(secOps, cur), nil
		}
	}
	secOps = append(secOps, cur)
	st := e.NewState()
	var b Builder
	cb := newChainBuilder(secOps[0])
	sec := &Section{}
	flush := func(barrier *isa.Instr) {
		ph, dur := b.Finish(st.End)
		sec.Phases, sec.Duration, sec.Exec = ph, dur, b.Exec
		sec.Issued, sec.InitSum, sec.MaxInit, sec.Loads = b.Issued, b.InitSum, b.MaxInit, b.Loads
		sec.Barrier = barrier
		sec.Index = len(c.Sections)
		sec.Chains = cb.chains()
		c.Sections = append(c.Sections, sec)
		c.Duration += dur
		c.Exec += b.Exec
		sec = &Section{}
		b = Builder{}
		st = e.NewState()
		if len(c.Sections) < len(secOps) {
			cb = newChainBuilder(secOps[len(c.Sections)])
		}
	}
	for i := 0; i < n; i++ {
		op := at(i)
		if op.Sync && op.Unit == NoUnit {
			if explain {
				sec.Timings = append(sec.Timings, InstrTiming{Instr: op.Instr, Index: i, Unit: NoUnit, Timing: Timing{Issue: st.Next, Start: st.Next, Ready: st.End}})
			}
			flush(op.Instr)
			continue
		}
		t := Step(st, op)
		if op.Unit != NoUnit {
			b.Add(t, op.Init, op.Resource())
			cb.step(op)
		}
		if explain {
			sec.Timings = append(sec.Timings, InstrTiming{Instr: op.Instr, Index: i, Unit: op.Unit, Timing: t})
		}
		if op.Sync {
			// An issuing barrier (Pipeline.BarrierIssues) is the last
			// instruction of the section it ends.
			flush(op.Instr)
			continue
		}
		if i+1 < n && (op.WaitTaken || op.WaitFallThrough) {
			var taken bool
			if redirect != nil {
				taken = redirect[i]
			} else {
				taken = Redirects(op.Instr, at(i+1).Instr)
			}
			WaitAfter(st, op, t, taken)
			if op.WaitsAfter(taken) && op.Unit != NoUnit {
				cb.wait()
			}
		}
	}
	flush(nil)
	return c
}
