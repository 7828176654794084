package assume

import (
	"fmt"
	"io"
	"strings"
)

// origins are the sections of docs/assumptions.md, in order.
var origins = []struct{ origin, title, intro string }{
	{OriginAnalysis, "The static analysis", "Choices and limits of `gpuwcet analyze`."},
	{OriginHardware, "The hardware description", "What the numbers of `--hw` must bound."},
	{OriginInput, "The inputs", "Stated only when the inputs of a run make them necessary."},
	{OriginModel, "The reference timing model", "The model of docs/model.md, \"The reference model\", stated in every analyze report."},
	{OriginEnvironment, "The environment", "What no tool can check from a listing."},
	{OriginKernel, "The kernel-level bound", "Stated with `--grid` (docs/kernel.md)."},
	{OriginPREM, "PREM schedules", "Stated by `gpuwcet prem check` (docs/prem.md)."},
}

// WriteMarkdown writes docs/assumptions.md: the ledger by origin, then
// the known sources of unsoundness.
func WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Assumptions and known sources of unsoundness\n\n")
	p("<!-- Generated from package cfg/assume by `go test ./cfg/assume -update`. DO NOT EDIT. -->\n\n")
	p("Every assumption a bound of gpuwcet can rest on has a stable ID. A report\n")
	p("(`numbered_assumptions[]`, docs/report.md) lists the IDs its run needed, and\n")
	p("only those, numbered A1, A2, … in the order of this page; `key` is the ID,\n")
	p("`text` the statement with the run's facts, `discharge` how to discharge it.\n")
	p("IDs never change meaning; a removed assumption's ID is not reused.\n\n")
	p("| ID | Origin | When |\n|---|---|---|\n")
	for _, e := range ledger {
		p("| [`%s`](#%s) | %s | %s |\n", e.ID, anchor(e.ID), e.Origin, e.When)
	}
	p("\n")
	for _, o := range origins {
		p("## %s\n\n%s\n\n", o.title, o.intro)
		for _, e := range ledger {
			if e.Origin != o.origin {
				continue
			}
			p("### %s\n\n", e.ID)
			p("%s.\n\n", capital(e.Statement))
			p("- **When:** %s.\n", e.When)
			p("- **Why:** %s.\n", e.Reason)
			p("- **Discharge:** %s.\n", e.Discharge)
			p("- **Checked or justified by:** %s.\n\n", e.Basis)
		}
	}
	p("## Known sources of unsoundness\n\n")
	p("What can make a real execution slower than the model, and what the tool\n")
	p("does about it: **accounted for** (the bound covers it), **assumed away**\n")
	p("(the bound holds only if the user discharges the assumptions named), or\n")
	p("**excluded** (outside what a bound covers; the report's scope says so).\n\n")
	for _, gpu := range []bool{true, false} {
		if gpu {
			p("### Interference on the GPU\n\n")
		} else {
			p("### The analysis and its inputs\n\n")
		}
		p("| Channel | Status | Assumptions | How |\n|---|---|---|---|\n")
		for _, c := range channels {
			if c.GPU != gpu {
				continue
			}
			var ids []string
			for _, id := range c.IDs {
				ids = append(ids, fmt.Sprintf("[`%s`](#%s)", id, anchor(id)))
			}
			s := strings.Join(ids, ", ")
			if s == "" {
				s = "–"
			}
			p("| %s | %s | %s | %s |\n", c.Name, c.Status, s, c.Text)
		}
		p("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// anchor is the GitHub anchor of a heading "### ID".
func anchor(id string) string { return strings.ToLower(id) }

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
