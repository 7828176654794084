package static

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// The barrier path (docs/model.md, "Barrier sections in a multi-path
// kernel"): the longest path over the thread-level graph in which crossing
// barrier b after barrier a costs S(a,b), the bound of the section between
// them, under the loop bounds. The walk's value at a program point is a
// context vector: for every context (the last barrier crossed, or the
// kernel entry), an upper bound of the sum of the section bounds crossed
// so far by the paths that reach the point in that context.

// ctxVec maps a context (0: the kernel entry; 1..: a barrier, by
// sectionGraph.id) to a weight. A missing context means no such path.
type ctxVec map[int]int64

// join sets c to the entrywise maximum of c and o.
func (c ctxVec) join(o ctxVec) {
	for k, x := range o {
		if y, ok := c[k]; !ok || x > y {
			c[k] = x
		}
	}
}

// sectionGraph holds the edge weights of the section graph.
type sectionGraph struct {
	id  map[*isa.Instr]int // barrier → context, 1..len(id)
	end int                // the end's id (len(id)+1)
	s   map[[2]int]int64   // S(a,b) by (from, to) id; pairs no class meets are absent
	// iter memoises the walk of one iteration of a loop from its header
	// in one context, by (loop index, context).
	iter map[[2]int]*outcome
	// failed holds, by context, why the sections starting there are not
	// known (Input.Partial): a path in such a context cannot be bounded.
	failed map[int]error
}

// newSectionGraph numbers the barriers of the segments in order and
// records their bounds.
func newSectionGraph(segs []*Segment) *sectionGraph {
	sg := &sectionGraph{id: map[*isa.Instr]int{}, s: map[[2]int]int64{}, iter: map[[2]int]*outcome{}}
	num := func(in *isa.Instr) {
		if in != nil && sg.id[in] == 0 {
			sg.id[in] = len(sg.id) + 1
		}
	}
	for _, s := range segs {
		num(s.From)
		num(s.To)
	}
	sg.end = len(sg.id) + 1
	for _, s := range segs {
		p := sg.pair(s)
		sg.s[p] = max(sg.s[p], int64(s.Bound))
	}
	return sg
}

// pair returns the (from, to) ids of segment s.
func (sg *sectionGraph) pair(s *Segment) [2]int {
	a, b := sg.id[s.From], sg.end // a nil From reads as 0, the entry
	if s.To != nil {
		b = sg.id[s.To]
	}
	return [2]int{a, b}
}

// cross returns the context vector after crossing node b (a barrier or the
// end) from c: the single context b with weight max_a c[a] + S(a,b), over
// the contexts a from which some class meets the pair (a,b). ok is false
// when there is none: no execution crosses b from these contexts.
func (sg *sectionGraph) cross(c ctxVec, b int) (w int64, ok bool, err error) {
	if len(sg.failed) > 0 {
		for _, a := range slices.Sorted(maps.Keys(c)) {
			if e := sg.failed[a]; e != nil {
				return 0, false, e
			}
		}
	}
	for a, x := range c {
		s, has := sg.s[[2]int{a, b}]
		if !has {
			continue
		}
		y, fits := mulAdd(x, 1, s)
		if !fits {
			return 0, false, errOverflow
		}
		if !ok || y > w {
			w, ok = y, true
		}
	}
	return w, ok, nil
}

var errOverflow = fmt.Errorf("bound overflows 64-bit cycles")

// crossBarrier applies barrier instruction in to v (context mode).
func (w *walker) crossBarrier(v *val, in *isa.Instr) error {
	b := w.sect.id[in]
	var x int64
	ok := false
	if b != 0 {
		var err error
		if x, ok, err = w.sect.cross(v.c, b); err != nil {
			var se *Error
			if errors.As(err, &se) {
				return err
			}
			return &Error{Pos: w.pos(in.Pos), Msg: err.Error(), Unbounded: overflows(err)}
		}
	}
	if !ok {
		// No class goes from any context here to this barrier: no
		// execution reaches it along these paths.
		v.ok, v.c = false, nil
		return nil
	}
	v.c = ctxVec{b: x}
	return nil
}

// iteration walks one iteration of l (header to back edges and exits) from
// context u with weight 0, memoised.
func (w *walker) iteration(l *cfg.Loop, u int) (*outcome, error) {
	k := [2]int{l.Index, u}
	if o := w.sect.iter[k]; o != nil {
		return o, nil
	}
	o, err := w.walk(l, l.Header, 0, val{ok: true, c: ctxVec{u: 0}})
	if err != nil {
		return nil, err
	}
	w.sect.iter[k] = o
	return o, nil
}

// summarizeCtx is summarize in context mode. The walk is max-plus linear
// in the context vector, so the loop is summarised per entry context a
// (loopRows) and the rows are combined with the entry weights.
func (w *walker) summarizeCtx(l *cfg.Loop, in val) ([]exitVal, error) {
	B, err := w.bound(l)
	if err != nil {
		return nil, err
	}
	B = max(B, 1) // an entered loop executes its header at least once
	acc := map[cfg.Edge]ctxVec{}
	for _, a := range slices.Sorted(maps.Keys(in.c)) {
		rows, err := w.loopRows(l, B, a)
		if err != nil {
			return nil, err
		}
		for _, ev := range rows {
			p := acc[ev.e]
			if p == nil {
				p = ctxVec{}
				acc[ev.e] = p
			}
			for b, y := range ev.v.c {
				z, ok := mulAdd(in.c[a], 1, y)
				if !ok {
					return nil, &Error{Pos: w.pos(l.Header.Pos()), Msg: errOverflow.Error(), Unbounded: true}
				}
				p.join(ctxVec{b: z})
			}
		}
	}
	var out []exitVal
	for _, e := range l.Exits {
		if c := acc[e]; len(c) > 0 {
			out = append(out, exitVal{e: e, v: val{ok: true, c: c}})
		}
	}
	return out, nil
}

// loopRows returns, for loop l with bound B entered in context a with
// weight 0, the context vector at each exit: an upper bound over every
// execution that runs the header k ≤ B times (k−1 iterations coming back,
// the last leaving).
//
// The contexts at the header after j iterations lie in N = {a} ∪ the
// contexts the back edges deliver. T[u][v], the weight of one iteration
// from context u coming back in context v, makes N a graph; the weight
// after j iterations is at most the heaviest walk of length j from a
// (T^j, max-plus), and P bounds the heaviest walk of length at most B−1
// (walkBound). Each exit's vector is then max_u P[a][u] + X_e[u][·].
func (w *walker) loopRows(l *cfg.Loop, B int64, a int) ([]exitVal, error) {
	ck := fmt.Sprintf("c%d/%d/%d", l.Index, B, a)
	if rel, ok := w.cache[ck]; ok {
		return rel, nil
	}
	nodes := []int{a}
	idx := map[int]int{a: 0}
	var iters []*outcome
	for i := 0; i < len(nodes); i++ {
		o, err := w.iteration(l, nodes[i])
		if err != nil {
			return nil, err
		}
		iters = append(iters, o)
		if o.back.ok {
			for _, u := range slices.Sorted(maps.Keys(o.back.c)) {
				if _, ok := idx[u]; !ok {
					idx[u] = len(nodes)
					nodes = append(nodes, u)
				}
			}
		}
	}
	n := len(nodes)
	T := newMat(n)
	for i, o := range iters {
		if o.back.ok {
			for u, y := range o.back.c {
				T[i][idx[u]] = y
			}
		}
	}
	P, err := walkBound(T, B-1)
	if err != nil {
		return nil, &Error{Pos: w.pos(l.Header.Pos()), Msg: fmt.Sprintf("loop bound %d: %v", B, err), Unbounded: overflows(err)}
	}
	var rel []exitVal
	for _, e := range l.Exits {
		c := ctxVec{}
		for i, o := range iters {
			p := P[0][i]
			v := o.exits[e]
			if p == none || v == nil || !v.ok {
				continue
			}
			for u, y := range v.c {
				z, ok := mulAdd(p, 1, y)
				if !ok {
					return nil, &Error{Pos: w.pos(l.Header.Pos()), Msg: errOverflow.Error(), Unbounded: true}
				}
				c.join(ctxVec{u: z})
			}
		}
		if len(c) > 0 {
			rel = append(rel, exitVal{e: e, v: val{ok: true, c: c}})
		}
	}
	w.cache[ck] = rel
	return rel, nil
}

// none is -∞ in the max-plus matrices (every weight is ≥ 0).
const none = -1

// walkLimit is the largest graph walkBound treats with matrix powers
// (cost n⁴); larger ones get the coarser bound K·max T.
const walkLimit = 48

// walkMode selects walkBound's method: walkAuto (the exact maximum over
// walk lengths 0..K when K ≤ n, the cycle-mean bound otherwise), or, in
// tests only, walkExact (always the exact maximum, cost K) or walkMean
// (always the cycle-mean bound).
var walkMode = walkAuto

const (
	walkAuto = iota
	walkExact
	walkMean
)

// headRoom is the largest weight the analysis computes with (as mulAdd).
const headRoom = int64(1<<63-1) / 4

func newMat(n int) [][]int64 {
	m := make([][]int64, n)
	for i := range m {
		m[i] = make([]int64, n)
		for j := range m[i] {
			m[i][j] = none
		}
	}
	return m
}

// mul returns the max-plus product of x and y.
func mul(x, y [][]int64) ([][]int64, error) {
	n := len(x)
	z := newMat(n)
	for i := range n {
		for k := range n {
			if x[i][k] == none {
				continue
			}
			for j := range n {
				if y[k][j] == none {
					continue
				}
				s, ok := mulAdd(x[i][k], 1, y[k][j])
				if !ok {
					return nil, errOverflow
				}
				z[i][j] = max(z[i][j], s)
			}
		}
	}
	return z, nil
}

// walkBound returns P with P[a][b] at least the weight of every walk of
// length 0..K from a to b in the graph of T (entries ≥ 0 or none), and
// none where no such walk exists. The cost depends on n = len(T), not on
// K (docs/model.md, "Edge-weighted barrier path"):
//
//   - K ≤ n: the exact maximum of T^0..T^K.
//   - otherwise: a walk of length k from a to b is a walk of length
//     j ≤ min(k, n−1) from a to b plus k−j edges in simple cycles through
//     nodes on a walk from a to b; with λ_ab the largest mean weight of
//     such a cycle, P[a][b] = max_j (T^j[a][b] + ⌊(K−j)·λ_ab⌋), nondecreasing
//     in K since λ_ab ≥ 0, so it bounds every length ≤ K.
//   - above walkLimit nodes: K·max T for every b reachable from a.
func walkBound(T [][]int64, K int64) ([][]int64, error) {
	n := len(T)
	id := newMat(n)
	for i := range n {
		id[i][i] = 0
	}
	if n > walkLimit {
		return coarseWalkBound(T, K)
	}
	top := n // powers needed: up to n for the cycle means
	exact := walkMode == walkExact || walkMode == walkAuto && K <= int64(n)
	if exact {
		top = int(K)
	}
	pw := [][][]int64{id}
	for k := 1; k <= top; k++ {
		m, err := mul(pw[k-1], T)
		if err != nil {
			return nil, err
		}
		pw = append(pw, m)
	}
	P := newMat(n)
	if exact {
		for _, m := range pw {
			for i := range n {
				for j := range n {
					P[i][j] = max(P[i][j], m[i][j])
				}
			}
		}
		return P, nil
	}
	// lam[u]: the largest mean weight of a closed walk of length 1..n
	// through u (every simple cycle through u is one), as num/den; den 0:
	// no cycle through u.
	type rat struct{ num, den int64 }
	less := func(x, y rat) bool { // x < y, den > 0
		a := new(big.Int).Mul(big.NewInt(x.num), big.NewInt(y.den))
		b := new(big.Int).Mul(big.NewInt(y.num), big.NewInt(x.den))
		return a.Cmp(b) < 0
	}
	lam := make([]rat, n)
	for u := range n {
		for L := 1; L <= n; L++ {
			if c := pw[L][u][u]; c != none {
				r := rat{c, int64(L)}
				if lam[u].den == 0 || less(lam[u], r) {
					lam[u] = r
				}
			}
		}
	}
	reach := newMat(n) // reach[a][b] ≥ 0: a walk of length ≤ n−1 from a to b
	for j := 0; j < n; j++ {
		for i := range n {
			for k := range n {
				reach[i][k] = max(reach[i][k], pw[j][i][k])
			}
		}
	}
	bigK := big.NewInt(K)
	for a := range n {
		for b := range n {
			if reach[a][b] == none {
				continue
			}
			l := rat{0, 1} // no cycle on the way: every walk is shorter than n
			for u := range n {
				if lam[u].den != 0 && reach[a][u] != none && reach[u][b] != none && less(l, lam[u]) {
					l = lam[u]
				}
			}
			for j := 0; j < n && int64(j) <= K; j++ {
				m := pw[j][a][b]
				if m == none {
					continue
				}
				// m + ⌊(K−j)·num/den⌋
				x := new(big.Int).Sub(bigK, big.NewInt(int64(j)))
				x.Mul(x, big.NewInt(l.num))
				x.Quo(x, big.NewInt(l.den)) // operands ≥ 0: truncation is the floor
				x.Add(x, big.NewInt(m))
				if !x.IsInt64() || x.Int64() > headRoom {
					return nil, errOverflow
				}
				P[a][b] = max(P[a][b], x.Int64())
			}
		}
	}
	return P, nil
}

// coarseWalkBound: a walk of length k ≤ K weighs at most k·μ ≤ K·μ, μ the
// largest entry of T.
func coarseWalkBound(T [][]int64, K int64) ([][]int64, error) {
	n := len(T)
	var mu int64
	for i := range n {
		for j := range n {
			mu = max(mu, T[i][j])
		}
	}
	x, ok := mulAdd(0, K, mu)
	if !ok {
		return nil, errOverflow
	}
	P := newMat(n)
	for a := range n {
		P[a][a] = x
		stack := []int{a}
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for v := range n {
				if T[u][v] != none && P[a][v] == none {
					P[a][v] = x
					stack = append(stack, v)
				}
			}
		}
	}
	return P, nil
}
