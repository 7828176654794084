package static

import (
	"math"
	"slices"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// witness is a persistent list describing a path that realises a weight
// (val.i): each node is a block range executed once, or a sub-path (a
// loop's iterations) executed mult times, preceded by prev.
type witness struct {
	prev *witness
	r    blockRange // when sub is nil
	sub  *witness
	mult int64
}

// countLimit caps the execution counts of a witness (the head room the
// bound keeps, math.MaxInt64/4): a larger count is reported as the cap.
const countLimit = math.MaxInt64 / 4

func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > countLimit/b {
		return countLimit
	}
	return a * b
}

// counts returns the executions of each block range of w. Witnesses share
// their prefixes (a loop's exit path and its back path both start with the
// header's), so w is a DAG, not a tree: walking it as a tree costs time
// exponential in the loop-nesting depth. Instead the multiplier of every
// node (the number of times the path executes it: the sum over the ways
// of reaching it of the product of the mult fields on the way) is pushed
// from w down the DAG in topological order, each node once.
func (w *witness) counts() map[blockRange]int64 {
	c := map[blockRange]int64{}
	if w == nil {
		return c
	}
	order := w.topo()
	m := make(map[*witness]int64, len(order))
	m[w] = 1
	for _, n := range order {
		x := m[n]
		if n.prev != nil {
			m[n.prev] = min(m[n.prev]+x, countLimit)
		}
		if n.sub != nil {
			m[n.sub] = min(m[n.sub]+satMul(x, n.mult), countLimit)
			continue
		}
		c[n.r] = min(c[n.r]+x, countLimit)
	}
	return c
}

// topo returns the nodes reachable from w (by prev and sub), each before
// every node it reaches: the reverse postorder of an iterative depth-first
// search (chains can be as long as the path).
func (w *witness) topo() []*witness {
	seen := map[*witness]bool{w: true}
	var post []*witness
	type frame struct {
		n    *witness
		next int // 0: visit prev, 1: visit sub, 2: done
	}
	stack := []frame{{n: w}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		var child *witness
		switch f.next {
		case 0:
			child = f.n.prev
		case 1:
			child = f.n.sub
		default:
			post = append(post, f.n)
			stack = stack[:len(stack)-1]
			continue
		}
		f.next++
		if child != nil && !seen[child] {
			seen[child] = true
			stack = append(stack, frame{n: child})
		}
	}
	slices.Reverse(post)
	return post
}

// BlockUse is one row of the per-block contribution table
// (wcet-conventions.md §3) of a class over a segment: a range of
// instructions of a block of the class's graph (the whole block, or its
// part before or after a block-wide barrier) on the path that gives the
// segment's I.
type BlockUse struct {
	// Block is the block of the class's graph (a warp-level block for a
	// divergent class); Thread is the thread-level block it copies.
	Block, Thread *cfg.Block
	Lo, Hi        int // instructions Block.Instrs[Lo:Hi]
	// Count is the number of executions of the range on the worst path
	// for I (loop bounds applied; capped at MaxInt64/4).
	Count int64
	// Issued and InitSum are per execution; I = Count·(InitSum+Issued) is
	// the range's share of the segment's Interference (the shares sum to
	// it exactly).
	Issued  int
	InitSum hwdesc.Cycles
	I       int64
	// Delay is the largest increase of the abstract state's End (the
	// warp's finish time) across one execution of the range, over every
	// state the analysis of the class met. Informative: D̂ is a join of
	// states, not a sum of these.
	Delay hwdesc.Cycles
}

// blockUses expands the witness of a segment into table rows, in block
// order.
func (w *walker) blockUses(wit *witness) []BlockUse {
	c := wit.counts()
	rows := make([]BlockUse, 0, len(c))
	for r, n := range c {
		b := w.g.Blocks[r.blk]
		u := BlockUse{Block: b, Thread: b, Lo: r.lo, Hi: r.hi, Count: n, Delay: w.delay[r]}
		if b.Orig != nil {
			u.Thread = b.Orig
		}
		for _, in := range b.Instrs[r.lo:r.hi] {
			if op := w.ops[in]; op != nil && op.Issues() {
				u.Issued++
				u.InitSum += op.Init
			}
		}
		u.I = satMul(n, int64(u.InitSum)+int64(u.Issued))
		rows = append(rows, u)
	}
	slices.SortFunc(rows, func(a, b BlockUse) int {
		if a.Block.Index != b.Block.Index {
			return a.Block.Index - b.Block.Index
		}
		return a.Lo - b.Lo
	})
	return rows
}
