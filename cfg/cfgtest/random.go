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
