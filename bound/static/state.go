package static

import (
	"encoding/binary"
	"math"

	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// Helpers on phases.State for the loop acceleration (docs/model.md, "Loops:
// iteration up to a time shift"). They never modify their arguments.

// dims is the size of a materialised state: every unit and every register
// the engine interned. Missing entries of a phases.State read as 0; a time
// shift must shift them too, so states are materialised before shifting.
type dims struct{ units, regs int }

// clamp returns s with every entry raised to at least s.Next and with all
// entries materialised. An entry below Next cannot delay any later issue
// (every later instruction issues at ≥ Next, and starts at ≥ its issue), and
// End ≥ Next always holds (an issued instruction is ready at ≥ issue+1), so
// clamp(s) ≥ s and every later timing from clamp(s) equals the timing from s.
func clamp(s *phases.State, d dims) *phases.State {
	c := &phases.State{Next: s.Next, End: max(s.End, s.Next),
		UnitFree: make([]hwdesc.Cycles, d.units), RegReady: make([]hwdesc.Cycles, d.regs)}
	for i := range c.UnitFree {
		v := s.Next
		if i < len(s.UnitFree) {
			v = max(v, s.UnitFree[i])
		}
		c.UnitFree[i] = v
	}
	for i := range c.RegReady {
		v := s.Next
		if i < len(s.RegReady) {
			v = max(v, s.RegReady[i])
		}
		c.RegReady[i] = v
	}
	return c
}

// drainState raises every entry of s to s.End in place: the warp's state
// after a block-wide barrier when the block is one warp (analyzeOneWarp).
// The engine starts the next section from NewState once the warp's work is
// finished (End); from this state every later timing is that of NewState
// shifted by End (missing register entries read 0 ≤ Next: see clamp). It is
// monotone and, on materialised states, shift-invariant.
func drainState(s *phases.State) {
	s.Next = max(s.Next, s.End)
	for i := range s.UnitFree {
		s.UnitFree[i] = max(s.UnitFree[i], s.End)
	}
	for i := range s.RegReady {
		s.RegReady[i] = max(s.RegReady[i], s.End)
	}
}

// shifted returns a copy of a materialised state with every entry increased
// by c.
func shifted(s *phases.State, c hwdesc.Cycles) *phases.State {
	o := s.Clone()
	o.Next += c
	o.End += c
	for i := range o.UnitFree {
		o.UnitFree[i] += c
	}
	for i := range o.RegReady {
		o.RegReady[i] += c
	}
	return o
}

// maxEntry returns the largest entry of a materialised state.
func maxEntry(s *phases.State) hwdesc.Cycles {
	m := max(s.Next, s.End)
	for _, v := range s.UnitFree {
		m = max(m, v)
	}
	for _, v := range s.RegReady {
		m = max(m, v)
	}
	return m
}

// growth returns the smallest c ≥ 0 with a ≤ b + c entrywise, for
// materialised states of the same dimensions.
func growth(a, b *phases.State) hwdesc.Cycles {
	c := max(a.Next-b.Next, a.End-b.End, 0)
	for i := range a.UnitFree {
		c = max(c, a.UnitFree[i]-b.UnitFree[i])
	}
	for i := range a.RegReady {
		c = max(c, a.RegReady[i]-b.RegReady[i])
	}
	return c
}

// key encodes a clamped state relative to its Next (the normalised state
// N(s) = clamp(s) − s.Next), for the summary cache.
func key(loop int, s *phases.State) string {
	buf := make([]byte, 0, 8*(2+len(s.UnitFree)+len(s.RegReady)))
	buf = binary.AppendUvarint(buf, uint64(loop))
	put := func(v hwdesc.Cycles) { buf = binary.AppendUvarint(buf, uint64(v-s.Next)) }
	put(s.End)
	for _, v := range s.UnitFree {
		put(v)
	}
	for _, v := range s.RegReady {
		put(v)
	}
	return string(buf)
}

// mulAdd returns a + m·c, or ok false when it would exceed MaxInt64/4 (the
// head room the block bound keeps for its sums).
func mulAdd(a, m, c int64) (int64, bool) {
	const lim = math.MaxInt64 / 4
	if m < 0 || c < 0 || a < 0 {
		return 0, false
	}
	if m != 0 && c > lim/m {
		return 0, false
	}
	if a > lim-m*c {
		return 0, false
	}
	return a + m*c, true
}
