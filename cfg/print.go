package cfg

import (
	"bufio"
	"fmt"
	"go/token"
	"io"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Format writes the stable text form of g, used by goldens and dumps:
//
//	func NAME kernel|device
//	blocks N edges N instrs N loops N irreducible N unresolved N
//	loop I header bH LABEL line L depth D parent P latches [..] blocks [..] exits [..]
//	irreducible entries [..] blocks [..]
//	unresolved line L: TEXT
//	bI: [LABELS] KIND preds [..] succs [..] idom X ipdom Y depth D [unreachable]
//		LINE	INSTRUCTION
//	exit: preds [..]
//
// Edges print as bJ:KIND; a missing dominator as "-". Instruction lines
// give the source line ("-" without a file set) and the instruction text.
func Format(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	fn := g.Func
	role := "device"
	if fn.Entry {
		role = "kernel"
	}
	fmt.Fprintf(bw, "func %s %s\n", fn.Name, role)
	edges := 0
	for _, b := range g.Blocks {
		edges += len(b.Succs)
	}
	fmt.Fprintf(bw, "blocks %d edges %d instrs %d loops %d irreducible %d unresolved %d\n",
		len(g.Blocks), edges, len(fn.Instrs), len(g.Loops), len(g.Irreducible), len(g.Unresolved))
	for _, l := range g.Loops {
		parent := "-"
		if l.Parent != nil {
			parent = itoa(l.Parent.Index)
		}
		label := l.Label()
		if label == "" {
			label = "-"
		}
		fmt.Fprintf(bw, "loop %d header %s %s line %s depth %d parent %s latches %s blocks %s exits %s\n",
			l.Index, l.Header, label, g.lineOf(l.Header.Pos()), l.Depth, parent,
			blockList(l.Latches), blockList(l.Blocks), exitList(l.Exits))
	}
	for _, r := range g.Irreducible {
		fmt.Fprintf(bw, "irreducible entries %s blocks %s\n", blockList(r.Entries), blockList(r.Blocks))
	}
	for _, in := range g.Unresolved {
		fmt.Fprintf(bw, "unresolved line %s: %s\n", g.lineOf(in.Pos), instrText(in))
	}
	for _, b := range g.Blocks {
		fmt.Fprintf(bw, "%s: [%s] %s preds %s succs %s idom %s ipdom %s depth %d",
			b, strings.Join(b.Labels, " "), b.Kind, edgeList(b.Preds, false), edgeList(b.Succs, true),
			blockOrDash(b.idom), blockOrDash(b.ipdom), b.LoopDepth())
		if b.Orig != nil {
			bw.WriteString(" orig " + b.Orig.Name())
		}
		if !b.Reachable {
			bw.WriteString(" unreachable")
		}
		bw.WriteByte('\n')
		for _, in := range b.Instrs {
			fmt.Fprintf(bw, "\t%s\t%s\n", g.lineOf(in.Pos), instrText(in))
		}
	}
	fmt.Fprintf(bw, "exit: preds %s\n", edgeList(g.Exit.Preds, false))
	return bw.Flush()
}

// line returns the source line of pos, or 0 without a file set or a
// valid position.
func (g *Graph) line(pos token.Pos) int {
	if g.Fset == nil || !pos.IsValid() {
		return 0
	}
	return g.Fset.Position(pos).Line
}

// lineOf is line as text, "-" when unknown.
func (g *Graph) lineOf(pos token.Pos) string {
	if l := g.line(pos); l > 0 {
		return itoa(l)
	}
	return "-"
}

func instrText(in *isa.Instr) string {
	if in.Text != "" {
		return in.Text
	}
	s := in.Op()
	if g := in.Guard.String(); g != "" {
		s = g + " " + s
	}
	return s
}

func blockOrDash(b *Block) string {
	if b == nil {
		return "-"
	}
	return b.Name()
}

func blockList(bs []*Block) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, b := range bs {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(b.Name())
	}
	sb.WriteByte(']')
	return sb.String()
}

// edgeList prints edges as "bJ:kind", naming the far end: To for
// successors, From for predecessors.
func edgeList(es []Edge, succ bool) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, e := range es {
		if i > 0 {
			sb.WriteByte(' ')
		}
		if succ {
			sb.WriteString(e.To.Name())
		} else {
			sb.WriteString(e.From.Name())
		}
		sb.WriteByte(':')
		sb.WriteString(e.Kind.String())
	}
	sb.WriteByte(']')
	return sb.String()
}

func exitList(es []Edge) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, e := range es {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(e.From.Name() + "->" + e.To.Name() + ":" + e.Kind.String())
	}
	sb.WriteByte(']')
	return sb.String()
}
