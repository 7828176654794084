package static

import (
	"fmt"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Region is the bound of a region of a kernel: the part of an execution
// from the release of the block-wide barrier From (nil: the kernel's
// start) to the next release of one of the barriers in To (a nil entry:
// the kernel's end).
type Region struct {
	From *isa.Instr
	To   []*isa.Instr
	// Bound is the longest path from From to To over the section graph,
	// each section crossed costing its bound.
	Bound hwdesc.Cycles
	// Path lists the sections of a longest path, in order.
	Path []*Segment
}

// Region bounds the executions between two barriers of the barrier path:
// the time from the release of barrier from (nil: the start of the block)
// until the block first releases one of the barriers to (nil in to: the
// end of the block), without crossing from again. It is the longest path
// over the section graph, crossing section (a, b) costing its bound: each
// section's bound covers the time between the releases of its two
// barriers for every warp of the block (docs/model.md), so the sum over a
// path covers the region. A PREM phase delimited by barriers is such a
// region (docs/prem.md, "Phase bounds").
//
// A region that crosses a loop holding barriers (a cycle of the section
// graph that does not pass from or to) is refused: its bound would need
// the loop's bound per entry into the region, which the section graph
// does not carry. A one-warp block bounded as one section has no barrier
// structure: only the whole block (nil, [nil]) is a region.
func (r *Result) Region(from *isa.Instr, to []*isa.Instr) (*Region, error) {
	if len(to) == 0 {
		return nil, fmt.Errorf("static: region from %s: no end given", barText(from, "the start"))
	}
	stop := map[*isa.Instr]bool{}
	stopEnd := false
	for _, t := range to {
		if t == nil {
			stopEnd = true
		} else {
			stop[t] = true
		}
	}
	// out lists, per start node, the heaviest segment to each successor.
	type edge struct {
		to  *isa.Instr
		end bool
		seg *Segment
	}
	out := map[*isa.Instr][]edge{}
	starts := map[*isa.Instr]bool{}
	for _, s := range r.Segments {
		starts[s.From] = true
		e := edge{to: s.To, end: s.To == nil, seg: s}
		found := false
		for i, x := range out[s.From] {
			if x.to == e.to && x.end == e.end {
				if s.Bound > x.seg.Bound {
					out[s.From][i] = e
				}
				found = true
			}
		}
		if !found {
			out[s.From] = append(out[s.From], e)
		}
	}
	if !starts[from] {
		if r.OneWarp && from == nil {
			return nil, fmt.Errorf("static: the block is one warp bounded as a single section: only the whole block is a region")
		}
		return nil, fmt.Errorf("static: no barrier section starts at %s", barText(from, "the start"))
	}
	// Longest path by depth-first search with memoisation; a node met
	// again on the current path is a barrier loop inside the region.
	const (
		unseen = iota
		active
		done
	)
	state := map[*isa.Instr]int{}
	best := map[*isa.Instr]int64{} // -1: the region's end is not reached
	next := map[*isa.Instr]edge{}
	var visit func(n *isa.Instr) (int64, error)
	visit = func(n *isa.Instr) (int64, error) {
		switch state[n] {
		case active:
			return 0, fmt.Errorf("static: the region from %s crosses a loop holding barriers (%s is met again before %s): not supported", barText(from, "the start"), barText(n, "the start"), endsText(to))
		case done:
			return best[n], nil
		}
		state[n] = active
		w := int64(-1)
		for _, e := range out[n] {
			var x int64
			switch {
			case e.end && stopEnd, !e.end && stop[e.to]:
				x = int64(e.seg.Bound)
			case e.end, e.to == from:
				continue // the end, or from again, before the region's end
			default:
				y, err := visit(e.to)
				if err != nil {
					return 0, err
				}
				if y < 0 {
					continue
				}
				var ok bool
				if x, ok = mulAdd(y, 1, int64(e.seg.Bound)); !ok {
					return 0, errOverflow
				}
			}
			if x > w {
				w = x
				next[n] = e
			}
		}
		state[n] = done
		best[n] = w
		return w, nil
	}
	w, err := visit(from)
	if err != nil {
		return nil, err
	}
	if w < 0 {
		return nil, fmt.Errorf("static: no path from %s reaches %s", barText(from, "the start"), endsText(to))
	}
	reg := &Region{From: from, To: to, Bound: hwdesc.Cycles(w)}
	for n := from; ; {
		e := next[n]
		reg.Path = append(reg.Path, e.seg)
		if (e.end && stopEnd) || (!e.end && stop[e.to]) {
			break
		}
		n = e.to
	}
	return reg, nil
}

func barText(in *isa.Instr, none string) string {
	if in == nil {
		return none
	}
	return fmt.Sprintf("barrier %q (instruction %d)", in.Text, in.Index)
}

func endsText(to []*isa.Instr) string {
	s := ""
	for i, t := range to {
		if i > 0 {
			s += " or "
		}
		s += barText(t, "the end")
	}
	return s
}
