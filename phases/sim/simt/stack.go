package simt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/divergence"
)

const (
	pcExit = -1 // the virtual exit
	pcNone = -2 // no reconvergence point (the bottom entry)
)

type entry struct {
	pc, rpc int
	mask    []bool
}

// lane is the loop state of one lane: per loop index, the executions of
// the header since the lane last entered the loop.
type lane struct {
	count []int64
}

// warp runs warp w on the stack and returns its block sequence.
func (gen *Generator) warp(w int, r *rand.Rand, shared map[*cfg.Block][]int, opt Options) ([]int, error) {
	g := gen.g
	class := gen.ci[w]
	n := gen.lanes[w]
	maxInstrs := opt.MaxInstrs
	if maxInstrs <= 0 {
		maxInstrs = 1 << 22
	}
	idx := func(b *cfg.Block) int {
		if b == g.Exit {
			return pcExit
		}
		return b.Index
	}
	lanes := make([]lane, n)
	for i := range lanes {
		lanes[i].count = make([]int64, len(g.Loops))
	}
	all := make([]bool, n)
	for i := range all {
		all[i] = true
	}
	// Entering the entry block counts as an edge from outside.
	for i := range lanes {
		gen.apply(&lanes[i], nil, g.Entry())
	}
	stack := []*entry{{pc: 0, rpc: pcNone, mask: all}}
	finish := func(ls []int) {
		for _, e := range stack {
			for _, l := range ls {
				e.mask[l] = false
			}
		}
	}
	occ := map[*cfg.Block]int{} // executions of each barrier-deciding branch
	var seq []int
	instrs := 0
	for {
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if !slices.Contains(top.mask, true) || top.pc == top.rpc {
				stack = stack[:len(stack)-1]
				continue
			}
			if top.pc == pcExit {
				finish(active(top.mask))
				continue
			}
			break
		}
		if len(stack) == 0 {
			return seq, nil
		}
		top := stack[len(stack)-1]
		b := g.Blocks[top.pc]
		seq = append(seq, b.Index)
		instrs += len(b.Instrs)
		if instrs > maxInstrs {
			return nil, fmt.Errorf("path longer than %d instructions", maxInstrs)
		}
		act := active(top.mask)
		target := make([]int, n) // per active lane: index in b.Succs
		if len(b.Succs) == 1 {
			// target[l] = 0
		} else if err := gen.choose(b, class, act, lanes, target, r, shared, occ, opt); err != nil {
			return nil, err
		}
		// Group the lanes by target block, in successor order.
		var order []int
		groups := map[int][]int{}
		for _, l := range act {
			e := b.Succs[target[l]]
			gen.apply(&lanes[l], b, e.To)
			t := idx(e.To)
			if _, ok := groups[t]; !ok {
				order = append(order, t)
			}
			groups[t] = append(groups[t], l)
		}
		if len(order) == 1 {
			top.pc = order[0]
			continue
		}
		br := gen.info.Branch(b)
		if br == nil {
			return nil, fmt.Errorf("lanes disagree at %s, which ends no conditional branch", b)
		}
		if br.Exit {
			for _, t := range order {
				if t == pcExit {
					finish(groups[t])
				} else {
					top.pc = t
				}
			}
			continue
		}
		rc := idx(br.Reconv)
		top.pc = rc
		var first, later []int
		for _, t := range order {
			if t != pcExit && t != rc && g.Reaches(g.Blocks[t], b, br.Reconv) {
				later = append(later, t)
			} else {
				first = append(first, t)
			}
		}
		// order is in successor order: taken (or the first indirect
		// target) first, the fall-through last.
		arrange := func(ts []int) {
			switch opt.Order {
			case FallThroughFirst:
				slices.Reverse(ts)
			case RandomOrder:
				r.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
			}
		}
		arrange(first)
		arrange(later)
		run := append(first, later...)
		if opt.LeaversLast {
			run = append(later, first...)
		}
		for i := len(run) - 1; i >= 0; i-- {
			m := make([]bool, n)
			for _, l := range groups[run[i]] {
				m[l] = true
			}
			stack = append(stack, &entry{pc: run[i], rpc: rc, mask: m})
		}
	}
}

func active(m []bool) []int {
	var ls []int
	for l, on := range m {
		if on {
			ls = append(ls, l)
		}
	}
	return ls
}

// apply updates a lane's loop counters for the edge from b (nil: from
// outside the function) to t.
func (gen *Generator) apply(ln *lane, b, t *cfg.Block) {
	if t == gen.g.Exit || t.Loop == nil || t.Loop.Header != t {
		return
	}
	l := t.Loop
	if b != nil && l.Contains(b) {
		ln.count[l.Index]++
	} else {
		ln.count[l.Index] = 1
	}
}

// allowed reports whether a lane in state ln may take the edge from b to t:
// the header count stays within its bound and, after it, the lane can still
// reach the exit without taking the back edge of a loop at its bound.
func (gen *Generator) allowed(ln *lane, b, t *cfg.Block) bool {
	if t == gen.g.Exit {
		return true
	}
	var sat []int // loops containing t at their bound after the edge
	for l := t.Loop; l != nil; l = l.Parent {
		c := ln.count[l.Index]
		if l.Header == t {
			if l.Contains(b) {
				c++
			} else {
				c = 1
			}
		}
		if c > gen.bound[l.Index] {
			return false
		}
		if c >= gen.bound[l.Index] {
			sat = append(sat, l.Index)
		}
	}
	var key strings.Builder
	key.WriteString(strconv.Itoa(t.Index))
	for _, k := range sat {
		key.WriteByte(',')
		key.WriteString(strconv.Itoa(k))
	}
	if v, ok := gen.feas[key.String()]; ok {
		return v
	}
	// Depth-first search to the exit, forbidding the back edges of the
	// saturated loops (conservative: re-entering such a loop from outside
	// would reset its count, which the search ignores).
	seen := map[*cfg.Block]bool{}
	st := []*cfg.Block{t}
	ok := false
	for len(st) > 0 && !ok {
		x := st[len(st)-1]
		st = st[:len(st)-1]
		if x == gen.g.Exit {
			ok = true
			break
		}
		if seen[x] {
			continue
		}
		seen[x] = true
	next:
		for _, e := range x.Succs {
			if h := e.To; h != gen.g.Exit && h.Loop != nil && h.Loop.Header == h && h.Loop.Contains(x) {
				for _, k := range sat {
					if k == h.Loop.Index {
						continue next
					}
				}
			}
			st = append(st, e.To)
		}
	}
	gen.feas[key.String()] = ok
	return ok
}

// choose sets target[l] (an index in b.Succs) for every active lane.
func (gen *Generator) choose(b *cfg.Block, class int, act []int, lanes []lane, target []int, r *rand.Rand, shared map[*cfg.Block][]int, occ map[*cfg.Block]int, opt Options) error {
	ok := func(l, s int) bool { return gen.allowed(&lanes[l], b, b.Succs[s].To) }
	allOK := func(s int) bool {
		for _, l := range act {
			if !ok(l, s) {
				return false
			}
		}
		return true
	}
	// prefer orders the successors for MaxLoops: those staying in b's
	// innermost loop first.
	stays := func(s int) bool {
		t := b.Succs[s].To
		return b.Loop != nil && t != gen.g.Exit && b.Loop.Contains(t)
	}
	// first returns, for MaxLoops, the first candidate that stays; -1
	// otherwise.
	first := func(cand []int) int {
		if opt.MaxLoops {
			for _, c := range cand {
				if stays(c) {
					return c
				}
			}
		}
		return -1
	}
	ns := len(b.Succs)
	outcome := divergence.Unknown
	br := gen.info.Branch(b)
	if br != nil {
		outcome = br.Outcomes[class]
		if b.Kind == cfg.BlockIndirect && (outcome == divergence.Taken || outcome == divergence.NotTaken) {
			outcome = divergence.Unknown
		}
	}
	setAll := func(s int) {
		for _, l := range act {
			target[l] = s
		}
	}
	switch outcome {
	case divergence.Taken, divergence.NotTaken:
		s := 0
		if outcome == divergence.NotTaken {
			s = ns - 1
		}
		if !allOK(s) {
			return fmt.Errorf("%s: the resolved edge exceeds a loop bound", b)
		}
		setAll(s)
		return nil
	case divergence.Divergent:
		// A bias per execution: the probability of the first successor.
		p := []float64{0, 0.25, 0.5, 0.75, 1}[r.IntN(5)]
		for _, l := range act {
			var cand []int
			for s := range ns {
				if ok(l, s) {
					cand = append(cand, s)
				}
			}
			if len(cand) == 0 {
				return fmt.Errorf("%s: every successor exceeds a loop bound (lane %d)", b, l)
			}
			s := first(cand)
			if s < 0 {
				if ns == 2 && len(cand) == 2 {
					s = 1
					if r.Float64() < p {
						s = 0
					}
				} else {
					s = cand[r.IntN(len(cand))]
				}
			}
			target[l] = s
		}
		return nil
	}
	// Uniform, outcome unknown: one edge for the whole warp.
	var cand []int
	for s := range ns {
		if allOK(s) {
			cand = append(cand, s)
		}
	}
	if len(cand) == 0 {
		return fmt.Errorf("%s: every successor exceeds a loop bound", b)
	}
	s := first(cand)
	if s < 0 && gen.decide[b] {
		// Barrier-deciding: the k-th execution agrees across the block.
		k := occ[b]
		occ[b]++
		tab := shared[b]
		if k < len(tab) && slices.Contains(cand, tab[k]) {
			s = tab[k]
		} else if k >= len(tab) {
			s = cand[r.IntN(len(cand))]
			shared[b] = append(tab, s)
		}
	}
	if s < 0 {
		s = cand[r.IntN(len(cand))]
	}
	setAll(s)
	return nil
}
