package prem

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteText writes the text report of a result (prem-schedules.md §7):
// header, check table, counterexamples, slack table, utilisation and
// sensitivity, makespan.
func WriteText(w io.Writer, r *Result) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	name := r.Name
	if name == "" {
		name = r.Schedule
	}
	p("schedule %s  (%s)\n", quoteIfNeeded(name), r.Schedule)
	p("mode %s  granularity %s  N %d  T_hyper %s ns", r.Mode, r.Granularity, r.N, group(r.HyperperiodNS))
	if r.WBBaseOffsetNS != nil {
		p("  T_WB_off %s ns", group(*r.WBBaseOffsetNS))
	}
	p("\nWU %s ns  K %d  clock ", group(r.WarmupNS), r.WarmupTiles)
	if r.ClockHz > 0 {
		p("%s Hz", group(r.ClockHz))
	} else {
		p("not given")
	}
	p("  r %s ns  J %s ns\n", group(r.ResolutionNS), group(r.JitterNS))
	p("verdict %s\n", strings.ToUpper(r.Verdict))

	p("\nchecks:\n")
	for _, c := range r.Checks {
		p("  %-4s %-4s %s: %s\n", c.ID, c.Status, c.Name, c.Reason)
	}
	var ces []Check
	for _, c := range r.Checks {
		if c.Counterexample != nil {
			ces = append(ces, c)
		}
	}
	if len(ces) > 0 {
		p("\ncounterexamples (first violation):\n")
		for _, c := range ces {
			p("  %s: %s\n", c.ID, c.Counterexample.Text)
		}
	}
	if len(r.Participants) > 0 {
		p("\nparticipants (bounds in ns; * assumed, ^ one block for a participant of several):\n")
		p("  %-14s %6s %7s %12s %12s %12s  %s\n", "participant", "blocks", "tiles", "PF", "C", "WB", "end of last tile")
		for _, q := range r.Participants {
			cell := func(i int) string {
				pb := q.Bounds[i]
				s := group(pb.WCETNS)
				if pb.Provenance == "assumed" {
					s += "*"
				}
				if q.Blocks > 1 && pb.Scope == "block" && i != 1 {
					s += "^"
				}
				return s
			}
			drift := ""
			if q.Drift {
				drift = "  (drifts: no periodic regime)"
			}
			p("  %-14s %6d %7d %12s %12s %12s  %s%s\n", quoteIfNeeded(q.ID), q.Blocks, q.Tiles, cell(0), cell(1), cell(2), group(q.EndNS), drift)
		}
	}
	if len(r.Slack) > 0 {
		p("\nslack per slot (C4; smallest over the tiles; best: on that tile with every phase at its lower bound, no jitter):\n")
		p("  %-14s %-18s %10s %10s %8s %8s %10s %10s\n", "participant", "slot", "slot ns", "bound ns", "", "J ns", "slack ns", "best ns")
		for _, s := range r.Slack {
			warn := ""
			if s.WarnOnly {
				warn = "  (warning only)"
			}
			p("  %-14s %-18s %10s %10s %8s %8s %10s %10s  tile %d%s\n", quoteIfNeeded(s.Participant), s.Slot, group(s.SlotNS), group(s.BoundNS), s.Provenance, group(s.JitterNS), group(s.MinSlackNS), group(s.BestSlackNS), s.AtTile, warn)
		}
	}
	if len(r.MemorySlack) > 0 {
		p("\nmemory slack (C5; gap to the next memory window of another participant, smallest over the tiles):\n")
		for _, s := range r.MemorySlack {
			p("  %-14s %-10s %10s ns  tile %d, then %s\n", quoteIfNeeded(s.Participant), s.Phase, group(s.SlackNS), s.AtTile, quoteIfNeeded(s.Next))
		}
	}
	if len(r.Overlaps.Pairs) > 0 {
		p("\noverlapping pairs (C5):\n")
		pairs := r.Overlaps.Pairs
		for i, op := range pairs {
			if i == 12 {
				p("  ... %d more pairs (JSON has them all)\n", len(pairs)-12)
				break
			}
			p("  %s - %s: %s window pairs, %s ns in all, at most %s ns\n", quoteIfNeeded(op.A), quoteIfNeeded(op.B), group(op.Count), group(op.TotalNS), group(op.MaxNS))
		}
	}
	u := r.Utilisation
	if u.Participants != nil {
		p("\nutilisation (C10): memory %s %%, idle memory %s %%", pct(u.MemoryPct), pct(u.IdleMemoryPct))
		var ids []string
		for id := range u.Participants {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if len(ids) <= 8 {
			p("; per participant:")
			for _, id := range ids {
				p(" %s %s %%", quoteIfNeeded(id), pct(u.Participants[id]))
			}
		}
		p("\n")
	}
	if r.Sensitivity.Binding != "" {
		p("sensitivity (C11): alpha = %.3f (%s)\n", r.Sensitivity.Alpha, r.Sensitivity.Binding)
	}
	if r.Makespan.Formula != "" {
		p("makespan (C8): %s", r.Makespan.Formula)
		if r.Makespan.DeadlineNS != nil {
			p("; deadline %s ns, slack %s ns", group(*r.Makespan.DeadlineNS), group(*r.Makespan.SlackNS))
		}
		if r.Makespan.Unsound {
			p("; unsound: the bounds assume isolation and C5 fails")
		}
		p("\n")
	}
	if len(r.Releases) > 0 {
		p("\nrelease points:\n")
		for _, rp := range r.Releases {
			p("  %s %s: %s; released by %s\n", rp.Kernel, rp.Pos, rp.Trigger, rp.Barrier)
		}
	}
	if len(r.Regions) > 0 {
		p("\nphase regions (static analysis, one tile of one block in isolation):\n")
		for _, rg := range r.Regions {
			p("  %s %-9s %s -> %s: %s cycles = %s ns, lower %s cycles = %s ns (%s)\n", rg.Kernel, rg.Phase, rg.From, strings.Join(rg.To, " or "), group(rg.Cycles), group(rg.NS), group(rg.LowerCycles), group(rg.LowerNS), rg.How)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// quoteIfNeeded quotes a name from the input that holds characters a
// terminal or a log parser could take for something else.
func quoteIfNeeded(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' || r > 0x7e {
			return fmt.Sprintf("%q", s)
		}
	}
	return s
}
