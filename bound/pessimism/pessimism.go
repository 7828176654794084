// Package pessimism says where a bound's cycles come from (docs/report.md,
// "Pessimism split"). It splits a bound two ways:
//
//   - as a sum: per barrier section, the section's bound times the number
//     of times the worst barrier path crosses it, each section bound being
//     the length of the charged isolated path of its worst class plus the
//     interference charged to it, by resource (bound.Charge). Isolated +
//     interference (+ an unattributed residual when the barrier path is
//     not a whole number of section crossings) is the bound;
//   - by what the bound owes to an approximation or an assumption:
//     control approximations (a branch of unknown outcome taken both
//     ways: a divergent one run side after side, a uniform one whose
//     sides are both paths; resolved, every warp takes its cheaper side), an annotated
//     rather than derived loop bound, a barrier path summarised by its
//     cycle mean), data approximations (latencies assumed at their
//     maximum, unknown addresses: none in the reference model, whose
//     latencies are the description's fixed values) and the stated
//     assumptions of the hardware description's [pipeline] table. Each
//     item's cycles are the drop of the bound when that one is resolved in
//     the most favourable way and everything else is kept — the
//     counterfactual analysis reruns the static analysis on the same graph
//     (bound/static Report.Rerun). These parts overlap the sum and each
//     other; a category's total is the drop when all its items are
//     resolved at once.
//
// Counterfactual bounds are never bounds of the kernel: they measure.
package pessimism

import (
	"fmt"
	"go/token"
	"sort"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/assume"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
	"github.com/gpuwcet/gpuwcet/divergence"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// Split is the pessimism split of one kernel's bound (JSON member
// "pessimism" of a kernel in the analyze report and of gpuwcet bound's
// JSON).
type Split struct {
	BoundCycles int64 `json:"bound_cycles"`
	// IsolatedCycles + InterferenceCycles + UnattributedCycles =
	// BoundCycles.
	IsolatedCycles     int64      `json:"isolated_path_cycles"`
	InterferenceCycles int64      `json:"interference_cycles"`
	ByResource         []Resource `json:"interference_by_resource"`
	// UnattributedCycles is the bound minus the counted sections: a
	// barrier path summarised by its cycle mean, or crossings counted as
	// maxima of different worst paths (negative then).
	UnattributedCycles int64     `json:"unattributed_cycles"`
	Sections           []Section `json:"sections"`

	Control     Category `json:"control"`
	Data        Category `json:"data"`
	Assumptions Category `json:"assumptions"`
	// ApproximationFree: no control or data approximation (the
	// assumptions remain).
	ApproximationFree bool `json:"approximation_free"`
	// ExactCycles, when set (gpuwcet bound on a block small enough), is
	// the exact worst case, reported instead of BoundCycles: the closed
	// form's own pessimism is BoundCycles − ExactCycles.
	ExactCycles *int64 `json:"exact_cycles,omitempty"`
}

// Resource is the interference charged for one resource (hwdesc group),
// or "whole path" where the coarser charge Σ L was the smaller.
type Resource struct {
	Resource string `json:"resource"`
	Cycles   int64  `json:"cycles"`
}

// Section is one barrier section's part of the sum.
type Section struct {
	From  string `json:"from"` // "entry" or a barrier's position
	To    string `json:"to"`   // "end" or a barrier's position
	Count int64  `json:"count_on_worst_path"`
	// BoundCycles, IsolatedCycles, InterferenceCycles and ByResource are
	// for one crossing (the kernel's parts are Count times these).
	BoundCycles        int64      `json:"bound_cycles"`
	IsolatedCycles     int64      `json:"isolated_path_cycles"`
	InterferenceCycles int64      `json:"interference_cycles"`
	ByResource         []Resource `json:"interference_by_resource"`
}

// Category is the cycles the bound owes to one kind of approximation or
// assumption, and its items.
type Category struct {
	// Cycles is the drop of the bound when every item is resolved at
	// once (0 without items).
	Cycles int64  `json:"cycles"`
	Items  []Item `json:"items"`
	// Note says what the category holds or why it is empty.
	Note string `json:"note,omitempty"`
	// Assumptions are the ledger IDs (cfg/assume, docs/assumptions.md)
	// the category's cycles are owed to: the stated assumptions'
	// A-PIPELINE; the data approximations' fixed latencies (A-UNIT-TIMINGS,
	// A-MEM-FIXED-LATENCY), which the reference model assumes rather than
	// approximates.
	Assumptions []string `json:"assumptions,omitempty"`
}

// Item kinds.
const (
	KindDivergent      = "divergent-branch"     // lanes may disagree: both sides run in turn
	KindUnknownBranch  = "unknown-branch"       // uniform, outcome unknown: both sides are paths
	KindAnnotatedLoop  = "annotated-loop-bound" // from the facts file
	KindBarrierSummary = "barrier-path-summary" // cycle-mean bound of a barrier loop
	KindPipeline       = "pipeline"             // a [pipeline] option of the description
)

// Item is one approximation or assumption and the cycles the bound owes to
// it: the bound minus the bound with it resolved favourably (-1: not
// quantified, past MaxItems).
type Item struct {
	Kind string `json:"kind"`
	// Pos is where the approximation is (a branch, a loop header); Name
	// names an item without position (a [pipeline] option).
	Pos    string `json:"pos,omitempty"`
	Name   string `json:"name,omitempty"`
	What   string `json:"what"`
	Cycles int64  `json:"cycles"`
	// Assumptions are the ledger IDs the item rests on, when they are not
	// its category's (an annotated loop bound: A-LOOP-ANNOTATED).
	Assumptions []string `json:"assumptions,omitempty"`
}

// Env is what the counterfactual analyses need besides the report: the
// launch, the value graph and options the divergence pass used.
type Env struct {
	Launch     pass.Launch
	Values     *values.Func       // the divergence pass's input (nil: rebuilt)
	DivOptions divergence.Options // the divergence pass's options
}

// Static splits the bound of a static report.
func Static(rep *static.Report, env Env) (*Split, error) {
	fset := rep.Graph.Fset
	s := &Split{BoundCycles: int64(rep.Bound)}
	byRes := map[string]int64{}
	for _, seg := range rep.Segments {
		sec := Section{From: endpoint(fset, seg.From, "entry"), To: endpoint(fset, seg.To, "end"), Count: seg.Count, BoundCycles: int64(seg.Bound)}
		if c := worst(seg); c != nil {
			sec.IsolatedCycles = int64(c.Path)
			sec.InterferenceCycles = int64(c.Interference)
			sec.ByResource = resources(c.Charge, rep.HW)
		}
		n := max(seg.Count, 0)
		s.IsolatedCycles += n * sec.IsolatedCycles
		s.InterferenceCycles += n * sec.InterferenceCycles
		for _, r := range sec.ByResource {
			byRes[r.Resource] += n * r.Cycles
		}
		s.Sections = append(s.Sections, sec)
	}
	s.ByResource = sortedResources(byRes)
	s.UnattributedCycles = s.BoundCycles - s.IsolatedCycles - s.InterferenceCycles

	b := rep.Bound
	budget := rerunBudget(rep)
	// drop runs one counterfactual analysis within the budget and returns
	// how much lower its bound is (-1: over the budget, or it failed).
	drop := func(run func() (*static.Report, error)) int64 {
		if budget <= 0 {
			return -1
		}
		budget--
		r, err := run()
		if err != nil || r == nil {
			return -1
		}
		return int64(b - r.Bound)
	}

	// Assumptions first (the category, then its items): the description's
	// [pipeline] options.
	var branches, barriers bool
	for _, bl := range rep.Graph.Blocks {
		for _, in := range bl.Instrs {
			// The instructions phases.Engine.Prepare gives a branch wait.
			branches = branches || in.Kind == isa.KindBranch || in.Kind == isa.KindIndirectBranch
			barriers = barriers || phases.IsSync(in)
		}
	}
	s.Assumptions = assumptions(rep.HW, func(name string) bool {
		switch name {
		case "branch_wait":
			return branches
		case "barrier_issues":
			return barriers
		}
		return true
	}, func(hw *hwdesc.Desc) int64 {
		return drop(func() (*static.Report, error) { return rep.Rerun(hw, nil, nil) })
	})

	// Control: branches of unknown outcome (divergent or uniform), not
	// those that close or leave a loop.
	info := rep.Info
	type choice struct {
		br *divergence.Branch
		o  divergence.Outcome
	}
	var favourable []choice
	var quantified []int64 // the drop of each resolved item, in order
	for _, br := range info.Branches {
		allUnknown := !br.Divergent
		anyDivergent := false
		for _, o := range br.Outcomes {
			allUnknown = allUnknown && o == divergence.Unknown
			anyDivergent = anyDivergent || o == divergence.Divergent
		}
		if !anyDivergent && !(allUnknown && len(br.Outcomes) > 0) || controlsLoop(br) {
			continue
		}
		it := Item{Kind: KindUnknownBranch, Pos: posStr(fset, br.Instr.Pos), What: fmt.Sprintf("%q: uniform, outcome unknown: both sides are paths", br.Instr.Text), Cycles: -1}
		if anyDivergent {
			it.Kind = KindDivergent
			it.What = fmt.Sprintf("%q: lanes may disagree, both sides run in turn (%s)", br.Instr.Text, br.Reason)
		}
		if budget >= 2 {
			// The most favourable known outcome: one side for every warp.
			best, bestO := int64(-1), divergence.Unknown
			for _, o := range []divergence.Outcome{divergence.Taken, divergence.NotTaken} {
				res := map[*divergence.Branch]divergence.Outcome{br: o}
				d := drop(func() (*static.Report, error) { return rerunBranches(rep, env, res) })
				if d > best {
					best, bestO = d, o
				}
			}
			it.Cycles = best
			if best >= 0 {
				favourable = append(favourable, choice{br, bestO})
				quantified = append(quantified, best)
			}
		}
		s.Control.Items = append(s.Control.Items, it)
	}
	// Control: annotated loop bounds.
	var annotated []*loops.LoopBound
	for _, lb := range rep.Loops.Loops {
		if lb.Bound != nil && lb.Bound.Source == loops.Annotated {
			it := Item{Kind: KindAnnotatedLoop, Pos: lb.Pos.String(), What: fmt.Sprintf("loop %s: annotated bound %d (%s)", lb.Key, lb.Bound.Max, lb.Bound.Why), Cycles: -1,
				Assumptions: []string{assume.LoopAnnotated}}
			lr := rep.Loops.WithMax(lb, 1)
			if it.Cycles = drop(func() (*static.Report, error) { return rep.Rerun(nil, nil, lr) }); it.Cycles >= 0 {
				annotated = append(annotated, lb)
				quantified = append(quantified, it.Cycles)
			}
			s.Control.Items = append(s.Control.Items, it)
		}
	}
	// Control: a barrier path not a whole number of crossings.
	if !rep.CountsExact {
		s.Control.Items = append(s.Control.Items, Item{Kind: KindBarrierSummary, Name: "barrier path", What: "a loop through barriers summarised by its cycle mean (or worst paths tied): the crossings counted are maxima", Cycles: max(s.UnattributedCycles, 0)})
	}
	if len(s.Control.Items) > 0 {
		// The category: every quantified item resolved at once (one more
		// analysis; the budget keeps one for it).
		budget++
		res := map[*divergence.Branch]divergence.Outcome{}
		for _, c := range favourable {
			res[c.br] = c.o
		}
		lr := rep.Loops
		for _, lb := range annotated {
			lr = lr.WithMax(findLoop(lr, lb), 1)
		}
		switch {
		case len(res)+len(annotated) == 1 && len(quantified) == 1:
			// One item resolved: the category is that item's analysis.
			s.Control.Cycles = quantified[0]
		case len(res) > 0 || len(annotated) > 0:
			s.Control.Cycles = drop(func() (*static.Report, error) {
				if len(res) == 0 {
					return rep.Rerun(nil, nil, lr)
				}
				info2, err := analyzeDivergence(rep, env, res)
				if err != nil {
					return nil, err
				}
				return rep.Rerun(nil, info2, lr)
			})
		}
		if !rep.CountsExact {
			s.Control.Cycles = max(s.Control.Cycles, 0) + max(s.UnattributedCycles, 0)
		}
		s.Control.Note = "the drop of the bound with every quantified item resolved at once (items not quantified: over the budget of counterfactual analyses)"
	} else {
		s.Control.Note = "none: every branch resolved or uniform with a known outcome, every loop bound derived, every barrier crossing counted"
	}

	// Data approximations: none in the reference model.
	s.Data.Note = "none in the reference model: every latency is the hardware description's fixed value (an assumption of the description), no address enters the timing"
	s.Data.Assumptions = []string{assume.UnitTimings, assume.MemFixedLatency}
	s.ApproximationFree = len(s.Control.Items) == 0
	return s, nil
}

// MaxReruns is the most counterfactual analyses per kernel (each costs
// about one analysis of the kernel); RerunInstrs scales it down for large
// kernels: at most RerunInstrs instructions analysed again in all, at
// least one analysis. Items past the budget are listed with Cycles -1.
const (
	MaxReruns   = 32
	RerunInstrs = 50000
)

// rerunBudget is the number of counterfactual analyses of a kernel.
func rerunBudget(rep *static.Report) int {
	n := 0
	for _, bl := range rep.Graph.Blocks {
		n += len(bl.Instrs)
	}
	return min(MaxReruns, max(1, RerunInstrs/max(n, 1)))
}

// FixedPath splits a bound of package bound (one known path per warp):
// no control approximation (the paths are given), no data approximation;
// the assumptions are measured by recomputing the bound under another
// description (recompute).
func FixedPath(r *bound.Result, recompute func(hw *hwdesc.Desc) (*bound.Result, error)) *Split {
	s := &Split{BoundCycles: int64(r.Bound)}
	byRes := map[string]int64{}
	for _, sec := range r.Sections {
		ps := Section{Count: 1, BoundCycles: int64(sec.Bound), From: fmt.Sprint(sec.Index), To: fmt.Sprint(sec.Index + 1)}
		var w *bound.Warp
		for _, c := range sec.Classes {
			if w == nil || c.WUB > w.WUB {
				w = c
			}
		}
		if w != nil {
			ps.IsolatedCycles, ps.InterferenceCycles = int64(w.Path), int64(w.Interference)
			ps.ByResource = resources(w.Charge, r.HW)
		}
		s.IsolatedCycles += ps.IsolatedCycles
		s.InterferenceCycles += ps.InterferenceCycles
		for _, x := range ps.ByResource {
			byRes[x.Resource] += x.Cycles
		}
		s.Sections = append(s.Sections, ps)
	}
	s.ByResource = sortedResources(byRes)
	s.UnattributedCycles = s.BoundCycles - s.IsolatedCycles - s.InterferenceCycles
	s.Control.Note = "none: the paths are known (a trace or a straight line)"
	s.Data.Note = "none in the reference model: every latency is the hardware description's fixed value (an assumption of the description), no address enters the timing"
	s.Data.Assumptions = []string{assume.UnitTimings, assume.MemFixedLatency}
	s.Assumptions = assumptions(r.HW, func(string) bool { return true }, func(hw *hwdesc.Desc) int64 {
		x, err := recompute(hw)
		if err != nil {
			return -1
		}
		return int64(r.Bound - x.Bound)
	})
	s.ApproximationFree = true
	if r.Exact != nil {
		x := int64(r.Exact.Cycles)
		s.ExactCycles = &x
	}
	return s
}

// assumptions measures the description's [pipeline] options that add
// time: all switched off (the category), then each alone. An option that
// cannot change the kernel's timing (applies false: branch_wait without a
// branch, barrier_issues without a block barrier) is listed with 0 cycles
// without an analysis, and when one option alone applies the category is
// its item: the same analysis.
func assumptions(hw *hwdesc.Desc, applies func(name string) bool, drop func(*hwdesc.Desc) int64) Category {
	var c Category
	p := hw.Pipeline
	type opt struct {
		name, what string
		on         bool
		off        func(*hwdesc.Pipeline)
	}
	opts := []opt{
		{"overhead", fmt.Sprintf("overhead %d cycles on every result", p.Overhead), p.Overhead > 0, func(q *hwdesc.Pipeline) { q.Overhead = 0 }},
		{"branch_wait", fmt.Sprintf("branch_wait %s: the warp waits for a branch's result", p.BranchWait), p.BranchWait != "" && p.BranchWait != hwdesc.BranchWaitNone, func(q *hwdesc.Pipeline) { q.BranchWait = hwdesc.BranchWaitNone }},
		{"ret_issues", "ret_issues: ret and exit issue and end the warp when ready", p.RetIssues, func(q *hwdesc.Pipeline) { q.RetIssues = false }},
		{"barrier_issues", "barrier_issues: bar.sync issues as the last instruction of its section", p.BarrierIssues, func(q *hwdesc.Pipeline) { q.BarrierIssues = false }},
	}
	all := *hw
	var on []opt
	for _, o := range opts {
		if o.on {
			on = append(on, o)
			o.off(&all.Pipeline)
		}
	}
	if len(on) == 0 {
		c.Note = "none: the description's [pipeline] table adds nothing"
		return c
	}
	c.Assumptions = []string{assume.Pipeline}
	n := 0
	for _, o := range on {
		if applies(o.name) {
			n++
		}
	}
	if n > 1 {
		c.Cycles = drop(&all)
	}
	for _, o := range on {
		it := Item{Kind: KindPipeline, Name: o.name, What: "[pipeline] " + o.what}
		if applies(o.name) {
			h := *hw
			o.off(&h.Pipeline)
			it.Cycles = drop(&h)
			if n == 1 {
				c.Cycles = it.Cycles
			}
		}
		c.Items = append(c.Items, it)
	}
	c.Note = "cycles the bound owes to the hardware description's [pipeline] options (measured on the reference traces; docs/hwdesc.md)"
	return c
}

// rerunBranches analyses rep's kernel again with some branches resolved.
func rerunBranches(rep *static.Report, env Env, res map[*divergence.Branch]divergence.Outcome) (*static.Report, error) {
	info, err := analyzeDivergence(rep, env, res)
	if err != nil {
		return nil, err
	}
	return rep.Rerun(nil, info, nil)
}

// analyzeDivergence reruns the divergence pass with branches resolved
// (matched by their instruction).
func analyzeDivergence(rep *static.Report, env Env, res map[*divergence.Branch]divergence.Outcome) (*divergence.Info, error) {
	byInstr := map[any]divergence.Outcome{}
	for br, o := range res {
		byInstr[br.Instr] = o
	}
	o := env.DivOptions
	o.Values = env.Values
	o.Resolve = func(br *divergence.Branch) (divergence.Outcome, bool) {
		x, ok := byInstr[br.Instr]
		return x, ok
	}
	return divergence.Analyze(rep.Graph, env.Launch, o)
}

// controlsLoop reports whether a branch leaves or closes a loop: its
// outcome is the loop's iteration count, which the loop bound governs (an
// annotated bound is its own item), not a branch approximation.
func controlsLoop(br *divergence.Branch) bool {
	for l := br.Block.Loop; l != nil; l = l.Parent {
		for _, e := range l.Exits {
			if e.From == br.Block {
				return true
			}
		}
		for _, x := range l.Latches {
			if x == br.Block {
				return true
			}
		}
	}
	return false
}

func findLoop(lr *loops.Result, lb *loops.LoopBound) *loops.LoopBound {
	for _, x := range lr.Loops {
		if x.Header == lb.Header {
			return x
		}
	}
	return lb
}

// worst returns the class of a segment with the largest WUB.
func worst(seg *static.Segment) *static.SegClass {
	var w *static.SegClass
	for _, c := range seg.Classes {
		if w == nil || c.WUB > w.WUB {
			w = c
		}
	}
	return w
}

// resources returns a charge's interference by resource name; when the
// whole-path charge was the smaller, one "whole path" entry.
func resources(c bound.Charge, hw *hwdesc.Desc) []Resource {
	if c.Interference < c.PerResource {
		return []Resource{{Resource: "whole path", Cycles: int64(c.Interference)}}
	}
	out := []Resource{}
	for _, rc := range c.ByRes {
		out = append(out, Resource{Resource: resName(hw, rc.Res), Cycles: int64(rc.Init + rc.Issue)})
	}
	return out
}

func resName(hw *hwdesc.Desc, r int) string {
	if hw != nil && r >= 0 && r < len(hw.Units) {
		return hw.GroupOf(r)
	}
	return fmt.Sprintf("resource%d", r)
}

func sortedResources(m map[string]int64) []Resource {
	out := []Resource{}
	for k, v := range m {
		out = append(out, Resource{Resource: k, Cycles: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Resource < out[j].Resource })
	return out
}

func posStr(fset *token.FileSet, p token.Pos) string {
	if fset == nil || !p.IsValid() {
		return ""
	}
	return fset.Position(p).String()
}

// endpoint names a section end as the analyze report does (static.NewJSON):
// the barrier's position, or none for the entry or the end.
func endpoint(fset *token.FileSet, in *isa.Instr, none string) string {
	if in == nil {
		return none
	}
	if q := pass.Position(fset, in.Pos); q.IsValid() {
		return q.String()
	}
	return "?"
}
