package loops

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
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
	reg    string  // the induction register of the exit test
	guards []guard // tests before the loop that may skip it
	// refined: the ranges were narrowed by guards (refine); a bound
	// below 1 then means that they are empty: no thread enters.
	refined bool
}

// guard is a comparison of launch-invariant values on every path into a
// loop (a block ending in a conditional branch, one arm of which every
// entry into the loop passes): when it evaluates to skip, the loop is not
// entered at that launch.
type guard struct {
	cmp    string // lt le gt ge eq ne, on dom
	dom    domain
	x, y   *Expr
	checks []check // side conditions of x and y (conversions)
	skipIf bool    // the loop is skipped when cmp(x, y) == skipIf
	at     *isa.Instr

	regs  [2]string    // the registers compared ("" for others)
	ivs   [2]*interval // their ranges at the test
	after []*cfg.Block // the blocks between the test and the loop
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
	v, _, err := d.evalNote(env)
	return v, err
}

// evalNote is Eval, with a note when a guard before the loop skips it at
// env (the bound is then 1, whatever the expression).
func (d *Derivation) evalNote(env Env) (int64, string, error) {
	if d.Expr == nil {
		return 0, "", errors.New("no derived bound")
	}
	best := int64(-1)
	var first error
	for _, c := range d.cands {
		if g := c.skipped(env); g != nil {
			return 1, "the test " + strconv.Quote(g.at.Text) + " before the loop skips it at this launch", nil
		}
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
		return 0, "", first
	}
	return best, "", nil
}

// skipped returns the guard that skips the loop at env, or nil. A guard
// whose values cannot be evaluated, or lie outside its comparison's type,
// is not used.
func (c *candidate) skipped(env Env) *guard {
	for i := range c.guards {
		g := &c.guards[i]
		ok := true
		for _, ch := range g.checks {
			v, err := ch.e.Eval(env)
			if err != nil || v < ch.lo || v > ch.hi {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		x, err1 := g.x.Eval(env)
		y, err2 := g.y.Eval(env)
		if err1 != nil || err2 != nil || x < g.dom.min() || x > g.dom.max() || y < g.dom.min() || y > g.dom.max() {
			continue
		}
		var r bool
		switch g.cmp {
		case "lt":
			r = x < y
		case "le":
			r = x <= y
		case "gt":
			r = x > y
		case "ge":
			r = x >= y
		case "eq":
			r = x == y
		case "ne":
			r = x != y
		default:
			continue
		}
		if r == g.skipIf {
			return g
		}
	}
	return nil
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
	if v < 1 && c.refined {
		return 1, nil
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
		out[i] = a.deriveMemo(l)
	}
	return out
}

// deriveMemo derives each loop once (inner loops use the derivations of
// the loops around them, see inductionRange).
func (a *analysis) deriveMemo(l *cfg.Loop) *Derivation {
	if d := a.derivs[l]; d != nil {
		return d
	}
	a.deriving[l] = true
	saved := a.side
	a.side = nil
	d := a.derive(l)
	a.side = saved
	delete(a.deriving, l)
	a.derivs[l] = d
	return d
}

// domain is how a comparison reads its operands. cap, when set, is the
// type of a narrower register sign- or zero-extended into the compared
// one: the values considered are those of both types.
type domain struct {
	width  int
	signed bool
	cap    *domain
}

func (d domain) min() int64 {
	m := int64(0)
	if d.signed {
		m = -1 << (d.width - 1)
	}
	if d.cap != nil {
		m = max(m, d.cap.min())
	}
	return m
}

func (d domain) max() int64 {
	m := int64(1)<<d.width - 1
	if d.signed || d.width == 64 {
		m = 1<<(d.width-1) - 1 // u64 is capped at int64: larger values are errors
	}
	if d.cap != nil {
		m = min(m, d.cap.max())
	}
	return m
}

// effWidth is the width of the register that steps: the compared width,
// or that of the extended register.
func (d domain) effWidth() int {
	if d.cap != nil {
		return min(d.width, d.cap.width)
	}
	return d.width
}

func (d domain) String() string {
	s := "u"
	if d.signed {
		s = "s"
	}
	s += strconv.Itoa(d.width)
	if d.cap != nil {
		s += " of " + d.cap.String()
	}
	return s
}

// intType reads an integer type modifier (s32, u16, b64).
func intType(m string) (domain, bool) {
	if len(m) < 3 {
		return domain{}, false
	}
	var signed bool
	switch m[0] {
	case 's':
		signed = true
	case 'u', 'b':
	default:
		return domain{}, false
	}
	switch m[1:] {
	case "16", "32", "64":
		w, _ := strconv.Atoi(m[1:])
		return domain{width: w, signed: signed}, true
	}
	return domain{}, false
}

// cvtTypes reads the destination and source types of an integer cvt
// without rounding or saturation (cvt.s64.s32).
func cvtTypes(in *isa.Instr) (dst, src domain, ok bool) {
	if in.Opcode != "cvt" || len(in.Mods) != 2 || len(in.Srcs) != 1 {
		return
	}
	d, ok1 := intType(in.Mods[0])
	s, ok2 := intType(in.Mods[1])
	return d, s, ok1 && ok2
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
			return domain{width: w, signed: signed}, true
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

	derivs    map[*cfg.Loop]*Derivation
	deriving  map[*cfg.Loop]bool
	walks     map[*cfg.Loop]*walk
	guardMemo map[*cfg.Loop][]guard
	// views are the PTX-shaped views of SASS instructions (sass.go).
	views map[*isa.Instr]*isa.Instr
	// side collects the conditions under which the values computed by
	// defValue are exact (a widening conversion needs its operand in the
	// source type); candidate moves them into its checks.
	side []check
}

// offAt is the value of a register after its definition in.
type offAt struct {
	in *isa.Instr
	s  sym
}

// walk is the symbolic execution of one iteration of a loop's spine.
type walk struct {
	inLoop, clobbered map[string]bool
	end               map[string]sym     // values at the end of the iteration
	offs              map[string][]offAt // the values a register takes after each of its definitions
}

type loc struct {
	b *cfg.Block
	i int
}

func newAnalysis(g *cfg.Graph) *analysis {
	a := &analysis{g: g, where: map[*isa.Instr]loc{}, defs: map[string][]*isa.Instr{}, params: map[string]isa.Param{},
		derivs: map[*cfg.Loop]*Derivation{}, deriving: map[*cfg.Loop]bool{}, walks: map[*cfg.Loop]*walk{}, guardMemo: map[*cfg.Loop][]guard{}}
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
	a.sassViews()
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
// value shifted right, or (shl > 0) shifted left; base "" is a constant
// (off.c, plus invariant terms). The value is exact modulo 2^width: every
// operation on the way is at least that wide (a truncating cvt lowers
// width). When ext is set, the register is that value at ext's width,
// sign- or zero-extended (per ext) to extTo bits by a cvt.
type sym struct {
	known bool
	base  string
	off   lin
	shr   int
	shl   int
	width int // 0: any (a header value or a constant)
	ext   *domain
	extTo int
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
	// R2P PR (and the like) write every predicate register.
	expandPR(inLoop)
	expandPR(clobbered)
	// Walk the spine once, recording the state at each exit test.
	st := map[string]sym{}
	ps := map[string]pred{}
	w := &walk{inLoop: inLoop, clobbered: clobbered, end: st, offs: map[string][]offAt{}}
	a.walks[l] = w
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
			for _, r := range in.Defs() {
				if !clobbered[r] {
					w.offs[r] = append(w.offs[r], offAt{in, st[r]})
				}
			}
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
	var exact []guard
	for _, g := range a.guards(l) {
		if g.ivs[0].exact() && g.ivs[1].exact() {
			exact = append(exact, g)
		}
	}
	for _, c := range d.cands {
		c.guards = exact
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
	for r := range ps {
		if predClobber(in, r) {
			ps[r] = pred{}
		}
	}
	in = a.viewOf(in)
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
	// typed reads an operand of an operation at ty.width: a value exact
	// modulo at least that width; an extended value only when it is
	// copied or compared at the width it was extended to.
	typed := func(s sym, keepExt bool) sym {
		if s.known && s.ext != nil {
			if !keepExt || s.extTo != ty.width {
				return unknown
			}
			return s
		}
		if !s.known || s.width != 0 && s.width < ty.width {
			return unknown
		}
		if s.base != "" || s.shr > 0 || s.shl > 0 || s.width != 0 {
			s.width = ty.width
		}
		return s
	}
	switch in.Opcode {
	case "mov":
		if len(in.Srcs) == 1 {
			st[d] = typed(val(in.Srcs[0]), true)
		}
	case "cvt":
		dt, stype, ok := cvtTypes(in)
		if !ok {
			return
		}
		x := val(in.Srcs[0])
		if !x.known || x.ext != nil || x.shr > 0 || x.shl > 0 || x.width != 0 && x.width < min(dt.width, stype.width) {
			return
		}
		cw := x.width
		if cw == 0 {
			cw = stype.width
		}
		if dt.width <= stype.width {
			// Truncation (or a change of signedness): the low bits.
			x.width = min(cw, dt.width)
			st[d] = x
			return
		}
		// Widening: the extension of the low stype.width bits.
		if x.base == "" {
			if len(x.off.terms) == 0 && x.off.c >= stype.min() && x.off.c <= stype.max() {
				st[d] = sym{known: true, off: lin{c: x.off.c}}
			}
			return
		}
		x.width = min(cw, stype.width)
		x.ext, x.extTo = &stype, dt.width
		st[d] = x
	case "add", "sub":
		if len(in.Mods) != 1 || len(in.Srcs) != 2 { // add.s32 only: no .sat, .cc, floats
			return
		}
		x, y := typed(val(in.Srcs[0]), false), typed(val(in.Srcs[1]), false)
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
		if y.base != "" || x.shr > 0 || y.shr > 0 || x.shl > 0 || y.shl > 0 {
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
		x := typed(val(in.Srcs[0]), false)
		k := val(in.Srcs[1])
		if !x.known || x.base == "" || !x.off.isZero() || x.shl > 0 || !k.known || k.base != "" || len(k.off.terms) > 0 || k.off.c < 1 || k.off.c >= int64(ty.width) {
			return
		}
		st[d] = sym{known: true, base: x.base, shr: x.shr + int(k.off.c), width: ty.width}
	case "shl", "mul":
		// x << k, or x * 2^k (mul.lo): a geometric loop counting up.
		if len(in.Srcs) != 2 || in.Opcode == "shl" && len(in.Mods) != 1 || in.Opcode == "mul" && (len(in.Mods) != 2 || in.Mods[0] != "lo") {
			return
		}
		x, k := typed(val(in.Srcs[0]), false), val(in.Srcs[1])
		if in.Opcode == "mul" && x.known && x.base == "" {
			x, k = typed(k, false), x
		}
		if !x.known || x.base == "" || !x.off.isZero() || x.shr > 0 || !k.known || k.base != "" || len(k.off.terms) > 0 {
			return
		}
		s := k.off.c
		if in.Opcode == "mul" {
			if s < 2 || s&(s-1) != 0 {
				return
			}
			s = int64(bits.TrailingZeros64(uint64(s)))
		}
		if s < 1 || s >= int64(ty.width) || x.shl+int(s) > 62 {
			return
		}
		st[d] = sym{known: true, base: x.base, shl: x.shl + int(s), width: ty.width}
	case "setp":
		ps[d] = pred{at: in}
		if len(in.Mods) != 2 || len(in.Srcs) != 2 {
			return // setp.lt.and, setp with two destinations
		}
		x, y := typed(val(in.Srcs[0]), true), typed(val(in.Srcs[1]), true)
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

// candidate derives the bound from one exit test, with the side
// conditions of the values it reads (a.side) among its checks.
func (a *analysis) candidate(l *cfg.Loop, p pred, stay bool, end map[string]sym, clobbered, inLoop map[string]bool) (*candidate, string) {
	saved := a.side
	a.side = nil
	defer func() { a.side = saved }()
	c, why := a.candidate0(l, p, stay, end, clobbered, inLoop)
	if c != nil {
		c.checks = append(c.checks, a.side...)
		c.reg = p.a.base
		if c.reg == "" {
			c.reg = p.b.base
		}
	}
	return c, why
}

func (a *analysis) candidate0(l *cfg.Loop, p pred, stay bool, end map[string]sym, clobbered, inLoop map[string]bool) (*candidate, string) {
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
	if x.ext != nil {
		// The compared value is the register extended: exact while the
		// register's values lie in its own type too.
		if next.shr > 0 || next.shl > 0 || x.shr > 0 || x.shl > 0 {
			return nil, fmt.Sprintf("%s is shifted and extended", v)
		}
		capd := *x.ext
		dom.cap = &capd
	}
	cw := dom.effWidth()
	if next.width != 0 && next.width < cw || x.width != 0 && x.width < cw {
		return nil, fmt.Sprintf("%s is stepped at a narrower width than it is compared (%s)", v, dom)
	}
	if (next.shr > 0 || next.shl > 0 || x.shr > 0 || x.shl > 0) && (next.width != 0 && next.width != dom.width || x.width != 0 && x.width != dom.width) {
		return nil, fmt.Sprintf("%s is shifted at another width than it is compared (%s)", v, dom)
	}
	entry := a.entryPreds(l)
	init, why := a.entryValue(v, entry, cw)
	if init == nil {
		return nil, fmt.Sprintf("the initial value of %s is not known: %s", v, why)
	}
	limit, why := a.linValue(y.off, entry, dom.width)
	if limit == nil {
		return nil, fmt.Sprintf("the limit is not known: %s", why)
	}
	// Guards before the loop narrow the initial value and the limit to
	// those of the threads that enter; when none enters, the ranges are
	// empty and the bound is at least 1.
	var r1, r2 bool
	init, r1 = a.refine(l, v, init)
	if y.off.c == 0 && len(y.off.terms) == 1 && y.off.terms[0].coeff == 1 {
		limit, r2 = a.refine(l, y.off.terms[0].reg, limit)
	}
	if r1 || r2 {
		c, why := a.candidate1(l, v, x, y, next, cmp, dom, init, limit, entry, cw)
		if c != nil {
			c.refined = true
			c.why += "; narrowed by the test before the loop"
		}
		return c, why
	}
	return a.candidate1(l, v, x, y, next, cmp, dom, init, limit, entry, cw)
}

// candidate1 derives the bound from the ranges of the initial value and
// the limit.
func (a *analysis) candidate1(l *cfg.Loop, v string, x, y, next sym, cmp string, dom domain, init, limit *interval, entry []*cfg.Block, cw int) (*candidate, string) {
	rel := map[string]string{"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}[cmp]
	if next.shr > 0 && next.shl == 0 && x.shl == 0 {
		return a.geometric(v, x, next, cmp, rel, dom, init, limit)
	}
	if next.shl > 0 && next.shr == 0 && x.shr == 0 {
		return a.geometricUp(v, x, next, cmp, rel, dom, init, limit)
	}
	if x.shr > 0 || x.shl > 0 || next.shr > 0 || next.shl > 0 {
		return nil, "the comparison reads a shifted induction register that is not shifted each iteration"
	}
	stepIv, why := a.linValue(next.off, entry, cw)
	if stepIv == nil {
		return nil, fmt.Sprintf("the step of %s is not known: %s", v, why)
	}
	if !stepIv.exact() {
		return nil, fmt.Sprintf("the step of %s differs between threads", v)
	}
	offIv, why := a.linValue(x.off, entry, cw)
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
		lim := int64(1) << min(dom.effWidth(), 62)
		if !cConst || cv == 0 || cv <= -lim || cv >= lim {
			return nil, fmt.Sprintf("%s is compared with == and its step %s is not a small non-zero constant", v, c)
		}
		return &candidate{expr: Const(2), checks: checks, why: desc + "; the register equals the limit in at most one iteration"}, ""
	}
	return nil, "unsupported comparison"
}

// maxStep is the largest step magnitude the derivation accepts: below half
// the register range, so that a step has one sign.
func maxStep(d domain) int64 { return 1<<(min(d.effWidth(), 63)-1) - 1 }

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

// geometricUp derives the bound of a loop whose register is shifted left
// (or multiplied by a power of two) every iteration: x, x<<s, x<<2s, ...
// It stays while x < L (or x <= L); x starts at 1 or more.
func (a *analysis) geometricUp(v string, x, next sym, cmp, rel string, dom domain, init, limit *interval) (*candidate, string) {
	if !next.off.isZero() || !x.off.isZero() || x.shr > 0 {
		return nil, "shifted and offset induction register"
	}
	s, t := next.shl, x.shl
	if t != 0 && t != s {
		return nil, fmt.Sprintf("%s is compared shifted by %d but steps by a shift of %d", v, t, s)
	}
	var top *Expr // the largest value that stays
	switch cmp {
	case "lt":
		top = sub(limit.hi, Const(1))
	case "le":
		top = limit.hi
	default:
		return nil, fmt.Sprintf("%s grows by shifts and stays while %s %s: only < and <= limits are derived", v, v, rel)
	}
	scaleT := Const(int64(1) << t)
	ilo, ihi := mul(init.lo, scaleT), mul(init.hi, scaleT)
	desc := fmt.Sprintf("%s shifts left by %d from %s; stays while %s %s %s (%s)", v, s, rangeText(init), showSym(x, v), rel, rangeText(limit), dom)
	checks := []check{
		{init.lo, 1, dom.max(), fmt.Sprintf("the initial value of %s must be positive (0 never grows)", v)},
		{ihi, 1, dom.max(), fmt.Sprintf("the first compared value of %s is outside the range of %s", v, dom)},
		{limit.lo, dom.min(), dom.max(), fmt.Sprintf("the limit is outside the range of %s", dom)},
		{limit.hi, dom.min(), dom.max(), fmt.Sprintf("the limit is outside the range of %s", dom)},
		// A value that stays is at most top; the next one must not wrap.
		{mul(maxE(Const(0), top), Const(int64(1)<<s)), dom.min(), dom.max(), fmt.Sprintf("%s would wrap around before leaving the loop", v)},
	}
	// M = #{k >= 0 : ilo * 2^(s k) <= top} = log2(top / ilo) / s + 1
	// (0 when top < ilo: log2(0) = -1), N = M + 1.
	q := div(maxE(Const(0), top), ilo)
	m := add(div(log2E(q), Const(int64(s))), Const(1))
	return &candidate{expr: add(maxE(Const(0), m), Const(1)), checks: checks, why: desc}, ""
}

// unknownWhy explains why the comparison at setp is not understood.
func (a *analysis) unknownWhy(setp *isa.Instr, clobbered, inLoop map[string]bool) string {
	if len(setp.Mods) != 2 || len(setp.Srcs) != 2 {
		return fmt.Sprintf("%q is not a plain comparison", setp.Text)
	}
	for _, o := range setp.Srcs {
		if o.Kind == isa.OpMem && strings.HasPrefix(o.Text, "c[") {
			return fmt.Sprintf("an operand of %q is the constant-bank value %s, whose kernel argument is not known", setp.Text, o.Text)
		}
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
	if s.shl > 0 {
		out = fmt.Sprintf("(%s << %d)", v, s.shl)
	}
	if s.off.c != 0 || len(s.off.terms) > 0 {
		out += " + " + linText(s.off)
	}
	if s.ext != nil {
		out = fmt.Sprintf("cvt.%s(%s)", s.ext, out)
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
	var out *interval
	for _, p := range entry {
		iv, why := a.regAt(r, p, len(p.Instrs), width, map[*isa.Instr]bool{}, 0)
		if iv == nil {
			if strings.HasSuffix(why, "may be undefined") {
				why = fmt.Sprintf("%s may be undefined when the loop is entered", r)
			}
			return nil, why
		}
		out = hull(out, iv)
	}
	return out, ""
}

// hull is the smallest interval containing x (nil: none) and y.
func hull(x, y *interval) *interval {
	if x == nil || x.lo.String() == y.lo.String() && x.hi.String() == y.hi.String() {
		return y
	}
	return &interval{minE(x.lo, y.lo), maxE(x.hi, y.hi)}
}

// regAt is the range of register r before instruction i of block b (its
// end when i == len(b.Instrs)), exact modulo 2^width. When r is the
// induction register of a loop around b, it is its range over that loop
// (inductionRange); otherwise the union of its reaching definitions.
func (a *analysis) regAt(r string, b *cfg.Block, i int, width int, stack map[*isa.Instr]bool, depth int) (*interval, string) {
	if depth > maxDefDepth {
		return nil, "the value is computed by too long a chain"
	}
	for l := b.Loop; l != nil; l = l.Parent {
		w := a.walkOf(l)
		if w == nil {
			break // being derived: its registers are not followed
		}
		if !w.inLoop[r] {
			continue
		}
		// l is the innermost loop around b that writes r.
		if iv := a.inductionRange(l, r, width, b, i); iv != nil {
			return iv, ""
		}
		break
	}
	ds, undef := a.reaching(r, b, i)
	if undef {
		return nil, fmt.Sprintf("%s may be undefined", r)
	}
	return a.union(r, ds, width, stack, depth+1)
}

// walkOf returns the walk of a loop, deriving it first; nil for a loop
// being derived (its values are then taken from reaching definitions).
func (a *analysis) walkOf(l *cfg.Loop) *walk {
	if a.deriving[l] {
		return nil
	}
	a.deriveMemo(l)
	return a.walks[l]
}

// inductionRange is the range of r at any point of loop l when r is an
// induction register of l: written only on l's spine, unguarded, and
// stepped by a constant c each iteration, each definition giving it its
// header value plus a constant offset. Its header values are I + k·c for
// 0 <= k < N, N a derived bound of l (the number of header executions,
// with that candidate's conditions), I its range at l's entry; a point of
// l sees a header value plus the offset of the last definition of r
// before it in the iteration (0 when none is).
// nil when r is not such a register.
func (a *analysis) inductionRange(l *cfg.Loop, r string, width int, b *cfg.Block, i int) *interval {
	w, d := a.walks[l], a.derivs[l]
	if w == nil || d == nil || len(d.cands) == 0 || w.clobbered[r] {
		return nil
	}
	next, ok := w.end[r]
	if !ok || !next.known || next.base != r || next.shr > 0 || next.shl > 0 || next.ext != nil || len(next.off.terms) > 0 || next.off.c == 0 || next.width != 0 && next.width < width {
		return nil
	}
	c := next.off.c
	// The definition on the spine that last precedes the point (spine
	// blocks are executed in order, once per iteration: the definitions
	// that dominate the point are those executed before it).
	off := int64(0)
	for _, o := range w.offs[r] {
		dl := a.where[o.in]
		if dl.b == b && dl.i < i || dl.b != b && a.g.Dominates(dl.b, b) {
			s := o.s
			if !s.known || s.base != r || s.shr > 0 || s.shl > 0 || s.ext != nil || len(s.off.terms) > 0 || s.width != 0 && s.width < width {
				return nil
			}
			off = s.off.c
		}
	}
	// The candidate of the exit test on r if any, else the first.
	cand := d.cands[0]
	for _, x := range d.cands {
		if x.reg == r {
			cand = x
			break
		}
	}
	init, _ := a.entryValue(r, a.entryPreds(l), width)
	if init == nil {
		return nil
	}
	span := mul(sub(cand.expr, Const(1)), Const(c)) // (N - 1)·c
	var iv *interval
	if c > 0 {
		iv = &interval{init.lo, add(init.hi, span)}
	} else {
		iv = &interval{add(init.lo, span), init.hi}
	}
	iv = &interval{addConst(iv.lo, off), addConst(iv.hi, off)}
	a.side = append(a.side, cand.checks...)
	return iv
}

// guards returns the launch-invariant tests that every entry into l
// passes on one side: walking up from l's only entry edge through blocks
// with a single predecessor, each conditional branch on the way.
func (a *analysis) guards(l *cfg.Loop) []guard {
	if gs, ok := a.guardMemo[l]; ok {
		return gs
	}
	a.guardMemo[l] = nil
	entry := a.entryPreds(l)
	if len(entry) != 1 {
		return nil
	}
	var out []guard
	var after []*cfg.Block
	// The edge from to next is on every path into the loop.
	from, next := entry[0], l.Header
	for steps := 0; steps < 16; steps++ {
		if from.Kind == cfg.BlockIf && len(from.Succs) == 2 && from.Succs[0].To != from.Succs[1].To {
			if g, ok := a.guardAt(from, next); ok {
				g.after = append([]*cfg.Block(nil), after...)
				out = append(out, g)
			}
		}
		after = append(after, from)
		if from.Index == 0 || len(from.Preds) != 1 || !from.Preds[0].From.Reachable || from.Preds[0].From == from {
			break
		}
		from, next = from.Preds[0].From, from
	}
	a.guardMemo[l] = out
	return out
}

// refine narrows the range iv of register r at the entry of l by the
// guards before l that compare r with a launch-invariant value y, when r
// is not written between the test and the loop: only the threads passing
// the test enter. The test reads r and y in its own type: the side
// conditions require them there, so that it compares the exact values.
// The range may become empty (lo > hi) when no thread enters.
func (a *analysis) refine(l *cfg.Loop, r string, iv *interval) (*interval, bool) {
	refined := false
	for _, g := range a.guards(l) {
		i := -1
		for k := range g.regs {
			if g.regs[k] == r && g.ivs[1-k].exact() {
				i = k
			}
		}
		if i < 0 || a.writtenAfter(r, g) {
			continue
		}
		cmp := g.cmp
		if i == 1 {
			cmp = swapCmp[cmp]
		}
		if g.skipIf {
			cmp = notCmp[cmp] // enter when !(r cmp y)
		}
		y := g.ivs[1-i].lo
		lo, hi := iv.lo, iv.hi
		switch cmp {
		case "gt":
			lo = maxE(lo, add(y, Const(1)))
		case "ge":
			lo = maxE(lo, y)
		case "lt":
			hi = minE(hi, sub(y, Const(1)))
		case "le":
			hi = minE(hi, y)
		case "eq":
			lo, hi = y, y
		case "ne":
			switch y.String() {
			case lo.String():
				lo = add(lo, Const(1))
			case hi.String():
				hi = sub(hi, Const(1))
			default:
				continue
			}
		default:
			continue
		}
		msg := fmt.Sprintf("the values compared by %q at %s are outside the range of %s", g.at.Text, a.lineOf(g.at), g.dom)
		a.side = append(a.side, g.checks...)
		a.side = append(a.side, check{iv.lo, g.dom.min(), g.dom.max(), msg}, check{iv.hi, g.dom.min(), g.dom.max(), msg}, check{y, g.dom.min(), g.dom.max(), msg})
		iv = &interval{lo, hi}
		refined = true
	}
	return iv, refined
}

// writtenAfter reports whether r is written between the test of g and the
// loop it guards.
func (a *analysis) writtenAfter(r string, g guard) bool {
	at := a.where[g.at]
	for _, in := range at.b.Instrs[at.i+1:] {
		if writes(in, r) {
			return true
		}
	}
	for _, b := range g.after {
		for _, in := range b.Instrs {
			if writes(in, r) {
				return true
			}
		}
	}
	return false
}

// guardAt reads the test of the branch ending b as a guard for entering
// next (one of its successors).
func (a *analysis) guardAt(b, next *cfg.Block) (guard, bool) {
	br := b.Last()
	if br == nil || br.Kind != isa.KindBranch || br.Guard.Reg == "" {
		return guard{}, false
	}
	// The branch goes to Succs[0] when its guard holds.
	enterWhen := next == b.Succs[0].To
	if br.Guard.Neg {
		enterWhen = !enterWhen
	}
	ds, undef := a.reaching(br.Guard.Reg, b, len(b.Instrs)-1)
	if len(ds) == 1 {
		ds[0] = a.viewOf(ds[0])
	}
	if undef || len(ds) != 1 || ds[0].Guard.Reg != "" || ds[0].Opcode != "setp" || len(ds[0].Mods) != 2 || len(ds[0].Srcs) != 2 || len(ds[0].Dsts) != 1 {
		return guard{}, false
	}
	setp := ds[0]
	dom, ok := typeOf(setp)
	if !ok {
		return guard{}, false
	}
	cmp := setp.Mods[0]
	if u, ok := unsignedCmp[cmp]; ok {
		cmp = u
		dom.signed = false
	}
	if _, ok := notCmp[cmp]; !ok {
		return guard{}, false
	}
	saved := a.side
	a.side = nil
	defer func() { a.side = saved }()
	loc, ok := a.where[setp]
	if !ok || loc.b == nil {
		return guard{}, false
	}
	g := guard{cmp: cmp, dom: dom, skipIf: !enterWhen, at: setp}
	for i, o := range setp.Srcs {
		iv, _ := a.operand(o, loc, dom.width, map[*isa.Instr]bool{}, 0)
		if iv == nil {
			return guard{}, false
		}
		g.ivs[i] = iv
		if o.Kind == isa.OpReg && len(o.Regs) == 1 && !o.Neg {
			g.regs[i] = o.Regs[0]
		}
	}
	g.x, g.y, g.checks = g.ivs[0].lo, g.ivs[1].lo, a.side
	return g, true
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
	if predClobber(in, r) {
		return true
	}
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
// expression of launch dimensions and arguments, exact modulo 2^width:
// every instruction on the way is a ring operation (mov, add, sub, mul.lo,
// mad.lo, shl) at least width bits wide, so that the machine value is the
// exact value modulo 2^width (the caller checks the range of the result),
// or an operation whose result is known exactly: a conversion (a widening
// one with the side condition that its operand lies in the source type),
// mul.wide (likewise), selp (either operand), and with a non-negative
// constant, rem by a constant, shr and div of launch dimensions.
func (a *analysis) defValue(in *isa.Instr, width int, stack map[*isa.Instr]bool, depth int) (*interval, string) {
	if depth > maxDefDepth {
		return nil, "the value is computed by too long a chain"
	}
	if stack[in] {
		return nil, fmt.Sprintf("the value at %s depends on itself (it changes in an enclosing loop)", a.lineOf(in))
	}
	stack[in] = true
	defer delete(stack, in)
	in = a.viewOf(in)
	bad := func() (*interval, string) {
		return nil, fmt.Sprintf("%q at %s is not a computation of launch dimensions and arguments", in.Text, a.lineOf(in))
	}
	if len(in.Dsts) != 1 || len(in.Defs()) != 1 {
		return bad()
	}
	l := a.where[in]
	opnd := func(o isa.Operand, w int) (*interval, string) {
		return a.operand(o, l, w, stack, depth)
	}
	if dt, st, ok := cvtTypes(in); ok {
		if dt.width < width {
			return nil, fmt.Sprintf("%q at %s computes at another width than the comparison (%d bits)", in.Text, a.lineOf(in), width)
		}
		if width <= st.width {
			// The low width bits of the operand.
			return opnd(in.Srcs[0], width)
		}
		// Widening: the operand's value when it lies in the source type.
		iv, why := opnd(in.Srcs[0], st.width)
		if iv == nil {
			return nil, why
		}
		a.sideRange(iv, st, in)
		return iv, ""
	}
	ty, ok := typeOf(in)
	if in.Opcode == "ld" {
		if !in.HasMod("param") || len(in.Srcs) != 1 || in.Srcs[0].Kind != isa.OpMem || !ok || ty.width < width {
			return bad()
		}
		name := strings.TrimSpace(strings.Trim(in.Srcs[0].Text, "[]"))
		name = strings.TrimSuffix(name, "+0")
		p, found := a.params[name]
		if !found || p.Array != 0 || p.Size*8 < ty.width {
			return bad()
		}
		return &interval{Var(name), Var(name)}, ""
	}
	if !ok || ty.width < width {
		return nil, fmt.Sprintf("%q at %s computes at another width than the comparison (%d bits)", in.Text, a.lineOf(in), width)
	}
	mods := strings.Join(in.Mods, ".")
	imm := func(o isa.Operand) (int64, bool) {
		if o.Kind != isa.OpImm {
			return 0, false
		}
		v, err := strconv.ParseInt(o.Text, 0, 64)
		return v, err == nil
	}
	switch {
	case in.Opcode == "and" && len(in.Srcs) == 2 && len(in.Mods) == 1:
		// x & m with 0 <= m: in [0, m].
		for _, o := range in.Srcs {
			if m, ok := imm(o); ok && m >= 0 && m <= maxStep(ty) {
				return &interval{Const(0), Const(m)}, ""
			}
		}
		return bad()
	case in.Opcode == "rem" && len(in.Srcs) == 2 && len(in.Mods) == 1:
		// x % k with 0 < k: in [0, k-1] unsigned, [-(k-1), k-1] signed.
		if k, ok := imm(in.Srcs[1]); ok && k > 0 && k <= maxStep(ty) {
			if ty.signed {
				return &interval{Const(1 - k), Const(k - 1)}, ""
			}
			return &interval{Const(0), Const(k - 1)}, ""
		}
		return bad()
	case in.Opcode == "selp" && len(in.Srcs) == 3 && len(in.Mods) == 1:
		x, why := opnd(in.Srcs[0], width)
		if x == nil {
			return nil, why
		}
		y, why := opnd(in.Srcs[1], width)
		if y == nil {
			return nil, why
		}
		return hull(x, y), ""
	case in.Opcode == "mul" && len(in.Srcs) == 2 && len(in.Mods) == 2 && in.Mods[0] == "wide":
		// The exact product of the operands read in their type.
		if width > 2*ty.width {
			return bad()
		}
		var ops [2]*interval
		for i, o := range in.Srcs {
			iv, why := opnd(o, ty.width)
			if iv == nil {
				return nil, why
			}
			a.sideRange(iv, ty, in)
			ops[i] = iv
		}
		if iv := product(ops[0], ops[1]); iv != nil {
			return iv, ""
		}
		return nil, fmt.Sprintf("%q at %s multiplies values of unknown sign", in.Text, a.lineOf(in))
	case in.Opcode == "shr" || in.Opcode == "div":
		if len(in.Srcs) != 2 || len(in.Mods) != 1 {
			return bad()
		}
		// Only of a launch dimension or a non-negative constant, read at
		// the operation's width, in its range: the machine division is
		// exact.
		x, why := opnd(in.Srcs[0], ty.width)
		if x == nil {
			return nil, why
		}
		k, ok := imm(in.Srcs[1])
		if !ok {
			kv, _ := opnd(in.Srcs[1], ty.width)
			if kv == nil || !kv.exact() {
				return bad()
			}
			if k, ok = kv.lo.IsConst(); !ok {
				return bad()
			}
		}
		e := x.lo
		if !x.exact() || !(e.op == opVar && isDim(e.name) || e.op == opConst && e.val >= 0) {
			return bad()
		}
		if e.op == opVar {
			a.side = append(a.side, check{e, 0, maxStep(ty), fmt.Sprintf("%s is outside the range of %s at %s", e, ty, a.lineOf(in))})
		} else if e.val > maxStep(ty) {
			return bad()
		}
		if in.Opcode == "shr" {
			if k < 0 || k >= int64(ty.width) || k > 62 {
				return bad()
			}
			k = int64(1) << k
		}
		if k <= 0 {
			return bad()
		}
		q := div(e, Const(k))
		return &interval{q, q}, ""
	}
	ops := make([]*interval, len(in.Srcs))
	for i, o := range in.Srcs {
		iv, why := opnd(o, width)
		if iv == nil {
			return nil, why
		}
		ops[i] = iv
	}
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
	case in.Opcode == "shl" && len(ops) == 2:
		k, ok := ops[1].lo.IsConst()
		if !ok || !ops[1].exact() || k < 0 || k >= int64(ty.width) || k > 62 {
			return bad()
		}
		return scale(ops[0], int64(1)<<k), ""
	}
	return bad()
}

// sideRange requires the values of iv to lie in type t (the operand of a
// widening conversion, or of mul.wide, read at t's width): then the
// machine value is the exact value.
func (a *analysis) sideRange(iv *interval, t domain, in *isa.Instr) {
	msg := fmt.Sprintf("the operand of %q at %s is outside the range of %s", in.Text, a.lineOf(in), t)
	a.side = append(a.side, check{iv.lo, t.min(), t.max(), msg}, check{iv.hi, t.min(), t.max(), msg})
}

// operand is the range of an operand of the instruction at l, exact
// modulo 2^width.
func (a *analysis) operand(o isa.Operand, l loc, width int, stack map[*isa.Instr]bool, depth int) (*interval, string) {
	switch o.Kind {
	case isa.OpImm:
		v, err := strconv.ParseInt(o.Text, 0, 64)
		if err != nil {
			return nil, fmt.Sprintf("immediate %q is not an integer", o.Text)
		}
		return &interval{Const(v), Const(v)}, ""
	case isa.OpSpecial:
		if iv, ok := specialRange(o.Text); ok {
			return iv, ""
		}
		return nil, fmt.Sprintf("special register %s is not a launch dimension or thread index", o.Text)
	case isa.OpReg:
		if len(o.Regs) != 1 || o.Neg {
			break
		}
		if l.b == nil {
			return nil, "an operand at an unknown place"
		}
		return a.regAt(o.Regs[0], l.b, l.i, width, stack, depth+1)
	}
	return nil, fmt.Sprintf("operand %q is not a computation of launch dimensions and arguments", o.Text)
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
