package prem

import (
	"fmt"
	"io"
	"strings"

	"github.com/emicklei/dot"
)

// ConflictGraph returns the DOT graph of the memory conflicts of a checked
// schedule (prem-schedules.md §7): a node per participant, an edge per
// pair whose memory windows overlap, labelled with the overlapping window
// pairs, their total and the largest overlap, thicker for more overlap.
func ConflictGraph(r *Result) *dot.Graph {
	g := dot.NewGraph(dot.Undirected)
	g.Attr("label", clean(fmt.Sprintf("%s: memory conflicts (C5 %s)", r.Name, c5Status(r))))
	g.Attr("labelloc", "t")
	g.NodeInitializer(func(n dot.Node) {
		n.Attr("shape", "box")
		n.Attr("style", "rounded,filled")
		n.Attr("fontname", "Helvetica")
	})
	conflict := map[string]bool{}
	for _, p := range r.Overlaps.Pairs {
		conflict[p.A], conflict[p.B] = true, true
	}
	nodes := map[string]dot.Node{}
	for i, p := range r.Participants {
		n := g.Node(fmt.Sprintf("p%d", i))
		n.Attr("label", clean(p.ID))
		n.Attr("fillcolor", "#d8f0d8")
		if conflict[p.ID] {
			n.Attr("fillcolor", "#f8d0d0")
		}
		nodes[p.ID] = n
	}
	var maxNS int64 = 1
	for _, p := range r.Overlaps.Pairs {
		maxNS = max(maxNS, p.TotalNS)
	}
	for _, p := range r.Overlaps.Pairs {
		e := g.Edge(nodes[p.A], nodes[p.B])
		e.Attr("label", clean(fmt.Sprintf("%d overlaps\n%d ns in all\nlargest %d ns", p.Count, p.TotalNS, p.MaxNS)))
		e.Attr("color", "#d62728")
		e.Attr("fontcolor", "#a00000")
		e.Attr("penwidth", fmt.Sprintf("%.1f", 1+5*float64(p.TotalNS)/float64(maxNS)))
		e.Attr("weight", fmt.Sprint(p.TotalNS))
	}
	return g
}

func c5Status(r *Result) string {
	for _, c := range r.Checks {
		if c.ID == "C5" {
			return c.Status
		}
	}
	return "?"
}

// clean drops control characters but newlines from a name (DOT labels are
// quoted by the dot package).
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\n') || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// WriteConflictGraph writes the DOT conflict graph.
func WriteConflictGraph(w io.Writer, r *Result) error {
	_, err := io.WriteString(w, ConflictGraph(r).String())
	return err
}
