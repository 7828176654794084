// Package cfgdot draws control-flow graphs with Graphviz. It is the only
// importer of github.com/emicklei/dot.
//
// The drawing is a debugging aid and review evidence: one digraph per
// function; one node per block (an HTML-like table), in block-index order,
// headed by the block name, its labels and source line, then its
// instructions (a long block collapsed to its first and last few
// instructions with "… N more", block-wide barriers always shown, in red,
// the block's border red); natural loops as nested clusters; edges styled
// by kind (taken green, fall-through black, jump bold, indirect dashed
// purple, exit dotted grey) and back edges blue, thick and with
// constraint=false; unreachable blocks grey; a virtual exit node. An
// Overlay adds the worst case of a bound: per-block lines and fill
// colours, the worst path bold, loop bounds on the loops' clusters.
// The output is deterministic and renders with `dot -Tsvg`; other details
// may change.
package cfgdot

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/emicklei/dot"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/input"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Options tune the drawing. The zero value selects the defaults.
type Options struct {
	// MaxInstrs is the largest number of instructions shown in full in a
	// block; a longer block shows its first Head and last Tail
	// instructions around a "… N more" line. Zero means 12; negative
	// hides instructions entirely.
	MaxInstrs  int
	Head, Tail int // zero means 6 and 3

	// Mark, when non-nil, decorates blocks (the divergence overlay): a
	// background colour (a Graphviz colour name, "" for none) and a note
	// shown under the block header ("" for none).
	Mark func(b *cfg.Block) (bg, note string)

	// Overlay, when non-nil, draws the worst case of a bound on the graph
	// (gpuwcet cfg --bound, gpuwcet analyze --dot).
	Overlay *Overlay
}

// Overlay is what a drawing shows of a bound.
type Overlay struct {
	// Blocks holds, per block of the drawn graph, its part of the worst
	// case (a block without an entry is drawn as without overlay).
	Blocks map[*cfg.Block]BlockMark
	// Loops holds a label per loop (its bound and where it comes from),
	// appended to its cluster's label.
	Loops map[*cfg.Loop]string
	// Legend lines are shown under the graph's title.
	Legend []string
}

// BlockMark is a block's part of the worst case.
type BlockMark struct {
	Fill    string   // background colour (a Graphviz colour, "#rrggbb"); "" for none
	Lines   []string // shown under the block's header, bold
	Tooltip string   // the block's tooltip (SVG title)
	// OnPath: the block is on the worst path; its border is thick, and an
	// edge between two blocks on the path is drawn bold.
	OnPath bool
}

func (o Options) limits() (max, head, tail int) {
	max, head, tail = o.MaxInstrs, o.Head, o.Tail
	if max == 0 {
		max = 12
	}
	if head <= 0 {
		head = 6
	}
	if tail <= 0 {
		tail = 3
	}
	if max > 0 && head+tail >= max {
		head, tail = (max+1)/2, max/2
	}
	return
}

// Graph returns the drawing of g.
func Graph(g *cfg.Graph, o Options) *dot.Graph {
	d := dot.NewGraph(dot.Directed)
	d.ID(quote(g.Func.Name))
	title := g.Func.Name
	if o.Overlay != nil {
		for _, l := range o.Overlay.Legend {
			title += "\n" + l
		}
	}
	d.Attr("label", dot.Literal(quoteLines(title)))
	d.Attr("labelloc", "t")
	d.Attr("fontname", "Courier")
	d.NodeInitializer(func(n dot.Node) {
		n.Attr("shape", "plain")
		n.Attr("fontname", "Courier")
		n.Attr("fontsize", "10")
	})

	// Clusters for loops, outer loops first so that inner ones nest.
	clusters := make([]*dot.Graph, len(g.Loops))
	var mk func(l *cfg.Loop) *dot.Graph
	mk = func(l *cfg.Loop) *dot.Graph {
		if clusters[l.Index] != nil {
			return clusters[l.Index]
		}
		parent := d
		if l.Parent != nil {
			parent = mk(l.Parent)
		}
		// Keys sort in loop order; dot writes subgraphs by key.
		c := parent.Subgraph(fmt.Sprintf("loop%06d", l.Index), dot.ClusterOption{})
		label := fmt.Sprintf("loop %d: header %s", l.Index, l.Header)
		if lab := l.Label(); lab != "" {
			label += " " + lab
		}
		if line := lineOf(g, l.Header); line != "" {
			label += ", line " + line
		}
		label += fmt.Sprintf(", depth %d", l.Depth)
		if o.Overlay != nil && o.Overlay.Loops[l] != "" {
			label += ", " + o.Overlay.Loops[l]
		}
		c.Attr("label", dot.Literal(quote(label)))
		c.Attr("style", "rounded")
		c.Attr("color", "blue")
		c.Attr("fontname", "Courier")
		clusters[l.Index] = c
		return c
	}
	for _, l := range g.Loops {
		mk(l)
	}

	nodes := make([]dot.Node, len(g.Blocks)+1)
	for _, b := range g.Blocks {
		owner := d
		if b.Loop != nil {
			owner = clusters[b.Loop.Index]
		}
		n := owner.Node(fmt.Sprintf("b%06d", b.Index))
		n.Attr("label", dot.HTML(blockLabel(g, b, o)))
		if m, ok := o.mark(b); ok && m.Tooltip != "" {
			n.Attr("tooltip", dot.Literal(quote(m.Tooltip)))
		}
		nodes[b.Index] = n
	}
	exit := d.Node("exit")
	exit.Attr("shape", "Msquare")
	exit.Attr("label", "exit")
	nodes[g.Exit.Index] = exit

	for _, b := range g.Blocks {
		for _, e := range b.Succs {
			de := d.Edge(nodes[b.Index], nodes[e.To.Index])
			switch e.Kind {
			case cfg.EdgeTaken:
				de.Attr("color", "darkgreen")
				de.Attr("label", "T")
				de.Attr("fontcolor", "darkgreen")
			case cfg.EdgeFallThrough:
				if b.Kind == cfg.BlockIf {
					de.Attr("label", "F")
				}
			case cfg.EdgeJump:
				de.Attr("style", "bold")
			case cfg.EdgeIndirect:
				de.Attr("style", "dashed")
				de.Attr("color", "purple")
			case cfg.EdgeExit:
				de.Attr("style", "dotted")
				de.Attr("color", "grey40")
			case cfg.EdgeResume:
				de.Attr("style", "dashed")
				de.Attr("color", "orange3")
				de.Attr("label", "resume")
				de.Attr("fontcolor", "orange3")
			}
			if isBackEdge(g, e) {
				de.Attr("color", "blue")
				de.Attr("penwidth", "2")
				de.Attr("constraint", "false")
			}
			if m, ok := o.mark(b); ok && m.OnPath {
				if n, ok := o.mark(e.To); ok && n.OnPath {
					de.Attr("penwidth", "3")
					de.Attr("style", "bold")
				}
			}
		}
	}
	return d
}

// Write writes the drawing of g in DOT.
func Write(w io.Writer, g *cfg.Graph, o Options) error {
	_, err := io.WriteString(w, Graph(g, o).String())
	return err
}

// mark returns b's part of the overlay.
func (o Options) mark(b *cfg.Block) (BlockMark, bool) {
	if o.Overlay == nil {
		return BlockMark{}, false
	}
	m, ok := o.Overlay.Blocks[b]
	return m, ok
}

// isBlockBarrier reports whether in is a barrier that waits for the whole
// block (it ends a barrier section).
func isBlockBarrier(in *isa.Instr) bool {
	return in.Kind == isa.KindBarrier && in.Barrier.WaitsForBlock()
}

func isBackEdge(g *cfg.Graph, e cfg.Edge) bool {
	h := e.To
	if h == g.Exit || h.Loop == nil {
		return false
	}
	for l := h.Loop; l != nil; l = l.Parent {
		if l.Header == h {
			for _, t := range l.Latches {
				if t == e.From {
					return true
				}
			}
		}
	}
	return false
}

func lineOf(g *cfg.Graph, b *cfg.Block) string {
	if g.Fset == nil || !b.Pos().IsValid() {
		return ""
	}
	return strconv.Itoa(g.Fset.Position(b.Pos()).Line)
}

// blockLabel returns the HTML-like label of b: a table with a header row
// (name, labels, line) and a row of left-aligned instructions.
//
// HTML-like labels rather than record shapes: dot fails with "flat edge
// between adjacent nodes one of which has a record shape ... lost edge" on
// real kernels drawn with loop clusters (found by the corpus test).
func blockLabel(g *cfg.Graph, b *cfg.Block, o Options) string {
	var sb strings.Builder
	border, bg, color := "1", "", ""
	if b.Index == 0 {
		border = "2"
	}
	if !b.Reachable {
		bg = ` BGCOLOR="lightgrey"`
	}
	note := ""
	if o.Mark != nil {
		var c string
		c, note = o.Mark(b)
		if c != "" && b.Reachable {
			bg = ` BGCOLOR="` + Escape(c) + `"`
		}
	}
	m, marked := o.mark(b)
	if marked && m.Fill != "" && b.Reachable {
		bg = ` BGCOLOR="` + Escape(m.Fill) + `"`
	}
	if marked && m.OnPath {
		border = "3"
	}
	barrier := slices.ContainsFunc(b.Instrs, isBlockBarrier)
	if barrier {
		color = ` COLOR="red"`
		border = max(border, "2")
	}
	sb.WriteString(`<TABLE BORDER="` + border + `" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3"` + bg + color + `>`)
	head := b.Name()
	if b.Orig != nil {
		head += " = " + b.Orig.Name()
	}
	if len(b.Labels) > 0 {
		head += " " + strings.Join(b.Labels, " ")
	}
	if line := lineOf(g, b); line != "" {
		head += " (line " + line + ")"
	}
	if !b.Reachable {
		head += " unreachable"
	}
	if barrier {
		head += " BARRIER"
	}
	sb.WriteString(`<TR><TD ALIGN="LEFT"><B>` + Escape(head) + `</B></TD></TR>`)
	if marked {
		for _, l := range m.Lines {
			sb.WriteString(`<TR><TD ALIGN="LEFT"><B>` + Escape(l) + `</B></TD></TR>`)
		}
	}
	if note != "" {
		sb.WriteString(`<TR><TD ALIGN="LEFT"><I>` + Escape(note) + `</I></TD></TR>`)
	}
	max, nh, nt := o.limits()
	if max >= 0 && len(b.Instrs) > 0 {
		sb.WriteString(`<TR><TD ALIGN="LEFT" BALIGN="LEFT">`)
		line := func(i int) {
			in := b.Instrs[i]
			text := in.Text
			if text == "" {
				text = in.Op()
			}
			prefix := ""
			if g.Fset != nil && in.Pos.IsValid() {
				prefix = strconv.Itoa(g.Fset.Position(in.Pos).Line) + ": "
			}
			if isBlockBarrier(in) {
				sb.WriteString(`<FONT COLOR="red"><B>` + Escape(prefix+text) + `</B></FONT>`)
			} else {
				sb.WriteString(Escape(prefix + text))
			}
			sb.WriteString(`<BR ALIGN="LEFT"/>`)
		}
		more := func(n int) {
			if n > 0 {
				sb.WriteString(`<I>` + Escape(fmt.Sprintf("… %d more", n)) + `</I><BR ALIGN="LEFT"/>`)
			}
		}
		n := len(b.Instrs)
		if n <= max {
			for i := 0; i < n; i++ {
				line(i)
			}
		} else {
			// The first nh and last nt instructions, and every block-wide
			// barrier between them: a barrier is never collapsed (issue 9
			// item 18).
			for i := 0; i < nh; i++ {
				line(i)
			}
			hidden := 0
			for i := nh; i < n-nt; i++ {
				if isBlockBarrier(b.Instrs[i]) {
					more(hidden)
					hidden = 0
					line(i)
				} else {
					hidden++
				}
			}
			more(hidden)
			for i := n - nt; i < n; i++ {
				line(i)
			}
		}
		sb.WriteString(`</TD></TR>`)
	}
	sb.WriteString(`</TABLE>`)
	return sb.String()
}

// Escape escapes s for the text of a Graphviz HTML-like label: &, <, >
// and quotes become entities (PTX vectors {%r1,%r2} and setp's p|q need
// no escaping there); tabs become spaces, runs of spaces are kept with
// &#160;, line breaks are dropped, and the other characters that would
// act rather than show (input.Hidden: escape sequences, bidirectional
// controls) are written as escapes (\x1b, \u202e).
func Escape(s string) string {
	s = input.Visible(s)
	var sb strings.Builder
	prevSpace := false
	for _, r := range s {
		if r == '\t' {
			r = ' '
		}
		switch r {
		case '&':
			sb.WriteString("&amp;")
		case '<':
			sb.WriteString("&lt;")
		case '>':
			sb.WriteString("&gt;")
		case '"':
			sb.WriteString("&quot;")
		case ' ':
			if prevSpace {
				sb.WriteString("&#160;")
			} else {
				sb.WriteByte(' ')
			}
		default:
			if r < 0x20 || r == 0x7f {
				continue
			}
			sb.WriteRune(r)
		}
		prevSpace = r == ' '
	}
	return sb.String()
}

// quoteLines returns the lines of s (separated by '\n') as a quoted DOT
// string whose lines are centred.
func quoteLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		q := quote(l)
		lines[i] = q[1 : len(q)-1]
	}
	return `"` + strings.Join(lines, `\n`) + `"`
}

// quote returns s as a quoted DOT string, on one line, its hidden
// characters visible (input.OneLine).
func quote(s string) string {
	s = input.OneLine(s)
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r < 0x20 || r == 0x7f:
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
