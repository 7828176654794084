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

// counts adds m times the executions of each block range of w to c.
func (w *witness) counts(m int64, c map[blockRange]int64) {
	for n := w; n != nil; n = n.prev {
		if n.sub != nil {
			n.sub.counts(satMul(m, n.mult), c)
			continue
		}
		c[n.r] = min(c[n.r]+m, countLimit)
	}
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
	c := map[blockRange]int64{}
	wit.counts(1, c)
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
