package loops

import (
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// Congruences (docs/model.md, Loop bounds: the != rule). A loop that
// stays while x != L, x stepping by s = 2^t·u (u odd), leaves only when the
// distance L - S is a multiple of 2^t; otherwise x steps over L and wraps.
// Compilers emit such loops after they have made the distance a multiple:
// the main loop of a runtime-unrolled loop runs from the point where a
// remainder loop of (n - i) & (k-1) iterations stopped, so its distance is
// (n - i) - ((n - i) & (k-1)). Known bits alone do not see that the two
// n - i cancel; an affine form modulo 2^t does.
//
// cform is c + Σ k·v modulo 2^t. It reads sums, differences, products and
// shifts by constants exactly (the low t bits of a sum depend only on the
// low t bits of its operands); x & m as x when every bit of m below t is
// set or the bit of x is known 0 (and as 0 when m has no bit below t);
// x | y and x ^ y as x + y when no bit below t can be set in both;
// extensions and truncations to at least t bits as their operand; a
// select whose arms agree as either; a value computed in an earlier loop
// by its value at that loop's exit (exitValue); a merge phi by the operand
// along one path at a time, with the test that path passed (x & (2^j-1) ==
// 0, j >= t, gives x ≡ 0: subtracted from the form).

type cform struct {
	c     uint64
	terms map[*values.Value]uint64
}

func (x cform) add(y cform, k, m uint64) cform {
	out := cform{c: (x.c + k*y.c) & m, terms: map[*values.Value]uint64{}}
	for v, a := range x.terms {
		out.terms[v] = a
	}
	for v, a := range y.terms {
		out.terms[v] = (out.terms[v] + k*a) & m
		if out.terms[v] == 0 {
			delete(out.terms, v)
		}
	}
	return out
}

func (x cform) zero() bool { return x.c == 0 && len(x.terms) == 0 }

// congruence decides whether v ≡ 0 (mod 2^t) at this launch, for the loop
// l being evaluated.
type congruence struct {
	e    *evaluator
	l    *cfg.Loop
	t    int
	m    uint64
	pick map[*values.Value]int // merge phi -> the operand of this path
	sub  map[*values.Value]*values.Value
	// facts: forms known ≡ 0 on this path; infeasible: a test on the
	// path fails at this launch.
	facts      []cform
	infeasible bool
	exits      map[*values.Value]*values.Value
}

// multipleOf reports whether v is a multiple of 2^t on every path.
func (e *evaluator) multipleOf(v *values.Value, t int, l *cfg.Loop) bool {
	if t <= 0 {
		return true
	}
	if t >= 64 {
		return false
	}
	return e.paths(v, t, l, func(cg *congruence) bool { return cg.multiple(v) })
}

// multiple reports whether v ≡ 0 (mod 2^t) on the current path.
func (cg *congruence) multiple(v *values.Value) bool {
	if cg.t <= 0 {
		return true
	}
	f := cg.form(v, 0)
	for _, fact := range cg.facts {
		f = cg.reduce(f, fact)
	}
	return cg.knownZero(f)
}

// maxPathPhis is the most merge phis paths enumerates (SASS splits an
// unrolled loop's remainder into 16-, 8- and 4-step parts: a merge after
// each, and one after the remainder loop).
const maxPathPhis = 6

// paths calls fn for each feasible path through the merge phis v depends
// on (at most maxPathPhis phis and 64 paths; none: one path), with the
// operand of each phi and the tests of the path set, and reports whether
// fn held on every path (false when there are too many paths).
func (e *evaluator) paths(v *values.Value, t int, l *cfg.Loop, fn func(cg *congruence) bool) bool {
	cg := &congruence{e: e, l: l, t: t, m: values.Mask(max(t, 0)), exits: map[*values.Value]*values.Value{}}
	var phis []*values.Value
	seen := map[*values.Value]bool{}
	var walk func(x *values.Value, depth int)
	walk = func(x *values.Value, depth int) {
		if depth > 24 || seen[x] || len(phis) > maxPathPhis {
			return
		}
		seen[x] = true
		switch {
		case x.Kind == values.VPhi && !cg.isHeader(x.Block):
			phis = append(phis, x)
			for _, a := range x.Args {
				walk(a, depth+1)
			}
		case x.Kind == values.VOp:
			for _, a := range x.Args {
				walk(a, depth+1)
			}
		}
		if ev := cg.exitValue(x); ev != nil {
			walk(ev, depth+1)
		}
	}
	walk(v, 0)
	if len(phis) > maxPathPhis {
		return false
	}
	n := 1
	for _, p := range phis {
		n *= len(p.Args)
	}
	if n > 64 {
		return false
	}
	for i := 0; i < n; i++ {
		cg.pick = map[*values.Value]int{}
		cg.sub = map[*values.Value]*values.Value{}
		cg.facts, cg.infeasible = nil, false
		k := i
		for _, p := range phis {
			j := k % len(p.Args)
			k /= len(p.Args)
			cg.pick[p] = j
		}
		// The tests of the path, read once every phi has its operand.
		for _, p := range phis {
			cg.edgeFacts(p, cg.pick[p])
		}
		// A test every entry into the loop passes that fails on this path
		// at this launch: the path does not enter the loop.
		if e.d != nil && len(phis) > 0 {
			for _, g := range e.d.guards {
				if x, ok := e.num(cg.subst(g.cond, 0)).Exact(); ok && (x != 0) != g.want {
					cg.infeasible = true
				}
			}
		}
		if cg.infeasible {
			continue
		}
		if !fn(cg) {
			return false
		}
	}
	return true
}

// subst is v on the current path: each merge phi replaced by its operand,
// each value of an earlier loop by its exit value.
func (cg *congruence) subst(v *values.Value, depth int) *values.Value {
	if x, ok := cg.sub[v]; ok {
		return x
	}
	x := v
	switch {
	case depth > 32:
	case v.Kind == values.VPhi && hasPick(cg.pick, v):
		x = cg.subst(v.Args[cg.pick[v]], depth+1)
	case cg.exitValue(v) != nil:
		x = cg.subst(cg.exitValue(v), depth+1)
	case v.Kind == values.VOp:
		args := make([]*values.Value, len(v.Args))
		changed := false
		for i, a := range v.Args {
			args[i] = cg.subst(a, depth+1)
			changed = changed || args[i] != a
		}
		if changed {
			x = cg.e.a.f.Op(v.Code, v.W, args...)
		}
	}
	cg.sub[v] = x
	return x
}

func hasPick(m map[*values.Value]int, v *values.Value) bool {
	_, ok := m[v]
	return ok
}

func (cg *congruence) isHeader(b *cfg.Block) bool {
	for _, l := range cg.e.a.g.Loops {
		if l.Header == b {
			return true
		}
	}
	return false
}

// reduce subtracts the multiple of fact (≡ 0) that cancels a term of f
// whose coefficient in fact is odd.
func (cg *congruence) reduce(f, fact cform) cform {
	for v, a := range fact.terms {
		if a&1 == 0 {
			continue
		}
		k := f.terms[v] * modInverse(a, cg.t) & cg.m
		if k == 0 {
			return f
		}
		return f.add(fact, (cg.m+1-k)&cg.m, cg.m)
	}
	return f
}

// knownZero reports whether the form is ≡ 0: no terms and no constant,
// or the known low bits of its value say so.
func (cg *congruence) knownZero(f cform) bool {
	if f.zero() {
		return true
	}
	w := 64
	sum := values.ConstNum(w, f.c)
	for v, k := range f.terms {
		n := cg.e.num(v)
		if n.Empty() {
			return true // an unreachable path
		}
		// The low t bits of v (as any width >= t) and of k·v.
		lo := values.Num{W: w, Lo: 0, Hi: values.Mask(w), SLo: -1 << 63, SHi: 1<<63 - 1, Zero: n.Zero & cg.m, One: n.One & cg.m}
		term := values.NumApply(values.Mul, w, []values.Num{lo, values.ConstNum(w, k)}, []int{w, w})
		sum = values.NumApply(values.Add, w, []values.Num{sum, term}, []int{w, w})
	}
	return sum.Zero&cg.m == cg.m
}

// edgeFacts records the test the path into phi's block along operand j
// passed, when it says a value is ≡ 0.
func (cg *congruence) edgeFacts(phi *values.Value, j int) {
	if j >= len(phi.Preds) || phi.Preds[j] == nil {
		return
	}
	p := phi.Preds[j]
	br := p.Last()
	if br == nil || br.Guard.Reg == "" || len(p.Succs) != 2 || p.Succs[0].To == p.Succs[1].To {
		return
	}
	gv := cg.e.a.f.Guard(br)
	if gv == nil {
		return
	}
	// Succs[0] is taken when the guard holds.
	want := (p.Succs[0].To == phi.Block) != br.Guard.Neg
	if x, ok := cg.e.num(gv).Exact(); ok && (x != 0) != want {
		cg.infeasible = true
		return
	}
	cg.fact(gv, want)
}

func (cg *congruence) fact(c *values.Value, want bool) {
	if c.Kind != values.VOp {
		return
	}
	switch {
	case c.Code == values.Not:
		cg.fact(c.Args[0], !want)
	case c.Code == values.And && want:
		cg.fact(c.Args[0], true)
		cg.fact(c.Args[1], true)
	case c.Code == values.Or && !want:
		cg.fact(c.Args[0], false)
		cg.fact(c.Args[1], false)
	case c.Code == values.Eq && want, c.Code == values.Ne && !want:
		x, y := c.Args[0], c.Args[1]
		if yc, ok := y.IsConst(); ok && yc&cg.m == 0 && x.Kind == values.VOp && x.Code == values.And {
			// x & m == 0 with every bit below t in m: the other operand ≡ 0.
			for i := 0; i < 2; i++ {
				if mc, ok := x.Args[i].IsConst(); ok && mc&cg.m == cg.m {
					cg.facts = append(cg.facts, cg.form(x.Args[1-i], 0))
					return
				}
			}
		}
		// x == y: x - y ≡ 0.
		cg.facts = append(cg.facts, cg.form(x, 0).add(cg.form(y, 0), cg.m, cg.m))
	case c.Code == values.Ne && want, c.Code == values.Eq && !want:
		// x != y with x and y in {0, 1} at this launch (a bit: x & 1, a
		// predicate extended): x = y + 1 mod 2, so modulo 2 (t = 1)
		// x - y - 1 ≡ 0 (LOP.AND.NZ P, RZ, n, 0x1: the test of n's parity
		// before a peeled iteration).
		x, y := c.Args[0], c.Args[1]
		if cg.t != 1 || !cg.bit(x) || !cg.bit(y) {
			return
		}
		f := cg.form(x, 0).add(cg.form(y, 0), cg.m, cg.m)
		cg.facts = append(cg.facts, f.add(cform{c: 1}, cg.m, cg.m))
	}
}

// bit reports whether v is 0 or 1 at this launch (every bit above the
// lowest known zero).
func (cg *congruence) bit(v *values.Value) bool {
	n := cg.e.num(cg.subst(v, 0))
	return !n.Empty() && n.Zero|1 == values.Mask(v.W)
}

func (cg *congruence) atom(v *values.Value) cform {
	return cform{terms: map[*values.Value]uint64{v: 1}}
}

func (cg *congruence) form(v *values.Value, depth int) cform {
	m := cg.m
	if c, ok := v.IsConst(); ok {
		return cform{c: c & m}
	}
	if depth > 32 {
		return cg.atom(v)
	}
	if v.Kind == values.VPhi {
		if j, ok := cg.pick[v]; ok {
			return cg.form(v.Args[j], depth+1)
		}
	}
	if ev := cg.exitValue(v); ev != nil {
		return cg.form(ev, depth+1)
	}
	// A value of an earlier loop stepped by a multiple of 2^t keeps its
	// start's residue, however many iterations ran.
	if lp := cg.e.a.earlierLoop(v, cg.l); lp != nil && !cg.e.a.busy[lp] {
		if r, why := cg.e.a.evolve(v, lp, 0); why == "" && r.kind == recAdd && r.ext == 0 && r.w >= cg.t && cg.e.num(r.step).Zero&m == m {
			return cg.form(r.start, depth+1)
		}
	}
	if v.Kind != values.VOp {
		return cg.atom(v)
	}
	a := v.Args
	narrow := func(x *values.Value) bool { return x.W < cg.t }
	switch v.Code {
	case values.Add, values.Sub:
		if narrow(v) {
			break
		}
		k := uint64(1)
		if v.Code == values.Sub {
			k = m
		}
		return cg.form(a[0], depth+1).add(cg.form(a[1], depth+1), k, m)
	case values.Neg:
		if narrow(v) {
			break
		}
		return cform{terms: map[*values.Value]uint64{}}.add(cg.form(a[0], depth+1), m, m)
	case values.Not:
		if narrow(v) {
			break
		}
		// ~x = -x - 1.
		return cform{c: m, terms: map[*values.Value]uint64{}}.add(cg.form(a[0], depth+1), m, m)
	case values.Mul:
		if narrow(v) {
			break
		}
		for i := 0; i < 2; i++ {
			if k, ok := a[i].IsConst(); ok {
				return cform{terms: map[*values.Value]uint64{}}.add(cg.form(a[1-i], depth+1), k&m, m)
			}
		}
	case values.Shl:
		if narrow(v) {
			break
		}
		if k, ok := a[1].IsConst(); ok && k < 64 {
			return cform{terms: map[*values.Value]uint64{}}.add(cg.form(a[0], depth+1), (uint64(1)<<k)&m, m)
		}
	case values.And:
		if narrow(v) {
			break
		}
		for i := 0; i < 2; i++ {
			mc, ok := a[i].IsConst()
			if !ok {
				continue
			}
			if mc&m == 0 {
				return cform{}
			}
			if (mc|cg.e.num(a[1-i]).Zero)&m == m {
				return cg.form(a[1-i], depth+1)
			}
		}
	case values.Or, values.Xor:
		if narrow(v) {
			break
		}
		x, y := cg.e.num(a[0]), cg.e.num(a[1])
		if (x.Zero|y.Zero)&m == m {
			return cg.form(a[0], depth+1).add(cg.form(a[1], depth+1), 1, m)
		}
	case values.ZExt, values.SExt, values.Trunc:
		if a[0].W >= cg.t && v.W >= cg.t {
			return cg.form(a[0], depth+1)
		}
	case values.Select:
		x, y := cg.form(a[1], depth+1), cg.form(a[2], depth+1)
		if d := x.add(y, m, m); d.zero() {
			return x
		}
	}
	return cg.atom(v)
}

// exitValue is the value v, computed in a loop L' that does not contain
// the loop being evaluated, has after L' ends (memoised; nil when not
// known).
func (cg *congruence) exitValue(v *values.Value) *values.Value {
	if x, ok := cg.exits[v]; ok {
		return x
	}
	cg.exits[v] = nil
	x := cg.e.a.exitValue(v, cg.l)
	cg.exits[v] = x
	return x
}

// earlierLoop returns the one loop not containing l that v varies in, or
// nil (none, or several).
func (a *analysis) earlierLoop(v *values.Value, l *cfg.Loop) *cfg.Loop {
	if v.Kind == values.VConst {
		return nil
	}
	var lp *cfg.Loop
	for _, x := range a.g.Loops {
		if l != nil && x.Contains(l.Header) {
			continue
		}
		if !a.invariant(v, x) {
			if lp != nil {
				return nil
			}
			lp = x
		}
	}
	return lp
}

// exitValue is the value v has when it is used after the loop L' it
// varies in, for a use in l (not in L'): when L' leaves only through one
// exit test, stay while x != L with x = S + k·s, s odd, the exit happens
// in iteration K = (L - S)·s⁻¹ (mod 2^w), exactly (the first k with x_k =
// L), and v, a recurrence S_v + k·s_v of L', is S_v + K·s_v there (modulo
// its width: exact). nil when v varies in no such loop or its exit is not
// known exactly.
func (a *analysis) exitValue(v *values.Value, l *cfg.Loop) *values.Value {
	if v.Kind == values.VConst {
		return nil
	}
	lp := a.earlierLoop(v, l)
	if lp == nil || a.busy[lp] {
		return nil
	}
	// One exit edge (leaving the function ends the thread: not an exit
	// the value is used after).
	var exitBr *cfg.Block
	for _, b := range lp.Blocks {
		for _, e := range b.Succs {
			if e.To == a.g.Exit || lp.Contains(e.To) {
				continue
			}
			if exitBr != nil && exitBr != b {
				return nil
			}
			exitBr = b
		}
	}
	if exitBr == nil {
		return nil
	}
	a.busy[lp] = true
	defer delete(a.busy, lp)
	d := a.derive(lp)
	var c *candidate
	for _, x := range d.cands {
		if x.at == exitBr.Last() && len(x.or) == 0 && x.cmp == "ne" {
			c = x
		}
	}
	if c == nil || c.iv.kind != recAdd || c.iv.ext != 0 {
		return nil
	}
	sc, ok := c.iv.step.IsConst()
	if !ok || sc&1 == 0 {
		return nil
	}
	rv, why := a.evolve(v, lp, 0)
	if why != "" || rv.kind != recAdd || rv.ext != 0 {
		return nil
	}
	f := a.f
	w := c.iv.w
	k := f.Op(values.Mul, w, f.Op(values.Sub, w, c.lim, c.iv.start), f.Const(w, modInverse(sc&values.Mask(w), w)))
	switch {
	case rv.w > w:
		k = f.Op(values.ZExt, rv.w, k)
	case rv.w < w:
		k = f.Op(values.Trunc, rv.w, k)
	}
	return f.Op(values.Add, rv.w, rv.start, f.Op(values.Mul, rv.w, k, rv.step))
}
