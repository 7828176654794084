package divergence

import (
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// The per-warp resolution evaluates branch conditions exactly, lane by
// lane, in the concrete domain of the value graph (values.LaneDomain):
// thread and lane indices, launch dimensions, kernel arguments (by
// parameter name, Launch.Args; SASS reads them from the constant bank by
// the architecture's layout), integer literals and every integer and
// predicate operation the semantics layer decodes, at the instruction's
// own type. A value is known when it does not depend on a loop-carried
// value, a load the value graph does not follow, or the block index: it is
// then the same at every execution of the branch. Anything else is
// unknown, and a branch with an unknown condition stays Divergent when
// the condition is thread-varying and Unknown (whole warp, either side)
// when it is uniform. PTX and SASS are resolved alike.

// warp is one warp of the thread block: the thread ids of its lanes.
type warp struct {
	index int
	tid   [][3]int64 // per lane: tid.x, tid.y, tid.z (nil when unknown)
	lanes int
}

// warpsOf returns the warps of a block of the given dimensions, or nil
// when they are unknown.
func warpsOf(l pass.Launch) []warp {
	if l.Block[0] <= 0 {
		return nil
	}
	d := l.Block
	for i := 1; i < 3; i++ {
		if d[i] <= 0 {
			d[i] = 1
		}
	}
	n := d[0] * d[1] * d[2]
	var ws []warp
	for k := 0; k*32 < n; k++ {
		w := warp{index: k}
		for t := 32 * k; t < 32*k+32 && t < n; t++ {
			x := t % d[0]
			y := (t / d[0]) % d[1]
			z := t / (d[0] * d[1])
			w.tid = append(w.tid, [3]int64{int64(x), int64(y), int64(z)})
		}
		w.lanes = len(w.tid)
		ws = append(ws, w)
	}
	return ws
}

// laneEnv is what the concrete domain knows of warp w at launch l.
func laneEnv(l pass.Launch, w warp) *values.LaneEnv {
	env := &values.LaneEnv{Args: l.Args}
	for _, t := range w.tid {
		env.Tid = append(env.Tid, [3]uint64{uint64(t[0]), uint64(t[1]), uint64(t[2])})
	}
	if l.Block[0] > 0 {
		for i := 0; i < 3; i++ {
			env.Ntid[i] = uint64(max(l.Block[i], 1))
		}
	}
	if l.Grid[0] > 0 {
		for i := 0; i < 3; i++ {
			env.Nctaid[i] = uint64(max(l.Grid[i], 1))
		}
	}
	return env
}

// outcome resolves br for one warp.
func outcome(vals *values.Func, ev *values.Evaluator[values.Lanes], br *Branch) Outcome {
	in := br.Instr
	unknown := Unknown
	if br.Divergent {
		unknown = Divergent
	}
	if in.Kind == isa.KindIndirectBranch || in.Guard.Reg == "" {
		return unknown
	}
	g := vals.Guard(in)
	if g == nil {
		return unknown
	}
	v := ev.Eval(g)
	if v == nil {
		return unknown
	}
	taken, not := 0, 0
	for _, x := range v {
		if (x != 0) != in.Guard.Neg {
			taken++
		} else {
			not++
		}
	}
	switch {
	case not == 0:
		return Taken
	case taken == 0:
		return NotTaken
	}
	return Divergent
}
