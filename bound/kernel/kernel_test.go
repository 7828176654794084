package kernel

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// TestAtByHand checks bound(k) against values computed by hand from the
// formulas of docs/model.md (Theorem K).
func TestAtByHand(t *testing.T) {
	b := Block{Bound: 100, Load: 60, Lower: 30, Work: 20}
	cases := []struct {
		g            Grid
		k            int
		upper, lower hwdesc.Cycles
		slots        int
		why          string
	}{
		{Grid{Blocks: 1, OccLo: 4, OccHi: 4}, 1, 100, 30, 4, "single block: U; lower the block's"},
		{Grid{Blocks: 4, OccLo: 4, OccHi: 4, Dispatch: 5}, 1, 5 + 100 + 3*60, 30, 4, "single wave: δ + U + 3L; lower max(30, 1·30, 4·20 = 80)? no: 4 blocks on 1 SM, ⌈4/1⌉·20 = 80"},
		{Grid{Blocks: 9, OccLo: 2, OccHi: 2}, 1, 0, 0, 2, "q = 8; A(1) = 800 + 240 = 1040, A(2) = (800 + 480)/2 = 640: 640 + U + L = 800"},
		{Grid{Blocks: 9, OccLo: 1, OccHi: 1, Dispatch: 3}, 3, 0, 0, 1, "q = 2; A(1) = 2·103 = 206 (mHi = 1: no L/2): 2·3 + 206 + 100 = 312"},
	}
	cases[1].lower = 80
	cases[2].upper, cases[2].lower = 800, 180 // lower: ⌈9/2⌉·30 = 150 by slots, ⌈9/1⌉·20 = 180 by issue
	cases[3].upper, cases[3].lower = 312, 90  // lower: ⌈9/3⌉·30 = 90 by slots, ⌈9/3⌉·20 = 60
	for _, c := range cases {
		p, err := At(b, c.g, c.k)
		if err != nil {
			t.Fatal(err)
		}
		if p.Upper != c.upper || p.Lower != c.lower || p.Slots != c.slots {
			t.Errorf("%+v on %d SMs: upper %d, lower %d, slots %d; want %d, %d, %d (%s)", c.g, c.k, p.Upper, p.Lower, p.Slots, c.upper, c.lower, c.slots, c.why)
		}
	}
}

// TestMonotone: the bound never decreases with more blocks, a larger
// block bound, load or dispatch latency, and never increases with more
// SMs; the lower bound is never above it; the dispatch coefficient bounds
// the growth in δ.
func TestMonotone(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := Block{Bound: hwdesc.Cycles(1 + r.IntN(5000)), Load: hwdesc.Cycles(r.IntN(8000))}
		b.Lower = hwdesc.Cycles(r.Int64N(int64(b.Bound) + 1))
		b.Work = min(b.Lower, hwdesc.Cycles(r.Int64N(int64(b.Load)+1)))
		lo := 1 + r.IntN(8)
		g := Grid{Blocks: 1 + r.Int64N(5000), OccLo: lo, OccHi: lo + r.IntN(8), Dispatch: hwdesc.Cycles(r.IntN(100))}
		k := 1 + r.IntN(64)
		p, err := At(b, g, k)
		if err != nil {
			t.Fatal(err)
		}
		if p.Lower > p.Upper {
			t.Fatalf("%+v %+v k %d: lower %d above upper %d", b, g, k, p.Lower, p.Upper)
		}
		check := func(what string, q Point) {
			t.Helper()
			if q.Upper < p.Upper {
				t.Fatalf("%+v %+v k %d: %s lowers the bound %d -> %d", b, g, k, what, p.Upper, q.Upper)
			}
		}
		g2 := g
		g2.Blocks++
		q, _ := At(b, g2, k)
		check("one more block", q)
		b2 := b
		b2.Bound++
		q, _ = At(b2, g, k)
		check("a larger block bound", q)
		b2 = b
		b2.Load++
		q, _ = At(b2, g, k)
		check("a larger load", q)
		g2 = g
		g2.Dispatch += 7
		q, _ = At(b, g2, k)
		check("a longer dispatch", q)
		g0 := g
		g0.Dispatch = 0
		p0, _ := At(b, g0, k)
		if q.Upper > p0.Upper+hwdesc.Cycles(p0.DispatchCoeff)*g2.Dispatch {
			t.Fatalf("%+v %+v k %d: bound %d at δ %d above %d + %d·δ", b, g2, k, q.Upper, g2.Dispatch, p0.Upper, p0.DispatchCoeff)
		}
		q, _ = At(b, g, k+1)
		if q.Upper > p.Upper || q.Lower > p.Lower {
			t.Fatalf("%+v %+v: %d SMs give %d/%d, %d SMs %d/%d", b, g, k+1, q.Lower, q.Upper, k, p.Lower, p.Upper)
		}
	}
}

func TestErrors(t *testing.T) {
	b := Block{Bound: 100, Load: 10, Lower: 5, Work: 5}
	for _, c := range []struct {
		b    Block
		g    Grid
		k    int
		want string
	}{
		{b, Grid{Blocks: 0, OccLo: 1, OccHi: 1}, 1, "0 blocks"},
		{b, Grid{Blocks: 1, OccLo: 2, OccHi: 1}, 1, "occupancy 2..1"},
		{b, Grid{Blocks: 1, OccLo: 1, OccHi: 1}, 0, "0 SMs"},
		{Block{Bound: 10, Lower: 11}, Grid{Blocks: 1, OccLo: 1, OccHi: 1}, 1, "above the block bound"},
		{Block{Bound: 1 << 40, Load: 1 << 40}, Grid{Blocks: 1 << 40, OccLo: 1, OccHi: 2}, 1, "overflows 64-bit cycles"},
	} {
		if _, err := At(c.b, c.g, c.k); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("At(%+v, %+v, %d) = %v, want %q", c.b, c.g, c.k, err, c.want)
		}
	}
}

// BenchmarkAt measures bound(k) for a grid of 10^6 blocks on 128 SMs: a
// closed form, whatever the number of blocks (docs/performance.md).
func BenchmarkAt(b *testing.B) {
	blk := Block{Bound: 2208, Load: 2322, Lower: 293, Work: 256}
	g := Grid{Blocks: 1_000_000, OccLo: 6, OccHi: 6, Dispatch: 100}
	for b.Loop() {
		if _, err := At(blk, g, 128); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCurve measures bound(k) for k = 1 … 128.
func BenchmarkCurve(b *testing.B) {
	blk := Block{Bound: 2208, Load: 2322, Lower: 293, Work: 256}
	g := Grid{Blocks: 1_000_000, OccLo: 6, OccHi: 6, Dispatch: 100}
	for b.Loop() {
		if _, err := Curve(blk, g, 128); err != nil {
			b.Fatal(err)
		}
	}
}
