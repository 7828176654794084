// Package kernel bounds a kernel: a grid of B thread blocks dispatched
// onto k SMs, up to m of them co-resident on one SM, from the bounds of one
// block (docs/model.md, "Kernel-level bound"). Every figure is a closed
// form in B, k and m: the cost does not depend on the number of blocks or
// waves (no block is simulated).
//
// Inputs, in SM cycles: the block bound U (the block alone on an SM,
// package bound/static), the block's load L (Σ over its warps of InitSum +
// Issued over its whole execution: the most cycles in which its
// instructions can issue or occupy a resource), a lower bound of a block's
// duration and of its SM-exclusive work; the occupancy range [mLo, mHi]
// (package hwdesc/arch); the dispatch latency δ (a free slot stays empty
// at most δ cycles while blocks wait).
//
// Results: the co-resident bound U + (m−1)·L of a block sharing its SM
// with at most m−1 other blocks over its lifetime; the device makespan
// bound on k SMs (from the cycle the grid may first be dispatched to the
// readiness of the last result of its last block) and a lower bound of it.
package kernel

import (
	"fmt"
	"math/big"

	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Block is what the kernel bound needs of one block, in SM cycles.
type Block struct {
	// Bound is U, the bound of the block alone on an SM.
	Bound hwdesc.Cycles
	// Load is L ≥ Σ over the block's warps of InitSum + Issued over its
	// whole execution.
	Load hwdesc.Cycles
	// Lower ≤ the duration of every execution of a block, whatever
	// shares its SM.
	Lower hwdesc.Cycles
	// Work ≤ the cycles of every execution in which the block alone
	// keeps some SM-wide resource busy: the instructions it issues (one
	// per cycle per SM) or the initiation cycles of its busiest resource.
	Work hwdesc.Cycles
}

// Grid is the launch and the SM's occupancy.
type Grid struct {
	Blocks int64 // B ≥ 1: blocks of the grid
	// OccLo blocks are always co-resident on an SM while blocks of the
	// grid wait (its guaranteed slots); OccHi is the most ever
	// co-resident on one SM.
	OccLo, OccHi int
	// Dispatch is δ: a free slot of the OccLo guaranteed ones stays
	// empty at most δ cycles while blocks wait, and the first blocks
	// start at most δ after the grid may be dispatched.
	Dispatch hwdesc.Cycles
}

// Point is the kernel bound on k SMs.
type Point struct {
	SMs int
	// Upper bounds the device makespan: from the cycle the grid may first
	// be dispatched to the readiness of the last result; Upper = Head +
	// Tail.
	Upper hwdesc.Cycles
	// Head bounds the cycle of the last dispatch; Tail = CoResident(m')
	// the remaining time of a block that shares its SM with at most m'−1
	// others, m' = min(OccHi, Blocks).
	Head, Tail hwdesc.Cycles
	// SingleWave: Blocks ≤ k·OccLo, every block is dispatched by δ.
	SingleWave bool
	// PerSM is ⌊(B−1)/k⌋: the most blocks the least loaded SM starts
	// before the last dispatch (the list-scheduling argument's q).
	PerSM int64
	// Slots is the number m of guaranteed slots whose progress the head
	// counts (the best of 1, 2 and OccLo).
	Slots int
	// Waves is ⌈B/(k·OccLo)⌉, informative.
	Waves int64
	// DispatchCoeff is c with Upper(δ) ≤ Upper(0) + c·δ for every δ ≥ 0:
	// the sensitivity of the bound to the dispatch latency.
	DispatchCoeff int64
	// Lower ≤ the device makespan of every execution; LowerBy names the
	// bound that gives it: "block", "slots" or "issue".
	Lower   hwdesc.Cycles
	LowerBy string
}

// check validates the inputs.
func check(b Block, g Grid) error {
	switch {
	case b.Bound < 0 || b.Load < 0 || b.Lower < 0 || b.Work < 0:
		return fmt.Errorf("kernel: negative block figures %+v", b)
	case b.Lower > b.Bound || b.Work > b.Bound:
		return fmt.Errorf("kernel: block lower bounds %d, %d above the block bound %d", b.Lower, b.Work, b.Bound)
	case g.Blocks < 1:
		return fmt.Errorf("kernel: %d blocks: want at least 1", g.Blocks)
	case g.OccLo < 1 || g.OccHi < g.OccLo:
		return fmt.Errorf("kernel: occupancy %d..%d: want 1 <= lo <= hi", g.OccLo, g.OccHi)
	case g.Dispatch < 0:
		return fmt.Errorf("kernel: negative dispatch latency %d", g.Dispatch)
	}
	return nil
}

func bi(x int64) *big.Int { return big.NewInt(x) }

// cycles converts x, failing beyond 2^62 (head room for sums).
func cycles(x *big.Int) (hwdesc.Cycles, error) {
	if x.Sign() < 0 || x.BitLen() > 62 {
		return 0, fmt.Errorf("kernel: bound overflows 64-bit cycles")
	}
	return hwdesc.Cycles(x.Int64()), nil
}

// CoResident returns U + (m−1)·L: a bound of a block's duration when at
// most m−1 other blocks (in all, over its lifetime) share its SM.
func CoResident(b Block, m int) (hwdesc.Cycles, error) {
	if m < 1 {
		return 0, fmt.Errorf("kernel: %d co-resident blocks: want at least 1", m)
	}
	x := new(big.Int).Mul(bi(int64(m-1)), bi(int64(b.Load)))
	return cycles(x.Add(x, bi(int64(b.Bound))))
}

// At returns the kernel bound on k SMs (docs/model.md, "Kernel-level
// bound"):
//
//	single wave (B ≤ k·mLo):  Upper = δ + U + (m'−1)·L
//	otherwise, q = ⌊(B−1)/k⌋: Upper = 2δ + min_m A(m) + U + (m'−1)·L,
//	  A(m) = ⌊(q·(U+δ) + q·L·(m−1)) / m⌋             (2 ≤ m ≤ mLo)
//	  A(1) = q·(U+δ) + ⌊q·L/2⌋ (mHi ≥ 2; without ⌊q·L/2⌋ when mHi = 1)
//
// with m' = min(mHi, B), and
//
//	Lower = max(lower, ⌈B/(k·mHi)⌉·lower, ⌈B/k⌉·work).
func At(b Block, g Grid, k int) (Point, error) {
	if err := check(b, g); err != nil {
		return Point{}, err
	}
	if k < 1 {
		return Point{}, fmt.Errorf("kernel: %d SMs: want at least 1", k)
	}
	p := Point{SMs: k}
	B, K := bi(g.Blocks), bi(int64(k))
	U, L, d := bi(int64(b.Bound)), bi(int64(b.Load)), bi(int64(g.Dispatch))
	mp := int64(g.OccHi)
	if g.Blocks < mp {
		mp = g.Blocks
	}
	tail, err := CoResident(b, int(mp))
	if err != nil {
		return p, err
	}
	p.Tail = tail
	slots := new(big.Int).Mul(K, bi(int64(g.OccLo)))
	waves := new(big.Int).Add(B, new(big.Int).Sub(slots, bi(1)))
	waves.Quo(waves, slots)
	p.Waves = waves.Int64()
	head := new(big.Int)
	if B.Cmp(slots) <= 0 {
		p.SingleWave = true
		p.Slots = g.OccLo
		p.DispatchCoeff = 1
		head.Set(d)
	} else {
		q := new(big.Int).Quo(new(big.Int).Sub(B, bi(1)), K)
		p.PerSM = q.Int64()
		Ud := new(big.Int).Add(U, d)
		qUd := new(big.Int).Mul(q, Ud)
		var best *big.Int
		for _, m := range []int{1, 2, g.OccLo} {
			if m > g.OccLo {
				continue
			}
			a := new(big.Int)
			if m == 1 {
				a.Set(qUd)
				if g.OccHi >= 2 {
					a.Add(a, new(big.Int).Quo(new(big.Int).Mul(q, L), bi(2)))
				}
			} else {
				a.Mul(q, L)
				a.Mul(a, bi(int64(m-1)))
				a.Add(a, qUd)
				a.Quo(a, bi(int64(m)))
			}
			if best == nil || a.Cmp(best) < 0 {
				best, p.Slots = a, m
			}
		}
		head.Add(best, new(big.Int).Mul(bi(2), d)) // δ (the first fill) + δ (the last dispatch)
		c := new(big.Int).Add(q, bi(int64(p.Slots-1)))
		c.Quo(c, bi(int64(p.Slots)))
		if p.Slots == 1 {
			c.Set(q)
		}
		p.DispatchCoeff = c.Add(c, bi(2)).Int64()
	}
	if p.Head, err = cycles(head); err != nil {
		return p, err
	}
	if p.Upper, err = cycles(new(big.Int).Add(head, bi(int64(p.Tail)))); err != nil {
		return p, err
	}

	// Lower bounds: one block; the blocks of the busiest slot in
	// sequence; the busiest SM's issue slots or resource.
	lo := bi(int64(b.Lower))
	p.LowerBy = "block"
	hiSlots := new(big.Int).Mul(K, bi(int64(g.OccHi)))
	perSlot := new(big.Int).Quo(new(big.Int).Add(B, new(big.Int).Sub(hiSlots, bi(1))), hiSlots)
	if x := new(big.Int).Mul(perSlot, bi(int64(b.Lower))); x.Cmp(lo) > 0 {
		lo, p.LowerBy = x, "slots"
	}
	perSM := new(big.Int).Quo(new(big.Int).Add(B, new(big.Int).Sub(K, bi(1))), K)
	if x := new(big.Int).Mul(perSM, bi(int64(b.Work))); x.Cmp(lo) > 0 {
		lo, p.LowerBy = x, "issue"
	}
	if p.Lower, err = cycles(lo); err != nil {
		return p, err
	}
	return p, nil
}

// Curve returns At for k = 1 … sms.
func Curve(b Block, g Grid, sms int) ([]Point, error) {
	if sms < 1 {
		return nil, fmt.Errorf("kernel: %d SMs: want at least 1", sms)
	}
	out := make([]Point, 0, sms)
	for k := 1; k <= sms; k++ {
		p, err := At(b, g, k)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
