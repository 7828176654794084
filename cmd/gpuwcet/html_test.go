package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwcet/gpuwcet/bound/report"
)

// withoutDot makes the HTML report's figures DOT sources (as on a machine
// without Graphviz), for outputs that do not depend on its version.
func withoutDot(t *testing.T) {
	t.Helper()
	old := lookDot
	lookDot = func(string) (string, error) { return "", errors.New("not installed") }
	t.Cleanup(func() { lookDot = old })
}

// TestHTMLGolden: the HTML report of the command line in each archive's
// comment (figures as DOT sources).
func TestHTMLGolden(t *testing.T) {
	withoutDot(t)
	commandGolden(t, "testdata/html/*.txtar")
}

// htmlElements are the elements the HTML report may contain: its own,
// the timelines' SVG and Graphviz's.
var htmlElements = map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "nav": true,
	"ul": true, "li": true, "a": true, "h1": true, "h2": true, "h3": true, "h4": true, "p": true, "code": true, "pre": true,
	"strong": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "section": true, "div": true,
	"details": true, "summary": true,
	"svg": true, "g": true, "rect": true, "line": true, "text": true, "polygon": true, "polyline": true, "path": true, "ellipse": true,
	"defs": true, "linearGradient": true, "radialGradient": true, "stop": true, "tspan": true, "pattern": true}

// checkHTML parses an HTML report as XML, strictly: only the report's
// elements, no script, style or link to anything outside the document,
// no hidden character.
func checkHTML(t *testing.T, what string, doc []byte) {
	t.Helper()
	checkVisible(t, what, string(doc))
	if !bytes.HasPrefix(doc, []byte("<!DOCTYPE html>\n")) {
		t.Errorf("%s: no HTML doctype", what)
	}
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed: %v", what, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			if !htmlElements[e.Name.Local] {
				t.Errorf("%s: element <%s>", what, e.Name.Local)
			}
			for _, a := range e.Attr {
				n, v := strings.ToLower(a.Name.Local), strings.ToLower(a.Value)
				if a.Name.Space == "xmlns" || n == "xmlns" {
					continue // namespace names, not loaded
				}
				if strings.HasPrefix(n, "on") || (n == "href" || n == "src") && !strings.HasPrefix(v, "#") {
					t.Errorf("%s: attribute %s=%q", what, a.Name.Local, a.Value)
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	if depth != 0 {
		t.Errorf("%s: unbalanced elements", what)
	}
}

// TestHTMLReport: the HTML report of real reports is well-formed XHTML
// with the Markdown report's headings, each bounded kernel's timelines and
// CFGs (Graphviz SVG when dot is installed, DOT sources without), and
// nothing from the network; with every string hostile it still is.
func TestHTMLReport(t *testing.T) {
	var figs []report.Figure
	for name, data := range reportCorpus(t) {
		r, err := report.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range r.Kernels {
			figs = append(figs, report.Figure{Kernel: k.Name, Title: "CFG of " + k.Name, DOT: "digraph x {}", Command: "dot -Tsvg"})
		}
		var b, md bytes.Buffer
		if err := report.WriteHTML(&b, r, figs); err != nil {
			t.Fatal(err)
		}
		checkHTML(t, name, b.Bytes())
		report.WriteMarkdown(&md, r)
		for _, line := range strings.Split(md.String(), "\n") {
			if h, ok := strings.CutPrefix(line, "## "); ok && !strings.Contains(b.String(), ">"+h+"</h2>") {
				t.Errorf("%s: no heading %q", name, h)
			}
		}
		if got := strings.Count(b.String(), "<h4>Phase timelines of"); got != len(r.Kernels) {
			t.Errorf("%s: %d timelines, want %d", name, got, len(r.Kernels))
		}
		var bad bytes.Buffer
		if err := report.WriteHTML(&bad, withStrings(t, data, hostile), figs); err != nil {
			t.Fatal(err)
		}
		checkHTML(t, name+" (hostile)", bad.Bytes())
	}
}

// TestHTMLFromCLI: --report FILE.html writes the HTML report (with the
// CFGs rendered by Graphviz when installed), --report FILE.md Markdown,
// and --format html the HTML on standard output.
func TestHTMLFromCLI(t *testing.T) {
	dir := t.TempDir()
	html, md := filepath.Join(dir, "wcet.HTML"), filepath.Join(dir, "wcet.md")
	args := []string{"analyze", "--hw", "ecrts25-orin-200", "--block", "256", "--report", html, "../../examples/reduce/kernel.ptx"}
	if _, e, code := runCmd(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	doc := readFile(t, html)
	checkHTML(t, "wcet.HTML", doc)
	if _, err := exec.LookPath("dot"); err == nil && !bytes.Contains(doc, []byte(`class="figure cfg"><svg`)) {
		t.Errorf("dot is installed, but the CFG is not drawn")
	}
	args[6] = md
	runCmd(t, args...)
	if m := readFile(t, md); !bytes.HasPrefix(m, []byte("# gpuwcet bound report")) {
		t.Errorf("--report wcet.md is not Markdown")
	}
	out, _, _ := runCmd(t, "analyze", "--hw", "ecrts25-orin-200", "--block", "256", "--format", "html", "../../examples/reduce/kernel.ptx")
	checkHTML(t, "--format html", []byte(out))
}

// TestHTMLInChromium opens the HTML report in headless Chromium, when it
// is installed, and checks that the browser's DOM holds every section,
// the timelines and the CFG drawings: nothing was lost to a parse error.
func TestHTMLInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed")
	}
	dir := t.TempDir()
	html := filepath.Join(dir, "wcet.html")
	if _, e, code := runCmd(t, "analyze", "--hw", "ecrts25-orin-200", "--block", "256", "--report", html, "../../examples/reduce/kernel.ptx"); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+html)
	var out bytes.Buffer
	cmd.Stdout = &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Skipf("chromium does not start: %v", err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Skipf("chromium: %v", err)
		}
	case <-time.After(120 * time.Second):
		cmd.Process.Kill()
		t.Skip("chromium did not answer in 2 minutes")
	}
	dom := out.String()
	for _, want := range []string{"1. Identification", "10. Integrity", "Phase timelines of", "<svg", "worst path: ×8"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's DOM lacks %q", want)
		}
	}
	if n := strings.Count(dom, "<h2"); n != 10 {
		t.Errorf("the browser's DOM has %d sections, want 10", n)
	}
}

// BenchmarkReportFigures measures the renderings of the review evidence
// from the JSON report of examples/reduce (docs/performance.md): the
// Markdown report, the HTML report (figures as DOT sources: Graphviz not
// counted), the phase timelines, and the CFG drawing with the worst case.
func BenchmarkReportFigures(b *testing.B) {
	var out, errb bytes.Buffer
	args := []string{"gpuwcet", "analyze", "--hw", "ecrts25-orin-200", "--block", "256", "--format", "json", "../../examples/reduce/kernel.ptx"}
	if code := run(args, &out, &errb); code != 0 {
		b.Fatal(errb.String())
	}
	r, err := report.Parse(out.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	cfgArgs := []string{"gpuwcet", "cfg", "--format", "dot", "--bound", "--hw", "ecrts25-orin-200", "--block", "256", "../../examples/reduce/kernel.ptx"}
	var thread bytes.Buffer
	run(cfgArgs, &thread, io.Discard)
	figs := []report.Figure{{Kernel: "blocksum", Title: "CFG", DOT: thread.String(), Command: "dot -Tsvg"}}
	b.Run("markdown", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			report.WriteMarkdown(io.Discard, r)
		}
	})
	b.Run("html", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			report.WriteHTML(io.Discard, r, figs)
		}
	})
	b.Run("timeline", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			report.WriteTimelineSVG(io.Discard, r, 0)
		}
	})
	b.Run("cfg-bound", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			run(cfgArgs, io.Discard, io.Discard)
		}
	})
}

// TestPremHTML: prem check --report FILE.html embeds the schedule's Gantt
// chart (the SVG --gantt writes) at the end of section 5, after the
// verdicts and counterexamples, and before the slack tables; names from
// the schedule stay escaped, and a check that cannot draw says why.
func TestPremHTML(t *testing.T) {
	dir := t.TempDir()
	src := string(readFile(t, "testdata/prem/notes-kw-whole-1400.toml"))
	src = strings.Replace(src, `name = "kw-whole-1400"`, `name = "kw <script>alert(1)</script> ]]> --> \u202eevil & <b>x</b>"`, 1)
	sched := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(sched, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	html, gantt := filepath.Join(dir, "r.html"), filepath.Join(dir, "g.svg")
	if _, e, code := runCmd(t, "prem", "check", "--report", html, "--gantt", gantt, sched); code != ExitVerdict {
		t.Fatalf("exit %d, want %d: %s", code, ExitVerdict, e)
	}
	doc := string(readFile(t, html))
	checkHTML(t, "r.html", []byte(doc))
	if strings.Contains(doc, "<script") || strings.Contains(doc, "<b>x") {
		t.Errorf("a name of the schedule is not escaped")
	}
	svg, err := report.SafeSVG(readFile(t, gantt))
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(doc, string(svg))
	results, breakdown, counter := strings.Index(doc, ">5. Results</h2>"), strings.Index(doc, ">6. Breakdown</h2>"), strings.Index(doc, "First counterexample of C5")
	if at < 0 || strings.Count(doc, "<svg") != 1 {
		t.Fatalf("the Gantt chart --gantt writes is not embedded once")
	}
	if !(results < counter && counter < at && at < breakdown) {
		t.Errorf("the Gantt chart is at %d, want after the counterexamples (%d) of section 5 (%d) and before section 6 (%d)", at, counter, results, breakdown)
	}
	for _, want := range []string{">C12<", "Slack per slot", "memory overlap"} {
		if !strings.Contains(doc, want) {
			t.Errorf("no %q in the HTML report", want)
		}
	}
	// A Markdown report has no figure; an analyze HTML report no Gantt.
	md := filepath.Join(dir, "r.md")
	runCmd(t, "prem", "check", "--report", md, sched)
	if strings.Contains(string(readFile(t, md)), "<svg") {
		t.Errorf("the Markdown report embeds SVG")
	}
}
