package prem

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/input"
)

// The SVG Gantt chart of a schedule (prem-schedules.md §7), hand-written:
// time runs right in µs; a top row shows the memory channel (the union of
// every memory window, overlaps hatched red with their length); then one
// row per participant, grouped by kernel. A phase is a solid bar at its
// bound (latest case), with a lighter prefix for the release jitter; its
// slot is a dashed outline (the gap is the slack); a tick marks each
// trigger; thin lines mark the periods; the warm-up [0, WU) is shaded.
// Every rectangle has a <title>. The chart shows the warm-up, the first
// periods and the last one; GanttOptions.Tiles overrides.

// GanttOptions select what the chart shows.
type GanttOptions struct {
	// Periods after the warm-up drawn before the break (and the last
	// period after it).
	Periods int
	// Tiles, when Tiles[1] > 0, draws the absolute tiles Tiles[0] to
	// Tiles[1] instead.
	Tiles [2]int64
}

// Phase colours of tt-gpu's plots: prefetch blue, compute orange,
// write-back green; lighter for the jitter prefix.
var (
	phaseColor = [numPhases]string{"#1f77b4", "#ff7f0e", "#2ca02c"}
	phaseLight = [numPhases]string{"#aec7e8", "#ffbb78", "#98df8a"}
)

const (
	ganttLeft   = 170 // label column
	ganttWidth  = 1100
	ganttRowH   = 22
	ganttTop    = 92
	ganttBreakW = 30
)

// segment is a drawn time range [t0, t1) starting at pixel x0.
type segment struct {
	t0, t1 int64
	x0     float64
	scale  float64 // px per ns
}

// WriteGantt writes the SVG Gantt chart of a checked schedule.
func WriteGantt(w io.Writer, m *Model, r *Result, opts GanttOptions) error {
	g := &gantt{m: m, r: r}
	for _, p := range m.Parts {
		g.cs = append(g.cs, newChain(m, p))
	}
	g.plan(opts)
	g.draw()
	_, err := io.WriteString(w, g.b.String())
	return err
}

type gantt struct {
	m    *Model
	r    *Result
	cs   []*chain
	segs []segment
	b    strings.Builder
	// tiles drawn per segment: [first, last] synchronised tile indexes
	// (m, may be negative for the warm-up), per participant.
	ranges [][2]int64
}

// tiles calls fn for the synchronised tiles of range rg that chain c has:
// the tile, its period start and its phases.
func (g *gantt) tiles(c *chain, rg [2]int64, fn func(t, base int64, sp [numPhases]span)) {
	for t := max(rg[0], 0); t <= rg[1] && t < c.M; t++ {
		fn(t, g.m.WU+t*g.m.T, c.at(t))
	}
}

func (g *gantt) maxM() int64 {
	var n int64
	for _, c := range g.cs {
		n = max(n, c.M)
	}
	return n
}

// plan chooses the time ranges.
func (g *gantt) plan(opts GanttOptions) {
	m := g.m
	K := int64(m.K)
	last := g.maxM()
	end := int64(0)
	for _, c := range g.cs {
		end = max(end, c.end())
	}
	var spans [][2]int64 // synchronised tile ranges [a, b]
	switch {
	case opts.Tiles[1] > 0:
		a, b := opts.Tiles[0]-K, min(opts.Tiles[1]-K, last-1)
		spans = [][2]int64{{a, max(a, b)}}
	default:
		h := int64(max(opts.Periods, 1))
		if h+2 >= last {
			spans = [][2]int64{{-K, last - 1}}
		} else {
			spans = [][2]int64{{-K, h - 1}, {last - 1, last - 1}}
		}
	}
	g.ranges = spans
	// Time ranges: from the first tile's period start (0 for the warm-up)
	// to the latest end of the last tile drawn.
	var ts [][2]int64
	for _, s := range spans {
		t0 := m.WU + s[0]*m.T
		if s[0] < 0 {
			t0 = 0
		}
		t1 := m.WU + (s[1]+1)*m.T
		for _, c := range g.cs {
			if s[1] >= 0 && s[1] < c.M {
				sp := c.at(s[1])
				t1 = max(t1, sp[Writeback].eL)
			}
		}
		if s[1] >= last-1 {
			t1 = max(t1, end)
		}
		ts = append(ts, [2]int64{t0, t1})
	}
	var total int64
	for _, t := range ts {
		total += t[1] - t[0]
	}
	avail := float64(ganttWidth - ganttBreakW*(len(ts)-1))
	scale := avail / float64(max(total, 1))
	x := float64(ganttLeft)
	for _, t := range ts {
		g.segs = append(g.segs, segment{t0: t[0], t1: t[1], x0: x, scale: scale})
		x += float64(t[1]-t[0])*scale + ganttBreakW
	}
}

// x maps a time to a pixel in segment s (clamped to it).
func (s segment) x(t int64) float64 {
	t = min(max(t, s.t0), s.t1)
	return s.x0 + float64(t-s.t0)*s.scale
}

func (s segment) xEnd() float64 { return s.x(s.t1) }

// esc escapes text for SVG (XML 1.0): markup characters as entities,
// hidden characters (controls, bidirectional overrides; which XML cannot
// hold or which would reorder the text) and invalid UTF-8 written visibly
// (input.OneLine: \u202e, \x1b), what XML cannot hold otherwise as
// U+FFFD.
func esc(s string) string {
	s = strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f || r == 0xfffe || r == 0xffff {
			return '\ufffd'
		}
		return r
	}, input.OneLine(s))
	return html.EscapeString(s)
}

func us(ns int64) string { return fmt.Sprintf("%.3f µs", float64(ns)/1000) }

func (g *gantt) p(format string, args ...any) { fmt.Fprintf(&g.b, format, args...) }

// rect writes a rectangle with a title, clipped to segment s; nothing when
// it is outside.
func (g *gantt) rect(s segment, t0, t1 int64, y, h float64, style, title string) {
	if t1 < s.t0 || t0 > s.t1 || t1 < t0 {
		return
	}
	x0, x1 := s.x(t0), s.x(t1)
	g.p(`<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" %s><title>%s</title></rect>`+"\n", x0, y, max(x1-x0, 0.6), h, style, esc(title))
}

func (g *gantt) draw() {
	m, r := g.m, g.r
	// Rows: memory channel, then participants grouped by kernel.
	type row struct {
		part  int
		group string
	}
	var rows []row
	order := make([]int, len(m.Parts))
	for i := range order {
		order[i] = i
	}
	kernelOf := func(i int) string {
		if k := m.Parts[i].Kernel; k != nil {
			return k.ID
		}
		return ""
	}
	sort.SliceStable(order, func(a, b int) bool { return kernelOf(order[a]) < kernelOf(order[b]) })
	for _, i := range order {
		rows = append(rows, row{i, kernelOf(i)})
	}
	height := ganttTop + ganttRowH*(len(rows)+1) + 40
	width := ganttLeft + ganttWidth + 30
	g.p(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	g.p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	g.p(`<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fdd"/><line x1="0" y1="0" x2="0" y2="6" stroke="#d62728" stroke-width="3"/></pattern></defs>` + "\n")
	g.p(`<rect x="0" y="0" width="%d" height="%d" fill="white"><title>PREM schedule</title></rect>`+"\n", width, height)
	// Header: name, verdict, the key numbers, legend.
	verdict := strings.ToUpper(r.Verdict)
	vcol := "#2ca02c"
	if r.Verdict != "pass" {
		vcol = "#d62728"
	}
	name := r.Name
	if name == "" {
		name = r.Schedule
	}
	g.p(`<text x="10" y="20" font-size="15" font-weight="bold">%s: <tspan fill="%s">%s</tspan></text>`+"\n", esc(name), vcol, verdict)
	var failed []string
	for _, c := range r.Checks {
		if c.Status == StatusFail {
			failed = append(failed, c.ID+" "+c.Name)
		}
	}
	sub := fmt.Sprintf("%s mode, %s granularity, %d participants, T_hyper %s, WU %s, J %d ns, makespan %s", r.Mode, r.Granularity, r.N, us(r.HyperperiodNS), us(r.WarmupNS), r.JitterNS, us(r.Makespan.NS))
	if len(failed) > 0 {
		sub += "; failed: " + strings.Join(failed, ", ")
	}
	g.p(`<text x="10" y="38">%s</text>`+"\n", esc(sub))
	lx := 10.0
	for ph := Phase(0); ph < numPhases; ph++ {
		g.p(`<rect x="%.0f" y="48" width="14" height="10" fill="%s"><title>%s: bound (latest case)</title></rect><text x="%.0f" y="57">%s</text>`+"\n", lx, phaseColor[ph], ph, lx+18, ph)
		lx += 90
	}
	g.p(`<rect x="%.0f" y="48" width="14" height="10" fill="%s"><title>release jitter guard band</title></rect><text x="%.0f" y="57">jitter</text>`+"\n", lx, phaseLight[Prefetch], lx+18)
	lx += 70
	g.p(`<rect x="%.0f" y="48" width="14" height="10" fill="none" stroke="#444" stroke-dasharray="3,2"><title>slot: the bar must end inside it; the gap is the slack</title></rect><text x="%.0f" y="57">slot</text>`+"\n", lx, lx+18)
	lx += 60
	g.p(`<rect x="%.0f" y="48" width="14" height="10" fill="url(#hatch)"><title>overlap of memory windows of different participants (C5)</title></rect><text x="%.0f" y="57">memory overlap</text>`+"\n", lx, lx+18)
	lx += 120
	g.p(`<rect x="%.0f" y="48" width="14" height="10" fill="#e8e8e8"><title>warm-up: tiles before WU, unsynchronised (outside PREM)</title></rect><text x="%.0f" y="57">warm-up</text>`+"\n", lx, lx+18)

	y0 := float64(ganttTop)
	bottom := y0 + float64(ganttRowH*(len(rows)+1))
	// Time axis, warm-up shading, period lines, breaks.
	lastLabel := -1e9 // x of the last axis label: no two closer than 50 px
	for si, s := range g.segs {
		if s.t0 < m.WU {
			g.rect(s, s.t0, min(m.WU, s.t1), y0-4, bottom-y0+4, `fill="#e8e8e8"`, fmt.Sprintf("warm-up [0, %s): %d tile(s) per participant, unsynchronised", us(m.WU), m.K))
		}
		first := (s.t0 - m.WU + m.T - 1) / m.T
		if s.t0 < m.WU {
			first = 0
		}
		step := int64(1)
		if n := (s.t1 - s.t0) / m.T; n > 40 {
			step = n / 20
		}
		for k := first; m.WU+k*m.T <= s.t1; k += step {
			t := m.WU + k*m.T
			if t < s.t0 {
				continue
			}
			x := s.x(t)
			g.p(`<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#bbb" stroke-width="0.7"/>`+"\n", x, y0-4, x, bottom)
			if x-lastLabel >= 50 {
				g.p(`<text x="%.2f" y="%.2f" font-size="9" fill="#666" text-anchor="middle">%s</text>`+"\n", x, bottom+12, esc(fmt.Sprintf("%.1f", float64(t)/1000)))
				lastLabel = x
			}
		}
		if si > 0 {
			bx := s.x0 - ganttBreakW/2
			g.p(`<text x="%.1f" y="%.1f" font-size="16" text-anchor="middle" fill="#666">…</text>`+"\n", bx, (y0+bottom)/2)
		}
	}
	g.p(`<text x="%d" y="%.1f" font-size="9" fill="#666">time (µs from the start)</text>`+"\n", ganttLeft, bottom+26)
	// Row labels.
	g.p(`<text x="10" y="%.1f" font-weight="bold">memory channel</text>`+"\n", y0+15)
	for ri, rw := range rows {
		y := y0 + float64(ganttRowH*(ri+1))
		label := m.Parts[rw.part].ID
		g.p(`<text x="10" y="%.1f">%s</text>`+"\n", y+15, esc(label))
		g.p(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>`+"\n", ganttLeft, y, ganttLeft+ganttWidth, y)
	}
	// Participants' tiles.
	var mem []memWindow
	for ri, rw := range rows {
		i := rw.part
		p := m.Parts[i]
		c := g.cs[i]
		y := y0 + float64(ganttRowH*(ri+1)) + 3
		h := float64(ganttRowH - 8)
		for si, rg := range g.ranges {
			s := g.segs[si]
			if rg[0] < 0 {
				// The warm-up tiles, neutral.
				end := m.WU
				title := fmt.Sprintf("%s warm-up tiles 0-%d: no warm-up bound (assumed to end by WU = %s; C7)", p.ID, m.K-1, us(m.WU))
				style := `fill="#f4f4f4" stroke="#999" stroke-dasharray="2,2"`
				if p.HasWarmup {
					end = p.WarmupL
					title = fmt.Sprintf("%s warm-up tiles 0-%d: [0, %s] (assumed bound; C7)", p.ID, m.K-1, us(p.WarmupL))
					style = `fill="#d9d9d9" stroke="#777"`
				}
				g.rect(s, 0, end, y, h, style, title)
			}
			g.tiles(c, rg, func(t, base int64, sp [numPhases]span) {
				for _, ph := range phaseOrder {
					ps := p.Ph[ph]
					x := sp[ph]
					tile := t + int64(m.K)
					if ps.Slot >= 0 {
						slotT0, slotT1 := base+ps.SlotStart, base+ps.Slot
						g.rect(s, slotT0, slotT1, y-1, h+2, fmt.Sprintf(`fill="none" stroke="%s" stroke-dasharray="4,2"`, phaseColor[ph]),
							fmt.Sprintf("%s tile %d %s slot [%s, %s): the %s must end inside it; slack %s", p.ID, tile, ps.SlotName, us(slotT0), us(slotT1), ph, us(slotT1-x.eL)))
					}
					if x.trig >= 0 {
						j := x.sL - max(x.trig, x.sL-ps.J)
						g.rect(s, x.sL-j, x.sL, y+2, h-4, fmt.Sprintf(`fill="%s"`, phaseLight[ph]),
							fmt.Sprintf("%s tile %d %s: release jitter guard band %d ns after %s", p.ID, tile, ph, j, us(x.sL-j)))
						if x.trig >= s.t0 && x.trig <= s.t1 {
							tx := s.x(x.trig)
							g.p(`<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#000" stroke-width="1"><title>%s</title></line>`+"\n", tx, y-3, tx, y+h+1,
								esc(fmt.Sprintf("%s tile %d %s trigger at %s", p.ID, tile, ph, us(x.trig))))
						}
					}
					title := fmt.Sprintf("%s tile %d %s: start %s, end %s (latest), bound %d ns (%s); ends in [%s, %s] (lower bound %d ns)", p.ID, tile, ph, us(x.sL), us(x.eL), ps.WCET, provenance(ps.Bound), us(x.eE), us(x.eL), ps.BCET)
					if ps.Slot >= 0 {
						title += fmt.Sprintf(", slot [%s, %s), slack %d ns (best case %d ns)", us(base+ps.SlotStart), us(base+ps.Slot), base+ps.Slot-x.eL, base+ps.Slot-x.eE)
					}
					g.rect(s, x.sL, x.eL, y+2, h-4, fmt.Sprintf(`fill="%s"`, phaseColor[ph]), title)
					if x.eE > x.sL && x.eE < x.eL && x.eE >= s.t0 && x.eE <= s.t1 {
						// The earliest end: the phase ends in [earliest, latest].
						ex := s.x(x.eE)
						g.p(`<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#fff" stroke-width="1.5" stroke-dasharray="2,1"><title>%s</title></line>`+"\n", ex, y+2, ex, y+h-2,
							esc(fmt.Sprintf("%s tile %d %s: earliest end %s (every phase at its lower bound, no jitter)", p.ID, tile, ph, us(x.eE))))
					}
					if ph.Memory() {
						mem = append(mem, memWindow{part: i, tile: t, phase: ph, s: x.sE, e: x.eL})
					}
				}
			})
		}
	}
	// The memory channel: the union of the windows, overlaps hatched.
	sort.Slice(mem, func(a, b int) bool {
		if mem[a].s != mem[b].s {
			return mem[a].s < mem[b].s
		}
		return mem[a].part < mem[b].part
	})
	y := y0 + 3
	h := float64(ganttRowH - 8)
	lastOver := -1e9
	for _, s := range g.segs {
		busy, over := channel(mem, s.t0, s.t1)
		for _, b := range busy {
			g.rect(s, b[0], b[1], y+2, h-4, `fill="#9aa9c4"`, fmt.Sprintf("memory busy [%s, %s)", us(b[0]), us(b[1])))
		}
		for _, o := range over {
			var who []string
			for _, pr := range o.pairs {
				who = append(who, fmt.Sprintf("%s tile %d %s with %s tile %d %s", m.Parts[pr[0].part].ID, pr[0].tile+int64(m.K), pr[0].phase, m.Parts[pr[1].part].ID, pr[1].tile+int64(m.K), pr[1].phase))
			}
			if len(who) > 6 {
				who = append(who[:6], fmt.Sprintf("... (%d pairs)", len(o.pairs)))
			}
			g.rect(s, o.t0, o.t1, y, h, `fill="url(#hatch)" stroke="#d62728" stroke-width="0.6"`,
				fmt.Sprintf("memory windows overlap for %d ns, [%s, %s): %s", o.t1-o.t0, us(o.t0), us(o.t1), strings.Join(who, "; ")))
			// A label over each overlap, unless it would cover the
			// previous one.
			if x := (s.x(o.t0) + s.x(o.t1)) / 2; x-lastOver >= 45 {
				g.p(`<text x="%.2f" y="%.2f" font-size="9" fill="#a00" text-anchor="middle">%d ns</text>`+"\n", x, y-1, o.t1-o.t0)
				lastOver = x
			}
		}
	}
	g.p("</svg>\n")
}

// overlapSpan is a stretch of time where the memory windows of two or more
// participants are active, with the pairs of windows that meet in it.
type overlapSpan struct {
	t0, t1 int64
	pairs  [][2]memWindow
}

// channel returns the memory channel over [t0, t1): the union of the
// windows (busy) and the stretches where windows of different participants
// are active at once, merged when they touch.
func channel(mem []memWindow, t0, t1 int64) (busy [][2]int64, over []overlapSpan) {
	type event struct {
		t    int64
		open bool
		w    memWindow
	}
	var evs []event
	for _, w := range mem {
		if w.e <= t0 || w.s >= t1 || w.e <= w.s {
			continue
		}
		evs = append(evs, event{w.s, true, w}, event{w.e, false, w})
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return !evs[a].open && evs[b].open // close before open: half-open windows
	})
	active := map[int]int{} // participant -> open windows
	var open []memWindow
	for i, e := range evs {
		if e.open {
			for _, o := range open {
				if o.part != e.w.part {
					// The pair meets from e.t: extend or start a span.
					if n := len(over); n > 0 && over[n-1].t1 >= e.t {
						over[n-1].pairs = append(over[n-1].pairs, [2]memWindow{o, e.w})
					} else {
						over = append(over, overlapSpan{t0: e.t, t1: e.t, pairs: [][2]memWindow{{o, e.w}}})
					}
				}
			}
			open = append(open, e.w)
			active[e.w.part]++
		} else {
			for k, o := range open {
				if o == e.w {
					open = append(open[:k], open[k+1:]...)
					break
				}
			}
			if active[e.w.part]--; active[e.w.part] == 0 {
				delete(active, e.w.part)
			}
		}
		// Busy: the union; overlap: two or more participants active.
		if len(open) > 0 {
			if n := len(busy); n > 0 && busy[n-1][1] >= e.t {
				busy[n-1][1] = max(busy[n-1][1], maxEnd(open))
			} else {
				busy = append(busy, [2]int64{e.t, maxEnd(open)})
			}
		}
		if len(active) >= 2 && i+1 < len(evs) {
			if n := len(over); n > 0 && over[n-1].t1 >= e.t {
				over[n-1].t1 = max(over[n-1].t1, evs[i+1].t)
			}
		}
	}
	return busy, over
}

func maxEnd(ws []memWindow) int64 {
	var e int64
	for _, w := range ws {
		e = max(e, w.e)
	}
	return e
}
