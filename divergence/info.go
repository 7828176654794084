package divergence

import (
	"fmt"
	"go/token"
	"io"
	"reflect"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// Outcome is what one branch does for the warps of a class.
type Outcome uint8

const (
	// Unknown: the condition is warp-uniform but its value is not known
	// statically; the whole warp takes one side or the other (an ordinary
	// CFG choice).
	Unknown Outcome = iota
	// Taken: every lane of the warp takes the branch (for a guarded ret or
	// exit: every lane leaves).
	Taken
	// NotTaken: no lane takes the branch.
	NotTaken
	// Divergent: the lanes may disagree; both sides run, one after the
	// other, under complementary masks, until reconvergence.
	Divergent
)

var outcomeNames = [...]string{Unknown: "uniform-unknown", Taken: "always-taken", NotTaken: "never-taken", Divergent: "divergent"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "outcome?"
}

// Branch is one conditional control transfer of the thread-level CFG: a
// guarded branch (bra, SASS @P BRA, guarded SYNC/BRK), an indirect branch
// (brx.idx, BRX, JMX), or a guarded ret/exit.
type Branch struct {
	Block *cfg.Block // thread-level block the branch ends
	Instr *isa.Instr

	// Divergent reports that the condition (guard predicate, or index of an
	// indirect branch) may differ between the lanes of a warp. It is false
	// only when the condition is provably warp-uniform.
	Divergent bool
	// Reason explains the classification: the chain of registers from a
	// thread-varying source to the condition, with lines.
	Reason string
	// Uni records a PTX .uni assertion. It is recorded, not trusted: a
	// .uni branch whose condition is thread-dependent stays Divergent.
	Uni bool
	// Exit is set for a guarded ret or exit: lanes that leave never come
	// back, so the warp-level CFG keeps both edges as alternatives.
	Exit bool
	// Trap is set when the lanes on one side of the branch can only trap
	// (PTX trap, SASS BPT.TRAP: ptxas's stack-overflow check of code with a
	// local frame): under assume.NoTrap (a launch in which a thread traps
	// is aborted, and is not bounded) every lane takes the other side, so
	// the branch is uniform and resolved to that side (Outcomes).
	Trap bool

	// Reconv is the reconvergence point in the thread-level CFG: the SSY /
	// BSSY / PBK target for SASS when it post-dominates the branch, else
	// the immediate post-dominator; the virtual exit when there is none.
	Reconv *cfg.Block
	// ReconvFrom says where Reconv comes from: "ipdom", "ssy" (SASS SSY,
	// BSSY or PBK target) or "exit" (no post-dominator: reconvergence at
	// the end of the function).
	ReconvFrom string
	// Loops are the thread-level loops the branch may leave divergently
	// (loops containing the branch but not Reconv), innermost first. Such a
	// loop iterates for its slowest lane.
	Loops []*cfg.Loop
	// Serial is set when more than one side of a divergent branch can come
	// back to the branch before reconverging: on a SIMT stack the lane
	// groups then run their iterations one group after the other, so the
	// iteration count of the loops in Loops is bounded by the sum, not the
	// maximum, over lanes (at most 32 times the per-lane bound).
	Serial bool

	// Outcomes gives the outcome per class, indexed like Info.Classes.
	Outcomes []Outcome
}

// Class is a set of warps with the same outcome on every branch; each class
// is analysed once downstream, on its own warp-level CFG.
type Class struct {
	Index int
	// Warps lists the warp indices in the thread block (warp k holds the
	// linear thread ids 32k..32k+31, x fastest); nil when the launch
	// configuration is unknown (the class stands for all warps).
	Warps []int
	// Lanes is the number of threads of each warp in Warps (32 except for
	// a last, partial warp); nil when the launch configuration is unknown.
	Lanes []int
	Name  string // "warps 0-3", "warp 4", "all warps"

	// Outcomes per branch, indexed like Info.Branches.
	Outcomes []Outcome

	// Graph is the warp-level CFG (cfg.Derive): a divergent branch runs
	// both sides one after the other, in both orders, until
	// reconvergence; resolved branches keep only the edge taken. Every
	// block's Orig is the thread-level block it copies.
	Graph *cfg.Graph
	// Depth gives, per warp-level block, the number of enclosing
	// divergent branches whose sides it runs under (0: the warp's full
	// mask at that point).
	Depth map[*cfg.Block]int
	// Reconv marks warp-level blocks at which a divergent branch
	// reconverges (the frame of the branch was popped on entering them).
	Reconv map[*cfg.Block]bool
	// DivergentLoops are the thread-level loops some divergent branch of
	// this class may leave with only part of the warp (loop bound = max
	// over lanes, or sum over lane groups when SerialLoops says so).
	DivergentLoops []*cfg.Loop
	SerialLoops    map[*cfg.Loop]bool
}

// Info is the result of the divergence pass for one function.
type Info struct {
	Graph  *cfg.Graph // the thread-level CFG
	Launch pass.Launch

	// Branches are the conditional branches in block order.
	Branches []*Branch
	// Classes are the warp classes; at least one.
	Classes []*Class

	// varying holds the registers (and cells) some thread-varying value is
	// written to.
	varying map[string]bool
	byBlock map[*cfg.Block]*Branch
}

// NoTrap reports whether some branch was classified by the premise that
// no thread traps (Branch.Trap; assume.NoTrap).
func (i *Info) NoTrap() bool {
	for _, br := range i.Branches {
		if br.Trap {
			return true
		}
	}
	return false
}

// UsesNoTrap reports whether the divergence result of some function of
// res rests on assume.NoTrap (Info.NoTrap).
func UsesNoTrap(res *pass.Results) bool {
	for _, fn := range res.Funcs {
		if act := res.Get(Analyzer, fn); act != nil && act.Err == nil {
			if info, ok := act.Result.(*Info); ok && info.NoTrap() {
				return true
			}
		}
	}
	return false
}

// IsDivergent reports whether the branch ending thread-level block b may
// diverge (under the uniformity analysis, before per-warp resolution).
func (i *Info) IsDivergent(b *cfg.Block) bool {
	br := i.byBlock[b]
	return br != nil && br.Divergent
}

// Branch returns the branch ending thread-level block b, or nil.
func (i *Info) Branch(b *cfg.Block) *Branch { return i.byBlock[b] }

// Reconverge returns the reconvergence point of the branch ending
// thread-level block b, or nil when b ends no conditional branch.
func (i *Info) Reconverge(b *cfg.Block) *cfg.Block {
	if br := i.byBlock[b]; br != nil {
		return br.Reconv
	}
	return nil
}

// Varying reports whether register reg may hold different values in the
// lanes of a warp (flow-insensitively: anywhere in the function).
func (i *Info) Varying(reg string) bool { return i.varying[reg] }

// VaryingRegs returns the thread-varying registers, sorted.
func (i *Info) VaryingRegs() []string { return sortedKeys(i.varying) }

// Options tune Analyze.
type Options struct {
	// MaxBlocks bounds the blocks a warp-level CFG may have beyond those
	// of the thread-level CFG, that is the copies made by divergent
	// branches (a kernel without divergent branch never reaches it);
	// Analyze fails with a *LimitError past it. Zero means
	// DefaultMaxBlocks.
	MaxBlocks int
	// MaxSides bounds the number of distinct sides of a divergent indirect
	// branch (all orders are enumerated). Zero means 3.
	MaxSides int
	// Values is the value graph of the graph analysed (values.Build);
	// nil: Analyze builds it, with no inlining information (the
	// parameters of an inlined callee are then unknown and varying).
	Values *values.Func
	// Resolve, when set, overrides the analysis for the branches it
	// answers ok: every warp takes outcome o there (Divergent: the lanes
	// may disagree; otherwise the branch is warp-uniform). It serves
	// counterfactual analyses (package bound/pessimism: what the bound
	// owes to a branch the analysis could not resolve), never the bound.
	Resolve func(br *Branch) (o Outcome, ok bool)
	// LoopBound, when set, gives the bound of a thread-level loop (the
	// most executions of its header per entry; false: unbounded). The
	// drain of a divergent loop exit then lets at most as many lane
	// groups wait as the branches reconverging there can execute, instead
	// of lanes-1 (docs/model.md, "Divergence and the warp-level CFG").
	LoopBound func(*cfg.Loop) (int64, bool)
}

// DefaultMaxBlocks is the default bound on the copies of blocks a
// warp-level CFG may add to the thread-level CFG (gpuwcet's
// --max-warp-blocks).
const DefaultMaxBlocks = 20000

// MaxBlocksInput is the pass.Options.Inputs key of Options.MaxBlocks (an
// int) for the divergence pass and the analyses that rebuild its result.
const MaxBlocksInput = "divergence.max-blocks"

// OptionsOf returns the options given in a pass's inputs.
func OptionsOf(inputs map[string]any) Options {
	n, _ := inputs[MaxBlocksInput].(int)
	return Options{MaxBlocks: n}
}

// LimitError reports a warp-level CFG that would exceed Options.MaxBlocks,
// or a divergent branch with more sides than Options.MaxSides (What).
type LimitError struct {
	Func   string
	Class  string
	Limit  int // Options.MaxBlocks
	Thread int // blocks of the thread-level CFG
	// Launch is set when the launch configuration was given (branches
	// were resolved per warp).
	Launch bool
	Pos    token.Position
	What   string // the sides limit; "" for the blocks limit
}

func (e *LimitError) Error() string {
	p := ""
	if e.Pos.IsValid() {
		p = e.Pos.String() + ": "
	}
	if e.What != "" {
		return fmt.Sprintf("%sdivergence: %s: %s: %s", p, e.Func, e.Class, e.What)
	}
	hint := "give the launch configuration (--block, --grid, --arg) so that branches are resolved per warp, or raise the limit"
	if e.Launch {
		hint = "give the kernel's arguments (--arg) if branches depend on them, or raise the limit"
	}
	return fmt.Sprintf("%sdivergence: %s: %s: the warp-level CFG needs more than %d blocks (%d thread-level blocks plus at most %d copied by divergent branches): nested divergent branches and divergent loops multiply the orders in which the SIMT stack can run their sides, and every order is a path of the analysis; %s with --max-warp-blocks (default %d; time and memory grow with it)",
		p, e.Func, e.Class, e.Thread+e.Limit, e.Thread, e.Limit, hint, DefaultMaxBlocks)
}

// RefusedError reports a divergent branch the warp-level CFG cannot model
// soundly: several lane groups that each loop back to the branch before
// reconverging (Branch.Serial). On a SIMT stack each group then runs its
// iterations after the other's, which the warp-level CFG does not
// represent; rather than give an unsafe graph, Analyze refuses.
type RefusedError struct {
	Pos  token.Position
	Func string
	Msg  string
}

func (e *RefusedError) Error() string {
	p := ""
	if e.Pos.IsValid() {
		p = e.Pos.String() + ": "
	}
	return fmt.Sprintf("%sdivergence: %s: %s", p, e.Func, e.Msg)
}

// Category of the diagnostics reported by Analyzer.
const (
	CategoryDivergent = "divergent-branch"
	CategoryUni       = "uni-not-trusted"
)

// Analyzer classifies branches and builds the warp-level CFGs. Its result
// is a *Info.
var Analyzer = &pass.Analyzer{
	Name: "divergence",
	Doc: `classify branches as uniform or divergent and build warp-level CFGs

The divergence pass finds the registers that may differ between the lanes
of a warp (values derived from %tid, %laneid, %lanemask_*, %clock, loads
from thread-dependent addresses or per-thread memory, atomics, shuffles,
votes, unknown opcodes, and values merged after a divergent branch),
classifies every conditional branch as uniform or possibly divergent with
the reason, resolves branches per warp when the launch configuration is
known (thread-index ranges, kernel arguments, launch dimensions), groups
warps with identical outcomes into classes, and builds per class a
warp-level CFG in which a divergent branch runs both sides one after the
other until reconvergence (docs/divergence.md).`,
	Requires:   []*pass.Analyzer{values.Analyzer, loops.Analyzer},
	ResultType: reflect.TypeOf((*Info)(nil)),
	Run:        run,
	Format: func(w io.Writer, result any) error {
		info, ok := result.(*Info)
		if !ok {
			return fmt.Errorf("divergence: result of type %T", result)
		}
		return Format(w, info)
	},
	Check: func(result any) error {
		info, ok := result.(*Info)
		if !ok {
			return fmt.Errorf("divergence: result of type %T", result)
		}
		for _, c := range info.Classes {
			if err := c.Graph.Check(); err != nil {
				return fmt.Errorf("divergence: %s: %w", c.Name, err)
			}
		}
		return nil
	},
}

func run(p *pass.Pass) (any, error) {
	vals, ok := p.ResultOf[values.Analyzer].(*values.Func)
	if !ok {
		return nil, fmt.Errorf("divergence: no values result")
	}
	o := OptionsOf(p.Inputs)
	o.Values = vals
	if lr, ok := p.ResultOf[loops.Analyzer].(*loops.Result); ok {
		o.LoopBound = func(l *cfg.Loop) (int64, bool) { return lr.Max(l.Header) }
	}
	info, err := Analyze(vals.Graph, p.Launch, o)
	if err != nil {
		return nil, err
	}
	for _, br := range info.Branches {
		if br.Uni && br.Divergent {
			p.Reportf(br.Instr.Pos, pass.Warning, CategoryUni,
				"branch asserted .uni but its condition is thread-dependent (not trusted): %s", br.Reason)
		}
	}
	return info, nil
}
