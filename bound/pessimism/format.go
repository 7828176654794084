package pessimism

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the split in the stable text form of gpuwcet analyze
// and gpuwcet bound: the sum, then each category with its items.
func WriteText(w io.Writer, s *Split) error {
	var b strings.Builder
	fmt.Fprintf(&b, "pessimism: bound %d = isolated path %d + interference %d", s.BoundCycles, s.IsolatedCycles, s.InterferenceCycles)
	if len(s.ByResource) > 0 {
		b.WriteString(" (")
		for i, r := range s.ByResource {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %d", r.Resource, r.Cycles)
		}
		b.WriteString(")")
	}
	if s.UnattributedCycles != 0 {
		fmt.Fprintf(&b, " + unattributed %d", s.UnattributedCycles)
	}
	b.WriteString("\n")
	if s.ExactCycles != nil {
		fmt.Fprintf(&b, "  exact worst case %d reported: the closed form's pessimism over it is %d cycles\n", *s.ExactCycles, s.BoundCycles-*s.ExactCycles)
	}
	if s.ApproximationFree {
		b.WriteString("  approximation-free: no control or data approximation\n")
	}
	for _, c := range []struct {
		name string
		cat  Category
	}{{"control approximations", s.Control}, {"data approximations", s.Data}, {"stated assumptions", s.Assumptions}} {
		name := c.name
		if len(c.cat.Assumptions) > 0 {
			name += " (" + strings.Join(c.cat.Assumptions, ", ") + ")"
		}
		if len(c.cat.Items) == 0 {
			fmt.Fprintf(&b, "  %s: %s\n", name, c.cat.Note)
			continue
		}
		fmt.Fprintf(&b, "  %s: %d cycles\n", name, c.cat.Cycles)
		for _, it := range c.cat.Items {
			fmt.Fprintf(&b, "    %s", it.Kind)
			if it.Pos != "" {
				fmt.Fprintf(&b, " %s", it.Pos)
			} else if it.Name != "" {
				fmt.Fprintf(&b, " %s", it.Name)
			}
			cyc := fmt.Sprint(it.Cycles)
			if it.Cycles < 0 {
				cyc = "not quantified"
			}
			if len(it.Assumptions) > 0 {
				fmt.Fprintf(&b, " %s (%s): %s\n", it.What, strings.Join(it.Assumptions, ", "), cyc)
			} else {
				fmt.Fprintf(&b, " %s: %s\n", it.What, cyc)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
