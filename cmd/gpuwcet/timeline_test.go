package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound/report"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// TestTimelineGolden: the phase timelines of the analyze run in each
// archive's comment, one section per kernel (KERNEL.svg).
func TestTimelineGolden(t *testing.T) {
	txtar.Golden(t, "testdata/timeline/*.txtar", func(t *testing.T, a *txtar.Archive) map[string][]byte {
		dir := t.TempDir()
		args := append([]string{"gpuwcet"}, strings.Fields(strings.TrimSpace(string(a.Comment)))...)
		args = append(args[:2], append([]string{"--timeline", dir, "--format", "json"}, args[2:]...)...)
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		r, err := report.Parse(out.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]byte{}
		for _, k := range r.Kernels {
			data := readFile(t, filepath.Join(dir, k.Name+".timeline.svg"))
			checkSVG(t, data)
			got[k.Name+".svg"] = data
		}
		return got
	})
}

// TestTimelineEscaping: every string of real reports set to a hostile
// value gives SVG that parses, shows no hidden character and has no
// element but the timeline's.
func TestTimelineEscaping(t *testing.T) {
	for name, data := range reportCorpus(t) {
		r := withStrings(t, data, hostile)
		for k := range r.Kernels {
			var b bytes.Buffer
			if err := report.WriteTimelineSVG(&b, r, k); err != nil {
				t.Fatal(err)
			}
			checkVisible(t, name+" SVG", b.String())
			checkSVG(t, b.Bytes())
		}
	}
}

// checkSVG parses an SVG document strictly: only the elements the
// timelines use, a <title> in every rect and line.
func checkSVG(t *testing.T, data []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	allowed := map[string]bool{"svg": true, "g": true, "title": true, "rect": true, "line": true, "text": true}
	var stack []string
	titled := []bool{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if !allowed[e.Name.Local] {
				t.Errorf("SVG: unexpected element <%s>", e.Name.Local)
			}
			if e.Name.Local == "title" && len(titled) > 0 {
				titled[len(titled)-1] = true
			}
			stack = append(stack, e.Name.Local)
			titled = append(titled, false)
		case xml.EndElement:
			n := stack[len(stack)-1]
			if (n == "rect" || n == "line") && !titled[len(titled)-1] {
				t.Errorf("SVG: a <%s> without a <title>", n)
			}
			stack, titled = stack[:len(stack)-1], titled[:len(titled)-1]
		}
	}
	if len(stack) != 0 {
		t.Errorf("SVG: unclosed %v", stack)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
