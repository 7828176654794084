package sim

import (
	"fmt"
	"sort"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Verify checks a recorded schedule (r.Timeline) against the timing model,
// independently of the simulation loop: it re-reads the instructions and
// the hardware description, and checks program order, one issue per cycle,
// the scoreboard (RAW and WAW), the unit FIFOs and result times, the
// barrier semantics, work conservation (no cycle without an issue while a
// warp could issue), the makespan and, for LRR, GTO and priority policies,
// that the warp issued each cycle is the one the policy picks. pol may be
// nil to skip the policy check.
func (p *Program) Verify(r *Result, pol *Policy) error {
	if r.Timeline == nil {
		return fmt.Errorf("verify: the result has no timeline")
	}
	nw := len(p.warps)
	if len(r.Timeline) != nw {
		return fmt.Errorf("verify: timeline has %d warps, block has %d", len(r.Timeline), nw)
	}
	hw := p.HW
	type ev struct {
		w, k    int
		in      *isa.Instr
		e       Event
		bar     int // index of the barrier this event is (-1) or follows
		isBar   bool
		drain   bool  // a barrier that issues nothing
		earlist int64 // earliest cycle the instruction could issue
	}
	evs := make([][]ev, nw)
	var issued []ev
	nb := -1
	for w := 0; w < nw; w++ {
		path := p.warps[w].path
		tl := r.Timeline[w]
		k := 0
		bars := 0
		for i, in := range path {
			if (in.Kind == isa.KindReturn || in.Kind == isa.KindExit) && !hw.Pipeline.RetIssues {
				continue
			}
			if k >= len(tl) {
				return fmt.Errorf("verify: warp %d: instruction %d missing from the timeline", w, i)
			}
			e := tl[k]
			if e.Index != i {
				return fmt.Errorf("verify: warp %d: timeline entry %d is instruction %d, want %d", w, k, e.Index, i)
			}
			isBar := in.Kind == isa.KindBarrier && in.Barrier.WaitsForBlock()
			x := ev{w: w, k: k, in: in, e: e, bar: bars, isBar: isBar, drain: isBar && !p.issuing}
			if isBar {
				bars++
			}
			evs[w] = append(evs[w], x)
			if !x.drain {
				issued = append(issued, x)
			}
			k++
		}
		if k != len(tl) {
			return fmt.Errorf("verify: warp %d: timeline has %d entries, want %d", w, len(tl), k)
		}
		if nb >= 0 && bars != nb {
			return fmt.Errorf("verify: warp %d has %d barriers, warp 0 has %d", w, bars, nb)
		}
		nb = bars
	}
	if int64(len(issued)) != r.Issued {
		return fmt.Errorf("verify: %d instructions issued in the timeline, result says %d", len(issued), r.Issued)
	}

	// One issue per cycle.
	sort.Slice(issued, func(i, j int) bool { return issued[i].e.Issue < issued[j].e.Issue })
	for i := 1; i < len(issued); i++ {
		if issued[i].e.Issue == issued[i-1].e.Issue {
			return fmt.Errorf("verify: cycle %d: warps %d and %d both issue", issued[i].e.Issue, issued[i-1].w, issued[i].w)
		}
	}
	if len(issued) > 0 && issued[0].e.Issue < 0 {
		return fmt.Errorf("verify: negative issue cycle")
	}

	// Unit FIFOs and result times.
	res, nres := hw.Resources()
	unitFree := make([]hwdesc.Cycles, nres)
	for _, x := range issued {
		u, _, err := hw.Lookup(x.in.Op())
		if err != nil {
			return fmt.Errorf("verify: %v", err)
		}
		if x.e.Unit != u {
			return fmt.Errorf("verify: warp %d instruction %d: unit %d, want %d", x.w, x.e.Index, x.e.Unit, u)
		}
		start := max(x.e.Issue, unitFree[res[u]])
		if x.e.Start != start {
			return fmt.Errorf("verify: warp %d instruction %d (%s) issued at %d: start %d, want %d (unit %s free at %d)", x.w, x.e.Index, x.in.Text, x.e.Issue, x.e.Start, start, hw.GroupOf(u), unitFree[res[u]])
		}
		unitFree[res[u]] = start + hw.Units[u].Init
		if want := start + hw.Units[u].Init + hw.Units[u].Lat + hw.Pipeline.Overhead; x.e.Ready != want {
			return fmt.Errorf("verify: warp %d instruction %d: ready %d, want %d", x.w, x.e.Index, x.e.Ready, want)
		}
	}

	// Barrier releases.
	if len(r.Releases) != nb {
		return fmt.Errorf("verify: %d releases, want %d", len(r.Releases), nb)
	}
	rel := make([]hwdesc.Cycles, nb)
	for b := 0; b < nb; b++ {
		var want hwdesc.Cycles
		for w := 0; w < nw; w++ {
			for i, x := range evs[w] {
				switch {
				case x.isBar && x.bar == b && x.drain:
					// reached one cycle after the previous issue, at the
					// previous release, or at 0
					var reach hwdesc.Cycles
					if i > 0 {
						if y := evs[w][i-1]; y.drain {
							reach = rel[b-1]
						} else {
							reach = p.after(w, y.in, y.e)
						}
					}
					want = max(want, reach)
				case x.isBar && x.bar == b:
					want = max(want, x.e.Issue+1)
					if p.Barrier == BarrierDrain {
						want = max(want, x.e.Ready)
					}
				case p.Barrier == BarrierDrain && x.bar <= b:
					want = max(want, x.e.Ready)
				}
			}
		}
		rel[b] = want
		if r.Releases[b] != want {
			return fmt.Errorf("verify: barrier %d released at %d, want %d", b, r.Releases[b], want)
		}
	}

	// Program order, scoreboard, barriers: the earliest cycle of each
	// instruction; it must issue at or after it.
	var makespan hwdesc.Cycles
	for _, r := range rel {
		makespan = max(makespan, r)
	}
	warpEnd := make([]hwdesc.Cycles, nw)
	for w := 0; w < nw; w++ {
		ready := map[string]hwdesc.Cycles{}
		var next hwdesc.Cycles // earliest issue by program order
		for i := range evs[w] {
			x := &evs[w][i]
			e := next
			if x.bar > 0 {
				// everything after barrier b-1 waits for its release
				e = max(e, rel[x.bar-1])
			}
			if x.drain {
				if x.e.Issue != e || x.e.Start != rel[x.bar] || x.e.Ready != rel[x.bar] {
					return fmt.Errorf("verify: warp %d barrier %d: reached %d released %d/%d, want %d, %d", w, x.bar, x.e.Issue, x.e.Start, x.e.Ready, e, rel[x.bar])
				}
				next = rel[x.bar]
				continue
			}
			for _, reg := range x.in.Uses() {
				e = max(e, ready[reg])
			}
			for _, reg := range x.in.Defs() {
				e = max(e, ready[reg])
			}
			if x.e.Issue < e {
				return fmt.Errorf("verify: warp %d instruction %d (%s) issued at %d before it may (%d)", w, x.e.Index, x.in.Text, x.e.Issue, e)
			}
			x.earlist = int64(e)
			for _, reg := range x.in.Defs() {
				ready[reg] = x.e.Ready
			}
			next = p.after(w, x.in, x.e)
			warpEnd[w] = max(warpEnd[w], x.e.Ready)
		}
		makespan = max(makespan, warpEnd[w])
		if r.WarpEnd[w] != warpEnd[w] {
			return fmt.Errorf("verify: warp %d ends at %d, want %d", w, r.WarpEnd[w], warpEnd[w])
		}
	}
	if r.Makespan != makespan {
		return fmt.Errorf("verify: makespan %d, want %d", r.Makespan, makespan)
	}

	// Work conservation and policy choices: sweep the issue cycles and the
	// cycles at which a warp becomes able to issue.
	isIssue := map[hwdesc.Cycles]int{}
	for _, x := range issued {
		isIssue[x.e.Issue] = x.w
	}
	for w := 0; w < nw; w++ {
		for _, x := range evs[w] {
			if x.drain {
				continue
			}
			for c := hwdesc.Cycles(x.earlist); c < x.e.Issue; c++ {
				if _, ok := isIssue[c]; !ok {
					return fmt.Errorf("verify: not work-conserving: cycle %d issues nothing while warp %d could issue instruction %d (%s)", c, w, x.e.Index, x.in.Text)
				}
			}
		}
	}
	var ch chooser
	if pol != nil {
		switch pol.Kind {
		case LRR, GTO, Priority:
			var err error
			if ch, err = pol.chooser(nw); err != nil {
				return err
			}
		}
	}
	if ch != nil {
		ptr := make([]int, nw)
		last := -1
		for _, x := range issued {
			c := x.e.Issue
			var mask uint64
			for w := 0; w < nw; w++ {
				for ptr[w] < len(evs[w]) && finished(evs[w][ptr[w]].e, evs[w][ptr[w]].drain, c) {
					ptr[w]++
				}
				if ptr[w] < len(evs[w]) {
					y := evs[w][ptr[w]]
					if !y.drain && y.earlist <= int64(c) {
						mask |= 1 << uint(w)
					}
				}
			}
			if want := ch.choose(mask, last); want != x.w {
				return fmt.Errorf("verify: cycle %d: policy %s issues warp %d, the schedule issued warp %d (eligible %b)", c, pol, want, x.w, mask)
			}
			last = x.w
		}
	}
	return nil
}

// finished reports whether an event is over at cycle c: an issued
// instruction issued before c, a barrier that issues nothing released at
// or before c.
func finished(e Event, drain bool, c hwdesc.Cycles) bool {
	if drain {
		return e.Start <= c
	}
	return e.Issue < c
}

// after returns the earliest cycle warp w may issue after the issued
// instruction in with event e: the next cycle, or the branch's result when
// the description makes the warp wait on the edge to the next instruction
// of its path.
func (p *Program) after(w int, in *isa.Instr, e Event) hwdesc.Cycles {
	next := e.Issue + 1
	path := p.warps[w].path
	if isBranch(in) && e.Index+1 < len(path) && p.HW.Pipeline.WaitsAfterBranch(Redirects(p.fn, in, path[e.Index+1])) {
		next = max(next, e.Ready)
	}
	return next
}
