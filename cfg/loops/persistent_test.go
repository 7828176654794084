package loops

import (
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// TestPersistentFacts: facts naming a persistent kernel's item loop and
// handshake loop give them 2 header executions each, with their source;
// a max on such a loop, or both roles at once, are errors at their line.
func TestPersistentFacts(t *testing.T) {
	src := readFile(t, "../../examples/persistent/kernel.ptx")
	sha := SHA256(src)
	_, gs := graphs(t, "kernel.ptx", src)
	head := "version = 1\nsha256 = \"" + sha + "\"\n[[kernel]]\nname = \"persistent\"\n"
	f, err := DecodeFacts("f.toml", []byte(head+"[[kernel.loop]]\nlabel = \"$L__BB0_1\"\npersistent = true\n[[kernel.loop]]\nlabel = \"$L__BB0_2\"\nhandshake = true\nwhy = \"host flag\"\n[[kernel.loop]]\nlabel = \"$L__BB0_4\"\npersistent = true\nmax = \"?\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Compute(gs[0], pass.Launch{Block: [3]int{128, 1, 1}, Grid: [3]int{1, 1, 1}}, f, sha)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Source{"$L__BB0_1": PersistentItem, "$L__BB0_2": Handshake, "$L__BB0_4": PersistentItem}
	for _, lb := range r.Loops {
		if lb.Bound == nil || lb.Bound.Max != 2 || lb.Bound.Source != want[lb.Key.Label] {
			t.Errorf("loop %s: bound %+v, want 2 (%s)", lb.Key, lb.Bound, want[lb.Key.Label])
		}
	}
	if !r.Bounded() {
		t.Errorf("problems: %v", r.Problems)
	}
	if lb := r.ByLabel("$L__BB0_2"); lb == nil || !strings.Contains(lb.Bound.Why, "host flag") {
		t.Errorf("handshake why: %+v", lb)
	}
	for _, tc := range []struct{ loop, want string }{
		{"label = \"L\"\npersistent = true\nmax = 3\n", "f.toml:8:7: loop label L is a persistent kernel's item loop: it has no max"},
		{"label = \"L\"\nhandshake = true\nmax = \"n\"\n", "is a persistent kernel's handshake loop: it has no max"},
		{"label = \"L\"\npersistent = true\nhandshake = true\n", "f.toml:5:1: loop label L: persistent and handshake"},
		{"label = \"L\"\npersistent = 1\n", "f.toml:7"},
	} {
		if _, err := DecodeFacts("f.toml", []byte(head+"[[kernel.loop]]\n"+tc.loop)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.loop, err, tc.want)
		}
	}
}
