package values

import (
	"strings"
	"testing"
	"time"
)

// TestPrettyLimit: a value graph whose expression doubles at each level
// (the remainder of an unsigned division by a constant at nvcc -O0 reads
// select(c, select(…), select(…)) forty levels deep) is written in at most
// PrettyLimit bytes, its top shown and its depths cut with "…", in time
// that does not depend on the size of the expansion. Before, messages
// held kilobytes of select(…) and a deep graph took time exponential in
// its depth.
func TestPrettyLimit(t *testing.T) {
	n := &Value{Kind: VParam, Name: "_Z15loop_udiv_constPjj_param_1", W: 32}
	x := n
	for i := 0; i < 40; i++ {
		c := &Value{Kind: VOp, Code: ULe, W: 1, Args: []*Value{{Kind: VConst, W: 32, Imm: 7}, x}}
		sub := &Value{Kind: VOp, Code: Add, W: 32, Args: []*Value{x, {Kind: VConst, W: 32, Imm: 1<<32 - 7}}}
		x = &Value{Kind: VOp, Code: Select, W: 32, Args: []*Value{c, sub, x}}
	}
	start := time.Now()
	for _, tc := range []struct {
		name  string
		text  string
		limit int
	}{
		{"Pretty", Pretty(x), PrettyLimit},
		{"String", x.String(), 2 * PrettyLimit},
	} {
		if len(tc.text) > tc.limit {
			t.Errorf("%s: %d bytes, want at most %d: %s", tc.name, len(tc.text), tc.limit, tc.text)
		}
		if !strings.Contains(tc.text, "…") || !strings.HasPrefix(tc.text, "select") {
			t.Errorf("%s = %q, want the top select and … below", tc.name, tc.text)
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		// Not a timing assertion: an expansion of 3^40 nodes never ends.
		t.Errorf("took %v", d)
	}
	// A small value is written whole.
	small := &Value{Kind: VOp, Code: Add, W: 32, Args: []*Value{n, {Kind: VConst, W: 32, Imm: 1<<32 - 3}}}
	if got, want := Pretty(small), "_Z15loop_udiv_constPjj_param_1 - 3"; got != want {
		t.Errorf("Pretty = %q, want %q", got, want)
	}
	// A leaf longer than the limit is written whole (the top is always shown).
	long := &Value{Kind: VParam, Name: strings.Repeat("p", 2*PrettyLimit), W: 32}
	if got := Pretty(long); got != long.Name {
		t.Errorf("Pretty of a long name = %q", got)
	}
}
