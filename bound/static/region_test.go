package static

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
)

// tileLoop has the shape of a PREM tile loop: a release barrier (after a
// guarded stand-in for the spin), a prefetch with a branch, a compute
// section and a write-back that loops back to the release.
const tileLoop = `ld r1 r0
	bar
T:
	@p bra SKIP
	mul r2 r1
SKIP:
	bar
	ld r3 r2
	@q bra X
	ld r4 r3
	ld r7 r4
X:
	bar
	mul r5 r4
	bar
	st r6 r5
	@s bra T
`

// innerLoop is a PREM tile loop whose compute phase holds a loop with a
// barrier (a k-loop over shared-memory sub-tiles), with a break out of it
// and a prologue before the tile loop.
const innerLoop = `ld r1 r0
	mul r9 r1
T:
	bar
	ld r2 r1
	ld r8 r2
	bar
K:
	mul r3 r2
	bar
	add r4 r3
	@q bra OUT
	mul r7 r4
	@p bra K
OUT:
	bar
	st r5 r4
	@s bra T
`

// TestRegionAgainstConcretePaths: on every concrete path, each stretch from
// a crossing of the region's first barrier to the next crossing of one of
// its last barriers costs (as the sum of its section bounds) at most the
// region's bound, and the costliest stretch equals it. Regions that cross a
// loop holding barriers are bounded with its bound (their worst stretch is
// given as crossings); with partial set, the loops named in unknown have
// no bound for the analysis (Input.Partial) and the enumeration uses the
// one in bounds: the region does not need it.
func TestRegionAgainstConcretePaths(t *testing.T) {
	for _, tc := range []struct {
		src     string
		bounds  map[string]int64
		from    int   // instruction index of the first barrier, -1: the start
		to      []int // instruction indexes of the last barriers, -1: the end
		unknown string
	}{
		{innerLoop, map[string]int64{"T": 2, "K": 3}, 2, []int{5}, ""},
		{innerLoop, map[string]int64{"T": 2, "K": 3}, 5, []int{12}, ""},
		{innerLoop, map[string]int64{"T": 2, "K": 4}, 5, []int{12, -1}, ""},
		{innerLoop, map[string]int64{"T": 2, "K": 3}, 12, []int{2, -1}, ""},
		{innerLoop, map[string]int64{"T": 2, "K": 3}, 5, []int{7}, ""},
		{innerLoop, map[string]int64{"T": 2, "K": 3}, 7, []int{7, 12}, ""},
		{innerLoop, map[string]int64{"T": 3, "K": 2}, -1, []int{-1}, ""},
		{innerLoop, map[string]int64{"T": 3, "K": 2}, 2, []int{-1}, ""},
		{innerLoop, map[string]int64{"T": 2, "K": 3}, 2, []int{5}, "T"},
		{innerLoop, map[string]int64{"T": 2, "K": 3}, 5, []int{12}, "T"},
		{innerLoop, map[string]int64{"T": 2, "K": 3}, 12, []int{2, -1}, "T"},
		{innerLoop, map[string]int64{"T": 2, "K": 3}, 2, []int{12}, "T"},
		{innerLoop, map[string]int64{"T": 2, "K": 3}, 2, []int{-1}, "T"},
		{innerLoop, map[string]int64{"T": 2, "K": 3}, -1, []int{5}, "T"},
		{tileLoop, map[string]int64{"T": 3}, 11, []int{4, -1}, "T"},
		{tileLoop, map[string]int64{"T": 3}, 9, []int{4, -1}, "T"},
		{breakLoop, map[string]int64{"L": 3}, -1, []int{-1}, ""},
		{breakLoop, map[string]int64{"L": 5}, -1, []int{11, -1}, ""},
		{tileLoop, map[string]int64{"T": 3}, 4, []int{9}, ""},
		{tileLoop, map[string]int64{"T": 3}, 9, []int{11}, ""},
		{tileLoop, map[string]int64{"T": 3}, 11, []int{4, -1}, ""},
		{tileLoop, map[string]int64{"T": 3}, 4, []int{11}, ""},
		{tileLoop, map[string]int64{"T": 3}, -1, []int{4}, ""},
		{tileLoop, map[string]int64{"T": 3}, 9, []int{4, -1}, ""},
		{breakLoop, map[string]int64{"L": 3}, 2, []int{11}, ""},
		{breakLoop, map[string]int64{"L": 3}, 7, []int{11, -1}, ""},
	} {
		k := build(t, tc.src)
		fn := k.g.Func
		at := func(i int) *isa.Instr {
			if i < 0 {
				return nil
			}
			if fn.Instrs[i].Kind != isa.KindBarrier {
				t.Fatalf("instruction %d (%q) is not a barrier", i, fn.Instrs[i].Text)
			}
			return fn.Instrs[i]
		}
		from := at(tc.from)
		var to []*isa.Instr
		for _, i := range tc.to {
			to = append(to, at(i))
		}
		analysed := tc.bounds
		if tc.unknown != "" {
			analysed = maps.Clone(tc.bounds)
			delete(analysed, tc.unknown)
		}
		res, err := k.analyzePartial(t, 3, analysed, tc.unknown != "")
		if err != nil {
			t.Fatal(err)
		}
		if tc.unknown != "" && res.Incomplete == nil {
			t.Fatalf("region %d -> %v: loop %s unknown but the block is bounded", tc.from, tc.to, tc.unknown)
		}
		reg, err := res.Region(from, to)
		if err != nil {
			t.Fatalf("region %d -> %v: %v", tc.from, tc.to, err)
		}
		var sum int64
		for _, s := range reg.Path {
			sum += int64(s.Bound)
		}
		for _, c := range reg.Crossings {
			sum += c.Count * int64(c.Segment.Bound)
		}
		if sum != int64(reg.Bound) || (reg.Path != nil && reg.Path[0].From != from) || (reg.Path == nil) == (reg.Crossings == nil) {
			t.Errorf("region %d -> %v: path %d and crossings %d sum to %d, bound %d", tc.from, tc.to, len(reg.Path), len(reg.Crossings), sum, reg.Bound)
		}
		if from == nil && len(to) == 1 && to[0] == nil && tc.unknown == "" && reg.Bound != res.Bound {
			t.Errorf("the whole block as a region: %d, block bound %d", reg.Bound, res.Bound)
		}
		heaviest, complete, err := heaviestStretch(k, res, boundsByLabel(tc.bounds), from, to, 10000, func(x int64) {
			t.Errorf("region %d -> %v: a concrete stretch costs %d > bound %d", tc.from, tc.to, x, reg.Bound)
		}, int64(reg.Bound))
		if err != nil || !complete {
			t.Fatalf("enumeration: %v, complete %v", err, complete)
		}
		if heaviest != int64(reg.Bound) {
			t.Errorf("region %d -> %v: bound %d, costliest concrete stretch %d", tc.from, tc.to, reg.Bound, heaviest)
		}
	}
}

// heaviestStretch enumerates the concrete paths of k under lb (at most
// limit) and returns the costliest stretch of region (from, to) as the sum
// of the section bounds of res, calling above for each one costing more
// than bound; -1 when no path has such a stretch.
func heaviestStretch(k *kernel, res *Result, lb LoopBound, from *isa.Instr, to []*isa.Instr, limit int, above func(int64), bound int64) (int64, bool, error) {
	seg := map[[2]*isa.Instr]int64{}
	for _, s := range res.Segments {
		seg[[2]*isa.Instr{s.From, s.To}] = max(seg[[2]*isa.Instr{s.From, s.To}], int64(s.Bound))
	}
	isTo := func(b *isa.Instr) bool {
		for _, x := range to {
			if x == b {
				return true
			}
		}
		return false
	}
	heaviest := int64(-1)
	_, complete, err := EnumeratePaths(k.g, lb, limit, func(p []*isa.Instr) bool {
		// The barriers crossed in order, the start first and the end last.
		bars := []*isa.Instr{nil}
		for _, in := range p {
			if in.Kind == isa.KindBarrier {
				bars = append(bars, in)
			}
		}
		bars = append(bars, nil)
		for i := 0; i < len(bars)-1; i++ {
			if bars[i] != from || (i > 0 && from == nil) {
				continue
			}
			var x int64
			for j := i + 1; j < len(bars); j++ {
				end := j == len(bars)-1
				x += seg[[2]*isa.Instr{bars[j-1], bars[j]}]
				if (end && isTo(nil)) || (!end && isTo(bars[j])) {
					if x > bound {
						above(x)
					}
					heaviest = max(heaviest, x)
					break
				}
				if end || bars[j] == from {
					break
				}
			}
		}
		return true
	})
	return heaviest, complete, err
}

// TestRegionRandom: on random programs with barriers at every depth and in
// loops, every region (from each barrier or the start, to a random set of
// barriers and the end) that Region bounds covers every concrete stretch,
// equals the costliest one with exact walks (when every loop may take its
// back edge), and is the same when a random
// loop the region does not need has no bound (Input.Partial); a region
// refused with that loop unbounded needs it. The cycle-mean walk bound
// (walkMean) is checked for soundness only.
func TestRegionRandom(t *testing.T) {
	for _, mode := range []int{walkExact, walkMean} {
		t.Run([]string{"auto", "exact", "mean"}[mode], func(t *testing.T) {
			defer func(m int) { walkMode = m }(walkMode)
			walkMode = mode
			regionRandom(t, mode == walkExact)
		})
	}
}

func regionRandom(t *testing.T, exact bool) {
	regions, cyclic, partialSame, partialRefused := 0, 0, 0, 0
	for seed := int64(1); seed <= int64(*propN); seed++ {
		r, g, src, k := barrierProgram(t, seed)
		res, err := k.analyze(t, 2, g.bounds)
		if err != nil {
			continue // refused for its barrier structure (TestSectionPathAgainstConcretePaths)
		}
		var bars []*isa.Instr
		for _, in := range k.g.Func.Instrs {
			if in.Kind == isa.KindBarrier {
				bars = append(bars, in)
			}
		}
		if len(bars) == 0 {
			continue
		}
		// A loop holding the region's first or last barriers is walked,
		// not summarised: its bound is not used, so the bound is the
		// costliest stretch only when every loop can take its back edge.
		backEdges := true
		for _, n := range g.bounds {
			backEdges = backEdges && n >= 2
		}
		// One loop without bound for the partial analysis.
		var labels []string
		for l := range g.bounds {
			labels = append(labels, l)
		}
		slices.Sort(labels)
		var part *Result
		if len(labels) > 0 {
			drop := labels[r.Intn(len(labels))]
			all := boundsByLabel(g.bounds)
			lb := func(l *cfg.Loop) (int64, error) {
				if slices.Contains(l.Header.Labels, drop) {
					return 0, &Error{Msg: "loop " + drop + " has no bound", Unbounded: true}
				}
				return all(l)
			}
			if part, err = Analyze(&Input{Engine: k.eng, Graph: k.g, Classes: []Class{{Warps: []int{0, 1}, Graph: k.g}}, Bound: lb,
				Uniform: func(*cfg.Block) bool { return true }, Partial: true}); err != nil {
				t.Fatalf("seed %d: partial without %s: %v\n%s", seed, drop, err, src)
			}
		}
		for _, from := range append([]*isa.Instr{nil}, bars...) {
			var to []*isa.Instr
			for _, b := range bars {
				if r.Intn(3) == 0 {
					to = append(to, b)
				}
			}
			if len(to) == 0 || r.Intn(2) == 0 {
				to = append(to, nil)
			}
			reg, err := res.Region(from, to)
			if err != nil {
				if strings.Contains(err.Error(), "no barrier section starts") || strings.Contains(err.Error(), "no path from") || strings.Contains(err.Error(), "passes neither the region's first barrier") {
					continue
				}
				t.Fatalf("seed %d: region %v -> %v: %v\n%s", seed, from, to, err, src)
			}
			regions++
			if reg.Path == nil {
				cyclic++
			}
			heaviest, complete, err := heaviestStretch(k, res, boundsByLabel(g.bounds), from, to, 20000, func(x int64) {
				t.Errorf("seed %d: region %v -> %v: a concrete stretch costs %d > bound %d\n%s", seed, from, to, x, reg.Bound, src)
			}, int64(reg.Bound))
			if err != nil {
				t.Fatal(err)
			}
			if complete && heaviest >= 0 && heaviest != int64(reg.Bound) && backEdges && exact {
				t.Errorf("seed %d: region %v -> %v: bound %d, costliest concrete stretch %d (exact walks)\n%s", seed, from, to, reg.Bound, heaviest, src)
			}
			if part != nil {
				p, err := part.Region(from, to)
				switch {
				case err == nil && p.Bound != reg.Bound:
					t.Errorf("seed %d: region %v -> %v: %d with a loop unbounded, %d with every bound\n%s", seed, from, to, p.Bound, reg.Bound, src)
				case err == nil:
					partialSame++
				case !Unbounded(err):
					t.Errorf("seed %d: region %v -> %v with a loop unbounded: %v, want not bounded\n%s", seed, from, to, err, src)
				default:
					partialRefused++
				}
			}
			if t.Failed() {
				return
			}
		}
	}
	t.Logf("%d regions (%d crossing a barrier loop); with a loop unbounded: %d the same, %d refused", regions, cyclic, partialSame, partialRefused)
	if regions < *propN || cyclic < *propN/10 || partialSame < *propN/4 || partialRefused < *propN/10 {
		t.Errorf("too few cases: %d regions, %d crossing a barrier loop, %d bounded and %d refused with a loop unbounded", regions, cyclic, partialSame, partialRefused)
	}
}

func TestRegionRefused(t *testing.T) {
	k := build(t, breakLoop)
	res, err := k.analyze(t, 2, map[string]int64{"L": 3})
	if err != nil {
		t.Fatal(err)
	}
	fn := k.g.Func
	for _, tc := range []struct {
		from *isa.Instr
		to   []*isa.Instr
		want string
	}{
		{fn.Instrs[7], []*isa.Instr{fn.Instrs[2]}, "no path from"},
		{fn.Instrs[0], []*isa.Instr{nil}, "no barrier section starts at"},
		{fn.Instrs[11], []*isa.Instr{fn.Instrs[2]}, "no path from"},
		{fn.Instrs[2], nil, "no end given"},
	} {
		if _, err := res.Region(tc.from, tc.to); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Region(%v, %v) = %v, want an error containing %q", tc.from, tc.to, err, tc.want)
		}
	}
}

// TestRegionPartial: with the tile loop unbounded, the block is not bounded
// (an error without Partial, Incomplete with it), the phases inside the
// tile loop are bounded exactly as with a bound, and a region whose stretch
// needs the tile loop's bound (its entry, or a cycle around it that passes
// no barrier of the region: here only the whole block) is refused as not
// bounded; so is a region that crosses an unbounded loop holding barriers.
func TestRegionPartial(t *testing.T) {
	k := build(t, innerLoop)
	if _, err := k.analyze(t, 2, map[string]int64{"K": 3}); err == nil || !Unbounded(err) {
		t.Fatalf("without a bound for T: %v, want not bounded", err)
	}
	part, err := k.analyzePartial(t, 2, map[string]int64{"K": 3}, true)
	if err != nil {
		t.Fatal(err)
	}
	if part.Incomplete == nil || !Unbounded(part.Incomplete) || part.Bound != 0 {
		t.Fatalf("partial: incomplete %v, bound %d", part.Incomplete, part.Bound)
	}
	full, err := k.analyze(t, 2, map[string]int64{"K": 3, "T": 7})
	if err != nil {
		t.Fatal(err)
	}
	fn := k.g.Func
	b := func(i int) *isa.Instr { return fn.Instrs[i] }
	for _, r := range [][2]*isa.Instr{{b(2), b(5)}, {b(5), b(12)}, {b(12), b(2)}, {nil, b(5)}} {
		x, err1 := part.Region(r[0], []*isa.Instr{r[1], nil})
		y, err2 := full.Region(r[0], []*isa.Instr{r[1], nil})
		if err1 != nil || err2 != nil || x.Bound != y.Bound {
			t.Errorf("region %d -> %d: partial %v (%v), full %v (%v)", r[0].Index, r[1].Index, x, err1, y, err2)
		}
	}
	for _, r := range []struct {
		from *isa.Instr
		to   []*isa.Instr
	}{
		{nil, []*isa.Instr{nil}},
	} {
		if _, err := part.Region(r.from, r.to); err == nil || !Unbounded(err) {
			t.Errorf("region %v -> %v: %v, want not bounded", r.from, r.to, err)
		}
	}
	// K unbounded: the compute phase is not bounded, the prefetch is.
	part, err = k.analyzePartial(t, 2, map[string]int64{"T": 7}, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.Region(b(5), []*isa.Instr{b(12)}); err == nil || !Unbounded(err) {
		t.Errorf("compute with K unbounded: %v, want not bounded", err)
	}
	if _, err := part.Region(b(2), []*isa.Instr{b(5)}); err != nil {
		t.Errorf("prefetch with K unbounded: %v", err)
	}
}

// TestRegionAgainstSimulator: on random programs with barriers at every
// depth and in loops, every concrete path allowed by the loop bounds, run
// by 3 warps in the reference simulator (phases/sim, which shares no code
// with the walks) under LRR and GTO with reach and drain barriers: every
// stretch of a bounded region — from a crossing of its first barrier (or
// the start) to the next crossing of one of its last (or the block's end)
// — lasts, from release to release, at least the region's lower bound,
// and from completion to completion at most its bound: the completion of a
// crossing is the cycle at which every result issued before the release
// is ready (with reach barriers results may still be in flight at a
// release, and the section induction of docs/model.md starts from a
// drained SM; the block's end is its completion).
func TestRegionAgainstSimulator(t *testing.T) {
	const warps = 3
	regions, stretches, tight := 0, 0, 0
	for seed := int64(1); seed <= int64(*propN); seed++ {
		r, g, src, k := barrierProgram(t, seed)
		res, err := k.analyze(t, warps, g.bounds)
		if err != nil {
			continue
		}
		var bars []*isa.Instr
		for _, in := range k.g.Func.Instrs {
			if in.Kind == isa.KindBarrier {
				bars = append(bars, in)
			}
		}
		type region struct {
			from *isa.Instr
			to   []*isa.Instr
			reg  *Region
			min  hwdesc.Cycles
		}
		var regs []*region
		for _, from := range append([]*isa.Instr{nil}, bars...) {
			var to []*isa.Instr
			for _, b := range bars {
				if r.Intn(3) == 0 {
					to = append(to, b)
				}
			}
			if len(to) == 0 || r.Intn(2) == 0 {
				to = append(to, nil)
			}
			reg, err := res.Region(from, to)
			if err != nil {
				continue
			}
			regs = append(regs, &region{from: from, to: to, reg: reg, min: -1})
		}
		if len(regs) == 0 {
			continue
		}
		regions += len(regs)
		_, _, err = EnumeratePaths(k.g, boundsByLabel(g.bounds), 300, func(path []*isa.Instr) bool {
			var crossed []*isa.Instr // the barriers of the path, in order
			for _, in := range path {
				if in.Kind == isa.KindBarrier {
					crossed = append(crossed, in)
				}
			}
			paths := make([][]*isa.Instr, warps)
			for w := range paths {
				paths[w] = path
			}
			for _, mode := range []sim.BarrierMode{sim.BarrierReach, sim.BarrierDrain} {
				p, err := sim.CompileFunc(k.eng.HW(), paths, mode, k.g.Func)
				if err != nil {
					t.Fatal(err)
				}
				for _, pol := range []sim.PolicyKind{sim.LRR, sim.GTO} {
					run, err := p.Run(sim.Policy{Kind: pol}, sim.Options{Timeline: true})
					if err != nil {
						t.Fatal(err)
					}
					if len(run.Releases) != len(crossed) {
						t.Fatalf("seed %d: %d releases for %d barriers crossed", seed, len(run.Releases), len(crossed))
					}
					// done[i]: every result issued before release i ready.
					done := slices.Clone(run.Releases)
					for _, evs := range run.Timeline {
						var ready hwdesc.Cycles
						i := 0
						for _, e := range evs {
							// An issuing barrier's result belongs to the
							// section it ends (docs/model.md).
							ready = max(ready, e.Ready)
							if e.Barrier {
								done[i] = max(done[i], ready)
								i++
							}
						}
					}
					// at(i), fin(i): the release and the completion of
					// crossing i; -1 the start, len(crossed) the end.
					at := func(i int) hwdesc.Cycles {
						switch {
						case i < 0:
							return 0
						case i == len(crossed):
							return run.Makespan
						}
						return run.Releases[i]
					}
					fin := func(i int) hwdesc.Cycles {
						if i >= 0 && i < len(crossed) {
							return done[i]
						}
						return at(i)
					}
					for _, rg := range regs {
						isTo := func(b *isa.Instr) bool { return slices.Contains(rg.to, b) }
						for i := -1; i < len(crossed); i++ {
							if (i < 0) != (rg.from == nil) || (i >= 0 && crossed[i] != rg.from) {
								continue
							}
							for j := i + 1; j <= len(crossed); j++ {
								end := j == len(crossed)
								if (end && isTo(nil)) || (!end && isTo(crossed[j])) {
									d, c := at(j)-at(i), fin(j)-fin(i)
									stretches++
									if d < rg.reg.Lower || c > rg.reg.Bound {
										t.Errorf("seed %d: region %v -> %v, %v barriers, %v: a stretch lasts %d cycles from release to release (lower bound %d), %d from completion to completion (bound %d)\n%s",
											seed, rg.from, rg.to, mode, pol, d, rg.reg.Lower, c, rg.reg.Bound, src)
										return false
									}
									if rg.min < 0 || d < rg.min {
										rg.min = d
									}
									break
								}
								if end || crossed[j] == rg.from {
									break
								}
							}
						}
					}
				}
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			return
		}
		for _, rg := range regs {
			if rg.min == rg.reg.Lower {
				tight++
			}
		}
	}
	t.Logf("%d regions, %d stretches simulated; lower bound equal to the shortest simulated stretch for %d regions", regions, stretches, tight)
	if regions < *propN || stretches < 10**propN {
		t.Errorf("too few cases: %d regions, %d stretches", regions, stretches)
	}
}
