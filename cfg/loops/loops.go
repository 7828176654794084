package loops

import (
	"errors"
	"fmt"
	"go/token"
	"io"
	"reflect"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/assume"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/release"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// Source says where a bound comes from.
type Source uint8

const (
	Derived   Source = iota + 1 // computed from the instructions by this package
	Annotated                   // given in a facts file
	Release                     // a timer spin loop: release.HeaderBound iterations from its trigger (cfg/release)
	// PersistentItem and Handshake are a persistent kernel's item loop and
	// host-wait loops, named by facts: 2 header executions each, for the
	// per-item bound (docs/facts.md, "Persistent kernels").
	PersistentItem
	Handshake
	// TimerRetry is the retry loop of a split 64-bit timer read (sm_5x,
	// sm_6x): release.RetryBound tries (release.SplitReadOf), under
	// assume.TimerSplitRead.
	TimerRetry
)

// Assumption returns the ledger entry a bound of this source rests on, or
// "" for none.
func (s Source) Assumption() string {
	switch s {
	case Annotated:
		return assume.LoopAnnotated
	case Release:
		return assume.ReleaseTrigger
	case TimerRetry:
		return assume.TimerSplitRead
	}
	return ""
}

// SourceNamed returns the source whose String is name (0 for none).
func SourceNamed(name string) Source {
	for s := Derived; s <= TimerRetry; s++ {
		if s.String() == name {
			return s
		}
	}
	return 0
}

func (s Source) String() string {
	switch s {
	case Derived:
		return "derived"
	case Annotated:
		return "annotated"
	case Release:
		return "release"
	case PersistentItem:
		return "persistent"
	case Handshake:
		return "handshake"
	case TimerRetry:
		return "timer-retry"
	}
	return "source?"
}

// Bound is the bound of one loop: the maximum number of executions of its
// header per entry into the loop from outside, at the launch configuration
// the result was computed for.
type Bound struct {
	Max    int64
	Expr   string // the bound as an expression over launch dimensions and arguments
	Source Source
	Why    string         // how it was derived, or the fact's why
	Pos    token.Position // the loop header (derived) or the fact's max key (annotated)
}

// LoopBound is the outcome for one natural loop.
type LoopBound struct {
	Loop   *cfg.Loop
	Header *cfg.Block
	Key    LoopKey        // how facts files name the loop
	Pos    token.Position // of the header's first instruction

	// Bound is the bound used, nil when the loop is unbounded.
	Bound *Bound
	// Derived is the derived bound even when an annotation overrides it
	// (for review), nil when none was derived.
	Derived *Bound
	// Why tells why the loop is unbounded (Bound == nil), or why no bound
	// was derived.
	Why string
	// Release is the release point the loop is (a timer spin loop), or nil.
	Release *release.Point

	// Callee is the device function the loop belongs to when its header
	// is in an inlined call (the innermost one), nil for the function's
	// own loop. CalleeKey names the loop in that function (the key of a
	// [[kernel]] entry naming the device function: its own label, line
	// or offset), and Calls are the call instructions the copy stands
	// for, outermost first (its context).
	Callee    *isa.Func
	CalleeKey LoopKey
	Calls     []*isa.Instr
}

// Where names the loop for messages: "loop KEY of F", or for a loop of
// an inlined device function "loop KEY of device function F" with its own
// key in that function (Context gives the call chain).
func (lb *LoopBound) Where(fn string) string {
	if lb.Callee == nil {
		return fmt.Sprintf("loop %s of %s", lb.Key, fn)
	}
	return fmt.Sprintf("loop %s of %s", lb.CalleeKey, calleeName(lb.Callee))
}

// Context is the call chain of a loop of an inlined device function,
// "called from F at POS, then POS" (outermost call first), empty for the
// function's own loop.
func (lb *LoopBound) Context(fn string, pos func(token.Pos) token.Position) string {
	if lb.Callee == nil {
		return ""
	}
	var at []string
	for _, c := range lb.Calls {
		at = append(at, pos(c.Pos).String())
	}
	return fmt.Sprintf("called from %s at %s", fn, strings.Join(at, ", then "))
}

// calleeName names a device function.
func calleeName(fn *isa.Func) string {
	return "device function " + fn.Name
}

// LoopKey is how a facts file names a loop: by the first label of its
// header, by the line of the header's first instruction, or (SASS) by the
// offset of that instruction.
type LoopKey struct {
	Label  string
	Line   int
	Offset int64 // -1 when not known (PTX)
}

func (k LoopKey) String() string {
	var parts []string
	if k.Label != "" {
		parts = append(parts, "label "+k.Label)
	}
	if k.Line > 0 {
		parts = append(parts, fmt.Sprintf("line %d", k.Line))
	}
	if k.Offset >= 0 {
		parts = append(parts, fmt.Sprintf("offset %#x", k.Offset))
	}
	return strings.Join(parts, ", ")
}

// Problem categories, also the diagnostic categories of Analyzer.
const (
	CategoryUnbounded   = "unbounded-loop"
	CategoryIrreducible = "irreducible-loop"
	CategoryUnresolved  = "unresolved-indirect-branch"
	CategoryOpenFact    = "open-loop-fact" // max = "?" in the facts file
	CategoryLowFact     = "annotation-below-derived"
	CategoryRelease     = "release-point" // a warning: the loop's wait is the schedule's
)

// Problem is a reason why the kernel is not bounded (or, for
// CategoryLowFact, a warning), at a position.
type Problem struct {
	Pos      token.Position
	Category string
	Message  string // names the position and the template command
	// Context is the call chain of a problem in an inlined device
	// function ("called from F at POS"; several joined by "; " when one
	// loop is unbounded alike in several calls), empty otherwise.
	Context string
	Warning bool // CategoryLowFact and CategoryRelease are warnings
}

// String returns the message, which starts with the position, with its
// call context.
func (p Problem) String() string {
	if p.Context == "" {
		return p.Message
	}
	return p.Message + " (" + p.Context + ")"
}

// Result is the loop bounds of one function (thread-level or warp-level
// graph).
type Result struct {
	Func  *isa.Func
	Loops []*LoopBound // in the order of Graph.Loops
	// Problems lists unbounded loops, irreducible regions, unresolved
	// indirect branches and open facts (errors), and annotations below a
	// derived bound (warnings), by position.
	Problems []Problem

	byBlock map[*cfg.Block]*LoopBound
	byInstr map[*isa.Instr]*LoopBound
}

// Of returns the outcome for the loop headed by b, or nil when b heads no
// loop. b may be a block of another graph of the same function (a copy in
// a warp-level CFG): blocks are matched by their first instruction, which
// copies share.
func (r *Result) Of(b *cfg.Block) *LoopBound {
	if r == nil || b == nil {
		return nil
	}
	if lb := r.byBlock[b]; lb != nil {
		return lb
	}
	if len(b.Instrs) == 0 {
		return nil
	}
	return r.byInstr[b.Instrs[0]]
}

// Max returns the bound of the loop headed by b and whether it is bounded.
func (r *Result) Max(b *cfg.Block) (int64, bool) {
	lb := r.Of(b)
	if lb == nil || lb.Bound == nil {
		return 0, false
	}
	return lb.Bound.Max, true
}

// ByLabel returns the loop whose header has the given label, or nil.
func (r *Result) ByLabel(label string) *LoopBound {
	for _, lb := range r.Loops {
		for _, l := range lb.Header.Labels {
			if l == label {
				return lb
			}
		}
	}
	return nil
}

// ByLine returns the loop whose header's first instruction is on line, or nil.
func (r *Result) ByLine(line int) *LoopBound {
	for _, lb := range r.Loops {
		if lb.Key.Line == line {
			return lb
		}
	}
	return nil
}

// ByOffset returns the loop whose header starts at the SASS offset, or nil.
func (r *Result) ByOffset(off int64) *LoopBound {
	for _, lb := range r.Loops {
		if lb.Key.Offset >= 0 && lb.Key.Offset == off {
			return lb
		}
	}
	return nil
}

// Bounded reports whether every loop is bounded and there is no
// irreducible region, unresolved indirect branch or open fact.
func (r *Result) Bounded() bool {
	for _, p := range r.Problems {
		if !p.Warning {
			return false
		}
	}
	return true
}

// Err returns nil when the function is bounded, and otherwise an
// *UnboundedError listing every problem.
func (r *Result) Err() error {
	var ps []Problem
	for _, p := range r.Problems {
		if !p.Warning {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return &UnboundedError{Func: r.Func.Name, Problems: ps}
}

// UnboundedError says a function is not bounded (exit code 2).
type UnboundedError struct {
	Func     string
	Problems []Problem
}

func (e *UnboundedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is not bounded:", e.Func)
	for _, p := range e.Problems {
		b.WriteString("\n\t" + p.String())
	}
	return b.String()
}

// TemplateHint is the command named by every unbounded-loop message.
func TemplateHint(file string) string { return "gpuwcet facts template " + file }

// Compute bounds the loops of g at the launch configuration launch. facts
// may be nil; when it is not, fileSHA must be the hex SHA-256 of the
// listing g was built from, and facts written for another listing are
// rejected (*ChecksumError).
//
// Errors are bad input: a checksum mismatch, a fact naming no loop, a bound
// expression that cannot be evaluated (a missing --arg, a negative or
// overflowing value). Unbounded loops are not errors: they are listed in
// Result.Problems (see Result.Err).
//
// Compute builds the value graph of g without inlining information (a
// callee's parameters are then unknown, a SASS listing's constant bank
// has no layout): the loops pass uses ComputeValues on the value graph of
// the inlined unit.
func Compute(g *cfg.Graph, launch pass.Launch, facts *Facts, fileSHA string) (*Result, error) {
	if g == nil || g.Func == nil {
		return nil, errors.New("loops: nil graph")
	}
	f, err := values.Build(g, values.Options{})
	if err != nil {
		return nil, err
	}
	return ComputeValues(f, launch, facts, fileSHA)
}

// ComputeValues is Compute on a value graph (values.Build of the graph).
func ComputeValues(f *values.Func, launch pass.Launch, facts *Facts, fileSHA string) (*Result, error) {
	g := f.Graph
	fset := g.Fset
	pos := func(p token.Pos) token.Position { return pass.Position(fset, p) }
	fileName := ""
	if fset != nil && len(g.Blocks) > 0 {
		fileName = pos(g.Func.Pos).Filename
	}
	r := &Result{
		Func:    g.Func,
		byBlock: map[*cfg.Block]*LoopBound{},
		byInstr: map[*isa.Instr]*LoopBound{},
	}
	env := LaunchEnv(launch)
	derivs := Derive(f)
	var errs []error
	evalErr := map[*LoopBound]error{}
	inl := f.Inlined
	memo := newEvalMemo()
	for i, l := range g.Loops {
		lb := &LoopBound{Loop: l, Header: l.Header, Key: keyOf(g, l), Pos: pos(l.Header.Pos())}
		lb.Callee, lb.CalleeKey, lb.Calls = calleeOf(inl, l, lb.Key)
		r.Loops = append(r.Loops, lb)
		r.byBlock[l.Header] = lb
		if len(l.Header.Instrs) > 0 {
			r.byInstr[l.Header.Instrs[0]] = lb
		}
		d := derivs[i]
		if d.Expr == nil {
			lb.Why = d.Why
			releasePoint(lb, f, l, pos)
			continue
		}
		max, note, err := d.evalMemo(env, memo)
		if err != nil {
			// A missing launch value is bad input (exit 1) unless a fact
			// replaces the bound; any other failure leaves the loop
			// unbounded, with the reason.
			var ue *UnknownNameError
			if errors.As(err, &ue) {
				where := fmt.Sprintf("loop %s", lb.Key) // the error names the function
				if c := lb.Context(g.Func.Name, pos); c != "" {
					where = lb.Where(g.Func.Name) + " (" + c + ")"
				}
				evalErr[lb] = fmt.Errorf("%s: %s: derived bound %s: %w", lb.Pos, where, d.Expr, err)
				lb.Why = "the derived bound " + d.Expr.String() + " cannot be evaluated: " + err.Error()
			} else {
				lb.Why = "no bound holds at this launch: " + err.Error()
				releasePoint(lb, f, l, pos)
			}
			continue
		}
		why := d.Why
		if note != "" {
			why = note + "; " + why
		}
		lb.Derived = &Bound{Max: max, Expr: d.Expr.String(), Source: Derived, Why: why, Pos: lb.Pos}
		lb.Bound = lb.Derived
	}
	var factProblems []Problem
	if facts != nil {
		var callees []string
		if inl != nil {
			seen := map[string]bool{}
			for _, c := range inl.Copies {
				if !seen[c.Callee.Name] {
					seen[c.Callee.Name] = true
					callees = append(callees, c.Callee.Name)
				}
			}
		}
		ps, err := facts.apply(r, g, fileSHA, env, callees)
		if err != nil {
			errs = append(errs, err)
		}
		factProblems = ps
	}
	// A derived bound that cannot be evaluated is an error unless a fact
	// replaces it.
	for _, lb := range r.Loops {
		if err := evalErr[lb]; err != nil && (lb.Bound == nil || lb.Bound.Source != Annotated) && !lb.open() {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	hint := TemplateHint(fileName)
	// One diagnostic per loop of the listing and reason: the copies of a
	// device function's loop in several calls that are unbounded for the
	// same reason are one problem, with its calls.
	seen := map[string]int{}
	for _, lb := range r.Loops {
		if lb.Bound != nil || lb.open() {
			continue
		}
		msg := fmt.Sprintf("%s: %s is not bounded: %s; give its bound in a facts file (%s) with --facts", lb.Pos, lb.Where(g.Func.Name), lb.Why, hint)
		ctx := lb.Context(g.Func.Name, pos)
		if k, ok := seen[msg]; ok && ctx != "" && r.Problems[k].Context != "" {
			r.Problems[k].Context += "; " + ctx
			continue
		}
		seen[msg] = len(r.Problems)
		r.Problems = append(r.Problems, Problem{Pos: lb.Pos, Category: CategoryUnbounded, Message: msg, Context: ctx})
	}
	for _, reg := range g.Irreducible {
		p := pos(reg.Entries[0].Pos())
		r.Problems = append(r.Problems, Problem{Pos: p, Category: CategoryIrreducible,
			Message: fmt.Sprintf("%s: irreducible loop of %d blocks entered at %d blocks in %s: no bound can be given for it (restructure the code; %s lists the natural loops)", p, len(reg.Blocks), len(reg.Entries), g.Func.Name, hint)})
	}
	for _, in := range g.Unresolved {
		p := pos(in.Pos)
		r.Problems = append(r.Problems, Problem{Pos: p, Category: CategoryUnresolved,
			Message: fmt.Sprintf("%s: indirect branch %q in %s has no known targets: its control flow, and so its loops, are not known (%s)", p, in.Text, g.Func.Name, hint)})
	}
	for _, lb := range r.Loops {
		if p := lb.Release; p != nil && lb.Bound != nil && lb.Bound.Source == Release {
			r.Problems = append(r.Problems, Problem{Pos: lb.Pos, Category: CategoryRelease, Warning: true,
				Message: fmt.Sprintf("%s: loop %s of %s is a release point: it %s; bounded by %d executions of its header from the trigger: the wait before the trigger is the schedule's and is not in the bound", lb.Pos, lb.Key, g.Func.Name, p, lb.Bound.Max)})
		}
	}
	r.Problems = append(r.Problems, factProblems...)
	sort.SliceStable(r.Problems, func(i, j int) bool { return posLess(r.Problems[i].Pos, r.Problems[j].Pos) })
	return r, nil
}

func posLess(a, b token.Position) bool {
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Column < b.Column
}

// open reports whether the loop's fact is "?" (reported as an open fact).
func (lb *LoopBound) open() bool { return lb.Why == whyOpen }

const whyOpen = `the facts file gives max = "?"`

func keyOf(g *cfg.Graph, l *cfg.Loop) LoopKey {
	k := LoopKey{Label: l.Label(), Offset: -1}
	if len(l.Header.Instrs) > 0 {
		in := l.Header.Instrs[0]
		if g.Fset != nil && in.Pos.IsValid() {
			k.Line = g.Fset.Position(in.Pos).Line
		}
		if in.Offset >= 0 && g.Func != nil && len(g.Func.Instrs) > 0 && g.Func.Instrs[0].Offset >= 0 {
			k.Offset = in.Offset
		}
	}
	return k
}

// Input keys of Analyzer in pass.Inputs.
const (
	// FactsInput: a *Facts (optional).
	FactsInput = "facts"
	// ListingSHAInput: the hex SHA-256 of the listing (a string), required
	// with FactsInput.
	ListingSHAInput = "listing.sha256"
)

// Analyzer computes the loop bounds of each function with Compute, at
// pass.Launch, with the facts in pass.Inputs[FactsInput].
var Analyzer = &pass.Analyzer{
	Name: "loops",
	Doc: `bound the iterations of every loop

The loops pass derives the bound of counted loops (an induction register
stepped by a constant or a launch dimension, compared with a constant, a
kernel argument or a launch dimension) and takes the others from a facts
file (pass.Inputs["facts"], a *loops.Facts, with the listing's SHA-256 in
pass.Inputs["listing.sha256"]). The bound of a loop is the maximum number
of executions of its header per entry into the loop. Unbounded loops,
irreducible regions, unresolved indirect branches and open facts are
reported as errors (unbounded-loop, irreducible-loop,
unresolved-indirect-branch, open-loop-fact); an annotation below a derived
bound as a warning (annotation-below-derived).`,
	Requires:   []*pass.Analyzer{values.Analyzer},
	ResultType: reflect.TypeOf((*Result)(nil)),
	Run:        run,
	Format: func(w io.Writer, result any) error {
		r, ok := result.(*Result)
		if !ok {
			return fmt.Errorf("loops: result of type %T", result)
		}
		return Format(w, r)
	},
}

func run(p *pass.Pass) (any, error) {
	vf := p.ResultOf[values.Analyzer].(*values.Func)
	g := vf.Graph
	var facts *Facts
	sha := ""
	if v, ok := p.Inputs[FactsInput]; ok && v != nil {
		f, ok := v.(*Facts)
		if !ok {
			return nil, fmt.Errorf("loops: input %q has type %T, want *loops.Facts", FactsInput, v)
		}
		facts = f
		sha, _ = p.Inputs[ListingSHAInput].(string)
		// The whole file: a fact for a function that does not exist, or
		// for a device function no kernel calls, bounds nothing.
		if p.File != nil {
			if err := facts.Check(p.File, sha); err != nil {
				return nil, err
			}
		}
	}
	r, err := ComputeValues(vf, p.Launch, facts, sha)
	if err != nil {
		return nil, err
	}
	for _, pr := range r.Problems {
		sev := pass.Error
		if pr.Warning {
			sev = pass.Warning
		}
		// A diagnostic carries its position: the message, which starts
		// with it (for errors and Problem.String), must not repeat it.
		pos, msg := posOf(g, pr.Pos), pr.Message
		if pos.IsValid() {
			msg = strings.TrimPrefix(msg, pr.Pos.String()+": ")
		}
		p.Report(pass.Diagnostic{Pos: pos, Severity: sev, Category: pr.Category, Message: msg, Context: pr.Context})
	}
	return r, nil
}

// posOf finds the token.Pos of a position in g's file set (for
// diagnostics), or NoPos.
func posOf(g *cfg.Graph, p token.Position) token.Pos {
	if g.Fset == nil || !p.IsValid() {
		return token.NoPos
	}
	var found token.Pos
	g.Fset.Iterate(func(f *token.File) bool {
		if f.Name() == p.Filename && p.Line <= f.LineCount() {
			found = f.LineStart(p.Line) + token.Pos(max(p.Column-1, 0))
			return false
		}
		return true
	})
	return found
}

// Format writes a stable text form of the result: one line per loop. The
// problems are not written: the caller reports each once, at its position
// (gpuwcet facts check, on standard error); an unbounded loop's line
// points to its problem rather than repeating the reason.
func Format(w io.Writer, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "loops %s\n", r.Func.Name)
	for _, lb := range r.Loops {
		fmt.Fprintf(&b, "  %s depth %d [%s]: ", lb.Header, lb.Loop.Depth, lb.Key)
		if lb.Callee != nil {
			fmt.Fprintf(&b, "(%s, its %s) ", calleeName(lb.Callee), lb.CalleeKey)
		}
		if lb.Bound == nil {
			if r.reported(lb) {
				// Its reason is in its problem: said once.
				fmt.Fprintf(&b, "unbounded (the error at %s)\n", lb.Pos)
			} else {
				fmt.Fprintf(&b, "unbounded: %s\n", lb.Why)
			}
			continue
		}
		fmt.Fprintf(&b, "max %d = %s (%s", lb.Bound.Max, lb.Bound.Expr, lb.Bound.Source)
		if lb.Bound.Why != "" {
			fmt.Fprintf(&b, ": %s", lb.Bound.Why)
		}
		b.WriteString(")\n")
		if lb.Bound.Source == Annotated && lb.Derived != nil {
			fmt.Fprintf(&b, "    derived: max %d = %s\n", lb.Derived.Max, lb.Derived.Expr)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// reported reports whether an unbounded-loop problem at lb's position
// gives lb's reason.
func (r *Result) reported(lb *LoopBound) bool {
	for _, p := range r.Problems {
		if p.Category == CategoryUnbounded && p.Pos == lb.Pos && strings.Contains(p.Message, lb.Why) {
			return true
		}
	}
	return false
}

// releasePoint bounds a loop without derived bound that is a release point
// (cfg/release): release.HeaderBound executions of its header from the
// trigger. A timer loop that is not one keeps no bound, and its Why says
// why it is not a release point.
//
// The retry loop of a split timer read (release.SplitReadOf) is bounded by
// release.RetryBound tries (source TimerRetry).
func releasePoint(lb *LoopBound, f *values.Func, l *cfg.Loop, pos func(token.Pos) token.Position) {
	if s, _ := release.SplitReadOf(f, l); s != nil {
		lb.Derived = &Bound{Max: release.RetryBound, Expr: fmt.Sprint(release.RetryBound), Source: TimerRetry,
			Why: "split timer read: " + s.String(), Pos: pos(l.Header.Pos())}
		lb.Bound = lb.Derived
		return
	}
	p, why := release.OfValues(f, l)
	if p == nil {
		if why != "" {
			lb.Why += "; it reads a timer but is not a release point: " + why
		}
		return
	}
	lb.Release = p
	lb.Derived = &Bound{Max: release.HeaderBound, Expr: fmt.Sprint(release.HeaderBound), Source: Release,
		Why: "release point: " + p.String(), Pos: pos(l.Header.Pos())}
	lb.Bound = lb.Derived
}
