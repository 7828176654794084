package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// The HTML report (docs/report.md, "HTML report"): one self-contained
// XHTML document (polyglot: well-formed XML served as HTML), nothing
// loaded from the network, no script. Its text is the Markdown report's,
// converted (mdToHTML: the Markdown renderer is the one place that decides
// what a report says), and per bounded kernel, after its breakdown, the
// phase timelines (inline SVG from the JSON report) and the CFG drawings
// with the worst case (Graphviz SVG when dot is installed, else the DOT
// source and the command that renders it).

// Figure is a CFG drawing of a kernel for the HTML report, or (Kernel
// empty, DOT empty) a drawing of a PREM schedule check: its Gantt chart
// (prem.WriteGantt), shown at the end of section 5 (Results).
type Figure struct {
	// Kernel is the kernel it belongs to (Kernel.Name); "" for a PREM
	// schedule's figure.
	Kernel string
	Title  string
	DOT    string // the Graphviz source
	// SVG is the DOT rendered by Graphviz (dot -Tsvg), nil when dot is
	// not installed or failed; it is embedded only when it parses and
	// holds no script, event handler or external reference (SafeSVG).
	SVG []byte
	// Command renders DOT when SVG is nil (shown with the source).
	Command string
	Note    string // why there is no SVG, when there is none
}

// WriteHTML writes the HTML report of r with the CFG drawings figs.
func WriteHTML(w io.Writer, r *Report, figs []Figure) error {
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		return err
	}
	var b strings.Builder
	title := "gpuwcet bound report"
	if r.Prem != nil {
		title = "gpuwcet PREM schedule report"
	}
	b.WriteString("<!DOCTYPE html>\n")
	b.WriteString(`<html xmlns="http://www.w3.org/1999/xhtml" lang="en">` + "\n<head>\n")
	b.WriteString(`<meta charset="utf-8"/>` + "\n")
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"/>` + "\n")
	b.WriteString(`<meta name="generator" content="` + xmlText(r.Tool.Name+" "+r.Tool.Version) + `"/>` + "\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", xmlText(title+" "+r.ReportSHA256[:min(12, len(r.ReportSHA256))]), htmlStyle)

	kernelFigs := func(k int) {
		if k < 0 || k >= len(r.Kernels) {
			return
		}
		name := r.Kernels[k].Name
		b.WriteString(`<section class="figures">` + "\n")
		fmt.Fprintf(&b, "<h4>Phase timelines of %s</h4>\n", codeHTML(name))
		b.WriteString(`<div class="figure">`)
		writeTimeline(&b, r, k)
		b.WriteString("</div>\n")
		for _, f := range figs {
			if f.Kernel == name {
				writeFigure(&b, f)
			}
		}
		b.WriteString("</section>\n")
	}
	// A PREM report's schedule figures close its section 5 (Results,
	// with the verdicts and counterexamples the chart shows).
	sectionEnd := func(heading string) {
		if r.Prem == nil || !strings.HasPrefix(heading, "5. ") {
			return
		}
		for _, f := range figs {
			if f.Kernel == "" {
				b.WriteString(`<section class="figures">` + "\n")
				writeFigure(&b, f)
				b.WriteString("</section>\n")
			}
		}
	}
	mdToHTML(&b, md.String(), kernelFigs, sectionEnd)
	b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFigure writes a CFG drawing: the SVG when it is safe, else the DOT
// source and how to render it.
func writeFigure(b *strings.Builder, f Figure) {
	fmt.Fprintf(b, "<h4>%s</h4>\n", xmlText(f.Title))
	if svg, err := SafeSVG(f.SVG); f.SVG != nil && err == nil {
		b.WriteString(`<div class="figure cfg">`)
		b.Write(svg)
		b.WriteString("</div>\n")
		return
	} else if f.SVG != nil {
		f.Note = "the drawing was not embedded: " + err.Error()
	}
	if f.DOT == "" {
		fmt.Fprintf(b, "<p>%s.</p>\n", xmlText(f.Note))
		return
	}
	if f.Note != "" {
		fmt.Fprintf(b, "<p>%s. Render the DOT source below with <code>%s</code>.</p>\n", xmlText(f.Note), xmlText(f.Command))
	} else {
		fmt.Fprintf(b, "<p>Render the DOT source below with <code>%s</code>.</p>\n", xmlText(f.Command))
	}
	fmt.Fprintf(b, "<details><summary>DOT source</summary><pre>%s</pre></details>\n", xmlPre(f.DOT))
}

// SafeSVG checks Graphviz's SVG output before it is embedded in the
// report: it must parse as XML, use only the elements Graphviz writes for
// a drawing, and hold no script, event handler, style sheet or reference
// outside the document. It returns the <svg> element without the XML
// declaration, DOCTYPE and comments.
func SafeSVG(data []byte) ([]byte, error) {
	allowed := map[string]bool{"svg": true, "g": true, "title": true, "polygon": true, "polyline": true, "path": true, "ellipse": true,
		"text": true, "a": true, "defs": true, "linearGradient": true, "radialGradient": true, "stop": true,
		"rect": true, "line": true, "tspan": true, "pattern": true} // the last: prem.WriteGantt's
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	start := -1
	depth := 0
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("SVG does not parse: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if !allowed[e.Name.Local] {
				return nil, fmt.Errorf("SVG has a <%s> element", e.Name.Local)
			}
			for _, a := range e.Attr {
				n := strings.ToLower(a.Name.Local)
				v := strings.ToLower(strings.TrimSpace(a.Value))
				if strings.HasPrefix(n, "on") || n == "style" && strings.Contains(v, "url(") ||
					strings.Contains(v, "url(") && !localURL(v) ||
					(n == "href") && !strings.HasPrefix(v, "#") && v != "" {
					return nil, fmt.Errorf("SVG attribute %s=%q", a.Name.Local, a.Value)
				}
			}
			if e.Name.Local == "svg" && start < 0 {
				start = int(off)
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.ProcInst:
			if e.Target != "xml" {
				return nil, fmt.Errorf("SVG has a processing instruction %s", e.Target)
			}
		}
	}
	if start < 0 || depth != 0 {
		return nil, fmt.Errorf("SVG has no complete <svg> element")
	}
	return bytes.TrimSpace(data[start:]), nil
}

// localURL reports whether every url(…) in an attribute value refers to
// an element of the document (url(#id)).
func localURL(v string) bool {
	for {
		i := strings.Index(v, "url(")
		if i < 0 {
			return true
		}
		v = strings.TrimLeft(v[i+len("url("):], " '\"")
		if !strings.HasPrefix(v, "#") {
			return false
		}
	}
}

// mdToHTML converts the Markdown report to XHTML. It reads exactly the
// subset the Markdown renderer writes: ATX headings, pipe tables with an
// alignment row, "- " lists, fenced code blocks, paragraphs; inline
// backslash escapes, code spans and **strong**. Every character of text
// is escaped. kernel is called with the index of a kernel of section 6
// (the n-th "### Kernel" heading) when its subsection ends, and
// sectionEnd with the text of a level-2 heading when its section ends.
func mdToHTML(b *strings.Builder, md string, kernel func(int), sectionEnd func(heading string)) {
	lines := strings.Split(md, "\n")
	inKernel := -1
	kernels := 0
	endKernel := func() {
		if inKernel >= 0 {
			kernel(inKernel)
			inKernel = -1
		}
	}
	section := ""
	endSection := func() {
		endKernel()
		if section != "" {
			sectionEnd(section)
			section = ""
		}
	}
	var toc []string
	for i := 0; i < len(lines); {
		line := lines[i]
		t := strings.TrimLeft(line, " ")
		switch {
		case t == "":
			i++
		case strings.HasPrefix(t, "```"):
			fence := t[:len(t)-len(strings.TrimLeft(t, "`"))]
			var code []string
			i++
			for i < len(lines) && !(strings.HasPrefix(strings.TrimLeft(lines[i], " "), fence) && strings.Trim(lines[i], "` ") == "") {
				code = append(code, lines[i])
				i++
			}
			i++
			fmt.Fprintf(b, "<pre><code>%s</code></pre>\n", xmlPre(strings.Join(code, "\n")))
		case strings.HasPrefix(t, "#"):
			level := len(t) - len(strings.TrimLeft(t, "#"))
			text := strings.TrimSpace(t[level:])
			if level <= 2 {
				endSection()
			}
			if level == 2 {
				section = text
			}
			if level <= 3 {
				endKernel()
			}
			id := fmt.Sprintf("s%d", i+1)
			if level == 3 && strings.HasPrefix(text, "Kernel ") {
				inKernel = kernels
				kernels++
			}
			if level == 2 {
				toc = append(toc, fmt.Sprintf(`<li><a href="#%s">%s</a></li>`, id, inlineHTML(text)))
			}
			fmt.Fprintf(b, `<h%d id="%s">%s</h%d>`+"\n", level, id, inlineHTML(text), level)
			if level == 1 {
				b.WriteString("<!--TOC-->\n")
			}
			i++
		case strings.HasPrefix(t, "|"):
			var rows []string
			for i < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[i], " "), "|") {
				rows = append(rows, strings.TrimSpace(lines[i]))
				i++
			}
			writeTable(b, rows)
		case strings.HasPrefix(t, "- "):
			b.WriteString("<ul>\n")
			for i < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[i], " "), "- ") {
				fmt.Fprintf(b, "<li>%s</li>\n", inlineHTML(strings.TrimLeft(lines[i], " ")[2:]))
				i++
			}
			b.WriteString("</ul>\n")
		default:
			var para []string
			for i < len(lines) {
				u := strings.TrimLeft(lines[i], " ")
				if u == "" || strings.HasPrefix(u, "#") || strings.HasPrefix(u, "|") || strings.HasPrefix(u, "- ") || strings.HasPrefix(u, "```") {
					break
				}
				para = append(para, u)
				i++
			}
			fmt.Fprintf(b, "<p>%s</p>\n", inlineHTML(strings.Join(para, " ")))
		}
	}
	endSection()
	if len(toc) > 0 {
		s := b.String()
		b.Reset()
		b.WriteString(strings.Replace(s, "<!--TOC-->\n", `<nav><ul class="toc">`+strings.Join(toc, "")+"</ul></nav>\n", 1))
	}
}

// writeTable writes a pipe table: a header row, an alignment row, body
// rows; cells split at '|' not escaped by a backslash.
func writeTable(b *strings.Builder, rows []string) {
	if len(rows) < 2 {
		for _, r := range rows {
			fmt.Fprintf(b, "<p>%s</p>\n", inlineHTML(r))
		}
		return
	}
	head := splitRow(rows[0])
	var align []string
	for _, c := range splitRow(rows[1]) {
		c = strings.TrimSpace(c)
		switch {
		case strings.HasSuffix(c, ":") && strings.HasPrefix(c, ":"):
			align = append(align, ` class="c"`)
		case strings.HasSuffix(c, ":"):
			align = append(align, ` class="r"`)
		default:
			align = append(align, "")
		}
	}
	cell := func(tag string, i int, c string) string {
		a := ""
		if i < len(align) {
			a = align[i]
		}
		return fmt.Sprintf("<%s%s>%s</%s>", tag, a, inlineHTML(strings.TrimSpace(c)), tag)
	}
	b.WriteString("<table>\n<thead><tr>")
	for i, c := range head {
		b.WriteString(cell("th", i, c))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows[2:] {
		b.WriteString("<tr>")
		cells := splitRow(r)
		for i := range head {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(cell("td", i, c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
}

// splitRow splits a table row at the '|' not escaped by a backslash
// (GFM), without the outer ones; "\|" becomes "|" in the cells.
func splitRow(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case row[i] == '\\' && i+1 < len(row):
			cur.WriteByte('\\')
			cur.WriteByte(row[i+1])
			i++
		case row[i] == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, cur.String())
}

// inlineHTML converts Markdown inline text: backslash escapes, code spans
// (delimited by equal backtick runs; content with a space on both ends
// loses one of each) and **strong**; all text escaped.
func inlineHTML(s string) string {
	var b strings.Builder
	var text strings.Builder
	flush := func() {
		b.WriteString(xmlText(text.String()))
		text.Reset()
	}
	strong := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isPunct(s[i+1]):
			text.WriteByte(s[i+1])
			i += 2
		case c == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			end := closingRun(s, i+n, n)
			if end < 0 {
				text.WriteString(s[i : i+n])
				i += n
				continue
			}
			content := s[i+n : end]
			if len(content) >= 2 && content[0] == ' ' && content[len(content)-1] == ' ' && strings.Trim(content, " ") != "" {
				content = content[1 : len(content)-1]
			}
			flush()
			b.WriteString("<code>" + xmlText(content) + "</code>")
			i = end + n
		case c == '*' && i+1 < len(s) && s[i+1] == '*':
			flush()
			if strong {
				b.WriteString("</strong>")
			} else {
				b.WriteString("<strong>")
			}
			strong = !strong
			i += 2
		default:
			text.WriteByte(c)
			i++
		}
	}
	flush()
	if strong {
		b.WriteString("</strong>")
	}
	return b.String()
}

// closingRun returns the index of the next run of exactly n backticks in
// s from i, -1 when none.
func closingRun(s string, i, n int) int {
	for i < len(s) {
		if s[i] != '`' {
			i++
			continue
		}
		m := 0
		for i+m < len(s) && s[i+m] == '`' {
			m++
		}
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

func isPunct(c byte) bool { return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0 }

// codeHTML is s as inline code.
func codeHTML(s string) string { return "<code>" + xmlText(s) + "</code>" }

// xmlPre escapes s for a <pre> block: lines kept, hidden characters
// visible.
func xmlPre(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = xmlText(l)
	}
	return strings.Join(lines, "\n")
}

// htmlStyle is the report's style sheet (inline: nothing is loaded).
const htmlStyle = `
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;font-size:14px;line-height:1.45;color:#1f2328;margin:0 auto;padding:1em 2em;max-width:1200px}
h1{font-size:1.7em;border-bottom:1px solid #d0d7de;padding-bottom:.3em}
h2{font-size:1.35em;border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:1.6em}
h3{font-size:1.15em;margin-top:1.4em}h4{font-size:1em;margin:1.2em 0 .4em}
table{border-collapse:collapse;margin:.6em 0;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #d0d7de;padding:3px 8px;vertical-align:top;text-align:left}
th{background:#f6f8fa}td.r,th.r{text-align:right}td.c,th.c{text-align:center}
tbody tr:nth-child(even){background:#fafbfc}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;background:#f3f4f6;padding:.1em .3em;border-radius:4px;overflow-wrap:break-word}
pre{background:#f6f8fa;padding:.8em;overflow-x:auto;border-radius:6px}pre code{background:none;padding:0;word-break:normal}
nav ul.toc{columns:2;background:#f6f8fa;padding:.6em 2em;border-radius:6px}
.figure{overflow-x:auto;border:1px solid #d0d7de;border-radius:6px;padding:.5em;margin:.5em 0;background:#ffffff}
.figure.cfg svg{max-width:100%;height:auto}
section.figures{border-left:4px solid #d0d7de;padding-left:1em;margin:1em 0}
details summary{cursor:pointer;color:#0969da}
`
