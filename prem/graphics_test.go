package prem

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// evaluated decodes and checks a golden schedule, optionally renamed.
func evaluated(t *testing.T, name, rename string) (*Result, *Model) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(txtar.Parse(data).Input(t, "schedule.toml"))
	if rename != "" {
		src = strings.Replace(src, `name = "`+name+`"`, "name = "+rename, 1)
	}
	s, err := Decode("schedule.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r, m, err := Evaluate(s, Bounds(s, nil))
	if err != nil {
		t.Fatal(err)
	}
	return r, m
}

// hostile is a schedule name with markup, quotes and a control character.
const hostile = `"<script>alert(1)</script> & \" ' \u0001 x"`

// TestGanttSVG: the chart is well-formed XML whatever the names, every
// rectangle has a <title>, the memory overlaps of a failing schedule are
// hatched and labelled, and the header gives the verdict.
func TestGanttSVG(t *testing.T) {
	for _, tc := range []struct {
		name     string
		overlaps bool
		opts     GanttOptions
	}{
		{"kw-whole-1400", true, GanttOptions{Periods: 2}},
		{"kw-phase-3000-1000", false, GanttOptions{Periods: 2}},
		{"bw-whole-2500", true, GanttOptions{Tiles: [2]int64{0, 3}}},
		{"tile0", false, GanttOptions{Periods: 1}},
	} {
		r, m := evaluated(t, tc.name, hostile)
		var b bytes.Buffer
		if err := WriteGantt(&b, m, r, tc.opts); err != nil {
			t.Fatal(err)
		}
		svg := b.String()
		if strings.Contains(svg, "<script>") || strings.Contains(svg, "\x01") {
			t.Errorf("%s: the name is not escaped", tc.name)
		}
		dec := xml.NewDecoder(strings.NewReader(svg))
		dec.Strict = true
		var stack []string
		rects, titled, hatched := 0, 0, 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: not well-formed XML: %v", tc.name, err)
			}
			switch x := tok.(type) {
			case xml.StartElement:
				if x.Name.Local == "title" && len(stack) > 0 && stack[len(stack)-1] == "rect" {
					titled++
				}
				if x.Name.Local == "rect" && len(stack) > 0 && stack[len(stack)-1] != "pattern" {
					rects++
					for _, a := range x.Attr {
						if a.Name.Local == "fill" && a.Value == "url(#hatch)" {
							hatched++
						}
					}
				}
				stack = append(stack, x.Name.Local)
			case xml.EndElement:
				stack = stack[:len(stack)-1]
			}
		}
		if rects == 0 || titled != rects {
			t.Errorf("%s: %d rectangles, %d with a title", tc.name, rects, titled)
		}
		if got := hatched > 1; got != tc.overlaps { // the legend has one
			t.Errorf("%s: %d hatched overlaps, want overlaps %v", tc.name, hatched-1, tc.overlaps)
		}
		if !strings.Contains(svg, strings.ToUpper(r.Verdict)+"</tspan>") {
			t.Errorf("%s: no verdict in the header", tc.name)
		}
	}
}

// TestChromeTrace: the trace is JSON with complete events on named
// processes and threads, overlap events when memory windows overlap, and
// the names escaped by the encoder.
func TestChromeTrace(t *testing.T) {
	for _, tc := range []struct {
		name     string
		overlaps bool
	}{{"kw-whole-1400", true}, {"kw-phase-3000-1000", false}} {
		r, m := evaluated(t, tc.name, hostile)
		var b bytes.Buffer
		if err := WriteChromeTrace(&b, m, r, GanttOptions{Periods: 2}); err != nil {
			t.Fatal(err)
		}
		var tf struct {
			TraceEvents []struct {
				Name string   `json:"name"`
				Ph   string   `json:"ph"`
				TS   float64  `json:"ts"`
				Dur  *float64 `json:"dur"`
				PID  int      `json:"pid"`
				TID  int      `json:"tid"`
			} `json:"traceEvents"`
		}
		if err := json.Unmarshal(b.Bytes(), &tf); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var x, meta, over int
		for _, e := range tf.TraceEvents {
			switch e.Ph {
			case "X":
				x++
				if e.Dur == nil || *e.Dur < 0 || e.TS < 0 {
					t.Errorf("%s: event %+v", tc.name, e)
				}
				if strings.HasPrefix(e.Name, "overlap") {
					over++
				}
			case "M":
				meta++
			default:
				t.Errorf("%s: event phase %q", tc.name, e.Ph)
			}
		}
		if x == 0 || meta != len(m.Parts)+2 || (over > 0) != tc.overlaps {
			t.Errorf("%s: %d complete events, %d metadata, %d overlaps", tc.name, x, meta, over)
		}
	}
}

// TestConflictGraph: one node per participant, one edge per overlapping
// pair, labels quoted.
func TestConflictGraph(t *testing.T) {
	r, _ := evaluated(t, "kw-whole-1400", hostile)
	var b bytes.Buffer
	if err := WriteConflictGraph(&b, r); err != nil {
		t.Fatal(err)
	}
	d := b.String()
	if n := strings.Count(d, "--"); n != len(r.Overlaps.Pairs) || n != 6 {
		t.Errorf("%d edges, %d overlapping pairs (want 6):\n%s", n, len(r.Overlaps.Pairs), d)
	}
	if strings.Contains(d, "\x01") || !strings.Contains(d, `label="<script>alert(1)</script> & \" '`) {
		t.Errorf("name not quoted:\n%s", d)
	}
	r, _ = evaluated(t, "kw-phase-3000-1000", "")
	b.Reset()
	if err := WriteConflictGraph(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "--") {
		t.Errorf("edges in the graph of a passing schedule:\n%s", b.String())
	}
}
