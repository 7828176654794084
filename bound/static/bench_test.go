package static

import (
	"fmt"
	"strings"
	"testing"
)

// nestSrc returns a kernel of depth loops nested in one another (labels
// L0 outermost … L{depth-1}), each closed by a conditional back edge; when
// bar is set the innermost body holds a block-wide barrier. One loop in
// every runs twice, the others once, so that the bound stays within 64
// bits at depth 128 while the witness still shares its prefixes.
func nestSrc(depth, every int, bar bool) (string, map[string]int64) {
	var sb strings.Builder
	bounds := map[string]int64{}
	sb.WriteString("ld r1 r0\n")
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&sb, "L%d: add r%d r1\n", i, i+2)
		bounds[fmt.Sprintf("L%d", i)] = 1
		if i%every == 0 {
			bounds[fmt.Sprintf("L%d", i)] = 2
		}
	}
	sb.WriteString("mul r1 r1\n")
	if bar {
		sb.WriteString("bar\n")
	}
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&sb, "add r%d r%d\n@p bra L%d\n", i+2, i+2, i)
	}
	sb.WriteString("st r9 r1\nret\n")
	return sb.String(), bounds
}

// diamondSrc returns a kernel of n if/else diamonds in sequence, with a
// block-wide barrier after each when bar is set.
func diamondSrc(n int, bar bool) string {
	var sb strings.Builder
	sb.WriteString("ld r1 r0\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "@p bra E%d\nmul r1 r1\nbra J%d\nE%d: add r1 r1\nJ%d: add r2 r1\n", i, i, i, i)
		if bar {
			sb.WriteString("bar\n")
		}
	}
	sb.WriteString("st r9 r1\nret\n")
	return sb.String()
}

// guardedNestSrc returns a kernel of depth loops nested in one another,
// each of which a branch may skip the loop nested in it (a sorting
// network's shape), with a block-wide barrier in the innermost body: every
// loop holds a barrier and has iterations that cross none. One loop in
// four runs twice, the others once (the bound stays within 64 bits).
func guardedNestSrc(depth int) (string, map[string]int64) {
	var sb strings.Builder
	bounds := map[string]int64{}
	sb.WriteString("ld r1 r0\nbar\n")
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&sb, "L%d: add r%d r1\n@p bra S%d\n", i, i%8+2, i)
		bounds[fmt.Sprintf("L%d", i)] = 1
		if i%4 == 0 {
			bounds[fmt.Sprintf("L%d", i)] = 2
		}
	}
	sb.WriteString("mul r1 r1\nbar\n")
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&sb, "S%d: add r%d r%d\n@p bra L%d\n", i, i%8+2, i%8+2, i)
	}
	sb.WriteString("st r9 r1\nret\n")
	return sb.String(), bounds
}

// BenchmarkGuardedNest: analysis time over the nesting depth of loops
// holding barriers with barrier-free iterations (docs/performance.md,
// "Static analysis: scaling"), 4 warps.
func BenchmarkGuardedNest(b *testing.B) {
	for _, d := range depths[:7] { // at depth 128 the bound overflows
		b.Run(fmt.Sprintf("depth=%d", d), func(b *testing.B) {
			src, bounds := guardedNestSrc(d)
			k := build(b, src)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := k.analyze(b, 4, bounds); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// depths are the sizes of the scaling benchmarks.
var depths = []int{1, 2, 4, 8, 16, 32, 64, 128}

// BenchmarkNest: analysis time over loop-nesting depth (docs/performance.md,
// "Static analysis: scaling"), 4 warps, without and with a barrier in the
// innermost body.
func BenchmarkNest(b *testing.B) {
	for _, bar := range []bool{false, true} {
		for _, d := range depths {
			b.Run(fmt.Sprintf("bar=%v/depth=%d", bar, d), func(b *testing.B) {
				src, bounds := nestSrc(d, 4, bar)
				k := build(b, src)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := k.analyze(b, 4, bounds); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDiamonds: analysis time over the length of a chain of if/else
// diamonds, without and with a barrier after each.
func BenchmarkDiamonds(b *testing.B) {
	for _, bar := range []bool{false, true} {
		for _, n := range append(depths, 256, 1024) {
			b.Run(fmt.Sprintf("bar=%v/n=%d", bar, n), func(b *testing.B) {
				k := build(b, diamondSrc(n, bar))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := k.analyze(b, 4, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestDeepNest: a 200-deep loop nest and a chain of 2000 diamonds, with
// and without barriers, are analysed (in time polynomial in the depth:
// the witness of the worst path is a DAG, walked once per node; the
// test's own timeout is the guard, performance is in BenchmarkNest).
func TestDeepNest(t *testing.T) {
	for _, bar := range []bool{false, true} {
		every := 4 // 2^50 paths through the witness without barrier
		if bar {
			every = 8 // the sum of the section bounds stays within 64 bits
		}
		src, bounds := nestSrc(200, every, bar)
		if _, err := build(t, src).analyze(t, 4, bounds); err != nil {
			t.Errorf("nest, barrier %v: %v", bar, err)
		}
		if _, err := build(t, diamondSrc(2000, bar)).analyze(t, 4, nil); err != nil {
			t.Errorf("diamonds, barrier %v: %v", bar, err)
		}
	}
}
