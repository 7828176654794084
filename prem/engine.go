package prem

import (
	"container/heap"
	"sort"
)

// The engine (docs/prem.md, "The engine and its exactness").
//
// Tile m of a participant (m = n - K, the m-th synchronised tile) starts
// its period at base(m) = WU + m·T. With not-before semantics each phase
// of the tile, latest case, starts at max(trigger, end of its
// predecessor) + J when it is triggered and at the end of its predecessor
// otherwise, and ends WCET later; the earliest case uses the BCET and no
// jitter. Each tile is therefore a max-plus affine map of the end of the
// previous tile: end(x) = max(A + m·T, x + D). With x_0 the end of the
// warm-up, the end of tile m-1 is, in closed form,
//
//	x_m = max(x_0 + m·D, A + (m-1)·max(D, T))   (m >= 1)
//
// so any tile's windows are computed in O(1), without the tiles before
// it. Relative to base(m), tile m depends only on y_m = x_m - m·T, which
// is eventually constant when D <= T: from then on every tile is the
// previous one shifted by T (the periodic regime).

// span is one phase of one tile: trigger (-1 when not triggered),
// earliest and latest start, earliest and latest end.
type span struct {
	trig, sE, sL, eE, eL int64
}

// tile evaluates the phases of a tile whose period starts at base, after
// a predecessor ending at xL (latest) and xE (earliest).
func (p *Part) tile(base, xL, xE int64) (sp [numPhases]span, endL, endE int64) {
	for _, ph := range phaseOrder {
		s := &p.Ph[ph]
		x := span{trig: -1}
		if s.Trig >= 0 {
			t := base + s.Trig
			x.trig = t
			x.sL = max(t, xL) + s.J
			x.sE = max(t, xE)
		} else {
			x.sL, x.sE = xL, xE
		}
		x.eL = x.sL + s.WCET
		x.eE = x.sE + s.BCET
		sp[ph] = x
		xL, xE = x.eL, x.eE
	}
	return sp, xL, xE
}

// chain is the closed form of one participant's tile ends.
type chain struct {
	p      *Part
	WU, T  int64
	M      int64 // synchronised tiles: T_i - K
	x0L    int64 // end of the warm-up (latest), the predecessor of tile 0
	x0E    int64
	aL, dL int64 // end(x) = max(aL + m·T, x + dL), latest
	aE, dE int64 // earliest
	// per is the first tile of the periodic regime (every later tile is
	// the previous one shifted by T), -1 when there is none (drift).
	per int64
}

func newChain(m *Model, p *Part) *chain {
	c := &chain{p: p, WU: m.WU, T: m.T, M: p.Tiles - int64(m.K)}
	if p.HasWarmup {
		c.x0L, c.x0E = p.WarmupL, p.WarmupE
	} else {
		// Without warm-up bounds the warm-up is assumed to end by the
		// first trigger (C7 says it is unverified).
		c.x0L, c.x0E = 0, 0
	}
	_, c.aL, c.aE = p.tile(c.WU, negInf, negInf) // A: the end of tile 0 when nothing precedes it
	c.dL, c.dE = p.dL(), p.dE()
	pl := periodicFrom(c.x0L, c.aL, c.dL, c.T)
	pe := periodicFrom(c.x0E, c.aE, c.dE, c.T)
	if pl < 0 || pe < 0 {
		c.per = -1
	} else {
		c.per = max(pl, pe)
	}
	return c
}

// periodicFrom returns the first m from which x_{m+1} = x_m + T for good,
// for the recurrence x_{m+1} = max(a + m·T, x_m + d); -1 when never.
func periodicFrom(x0, a, d, T int64) int64 {
	// y_{m+1} = max(a - T, y_m + d - T) with y_m = x_m - m·T.
	ya, dd := a-T, d-T
	switch {
	case dd > 0:
		return -1
	case dd == 0:
		if x0 >= ya {
			return 0
		}
		return 1
	}
	if x0 <= ya {
		if x0 == ya {
			return 0
		}
		return 1
	}
	// y_m = max(ya, x0 + m·dd): constant once x0 + m·dd <= ya.
	return ceilDiv(x0-ya, -dd)
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// prev returns the ends (latest, earliest) of the tile before tile m:
// x_m in closed form.
func (c *chain) prev(m int64) (int64, int64) {
	return closed(m, c.x0L, c.aL, c.dL, c.T), closed(m, c.x0E, c.aE, c.dE, c.T)
}

func closed(m, x0, a, d, T int64) int64 {
	if m == 0 {
		return x0
	}
	return max(x0+m*d, a+(m-1)*max(d, T))
}

// at evaluates tile m.
func (c *chain) at(m int64) [numPhases]span {
	xL, xE := c.prev(m)
	sp, _, _ := c.p.tile(c.WU+m*c.T, xL, xE)
	return sp
}

// end returns the latest end of the participant's last tile.
func (c *chain) end() int64 {
	l, _ := c.prev(c.M)
	return l
}

// worstTiles returns the tiles among which the latest times relative to
// the period start are largest: y_m is monotone from tile 1 on
// (non-increasing when D <= T, non-decreasing when D > T), so the extremes
// are tiles 0, 1 and the last.
func (c *chain) worstTiles() []int64 {
	ts := []int64{0}
	if c.M > 1 {
		ts = append(ts, 1)
	}
	if c.M > 2 {
		ts = append(ts, c.M-1)
	}
	return ts
}

// firstWhere returns the first tile m in [0, M) where bad(m) holds, or -1;
// bad must be monotone in y_m (true for large y): it is false from tile 1
// on once false at tile 1 (D <= T), or true from its first tile on (D > T).
func (c *chain) firstWhere(bad func(m int64) bool) int64 {
	if c.M <= 0 {
		return -1
	}
	if bad(0) {
		return 0
	}
	if c.M == 1 {
		return -1
	}
	if c.dL-c.T <= 0 {
		if bad(1) {
			return 1
		}
		return -1
	}
	if !bad(c.M - 1) {
		return -1
	}
	lo, hi := int64(1), c.M-1 // bad(hi); find the first
	for lo < hi {
		mid := lo + (hi-lo)/2
		if bad(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// MaxSweepWindows caps the memory windows the sweep visits: a schedule in
// the periodic regime needs a few periods of windows; one that drifts or
// has a long transient (C4 or C7 fails) is swept up to the cap.
var MaxSweepWindows = 20_000_000

// MaxSweepPairs caps the pairs of active windows the sweep compares: many
// participants whose memory windows all overlap make the pairs quadratic.
// Past the cap the sweep stops (the first overlap and the verdict are
// exact, the counts are those of the tiles swept).
var MaxSweepPairs = 5_000_000

// MaxTrackedPairs caps the overlapping participant pairs the sweep keeps
// statistics for (memory): past it the sweep stops as for MaxSweepPairs.
var MaxTrackedPairs = 100_000

// memWindow is one memory phase of one tile in the sweep.
type memWindow struct {
	part  int
	tile  int64 // m
	phase Phase
	s, e  int64 // [earliest start, latest end)
}

// Overlap is two memory windows of different participants that intersect.
type Overlap struct {
	A, B memWindow // A starts first (ties: lower participant index)
	// Start and NS: where the intersection starts and its length.
	Start, NS int64
	// Count is how many times the pair occurs over the run (the pattern
	// repeats every period in the periodic regime).
	Count int64
}

// sweepResult is what the sweep finds.
type sweepResult struct {
	tiles    int64 // tiles swept (per participant, at most)
	partial  bool  // the sweep stopped at MaxSweepWindows: later overlaps are not known
	periodic int64 // first tile of the common periodic regime, -1 when none
	first    *Overlap
	pairs    map[[2]int]*pairStat // overlapping participant pairs (lower index first)
	overlaps int64                // overlapping window pairs over the run
	totalNS  int64                // their total overlap (may saturate)
	// slack per participant and memory phase: the smallest gap from a
	// window's end to the start of the next memory window of another
	// participant starting at or after it (negative: overlap); ok false
	// when no window has a next one.
	slack     [][numPhases]int64
	slackOK   [][numPhases]bool
	slackAt   [][numPhases]memWindow
	slackNext [][numPhases]memWindow // the window that follows slackAt
}

// pairStat aggregates the overlaps of two participants.
type pairStat struct {
	count   int64
	totalNS int64
	maxNS   int64
	first   *Overlap
}

// sweep checks memory exclusion (C5): it sweeps, in start order, the
// memory windows of every participant's tiles up to a horizon after
// which every tile of every participant is in the periodic regime and far
// enough to meet every pair type, and counts each periodic pair once per
// period it occurs in. Exact (docs/prem.md, "Exactness of the sweep").
func sweep(m *Model, cs []*chain) *sweepResult {
	res := &sweepResult{pairs: map[[2]int]*pairStat{}, periodic: 0}
	n := len(cs)
	res.slack = make([][numPhases]int64, n)
	res.slackOK = make([][numPhases]bool, n)
	res.slackAt = make([][numPhases]memWindow, n)
	res.slackNext = make([][numPhases]memWindow, n)
	var maxM int64
	for _, c := range cs {
		maxM = max(maxM, c.M)
		if c.per < 0 {
			res.periodic = -1
		} else if res.periodic >= 0 {
			res.periodic = max(res.periodic, c.per)
		}
	}
	horizon := maxM // sweep every tile when there is no periodic regime
	if res.periodic >= 0 && res.periodic < maxM {
		P := res.periodic
		// Reach of a periodic tile's windows past its period start, and
		// the latest end of any tile before P.
		var reach, lastEnd int64
		for _, c := range cs {
			if c.M <= P {
				lastEnd = max(lastEnd, c.end())
				continue
			}
			sp := c.at(P)
			base := m.WU + P*m.T
			for _, ph := range phaseOrder {
				if ph.Memory() {
					reach = max(reach, sp[ph].eL-base)
				}
			}
			l, _ := c.prev(P)
			lastEnd = max(lastEnd, l)
		}
		R := reach/m.T + 1
		h := P + R + 1
		if lastEnd > m.WU {
			h = max(h, (lastEnd-m.WU)/m.T+2)
		}
		horizon = min(maxM, h)
	}
	// Bounded time: a drifting schedule (no periodic regime) or a long
	// transient is swept up to a cap; the overlaps found are exact, their
	// absence beyond the cap is not known (C5 says so).
	if limit := int64(MaxSweepWindows / (2 * max(n, 1))); horizon > limit {
		horizon, res.partial = max(limit, 1), true
	}
	res.tiles = horizon
	// A stream per participant, merged by start.
	type stream struct {
		part int
		m    int64
		ws   []memWindow // pending windows of the current tile
	}
	next := func(st *stream) bool {
		c := cs[st.part]
		for len(st.ws) == 0 {
			if st.m >= min(c.M, horizon) {
				return false
			}
			sp := c.at(st.m)
			for _, ph := range phaseOrder {
				if ph.Memory() {
					st.ws = append(st.ws, memWindow{part: st.part, tile: st.m, phase: ph, s: sp[ph].sE, e: sp[ph].eL})
				}
			}
			st.m++
		}
		return true
	}
	h := &windowHeap{}
	streams := make([]*stream, n)
	for i := range cs {
		streams[i] = &stream{part: i}
		if next(streams[i]) {
			heap.Push(h, streams[i].ws[0])
			streams[i].ws = streams[i].ws[1:]
		}
	}
	var active []memWindow
	// pending slack: windows waiting for the next other-participant start.
	var waiting []memWindow
	work := 0
	for h.Len() > 0 {
		w := heap.Pop(h).(memWindow)
		if work += len(active) + len(waiting); work > MaxSweepPairs || len(res.pairs) >= MaxTrackedPairs {
			res.partial = true
			res.tiles = w.tile // tiles before this one were swept in full
			break
		}
		st := streams[w.part]
		if next(st) {
			heap.Push(h, st.ws[0])
			st.ws = st.ws[1:]
		}
		// Slack of the windows that started at or before w.
		keep := waiting[:0]
		for _, v := range waiting {
			if v.part == w.part {
				keep = append(keep, v)
				continue
			}
			g := w.s - v.e
			i, ph := v.part, v.phase
			if !res.slackOK[i][ph] || g < res.slack[i][ph] {
				res.slack[i][ph], res.slackOK[i][ph], res.slackAt[i][ph], res.slackNext[i][ph] = g, true, v, w
			}
		}
		waiting = append(keep, w)
		// Overlaps with the active windows of other participants.
		live := active[:0]
		for _, a := range active {
			if a.e > w.s {
				live = append(live, a)
			}
		}
		active = live
		for _, a := range active {
			if a.part == w.part {
				continue
			}
			res.record(m, cs, a, w)
		}
		if w.e > w.s {
			active = append(active, w)
		}
	}
	return res
}

// record adds the overlap of a (started first) and b.
func (res *sweepResult) record(m *Model, cs []*chain, a, b memWindow) {
	start := max(a.s, b.s)
	ns := min(a.e, b.e) - start
	if ns <= 0 {
		return
	}
	count := int64(1)
	lo := min(a.tile, b.tile)
	if P := res.periodic; P >= 0 && lo >= P {
		if lo > P {
			return // a shift of a pair met at P
		}
		count = min(cs[a.part].M-a.tile, cs[b.part].M-b.tile)
	}
	k := [2]int{min(a.part, b.part), max(a.part, b.part)}
	ps := res.pairs[k]
	if ps == nil {
		// The pair's first overlap (and the run's first, if none yet).
		o := &Overlap{A: a, B: b, Start: start, NS: ns, Count: count}
		ps = &pairStat{first: o}
		res.pairs[k] = ps
		if res.first == nil {
			res.first = o
		}
	}
	ps.count += count
	ps.totalNS = satAdd(ps.totalNS, satMul(count, ns))
	ps.maxNS = max(ps.maxNS, ns)
	res.overlaps += count
	res.totalNS = satAdd(res.totalNS, satMul(count, ns))
}

func satMul(a, b int64) int64 {
	if x, ok := mulAdd(0, a, b); ok {
		return x
	}
	return 1<<63 - 1
}

func satAdd(a, b int64) int64 {
	if a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}

// windowHeap orders windows by start, then participant, tile and phase.
type windowHeap []memWindow

func (h windowHeap) Len() int { return len(h) }
func (h windowHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.s != b.s {
		return a.s < b.s
	}
	if a.part != b.part {
		return a.part < b.part
	}
	if a.tile != b.tile {
		return a.tile < b.tile
	}
	return a.phase < b.phase
}
func (h windowHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *windowHeap) Push(x any)   { *h = append(*h, x.(memWindow)) }
func (h *windowHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// sortedPairs returns the overlapping participant pairs in order.
func (res *sweepResult) sortedPairs() [][2]int {
	var ks [][2]int
	for k := range res.pairs {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i][0] != ks[j][0] {
			return ks[i][0] < ks[j][0]
		}
		return ks[i][1] < ks[j][1]
	})
	return ks
}
