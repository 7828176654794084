package phases

import (
	"slices"

	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Chain bounds the isolated paths of a warp's dependence graph that end at
// a result (docs/model.md, "The per-path charge"): every such path whose
// initiations all lie on resources of Res is at most Len cycles long, and
// every path is covered by some chain of its section (Section.Chains).
//
// The dependence graph of a section has, per issued instruction k, the
// nodes T_k (issue), S_k (start) and R_k (ready), with the edges of the
// engine's recurrences: T_{k-1} → T_k (weight 1), R_j → T_k for the last
// writer j of a register k reads or writes and for a branch j the warp
// waits for, T_k → S_k, S_p → S_k (weight init_p, p the warp's previous
// instruction on k's resource), S_k → R_k (weight init_k + lat_k). The
// isolated ready time of k is the longest path to R_k, and the section's
// duration the longest path to any R_k. A path "initiates on" the
// resources of its S nodes.
type Chain struct {
	Res []int         // resources (Op.Resource), increasing: a superset of those the paths initiate on
	Len hwdesc.Cycles // the longest of the paths
}

// MaxChainBits is the number of resource sets the chains of one section
// distinguish (2^MaxChainBits chains at most): a section using more
// resources puts several in one set (a path on any of them counts as on
// all), which only makes the charge larger.
const MaxChainBits = 8

const negInf = hwdesc.Cycles(-1) << 60

// chainBuilder computes the chains of one section alongside the engine:
// the longest path to each node, per set of resource buckets visited (a
// vector indexed by bucket mask, negInf where no path exists).
type chainBuilder struct {
	bucket map[int]int // resource -> bucket
	res    []int       // resources of the section, increasing
	n      int         // masks: 1 << buckets
	next   []hwdesc.Cycles
	unit   map[int][]hwdesc.Cycles
	reg    map[RegID][]hwdesc.Cycles
	end    []hwdesc.Cycles
	last   []hwdesc.Cycles // R of the last issued instruction (branch waits)
	t, s   []hwdesc.Cycles // scratch: T and S of the instruction stepped
}

// newChainBuilder prepares the chains of a section whose issued
// instructions are ops.
func newChainBuilder(ops []*Op) *chainBuilder {
	var res []int
	for _, op := range ops {
		if op.Unit != NoUnit && !slices.Contains(res, op.Resource()) {
			res = append(res, op.Resource())
		}
	}
	slices.Sort(res)
	nb := min(len(res), MaxChainBits)
	b := &chainBuilder{bucket: map[int]int{}, res: res, n: 1 << nb, unit: map[int][]hwdesc.Cycles{}, reg: map[RegID][]hwdesc.Cycles{}}
	for i, r := range res {
		b.bucket[r] = i % max(nb, 1)
	}
	b.next = b.vec()
	b.next[0] = 0
	b.end = b.vec()
	b.t, b.s = b.vec(), b.vec()
	return b
}

func (b *chainBuilder) vec() []hwdesc.Cycles {
	v := make([]hwdesc.Cycles, b.n)
	for i := range v {
		v[i] = negInf
	}
	return v
}

func maxInto(dst, src []hwdesc.Cycles) {
	for i, x := range src {
		dst[i] = max(dst[i], x)
	}
}

// step adds one issued instruction.
func (b *chainBuilder) step(op *Op) {
	t := b.t
	copy(t, b.next)
	for _, r := range op.Uses {
		if v, ok := b.reg[r]; ok {
			maxInto(t, v)
		}
	}
	for _, r := range op.Defs {
		if v, ok := b.reg[r]; ok {
			maxInto(t, v)
		}
	}
	res := op.Resource()
	bit := 1 << b.bucket[res]
	uf := b.unit[res]
	s := b.s
	for m := range s {
		s[m] = negInf
	}
	for m, x := range t {
		if uf != nil {
			x = max(x, uf[m])
		}
		if x > negInf {
			s[m|bit] = max(s[m|bit], x)
		}
	}
	free := uf
	if free == nil {
		free = b.vec()
	}
	ready := b.vec()
	for m, x := range s {
		if x > negInf {
			free[m] = x + op.Init
			ready[m] = x + op.Init + op.Lat
		} else {
			free[m] = negInf
		}
	}
	b.unit[res] = free
	for _, d := range op.Defs {
		b.reg[d] = ready
	}
	maxInto(b.end, ready)
	for m, x := range t {
		if x > negInf {
			b.next[m] = x + 1
		} else {
			b.next[m] = negInf
		}
	}
	b.last = ready
}

// wait applies the branch wait after the last instruction.
func (b *chainBuilder) wait() {
	if b.last != nil {
		maxInto(b.next, b.last)
	}
}

// chains returns the chains of the section.
func (b *chainBuilder) chains() []Chain {
	var out []Chain
	for m, l := range b.end {
		if l <= negInf {
			continue
		}
		c := Chain{Len: l, Res: []int{}}
		for _, r := range b.res {
			if m&(1<<b.bucket[r]) != 0 {
				c.Res = append(c.Res, r)
			}
		}
		out = append(out, c)
	}
	return out
}
