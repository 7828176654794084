package cfgtest

import (
	"fmt"
	"math/rand"
	"strings"
)

// Random returns the source of a random function of n blocks, each with a
// label "L<i>" and one or two instructions, ending in a random terminator
// (fall-through, guarded or unguarded branch, indirect branch, ret, exit),
// for property tests. The same seed gives the same source.
func Random(seed int64, n int) string {
	r := rand.New(rand.NewSource(seed))
	var sb strings.Builder
	sb.WriteString(".entry random\n")
	target := func() string { return fmt.Sprintf("L%d", r.Intn(n)) }
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "L%d:\n\tadd r%d\n", i, i)
		switch k := r.Intn(20); {
		case k < 5: // fall through
		case k < 11:
			fmt.Fprintf(&sb, "\t@p%d bra %s\n", i, target())
		case k < 15:
			fmt.Fprintf(&sb, "\tbra %s\n", target())
		case k < 16:
			fmt.Fprintf(&sb, "\tbrx %s %s %s\n", target(), target(), target())
		case k < 17:
			fmt.Fprintf(&sb, "\t@p%d ret\n", i)
		case k < 18:
			sb.WriteString("\tret\n")
		default:
			sb.WriteString("\texit\n")
		}
	}
	return sb.String()
}

// Structured returns the source of a random structured function of at most
// size statements, drawn from r, for property tests: nested if, if/else,
// while loops with breaks, do-while loops and early guarded returns. Every
// guard is a never-written predicate, hence thread-varying: every branch is
// possibly divergent. The same state of r gives the same source.
func Structured(r *rand.Rand, size int) string {
	var sb strings.Builder
	sb.WriteString(".entry s\n")
	n := 0
	label := func(s string) string { n++; return fmt.Sprintf("%s%d", s, n) }
	var gen func(depth int, exit string)
	gen = func(depth int, exit string) {
		k := 1 + r.Intn(3)
		for i := 0; i < k && size > 0; i++ {
			size--
			fmt.Fprintf(&sb, "\tadd r%d\n", n)
			c := r.Intn(8)
			if depth >= 4 {
				c = 0
			}
			switch c {
			case 1: // if
				end := label("E")
				fmt.Fprintf(&sb, "\t@p%d bra %s\n", n, end)
				gen(depth+1, exit)
				fmt.Fprintf(&sb, "%s:\n", end)
			case 2: // if/else
				els, end := label("S"), label("E")
				fmt.Fprintf(&sb, "\t@p%d bra %s\n", n, els)
				gen(depth+1, exit)
				fmt.Fprintf(&sb, "\tbra %s\n%s:\n", end, els)
				gen(depth+1, exit)
				fmt.Fprintf(&sb, "%s:\n", end)
			case 3: // while
				head, out := label("H"), label("X")
				fmt.Fprintf(&sb, "%s:\n\t@p%d bra %s\n", head, n, out)
				gen(depth+1, out)
				fmt.Fprintf(&sb, "\tbra %s\n%s:\n", head, out)
			case 4: // do-while
				top := label("T")
				fmt.Fprintf(&sb, "%s:\n", top)
				gen(depth+1, exit)
				fmt.Fprintf(&sb, "\t@p%d bra %s\n", n, top)
			case 5: // break
				if exit != "" {
					fmt.Fprintf(&sb, "\t@p%d bra %s\n", n, exit)
				}
			case 6: // early return
				if r.Intn(3) == 0 {
					fmt.Fprintf(&sb, "\t@p%d ret\n", n)
				}
			}
		}
	}
	gen(0, "")
	sb.WriteString("\tret\n")
	return sb.String()
}
