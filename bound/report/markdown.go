package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gpuwcet/gpuwcet/cfg/input"

	"github.com/gpuwcet/gpuwcet/bound/static"
)

// WriteMarkdown writes the report for a certification reviewer, organised
// by the 10 items of the bound report checklist (wcet-conventions.md
// §4.2). Every fact comes from r (the JSON report).
func WriteMarkdown(w io.Writer, r *Report) error {
	if r.Prem != nil {
		return writePremMarkdown(w, r)
	}
	return writeBoundMarkdown(w, r)
}

func writeBoundMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	p("# gpuwcet bound report\n\n")
	p("Verdict: **%s** (exit code %d): %d kernel(s), %d bounded, %d not bounded, %d error(s), %d over the deadline.\n\n",
		cell(strings.ToUpper(r.Summary.Verdict)), r.Summary.ExitCode, r.Summary.Kernels, r.Summary.Bounded, r.Summary.NotBounded, r.Summary.Errors, r.Summary.OverDeadline)
	p("Report SHA-256: %s (schema version %d; see item 10).\n\n", icode(r.ReportSHA256), r.SchemaVersion)

	// 1.
	p("## 1. Identification\n\n")
	p("| Item | Value |\n|---|---|\n")
	t := r.Tool
	row(&b, "Tool", code(t.Name)+" "+code(t.Version))
	row(&b, "Module", orNone(code(t.Module)+spaced(code(t.ModuleVersion))))
	row(&b, "Build", orNone(strings.TrimSpace(code(t.GoVersion)+spaced(code(t.Platform)))))
	vcs := "not stamped in the build"
	if t.Revision != "" {
		vcs = cell(t.VCS) + " " + code(t.Revision)
		if t.RevisionTime != "" {
			vcs += " (" + cell(t.RevisionTime) + ")"
		}
		if t.Modified != nil && *t.Modified {
			vcs += ", **modified working tree**"
		}
	}
	row(&b, "Source revision", vcs)
	row(&b, "Hardware description", orNone(code(r.HW.Name)+spaced(code(r.HW.Version))))
	row(&b, "Hardware description SHA-256", orNone(code(r.HW.SHA256)))
	if r.HW.Arch != "" {
		row(&b, "Architecture", code(r.HW.Arch))
	}
	if r.HW.Description != "" {
		row(&b, "Description", cell(r.HW.Description))
	}
	if r.HW.Source != "" {
		row(&b, "Provenance of its numbers", cell(r.HW.Source))
	}
	p("\nCommand line as run:\n\n%s\n", fenced("sh", shellJoin(r.CommandLine)))
	p("Host and date are not recorded: the report is deterministic (item 10); the CI job that runs it records them.\n\n")

	// 2.
	p("## 2. Input manifest\n\n")
	p("| File | Kind | Header | SHA-256 |\n|---|---|---|---|\n")
	for _, in := range r.Inputs {
		hdr := "-"
		if in.Version != "" || in.Target != "" {
			hdr = strings.TrimSpace(in.Version + " " + in.Target)
		}
		p("| %s | %s | %s | %s |\n", code(in.Path), cell(in.Kind), cell(hdr), code(in.SHA256))
	}
	writeConfigMD(&b, r.Configuration)
	p("| Launch configuration | Value |\n|---|---|\n")
	row(&b, "Block", dims(r.Launch.Block))
	row(&b, "Grid", dims(r.Launch.Grid))
	row(&b, "Kernel arguments", args(r.Launch.Args))
	row(&b, "Clock", fmt.Sprintf("%s MHz (%s)", num(r.Clock.MHz), cell(r.Clock.Source)))
	b.WriteString("\n")

	// 3.
	p("## 3. Scope\n\n")
	p("Unit bounded: %s\n\n", cell(r.Scope.Unit))
	if r.Scope.KernelFilter != "" {
		p("Kernels selected by %s.\n\n", icode("--kernel "+r.Scope.KernelFilter))
	}
	p("| Kernel | Location | Status |\n|---|---|---|\n")
	for _, k := range r.Scope.Kernels {
		p("| %s | %s | %s |\n", code(k.Name), code(k.Pos), cell(k.Status))
	}
	p("\nExcluded from the bound:\n\n")
	for _, e := range r.Scope.Exclusions {
		p("- %s\n", para(e))
	}
	b.WriteString("\n")

	// 4.
	p("## 4. Assumptions\n\n")
	p("The assumptions this run rests on, and only those: each is an entry of the assumptions ledger (docs/assumptions.md, under its ID), with this run's facts.\n\n")
	p("| # | ID | Origin | Assumption | How to discharge it | Checked or justified by |\n|---|---|---|---|---|---|\n")
	for _, a := range r.NumberedAssumptions {
		p("| %s | %s | %s | %s | %s | %s |\n", cell(a.ID), orNone(code(a.Key)), cell(a.Origin), cell(a.Text), orNone(cell(a.Discharge)), cell(a.Basis))
	}
	b.WriteString("\n")

	// 5.
	p("## 5. Results\n\n")
	p("| Kernel | Warps | Bound (cycles) | Bound (ns) | Deadline | Margin | Verdict |\n|---|---:|---:|---:|---:|---:|---|\n")
	bounded := map[string]*Kernel{}
	for i := range r.Kernels {
		bounded[r.Kernels[i].Name] = &r.Kernels[i]
	}
	for _, sk := range r.Scope.Kernels {
		k := bounded[sk.Name]
		if k == nil {
			p("| %s | - | - | - | - | - | **%s** (item 7) |\n", code(sk.Name), cell(strings.ToUpper(strings.ReplaceAll(sk.Status, "-", " "))))
			continue
		}
		ns, dl, margin, verdict := "-", "-", "-", "bounded (no deadline given)"
		if k.BoundNS != nil {
			ns = strconv.FormatInt(*k.BoundNS, 10)
		}
		switch d := k.DeadlineCheck; {
		case d != nil && d.Level == "kernel":
			dl = fmt.Sprintf("%d ns (kernel level on %d SMs: bound %d ns, %s)", d.DeadlineCompared, d.SMs, d.Bound, code(d.Figure))
			margin = fmt.Sprintf("%d ns", d.Margin)
		case k.Deadline != nil:
			dl = fmt.Sprintf("%d cycles", *k.Deadline)
			if d != nil && d.Unit != "cycles" {
				dl += " (" + cell(d.Given) + ")"
			}
			if k.MarginCycles != nil {
				margin = fmt.Sprintf("%d cycles", *k.MarginCycles)
			}
		}
		if d := k.DeadlineCheck; d != nil && d.Conditional && d.Level == "kernel" {
			margin += " (conditional: a platform overhead is measured, not bounded)"
		}
		if k.Verdict != "" {
			verdict = "**" + cell(strings.ToUpper(k.Verdict)) + "**"
		}
		p("| %s | %d | %d | %s | %s | %s | %s |\n", code(k.Name), k.Warps, k.BoundCycles, ns, dl, margin, verdict)
	}
	b.WriteString("\nA bound is the sum over barrier sections of the largest per-class bound WUB = D + I, I the interference of the other warps charged per resource (item 6); nanoseconds at the clock of item 2.\n\n")
	writeLowerMD(&b, r.Kernels)
	writeComparisonMD(&b, r.Comparison)
	for i := range r.Kernels {
		writeKernelLevelMD(&b, &r.Kernels[i])
	}

	// 6.
	p("## 6. Breakdown\n\n")
	if len(r.Kernels) == 0 {
		p("None (no kernel was bounded).\n\n")
	}
	for _, k := range r.Kernels {
		p("### Kernel %s\n\n", icode(k.Name))
		p("Warp classes (warps with identical branch behaviour):\n\n| Class | Warps |\n|---|---|\n")
		for _, c := range k.Classes {
			p("| %s | %s |\n", cell(c.Name), ints(c.Warps))
		}
		p("\nBarrier sections (D: isolated duration; L: load InitSum + Issued of one warp; I: interference charged to one warp of the class by the others, per resource: initiation + issue cycles on a resource it uses, issue cycles on another; WUB: D + I):\n\n")
		p("| Section | From | To | Class | D | L | I | I per resource | WUB | Section bound | Times on the worst path |\n|---:|---|---|---|---:|---:|---:|---|---:|---:|---:|\n")
		for i, s := range k.Sections {
			for ci, c := range s.Classes {
				name := className(k.Classes, ci, c)
				times := "?"
				if s.Count >= 0 {
					times = fmt.Sprint(s.Count)
				}
				p("| %d | %s | %s | %s | %d | %d | %d | %s | %d | %d | %s |\n", i+1, code(s.From), code(s.To), cell(name), c.Duration, c.Load, c.Interference, resCharges(c), c.WUB, s.BoundCycles, times)
			}
		}
		if k.SectionCountsExact {
			p("\nThe bound is the sum over the sections of times on the worst barrier path × section bound.\n")
		} else {
			p("\nThe times are the most crossings of a section on a worst barrier path; their sum weighted by the section bounds is not the bound: a loop through barriers is summarised by its mean cycle weight (docs/model.md, \"Edge-weighted barrier path\"), or worst paths tie.\n")
		}
		writePessimismMD(&b, &k)
		p("\nPer-block contributions (per section and class, the worst path for L; I = COUNT × (INITSUM + ISSUED), its share of L):\n\n")
		p("| Section | Class | Block | Label | Lines | Count | Issued | InitSum | I | Share |\n|---:|---|---|---|---|---:|---:|---:|---:|---:|\n")
		for i, s := range k.Sections {
			for ci, c := range s.Classes {
				name := className(k.Classes, ci, c)
				for _, u := range c.Blocks {
					blk := u.Block
					if u.Instrs[0] > 0 || u.Instrs[1] < u.Size {
						blk += fmt.Sprintf("[%d:%d]", u.Instrs[0], u.Instrs[1])
					}
					label := "-"
					if len(u.Labels) > 0 {
						label = strings.Join(u.Labels, ", ")
					}
					p("| %d | %s | %s | %s | %s | %d | %d | %d | %d | %.1f%% |\n", i+1, cell(name), code(blk), code(label), code(u.Lines), u.Count, u.Issued, u.InitSum, u.I, 100*u.Share)
				}
			}
		}
		p("\nLoop bounds used:\n\n")
		if len(k.Loops) == 0 {
			p("None (no loop).\n\n")
		} else {
			p("| Loop | Key | Max | Kind | Expression | From | Why |\n|---|---|---:|---|---|---|---|\n")
			for _, l := range k.Loops {
				max := strconv.FormatInt(l.Max, 10)
				if l.Serial > 1 {
					max += fmt.Sprintf(" (×%d lane groups)", l.Serial)
				}
				p("| %s | %s | %s | %s | %s | %s | %s |\n", code(l.Pos), cell(l.Key), max, orNone(cell(l.Source)), code(l.Expr), code(l.From), orNone(cell(l.Why)))
			}
			b.WriteString("\n")
		}
		p("Divergent branches (both sides run in turn):\n\n")
		if len(k.Divergent) == 0 {
			p("None.\n\n")
		} else {
			for _, d := range k.Divergent {
				p("- %s %s\n", icode(d.Pos), icode(d.Instr))
			}
			b.WriteString("\n")
		}
	}

	// 7.
	p("## 7. Diagnostics\n\n")
	if len(r.Diagnostics) == 0 {
		p("None.\n\n")
	} else {
		p("| Level | Rule | Kernel | Location | Message |\n|---|---|---|---|---|\n")
		for _, d := range r.Diagnostics {
			p("| %s | %s | %s | %s | %s |\n", cell(d.Level), code(d.Rule), orNone(code(d.Kernel)), code(locString(d.Location)), cell(d.Message))
		}
		b.WriteString("\n")
	}
	var warned bool
	for _, k := range r.Kernels {
		for _, x := range k.Warnings {
			if !warned {
				p("Warnings attached to the bounds:\n\n")
				warned = true
			}
			p("- %s: %s\n", icode(k.Name), cell(x))
		}
	}
	if warned {
		b.WriteString("\n")
	}
	p("Analysis time and memory are not recorded (they would make the report non-deterministic).\n\n")

	// 8.
	p("## 8. Traceability\n\n")
	p("Timing requirement identifiers are not known to gpuwcet: trace each requirement to the kernel name and to this report's SHA-256.\n\n")
	var annotated []string
	for _, k := range r.Kernels {
		for _, l := range k.Loops {
			if l.Source == "annotated" {
				annotated = append(annotated, fmt.Sprintf("| %s | %s | %d | %s | %s |\n", code(k.Name), code(l.Pos), l.Max, code(l.From), orNone(cell(l.Why))))
			}
		}
	}
	if len(annotated) == 0 {
		p("No loop bound was annotated: every bound used was derived from the code (item 6).\n\n")
	} else {
		p("Annotated loop bounds (trusted, to be reviewed):\n\n| Kernel | Loop | Max | Fact | Rationale |\n|---|---|---:|---|---|\n")
		for _, a := range annotated {
			b.WriteString(a)
		}
		b.WriteString("\n")
	}

	// 9.
	p("## 9. Cross-check evidence\n\n")
	p("None in this report: `gpuwcet analyze` is static. An observed time (simulator trace) is compared with a bound by `gpuwcet bound` (exit code 4 when it exceeds the bound).\n\n")

	// 10.
	p("## 10. Integrity\n\n")
	p("The JSON report (`--format json` or `--report-json`) is the source of truth; this document, the SARIF and the JUnit outputs are rendered from it. Its output is deterministic: stable ordering, no timestamp.\n\n")
	p("- Report SHA-256: %s\n", icode(r.ReportSHA256))
	p("- Computed over the canonical JSON of the report without its `report_sha256` member (docs/report.md, \"Integrity\").\n")

	_, err := io.WriteString(w, b.String())
	return err
}

func row(b *strings.Builder, k, v string) { fmt.Fprintf(b, "| %s | %s |\n", k, v) }

func spaced(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func dims(d [3]int) string {
	if d == [3]int{} {
		return "not given"
	}
	return fmt.Sprintf("%d×%d×%d", d[0], d[1], d[2])
}

func args(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, code(fmt.Sprintf("%s=%d", k, m[k])))
	}
	return strings.Join(parts, ", ")
}

// className names section class c, the ci-th of its section: the name of
// the kernel's ci-th warp class, or its warps when there is none.
func className(classes []static.JSONClass, ci int, c static.JSONSegClass) string {
	if ci < len(classes) {
		return classes[ci].Name
	}
	return ints(c.Warps)
}

func ints(xs []int) string {
	if len(xs) == 0 {
		return "-"
	}
	// Ranges of consecutive integers: 0-3, 5.
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		} else {
			parts = append(parts, strconv.Itoa(xs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func locString(l *Location) string {
	if l == nil {
		return ""
	}
	s := fmt.Sprintf("%s:%d", l.URI, l.Line)
	if l.Column > 0 {
		s += fmt.Sprintf(":%d", l.Column)
	}
	return s
}

// shellJoin quotes the arguments for a POSIX shell, on one line: an
// argument with a control or hidden character (input.Hidden, a newline)
// is written in ANSI-C quoting ($'...', bash, zsh, ksh), the others in
// single quotes when they need quoting.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		switch {
		case a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0:
			out[i] = a
		case strings.ContainsFunc(a, func(r rune) bool { return r == '\n' || r == '\t' || input.Hidden(r) }) || !utf8.ValidString(a):
			out[i] = ansiQuote(a)
		default:
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// ansiQuote writes s in ANSI-C quoting: $'...' with \\, \', \n, \t, \xNN
// and \uNNNN escapes.
func ansiQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case input.Hidden(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case input.Hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// resCharges is the compact per-resource breakdown of a class's
// interference: NAME INIT for a resource the charged path initiates on,
// NAME +ISSUE for another; the whole-path charge is named when it was
// smaller.
func resCharges(c static.JSONSegClass) string {
	var parts []string
	for _, rc := range c.ByResource {
		if rc.Own {
			parts = append(parts, fmt.Sprintf("%s %d", cell(rc.Resource), rc.Init+rc.Issue))
		} else {
			parts = append(parts, fmt.Sprintf("%s +%d", cell(rc.Resource), rc.Issue))
		}
	}
	s := strings.Join(parts, ", ")
	if c.Interference < c.PerResource {
		s = fmt.Sprintf("whole path %d (per resource %d: %s)", c.WholePath, c.PerResource, s)
	}
	if s == "" {
		return "-"
	}
	return s
}

// writeConfigMD writes the configuration record (item 2).
func writeConfigMD(b *strings.Builder, c Configuration) {
	b.WriteString("\nConfiguration record (as stated on the command line, not checked; hashed with the report):\n\n| Item | Value |\n|---|---|\n")
	for _, it := range []struct{ name, v string }{{"GPU model", c.GPUModel}, {"Driver", c.Driver}, {"CUDA toolkit", c.CUDAToolkit},
		{"Compiler flags", c.CompilerFlags}, {"Clocks", c.Clocks}} {
		v := "**not recorded**"
		if it.v != "" {
			v = code(it.v)
		}
		row(b, it.name, v)
	}
	if len(c.NotRecorded) > 0 {
		var fl []string
		for _, f := range c.NotRecorded {
			fl = append(fl, icode("--"+f))
		}
		fmt.Fprintf(b, "\nNot recorded: %s. The bound does not depend on them, but a reviewer cannot tell from this report which system it is for; give them with %s.\n\n", cell(strings.Join(c.NotRecorded, ", ")), strings.Join(fl, ", "))
	} else {
		b.WriteString("\n")
	}
	b.WriteString("Compiler versions and flags beyond the configuration record: only what the listing's header states (above).\n\n")
}
