package loops

import (
	"fmt"
	"go/token"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/sass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// TestBranchBeyondGuard: a SASS exit test "@[!]P0 BRA [!]P1, L" (ptxas
// writes a && of two comparisons so on Volta and later) is taken when the
// guard and the predicate operand hold, with their negations. Every
// combination of negations, with the loop staying on the taken side or on
// the fall-through, against the trip count of the same loop run here
// step by step: the derived bound must never be below it, and equal it
// where the derivation is exact (reading the guard alone, or a negation
// the wrong way, gives another count, below it in several cases).
func TestBranchBeyondGuard(t *testing.T) {
	// The loop counts R0 down by 1 from start; the comparisons are
	// chosen per case so that the stay condition is the same for every
	// combination of negations.
	type cmp struct {
		op  string // ISETP comparison
		imm int64
	}
	eval := func(c cmp, x int64) bool {
		switch c.op {
		case "GT":
			return x > c.imm
		case "GE":
			return x >= c.imm
		case "LT":
			return x < c.imm
		case "LE":
			return x <= c.imm
		}
		panic(c.op)
	}
	not := map[string]string{"GT": "LE", "LE": "GT", "LT": "GE", "GE": "LT"}
	launch := pass.Launch{Block: [3]int{32, 1, 1}, Grid: [3]int{1, 1, 1}}
	for _, stayTaken := range []bool{true, false} {
		for _, start := range []int64{10, 150, 300} {
			// Taken side: stay while x > 2 && x < 200 (taken stays),
			// leave when x < 120 && x < 100 (fall-through stays).
			a, b := cmp{"GT", 2}, cmp{"LT", 200}
			if !stayTaken {
				a, b = cmp{"LT", 120}, cmp{"LT", 100}
			}
			// The true count: header executions until the loop leaves.
			want := int64(0)
			for x := start; ; {
				want++
				x--
				taken := eval(a, x) && eval(b, x)
				if taken != stayTaken {
					break
				}
			}
			for _, negG := range []bool{false, true} {
				for _, negP := range []bool{false, true} {
					ga, gb, g, p := a, b, "P0", "P1"
					if negG {
						ga.op, g = not[a.op], "!P0"
					}
					if negP {
						gb.op, p = not[b.op], "!P1"
					}
					target := "{1}"
					tail := "EXIT"
					if !stayTaken {
						target = "{7}"
						tail = "BRA {1}\nEXIT"
					}
					body := fmt.Sprintf(`
						MOV R0, 0x%x
						IADD3 R0, R0, -0x1, RZ
						ISETP.%s.AND P0, PT, R0, 0x%x, PT
						ISETP.%s.AND P1, PT, R0, 0x%x, PT
						NOP
						@%s BRA %s, %s
						%s`, start, ga.op, ga.imm, gb.op, gb.imm, g, p, target, tail)
					name := fmt.Sprintf("stayTaken=%v/start=%d/guard=%s/operand=%s", stayTaken, start, g, p)
					t.Run(name, func(t *testing.T) {
						f, err := sass.ParseFile(token.NewFileSet(), "k.sass", sassKernel(body), 0)
						if err != nil {
							t.Fatalf("parse: %v", err)
						}
						g, err := cfg.Build(f.Fset, f.Funcs[0])
						if err != nil {
							t.Fatal(err)
						}
						if len(g.Loops) != 1 {
							t.Fatalf("%d loops", len(g.Loops))
						}
						vf, err := values.Build(g, values.Options{Dialect: f.Dialect, Arch: f.Target})
						if err != nil {
							t.Fatal(err)
						}
						r, err := ComputeValues(vf, launch, nil, "")
						if err != nil {
							t.Fatal(err)
						}
						lb := r.Loops[0]
						if lb.Bound == nil {
							t.Fatalf("unbounded: %s\n%s", lb.Why, sassKernel(body))
						}
						// Exact, except from a start the second
						// comparison already fails: the loop leaves at
						// once, the bound is the first comparison's
						// (each part of a conjunction bounds the loop
						// alone; the second never ends it).
						exact := want
						if stayTaken && start > 200 {
							exact = start - 2
						}
						if lb.Bound.Max < want || lb.Bound.Max != exact {
							t.Errorf("bound %d = %s, want %d (runs %d)\n%s", lb.Bound.Max, lb.Bound.Expr, exact, want, sassKernel(body))
						}
					})
				}
			}
		}
	}
}
