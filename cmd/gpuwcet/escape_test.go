package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gpuwcet/gpuwcet/bound/report"
	"github.com/gpuwcet/gpuwcet/cfg/input"
)

// hostile is a name that tries every way out of a rendering: Markdown code
// spans, fences, headings, lists, tables, HTML, entities, links, emphasis,
// math and mentions; XML CDATA and comments; quotes; terminal escapes and
// bells; bidirectional controls; line breaks.
const hostile = "k``x` <script>alert(1)</script> \"q' ]]> --> <!-- \x1b[31m\x07 \u202eevil\u202c |a|b| *em* _u_ [l](http://x) ![i](y) &amp; $m$ @user\\\n```\n# h\n- li\r\n1. x"

// reportCorpus returns JSON reports that populate every member the
// renderers read: bounded kernels with sections, blocks, loops (derived,
// annotated), divergent branches, warnings, a deadline, the kernel level,
// diagnostics, errors, and a PREM check.
func reportCorpus(t *testing.T) map[string][]byte {
	t.Helper()
	facts := annotatedFacts(t)
	runs := map[string][]string{
		"reduce":    {"analyze", "--hw", "ecrts25-orin-200", "--block", "256", "--deadline", "100", "../../examples/reduce/kernel.ptx"},
		"call":      {"analyze", "--hw", "rtx3070", "--block", "256", "../../examples/device-call/kernel.ptx"},
		"divergent": {"analyze", "--hw", "rtx3070", "--block", "64", "../../examples/divergent/kernel.ptx"},
		"facts":     {"analyze", "--hw", "rtx3070", "--block", "256", "--arg", "colsum_param_2=4", "--facts", facts, "../../examples/counted-loop/kernel.ptx"},
		"grid":      {"analyze", "--hw", "ecrts25-orin-200", "--block", "256", "--grid", "64", "--platform", "jetson-agx-orin", "--regs", "16", "--sms", "2", "../../examples/reduce/kernel.ptx"},
		"spin":      {"analyze", "--hw", "rtx3070", "--block", "64", "testdata/analyze/spin.ptx"},
		"bad":       {"analyze", "--hw", "rtx3070", "--block", "64", "testdata/analyze/no-such.ptx"},
		"prem":      {"prem", "check", "testdata/prem/notes-kw-phase-3000-1000.toml"},
	}
	out := map[string][]byte{}
	for name, args := range runs {
		var o, e bytes.Buffer
		run(append(append([]string{"gpuwcet"}, args[:len(args)-1]...), "--format", "json", args[len(args)-1]), &o, &e)
		if _, err := report.Parse(o.Bytes()); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, e.String())
		}
		out[name] = o.Bytes()
	}
	return out
}

// annotatedFacts writes a facts file for examples/counted-loop with an
// annotated bound of its loop.
func annotatedFacts(t *testing.T) string {
	t.Helper()
	const listing = "../../examples/counted-loop/kernel.ptx"
	src, err := os.ReadFile(listing)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(src)
	facts := filepath.Join(t.TempDir(), "colsum.facts.toml")
	doc := fmt.Sprintf("version = 1\nlisting = %q\nsha256 = %q\n\n[[kernel]]\nname = \"colsum\"\n\n[[kernel.loop]]\nlabel = \"LBB0_2\"\nmax = 500\nwhy = \"at most 500 rows\"\n", listing, hex.EncodeToString(sum[:]))
	if err := os.WriteFile(facts, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return facts
}

// withStrings decodes a JSON report and sets every string in it (map keys
// included) to s.
func withStrings(t *testing.T, data []byte, s string) *report.Report {
	t.Helper()
	r, err := report.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	setStrings(reflect.ValueOf(r), s)
	return r
}

func setStrings(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			setStrings(v.Elem(), s)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				setStrings(v.Field(i), s)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			setStrings(v.Index(i), s)
		}
	case reflect.Map:
		for i, k := range v.MapKeys() {
			e := v.MapIndex(k)
			v.SetMapIndex(k, reflect.Value{})
			nk := k
			if k.Kind() == reflect.String {
				nk = reflect.ValueOf(s + strings.Repeat(" ", i)).Convert(k.Type()) // keys stay distinct
			}
			v.SetMapIndex(nk, e)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(s)
		}
	}
}

// mdShape is what a Markdown document's structure is made of, line by
// line: the kind of block each line starts (blank, heading, list item,
// fence, table row with its cell count, quote, text), and per line the
// number of code spans and of unescaped special characters outside them.
// A rendering that escapes its inputs has the same shape whatever the
// strings of the report are.
func mdShape(doc string) []string {
	var shape []string
	fence := ""
	for _, line := range strings.Split(doc, "\n") {
		t := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(t, "`") == "" {
				fence = ""
				shape = append(shape, "fence-end")
			} else {
				shape = append(shape, "code")
			}
			continue
		case strings.HasPrefix(t, "```"):
			fence = t[:len(t)-len(strings.TrimLeft(t, "`"))]
			shape = append(shape, "fence "+strings.TrimLeft(t, "`"))
			continue
		}
		kind := "text"
		switch {
		case t == "":
			kind = "blank"
		case strings.HasPrefix(t, "#"):
			kind = "heading " + strings.Fields(t)[0]
		case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "):
			kind = "item"
		case strings.HasPrefix(t, ">"):
			kind = "quote"
		case strings.HasPrefix(t, "|"):
			kind = "row " + itoa(cells(t))
		case len(t) > 1 && t[0] >= '0' && t[0] <= '9' && strings.IndexAny(t, ".)") > 0 && strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }) == strings.IndexAny(t, ".)"):
			kind = "ordered"
		}
		spans, specials := inline(t)
		shape = append(shape, kind+" spans="+itoa(spans)+" specials="+specials)
	}
	return shape
}

func itoa(n int) string { return strconv.Itoa(n) }

// cells counts the cells of a table row: '|' not escaped by a backslash
// separates them (GFM splits rows before inline parsing, code spans
// included).
func cells(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		if row[i] == '\\' {
			i++
			continue
		}
		if row[i] == '|' {
			n++
		}
	}
	return n
}

// inline scans a line as CommonMark does for backslash escapes and code
// spans, and returns the number of code spans and the unescaped special
// characters outside them (sorted by kind), those that start HTML,
// entities, emphasis, links, math or mentions.
func inline(s string) (int, string) {
	spans := 0
	count := map[byte]int{}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[i+1]) >= 0:
			i += 2
			continue
		case c == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			// The closing run: exactly n backticks.
			j := i + n
			closed := -1
			for j < len(s) {
				if s[j] != '`' {
					j++
					continue
				}
				m := 0
				for j+m < len(s) && s[j+m] == '`' {
					m++
				}
				if m == n {
					closed = j
					break
				}
				j += m
			}
			if closed < 0 {
				count['`'] += n
				i += n
				continue
			}
			spans++
			i = closed + n
			continue
		case strings.IndexByte("<&*_[]~$@", c) >= 0:
			count[c]++
		}
		i++
	}
	var b strings.Builder
	for _, c := range []byte("`<&*_[]~$@") {
		if count[c] > 0 {
			b.WriteByte(c)
			b.WriteString(itoa(count[c]))
		}
	}
	return spans, b.String()
}

// TestMarkdownEscaping is issue 9 item 12: every string of a report set
// to a hostile value leaves the Markdown report with the shape it has
// with a plain value (no block, span, table cell, HTML, link or emphasis
// added), and no hidden character.
func TestMarkdownEscaping(t *testing.T) {
	for name, data := range reportCorpus(t) {
		t.Run(name, func(t *testing.T) {
			var plain, bad bytes.Buffer
			if err := report.WriteMarkdown(&plain, withStrings(t, data, "x")); err != nil {
				t.Fatal(err)
			}
			if err := report.WriteMarkdown(&bad, withStrings(t, data, hostile)); err != nil {
				t.Fatal(err)
			}
			checkVisible(t, "Markdown", bad.String())
			ps, bs := mdShape(plain.String()), mdShape(bad.String())
			if len(ps) != len(bs) {
				if os.Getenv("MDDUMP") != "" {
					os.WriteFile("/tmp/md-"+name+".md", bad.Bytes(), 0o644)
				}
				t.Fatalf("%d lines with plain strings, %d with hostile ones", len(ps), len(bs))
			}
			lines := strings.Split(bad.String(), "\n")
			for i := range ps {
				if ps[i] != bs[i] {
					t.Errorf("line %d: shape %q, want %q:\n%s", i+1, bs[i], ps[i], lines[i])
				}
			}
		})
	}
}

// checkVisible fails when doc holds a hidden character (input.Hidden) or
// is not UTF-8.
func checkVisible(t *testing.T, what, doc string) {
	t.Helper()
	if !utf8.ValidString(doc) {
		t.Errorf("%s: not UTF-8", what)
	}
	for i, r := range doc {
		if input.Hidden(r) {
			t.Errorf("%s: hidden character %U at byte %d", what, r, i)
			return
		}
	}
}

// TestSARIFJUnitEscaping: with hostile strings, SARIF is JSON and JUnit is
// XML that parse, hold no hidden character, and keep the names (made
// visible).
func TestSARIFJUnitEscaping(t *testing.T) {
	for name, data := range reportCorpus(t) {
		t.Run(name, func(t *testing.T) {
			r := withStrings(t, data, hostile)
			var s, j bytes.Buffer
			if err := report.WriteSARIF(&s, r); err != nil {
				t.Fatal(err)
			}
			if err := report.WriteJUnit(&j, r); err != nil {
				t.Fatal(err)
			}
			checkVisible(t, "SARIF", s.String())
			checkVisible(t, "JUnit", j.String())
			var v any
			if err := json.Unmarshal(s.Bytes(), &v); err != nil {
				t.Errorf("SARIF: %v", err)
			}
			checkXML(t, "JUnit", j.Bytes())
			if !strings.Contains(j.String(), "&lt;script&gt;") || strings.Contains(j.String(), "<script") {
				t.Errorf("JUnit: the name is not escaped")
			}
			dec := json.NewDecoder(bytes.NewReader(s.Bytes()))
			var log report.SARIFLog
			if err := dec.Decode(&log); err != nil {
				t.Fatal(err)
			}
			for _, a := range log.Runs[0].Artifacts {
				if strings.ContainsAny(a.Location.URI, "\\ <>\"`\n") {
					t.Errorf("SARIF artifact URI %q is not percent-encoded", a.Location.URI)
				}
				// A backslash is a character of a Linux file name, not a
				// separator: it is encoded, never turned into '/'.
				if !strings.Contains(a.Location.URI, "%5C") || strings.Count(a.Location.URI, "/") != strings.Count(hostile, "/") {
					t.Errorf("SARIF artifact URI %q: the path's backslash is not %%5C", a.Location.URI)
				}
			}
		})
	}
}

// checkXML parses doc with encoding/xml (strict) to its end.
func checkXML(t *testing.T, what string, doc []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Errorf("%s: %v", what, err)
			return
		}
	}
}

// TestHostileFileNames runs analyze end to end on a listing whose file
// name and facts rationale are hostile: standard error shows no escape
// sequence, the Markdown command line stays in its block, the reports
// are written and parse.
func TestHostileFileNames(t *testing.T) {
	dir := t.TempDir()
	name := "k`` <img src=x onerror=alert(1)>\n```\n# h \x1b[2J\x07\u202e.ptx" // no slash
	src, err := os.ReadFile("../../examples/reduce/kernel.ptx")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Skipf("file system refuses the name: %v", err)
	}
	md, sarif, junit := filepath.Join(dir, "r.md"), filepath.Join(dir, "r.sarif"), filepath.Join(dir, "r.xml")
	var out, errb bytes.Buffer
	code := run([]string{"gpuwcet", "analyze", "--hw", "ecrts25-orin-200", "--block", "256", "--report", md, "--sarif", sarif, "--junit", junit, "--kernel", "blocksum|x\x1b\\[31m<b>`", path}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	checkVisible(t, "stdout", out.String())
	checkVisible(t, "stderr", errb.String())
	doc, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	checkVisible(t, "Markdown", string(doc))
	// The command line is one line in its block, the name in ANSI-C quoting.
	_, after, _ := strings.Cut(string(doc), "Command line as run:\n\n")
	block := strings.SplitN(after, "\n", 4)
	if len(block) < 4 || !strings.HasPrefix(block[0], "```") || block[2] != block[0][:strings.Index(block[0], "sh")] || !strings.Contains(block[1], `$'`) {
		t.Errorf("command line block:\n%s", strings.Join(block[:min(3, len(block))], "\n"))
	}
	if strings.Contains(string(doc), "\n# h") {
		t.Errorf("Markdown: the name starts a heading")
	}
	lines := strings.Split(string(doc), "\n")
	for i, kind := range mdShape(string(doc)) {
		line := lines[i]
		if kind == "code" || strings.HasPrefix(kind, "fence") {
			continue
		}
		if _, specials := inline(line); strings.Contains(specials, "<") {
			t.Errorf("Markdown line %d: HTML outside a code span: %s", i+1, line)
		}
	}
	s, _ := os.ReadFile(sarif)
	checkVisible(t, "SARIF", string(s))
	j, _ := os.ReadFile(junit)
	checkXML(t, "JUnit", j)
}
