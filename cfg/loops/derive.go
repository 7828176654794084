package loops

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// Loop bounds are derived on the value graph (package values): the
// function in static single assignment form, every integer and predicate
// instruction of PTX and SASS decoded once into generic operations.
//
// For a loop L, each exit test executed in every iteration (a block of L,
// outside inner loops, dominating every latch) gives a candidate bound: its
// branch stays in L while a condition c holds, c a value of the graph. c is
// read as a comparison cmp(x, y) where x evolves as a recurrence of L's
// header iteration k = 0, 1, ... (after LLVM's ScalarEvolution):
//
//	add: x_k = S + k·s (mod 2^w), S and s invariant in L;
//	shr: x_k = S >> (c·k);  shl: x_k = S << (c·k);
//
// and y is invariant. The exit test runs once per header execution, so the
// number of header executions per entry is N = K + 1, K the first k at
// which c fails. K has a closed form per comparison (docs/model.md, Loop
// bounds): for an ordered comparison the distance D = L - S over the step,
// with the condition that the values compared do not wrap before the exit;
// for != the exact solution of S + K·s ≡ L (mod 2^w) (modular inverse of
// the step); for == at most 1. The bound of L is the least candidate bound
// (several exits: the first that fires leaves).
//
// A Derivation is evaluated at a launch: the values of S, s and L are sets
// (values.Num: intervals, known bits) over the launch, kernel arguments
// and launch dimensions known or in their ranges, thread indices over the
// block, refined by the tests every entry into L passes (guards) and, for
// an induction value of an enclosing loop, by that loop's bound. The
// distance is computed on affine forms of S and L (so that a thread index
// in both cancels), each sum checked not to wrap. The cost of a derivation
// does not depend on the numbers: closed forms, no iteration.

// Derivation is the derived bound of one loop, before evaluation.
type Derivation struct {
	Loop *cfg.Loop
	// Expr is the bound as a text over launch values (nil: the loop is not
	// understood).
	Expr *DerivedExpr
	// Why explains the bound (the induction value, its step, the exit
	// test), or why there is none.
	Why string

	cands  []*candidate
	guards []guardFact
	a      *analysis
}

// DerivedExpr is the text of a derived bound.
type DerivedExpr struct{ text string }

func (e *DerivedExpr) String() string { return e.text }

// IsConst returns the bound when it is a constant.
func (e *DerivedExpr) IsConst() (int64, bool) {
	var v int64
	if _, err := fmt.Sscan(e.text, &v); err == nil && fmt.Sprint(v) == e.text {
		return v, true
	}
	return 0, false
}

type recKind uint8

const (
	recAdd recKind = iota + 1
	recShr
	recShl
)

// rec is a value that evolves over the iterations of a loop: x_k = start
// + k·step (add), start >> (shift·k) (shr, signed when arith), start <<
// (shift·k) (shl), at width w. ext, when set, is a zero (ZExt) or sign
// (SExt) extension of that value to a wider type.
type rec struct {
	kind        recKind
	start, step *values.Value
	shift       int
	// div, for recShr: the value is divided by div (>= 3, not a power
	// of two) in every iteration instead of shifted by shift.
	div   uint64
	arith bool
	w     int
	ext   values.Code
}

func (r rec) invariant() bool {
	if r.kind != recAdd {
		return false
	}
	c, ok := r.step.IsConst()
	return ok && c == 0
}

// dom is how a comparison reads its operands.
type dom struct {
	w      int
	signed bool
}

func (d dom) min() int64 {
	if d.signed {
		return -1 << uint(d.w-1)
	}
	return 0
}

func (d dom) max() int64 {
	if d.signed || d.w >= 64 {
		return 1<<uint(min(d.w, 64)-1) - 1
	}
	return 1<<uint(d.w) - 1
}

func (d dom) String() string {
	if d.signed {
		return fmt.Sprintf("s%d", d.w)
	}
	return fmt.Sprintf("u%d", d.w)
}

// candidate is the bound given by one exit test.
type candidate struct {
	at   *isa.Instr // the branch
	cmp  string     // lt le gt ge ne eq: the loop stays while x cmp lim
	d    dom        // the comparison's domain
	iv   rec        // x
	lim  *values.Value
	desc string
	// or, when set, is a disjunction: the loop stays while any of these
	// stays (monotone ordered comparisons): the bound is their largest,
	// provided no induction value wraps around within it (a value that
	// left its comparison must not come back). With entries set, they are
	// the candidates of the loop's ways in instead: the largest, as is.
	or      []*candidate
	entries bool
}

// guardFact is a test every entry into the loop passes: cond == want.
type guardFact struct {
	cond *values.Value
	want bool
	at   *isa.Instr
}

type analysis struct {
	f      *values.Func
	g      *cfg.Graph
	derivs map[*cfg.Loop]*Derivation
	busy   map[*cfg.Loop]bool
	inv    map[invKey]bool
	// entry, when set, is the one way into loop entryLoop the header phis
	// are read along (a loop entered from several places with different
	// values: one candidate per entry). multiEntry records that a header
	// phi of that loop entered with different values.
	entryLoop  *cfg.Loop
	entry      *cfg.Block
	multiEntry bool
	// headed maps a loop header to its loop (evaluation asks per phi).
	headed map[*cfg.Block]*cfg.Loop
	// evaluators counts the evaluators made (the cost of evaluation;
	// TestEvaluationPolynomial).
	evaluators int
	// phisOf lists each loop header's phis (headerPhis).
	phisOf map[*cfg.Block][]*values.Value
}

type invKey struct {
	v *values.Value
	l *cfg.Loop
}

// Derive computes the derivation of every loop of f's graph, in the order
// of its Loops.
func Derive(f *values.Func) []*Derivation {
	a := &analysis{f: f, g: f.Graph, derivs: map[*cfg.Loop]*Derivation{}, busy: map[*cfg.Loop]bool{}, inv: map[invKey]bool{}, headed: map[*cfg.Block]*cfg.Loop{}}
	for _, l := range a.g.Loops {
		a.headed[l.Header] = l // the last of several loops with one header, as a scan in order finds it
	}
	out := make([]*Derivation, len(a.g.Loops))
	for i, l := range a.g.Loops {
		out[i] = a.derive(l)
	}
	return out
}

func (a *analysis) lineOf(in *isa.Instr) string {
	if in == nil || a.g.Fset == nil || !in.Pos.IsValid() {
		return "?"
	}
	return fmt.Sprintf("line %d", a.g.Fset.Position(in.Pos).Line)
}

func (a *analysis) derive(l *cfg.Loop) *Derivation {
	if d := a.derivs[l]; d != nil {
		return d
	}
	d := &Derivation{Loop: l, a: a}
	a.derivs[l] = d
	fail := func(format string, args ...any) *Derivation {
		d.Why = fmt.Sprintf(format, args...)
		return d
	}
	g := a.g
	if len(g.Unresolved) > 0 {
		return fail("the function has an indirect branch without known targets, so its loops are not known")
	}
	for _, r := range g.Irreducible {
		for _, b := range r.Blocks {
			if l.Contains(b) {
				return fail("the loop contains an irreducible region")
			}
		}
	}
	var notes []string
	for _, b := range l.Blocks {
		if b.Loop != l || !b.Reachable {
			continue
		}
		br := b.Last()
		if br == nil {
			continue
		}
		// A SASS "@P0 BRA P1, L" is an indirect branch to L and the next
		// instruction whose condition is both predicates (cond); every
		// other exit test is a guarded branch, exit or return.
		cond := a.f.BranchCond(br)
		if cond == nil && (cfg.FlowKind(br) != isa.KindBranch && br.Kind != isa.KindExit && br.Kind != isa.KindReturn || br.Guard.Reg == "") {
			continue
		}
		if cond != nil && len(b.Succs) != 2 {
			continue
		}
		// Which side stays in the loop? (Succs[0] is the taken side:
		// the label, also of a branch with a condition beyond its guard.)
		var stayTaken, stayFall, leaves bool
		for i, e := range b.Succs {
			in := e.To != g.Exit && l.Contains(e.To)
			if !in {
				leaves = true
			}
			if i == 0 && in {
				stayTaken = true
			}
			if i > 0 && in {
				stayFall = true
			}
		}
		if !leaves || stayTaken == stayFall || cfg.FlowKind(br) != isa.KindBranch && cond == nil && !stayFall {
			continue
		}
		if !a.everyIteration(l, b) {
			notes = append(notes, fmt.Sprintf("the exit test at %s is not executed in every iteration", a.lineOf(br)))
			continue
		}
		var stay *values.Value
		if cond != nil {
			// Taken when cond holds.
			stay = cond
			if !stayTaken {
				stay = a.f.Op(values.Not, 1, cond)
			}
		} else {
			gv := a.f.Guard(br)
			if gv == nil {
				continue
			}
			// Taken when the guard holds (negated: when it does not).
			stay = gv
			if stayTaken == br.Guard.Neg {
				stay = a.f.Op(values.Not, 1, gv)
			}
		}
		a.multiEntry = false
		c, why := a.candidateOf(l, stay, br)
		if c == nil && a.multiEntry {
			c, why = a.perEntry(l, stay, br, why)
		}
		if c == nil {
			notes = append(notes, fmt.Sprintf("the exit test at %s: %s", a.lineOf(br), why))
			continue
		}
		d.cands = append(d.cands, c)
	}
	if len(d.cands) == 0 {
		if len(notes) == 0 {
			return fail("no exit test is executed in every iteration (the loop leaves only from a branch arm, an inner loop, or not at all)")
		}
		return fail("%s", strings.Join(notes, "; "))
	}
	d.guards = a.guards(l)
	var texts, whys []string
	for _, c := range d.cands {
		texts = append(texts, c.text())
		whys = append(whys, c.desc)
	}
	if len(texts) == 1 {
		d.Expr = &DerivedExpr{texts[0]}
	} else {
		d.Expr = &DerivedExpr{"min(" + strings.Join(texts, ", ") + ")"}
	}
	d.Why = strings.Join(whys, "; ")
	// A bound that depends on no launch value is a number.
	if a.launchFree(d) {
		if n, _, err := d.evalNote(LaunchEnv{}); err == nil {
			d.Expr = &DerivedExpr{fmt.Sprint(n)}
		}
	}
	return d
}

// perEntry reads the stay condition c of the exit test at br once per
// way into l, when a value it compares enters l with different values on
// different paths (the remainder loop after an unrolled main loop, entered
// from the main loop's exit and from the test that skips it). An execution
// of l starts along one entry: the bound is the largest of the entries'
// bounds.
func (a *analysis) perEntry(l *cfg.Loop, c *values.Value, br *isa.Instr, why string) (*candidate, string) {
	var entries []*cfg.Block
	for _, e := range l.Header.Preds {
		if e.From.Reachable && !l.Contains(e.From) {
			entries = append(entries, e.From)
		}
	}
	if l.Header == a.g.Entry() {
		entries = append(entries, nil)
	}
	if len(entries) < 2 || len(entries) > 8 {
		return nil, why
	}
	defer func() { a.entryLoop, a.entry = nil, nil }()
	out := &candidate{at: br, entries: true}
	var descs []string
	for _, p := range entries {
		a.entryLoop, a.entry = l, p
		cp, whyp := a.candidateOf(l, c, br)
		if cp == nil {
			return nil, whyp
		}
		out.or = append(out.or, cp)
		descs = append(descs, cp.desc)
	}
	out.desc = "per way into the loop: " + strings.Join(descs, "; ")
	return out, ""
}

// launchFree reports whether no candidate or guard depends on a launch
// value or on a value the analysis does not follow.
func (a *analysis) launchFree(d *Derivation) bool {
	var vs []*values.Value
	for _, c := range d.cands {
		for _, x := range c.flat() {
			if x.lim != nil {
				vs = append(vs, x.lim, x.iv.start, x.iv.step)
			}
		}
	}
	for _, g := range d.guards {
		vs = append(vs, g.cond)
	}
	for _, v := range vs {
		if op, leaves := values.Cause(v); op != nil || len(leaves) > 0 {
			return false
		}
	}
	return true
}

// everyIteration reports whether block b of l runs once in every
// iteration that returns to the header: it dominates every latch.
func (a *analysis) everyIteration(l *cfg.Loop, b *cfg.Block) bool {
	for _, t := range l.Latches {
		if !a.g.Dominates(b, t) {
			return false
		}
	}
	return true
}

// invariant reports whether v has one value during an execution of l
// (for an entry into it).
func (a *analysis) invariant(v *values.Value, l *cfg.Loop) bool {
	k := invKey{v, l}
	if r, ok := a.inv[k]; ok {
		return r
	}
	a.inv[k] = false // cycles: variant
	r := true
	switch v.Kind {
	case values.VPhi:
		r = !l.Contains(v.Block)
	case values.VOpaque:
		if v.Instr != nil {
			if b := a.f.Block(v.Instr); b != nil && l.Contains(b) {
				r = false
				break
			}
		}
		for _, x := range v.Args {
			if !a.invariant(x, l) {
				r = false
				break
			}
		}
	case values.VOp:
		for _, x := range v.Args {
			if !a.invariant(x, l) {
				r = false
				break
			}
		}
	}
	a.inv[k] = r
	return r
}

// evolve reads v as a recurrence of l, or says why it is not one.
func (a *analysis) evolve(v *values.Value, l *cfg.Loop, depth int) (rec, string) {
	if depth > 32 {
		return rec{}, "the value is computed by too long a chain"
	}
	if a.invariant(v, l) {
		return rec{kind: recAdd, start: v, step: a.f.Const(v.W, 0), w: v.W}, ""
	}
	f := a.f
	switch v.Kind {
	case values.VPhi:
		if v.Block != l.Header {
			return rec{}, fmt.Sprintf("%s is written on some paths of an iteration only (a branch arm or an inner loop)", a.name(v))
		}
		return a.headerPhi(v, l)
	case values.VOpaque:
		return rec{}, a.opaqueWhy(v)
	case values.VOp:
	default:
		return rec{}, "not a value the analysis follows"
	}
	x := v.Args
	if lo, hi, ok := asPair(v); ok {
		return a.evolvePair(lo, hi, l, depth+1)
	}
	switch v.Code {
	case values.Not:
		// ~x = -x - 1.
		r0, why := a.evolve(x[0], l, depth+1)
		if why != "" || r0.kind != recAdd || r0.ext != 0 {
			return rec{}, why + "a complemented value that is not a linear recurrence"
		}
		return rec{kind: recAdd, start: f.Op(values.Not, v.W, r0.start), step: f.Op(values.Neg, v.W, r0.step), w: v.W}, ""
	case values.Add, values.Sub:
		r0, why := a.evolve(x[0], l, depth+1)
		if why != "" {
			return rec{}, why
		}
		r1, why := a.evolve(x[1], l, depth+1)
		if why != "" {
			return rec{}, why
		}
		if r0.kind == recAdd && r1.kind == recAdd && r0.ext == 0 && r1.ext == 0 {
			return rec{kind: recAdd, start: f.Op(v.Code, v.W, r0.start, r1.start), step: f.Op(v.Code, v.W, r0.step, r1.step), w: v.W}, ""
		}
		return rec{}, fmt.Sprintf("%s is not stepped by an invariant amount", a.pretty(v))
	case values.Mul, values.Shl:
		r0, why := a.evolve(x[0], l, depth+1)
		if why != "" {
			return rec{}, why
		}
		if r0.kind == recShl && r0.ext == 0 && a.invariant(x[1], l) {
			// A value doubling each iteration, scaled: the start scales.
			r0.start = f.Op(v.Code, v.W, r0.start, x[1])
			return r0, ""
		}
		if !a.invariant(x[1], l) || r0.kind != recAdd || r0.ext != 0 {
			return rec{}, fmt.Sprintf("%s is not a linear recurrence", a.pretty(v))
		}
		return rec{kind: recAdd, start: f.Op(v.Code, v.W, r0.start, x[1]), step: f.Op(v.Code, v.W, r0.step, x[1]), w: v.W}, ""
	case values.Neg:
		r0, why := a.evolve(x[0], l, depth+1)
		if why != "" || r0.kind != recAdd || r0.ext != 0 {
			return rec{}, why + "a negated value that is not a linear recurrence"
		}
		return rec{kind: recAdd, start: f.Op(values.Neg, v.W, r0.start), step: f.Op(values.Neg, v.W, r0.step), w: v.W}, ""
	case values.Trunc:
		r0, why := a.evolve(x[0], l, depth+1)
		if why != "" {
			return rec{}, why
		}
		if r0.kind == recAdd && r0.ext == 0 {
			// Exact modulo 2^w.
			return rec{kind: recAdd, start: f.Op(values.Trunc, v.W, r0.start), step: f.Op(values.Trunc, v.W, r0.step), w: v.W}, ""
		}
		if r0.ext != 0 && r0.w == v.W {
			r0.ext = 0
			return r0, ""
		}
		return rec{}, fmt.Sprintf("%s truncates a value that is not a linear recurrence", a.pretty(v))
	case values.ZExt, values.SExt:
		r0, why := a.evolve(x[0], l, depth+1)
		if why != "" {
			return rec{}, why
		}
		if r0.ext != 0 {
			return rec{}, fmt.Sprintf("%s extends an extended value", a.pretty(v))
		}
		r0.ext = v.Code
		return r0, ""
	case values.LShr, values.AShr:
		if base, k, ok := sdivPow2(v); ok {
			r0, why := a.evolve(base, l, depth+1)
			if why == "" && r0.kind == recShr && r0.ext == 0 {
				// x / 2^k (signed): x >> k for the non-negative values a
				// halving recurrence takes (checked when evaluated).
				r0.start = f.Op(values.AShr, v.W, r0.start, f.Const(32, uint64(k)))
				r0.arith = true
				return r0, ""
			}
		}
		r0, why := a.evolve(x[0], l, depth+1)
		if why != "" {
			return rec{}, why
		}
		c, ok := x[1].IsConst()
		if !ok || r0.kind != recShr || r0.ext != 0 || c >= uint64(v.W) {
			return rec{}, fmt.Sprintf("%s is not a recurrence", a.pretty(v))
		}
		r0.start = f.Op(v.Code, v.W, r0.start, x[1])
		return r0, ""
	}
	return rec{}, fmt.Sprintf("%s (%s) is not a recurrence the analysis follows", a.pretty(v), v.Code)
}

// headerPhi reads a phi of l's header: its value on entry, and on each
// back edge the phi stepped by one invariant amount (or shifted).
func (a *analysis) headerPhi(v *values.Value, l *cfg.Loop) (rec, string) {
	var start *values.Value
	var r rec
	set := false
	for i, x := range v.Args {
		p := v.Preds[i]
		if !l.Contains(p) {
			if a.entryLoop == l && p != a.entry {
				continue
			}
			if start != nil && start != x {
				a.multiEntry = true
				return rec{}, fmt.Sprintf("%s enters the loop with different values on different paths", a.name(v))
			}
			start = x
			continue
		}
		var nr rec
		d, sgn, isDiv := divByConst(x, v)
		if step := a.stepOf(x, v, l); step != nil {
			nr = rec{kind: recAdd, step: step, w: v.W}
		} else if step := a.pairStepOf(x, v, l); step != nil {
			nr = rec{kind: recAdd, step: step, w: v.W}
		}
		switch {
		case nr.step != nil:
		case x.Kind == values.VOp && (x.Code == values.LShr || x.Code == values.AShr) && x.Args[0] == v:
			c, ok := x.Args[1].IsConst()
			if !ok || c == 0 || c >= uint64(v.W) {
				return rec{}, fmt.Sprintf("%s is shifted by a non-constant amount", a.name(v))
			}
			nr = rec{kind: recShr, shift: int(c), arith: x.Code == values.AShr, w: v.W}
		case x.Kind == values.VOp && (x.Code == values.Shl || x.Code == values.Mul) && x.Args[0] == v:
			c, ok := x.Args[1].IsConst()
			if x.Code == values.Mul {
				if !ok || c < 2 || c&(c-1) != 0 {
					return rec{}, fmt.Sprintf("%s is multiplied by %s, not a power of two", a.name(v), a.pretty(x.Args[1]))
				}
				c = uint64(bits.TrailingZeros64(c))
			}
			if !ok || c == 0 || c >= uint64(v.W) {
				return rec{}, fmt.Sprintf("%s is shifted by a non-constant amount", a.name(v))
			}
			nr = rec{kind: recShl, shift: int(c), w: v.W}
		case sdivOf(x, v) > 0:
			// v / 2^k (signed, rounding towards zero): v >> k while v >= 0.
			nr = rec{kind: recShr, shift: sdivOf(x, v), arith: true, w: v.W}
		case isDiv:
			// v / d for a constant d: udiv, sdiv, or the multiply-high
			// forms proved equal to them (divconst.go).
			if d&(d-1) == 0 {
				nr = rec{kind: recShr, shift: bits.TrailingZeros64(d), arith: sgn, w: v.W}
			} else {
				nr = rec{kind: recShr, div: d, arith: sgn, w: v.W}
			}
		case x.Kind == values.VOp && (x.Code == values.UDiv || x.Code == values.SDiv) && x.Args[0] == v:
			return rec{}, fmt.Sprintf("%s is divided by %s, not a constant of at least 2", a.name(v), a.pretty(x.Args[1]))
		case x == v:
			return rec{}, fmt.Sprintf("%s does not change on some path around the loop", a.name(v))
		case a.branchPhi(x, v, l):
			return rec{}, fmt.Sprintf("%s is written on some paths of an iteration only (a branch arm or an inner loop): it becomes %s", a.name(v), a.pretty(x))
		case hasSelect(x, v, 8):
			return rec{}, fmt.Sprintf("%s is written conditionally in the loop (a guarded instruction or a branch arm): it becomes %s", a.name(v), a.pretty(x))
		default:
			if op, _ := values.Cause(x); op != nil && op.Kind == values.VOpaque {
				return rec{}, fmt.Sprintf("%s is stepped by a value the analysis does not follow: %s", a.name(v), a.opaqueWhy(op))
			}
			return rec{}, fmt.Sprintf("%s is not stepped by an invariant amount in every iteration (it becomes %s)", a.name(v), a.pretty(x))
		}
		if set && (nr.kind != r.kind || nr.step != r.step || nr.shift != r.shift || nr.div != r.div || nr.arith != r.arith) {
			return rec{}, fmt.Sprintf("%s is stepped differently on different paths", a.name(v))
		}
		r, set = nr, true
	}
	if start == nil || !set {
		return rec{}, fmt.Sprintf("%s has no entry value", a.name(v))
	}
	r.start = start
	return r, ""
}

// stepOf returns s when x = v + s with s invariant in l: x a sum (and
// differences) of terms, v one of them with sign +, the others invariant
// (an unrolled loop adds its step once per copy of the body). nil when x
// is no such sum.
func (a *analysis) stepOf(x, v *values.Value, l *cfg.Loop) *values.Value {
	f := a.f
	var rest []*values.Value
	var neg []bool
	nv := 0
	var walk func(y *values.Value, sub bool, depth int) bool
	walk = func(y *values.Value, sub bool, depth int) bool {
		if y == v {
			if sub {
				return false
			}
			nv++
			return true
		}
		if depth < 16 && y.Kind == values.VOp && y.W == v.W && (y.Code == values.Add || y.Code == values.Sub) && !a.invariant(y, l) {
			return walk(y.Args[0], sub, depth+1) && walk(y.Args[1], sub != (y.Code == values.Sub), depth+1)
		}
		if !a.invariant(y, l) {
			return false
		}
		rest, neg = append(rest, y), append(neg, sub)
		return true
	}
	if !walk(x, false, 0) || nv != 1 {
		return nil
	}
	step := f.Const(v.W, 0)
	for i, y := range rest {
		if neg[i] {
			step = f.Op(values.Sub, v.W, step, y)
		} else {
			step = f.Op(values.Add, v.W, step, y)
		}
	}
	return step
}

// branchPhi reports whether x, the value v takes around the loop,
// depends on a phi of a block of l other than its header (v merged after
// a branch or an inner loop).
func (a *analysis) branchPhi(x, v *values.Value, l *cfg.Loop) bool {
	seen := map[*values.Value]bool{}
	var walk func(y *values.Value, depth int) bool
	walk = func(y *values.Value, depth int) bool {
		if depth > 12 || seen[y] {
			return false
		}
		seen[y] = true
		if y.Kind == values.VPhi && y != v && l.Contains(y.Block) && y.Block != l.Header {
			return true
		}
		if y.Kind == values.VOp {
			for _, z := range y.Args {
				if walk(z, depth+1) {
					return true
				}
			}
		}
		return false
	}
	return walk(x, 0)
}

// hasSelect reports whether x computes v through a select (a guarded
// write), within depth.
func hasSelect(x, v *values.Value, depth int) bool {
	if depth == 0 || x.Kind != values.VOp {
		return false
	}
	if x.Code == values.Select {
		for _, a := range x.Args[1:] {
			if a == v || dependsOn(a, v, 8) {
				return true
			}
		}
	}
	for _, a := range x.Args {
		if hasSelect(a, v, depth-1) {
			return true
		}
	}
	return false
}

func dependsOn(x, v *values.Value, depth int) bool {
	if x == v {
		return true
	}
	if depth == 0 {
		return false
	}
	for _, a := range x.Args {
		if dependsOn(a, v, depth-1) {
			return true
		}
	}
	return false
}

// sdivPow2 recognises the signed division by 2^k a compiler writes
// without a divide: (x + t) >> k (arithmetic), t = the rounding bias, a
// function of the sign of x only (0 when x >= 0): x >> 31 >>u (32 - k),
// (x >>u 31), or (x >> 31) & (2^k - 1).
func sdivPow2(v *values.Value) (*values.Value, int, bool) {
	if v.Kind != values.VOp || v.Code != values.AShr {
		return nil, 0, false
	}
	k, ok := v.Args[1].IsConst()
	if !ok || k == 0 || k >= uint64(v.W) {
		return nil, 0, false
	}
	s := v.Args[0]
	if s.Kind != values.VOp || s.Code != values.Add {
		return nil, 0, false
	}
	for i := 0; i < 2; i++ {
		x, t := s.Args[i], s.Args[1-i]
		if signBias(t, x) {
			return x, int(k), true
		}
	}
	return nil, 0, false
}

// signBias reports whether t is computed from the sign of x only and is 0
// when x >= 0.
func signBias(t, x *values.Value) bool {
	if t.Kind != values.VOp {
		return false
	}
	w := uint64(x.W)
	isSign := func(y *values.Value) bool {
		if y.Kind != values.VOp || (y.Code != values.LShr && y.Code != values.AShr) || y.Args[0] != x {
			return false
		}
		c, ok := y.Args[1].IsConst()
		return ok && c == w-1
	}
	switch t.Code {
	case values.LShr:
		if isSign(t) {
			return t.Code == values.LShr
		}
		return isSign(t.Args[0]) && t.Args[0].Code == values.AShr
	case values.And:
		if _, ok := t.Args[1].IsConst(); ok {
			return isSign(t.Args[0])
		}
	}
	return false
}

// sdivOf returns k when x is v / 2^k (signed, sdivPow2), else 0.
func sdivOf(x, v *values.Value) int {
	if b, k, ok := sdivPow2(x); ok && b == v {
		return k
	}
	// A divide instruction (div.s32 x, 2^k, nvcc -O0): the same
	// quotient.
	if x.Kind == values.VOp && x.Code == values.SDiv && x.Args[0] == v {
		if c, ok := x.Args[1].IsConst(); ok && c >= 2 && c&(c-1) == 0 && c < 1<<uint(v.W-1) {
			return bits.TrailingZeros64(c)
		}
	}
	return 0
}

// name names a phi by its variable (register or cell).
func (a *analysis) name(v *values.Value) string {
	if v.Kind == values.VPhi {
		n := v.Name
		if strings.HasPrefix(n, "frame:") {
			n = "the local variable at " + strings.TrimPrefix(n, "frame:")
		}
		return n
	}
	return a.pretty(v)
}

func (a *analysis) pretty(v *values.Value) string { return values.Pretty(v) }

// opaqueWhy names the instruction whose semantics is not modelled.
func (a *analysis) opaqueWhy(v *values.Value) string {
	if v.Kind == values.VPhi {
		return fmt.Sprintf("%s, merged from different paths", a.name(v))
	}
	if v.Kind == values.VUndef {
		return fmt.Sprintf("%s, which may be read before it is written", v.Name)
	}
	if v.Instr == nil {
		return v.Why
	}
	return fmt.Sprintf("%q at %s is not modelled (%s)", v.Instr.Text, a.lineOf(v.Instr), v.Why)
}

var cmpText = map[string]string{"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}

// pairCandidate reads the 64-bit comparison x code y (negated when not is
// set) of an exit test. An equality of two pairs of words does not say
// which word is the high one (values.Func.Compare64); when the first
// reading is no recurrence, the other is tried (the same equality).
func (a *analysis) pairCandidate(l *cfg.Loop, code values.Code, x, y *values.Value, not bool, br *isa.Instr) (*candidate, string) {
	cond := func(x, y *values.Value) *values.Value {
		c := a.f.Op(code, 1, x, y)
		if not {
			c = a.f.Op(values.Not, 1, c)
		}
		return c
	}
	c, why := a.candidateOf(l, cond(x, y), br)
	if c != nil || code != values.Eq && code != values.Ne {
		return c, why
	}
	sx, okx := a.swapHalves(x)
	sy, oky := a.swapHalves(y)
	if !okx || !oky {
		return c, why
	}
	if c2, _ := a.candidateOf(l, cond(sx, sy), br); c2 != nil {
		return c2, ""
	}
	return c, why
}

// swapHalves returns the 64-bit value v with its 32-bit words exchanged.
func (a *analysis) swapHalves(v *values.Value) (*values.Value, bool) {
	if k, ok := v.IsConst(); ok {
		return a.f.Const(64, k<<32|k>>32), true
	}
	if lo, hi, ok := asPair(v); ok {
		return a.pairOf(hi, lo), true
	}
	if v.Kind == values.VOp && v.Code == values.ZExt && v.W == 64 && v.Args[0].W == 32 {
		return a.pairOf(a.f.Const(32, 0), v.Args[0]), true
	}
	return nil, false
}

// candidateOf reads the stay condition c of the exit test at br.
func (a *analysis) candidateOf(l *cfg.Loop, c *values.Value, br *isa.Instr) (*candidate, string) {
	if b, ok := c.IsConst(); ok {
		if b == 0 {
			// The test always leaves: the header runs once per entry.
			return &candidate{at: br, cmp: "never", desc: "the exit test always leaves"}, ""
		}
		return nil, "the exit test never leaves the loop (its condition is always true)"
	}
	if code, x, y, ok := a.pair64Compare(c); ok {
		return a.pairCandidate(l, code, x, y, false, br)
	}
	if c.Kind == values.VOp && c.Code == values.Not {
		if code, x, y, ok := a.pair64Compare(c.Args[0]); ok {
			return a.pairCandidate(l, code, x, y, true, br)
		}
	}
	if c.Kind == values.VPhi && c.W == 1 {
		if s := a.phiAsSelect(c); s != nil {
			return a.candidateOf(l, s, br)
		}
	}
	if c.Kind != values.VOp {
		if op, leaves := values.Cause(c); op != nil {
			return nil, a.notFollowed(c, op, leaves)
		}
		return nil, fmt.Sprintf("its condition %s is not a comparison", a.pretty(c))
	}
	switch c.Code {
	case values.And:
		// Both must hold to stay: either bounds the loop.
		c0, why0 := a.candidateOf(l, c.Args[0], br)
		if c0 != nil {
			return c0, ""
		}
		c1, why1 := a.candidateOf(l, c.Args[1], br)
		if c1 != nil {
			return c1, ""
		}
		return nil, why0 + "; " + why1
	case values.Or:
		c0, why := a.candidateOf(l, c.Args[0], br)
		if c0 == nil {
			return nil, why
		}
		c1, why := a.candidateOf(l, c.Args[1], br)
		if c1 == nil {
			return nil, why
		}
		for _, x := range append(c0.flat(), c1.flat()...) {
			if x.cmp == "ne" || x.cmp == "eq" {
				return nil, "a disjunction with an equality test"
			}
		}
		return &candidate{at: br, or: append(c0.flat(), c1.flat()...), desc: c0.desc + " or " + c1.desc}, ""
	case values.Not:
		// De Morgan: a negated conjunction is a disjunction, and so on.
		x := c.Args[0]
		if x.Kind == values.VOp && (x.Code == values.And || x.Code == values.Or) {
			code := values.Or
			if x.Code == values.Or {
				code = values.And
			}
			return a.candidateOf(l, a.f.Op(code, 1, a.f.Op(values.Not, 1, x.Args[0]), a.f.Op(values.Not, 1, x.Args[1])), br)
		}
		return nil, a.notComparison(c)
	}
	if c.Code.Arity() != 2 {
		return nil, a.notComparison(c)
	}
	var cmp string
	var signed bool
	x, y := c.Args[0], c.Args[1]
	switch c.Code {
	case values.Eq:
		cmp = "eq"
	case values.Ne:
		cmp = "ne"
	case values.ULt, values.SLt:
		cmp, signed = "lt", c.Code == values.SLt
	case values.ULe, values.SLe:
		cmp, signed = "le", c.Code == values.SLe
	default:
		return nil, a.notComparison(c)
	}
	rx, whyx := a.evolve(x, l, 0)
	ry, whyy := a.evolve(y, l, 0)
	if whyx != "" || whyy != "" {
		why := whyx
		if why == "" {
			why = whyy
		}
		bad := x
		if whyx == "" {
			bad = y
		}
		return nil, fmt.Sprintf("it compares %s with %s: %s%s", a.pretty(x), a.pretty(y), why, a.dependsOn(bad, why))
	}
	switch {
	case rx.invariant() && ry.invariant():
		return nil, fmt.Sprintf("it compares values that do not change in the loop (%s, %s)", a.pretty(x), a.pretty(y))
	case !rx.invariant() && !ry.invariant():
		return nil, fmt.Sprintf("both operands of %s change in the loop", a.pretty(c))
	case rx.invariant():
		rx, ry = ry, rx
		x, y = y, x
		cmp = map[string]string{"lt": "gt", "le": "ge", "eq": "eq", "ne": "ne"}[cmp]
	}
	cd := &candidate{at: br, cmp: cmp, d: dom{w: x.W, signed: signed}, iv: rx, lim: y}
	cd.desc = fmt.Sprintf("%s, the loop stays while x %s %s (%s)", a.recText(rx), cmpText[cmp], a.pretty(y), cd.d)
	if rx.ext != 0 && cmp != "eq" && cmp != "ne" {
		// An extended value compared: exact while it does not wrap in its
		// own type, which the evaluation checks.
	} else if rx.ext != 0 {
		return nil, fmt.Sprintf("an extended induction value is compared with %s", cmpText[cmp])
	}
	return cd, ""
}

// phiAsSelect reads a phi of two operands as the select of the branch
// that chose between them (an && or || compiled with branches): its block
// M is entered from H directly, H ending in a conditional branch, or
// from a region R entered only from H's other side S and leaving only to
// M. Reaching M through R means H's last branch went to S. nil when the
// phi is no such choice.
func (a *analysis) phiAsSelect(v *values.Value) *values.Value {
	if len(v.Args) != 2 || v.Preds[0] == nil || v.Preds[1] == nil {
		return nil
	}
	g := a.g
	m := v.Block
	for i := 0; i < 2; i++ {
		h, p2 := v.Preds[i], v.Preds[1-i]
		br := h.Last()
		if br == nil || br.Guard.Reg == "" || len(h.Succs) != 2 || h.Succs[0].To == h.Succs[1].To {
			continue
		}
		var s *cfg.Block
		mSide := -1
		for k, e := range h.Succs {
			if e.To == m {
				mSide = k
			} else {
				s = e.To
			}
		}
		if mSide < 0 || s == nil || s == g.Exit || !g.Dominates(s, p2) {
			continue
		}
		preds := 0
		for _, e := range s.Preds {
			if e.From.Reachable {
				preds++
			}
		}
		if preds != 1 {
			continue
		}
		closed := true
		for _, b := range g.Blocks {
			if !b.Reachable || !g.Dominates(s, b) {
				continue
			}
			for _, e := range b.Succs {
				if e.To != m && (e.To == g.Exit || !g.Dominates(s, e.To)) {
					closed = false
				}
			}
		}
		if !closed {
			continue
		}
		gv := a.f.Guard(br)
		if gv == nil {
			continue
		}
		// Succs[0] is taken when the guard holds.
		cond := gv
		if (mSide == 0) == br.Guard.Neg {
			cond = a.f.Op(values.Not, 1, gv)
		}
		return a.f.Op(values.Select, 1, cond, v.Args[i], v.Args[1-i])
	}
	return nil
}

// notComparison explains a condition that is no comparison: the value
// it depends on that the analysis does not follow, if any.
func (a *analysis) notComparison(c *values.Value) string {
	if op, leaves := values.Cause(c); op != nil && op.Kind != values.VPhi {
		return a.notFollowed(c, op, leaves)
	}
	return fmt.Sprintf("its condition %s is not a comparison", a.pretty(c))
}

func (c *candidate) flat() []*candidate {
	if len(c.or) > 0 {
		return c.or
	}
	return []*candidate{c}
}

// dependsOn explains, after why, a value the analysis does not read as a
// recurrence: the first instruction of its graph whose semantics is not
// modelled (unless why names it) and the launch values it depends on, so
// that a message never leaves the user to guess whether the value is a
// computation of the launch. "" when there is nothing to add.
func (a *analysis) dependsOn(v *values.Value, why string) string {
	var parts []string
	if op := values.Unmodelled(v); op != nil {
		switch {
		case op.Kind != values.VOpaque || op.Instr == nil:
			if w := a.opaqueWhy(op); !strings.Contains(why, w) {
				parts = append(parts, w)
			}
		case !strings.Contains(why, fmt.Sprintf("%q at %s", op.Instr.Text, a.lineOf(op.Instr))):
			parts = append(parts, fmt.Sprintf("%q at %s, which is not modelled (%s)", op.Instr.Text, a.lineOf(op.Instr), op.Why))
		}
	}
	if _, leaves := values.Cause(v); len(leaves) > 0 {
		parts = append(parts, "the launch values "+strings.Join(launchNames(leaves), ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (it depends on " + strings.Join(parts, ", and on ") + ")"
}

// launchNames names launch values (kernel arguments, special
// registers), sorted, each once.
func launchNames(leaves []*values.Value) []string {
	var ns []string
	seen := map[string]bool{}
	for _, x := range leaves {
		n := values.Pretty(x)
		if !seen[n] {
			seen[n] = true
			ns = append(ns, n)
		}
	}
	sort.Strings(ns)
	return ns
}

// notFollowed explains a condition the analysis cannot read: the first
// instruction whose semantics is not modelled, and the launch values the
// condition depends on.
func (a *analysis) notFollowed(c, op *values.Value, leaves []*values.Value) string {
	s := fmt.Sprintf("its condition depends on %s", a.opaqueWhy(op))
	if ns := launchNames(leaves); len(ns) > 0 {
		s += " (and on " + strings.Join(ns, ", ") + ")"
	}
	return s
}

func (a *analysis) recText(r rec) string {
	s := ""
	switch r.kind {
	case recAdd:
		st := a.pretty(r.start)
		step := a.pretty(r.step)
		switch {
		case st == "0" && step == "1":
			s = "k"
		case st == "0":
			s = "k·" + step
		case step == "1":
			s = st + " + k"
		case step == "-1":
			s = st + " - k"
		case strings.HasPrefix(step, "-"):
			s = st + " - k·" + strings.TrimPrefix(step, "-")
		default:
			s = st + " + k·" + step
		}
	case recShr:
		s = fmt.Sprintf("%s >> %d·k", a.pretty(r.start), r.shift)
		if r.div != 0 {
			s = fmt.Sprintf("%s / %d^k", a.pretty(r.start), r.div)
		}
	case recShl:
		s = fmt.Sprintf("%s << %d·k", a.pretty(r.start), r.shift)
	}
	if r.ext != 0 {
		s += fmt.Sprintf(" (%d bits, %s)", r.w, map[values.Code]string{values.ZExt: "zero-extended", values.SExt: "sign-extended"}[r.ext])
	}
	return "x = " + s + " in iteration k"
}

// text is the candidate's bound as a formula over launch values (per
// thread: the bound is its largest value over the threads that enter).
func (c *candidate) text() string {
	if len(c.or) > 0 {
		var ts []string
		for _, x := range c.or {
			ts = append(ts, x.text())
		}
		return "max(" + strings.Join(ts, ", ") + ")"
	}
	if c.cmp == "never" {
		return "1"
	}
	p := values.Pretty
	r := c.iv
	switch r.kind {
	case recShr:
		if r.div != 0 {
			return fmt.Sprintf("log%d(%s / %s) + 2", r.div, p(r.start), p(c.lim))
		}
		if r.shift == 1 {
			return fmt.Sprintf("log2(%s / %s) + 2", p(r.start), p(c.lim))
		}
		return fmt.Sprintf("log2(%s / %s) / %d + 2", p(r.start), p(c.lim), r.shift)
	case recShl:
		if r.shift == 1 {
			return fmt.Sprintf("log2(%s / %s) + 2", p(c.lim), p(r.start))
		}
		return fmt.Sprintf("log2(%s / %s) / %d + 2", p(c.lim), p(r.start), r.shift)
	}
	ivd := c.d
	if r.ext != 0 {
		ivd = dom{w: r.w, signed: r.ext == values.SExt}
	}
	ls, _ := linOf(c.lim, c.d, 0)
	ss, _ := linOf(r.start, ivd, 0)
	stepv, stepOK := r.step.SignedConst()
	step := p(r.step)
	switch c.cmp {
	case "lt", "le":
		dist := linText(ls.sub(ss))
		if c.cmp == "le" {
			dist = linText(ls.sub(ss).add(lin{c: 1}, 1))
		}
		if stepOK && stepv == 1 {
			return fmt.Sprintf("max(0, %s) + 1", dist)
		}
		return fmt.Sprintf("max(0, ceil((%s) / %s)) + 1", dist, step)
	case "gt", "ge":
		dist := linText(ss.sub(ls))
		if c.cmp == "ge" {
			dist = linText(ss.sub(ls).add(lin{c: 1}, 1))
		}
		if stepOK && stepv == -1 {
			return fmt.Sprintf("max(0, %s) + 1", dist)
		}
		if stepOK {
			return fmt.Sprintf("max(0, ceil((%s) / %d)) + 1", dist, -stepv)
		}
		return fmt.Sprintf("max(0, ceil((%s) / -(%s))) + 1", dist, step)
	case "ne":
		sd := dom{w: r.w, signed: true}
		ls, _ := linOf(c.lim, sd, 0)
		ss, _ := linOf(r.start, sd, 0)
		dist := linText(ls.sub(ss))
		mod := "2^" + fmt.Sprint(r.w)
		if r.w < 63 {
			mod = fmt.Sprint(int64(1) << uint(r.w))
		}
		if stepOK && stepv == 1 {
			return fmt.Sprintf("(%s) %% %s + 1", dist, mod)
		}
		if stepOK && stepv == -1 {
			return fmt.Sprintf("(%s) %% %s + 1", linText(ss.sub(ls)), mod)
		}
		return fmt.Sprintf("(%s) / %s %% %s + 1", dist, step, mod)
	case "eq":
		return "2"
	}
	return "?"
}

// linText writes a form: its terms, then its constant.
func linText(l lin) string {
	var b strings.Builder
	for i, t := range l.terms {
		k := t.k
		switch {
		case i == 0 && k < 0:
			b.WriteString("-")
			k = -k
		case i > 0 && k < 0:
			b.WriteString(" - ")
			k = -k
		case i > 0:
			b.WriteString(" + ")
		}
		if k != 1 {
			fmt.Fprintf(&b, "%d*", k)
		}
		s := values.Pretty(t.v)
		if strings.ContainsAny(s, " ") && k != 1 {
			s = "(" + s + ")"
		}
		b.WriteString(s)
	}
	switch {
	case len(l.terms) == 0:
		fmt.Fprintf(&b, "%d", l.c)
	case l.c > 0:
		fmt.Fprintf(&b, " + %d", l.c)
	case l.c < 0:
		fmt.Fprintf(&b, " - %d", -l.c)
	}
	return b.String()
}

// guards returns the tests every entry into l passes: for each block
// dominating l's header and ending in a conditional branch, when only one
// of its sides leads to l.
func (a *analysis) guards(l *cfg.Loop) []guardFact {
	var out []guardFact
	h := l.Header
	for b := h.Idom(); b != nil; b = b.Idom() {
		br := b.Last()
		if br == nil || cfg.FlowKind(br) != isa.KindBranch && br.Kind != isa.KindExit && br.Kind != isa.KindReturn || br.Guard.Reg == "" || len(b.Succs) != 2 {
			continue
		}
		gv := a.f.Guard(br)
		if gv == nil {
			continue
		}
		var leads []bool
		for _, e := range b.Succs {
			s := e.To
			leads = append(leads, s != a.g.Exit && a.g.Dominates(s, h) && len(s.Preds) == 1 || s == h && len(h.Preds) > 0 && a.onlyEntry(b, l))
		}
		if leads[0] == leads[1] {
			continue
		}
		// Succs[0] is taken when the guard holds.
		want := leads[0] != br.Guard.Neg
		out = append(out, guardFact{cond: gv, want: want, at: br})
	}
	return out
}

// onlyEntry reports whether b is the only block outside l that branches
// to l's header.
func (a *analysis) onlyEntry(b *cfg.Block, l *cfg.Loop) bool {
	for _, e := range l.Header.Preds {
		if !l.Contains(e.From) && e.From != b {
			return false
		}
	}
	return true
}

// ---- evaluation ----

// Eval evaluates the bound at a launch: the least candidate bound whose
// conditions hold. When none holds, the error of the first is returned.
func (d *Derivation) Eval(env Env) (int64, error) {
	v, _, err := d.evalNote(env)
	return v, err
}

// evaluator evaluates values over a launch, with the guard facts of a
// loop and the induction ranges of enclosing loops.
type evaluator struct {
	a     *analysis
	env   Env
	renv  *values.RangeEnv
	facts map[*values.Value]values.Num
	ev    *values.Evaluator[values.Num]
	d     *Derivation
	depth int
	memo  *evalMemo
	// guarded lists the values a guard compares (their facts), for
	// relRange; relBusy cuts its recursion.
	guarded []*values.Value
	relBusy bool
	refresh bool
}

// evalMemo holds the ranges of loops' header phis and the bounds of the
// loops evaluated at one launch. Each is a sound fact about the launch
// whatever the depth or the loops busy when it was computed (those only
// cut an evaluation short, giving a less precise fact). Without it, each
// loop re-evaluated every earlier loop's bound from scratch: exponential
// in the length of a chain of loops (a chain of 10 device functions with
// a loop each took 7 s, 15 over 2 minutes), and cubic in the number of
// loops of a kernel when shared by only one top-level evaluation.
//
// The bound of a loop evaluated with its own loop or an enclosing one
// busy may be less precise than a fresh evaluation would give; such an
// entry is tainted and reused only within the top-level evaluation
// (generation) that computed it, so a memo shared by the evaluations of
// every loop of a function (loops.run) changes no bound.
type evalMemo struct {
	phi   map[*values.Value]phiMemo
	bound map[*Derivation]boundMemo
	// gen numbers the top-level evaluations; cut counts the evaluations
	// cut short by a busy loop or the depth limit so far.
	gen, cut int
}

type phiMemo struct {
	n       values.Num
	ok      bool
	tainted bool
	gen     int
}

type boundMemo struct {
	n       int64
	note    string
	err     error
	tainted bool
	gen     int
}

func newEvalMemo() *evalMemo {
	return &evalMemo{phi: map[*values.Value]phiMemo{}, bound: map[*Derivation]boundMemo{}}
}

func (a *analysis) newEvaluator(d *Derivation, env Env, depth int, memo *evalMemo) *evaluator {
	a.evaluators++
	renv := &values.RangeEnv{Args: map[string]int64{}}
	for i, dim := range []string{"x", "y", "z"} {
		if v, ok := env.Lookup("ntid." + dim); ok && v > 0 {
			renv.Ntid[i] = uint64(v)
		}
		if v, ok := env.Lookup("nctaid." + dim); ok && v > 0 {
			renv.Nctaid[i] = uint64(v)
		}
	}
	if le, ok := env.(LaunchEnv); ok {
		for k, v := range le.Args {
			renv.Args[k] = v
		}
	}
	e := &evaluator{a: a, env: env, renv: renv, facts: map[*values.Value]values.Num{}, d: d, depth: depth, memo: memo}
	e.reset()
	return e
}

func (e *evaluator) reset() {
	dom := values.RangeDomain{Env: e.renv, PhiRange: e.phiRange}
	e.ev = values.NewEvaluator[values.Num](dom)
	e.ev.Pre = func(v *values.Value) (values.Num, bool) {
		if n, ok := e.facts[v]; ok {
			return n, ok
		}
		// A header phi of a derived loop takes its induction range before
		// its operands are evaluated. Evaluating them first meets the phi
		// again on its back edge, cut to every value, and the evaluator
		// keeps that for the values on the cycle, such as φ + step, the
		// value a later loop starts from when this one exits from its
		// latch (ptxas's split and unrolled loops: TestAfterEarlierLoop).
		// The range does not depend on this evaluation (phiRange
		// evaluates the loop's start, step and bound in an evaluator of
		// its own), and RangeDomain.Phi would return the same range after
		// the operands: taking it first only avoids the cut. Sound: the
		// values on the cycle are then computed from the phi's range, and
		// any value the phi takes at the launch is in it.
		if v.Kind == values.VPhi {
			if n, ok := e.phiRange(v); ok {
				return n, ok
			}
			return e.joinLive(v)
		}
		if lo, hi := values.PairWords(v); lo != nil && values.SamePhis(lo, hi) {
			return e.pairPhiRange(v, lo, hi)
		}
		if len(e.guarded) > 0 && v.Kind == values.VOp && (v.Code == values.Add || v.Code == values.Sub) && !e.relBusy {
			return e.relRange(v)
		}
		return values.Num{}, false
	}
}

// pairPhiRange is the range of the 64-bit value v whose words lo, hi are
// phis of one block (SASS keeps a 64-bit variable in a register pair; the
// value graph has a phi per word): at a loop header, the induction range
// of the pair (pairPhis: start plus up to N-1 steps, N the loop's bound at
// this launch); elsewhere the join of the pairs of the operands along the
// edges some thread may take (joinLive). Reading the words apart loses
// their correlation (a high word that is 0 or -1 makes every 64-bit value
// possible); reading the pair per edge keeps it. Sound as phiRange and
// joinLive are: the pair takes, along each edge, the pair of the words'
// operands on that edge.
func (e *evaluator) pairPhiRange(v, lo, hi *values.Value) (values.Num, bool) {
	if l := e.a.headed[lo.Block]; l != nil {
		if e.depth > maxEvalDepth || e.a.busy[l] {
			e.memo.cut++
			return values.Num{}, false
		}
		if m, ok := e.memo.phi[v]; ok && (!m.tainted || m.gen == e.memo.gen) {
			return m.n, m.ok
		}
		cut := e.memo.cut
		var n values.Num
		ok := false
		me := e.a.multiEntry
		r, why := e.a.pairPhis(lo, hi, l)
		e.a.multiEntry = me // a reading for a range, not a candidate
		if why == "" && r.kind == recAdd {
			n, ok = e.recRange(r, l)
		}
		e.memo.phi[v] = phiMemo{n: n, ok: ok, tainted: e.memo.cut != cut, gen: e.memo.gen}
		return n, ok
	}
	r := values.Num{W: v.W, Lo: 1, Hi: 0, SLo: 1, SHi: 0}
	for i := range lo.Args {
		if e.deadEdge(lo.Preds[i], lo.Block) {
			continue
		}
		r = values.Join(r, e.num(e.a.pairOf(lo.Args[i], hi.Args[i])))
	}
	return r, true
}

// relRange is the range of the sum v at this launch read through a
// guarded value g: when v's affine form (linAt: exact, no sum wrapping at
// this launch) is L = R + c·L_g, L_g the form of g and R without L_g's
// first term, v = R + c·g over the integers, and g is in its guarded
// range (n - 1 - gid, computed by nvcc as n + stride + ~((nctaid + ctaid)
// · ntid + tid), is n - 1 - gid with gid < n: at least 0). The result is
// met with the range of v's operation on its operands' ranges.
func (e *evaluator) relRange(v *values.Value) (values.Num, bool) {
	args := make([]values.Num, len(v.Args))
	ws := make([]int, len(v.Args))
	for i, x := range v.Args {
		args[i], ws[i] = e.num(x), x.W
	}
	plain := values.NumApply(v.Code, v.W, args, ws)
	e.relBusy = true
	defer func() { e.relBusy = false }()
	d := dom{w: v.W, signed: true}
	l, err := e.linAt(v, d)
	if err != nil || len(l.terms) < 2 || e.checkAll(l.checks) != nil {
		return plain, true
	}
	l = e.unsignedTerms(l)
	best := plain
	for _, g := range e.guarded {
		if g == v || g.W > 64 {
			continue
		}
		lg, err := e.linAt(g, dom{w: g.W, signed: true})
		if err != nil || len(lg.terms) < 2 || e.checkAll(lg.checks) != nil {
			continue
		}
		lg = e.unsignedTerms(lg)
		// c: the multiple of L_g that cancels its first term in L.
		t0 := lg.terms[0]
		var c int64
		for _, t := range l.terms {
			if t.v == t0.v && t.d == t0.d && t0.k != 0 && t.k%t0.k == 0 {
				c = t.k / t0.k
			}
		}
		if c == 0 {
			continue
		}
		r := l.sub(lg.scale(c))
		if len(r.terms) >= len(l.terms) {
			continue
		}
		lo, hi, err := e.interval(r)
		if err != nil {
			continue
		}
		gn := e.num(g)
		glo, ghi := gn.SLo, gn.SHi
		if g.W < 64 {
			gs := values.NumApply(values.SExt, 64, []values.Num{gn}, []int{g.W})
			glo, ghi = gs.SLo, gs.SHi
		}
		a, ok1 := mulOK(glo, c)
		b, ok2 := mulOK(ghi, c)
		if !ok1 || !ok2 {
			continue
		}
		lo2, ok3 := addOK(lo, min(a, b))
		hi2, ok4 := addOK(hi, max(a, b))
		if !ok3 || !ok4 {
			continue
		}
		best = values.Meet(best, values.SRange(v.W, lo2, hi2))
	}
	return best, true
}

// unsignedTerms reads each term of l whose value is not negative at this
// launch in either reading (its signed range starts at 0 or above) as
// unsigned: the same integer, so that a term read at 32 bits signed (a
// truncated sum) and one read through a zero extension are one term.
func (e *evaluator) unsignedTerms(l lin) lin {
	out := lin{c: l.c, checks: l.checks}
	for _, t := range l.terms {
		if t.d.signed && e.num(t.v).SLo >= 0 {
			t.d.signed = false
		}
		out = out.add(lin{terms: []term{t}}, 1)
		out.checks = l.checks
	}
	return out
}

func (e *evaluator) num(v *values.Value) values.Num { return e.ev.Eval(v) }

// joinLive joins the operands of v, a phi that is not a loop header's,
// over the edges some thread may take at this launch: an edge is dead
// when a test on the way to it (its source's branch, or a branch of a
// block dominating the source with only one side leading there) goes the
// other way for every thread, read over the launch's ranges and the
// loop's guard facts, which hold in every execution the bound is for. A
// phi takes an operand only along its edge, so a dead edge's operand is
// not one of its values (the value after a split loop that the launch
// skips, ptxas). ok is false when v is a loop header's phi or no edge is
// dead (the domain then joins every operand).
func (e *evaluator) joinLive(v *values.Value) (values.Num, bool) {
	if v.Block == nil || len(v.Preds) != len(v.Args) {
		return values.Num{}, false
	}
	if e.a.headed[v.Block] != nil {
		return values.Num{}, false
	}
	var live []*values.Value
	for i, x := range v.Args {
		if !e.deadEdge(v.Preds[i], v.Block) {
			live = append(live, x)
		}
	}
	if len(live) == len(v.Args) {
		return values.Num{}, false
	}
	r := values.Num{W: v.W, Lo: 1, Hi: 0, SLo: 1, SHi: 0}
	for _, x := range live {
		r = values.Join(r, e.num(x))
	}
	return r, true
}

// deadEdge reports whether no thread takes the edge p -> to at this
// launch (see joinLive).
func (e *evaluator) deadEdge(p, to *cfg.Block) bool {
	n := 0
	for _, s := range p.Succs {
		if s.To == to {
			n++
		}
	}
	if n != 1 {
		return false
	}
	for b := p; b != nil; b = b.Idom() {
		br := b.Last()
		if br == nil || cfg.FlowKind(br) != isa.KindBranch && br.Kind != isa.KindExit && br.Kind != isa.KindReturn || br.Guard.Reg == "" || len(b.Succs) != 2 {
			continue
		}
		gv := e.a.f.Guard(br)
		if gv == nil {
			continue
		}
		var leads []bool
		for _, ed := range b.Succs {
			s := ed.To
			if b == p {
				leads = append(leads, s == to)
			} else {
				leads = append(leads, s != e.a.g.Exit && e.a.g.Dominates(s, p) && len(s.Preds) == 1)
			}
		}
		if leads[0] == leads[1] {
			continue
		}
		want := leads[0] != br.Guard.Neg
		if x, ok := e.num(gv).Exact(); ok && (x != 0) != want {
			return true
		}
	}
	return false
}

// maxEvalDepth bounds the recursion of phiRange through enclosing loops'
// bounds (each level is one loop; the memo keeps the work polynomial).
const maxEvalDepth = 64

// phiRange is the range of a header phi of an enclosing, derived loop:
// its start plus up to (N-1) steps, N the loop's bound at this launch.
func (e *evaluator) phiRange(v *values.Value) (values.Num, bool) {
	if e.depth > maxEvalDepth {
		e.memo.cut++
		return values.Num{}, false
	}
	l := e.a.headed[v.Block]
	if l == nil {
		return values.Num{}, false
	}
	if e.a.busy[l] {
		e.memo.cut++
		return values.Num{}, false
	}
	if m, ok := e.memo.phi[v]; ok && (!m.tainted || m.gen == e.memo.gen) {
		return m.n, m.ok
	}
	cut := e.memo.cut
	n, ok := e.loopPhiRange(v, l)
	e.memo.phi[v] = phiMemo{n: n, ok: ok, tainted: e.memo.cut != cut, gen: e.memo.gen}
	return n, ok
}

// loopPhiRange computes phiRange for a header phi v of loop l.
func (e *evaluator) loopPhiRange(v *values.Value, l *cfg.Loop) (values.Num, bool) {
	r, why := e.a.headerPhi(v, l)
	if why == "" && r.ext == 0 && (r.kind == recAdd || r.kind == recShl || r.kind == recShr && !r.arith) {
		if n, ok := e.recRange(r, l); ok {
			return n, true
		}
	}
	return e.halfRange(v, l)
}

// halfRange is the range of v, a header phi of loop l holding one word
// of a 64-bit induction value (pairPhis: its halves step with a carry, so
// that the high word alone is no recurrence, and the low word alone wraps
// around): the word of the 64-bit value's range (start plus up to N-1
// steps), projected by the domain's own truncation and shift.
func (e *evaluator) halfRange(v *values.Value, l *cfg.Loop) (values.Num, bool) {
	if v.W != 32 {
		return values.Num{}, false
	}
	for _, u := range e.a.headerPhis(l.Header) {
		if u == v || u.W != 32 {
			continue
		}
		for _, lo := range []bool{true, false} {
			var r rec
			var why string
			if lo {
				r, why = e.a.pairPhis(v, u, l)
			} else {
				r, why = e.a.pairPhis(u, v, l)
			}
			if why != "" || r.kind != recAdd {
				continue
			}
			n, ok := e.recRange(r, l)
			if !ok {
				continue
			}
			if !lo {
				n = values.NumApply(values.LShr, 64, []values.Num{n, values.ConstNum(32, 32)}, []int{64, 32})
			}
			return values.NumApply(values.Trunc, 32, []values.Num{n}, []int{64}), true
		}
	}
	return values.Num{}, false
}

// headerPhis lists the phis of the header b (built once).
func (a *analysis) headerPhis(b *cfg.Block) []*values.Value {
	if a.phisOf == nil {
		a.phisOf = map[*cfg.Block][]*values.Value{}
		for _, v := range a.f.Values() {
			if v.Kind == values.VPhi && v.Block != nil && a.headed[v.Block] != nil {
				a.phisOf[v.Block] = append(a.phisOf[v.Block], v)
			}
		}
	}
	return a.phisOf[b]
}

// recRange is the range of the recurrence r of loop l at this launch: its
// start plus up to N-1 steps, N the loop's bound (shifted left N-1 times,
// when that does not wrap; shifted right or divided: at most the start).
func (e *evaluator) recRange(r rec, l *cfg.Loop) (values.Num, bool) {
	d := e.a.derive(l)
	if d.Expr == nil {
		return values.Num{}, false
	}
	e.a.busy[l] = true
	defer delete(e.a.busy, l)
	n, _, err := d.evalDepth(e.env, e.depth+1, e.memo)
	if err != nil {
		return values.Num{}, false
	}
	sub := e.a.newEvaluator(d, e.env, e.depth+1, e.memo)
	sub.applyGuards(d.guards)
	s := sub.num(r.start)
	switch r.kind {
	case recShr:
		// Shifted right (or divided) unsigned in every iteration: never
		// above the start.
		return values.Meet(values.URange(r.w, 0, s.Hi), values.TopNum(r.w)), true
	case recShl:
		// S << (c·j) for the header executions j < n, when the largest
		// does not wrap: between the start's least and that value.
		if n < 1 {
			return values.Num{}, false
		}
		sh := uint64(r.shift) * uint64(n-1)
		if sh >= uint64(r.w) || s.Hi > values.Mask(r.w)>>sh {
			return values.Num{}, false
		}
		return values.Meet(values.URange(r.w, s.Lo, s.Hi<<sh), values.TopNum(r.w)), true
	}
	st := sub.num(r.step)
	sl, sh := st.SLo, st.SHi
	if sl != sh || sl == 0 {
		return values.Num{}, false
	}
	span, ok := mulOK(n-1, sl)
	if !ok {
		return values.Num{}, false
	}
	lo, hi := s.SLo, s.SHi
	if span < 0 {
		lo, ok = addOK(lo, span)
	} else {
		hi, ok = addOK(hi, span)
	}
	if !ok || lo < values.SRange(r.w, math.MinInt64, math.MaxInt64).SLo || hi > values.TopNum(r.w).SHi {
		return values.Num{}, false
	}
	pr := values.SRange(r.w, lo, hi)
	// Congruence: every value is start + j·step, so the low bits below
	// both the step's trailing zeros and the start's known low bits are
	// the start's.
	t := min(bits.TrailingZeros64(uint64(sl)), bits.TrailingZeros64(^(s.Zero | s.One)), r.w)
	pr.Zero |= s.Zero & values.Mask(t)
	pr.One |= s.One & values.Mask(t)
	return values.Meet(pr, values.TopNum(r.w)), true
}

// limitArms tightens dhi, the largest distance L - S (up) or S - L
// (down) from the start's form ss in d, when L is a minimum (up) or a
// maximum (down) in d: each arm A bounds L, so the distance is at most
// the largest A - S (S - A). Sound: min(A, B) <= A and <= B as integers
// of d, and each arm's form is exact when its checks hold.
func (e *evaluator) limitArms(lim *values.Value, ss lin, d dom, up bool, dhi int64) int64 {
	arms := minMaxArms(lim, d, up)
	for _, arm := range arms {
		la, err := e.lin(arm, d)
		if err != nil || e.checkAll(la.checks) != nil {
			continue
		}
		diff := la.sub(ss)
		if !up {
			diff = ss.sub(la)
		}
		if _, h, err := e.interval(diff); err == nil {
			dhi = min(dhi, h)
		}
	}
	return dhi
}

// minMaxArms returns the arms a, b of v = min(a, b) (up; max(a, b) when
// not up) in d: the operation, or select(a < b, a, b) (<= alike; b, a for
// the maximum), the form ptxas gives it on Volta and later (ISETP + SEL).
func minMaxArms(v *values.Value, d dom, up bool) []*values.Value {
	if v.Kind != values.VOp || v.W != d.w {
		return nil
	}
	mn := map[bool]values.Code{true: values.SMin, false: values.UMin}[d.signed]
	mx := map[bool]values.Code{true: values.SMax, false: values.UMax}[d.signed]
	switch {
	case up && v.Code == mn, !up && v.Code == mx:
		return v.Args[:2]
	case v.Code != values.Select:
		return nil
	}
	c, x, y := v.Args[0], v.Args[1], v.Args[2]
	lt, le := values.ULt, values.ULe
	if d.signed {
		lt, le = values.SLt, values.SLe
	}
	if c.Kind != values.VOp || c.Code != lt && c.Code != le {
		return nil
	}
	a, b := c.Args[0], c.Args[1]
	switch {
	case up && x == a && y == b, !up && x == b && y == a:
		return []*values.Value{a, b}
	}
	return nil
}

// neOrdered bounds a loop that stays while x != L as the ordered loop it
// is when every entry starts on the side of L it steps towards: x = S +
// k·s with s = ±2^t a constant, L - S a multiple of 2^t (the congruence
// forms), and a guard of the loop (a test every entry passes) that gives
// S <= L (up; S >= L down) as integers of one domain d. Then x_k = S +
// k·s stays strictly between S and L (no wrap: they are values of d) until
// it equals L at k = (L - S)/s, which is when x < L (x > L) first fails:
// the trip count is that of the ordered comparison in d, bounded by
// ordered over the launch (the modular reading of the same loop counts
// the distance modulo 2^w, and a thread the guard keeps out, whose L - S
// is negative, makes it about 2^w). ok is false when a premise is not
// proved or ordered refuses.
func (e *evaluator) neOrdered(c *candidate) (int64, bool) {
	r := c.iv
	if r.kind != recAdd || r.ext != 0 || e.d == nil || len(e.d.guards) == 0 {
		return 0, false
	}
	st, ok := e.num(r.step).Exact()
	if !ok {
		return 0, false
	}
	s := values.Signed(st&values.Mask(r.w), r.w)
	mag := abs64(s)
	if s == 0 || mag&(mag-1) != 0 {
		return 0, false
	}
	up := s > 0
	if !e.multipleOf(e.a.f.Op(values.Sub, r.w, c.lim, r.start), bits.TrailingZeros64(uint64(mag)), e.d.Loop) {
		return 0, false
	}
	lo, hi := r.start, c.lim // lo <= hi is the premise
	if !up {
		lo, hi = c.lim, r.start
	}
	for _, d := range []dom{{w: r.w, signed: true}, {w: r.w, signed: false}} {
		if !e.guardedLE(lo, hi, d) {
			continue
		}
		oc := *c
		oc.d = d
		oc.cmp = "lt"
		if !up {
			oc.cmp = "gt"
		}
		if k, err := e.ordered(&oc); err == nil {
			return k, true
		}
	}
	return 0, false
}

// guardedLE reports whether a guard of the loop gives a <= b as integers
// of d: it compares x and y in d (x < y or x <= y, or the negation of the
// opposite), a = x + c1 and b = y + c2 exactly (affine forms in d whose
// sums do not wrap at this launch) with c1 - c2 <= 1 (strict) or <= 0.
func (e *evaluator) guardedLE(a, b *values.Value, d dom) bool {
	for _, g := range e.d.guards {
		x, y, strict, ok := guardOrder(g.cond, g.want, d.signed)
		if !ok || x.W != d.w || y.W != d.w {
			continue
		}
		c1, ok1 := e.offset(a, x, d)
		c2, ok2 := e.offset(b, y, d)
		if !ok1 || !ok2 {
			continue
		}
		slack := int64(0)
		if strict {
			slack = 1
		}
		if c1-c2 <= slack {
			return true
		}
	}
	return false
}

// offset returns c with v = base + c as integers of d: v is base, or base
// plus a constant whose sum does not wrap at this launch, or the two are
// affine forms in d (exact: their checks hold) that differ by a constant.
func (e *evaluator) offset(v, base *values.Value, d dom) (int64, bool) {
	if v == base {
		return 0, true
	}
	if v.Kind == values.VOp && v.Code == values.Add && v.Args[0] == base {
		if k, ok := v.Args[1].IsConst(); ok {
			c := values.Signed(k, v.W)
			if !d.signed {
				c = int64(k)
			}
			n := e.num(base)
			lo, hi := n.SLo, n.SHi
			if !d.signed {
				if n.Hi > math.MaxInt64 {
					return 0, false
				}
				lo, hi = int64(n.Lo), int64(n.Hi)
			}
			l2, ok1 := addOK(lo, c)
			h2, ok2 := addOK(hi, c)
			if !n.Empty() && ok1 && ok2 && l2 >= d.min() && h2 <= d.max() {
				return c, true
			}
		}
	}
	lv, err1 := e.lin(v, d)
	lb, err2 := e.lin(base, d)
	if err1 != nil || err2 != nil || e.checkAll(lv.checks) != nil || e.checkAll(lb.checks) != nil {
		return 0, false
	}
	diff := lv.sub(lb)
	if len(diff.terms) != 0 {
		return 0, false
	}
	return diff.c, true
}

// guardOrder reads the test cond == want as x < y (strict) or x <= y,
// compared signed or unsigned as signed says.
func guardOrder(cond *values.Value, want, signed bool) (x, y *values.Value, strict, ok bool) {
	for cond.Kind == values.VOp && cond.Code == values.Not {
		cond, want = cond.Args[0], !want
	}
	if cond.Kind != values.VOp {
		return nil, nil, false, false
	}
	lt, le := values.ULt, values.ULe
	if signed {
		lt, le = values.SLt, values.SLe
	}
	a, b := cond.Args[0], cond.Args[1]
	switch {
	case cond.Code == lt && want:
		return a, b, true, true
	case cond.Code == le && want:
		return a, b, false, true
	case cond.Code == lt && !want: // !(a < b): b <= a
		return b, a, false, true
	case cond.Code == le && !want: // !(a <= b): b < a
		return b, a, true, true
	}
	return nil, nil, false, false
}

// applyGuards refines the values compared by the guards of the loop.
func (e *evaluator) applyGuards(gs []guardFact) {
	for pass := 0; pass < 2; pass++ {
		// The second pass re-reads each compared value with the facts
		// of the others (a guard on a value computed from another
		// guarded one, in either order).
		e.refresh = pass > 0
		for _, g := range gs {
			e.assume(g.cond, g.want)
		}
		e.reset()
	}
	e.refresh = false
}

// assume records that c == want (refining the values it compares).
func (e *evaluator) assume(c *values.Value, want bool) {
	if c.Kind != values.VOp {
		return
	}
	x := c.Args
	switch c.Code {
	case values.Not:
		e.assume(x[0], !want)
		return
	case values.And:
		if want {
			e.assume(x[0], true)
			e.assume(x[1], true)
		}
		return
	case values.Or:
		if !want {
			e.assume(x[0], false)
			e.assume(x[1], false)
		}
		return
	}
	code := c.Code
	if !want {
		// The complementary comparison holds.
		switch code {
		case values.Eq:
			code = values.Ne
		case values.Ne:
			code = values.Eq
		case values.ULt:
			code, x = values.ULe, []*values.Value{x[1], x[0]}
		case values.ULe:
			code, x = values.ULt, []*values.Value{x[1], x[0]}
		case values.SLt:
			code, x = values.SLe, []*values.Value{x[1], x[0]}
		case values.SLe:
			code, x = values.SLt, []*values.Value{x[1], x[0]}
		default:
			return
		}
	}
	a, b := e.num(x[0]), e.num(x[1])
	refine := func(v *values.Value, n values.Num) {
		e.refine(v, n, 0)
		if v.Kind == values.VOp && !slices.Contains(e.guarded, v) {
			e.guarded = append(e.guarded, v)
		}
	}
	w := x[0].W
	switch code {
	case values.Eq:
		refine(x[0], b)
		refine(x[1], a)
	case values.Ne:
		if bv, ok := b.Exact(); ok {
			if a.Lo == bv && a.Lo < a.Hi {
				refine(x[0], values.URange(w, bv+1, a.Hi))
			} else if a.Hi == bv && a.Lo < a.Hi {
				refine(x[0], values.URange(w, a.Lo, bv-1))
			}
		}
	case values.ULt:
		if b.Hi > 0 {
			refine(x[0], values.URange(w, 0, b.Hi-1))
		}
		if a.Lo < values.Mask(w) {
			refine(x[1], values.URange(w, a.Lo+1, values.Mask(w)))
		}
	case values.ULe:
		refine(x[0], values.URange(w, 0, b.Hi))
		refine(x[1], values.URange(w, a.Lo, values.Mask(w)))
	case values.SLt:
		if b.SHi > math.MinInt64 {
			refine(x[0], values.SRange(w, math.MinInt64, b.SHi-1))
		}
		if a.SLo < math.MaxInt64 {
			refine(x[1], values.SRange(w, a.SLo+1, math.MaxInt64))
		}
	case values.SLe:
		refine(x[0], values.SRange(w, math.MinInt64, b.SHi))
		refine(x[1], values.SRange(w, a.SLo, math.MaxInt64))
	}
}

// refine records that v is in n, and carries the fact down to the
// operands of a sum that does not wrap at this launch and of an
// extension: v = p + q in n gives p in n - range(q) (the guarded index
// gid = ctaid·ntid + tid < n bounds tid by n - 1 - min(ctaid·ntid), so
// that n - 1 - gid, computed by the compiler from tid another way, is
// known not to be negative: nvcc -O3's trip count of a 64-bit grid-stride
// loop). Exact: over the integers, no sum of the ranges wrapping, p = v -
// q for every value of the guarded execution.
func (e *evaluator) refine(v *values.Value, n values.Num, depth int) {
	if v.Kind == values.VConst {
		return
	}
	old, ok := e.facts[v]
	if !ok {
		old = e.num(v)
	} else if e.refresh && depth == 0 {
		// v's range from its operands' facts, without its own.
		delete(e.facts, v)
		e.reset()
		old = values.Meet(old, e.num(v))
	}
	m := values.Meet(old, n)
	e.facts[v] = m
	e.reset()
	if depth >= 4 || v.Kind != values.VOp || m.Empty() {
		return
	}
	switch v.Code {
	case values.ZExt, values.SExt:
		in := v.Args[0]
		if v.Code == values.ZExt && m.Hi <= values.Mask(in.W) {
			e.refine(in, values.URange(in.W, m.Lo, m.Hi), depth+1)
		}
		if v.Code == values.SExt && m.SLo >= values.SRange(in.W, math.MinInt64, math.MaxInt64).SLo && m.SHi <= values.TopNum(in.W).SHi {
			e.refine(in, values.SRange(in.W, m.SLo, m.SHi), depth+1)
		}
	case values.Mul:
		// p · k, k > 0 known at this launch, not wrapping (unsigned).
		for i := 0; i < 2; i++ {
			p, q := v.Args[i], v.Args[1-i]
			k, ok := e.num(q).Exact()
			pn := e.num(p)
			if !ok || k == 0 {
				continue
			}
			if hi, lo := bits.Mul64(pn.Hi, k); hi != 0 || lo > values.Mask(v.W) {
				continue
			}
			lo := m.Lo / k
			if m.Lo%k != 0 {
				lo++
			}
			e.refine(p, values.URange(p.W, lo, m.Hi/k), depth+1)
		}
	case values.Add:
		for i := 0; i < 2; i++ {
			p, q := v.Args[i], v.Args[1-i]
			pn, qn := e.num(p), e.num(q)
			// Signed: p + q does not wrap at v.W.
			if lo, ok1 := addOK(pn.SLo, qn.SLo); ok1 {
				if hi, ok2 := addOK(pn.SHi, qn.SHi); ok2 && lo >= values.SRange(v.W, math.MinInt64, math.MaxInt64).SLo && hi <= values.TopNum(v.W).SHi {
					l, okl := addOK(m.SLo, -min(qn.SHi, math.MaxInt64-1))
					h, okh := addOK(m.SHi, -max(qn.SLo, math.MinInt64+1))
					if okl && okh && qn.SHi < math.MaxInt64 && qn.SLo > math.MinInt64 {
						e.refine(p, values.SRange(p.W, l, h), depth+1)
					}
				}
			}
			// Unsigned: p + q does not wrap at v.W.
			if pn.Hi <= values.Mask(v.W)-qn.Hi {
				lo := uint64(0)
				if m.Lo > qn.Hi {
					lo = m.Lo - qn.Hi
				}
				if m.Hi >= qn.Lo {
					e.refine(p, values.URange(p.W, lo, m.Hi-qn.Lo), depth+1)
				}
			}
		}
	}
}

// skipped returns the guard that keeps every thread out of the loop at
// this launch, or nil.
func (e *evaluator) skipped(gs []guardFact) *guardFact {
	plain := e.a.newEvaluator(e.d, e.env, e.depth, e.memo)
	for i := range gs {
		g := &gs[i]
		n := plain.num(g.cond)
		if x, ok := n.Exact(); ok && (x != 0) != g.want {
			return g
		}
	}
	return nil
}

func (d *Derivation) evalNote(env Env) (int64, string, error) {
	return d.evalMemo(env, newEvalMemo())
}

// evalMemo is a top-level evaluation at a launch with a memo shared by
// other top-level evaluations at the same launch.
func (d *Derivation) evalMemo(env Env, memo *evalMemo) (int64, string, error) {
	memo.gen++
	return d.evalDepth(env, 0, memo)
}

// evalDepth evaluates the bound at a launch, memo holding what earlier
// evaluations found (see evalMemo).
func (d *Derivation) evalDepth(env Env, depth int, memo *evalMemo) (int64, string, error) {
	if m, ok := memo.bound[d]; ok && (!m.tainted || m.gen == memo.gen) {
		return m.n, m.note, m.err
	}
	cut := memo.cut
	n, note, err := d.evalUncached(env, depth, memo)
	memo.bound[d] = boundMemo{n: n, note: note, err: err, tainted: memo.cut != cut, gen: memo.gen}
	return n, note, err
}

func (d *Derivation) evalUncached(env Env, depth int, memo *evalMemo) (int64, string, error) {
	if d.Expr == nil {
		return 0, "", errors.New("no derived bound")
	}
	a := d.a
	e := a.newEvaluator(d, env, depth, memo)
	if g := e.skipped(d.guards); g != nil {
		return 1, "the test " + fmt.Sprintf("%q", g.at.Text) + " before the loop skips it at this launch", nil
	}
	e.applyGuards(d.guards)
	for v, n := range e.facts {
		if n.Empty() {
			// No value of v passes every test before the loop: no
			// thread enters it at this launch (as skipped).
			return 1, "the tests before the loop leave " + a.pretty(v) + " no value at this launch", nil
		}
	}
	best := int64(-1)
	var first error
	for _, c := range d.cands {
		v, err := e.eval(c)
		if err == nil && v < 0 {
			err = fmt.Errorf("the count %d is negative (an overflow)", v)
		}
		if err != nil {
			if first == nil {
				first = fmt.Errorf("exit test at %s: %w", a.lineOf(c.at), err)
			}
			continue
		}
		if best < 0 || v < best {
			best = v
		}
	}
	if best < 0 {
		return 0, "", first
	}
	return best, "", nil
}

// eval evaluates one candidate: the number of header executions.
func (e *evaluator) eval(c *candidate) (int64, error) {
	if len(c.or) > 0 {
		best := int64(0)
		for _, x := range c.or {
			v, err := e.eval(x)
			if err != nil {
				return 0, err
			}
			best = max(best, v)
		}
		if !c.entries {
			for _, x := range c.or {
				if err := e.staysOut(x, best); err != nil {
					return 0, err
				}
			}
		}
		return best, nil
	}
	if c.cmp == "never" {
		return 1, nil
	}
	r := c.iv
	// A kernel argument the bound depends on must be given: the bound
	// is not computed from the range of its type.
	if err := e.missingParam(c.lim, r.start, r.step); err != nil {
		return 0, err
	}
	switch r.kind {
	case recShr:
		return e.geometricDown(c)
	case recShl:
		return e.geometricUp(c)
	}
	switch c.cmp {
	case "ne":
		k, err := e.modular(c)
		if k2, ok := e.neOrdered(c); ok && (err != nil || k2 < k) {
			return k2, nil
		}
		return k, err
	case "eq":
		st := e.num(r.step)
		if st.Contains(0) {
			return 0, fmt.Errorf("the step %s may be 0", e.a.pretty(r.step))
		}
		return 2, nil
	}
	return e.ordered(c)
}

// staysOut checks that the induction value of x, a part of a disjunction,
// does not wrap around in the first n header executions: a value that left
// its comparison (while another part keeps the loop going) then never
// satisfies it again. A value doubling each iteration (it reaches 0) and
// one shifted right from a negative start are refused.
func (e *evaluator) staysOut(x *candidate, n int64) error {
	r := x.iv
	switch r.kind {
	case recShr:
		// From a non-negative start (geometricDown): down to 0, never
		// back above a limit it went below; from a negative start
		// (arithmetic, read signed): at or below 0, below every limit
		// geometricDown accepts.
		return nil
	case recShl:
		return errors.New("a doubling value in a disjunction may wrap around to 0 and satisfy its comparison again")
	}
	ivd := x.d
	if r.ext != 0 {
		ivd = dom{w: r.w, signed: r.ext == values.SExt}
	}
	read := func(v *values.Value) (int64, int64) {
		nv := e.num(v)
		if ivd.signed {
			nv = values.NumApply(values.SExt, 64, []values.Num{nv}, []int{nv.W})
			return nv.SLo, nv.SHi
		}
		if nv.Hi > math.MaxInt64 {
			return 0, math.MaxInt64
		}
		return int64(nv.Lo), int64(nv.Hi)
	}
	slo, shi := read(r.start)
	st := values.NumApply(values.SExt, 64, []values.Num{e.num(r.step)}, []int{r.w})
	span := n - 1
	hiSpan, ok1 := mulOK(span, max(st.SHi, 0))
	loSpan, ok2 := mulOK(span, min(st.SLo, 0))
	top, ok3 := addOK(shi, hiSpan)
	bot, ok4 := addOK(slo, loSpan)
	if !ok1 || !ok2 || !ok3 || !ok4 || top > ivd.max() || bot < ivd.min() {
		return fmt.Errorf("in a disjunction, %s may wrap around %s within the %d iterations another condition allows", e.a.pretty(r.start), ivd, n)
	}
	return nil
}

// unfollowed returns an error when one of vs is every value of its type
// at this launch because it depends on a value the analysis does not
// follow (a load, an unbounded enclosing loop): a bound computed from the
// type's range alone would hide that.
func (e *evaluator) unfollowed(vs ...*values.Value) error {
	for _, v := range vs {
		n := e.num(v)
		if n.Lo != 0 || n.Hi != values.Mask(v.W) || n.SLo != values.TopNum(v.W).SLo || n.SHi != values.TopNum(v.W).SHi {
			continue
		}
		op, leaves := values.Cause(v)
		if op == nil {
			// Every value of its type because an argument is not given.
			if err := e.missing(v); err != nil {
				return err
			}
			continue
		}
		if op.Kind == values.VPhi {
			return fmt.Errorf("%s depends on %s, which changes in a loop the analysis does not bound", e.a.pretty(v), e.a.name(op))
		}
		return fmt.Errorf("%s", e.a.notFollowed(v, op, leaves)[len("its condition "):])
	}
	return nil
}

// missing turns a failed evaluation into the error naming the launch
// values it needs (a kernel argument not given, a launch dimension).
func (e *evaluator) missing(vs ...*values.Value) error {
	var names []string
	seen := map[string]bool{}
	for _, v := range vs {
		_, leaves := values.Cause(v)
		for _, x := range leaves {
			name := x.Name
			if _, ok := e.env.Lookup(canonName(name)); ok || seen[name] {
				continue
			}
			switch {
			case x.Kind == values.VParam:
			case strings.HasPrefix(name, "ntid.") || strings.HasPrefix(name, "nctaid."):
			default:
				continue
			}
			seen[name] = true
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		return &UnknownNameError{Name: names[0]}
	}
	return nil
}

// missingParam returns the error naming the first kernel argument vs
// depend on that the launch does not give.
func (e *evaluator) missingParam(vs ...*values.Value) error {
	var names []string
	for _, v := range vs {
		_, leaves := values.Cause(v)
		for _, x := range leaves {
			if x.Kind != values.VParam {
				continue
			}
			if _, ok := e.env.Lookup(x.Name); !ok {
				names = append(names, x.Name)
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	return &UnknownNameError{Name: names[0]}
}

// ordered: the loop stays while x < L (le, gt, ge likewise); x_k = S + k·s.
func (e *evaluator) ordered(c *candidate) (int64, error) {
	r := c.iv
	d := c.d
	ivd := d
	if r.ext != 0 {
		ivd = dom{w: r.w, signed: r.ext == values.SExt}
		if d.signed && !ivd.signed && ivd.w >= d.w || !d.signed && ivd.signed {
			// A sign-extended value compared unsigned (or a zero-extended
			// one compared signed at its own width) is not monotone.
			if !(d.signed && !ivd.signed && ivd.w < d.w) {
				return 0, fmt.Errorf("the induction value is extended and compared with another signedness")
			}
		}
	}
	st := e.num(r.step)
	if st.SLo == math.MinInt64 && st.SHi == math.MaxInt64 || st.W != r.w {
		if err := e.missing(r.step); err != nil {
			return 0, err
		}
	}
	step := values.NumApply(values.SExt, 64, []values.Num{st}, []int{st.W})
	slo, shi := step.SLo, step.SHi
	up := c.cmp == "lt" || c.cmp == "le"
	if up && slo < 1 || !up && shi > -1 {
		if err := e.missing(r.step); err != nil {
			return 0, err
		}
		dir := "positive"
		if !up {
			dir = "negative"
		}
		return 0, fmt.Errorf("the step %s is not %s at this launch (it counts away from the limit %s, or may be 0)", e.a.pretty(r.step), dir, e.a.pretty(c.lim))
	}
	if max(abs64(slo), abs64(shi)) > ivd.max()/2 {
		return 0, fmt.Errorf("the step %s is not below half the range of %s", e.a.pretty(r.step), ivd)
	}
	if err := e.unfollowed(c.lim, r.start, r.step); err != nil {
		return 0, err
	}
	// D = L - S (up) or S - L (down), on affine forms.
	ls, errL := e.lin(c.lim, d)
	ss, errS := e.lin(r.start, ivd)
	if errL != nil || errS != nil {
		if err := e.missing(c.lim, r.start); err != nil {
			return 0, err
		}
		if errL != nil {
			return 0, errL
		}
		return 0, errS
	}
	// A form whose sums may wrap is read as the value itself (its range
	// at this launch), without the cancellation of common terms.
	if e.checkAll(ls.checks) != nil {
		ls = lin{terms: []term{{c.lim, d, 1}}}
	}
	if e.checkAll(ss.checks) != nil {
		ss = lin{terms: []term{{r.start, ivd, 1}}}
	}
	diff := ls.sub(ss)
	if !up {
		diff = ss.sub(ls)
	}
	_, dhi, err := e.interval(diff)
	if err != nil {
		if err2 := e.missing(c.lim, r.start); err2 != nil {
			return 0, err2
		}
		return 0, err
	}
	// A limit min(A, B) counted up to (max(A, B) down to) is at most A
	// and at most B (at least, down): the distance is at most each of
	// A - S and B - S, which cancel what A or B shares with S (y1 =
	// min(y0 + n, h) from y0: at most n).
	dhi = e.limitArms(c.lim, ss, d, up, dhi)
	// No wrap: the first value that leaves fits the induction type.
	llo, lhi, err := e.interval(ls)
	if err != nil {
		return 0, err
	}
	mag := shi
	if !up {
		mag = -slo
	}
	minMag := slo
	if !up {
		minMag = -shi
	}
	var k int64
	switch c.cmp {
	case "lt", "gt":
		// The first value that leaves is at most L + s - 1 (up), or
		// exactly L when the distance is a multiple of a constant step
		// 2^t (the compiler made it one: an unrolled loop after its
		// remainder loop).
		exact := slo == shi && mag&(mag-1) == 0 && llo >= ivd.min() && lhi <= ivd.max() &&
			e.multipleOf(e.a.f.Op(values.Sub, r.w, c.lim, r.start), bits.TrailingZeros64(uint64(mag)), e.d.Loop)
		if exact {
		} else if up {
			if last, ok := addOK(lhi, mag-1); !ok || last > ivd.max() {
				return 0, e.wrapErr(c, ivd)
			}
		} else if last, ok := addOK(llo, -(mag - 1)); !ok || last < ivd.min() {
			return 0, e.wrapErr(c, ivd)
		}
		if dhi <= 0 {
			k = 0
		} else {
			k = (dhi-1)/minMag + 1 // ceil(dhi / minMag); dhi + minMag - 1 may overflow
		}
	case "le", "ge":
		if up {
			if last, ok := addOK(lhi, mag); !ok || last > ivd.max() {
				return 0, e.wrapErr(c, ivd)
			}
		} else if last, ok := addOK(llo, -mag); !ok || last < ivd.min() {
			return 0, e.wrapErr(c, ivd)
		}
		if dhi < 0 {
			k = 0
		} else {
			k = dhi/minMag + 1
		}
	}
	n, ok := addOK(k, 1)
	if !ok {
		return 0, errors.New("the bound overflows")
	}
	return n, nil
}

func (e *evaluator) wrapErr(c *candidate, d dom) error {
	if err := e.missing(c.lim); err != nil {
		return err
	}
	return fmt.Errorf("the induction value would wrap around %s before leaving (limit %s)", d, e.a.pretty(c.lim))
}

// modular: the loop stays while x != L; x_k = S + k·s (mod 2^w): K is the
// least solution of S + K·s ≡ L, K = ((L - S) / 2^t) · inv(s / 2^t) mod
// 2^(w-t) with t the trailing zeros of s, provided 2^t divides L - S.
func (e *evaluator) modular(c *candidate) (int64, error) {
	r := c.iv
	sc, ok := e.num(r.step).Exact()
	if !ok {
		if err := e.missing(r.step); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("the induction value is compared with != and its step %s differs between threads", e.a.pretty(r.step))
	}
	w := r.w
	sc &= values.Mask(w)
	if sc == 0 {
		return 0, errors.New("the step is 0")
	}
	if err := e.unfollowed(c.lim, r.start); err != nil {
		return 0, err
	}
	f := e.a.f
	delta := f.Op(values.Sub, w, c.lim, r.start)
	if values.Signed(sc, w) < 0 {
		// Counting down by m = -s: S - K·m ≡ L, K·m ≡ S - L (the
		// distance then reads as a small non-negative number).
		delta = f.Op(values.Sub, w, r.start, c.lim)
		sc = -sc & values.Mask(w)
	}
	t := bits.TrailingZeros64(sc)
	mask := values.Mask(t)
	inv := modInverse(sc>>uint(t), w-t)
	// kOf is the largest K for a distance in dn (a multiple of 2^t).
	kOf := func(dn values.Num) uint64 {
		shifted := values.NumApply(values.LShr, w, []values.Num{dn, values.ConstNum(32, uint64(t))}, []int{w, 32})
		prod := values.NumApply(values.Mul, w, []values.Num{shifted, values.ConstNum(w, inv)}, []int{w, w})
		if t > 0 {
			prod = values.NumApply(values.And, w, []values.Num{prod, values.ConstNum(w, values.Mask(w-t))}, []int{w, w})
		}
		return prod.Hi
	}
	// The distance as a whole, and along each path into the loop (the
	// operand of each merge phi, the exit value of each earlier loop:
	// exact where the whole is only a range).
	k := uint64(math.MaxUint64)
	dn := e.num(delta)
	whole := t == 0 || dn.Zero&mask == mask
	if whole {
		k = kOf(dn)
	}
	var kp uint64
	if e.paths(delta, t, e.d.Loop, func(cg *congruence) bool {
		dv := cg.subst(delta, 0)
		n := e.num(dv)
		if t > 0 && n.Zero&mask != mask && !cg.multiple(delta) {
			return false
		}
		kp = max(kp, kOf(n))
		return true
	}) {
		k = min(k, kp)
		whole = true
	}
	if !whole {
		if err := e.missing(c.lim, r.start); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("the distance %s may not be a multiple of the step %d: the value may step over the limit", e.a.pretty(delta), values.Signed(sc, w))
	}
	if k >= 1<<40 {
		if err := e.missing(c.lim, r.start); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("the number of iterations to reach %s from %s is not known at this launch (it may be up to %d)", e.a.pretty(c.lim), e.a.pretty(r.start), k)
	}
	return int64(k) + 1, nil
}

// modInverse returns the inverse of the odd x modulo 2^w.
func modInverse(x uint64, w int) uint64 {
	inv := x // Newton: correct to 3 bits for odd x, doubling each step
	for i := 0; i < 6; i++ {
		inv *= 2 - x*inv
	}
	return inv & values.Mask(w)
}

// geometricDown: x_k = S >> (c·k) (or floor(S / d^k)); the loop stays
// while x > L, x >= L or x != 0: K = floor(log2(floor(S / T)) / c) + 1
// (floor(log_d(floor(S / T))) + 1) for the smallest T a staying value
// reaches (T = L+1, L, 1), 0 when S < T.
func (e *evaluator) geometricDown(c *candidate) (int64, error) {
	r := c.iv
	if err := e.unfollowed(c.lim, r.start); err != nil {
		return 0, err
	}
	sn := e.num(r.start)
	ln := e.num(c.lim)
	signedRead := c.d.signed || r.arith
	var smaxv uint64
	if signedRead {
		if sn.SLo < 0 {
			if err := e.missing(r.start); err != nil {
				return 0, err
			}
			// A negative start shifted arithmetically (or divided by
			// 2^k, rounding towards zero) stays at or below 0: read
			// signed, it never satisfies x > L (L >= 0) or x >= L
			// (L >= 1), the tests accepted below (t >= 1). Its part of
			// the range needs no iteration; != 0 is refused (-1 >> 1
			// is -1).
			if !(r.arith && c.d.signed) || c.cmp == "ne" {
				return 0, fmt.Errorf("the shifted value %s may be negative", e.a.pretty(r.start))
			}
		}
		smaxv = uint64(max(sn.SHi, 0))
	} else {
		smaxv = sn.Hi
	}
	var t uint64
	switch c.cmp {
	case "gt":
		if signedRead && ln.SLo < 0 {
			return 0, fmt.Errorf("the limit %s may be negative: the value may never go below it", e.a.pretty(c.lim))
		}
		t = lowU(ln, signedRead) + 1
	case "ge":
		t = lowU(ln, signedRead)
	case "ne":
		if x, ok := ln.Exact(); !ok || x != 0 {
			return 0, fmt.Errorf("a halved value is compared with != %s, not 0", e.a.pretty(c.lim))
		}
		t = 1
	default:
		return 0, fmt.Errorf("a value shifted right stays while it is %s the limit: the loop does not end by this test", cmpText[c.cmp])
	}
	if t < 1 {
		return 0, fmt.Errorf("the value reaches 0 and stays there: the loop does not end by this test")
	}
	q := smaxv / t
	k := int64(0)
	switch {
	case r.div != 0:
		// x_k = floor(S / d^k) >= T iff d^k <= floor(S / T).
		k = divSteps(q, r.div)
	case q >= 1:
		k = int64(bits.Len64(q)-1)/int64(r.shift) + 1
	}
	return k + 1, nil
}

func lowU(n values.Num, signed bool) uint64 {
	if signed {
		return uint64(max(n.SLo, 0))
	}
	return n.Lo
}

// geometricUp: x_k = S << (c·k), S >= 1; the loop stays while x < L (or
// <= L): K = floor(log2(floor(T / S)) / c) + 1 for T = L-1 (L), 0 when
// T < S; the first value that leaves must not wrap.
func (e *evaluator) geometricUp(c *candidate) (int64, error) {
	r := c.iv
	if err := e.unfollowed(c.lim, r.start); err != nil {
		return 0, err
	}
	sn := e.num(r.start)
	ln := e.num(c.lim)
	signedRead := c.d.signed
	slo := lowU(sn, signedRead)
	if signedRead && sn.SLo < 1 || !signedRead && sn.Lo < 1 {
		if err := e.missing(r.start); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("the initial value %s may be 0 (0 never grows)", e.a.pretty(r.start))
	}
	var top uint64
	lhi := ln.Hi
	if signedRead {
		if ln.SHi < 0 {
			return 1, nil
		}
		lhi = uint64(ln.SHi)
	}
	switch c.cmp {
	case "lt":
		if lhi == 0 {
			return 1, nil
		}
		top = lhi - 1
	case "le":
		top = lhi
	default:
		return 0, fmt.Errorf("a value shifted left stays while it is %s the limit: only < and <= limits are derived", cmpText[c.cmp])
	}
	dmax := uint64(c.d.max())
	if top > dmax>>uint(r.shift) {
		if err := e.missing(c.lim); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("the value would wrap around %s before leaving", c.d)
	}
	q := top / slo
	k := int64(0)
	if q >= 1 {
		k = int64(bits.Len64(q)-1)/int64(r.shift) + 1
	}
	return k + 1, nil
}

// ---- affine forms ----

type term struct {
	v *values.Value
	d dom
	k int64
}

// lin is c + Σ k·v (v read as an integer in d), exact when its checks hold.
type lin struct {
	c      int64
	terms  []term
	checks []wcheck
}

// wcheck requires the integer value of a form to lie in d (a sum that
// must not wrap).
type wcheck struct {
	l    lin
	d    dom
	what *values.Value
}

func (x lin) add(y lin, sign int64) lin {
	out := lin{c: x.c + sign*y.c}
	out.terms = append(out.terms, x.terms...)
	for _, t := range y.terms {
		found := false
		for i := range out.terms {
			if out.terms[i].v == t.v && out.terms[i].d == t.d {
				out.terms[i].k += sign * t.k
				found = true
				break
			}
		}
		if !found {
			out.terms = append(out.terms, term{t.v, t.d, sign * t.k})
		}
	}
	k := out.terms[:0]
	for _, t := range out.terms {
		if t.k != 0 {
			k = append(k, t)
		}
	}
	out.terms = k
	out.checks = append(append([]wcheck(nil), x.checks...), y.checks...)
	return out
}

func (x lin) sub(y lin) lin { return x.add(y, -1) }

func (x lin) scale(k int64) lin {
	out := lin{c: x.c * k, checks: x.checks}
	for _, t := range x.terms {
		out.terms = append(out.terms, term{t.v, t.d, t.k * k})
	}
	return out
}

// lin reads v, as an integer in d, as an affine form over values.
func (e *evaluator) lin(v *values.Value, d dom) (lin, error) {
	return linOf(v, d, 0)
}

// linAt is linOf at this launch: a value known exactly at the launch is
// a constant, a product by such a value a multiple, and ~x is -x - 1.
func (e *evaluator) linAt(v *values.Value, d dom) (lin, error) {
	return linOfAt(v, d, 0, e)
}

// linOf reads v, as an integer in d, as an affine form over values, exact
// when its checks hold (no sum wraps).
func linOf(v *values.Value, d dom, depth int) (lin, error) { return linOfAt(v, d, depth, nil) }

// linOfAt is linOf, reading values known exactly at the launch of e
// (when not nil) as constants, and ~x as -x - 1.
func linOfAt(v *values.Value, d dom, depth int, e *evaluator) (lin, error) {
	atom := lin{terms: []term{{v, d, 1}}}
	if depth > 16 {
		return atom, nil
	}
	if e != nil {
		if n := e.num(v); n.W == v.W {
			if x, ok := n.Exact(); ok {
				v = e.a.f.Const(v.W, x)
			}
		}
	}
	if x, ok := v.IsConst(); ok {
		if d.signed {
			return lin{c: values.Signed(x, v.W)}, nil
		}
		if x > math.MaxInt64 {
			return atom, nil
		}
		return lin{c: int64(x)}, nil
	}
	if v.Kind != values.VOp {
		return atom, nil
	}
	a := v.Args
	checked := func(l lin) lin {
		l.checks = append(l.checks, wcheck{l: lin{c: l.c, terms: l.terms}, d: d, what: v})
		return l
	}
	switch v.Code {
	case values.Add, values.Sub:
		x, err := linOfAt(a[0], d, depth+1, e)
		if err != nil {
			return x, err
		}
		y, err := linOfAt(a[1], d, depth+1, e)
		if err != nil {
			return y, err
		}
		s := int64(1)
		if v.Code == values.Sub {
			s = -1
		}
		return checked(x.add(y, s)), nil
	case values.Not:
		if e == nil {
			break
		}
		x, err := linOfAt(a[0], d, depth+1, e)
		if err != nil {
			return x, err
		}
		x = x.scale(-1)
		x.c--
		return checked(x), nil
	case values.Mul, values.Shl:
		k, ok := a[1].SignedConst()
		if !ok && e != nil && v.Code == values.Mul {
			// A product by a value known at the launch.
			if x, okx := e.num(a[0]).Exact(); okx && x <= 1<<31 {
				a = []*values.Value{a[1], e.a.f.Const(a[0].W, x)}
				k, ok = int64(x), true
			} else if x, okx := e.num(a[1]).Exact(); okx && x <= 1<<31 {
				a = []*values.Value{a[0], e.a.f.Const(a[1].W, x)}
				k, ok = int64(x), true
			}
		}
		if !ok {
			return atom, nil
		}
		if v.Code == values.Shl {
			if k < 0 || k > 30 {
				return atom, nil
			}
			k = 1 << uint(k)
		} else if !d.signed {
			kk, _ := a[1].IsConst()
			if kk > 1<<31 {
				return atom, nil
			}
			k = int64(kk)
		}
		if k > 1<<31 || k < -(1<<31) {
			return atom, nil
		}
		x, err := linOfAt(a[0], d, depth+1, e)
		if err != nil {
			return x, err
		}
		return checked(x.scale(k)), nil
	case values.Neg:
		x, err := linOfAt(a[0], d, depth+1, e)
		if err != nil {
			return x, err
		}
		return checked(x.scale(-1)), nil
	case values.ZExt:
		inner := dom{w: a[0].W, signed: false}
		if !d.signed || inner.w < d.w {
			return linOfAt(a[0], inner, depth+1, e)
		}
	case values.SExt:
		if d.signed {
			return linOfAt(a[0], dom{w: a[0].W, signed: true}, depth+1, e)
		}
	}
	return atom, nil
}

// termInterval is the range of k·v read in d.
func (e *evaluator) termInterval(t term) (int64, int64, error) {
	n := e.num(t.v)
	if n.Empty() {
		return 0, -1, nil
	}
	var lo, hi int64
	if t.d.signed {
		if t.v.W != t.d.w {
			n = values.NumApply(values.SExt, 64, []values.Num{n}, []int{n.W})
		}
		lo, hi = n.SLo, n.SHi
	} else {
		if n.Hi > math.MaxInt64 {
			return 0, 0, fmt.Errorf("%s may exceed 2^63", e.a.pretty(t.v))
		}
		lo, hi = int64(n.Lo), int64(n.Hi)
	}
	a, ok1 := mulOK(lo, t.k)
	b, ok2 := mulOK(hi, t.k)
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("%s × %d overflows", e.a.pretty(t.v), t.k)
	}
	return min(a, b), max(a, b), nil
}

// interval is the range of a form.
func (e *evaluator) interval(l lin) (int64, int64, error) {
	lo, hi := l.c, l.c
	for _, t := range l.terms {
		a, b, err := e.termInterval(t)
		if err != nil {
			return 0, 0, err
		}
		var ok1, ok2 bool
		lo, ok1 = addOK(lo, a)
		hi, ok2 = addOK(hi, b)
		if !ok1 || !ok2 {
			return 0, 0, fmt.Errorf("the range of %s overflows", e.a.pretty(t.v))
		}
	}
	return lo, hi, nil
}

func (e *evaluator) checkAll(cs []wcheck) error {
	for _, c := range cs {
		lo, hi, err := e.interval(c.l)
		if err != nil {
			return err
		}
		if lo < c.d.min() || hi > c.d.max() {
			return fmt.Errorf("%s may wrap around %s at this launch (it ranges over [%d, %d])", e.a.pretty(c.what), c.d, lo, hi)
		}
	}
	return nil
}

func addOK(a, b int64) (int64, bool) {
	s := a + b
	if a > 0 && b > 0 && s < 0 || a < 0 && b < 0 && s >= 0 {
		return 0, false
	}
	return s, true
}

func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	hi, lo := bits.Mul64(uint64(abs64(a)), uint64(abs64(b)))
	if hi != 0 || lo > math.MaxInt64 || a == math.MinInt64 || b == math.MinInt64 {
		return 0, false
	}
	p := int64(lo)
	if (a < 0) != (b < 0) {
		p = -p
	}
	return p, true
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Unfollowed says, when every exit test of the derived bound reads a
// value the analysis does not follow (an opaque value other than a
// constant-bank word, or a variable read before any write), why one such
// value is not followed: the bound is then a formula over data, not over
// the launch, and holds at a launch only where that value's range bounds
// it. It returns "" when some exit test depends on launch values and
// constants alone, when the data's range alone bounds the loop (the bound
// evaluates with no launch value known: "x & 7"), or when no bound was
// derived.
func (d *Derivation) Unfollowed() string {
	if d.Expr == nil || len(d.cands) == 0 || d.a == nil {
		return ""
	}
	if _, _, err := d.evalNote(noLaunch{}); err == nil {
		return ""
	}
	var first *values.Value
	for _, c := range d.cands {
		v := c.unfollowed()
		if v == nil {
			return ""
		}
		if first == nil {
			first = v
		}
	}
	return d.a.opaqueWhy(first)
}

// unfollowed returns a value the analysis does not follow that c's bound
// reads, or nil. A disjunction's bound is the largest of its disjuncts'
// (entries or not): it reads every disjunct's values.
func (c *candidate) unfollowed() *values.Value {
	if len(c.or) > 0 {
		for _, x := range c.or {
			if v := x.unfollowed(); v != nil {
				return v
			}
		}
		return nil
	}
	for _, v := range []*values.Value{c.lim, c.iv.start, c.iv.step} {
		if op := opaqueIn(v); op != nil {
			return op
		}
	}
	return nil
}

// opaqueIn returns an opaque value (not a constant-bank word) or an
// undefined variable that v is computed from, or nil.
func opaqueIn(v *values.Value) *values.Value {
	seen := map[*values.Value]bool{}
	var walk func(x *values.Value, depth int) *values.Value
	walk = func(x *values.Value, depth int) *values.Value {
		if x == nil || seen[x] || depth > 64 {
			return nil
		}
		seen[x] = true
		switch x.Kind {
		case values.VOpaque:
			if !x.ConstantBank() {
				return x
			}
		case values.VUndef:
			return x
		}
		for _, a := range x.Args {
			if op := walk(a, depth+1); op != nil {
				return op
			}
		}
		return nil
	}
	return walk(v, 0)
}

// noLaunch is the environment that knows no launch value.
type noLaunch struct{}

// Lookup implements Env.
func (noLaunch) Lookup(string) (int64, bool) { return 0, false }
