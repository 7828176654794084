package main

import (
	"bytes"
	"fmt"
	"github.com/gpuwcet/gpuwcet/bound/report"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/prem"
)

// parseGanttRange reads --gantt-range FIRST:LAST.
func parseGanttRange(s string) ([2]int64, error) {
	var r [2]int64
	if _, err := fmt.Sscanf(s, "%d:%d", &r[0], &r[1]); err != nil || r[0] < 0 || r[1] < r[0] {
		return r, fmt.Errorf("%q: want FIRST:LAST, 0 <= FIRST <= LAST", s)
	}
	return r, nil
}

// premGraphicsFiles returns the files of the Gantt chart, the Chrome trace
// and the conflict graph: the flags, else the schedule's [output] table
// (relative to the schedule).
func premGraphicsFiles(c *cli.Context, s *prem.Schedule) (gantt, trace, conflicts string) {
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(filepath.Dir(s.File), p)
	}
	gantt, trace, conflicts = rel(s.Output.GanttSVG), rel(s.Output.TraceJSON), rel(s.Output.ConflictDOT)
	if f := c.String("gantt"); f != "" {
		gantt = f
	}
	if f := c.String("trace"); f != "" {
		trace = f
	}
	if f := c.String("conflicts"); f != "" {
		conflicts = f
	}
	return gantt, trace, conflicts
}

// premGraphics writes the Gantt chart, the Chrome trace and the conflict
// graph asked for by flags or by the schedule's [output] table, and
// returns a message per file it could not write.
func premGraphics(c *cli.Context, s *prem.Schedule, r *prem.Result, m *prem.Model) []string {
	gantt, trace, conflicts := premGraphicsFiles(c, s)
	opts := premGanttOptions(c, s)
	var errs []string
	write := func(what, path string, render func(*bytes.Buffer) error) {
		if path == "" {
			return
		}
		if m == nil && what != "--conflicts" {
			errs = append(errs, fmt.Sprintf("%s: no window table to draw (C2: a phase has no bound)", what))
			return
		}
		var b bytes.Buffer
		err := render(&b)
		if err == nil {
			err = writeFile(path, b.Bytes())
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", what, err))
		}
	}
	write("--gantt", gantt, func(b *bytes.Buffer) error { return prem.WriteGantt(b, m, r, opts) })
	write("--trace", trace, func(b *bytes.Buffer) error { return prem.WriteChromeTrace(b, m, r, opts) })
	write("--conflicts", conflicts, func(b *bytes.Buffer) error { return prem.WriteConflictGraph(b, r) })
	return errs
}

// premGanttOptions are the Gantt chart's options: the schedule's [output]
// gantt_hyperperiods, --gantt-range.
func premGanttOptions(c *cli.Context, s *prem.Schedule) prem.GanttOptions {
	opts := prem.GanttOptions{Periods: s.Output.GanttHyperperiods}
	if g := c.String("gantt-range"); g != "" {
		rng, _ := parseGanttRange(g) // checked by premRun
		opts.Tiles = rng
	}
	return opts
}

// premFigures returns the HTML report's drawing of a checked schedule: its
// Gantt chart (the one --gantt writes), or why there is none.
func premFigures(c *cli.Context, s *prem.Schedule, r *prem.Result, m *prem.Model) []report.Figure {
	f := report.Figure{Title: "Gantt chart of the schedule (the chart --gantt writes; hover a bar for its numbers)"}
	if m == nil {
		f.Note = "No Gantt chart: no window table to draw (C2: a phase has no bound)"
		return []report.Figure{f}
	}
	var b bytes.Buffer
	if err := prem.WriteGantt(&b, m, r, premGanttOptions(c, s)); err != nil {
		f.Note = "No Gantt chart: " + err.Error()
		return []report.Figure{f}
	}
	f.SVG = b.Bytes()
	return []report.Figure{f}
}
