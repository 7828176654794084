package prem

import (
	"encoding/json"
	"fmt"
	"io"
)

// The Chrome trace of a schedule (the Trace Event Format read by Perfetto
// and chrome://tracing): one complete event ("ph": "X") per phase of each
// drawn tile, at its bound (latest case), on a process per kernel and a
// thread per participant; the overlaps of memory windows on a process of
// their own; names in metadata events. The tiles drawn are those of the
// Gantt chart. Go has matching types in cmd/internal/traceviewer, which is
// not importable: these are our own.

type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	TS   float64        `json:"ts"`            // µs
	Dur  *float64       `json:"dur,omitempty"` // µs
	PID  int            `json:"pid"`
	TID  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

type traceFile struct {
	TraceEvents     []traceEvent `json:"traceEvents"`
	DisplayTimeUnit string       `json:"displayTimeUnit"`
}

// WriteChromeTrace writes the Chrome trace of a checked schedule.
func WriteChromeTrace(w io.Writer, m *Model, r *Result, opts GanttOptions) error {
	g := &gantt{m: m, r: r}
	for _, p := range m.Parts {
		g.cs = append(g.cs, newChain(m, p))
	}
	g.plan(opts)
	tf := traceFile{TraceEvents: []traceEvent{}, DisplayTimeUnit: "ns"}
	usOf := func(ns int64) float64 { return float64(ns) / 1000 }
	ev := func(e traceEvent) { tf.TraceEvents = append(tf.TraceEvents, e) }
	pids := map[string]int{}
	kernelOf := func(p *Part) string {
		if p.Kernel != nil {
			return p.Kernel.ID
		}
		return "participants"
	}
	for i, p := range m.Parts {
		k := kernelOf(p)
		if _, ok := pids[k]; !ok {
			pids[k] = len(pids) + 1
			ev(traceEvent{Name: "process_name", Ph: "M", PID: pids[k], Args: map[string]any{"name": "kernel " + k}})
		}
		ev(traceEvent{Name: "thread_name", Ph: "M", PID: pids[k], TID: i + 1, Args: map[string]any{"name": p.ID}})
	}
	overPID := len(pids) + 1
	ev(traceEvent{Name: "process_name", Ph: "M", PID: overPID, Args: map[string]any{"name": "memory overlaps (C5)"}})
	var mem []memWindow
	for i, p := range m.Parts {
		c := g.cs[i]
		pid := pids[kernelOf(p)]
		for _, rg := range g.ranges {
			if rg[0] < 0 {
				end := m.WU
				if p.HasWarmup {
					end = p.WarmupL
				}
				d := usOf(end)
				ev(traceEvent{Name: "warm-up", Cat: "warmup", Ph: "X", TS: 0, Dur: &d, PID: pid, TID: i + 1,
					Args: map[string]any{"participant": p.ID, "tiles": m.K, "bound_given": p.HasWarmup}})
			}
			g.tiles(c, rg, func(t, base int64, sp [numPhases]span) {
				for _, ph := range phaseOrder {
					ps := p.Ph[ph]
					x := sp[ph]
					d := usOf(x.eL - x.sL)
					args := map[string]any{"participant": p.ID, "tile": t + int64(m.K), "bound_ns": ps.WCET, "provenance": provenance(ps.Bound),
						"start_ns": x.sL, "end_ns": x.eL}
					if x.trig >= 0 {
						args["trigger_ns"] = x.trig
					}
					if ps.Slot >= 0 {
						args["slot_end_ns"] = base + ps.Slot
						args["slack_ns"] = base + ps.Slot - x.eL
					}
					ev(traceEvent{Name: ph.String(), Cat: ph.String(), Ph: "X", TS: usOf(x.sL), Dur: &d, PID: pid, TID: i + 1, Args: args})
					if ph.Memory() {
						mem = append(mem, memWindow{part: i, tile: t, phase: ph, s: x.sE, e: x.eL})
					}
				}
			})
		}
	}
	// Overlaps among the drawn windows.
	for a := range mem {
		for b := a + 1; b < len(mem); b++ {
			x, y := mem[a], mem[b]
			if x.part == y.part {
				continue
			}
			s, e := max(x.s, y.s), min(x.e, y.e)
			if e <= s {
				continue
			}
			d := usOf(e - s)
			ev(traceEvent{Name: fmt.Sprintf("overlap %d ns", e-s), Cat: "overlap", Ph: "X", TS: usOf(s), Dur: &d, PID: overPID, TID: 1,
				Args: map[string]any{"a": fmt.Sprintf("%s tile %d %s", m.Parts[x.part].ID, x.tile+int64(m.K), x.phase),
					"b": fmt.Sprintf("%s tile %d %s", m.Parts[y.part].ID, y.tile+int64(m.K), y.phase), "overlap_ns": e - s}})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(tf)
}
