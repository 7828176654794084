package bound

import (
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// The oracle is an exhaustive simulator of the reference block model for
// tiny single-section blocks: at every cycle where at least one warp can
// issue, it explores every choice of the warp that issues (any
// work-conserving scheduler), and returns the longest makespan.

type simWarp struct {
	ops  []phases.Op
	pc   int
	regs map[phases.RegID]hwdesc.Cycles
	end  hwdesc.Cycles
}

func (w *simWarp) eligibleAt() hwdesc.Cycles {
	op := &w.ops[w.pc]
	var t hwdesc.Cycles
	for _, r := range op.Uses {
		t = max(t, w.regs[r])
	}
	for _, r := range op.Defs {
		t = max(t, w.regs[r])
	}
	return t
}

type simState struct {
	t     hwdesc.Cycles
	units []hwdesc.Cycles
	warps []simWarp
}

func (s *simState) clone() *simState {
	c := &simState{t: s.t, units: append([]hwdesc.Cycles(nil), s.units...), warps: make([]simWarp, len(s.warps))}
	for i, w := range s.warps {
		c.warps[i] = simWarp{ops: w.ops, pc: w.pc, end: w.end, regs: make(map[phases.RegID]hwdesc.Cycles, len(w.regs))}
		for k, v := range w.regs {
			c.warps[i].regs[k] = v
		}
	}
	return c
}

// worstMakespan explores every work-conserving schedule of the warps (paths
// of issuing ops only) and returns the largest block end time. budget
// limits the number of explored states; ok is false when it ran out.
func worstMakespan(nunits int, paths [][]phases.Op, budget int) (worst hwdesc.Cycles, ok bool) {
	s := &simState{units: make([]hwdesc.Cycles, nunits)}
	for _, p := range paths {
		s.warps = append(s.warps, simWarp{ops: p, regs: map[phases.RegID]hwdesc.Cycles{}})
	}
	ok = true
	var dfs func(s *simState)
	dfs = func(s *simState) {
		if budget <= 0 {
			ok = false
			return
		}
		budget--
		// Find the earliest cycle >= t at which some warp can issue.
		next := hwdesc.Cycles(-1)
		for i := range s.warps {
			w := &s.warps[i]
			if w.pc >= len(w.ops) {
				continue
			}
			e := max(w.eligibleAt(), s.t)
			if next < 0 || e < next {
				next = e
			}
		}
		if next < 0 {
			var end hwdesc.Cycles
			for _, w := range s.warps {
				end = max(end, w.end)
			}
			worst = max(worst, end)
			return
		}
		for i := range s.warps {
			w := &s.warps[i]
			if w.pc >= len(w.ops) || max(w.eligibleAt(), s.t) != next {
				continue
			}
			c := s.clone()
			c.t = next
			cw := &c.warps[i]
			op := &cw.ops[cw.pc]
			start := max(next, c.units[op.Unit])
			c.units[op.Unit] = start + op.Init
			ready := start + op.Init + op.Lat
			for _, r := range op.Defs {
				cw.regs[r] = ready
			}
			cw.end = max(cw.end, ready)
			cw.pc++
			c.t = next + 1
			dfs(c)
		}
	}
	dfs(s)
	return worst, ok
}
