package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound/report/premjson"
)

// newPremJUnit builds the JUnit document of a PREM check: one test case per
// check; a FAIL is a failure, a WARN passes with its reason on system-out.
func newPremJUnit(r *Report) *JUnitSuites {
	p := r.Prem
	s := JUnitSuite{Name: "prem " + p.Schedule, Time: "0"}
	s.Properties = []JUnitProperty{{"schedule", p.Schedule}, {"mode", p.Mode}, {"granularity", p.Granularity},
		{"tool.version", r.Tool.Version}, {"report.sha256", r.ReportSHA256}}
	for _, in := range r.Inputs {
		s.Properties = append(s.Properties, JUnitProperty{"input." + in.Kind + ".sha256", in.Path + " " + in.SHA256})
	}
	for _, c := range p.Checks {
		tc := JUnitCase{Name: c.ID + " " + c.Name, Classname: p.Schedule, Time: "0", SystemOut: c.Status + ": " + c.Reason + "\n"}
		if c.Status == premjson.StatusFail {
			msg := c.Reason
			if c.Counterexample != nil {
				msg = c.Counterexample.Text
			}
			tc.Failure = &JUnitProblem{Type: "prem-" + strings.ToLower(c.ID), Message: msg, Text: tc.SystemOut}
			s.Failures++
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Tests = len(s.Cases)
	return &JUnitSuites{Name: "gpuwcet prem check", Tests: s.Tests, Failures: s.Failures, Suites: []JUnitSuite{s}}
}

// writePremMarkdown writes the report of a PREM check: items 1-4, 7 and 10
// as for a bound report, items 5 (results), 6 (breakdown), 8 and 9 of the
// schedule check.
func writePremMarkdown(w io.Writer, r *Report) error {
	base := *r
	base.Prem, base.Kernels = nil, nil
	var all bytes.Buffer
	if err := writeBoundMarkdown(&all, &base); err != nil {
		return err
	}
	doc := all.String()
	cut := func(from, to string) string {
		i := strings.Index(doc, from)
		j := strings.Index(doc, to)
		if i < 0 || j < i {
			return ""
		}
		return doc[i:j]
	}
	head := doc[:max(strings.Index(doc, "## 5. Results"), 0)]
	_, head, _ = strings.Cut(head, "\n") // drop the bound report's title
	var b strings.Builder
	pf := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p := r.Prem
	pf("# gpuwcet PREM schedule report\n\n")
	pf("Schedule %s (%s mode, %s granularity, %d participants): **%s**.\n\n", icode(p.Schedule), cell(p.Mode), cell(p.Granularity), p.N, cell(strings.ToUpper(p.Verdict)))
	b.WriteString(strings.TrimLeft(head, "\n"))

	pf("## 5. Results\n\n")
	pf("T_hyper %d ns", p.HyperperiodNS)
	if p.WBBaseOffsetNS != nil {
		pf(", T_WB_off %d ns", *p.WBBaseOffsetNS)
	}
	pf(", WU %d ns, K %d, timer resolution %d ns, release jitter %d ns.\n\n", p.WarmupNS, p.WarmupTiles, p.ResolutionNS, p.JitterNS)
	pf("| Check | Name | Status | Reason |\n|---|---|---|---|\n")
	for _, c := range p.Checks {
		st := c.Status
		if st == premjson.StatusFail {
			st = "**FAIL**"
		} else {
			st = cell(st)
		}
		pf("| %s | %s | %s | %s |\n", cell(c.ID), cell(c.Name), st, cell(c.Reason))
	}
	b.WriteString("\n")
	for _, c := range p.Checks {
		if c.Counterexample != nil {
			pf("- First counterexample of %s: %s\n", cell(c.ID), cell(c.Counterexample.Text))
		}
	}
	pf("\nMakespan bound (C8): %s.\n\n", cell(p.Makespan.Formula))
	if p.Sensitivity.Binding != "" {
		pf("Sensitivity (C11): alpha = %.3f, binding %s.\n\n", p.Sensitivity.Alpha, cell(p.Sensitivity.Binding))
	}
	pf("Memory utilisation (C10): %s %%.\n\n", num(p.Utilisation.MemoryPct))

	pf("## 6. Breakdown\n\n")
	pf("| Participant | Kernel | Blocks | Tiles | Prefetch (ns) | Compute (ns) | Write-back (ns) | End of last tile (ns) |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, q := range p.Participants {
		cellOf := func(i int) string {
			pb := q.Bounds[i]
			return fmt.Sprintf("%d %s (%s)", pb.WCETNS, cell(pb.Provenance), cell(pb.Scope))
		}
		pf("| %s | %s | %d | %d | %s | %s | %s | %d |\n", code(q.ID), code(q.Kernel), q.Blocks, q.Tiles, cellOf(0), cellOf(1), cellOf(2), q.EndNS)
	}
	pf("\nSlack per slot (C4, smallest over the tiles):\n\n| Participant | Slot | Slot (ns) | Bounds (ns) | Provenance | J (ns) | Slack (ns) | Tile |\n|---|---|---:|---:|---|---:|---:|---:|\n")
	for _, s := range p.Slack {
		pf("| %s | %s | %d | %d | %s | %d | %d | %d |\n", code(s.Participant), cell(s.Slot), s.SlotNS, s.BoundNS, cell(s.Provenance), s.JitterNS, s.MinSlackNS, s.AtTile)
	}
	pf("\nMemory slack (C5, gap to the next memory window of another participant):\n\n| Participant | Phase | Slack (ns) | Tile | Next |\n|---|---|---:|---:|---|\n")
	for _, s := range p.MemorySlack {
		pf("| %s | %s | %d | %d | %s |\n", code(s.Participant), cell(s.Phase), s.SlackNS, s.AtTile, cell(s.Next))
	}
	if len(p.Overlaps.Pairs) > 0 {
		pf("\nOverlapping participants (C5):\n\n| A | B | Window pairs | Total (ns) | Largest (ns) |\n|---|---|---:|---:|---:|\n")
		for _, o := range p.Overlaps.Pairs {
			pf("| %s | %s | %d | %d | %d |\n", code(o.A), code(o.B), o.Count, o.TotalNS, o.MaxNS)
		}
	}
	if len(p.Regions) > 0 {
		pf("\nPhase regions bounded by the static analysis (one tile of one block in isolation):\n\n| Kernel | Phase | Found by | From | To | Cycles | ns |\n|---|---|---|---|---|---:|---:|\n")
		for _, g := range p.Regions {
			pf("| %s | %s | %s | %s | %s | %d | %d |\n", code(g.Kernel), cell(g.Phase), cell(g.How), code(g.From), code(strings.Join(g.To, " or ")), g.Cycles, g.NS)
		}
	}
	if len(p.Releases) > 0 {
		pf("\nRelease points:\n\n")
		for _, rp := range p.Releases {
			pf("- %s %s: %s, released by %s\n", icode(rp.Kernel), icode(rp.Pos), cell(rp.Trigger), icode(rp.Barrier))
		}
	}
	b.WriteString("\n")
	b.WriteString(cut("## 7. Diagnostics", "## 8. Traceability"))
	pf("## 8. Traceability\n\n")
	var assumed []string
	for _, q := range p.Participants {
		for _, pb := range q.Bounds {
			if pb.Provenance == "assumed" {
				assumed = append(assumed, fmt.Sprintf("| %s | %s | %d | %s |\n", code(q.ID), cell(pb.Phase), pb.WCETNS, code(pb.From)))
			}
		}
	}
	if len(assumed) == 0 {
		pf("Every phase bound was proven by the static analysis.\n\n")
	} else {
		pf("Assumed phase bounds (given in the schedule, trusted, to be reviewed):\n\n| Participant | Phase | WCET (ns) | Given at |\n|---|---|---:|---|\n%s\n", strings.Join(assumed, ""))
	}
	pf("## 9. Cross-check evidence\n\n")
	pf("None in this report: the check is static. docs/validation.md compares predicted and measured makespans of the tt-gpu runs.\n\n")
	b.WriteString(doc[max(strings.Index(doc, "## 10. Integrity"), 0):])
	_, err := io.WriteString(w, b.String())
	return err
}
