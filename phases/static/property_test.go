package static

import (
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

var propN = flag.Int("static.n", 120, "random programs for TestSoundAgainstConcretePaths")

// genProgram writes a random structured program: straight code, if/else,
// loops (do-while, bound 1-4) with an optional break in the middle, nested
// up to depth 3. Bounds are keyed by the header label.
type gen struct {
	r      *rand.Rand
	sb     strings.Builder
	n      int
	bounds map[string]int64
}

func (g *gen) instr() {
	ops := []string{"add", "add", "mul", "ld", "st"}
	op := ops[g.r.Intn(len(ops))]
	fmt.Fprintf(&g.sb, "\t%s r%d r%d r%d\n", op, g.r.Intn(6), g.r.Intn(6), g.r.Intn(6))
}

func (g *gen) block(depth int, exit string) {
	for k := 1 + g.r.Intn(3); k > 0; k-- {
		switch x := g.r.Intn(10); {
		case x < 5 || depth >= 3:
			g.instr()
		case x < 7:
			g.n++
			id := g.n
			fmt.Fprintf(&g.sb, "\t@p%d bra E%d\n", g.r.Intn(3), id)
			g.block(depth+1, exit)
			fmt.Fprintf(&g.sb, "\tbra J%d\nE%d:\n", id, id)
			g.block(depth+1, exit)
			fmt.Fprintf(&g.sb, "J%d:\n", id)
		case x < 9:
			g.n++
			id := g.n
			g.bounds[fmt.Sprintf("H%d", id)] = int64(g.r.Intn(4)) // 0 reads as 1
			fmt.Fprintf(&g.sb, "H%d:\n", id)
			g.block(depth+1, fmt.Sprintf("X%d", id))
			fmt.Fprintf(&g.sb, "\t@p%d bra H%d\nX%d:\n", g.r.Intn(3), id, id)
		default:
			if exit != "" {
				fmt.Fprintf(&g.sb, "\t@p%d bra %s\n", g.r.Intn(3), exit)
			}
			g.instr()
		}
	}
}

// TestSoundAgainstConcretePaths: on single-warp random structured
// programs, the static D and I of the whole kernel are at least the
// duration and InitSum+Issued of every concrete path allowed by the bounds,
// run through the engine (phases.BuildClass).
func TestSoundAgainstConcretePaths(t *testing.T) {
	for _, acc := range []struct {
		exact int64
		widen int
	}{{4, 6}, {1, 6}, {1, 0}, {2, 1}} {
		t.Run(fmt.Sprintf("exact%d-widen%d", acc.exact, acc.widen), func(t *testing.T) {
			defer func(e int64, w int) { exactIters, widenRounds = e, w }(exactIters, widenRounds)
			exactIters, widenRounds = acc.exact, acc.widen
			soundAgainstConcretePaths(t)
		})
	}
}

func soundAgainstConcretePaths(t *testing.T) {
	checked, tight := 0, 0
	for seed := int64(1); seed <= int64(*propN); seed++ {
		g := &gen{r: rand.New(rand.NewSource(seed)), bounds: map[string]int64{}}
		g.sb.WriteString(".entry random\n")
		g.block(0, "")
		g.sb.WriteString("\tret\n")
		src := g.sb.String()
		k := build(t, src)
		r, err := k.analyze(t, 1, g.bounds)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		if len(r.Segments) != 1 {
			t.Fatalf("seed %d: %d segments", seed, len(r.Segments))
		}
		sc := r.Segments[0].Classes[0]
		var maxD, maxI hwdesc.Cycles
		prepared := map[*isa.Instr]*phases.Op{}
		n, complete, err := EnumeratePaths(k.g, boundsByLabel(g.bounds), 20000, func(path []*isa.Instr) bool {
			ops := make([]*phases.Op, len(path))
			for i, in := range path {
				op := prepared[in]
				if op == nil {
					o, err := k.eng.Prepare(nil, in)
					if err != nil {
						t.Fatal(err)
					}
					op = &o
					prepared[in] = op
				}
				ops[i] = op
			}
			c := phases.BuildClassOps(k.eng, ops, false)
			s := c.Sections[0]
			d, i := s.Duration, s.InitSum+hwdesc.Cycles(s.Issued)
			if d > sc.Duration || i > sc.Interference {
				t.Errorf("seed %d: concrete path of %d instructions: duration %d, interference %d; static D %d, I %d\n%s", seed, len(path), d, i, sc.Duration, sc.Interference, src)
				return false
			}
			maxD, maxI = max(maxD, d), max(maxI, i)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			return
		}
		if !complete {
			continue
		}
		checked++
		if n > 0 && maxI != sc.Interference {
			t.Errorf("seed %d: I %d is not the longest path weight %d (the weight analysis is exact)", seed, sc.Interference, maxI)
		}
		if maxD == sc.Duration {
			tight++
		}
	}
	t.Logf("%d programs fully enumerated; static D equal to the worst concrete duration in %d", checked, tight)
	if checked < *propN/2 {
		t.Errorf("only %d of %d programs enumerated completely", checked, *propN)
	}
}
