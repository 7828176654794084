package loops

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Derivation is the derived bound of one loop, before evaluation: an
// expression over launch dimensions and kernel arguments, with the
// conditions under which it is exact arithmetic on the machine (no
// wrap-around of the induction register, a step of the right sign).
type Derivation struct {
	Loop *cfg.Loop
	// Expr is the bound, nil when the loop is not understood.
	Expr *Expr
	// Why explains the bound (the induction register, its step, the exit
	// test), or why there is none.
	Why string

	cands []*candidate // Expr is the min of their exprs
}

type candidate struct {
	expr   *Expr
	checks []check
	why    string
}

// check requires an expression to lie in [lo, hi] at evaluation time.
type check struct {
	e      *Expr
	lo, hi int64
	msg    string // what fails when it does not
}

// Eval evaluates the bound at a launch configuration: the smallest value
// among the exit tests whose conditions hold. When no exit test's
// conditions hold, the error of the first is returned.
func (d *Derivation) Eval(env Env) (int64, error) {
	if d.Expr == nil {
		return 0, errors.New("no derived bound")
	}
	best := int64(-1)
	var first error
	for _, c := range d.cands {
		v, err := c.eval(env)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		if best < 0 || v < best {
			best = v
		}
	}
	if best < 0 {
		return 0, first
	}
	return best, nil
}

func (c *candidate) eval(env Env) (int64, error) {
	for _, ch := range c.checks {
		v, err := ch.e.Eval(env)
		if err != nil {
			var ue *UnknownNameError
			if errors.As(err, &ue) {
				return 0, err
			}
			return 0, fmt.Errorf("%s: %v", ch.msg, err)
		}
		if v < ch.lo || v > ch.hi {
			return 0, fmt.Errorf("%s (%s = %d)", ch.msg, ch.e, v)
		}
	}
	v, err := c.expr.Eval(env)
	if err != nil {
		return 0, err
	}
	if v < 1 {
		return 0, fmt.Errorf("internal error: derived bound %s = %d", c.expr, v)
	}
	return v, nil
}

// Derive computes the derived bound of every loop of g, in the order of
// g.Loops. It needs no launch configuration.
func Derive(g *cfg.Graph) []*Derivation {
	a := newAnalysis(g)
	out := make([]*Derivation, len(g.Loops))
	for i, l := range g.Loops {
		out[i] = a.derive(l)
	}
	return out
}

// domain is how a comparison reads its operands.
type domain struct {
	width  int
	signed bool
}

func (d domain) min() int64 {
	if !d.signed {
		return 0
	}
	return -1 << (d.width - 1)
}

func (d domain) max() int64 {
	if d.signed || d.width == 64 {
		return 1<<(d.width-1) - 1 // u64 is capped at int64: larger values are errors
	}
	return 1<<d.width - 1
}

func (d domain) String() string {
	if d.signed {
		return "s" + strconv.Itoa(d.width)
	}
	return "u" + strconv.Itoa(d.width)
}

// typeOf reads the integer type of an instruction from its modifiers.
func typeOf(in *isa.Instr) (domain, bool) {
	for i := len(in.Mods) - 1; i >= 0; i-- {
		m := in.Mods[i]
		if len(m) < 2 {
			continue
		}
		var signed bool
		switch m[0] {
		case 's':
			signed = true
		case 'u', 'b':
		default:
			continue
		}
		switch m[1:] {
		case "16", "32", "64":
			w, _ := strconv.Atoi(m[1:])
			return domain{w, signed}, true
		}
	}
	return domain{}, false
}

type analysis struct {
	g       *cfg.Graph
	where   map[*isa.Instr]loc
	defs    map[string][]*isa.Instr // register -> its definitions
	params  map[string]isa.Param
	special map[string]bool
}

type loc struct {
	b *cfg.Block
	i int
}

func newAnalysis(g *cfg.Graph) *analysis {
	a := &analysis{g: g, where: map[*isa.Instr]loc{}, defs: map[string][]*isa.Instr{}, params: map[string]isa.Param{}}
	for _, b := range g.Blocks {
		for i, in := range b.Instrs {
			a.where[in] = loc{b, i}
			for _, d := range in.Defs() {
				a.defs[d] = append(a.defs[d], in)
			}
		}
	}
	if g.Func != nil {
		for _, p := range g.Func.Params {
			a.params[p.Name] = p
		}
	}
	return a
}

// ---- symbolic values within one iteration ----

// term is coeff × (the value of an invariant register at loop entry).
type term struct {
	reg   string
	coeff int64
}

// lin is c + Σ terms: an offset added to a base value.
type lin struct {
	c     int64
	terms []term
}

func (x lin) add(y lin, sign int64) (lin, bool) {
	c, ok := arith(opAdd, x.c, sign*y.c)
	if !ok || y.c == math.MinInt64 {
		return lin{}, false
	}
	out := lin{c: c, terms: append([]term(nil), x.terms...)}
	for _, t := range y.terms {
		found := false
		for i := range out.terms {
			if out.terms[i].reg == t.reg {
				out.terms[i].coeff += sign * t.coeff
				found = true
			}
		}
		if !found {
			out.terms = append(out.terms, term{t.reg, sign * t.coeff})
		}
	}
	k := out.terms[:0]
	for _, t := range out.terms {
		if t.coeff != 0 {
			k = append(k, t)
		}
	}
	out.terms = k
	sort.Slice(out.terms, func(i, j int) bool { return out.terms[i].reg < out.terms[j].reg })
	return out, true
}

func (x lin) isZero() bool { return x.c == 0 && len(x.terms) == 0 }

// sym is the value of a register at a point of an iteration: base's value
// at the header of this iteration plus off, or (shr > 0) base's header
// value shifted right; base "" is a constant (off.c, plus invariant terms).
type sym struct {
	known bool
	base  string
	off   lin
	shr   int
	width int // 0: any (a header value or a constant)
}

var unknown = sym{}

// pred is the value of a predicate register: cmp(a, b).
type pred struct {
	known bool
	cmp   string
	dom   domain
	a, b  sym
	at    *isa.Instr
}

func (a *analysis) derive(l *cfg.Loop) *Derivation {
	d := &Derivation{Loop: l}
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
	spine := a.spine(l)
	// Registers written in the loop, and those written off the spine
	// (in a branch arm or an inner loop) or under a guard: their value in
	// the iteration is not followed.
	inLoop := map[string]bool{}
	clobbered := map[string]bool{}
	onSpine := map[*cfg.Block]bool{}
	for _, b := range spine {
		onSpine[b] = true
	}
	for _, b := range l.Blocks {
		for _, in := range b.Instrs {
			for _, r := range in.Defs() {
				inLoop[r] = true
				if !onSpine[b] || in.Guard.Reg != "" {
					clobbered[r] = true
				}
			}
		}
	}
	// Walk the spine once, recording the state at each exit test.
	st := map[string]sym{}
	ps := map[string]pred{}
	val := func(o isa.Operand) sym {
		switch o.Kind {
		case isa.OpImm:
			v, err := strconv.ParseInt(o.Text, 0, 64)
			if err != nil {
				return unknown
			}
			return sym{known: true, off: lin{c: v}}
		case isa.OpReg:
			if len(o.Regs) != 1 || o.Neg {
				return unknown
			}
			r := o.Regs[0]
			if clobbered[r] {
				return unknown
			}
			if s, ok := st[r]; ok {
				return s
			}
			if !inLoop[r] {
				// Invariant: a term, resolved at the loop entry.
				return sym{known: true, off: lin{terms: []term{{r, 1}}}}
			}
			return sym{known: true, base: r}
		case isa.OpSpecial:
			if _, ok := specialRange(o.Text); ok {
				return sym{known: true, off: lin{terms: []term{{o.Text, 1}}}}
			}
		}
		return unknown
	}
	type exitTest struct {
		b    *cfg.Block
		p    pred
		stay bool // the loop continues when the predicate is stay
	}
	var tests []exitTest
	var notes []string
	for _, b := range spine {
		for _, in := range b.Instrs {
			if in.Kind == isa.KindBranch && in == b.Last() && b.Kind == cfg.BlockIf {
				t, f := b.Succs[0].To, b.Succs[1].To
				tin, fin := t != g.Exit && l.Contains(t), f != g.Exit && l.Contains(f)
				if tin == fin {
					continue
				}
				p, ok := ps[in.Guard.Reg]
				if !ok || !p.known || clobbered[in.Guard.Reg] {
					why := "its predicate is not set by a comparison in every iteration"
					if clobbered[in.Guard.Reg] {
						why = "its predicate is written conditionally"
					} else if ok && p.at != nil {
						why = a.unknownWhy(p.at, clobbered, inLoop)
					}
					notes = append(notes, fmt.Sprintf("the exit test at %s is not understood: %s", a.lineOf(in), why))
					continue
				}
				// taken when the guard holds: guard = p, or !p when Neg.
				stay := tin != in.Guard.Neg // continue when p == stay
				tests = append(tests, exitTest{b, p, stay})
				continue
			}
			a.step(in, st, ps, val)
		}
	}
	// The value of each register at the end of the iteration.
	if len(tests) == 0 {
		if len(notes) > 0 {
			return fail("%s", notes[0])
		}
		return fail("no exit test is executed in every iteration (the loop leaves only from a branch arm, an inner loop, or not at all)")
	}
	for _, t := range tests {
		c, why := a.candidate(l, t.p, t.stay, st, clobbered, inLoop)
		if c == nil {
			notes = append(notes, fmt.Sprintf("exit test at %s: %s", a.lineOf(t.p.at), why))
			continue
		}
		d.cands = append(d.cands, c)
	}
	if len(d.cands) == 0 {
		return fail("%s", strings.Join(notes, "; "))
	}
	var es []*Expr
	var whys []string
	for _, c := range d.cands {
		es = append(es, c.expr)
		whys = append(whys, c.why)
	}
	d.Expr = minE(es...)
	d.Why = strings.Join(whys, "; ")
	return d
}

// spine returns the blocks executed exactly once in every iteration that
// returns to the header: the blocks of the loop (not of an inner loop)
// that dominate every latch, in execution (dominance) order.
func (a *analysis) spine(l *cfg.Loop) []*cfg.Block {
	var sp []*cfg.Block
	for _, b := range l.Blocks {
		if b.Loop != l {
			continue
		}
		all := true
		for _, t := range l.Latches {
			if !a.g.Dominates(b, t) {
				all = false
				break
			}
		}
		if all {
			sp = append(sp, b)
		}
	}
	// Dominance is a total order on these blocks (each dominates every
	// latch); insertion sort, as it is not a strict weak order on others.
	for i := 1; i < len(sp); i++ {
		for j := i; j > 0 && a.g.Dominates(sp[j], sp[j-1]); j-- {
			sp[j], sp[j-1] = sp[j-1], sp[j]
		}
	}
	return sp
}

// step applies one spine instruction to the symbolic state.
func (a *analysis) step(in *isa.Instr, st map[string]sym, ps map[string]pred, val func(isa.Operand) sym) {
	// Read the sources before the destinations are written.
	srcs := make([]sym, len(in.Srcs))
	for i, o := range in.Srcs {
		srcs[i] = val(o)
	}
	val = func(o isa.Operand) sym {
		for i := range in.Srcs {
			if in.Srcs[i].Text == o.Text && in.Srcs[i].Kind == o.Kind {
				return srcs[i]
			}
		}
		return unknown
	}
	defs := in.Defs()
	for _, r := range defs {
		st[r] = unknown
		delete(ps, r)
		ps[r] = pred{}
	}
	if in.Guard.Reg != "" || len(in.Dsts) != 1 || len(defs) != 1 || in.Dsts[0].Kind != isa.OpReg {
		return
	}
	d := defs[0]
	ty, ok := typeOf(in)
	if !ok {
		return
	}
	typed := func(s sym) sym {
		if !s.known || s.width != 0 && s.width != ty.width {
			return unknown
		}
		if s.base != "" || s.shr > 0 {
			s.width = ty.width
		}
		return s
	}
	switch in.Opcode {
	case "mov":
		if len(in.Srcs) == 1 {
			st[d] = typed(val(in.Srcs[0]))
		}
	case "add", "sub":
		if len(in.Mods) != 1 || len(in.Srcs) != 2 { // add.s32 only: no .sat, .cc, floats
			return
		}
		x, y := typed(val(in.Srcs[0])), typed(val(in.Srcs[1]))
		if !x.known || !y.known {
			return
		}
		sign := int64(1)
		if in.Opcode == "sub" {
			sign = -1
		}
		if in.Opcode == "add" && x.base == "" && y.base != "" {
			x, y = y, x
		}
		if y.base != "" || x.shr > 0 || y.shr > 0 {
			return
		}
		off, ok := x.off.add(y.off, sign)
		if !ok {
			return
		}
		st[d] = sym{known: true, base: x.base, off: off, width: ty.width}
	case "shr":
		if len(in.Srcs) != 2 || len(in.Mods) != 1 {
			return
		}
		x := typed(val(in.Srcs[0]))
		k := val(in.Srcs[1])
		if !x.known || x.base == "" || !x.off.isZero() || !k.known || k.base != "" || len(k.off.terms) > 0 || k.off.c < 1 || k.off.c >= int64(ty.width) {
			return
		}
		st[d] = sym{known: true, base: x.base, shr: x.shr + int(k.off.c), width: ty.width}
	case "setp":
		ps[d] = pred{at: in}
		if len(in.Mods) != 2 || len(in.Srcs) != 2 {
			return // setp.lt.and, setp with two destinations
		}
		x, y := typed(val(in.Srcs[0])), typed(val(in.Srcs[1]))
		if !x.known || !y.known {
			return
		}
		ps[d] = pred{known: true, cmp: in.Mods[0], dom: ty, a: x, b: y, at: in}
		delete(st, d)
	}
}

var swapCmp = map[string]string{"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne",
	"lo": "hi", "ls": "hs", "hi": "lo", "hs": "ls"}
var notCmp = map[string]string{"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}
var unsignedCmp = map[string]string{"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}

// candidate derives the bound from one exit test.
func (a *analysis) candidate(l *cfg.Loop, p pred, stay bool, end map[string]sym, clobbered, inLoop map[string]bool) (*candidate, string) {
	cmp, dom := p.cmp, p.dom
	if u, ok := unsignedCmp[cmp]; ok {
		cmp = u
		dom.signed = false
	}
	if _, ok := notCmp[cmp]; !ok {
		return nil, fmt.Sprintf("comparison %q is not supported", p.cmp)
	}
	x, y := p.a, p.b
	if x.base == "" && y.base != "" {
		x, y = y, x
		cmp = swapCmp[cmp]
	}
	if x.base == "" {
		return nil, "the comparison involves no register written in the loop"
	}
	if y.base != "" {
		return nil, "both operands of the comparison change in the loop"
	}
	if !stay {
		cmp = notCmp[cmp]
	}
	v := x.base
	if clobbered[v] {
		return nil, fmt.Sprintf("%s is written conditionally or in an inner loop", v)
	}
	next, ok := end[v]
	if !ok || !next.known || next.base != v {
		return nil, fmt.Sprintf("%s is not stepped by a constant or a launch dimension in every iteration", v)
	}
	if next.width != 0 && next.width != dom.width || x.width != 0 && x.width != dom.width {
		return nil, fmt.Sprintf("%s is stepped at another width than it is compared (%s)", v, dom)
	}
	entry := a.entryPreds(l)
	init, why := a.entryValue(v, entry, dom.width)
	if init == nil {
		return nil, fmt.Sprintf("the initial value of %s is not known: %s", v, why)
	}
	limit, why := a.linValue(y.off, entry, dom.width)
	if limit == nil {
		return nil, fmt.Sprintf("the limit is not known: %s", why)
	}
	rel := map[string]string{"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}[cmp]
	if next.shr > 0 {
		return a.geometric(v, x, next, cmp, rel, dom, init, limit)
	}
	if x.shr > 0 {
		return nil, "the comparison reads a shifted induction register that is not shifted each iteration"
	}
	stepIv, why := a.linValue(next.off, entry, dom.width)
	if stepIv == nil {
		return nil, fmt.Sprintf("the step of %s is not known: %s", v, why)
	}
	if !stepIv.exact() {
		return nil, fmt.Sprintf("the step of %s differs between threads", v)
	}
	offIv, why := a.linValue(x.off, entry, dom.width)
	if offIv == nil || !offIv.exact() {
		return nil, fmt.Sprintf("the compared value of %s is not known: %s", v, why)
	}
	c := stepIv.lo
	// I' = the compared value in the first iteration.
	ilo, ihi := add(init.lo, offIv.lo), add(init.hi, offIv.lo)
	llo, lhi := limit.lo, limit.hi
	dmin, dmax := dom.min(), dom.max()
	inDom := func(e *Expr, what string) check {
		return check{e, dmin, dmax, fmt.Sprintf("%s is outside the range of %s", what, dom)}
	}
	checks := []check{inDom(ilo, "the first compared value"), inDom(ihi, "the first compared value"), inDom(llo, "the limit"), inDom(lhi, "the limit")}
	cv, cConst := c.IsConst()
	desc := fmt.Sprintf("%s steps by %s from %s; stays while %s %s %s (%s)", v, c, rangeText(init), showSym(x, v), rel, rangeText(limit), dom)
	one := Const(1)
	switch cmp {
	case "lt", "le":
		if cConst && cv <= 0 {
			return nil, fmt.Sprintf("%s counts away from its limit (%s %s %s, step %d): the loop does not end by this test", v, showSym(x, v), rel, rangeText(limit), cv)
		}
		checks = append(checks, check{c, 1, maxStep(dom), "the step must be positive and below half the register range"})
		var m, last *Expr
		if cmp == "lt" {
			// M = ceil((Lhi - I'lo) / c); first value leaving: < L + c.
			m = div(add(sub(lhi, ilo), sub(c, one)), c)
			last = sub(add(lhi, c), one)
		} else {
			m = add(div(sub(lhi, ilo), c), one)
			last = add(lhi, c)
		}
		checks = append(checks, check{last, dmin, dmax, fmt.Sprintf("%s would wrap around before leaving the loop", v)})
		return &candidate{expr: add(maxE(Const(0), m), one), checks: checks, why: desc}, ""
	case "gt", "ge":
		if cConst && cv >= 0 {
			return nil, fmt.Sprintf("%s counts away from its limit (%s %s %s, step %d): the loop does not end by this test", v, showSym(x, v), rel, rangeText(limit), cv)
		}
		neg := fold(&Expr{op: opNeg, args: []*Expr{c}})
		checks = append(checks, check{c, -maxStep(dom), -1, "the step must be negative and below half the register range"})
		var m, last *Expr
		if cmp == "gt" {
			m = div(add(sub(ihi, llo), sub(neg, one)), neg)
			last = add(sub(llo, neg), one)
		} else {
			m = add(div(sub(ihi, llo), neg), one)
			last = sub(llo, neg)
		}
		checks = append(checks, check{last, dmin, dmax, fmt.Sprintf("%s would wrap around before leaving the loop", v)})
		return &candidate{expr: add(maxE(Const(0), m), one), checks: checks, why: desc}, ""
	case "ne":
		if !cConst {
			return nil, fmt.Sprintf("%s is compared with != and its step %s is not a constant", v, c)
		}
		never := fmt.Sprintf("%s never equals the limit: it would wrap around", v)
		var m *Expr
		switch {
		case cv == 1:
			checks = append(checks, check{sub(llo, ihi), 0, math.MaxInt64, never})
			m = sub(lhi, ilo)
		case cv == -1:
			checks = append(checks, check{sub(ilo, lhi), 0, math.MaxInt64, never})
			m = sub(ihi, llo)
		default:
			if !init.exact() || !limit.exact() {
				return nil, fmt.Sprintf("%s steps by %d and is compared with != to a value that differs between threads", v, cv)
			}
			diff := sub(lhi, ilo)
			checks = append(checks, check{div(diff, Const(cv)), 0, math.MaxInt64, never},
				check{&Expr{op: opMod, args: []*Expr{diff, Const(cv)}}, 0, 0, never})
			m = div(diff, Const(cv))
		}
		return &candidate{expr: add(m, one), checks: checks, why: desc}, ""
	case "eq":
		lim := int64(1) << min(dom.width, 62)
		if !cConst || cv == 0 || cv <= -lim || cv >= lim {
			return nil, fmt.Sprintf("%s is compared with == and its step %s is not a small non-zero constant", v, c)
		}
		return &candidate{expr: Const(2), checks: checks, why: desc + "; the register equals the limit in at most one iteration"}, ""
	}
	return nil, "unsupported comparison"
}

// maxStep is the largest step magnitude the derivation accepts: below half
// the register range, so that a step has one sign.
func maxStep(d domain) int64 { return 1<<(min(d.width, 63)-1) - 1 }

// geometric derives the bound of a loop whose register is shifted right by
// a constant every iteration: x, x>>s, x>>2s, ...
func (a *analysis) geometric(v string, x, next sym, cmp, rel string, dom domain, init, limit *interval) (*candidate, string) {
	if !next.off.isZero() || !x.off.isZero() {
		return nil, "shifted and offset induction register"
	}
	s, t := next.shr, x.shr
	lo := limit.lo
	switch cmp {
	case "ge":
	case "gt":
		lo = add(limit.lo, Const(1))
	case "ne":
		if z, ok := limit.lo.IsConst(); !ok || z != 0 || !limit.exact() {
			return nil, fmt.Sprintf("%s is halved and compared with != to a value other than 0", v)
		}
		lo = Const(1)
	default:
		return nil, fmt.Sprintf("%s decreases by shifts and stays while %s %s: the loop does not end by this test", v, v, rel)
	}
	desc := fmt.Sprintf("%s shifts right by %d from %s; stays while %s %s %s (%s)", v, s, rangeText(init), showSym(x, v), rel, rangeText(limit), dom)
	checks := []check{
		{init.lo, 0, dom.max(), fmt.Sprintf("the initial value of %s must be non-negative", v)},
		{init.hi, 0, dom.max(), fmt.Sprintf("the initial value of %s is outside the range of %s", v, dom)},
		{limit.hi, dom.min(), dom.max(), fmt.Sprintf("the limit is outside the range of %s", dom)},
		{lo, 1, dom.max(), fmt.Sprintf("%s reaches 0 and stays there: the loop does not end by this test", v)},
	}
	// M = max(0, (log2(Ihi / L) - t) / s + 1), N = M + 1.
	m := add(div(sub(log2E(div(init.hi, lo)), Const(int64(t))), Const(int64(s))), Const(1))
	return &candidate{expr: add(maxE(Const(0), m), Const(1)), checks: checks, why: desc}, ""
}

// unknownWhy explains why the comparison at setp is not understood.
func (a *analysis) unknownWhy(setp *isa.Instr, clobbered, inLoop map[string]bool) string {
	if len(setp.Mods) != 2 || len(setp.Srcs) != 2 {
		return fmt.Sprintf("%q is not a plain comparison", setp.Text)
	}
	for _, o := range setp.Srcs {
		for _, r := range o.Regs {
			if clobbered[r] {
				return fmt.Sprintf("%s is written conditionally, under a guard or in an inner loop", r)
			}
		}
	}
	return fmt.Sprintf("an operand of %q is not an induction register or a loop invariant (a loaded value, a conversion, another width)", setp.Text)
}

func showSym(s sym, v string) string {
	out := v
	if s.shr > 0 {
		out = fmt.Sprintf("(%s >> %d)", v, s.shr)
	}
	if s.off.c != 0 || len(s.off.terms) > 0 {
		out += " + " + linText(s.off)
	}
	return strings.ReplaceAll(out, "+ -", "- ")
}

func linText(x lin) string {
	var parts []string
	for _, t := range x.terms {
		parts = append(parts, fmt.Sprintf("%d*%s", t.coeff, t.reg))
	}
	if x.c != 0 || len(parts) == 0 {
		parts = append(parts, strconv.FormatInt(x.c, 10))
	}
	return strings.Join(parts, " + ")
}

// ---- values at the loop entry ----

// interval is the range of a value over the threads of a launch: lo and
// hi are expressions over launch dimensions and arguments.
type interval struct {
	lo, hi *Expr
}

func (iv *interval) exact() bool { return iv.lo.String() == iv.hi.String() }

func rangeText(iv *interval) string {
	if iv.exact() {
		return iv.lo.String()
	}
	return "[" + iv.lo.String() + ", " + iv.hi.String() + "]"
}

func (a *analysis) entryPreds(l *cfg.Loop) []*cfg.Block {
	var ps []*cfg.Block
	for _, e := range l.Header.Preds {
		if !l.Contains(e.From) && e.From.Reachable {
			ps = append(ps, e.From)
		}
	}
	return ps
}

// entryValue is the range of register r when the loop is entered.
func (a *analysis) entryValue(r string, entry []*cfg.Block, width int) (*interval, string) {
	if len(entry) == 0 {
		return nil, "the loop has no entry"
	}
	var defs []*isa.Instr
	seen := map[*isa.Instr]bool{}
	for _, p := range entry {
		ds, undef := a.reaching(r, p, len(p.Instrs))
		if undef {
			return nil, fmt.Sprintf("%s may be undefined when the loop is entered", r)
		}
		for _, d := range ds {
			if !seen[d] {
				seen[d] = true
				defs = append(defs, d)
			}
		}
	}
	return a.union(r, defs, width, map[*isa.Instr]bool{}, 0)
}

// linValue is the range of c + Σ coeff × reg at the loop entry.
func (a *analysis) linValue(x lin, entry []*cfg.Block, width int) (*interval, string) {
	out := &interval{Const(x.c), Const(x.c)}
	for _, t := range x.terms {
		var iv *interval
		var why string
		if strings.HasPrefix(t.reg, "%") && isSpecialName(t.reg) {
			iv, _ = specialRange(t.reg)
		} else {
			iv, why = a.entryValue(t.reg, entry, width)
		}
		if iv == nil {
			return nil, why
		}
		iv = scale(iv, t.coeff)
		if iv == nil {
			return nil, "a product of values of unknown sign"
		}
		out = &interval{add(out.lo, iv.lo), add(out.hi, iv.hi)}
	}
	return out, ""
}

func isSpecialName(s string) bool { _, ok := specialRange(s); return ok }

// specialRange is the range of a special register over a launch.
func specialRange(s string) (*interval, bool) {
	name := strings.TrimPrefix(s, "%")
	base, dim, _ := strings.Cut(name, ".")
	switch dim {
	case "x", "y", "z":
	default:
		if name == "laneid" {
			return &interval{Const(0), Const(31)}, true
		}
		return nil, false
	}
	switch base {
	case "ntid", "nctaid":
		return &interval{Var(name), Var(name)}, true
	case "tid":
		return &interval{Const(0), sub(Var("ntid."+dim), Const(1))}, true
	case "ctaid":
		return &interval{Const(0), sub(Var("nctaid."+dim), Const(1))}, true
	}
	return nil, false
}

// reaching returns the definitions of r that reach instruction i of block
// b (the end when i == len(b.Instrs)), and whether a path from the entry
// reaches it without any.
func (a *analysis) reaching(r string, b *cfg.Block, i int) ([]*isa.Instr, bool) {
	var defs []*isa.Instr
	undef := false
	visited := map[*cfg.Block]bool{}
	var scan func(b *cfg.Block, i int)
	scan = func(b *cfg.Block, i int) {
		for j := i - 1; j >= 0; j-- {
			in := b.Instrs[j]
			if writes(in, r) {
				defs = append(defs, in)
				if in.Guard.Reg == "" {
					return
				}
			}
		}
		if b.Index == 0 {
			undef = true
		}
		for _, e := range b.Preds {
			if p := e.From; p.Reachable && !visited[p] {
				visited[p] = true
				scan(p, len(p.Instrs))
			}
		}
	}
	scan(b, i)
	return defs, undef
}

func writes(in *isa.Instr, r string) bool {
	for _, d := range in.Defs() {
		if d == r {
			return true
		}
	}
	return false
}

// union is the range of r over its reaching definitions.
func (a *analysis) union(r string, defs []*isa.Instr, width int, stack map[*isa.Instr]bool, depth int) (*interval, string) {
	if len(defs) == 0 {
		return nil, fmt.Sprintf("%s has no definition", r)
	}
	var out *interval
	for _, d := range defs {
		iv, why := a.defValue(d, width, stack, depth)
		if iv == nil {
			return nil, why
		}
		if out == nil {
			out = iv
		} else if out.lo.String() != iv.lo.String() || out.hi.String() != iv.hi.String() {
			out = &interval{minE(out.lo, iv.lo), maxE(out.hi, iv.hi)}
		}
	}
	return out, ""
}

const maxDefDepth = 24

// defValue is the range of the value an instruction writes, as an
// expression of launch dimensions and arguments; every instruction on the
// way must be a ring operation (mov, add, sub, mul.lo, mad.lo, shl) of the
// compared width, so that the machine value is the exact value modulo
// 2^width (the caller checks the range of the result).
func (a *analysis) defValue(in *isa.Instr, width int, stack map[*isa.Instr]bool, depth int) (*interval, string) {
	if depth > maxDefDepth {
		return nil, "the value is computed by too long a chain"
	}
	if stack[in] {
		return nil, fmt.Sprintf("the value at %s depends on itself (it changes in an enclosing loop)", a.lineOf(in))
	}
	stack[in] = true
	defer delete(stack, in)
	bad := func() (*interval, string) {
		return nil, fmt.Sprintf("%q at %s is not a computation of launch dimensions and arguments", in.Text, a.lineOf(in))
	}
	if len(in.Dsts) != 1 || len(in.Defs()) != 1 {
		return bad()
	}
	ty, ok := typeOf(in)
	if in.Opcode == "ld" {
		if !in.HasMod("param") || len(in.Srcs) != 1 || in.Srcs[0].Kind != isa.OpMem || !ok || ty.width != width {
			return bad()
		}
		name := strings.TrimSpace(strings.Trim(in.Srcs[0].Text, "[]"))
		name = strings.TrimSuffix(name, "+0")
		p, found := a.params[name]
		if !found || p.Array != 0 || p.Size*8 < width {
			return bad()
		}
		return &interval{Var(name), Var(name)}, ""
	}
	if !ok || ty.width != width {
		return nil, fmt.Sprintf("%q at %s computes at another width than the comparison (%d bits)", in.Text, a.lineOf(in), width)
	}
	l := a.where[in]
	opnd := func(o isa.Operand) (*interval, string) {
		switch o.Kind {
		case isa.OpImm:
			v, err := strconv.ParseInt(o.Text, 0, 64)
			if err != nil {
				return bad()
			}
			return &interval{Const(v), Const(v)}, ""
		case isa.OpSpecial:
			if iv, ok := specialRange(o.Text); ok {
				return iv, ""
			}
			return nil, fmt.Sprintf("special register %s is not a launch dimension or thread index", o.Text)
		case isa.OpReg:
			if len(o.Regs) != 1 || o.Neg {
				return bad()
			}
			ds, undef := a.reaching(o.Regs[0], l.b, l.i)
			if undef {
				return nil, fmt.Sprintf("%s may be undefined at %s", o.Regs[0], a.lineOf(in))
			}
			return a.union(o.Regs[0], ds, width, stack, depth+1)
		}
		return bad()
	}
	ops := make([]*interval, len(in.Srcs))
	for i, o := range in.Srcs {
		iv, why := opnd(o)
		if iv == nil {
			return nil, why
		}
		ops[i] = iv
	}
	mods := strings.Join(in.Mods, ".")
	switch {
	case in.Opcode == "mov" && len(ops) == 1:
		return ops[0], ""
	case in.Opcode == "add" && len(ops) == 2 && len(in.Mods) == 1:
		return &interval{add(ops[0].lo, ops[1].lo), add(ops[0].hi, ops[1].hi)}, ""
	case in.Opcode == "sub" && len(ops) == 2 && len(in.Mods) == 1:
		return &interval{sub(ops[0].lo, ops[1].hi), sub(ops[0].hi, ops[1].lo)}, ""
	case in.Opcode == "mul" && len(ops) == 2 && strings.HasPrefix(mods, "lo."):
		if iv := product(ops[0], ops[1]); iv != nil {
			return iv, ""
		}
		return nil, fmt.Sprintf("%q at %s multiplies values of unknown sign", in.Text, a.lineOf(in))
	case in.Opcode == "mad" && len(ops) == 3 && strings.HasPrefix(mods, "lo."):
		if iv := product(ops[0], ops[1]); iv != nil {
			return &interval{add(iv.lo, ops[2].lo), add(iv.hi, ops[2].hi)}, ""
		}
		return nil, fmt.Sprintf("%q at %s multiplies values of unknown sign", in.Text, a.lineOf(in))
	case (in.Opcode == "shr" || in.Opcode == "div") && len(ops) == 2 && len(in.Mods) == 1:
		// Only of a launch dimension or a non-negative constant: values
		// that fit every integer type, so the machine division is exact.
		k, ok := ops[1].lo.IsConst()
		x := ops[0].lo
		if !ok || !ops[1].exact() || !ops[0].exact() || !(x.op == opVar && isDim(x.name) || x.op == opConst && x.val >= 0) {
			return bad()
		}
		if in.Opcode == "shr" {
			if k < 0 || k >= int64(width) || k > 62 {
				return bad()
			}
			k = int64(1) << k
		}
		if k <= 0 {
			return bad()
		}
		q := div(x, Const(k))
		return &interval{q, q}, ""
	case in.Opcode == "shl" && len(ops) == 2:
		k, ok := ops[1].lo.IsConst()
		if !ok || !ops[1].exact() || k < 0 || k >= int64(width) || k > 62 {
			return bad()
		}
		return scale(ops[0], int64(1)<<k), ""
	}
	return bad()
}

// scale multiplies an interval by a constant.
func scale(iv *interval, k int64) *interval {
	switch {
	case k == 1:
		return iv
	case k >= 0:
		return &interval{mul(Const(k), iv.lo), mul(Const(k), iv.hi)}
	default:
		return &interval{mul(Const(k), iv.hi), mul(Const(k), iv.lo)}
	}
}

// product multiplies two intervals when the signs allow it statically:
// a constant factor, two exact values, or two non-negative ranges.
func product(x, y *interval) *interval {
	if k, ok := x.lo.IsConst(); ok && x.exact() {
		return scale(y, k)
	}
	if k, ok := y.lo.IsConst(); ok && y.exact() {
		return scale(x, k)
	}
	if x.exact() && y.exact() {
		p := mul(x.lo, y.lo)
		return &interval{p, p}
	}
	if nonNeg(x.lo) && nonNeg(y.lo) {
		return &interval{mul(x.lo, y.lo), mul(x.hi, y.hi)}
	}
	return nil
}

// nonNeg reports whether an expression is non-negative for every launch:
// launch dimensions are positive.
func nonNeg(e *Expr) bool {
	switch e.op {
	case opConst:
		return e.val >= 0
	case opVar:
		return isDim(e.name)
	case opAdd, opMul:
		return nonNeg(e.args[0]) && nonNeg(e.args[1])
	case opMax:
		for _, x := range e.args {
			if nonNeg(x) {
				return true
			}
		}
	case opMin:
		for _, x := range e.args {
			if !nonNeg(x) {
				return false
			}
		}
		return true
	}
	return false
}

func (a *analysis) lineOf(in *isa.Instr) string {
	if in == nil || a.g.Fset == nil || !in.Pos.IsValid() {
		return "?"
	}
	p := a.g.Fset.Position(in.Pos)
	return fmt.Sprintf("line %d", p.Line)
}
