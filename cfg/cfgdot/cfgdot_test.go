package cfgdot_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgdot"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
)

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"ld.global.v2.u32 {%r1, %r2}, [%rd1]", "ld.global.v2.u32 {%r1, %r2}, [%rd1]"},
		{"setp.lt.s32 %p1|%p2, %r1, %r2", "setp.lt.s32 %p1|%p2, %r1, %r2"},
		{`a<b>&"c"`, "a&lt;b&gt;&amp;&quot;c&quot;"},
		{"x\t\ty", "x &#160;y"},
		{"back\\slash\x00", "back\\slash"},
		{"… 3 more", "… 3 more"},
	} {
		if got := cfgdot.Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGraph(t *testing.T) {
	fset, fn := cfgtest.Must(t, `
	add
L:
	a1
	a2
	a3
	a4
	a5
	@p bra L
	ret
`)
	g, err := cfg.Build(fset, fn)
	if err != nil {
		t.Fatal(err)
	}
	out := cfgdot.Graph(g, cfgdot.Options{MaxInstrs: 4, Head: 2, Tail: 1}).String()
	for _, want := range []string{
		"subgraph cluster_",  // the loop
		`constraint="false"`, // its back edge
		`color="blue"`,       //
		"… 3 more",           // collapsed block: 6 instructions, 2 + 1 shown
		`label="exit",shape="Msquare"`,
		"4: a1", // source lines
	} {
		if !strings.Contains(out, want) {
			t.Errorf("drawing lacks %q:\n%s", want, out)
		}
	}
	// Determinism: the same graph draws the same.
	if diff := cmp.Diff(out, cfgdot.Graph(g, cfgdot.Options{MaxInstrs: 4, Head: 2, Tail: 1}).String()); diff != "" {
		t.Errorf("drawing not deterministic (-first +second):\n%s", diff)
	}
	// Negative MaxInstrs hides instructions.
	if hidden := cfgdot.Graph(g, cfgdot.Options{MaxInstrs: -1}).String(); strings.Contains(hidden, "a1") {
		t.Errorf("MaxInstrs -1 shows instructions:\n%s", hidden)
	}
}
