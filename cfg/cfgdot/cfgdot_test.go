package cfgdot_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgdot"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/input"
)

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"ld.global.v2.u32 {%r1, %r2}, [%rd1]", "ld.global.v2.u32 {%r1, %r2}, [%rd1]"},
		{"setp.lt.s32 %p1|%p2, %r1, %r2", "setp.lt.s32 %p1|%p2, %r1, %r2"},
		{`a<b>&"c"`, "a&lt;b&gt;&amp;&quot;c&quot;"},
		{"x\t\ty", "x &#160;y"},
		{"back\\slash\x00", "back\\slash\\x00"},
		{"bidi\u202eevil", "bidi\\u202eevil"},
		{"bidi\u202eevil", "bidi\\u202eevil"},
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

// hostile tries every way out of a DOT string and an HTML-like label.
const hostile = "k\"q\\G\\N \\\" <b>x</b> &amp; ]]> --> \n} digraph x {\x1b[31m\x07\u202eevil"

// TestHostileNames: a function, label and instruction text with quotes,
// backslashes (\G, \N expand in Graphviz labels), HTML, braces, line
// breaks, escapes and bidirectional controls stay text: the drawing has
// one graph, and Graphviz renders it (when installed) to XML that parses
// and shows no hidden character.
func TestHostileNames(t *testing.T) {
	fset, fn := cfgtest.Must(t, `
	add
L:
	a1
	@p bra L
	ret
`)
	draw := func(name string) string {
		fn.Name = name
		fn.Instrs[0].Text = name
		g, err := cfg.Build(fset, fn)
		if err != nil {
			t.Fatal(err)
		}
		g.Blocks[1].Labels = []string{name}
		return cfgdot.Graph(g, cfgdot.Options{}).String()
	}
	plain, out := draw("k"), draw(hostile)
	if strings.Count("\n"+out, "\ndigraph") != 1 || strings.Count(out, "\n") != strings.Count(plain, "\n") {
		t.Errorf("the name opens a graph:\n%s", out)
	}
	for _, r := range out {
		if input.Hidden(r) {
			t.Fatalf("hidden character %U in:\n%s", r, out)
		}
	}
	checkRenders(t, out)
}

// checkRenders renders a DOT drawing with Graphviz, when installed, and
// checks its SVG: one graph, well-formed XML.
func checkRenders(t *testing.T, src string) {
	t.Helper()
	dotPath, err := exec.LookPath("dot")
	if err != nil {
		t.Log("Graphviz dot not installed: rendering not checked")
		return
	}
	cmd := exec.Command(dotPath, "-Tsvg")
	cmd.Stdin = strings.NewReader(src)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("dot -Tsvg: %v: %s\n%s", err, errb.String(), src)
	}
	if strings.Contains(errb.String(), "Error") || strings.Contains(errb.String(), "syntax") {
		t.Errorf("dot: %s", errb.String())
	}
	d := xml.NewDecoder(&out)
	d.Strict = true
	d.Entity = xml.HTMLEntity
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("dot's SVG: %v", err)
		}
	}
}

// TestBarrierNeverCollapsed is issue 9 item 18: a block-wide barrier in
// the middle of a long block stays visible, in red, with the block's
// border red, however few instructions are shown.
func TestBarrierNeverCollapsed(t *testing.T) {
	src := "\ta0\n"
	for i := 1; i < 20; i++ {
		src += "\ta" + strconv.Itoa(i) + "\n"
		if i == 10 {
			src += "\tbar.sync 0\n"
		}
	}
	src += "\tret\n"
	fset, fn := cfgtest.Must(t, src)
	g, err := cfg.Build(fset, fn)
	if err != nil {
		t.Fatal(err)
	}
	out := cfgdot.Graph(g, cfgdot.Options{MaxInstrs: 4, Head: 2, Tail: 1}).String()
	for _, want := range []string{"… 9 more</I><BR ALIGN=\"LEFT\"/><FONT COLOR=\"red\"><B>12: bar.sync 0</B></FONT><BR ALIGN=\"LEFT\"/><I>… 9 more", `COLOR="red">`, "BARRIER"} {
		if !strings.Contains(out, want) {
			t.Errorf("drawing lacks %q:\n%s", want, out)
		}
	}
}

// TestOverlay: marked blocks get their lines, fill and tooltip, the edges
// between blocks on the path are bold, loops their label, the graph the
// legend.
func TestOverlay(t *testing.T) {
	fset, fn := cfgtest.Must(t, `
	add
L:
	a1
	@p bra L
	ret
`)
	g, err := cfg.Build(fset, fn)
	if err != nil {
		t.Fatal(err)
	}
	o := &cfgdot.Overlay{
		Blocks: map[*cfg.Block]cfgdot.BlockMark{
			g.Blocks[0]: {Fill: "#fee0d2", Lines: []string{"worst path: ×1"}, OnPath: true, Tooltip: "tip <0>"},
			g.Blocks[1]: {Fill: "#fb6a4a", Lines: []string{"worst path: ×8"}, OnPath: true},
		},
		Loops:  map[*cfg.Loop]string{g.Loops[0]: "bound 8 (derived)"},
		Legend: []string{"bound 99 cycles"},
	}
	out := cfgdot.Graph(g, cfgdot.Options{Overlay: o}).String()
	for _, want := range []string{`BGCOLOR="#fb6a4a"`, "worst path: ×8", `tooltip="tip <0>"`, "depth 1, bound 8 (derived)", `label="f\nbound 99 cycles"`,
		`n2->n3[penwidth="3",style="bold"]`, `BORDER="3"`} {
		if !strings.Contains(out, want) {
			t.Errorf("drawing lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `n3->n4[penwidth="3"`) {
		t.Errorf("an edge to a block off the path is bold:\n%s", out)
	}
	checkRenders(t, out)
}
