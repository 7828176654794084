package static

import (
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// tileLoop has the shape of a PREM tile loop: a release barrier (after a
// guarded stand-in for the spin), a prefetch with a branch, a compute
// section and a write-back that loops back to the release.
const tileLoop = `ld r1 r0
	bar
T:
	@p bra SKIP
	mul r2 r1
SKIP:
	bar
	ld r3 r2
	@q bra X
	ld r4 r3
	ld r7 r4
X:
	bar
	mul r5 r4
	bar
	st r6 r5
	@s bra T
`

// TestRegionAgainstConcretePaths: on every concrete path, each stretch from
// a crossing of the region's first barrier to the next crossing of one of
// its last barriers costs (as the sum of its section bounds) at most the
// region's bound, and the costliest stretch equals it.
func TestRegionAgainstConcretePaths(t *testing.T) {
	for _, tc := range []struct {
		src    string
		bounds map[string]int64
		from   int   // instruction index of the first barrier, -1: the start
		to     []int // instruction indexes of the last barriers, -1: the end
	}{
		{tileLoop, map[string]int64{"T": 3}, 4, []int{9}},
		{tileLoop, map[string]int64{"T": 3}, 9, []int{11}},
		{tileLoop, map[string]int64{"T": 3}, 11, []int{4, -1}},
		{tileLoop, map[string]int64{"T": 3}, 4, []int{11}},
		{tileLoop, map[string]int64{"T": 3}, -1, []int{4}},
		{tileLoop, map[string]int64{"T": 3}, 9, []int{4, -1}},
		{breakLoop, map[string]int64{"L": 3}, 2, []int{11}},
		{breakLoop, map[string]int64{"L": 3}, 7, []int{11, -1}},
	} {
		k := build(t, tc.src)
		fn := k.g.Func
		at := func(i int) *isa.Instr {
			if i < 0 {
				return nil
			}
			if fn.Instrs[i].Kind != isa.KindBarrier {
				t.Fatalf("instruction %d (%q) is not a barrier", i, fn.Instrs[i].Text)
			}
			return fn.Instrs[i]
		}
		from := at(tc.from)
		var to []*isa.Instr
		for _, i := range tc.to {
			to = append(to, at(i))
		}
		res, err := k.analyze(t, 3, tc.bounds)
		if err != nil {
			t.Fatal(err)
		}
		reg, err := res.Region(from, to)
		if err != nil {
			t.Fatalf("region %d -> %v: %v", tc.from, tc.to, err)
		}
		var sum int64
		for _, s := range reg.Path {
			sum += int64(s.Bound)
		}
		if sum != int64(reg.Bound) || reg.Path[0].From != from {
			t.Errorf("region %d -> %v: path sums to %d, bound %d", tc.from, tc.to, sum, reg.Bound)
		}
		seg := map[[2]*isa.Instr]int64{}
		for _, s := range res.Segments {
			seg[[2]*isa.Instr{s.From, s.To}] = max(seg[[2]*isa.Instr{s.From, s.To}], int64(s.Bound))
		}
		isTo := func(b *isa.Instr) bool {
			for _, x := range to {
				if x == b {
					return true
				}
			}
			return false
		}
		heaviest := int64(-1)
		if _, complete, err := EnumeratePaths(k.g, boundsByLabel(tc.bounds), 10000, func(p []*isa.Instr) bool {
			// The barriers crossed in order, the start first and the end last.
			bars := []*isa.Instr{nil}
			for _, in := range p {
				if in.Kind == isa.KindBarrier {
					bars = append(bars, in)
				}
			}
			bars = append(bars, nil)
			for i := 0; i < len(bars)-1; i++ {
				if bars[i] != from || (i > 0 && from == nil) {
					continue
				}
				var x int64
				for j := i + 1; j < len(bars); j++ {
					end := j == len(bars)-1
					x += seg[[2]*isa.Instr{bars[j-1], bars[j]}]
					if (end && isTo(nil)) || (!end && isTo(bars[j])) {
						if x > int64(reg.Bound) {
							t.Errorf("region %d -> %v: a concrete stretch costs %d > bound %d", tc.from, tc.to, x, reg.Bound)
						}
						heaviest = max(heaviest, x)
						break
					}
					if end || bars[j] == from {
						break
					}
				}
			}
			return true
		}); err != nil || !complete {
			t.Fatalf("enumeration: %v, complete %v", err, complete)
		}
		if heaviest != int64(reg.Bound) {
			t.Errorf("region %d -> %v: bound %d, costliest concrete stretch %d", tc.from, tc.to, reg.Bound, heaviest)
		}
	}
}

func TestRegionRefused(t *testing.T) {
	k := build(t, breakLoop)
	res, err := k.analyze(t, 2, map[string]int64{"L": 3})
	if err != nil {
		t.Fatal(err)
	}
	fn := k.g.Func
	for _, tc := range []struct {
		from *isa.Instr
		to   []*isa.Instr
		want string
	}{
		{nil, []*isa.Instr{nil}, "crosses a loop holding barriers"},
		{fn.Instrs[0], []*isa.Instr{nil}, "no barrier section starts at"},
		{fn.Instrs[11], []*isa.Instr{fn.Instrs[2]}, "no path from"},
		{fn.Instrs[2], nil, "no end given"},
	} {
		if _, err := res.Region(tc.from, tc.to); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Region(%v, %v) = %v, want an error containing %q", tc.from, tc.to, err, tc.want)
		}
	}
}
