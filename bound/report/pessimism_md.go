package report

import (
	"fmt"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound/pessimism"
)

// writePessimismMD writes a kernel's pessimism split (docs/report.md,
// "Pessimism split"): the bound as isolated path + interference by
// resource, then what it owes to control and data approximations and to
// stated assumptions.
func writePessimismMD(b *strings.Builder, k *Kernel) {
	s := k.Pessimism
	if s == nil {
		return
	}
	fmt.Fprintf(b, "\nWhere the bound's cycles come from (pessimism split; each approximation or assumption is the drop of the bound when it alone is resolved favourably, so these overlap):\n\n")
	b.WriteString("| Part | Cycles |\n|---|---:|\n")
	fmt.Fprintf(b, "| Bound | %d |\n", s.BoundCycles)
	fmt.Fprintf(b, "| Isolated worst path | %d |\n", s.IsolatedCycles)
	fmt.Fprintf(b, "| Interference | %d |\n", s.InterferenceCycles)
	for _, r := range s.ByResource {
		fmt.Fprintf(b, "| Interference: %s | %d |\n", cell(r.Resource), r.Cycles)
	}
	if s.UnattributedCycles != 0 {
		fmt.Fprintf(b, "| Unattributed (barrier path not a whole number of crossings) | %d |\n", s.UnattributedCycles)
	}
	for _, c := range []struct {
		name string
		cat  *pessimism.Category
	}{{"Control approximations", &s.Control}, {"Data approximations", &s.Data}, {"Stated assumptions", &s.Assumptions}} {
		name := c.name + ledgerIDs(c.cat.Assumptions)
		if len(c.cat.Items) == 0 {
			fmt.Fprintf(b, "| %s | none |\n", name)
			continue
		}
		fmt.Fprintf(b, "| %s | %d |\n", name, c.cat.Cycles)
		for _, it := range c.cat.Items {
			cyc := fmt.Sprint(it.Cycles)
			if it.Cycles < 0 {
				cyc = "not quantified"
			}
			where := ""
			if it.Pos != "" {
				where = " at " + code(it.Pos)
			} else if it.Name != "" {
				where = " " + code(it.Name)
			}
			fmt.Fprintf(b, "| — %s%s: %s%s | %s |\n", cell(it.Kind), where, cell(it.What), ledgerIDs(it.Assumptions), cyc)
		}
	}
	if s.ApproximationFree {
		b.WriteString("\nThis kernel's bound has no control or data approximation.\n")
	}
	for _, c := range []pessimism.Category{s.Control, s.Data, s.Assumptions} {
		if len(c.Items) == 0 && c.Note != "" {
			fmt.Fprintf(b, "\n- %s\n", para(c.Note))
		}
	}
}

// writeComparisonMD writes the changes since the older report.
func writeComparisonMD(b *strings.Builder, c *Comparison) {
	if c == nil {
		return
	}
	fmt.Fprintf(b, "Changes since the report %s (report SHA-256 `%s`): per kernel, every part of the bound that changed (cycles; the parts overlap as in item 6's pessimism split).\n\n", code(c.Old), cell(c.OldSHA256))
	b.WriteString("| Kernel | Section | Part | Old | New | Change |\n|---|---|---|---:|---:|---:|\n")
	for _, k := range c.Kernels {
		bd := part(k.Parts, "bound")
		fmt.Fprintf(b, "| %s | | bound (%s) | %d | %d | %+d |\n", code(k.Name), cell(k.Status), bd.Old, bd.New, bd.Change)
		for _, p := range k.Parts {
			if p.Part != "bound" && p.Change != 0 {
				fmt.Fprintf(b, "| %s | | %s | %d | %d | %+d |\n", code(k.Name), cell(p.Part), p.Old, p.New, p.Change)
			}
		}
		for _, s := range k.Sections {
			if s.Status == DeltaUnchanged {
				continue
			}
			for _, p := range s.Parts {
				if p.Change != 0 {
					fmt.Fprintf(b, "| %s | %s → %s (%s) | %s | %d | %d | %+d |\n", code(k.Name), code(s.From), code(s.To), cell(s.Status), cell(p.Part), p.Old, p.New, p.Change)
				}
			}
		}
	}
	b.WriteString("\n")
}

// ledgerIDs writes the ledger IDs a part of the split is owed to, " (`A-…`,
// …)", or "".
func ledgerIDs(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	var cs []string
	for _, id := range ids {
		cs = append(cs, code(id))
	}
	return " (" + strings.Join(cs, ", ") + ")"
}
