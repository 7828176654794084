// Package bound computes the block bound from the phase profiles of the
// phases pass: per barrier section, a warp upper bound (WUB) for every warp
// and the maximum over warps; the section bounds are summed.
//
// Two figures are computed for every section (docs/model.md gives the
// proofs and the reason for two):
//
//   - Bound, the sound bound of gpuwcet's reference model:
//     WUB(w) = duration(w) + Σ_{w' ≠ w} (InitSum(w') + Issued(w')),
//     where InitSum is the sum of the initiation intervals of the
//     instructions of w' in the section and Issued their number (one issue
//     cycle each, which another warp may lose);
//   - GUB, the ECRTS 2025 formula:
//     WUB(w) = duration(w) + Σ_{w' ≠ w} exec(w'),
//     kept for comparison with the paper. Its published proof assumes that
//     the cycles in which other warps initiate instructions number at most
//     their isolated exec phases, which does not hold when contention
//     separates initiations that overlap in isolation, and it does not count
//     lost issue slots; gpuwcet reports it but never uses it as the bound.
//
// Bound ≥ GUB always holds, because exec(w') ≤ InitSum(w').
package bound

import (
	"fmt"
	"math"
	"reflect"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// Analyzer computes the block bound.
var Analyzer = &pass.Analyzer{
	Name: "bound",
	Doc: `block WCET bound (WUB per warp, GUB per section)

The bound pass sums, over the barrier sections of the kernel, the largest
warp upper bound of the section: the warp's isolated duration plus the
interference of every other warp of the block (docs/model.md). It also
reports the ECRTS 2025 GUB formula for comparison.`,
	Requires:   []*pass.Analyzer{phases.Analyzer},
	ResultType: reflect.TypeOf((*Result)(nil)),
	Run: func(p *pass.Pass) (any, error) {
		return Compute(p.ResultOf[phases.Analyzer].(*phases.Profile))
	},
	Check: func(r any) error { return r.(*Result).Check() },
}

// Result is the bound of one kernel.
type Result struct {
	Func     string
	HW       *hwdesc.Desc
	NumWarps int
	Sections []*Section

	// Bound is the sound bound: the sum of the section bounds, in cycles.
	Bound hwdesc.Cycles
	// GUB is the sum of the sections' ECRTS 2025 GUB, for comparison.
	GUB hwdesc.Cycles
}

// Section is the bound of one barrier section.
type Section struct {
	Index   int
	Barrier *isa.Instr // the barrier ending the section; nil for the last
	Bound   hwdesc.Cycles
	GUB     hwdesc.Cycles
	Classes []*Warp // in the order of the profile's classes
}

// Warp is the bound of a class of identical warps in a section.
type Warp struct {
	Warps        []int
	Duration     hwdesc.Cycles // isolated duration
	Exec         hwdesc.Cycles // isolated exec phases
	Interference hwdesc.Cycles // what one warp of the class costs another: InitSum + Issued
	WUB          hwdesc.Cycles // sound warp bound
	PaperWUB     hwdesc.Cycles // ECRTS 2025 warp bound
	Phases       []phases.Phase
}

// Compute computes the bound of a profile.
func Compute(p *phases.Profile) (*Result, error) {
	r := &Result{Func: p.Func, HW: p.HW, NumWarps: p.NumWarps}
	for s := 0; s < p.NumSections; s++ {
		sec := &Section{Index: s}
		var totInt, totExec hwdesc.Cycles
		for _, c := range p.Classes {
			ps := c.Sections[s]
			if sec.Barrier == nil {
				sec.Barrier = ps.Barrier
			}
			m := hwdesc.Cycles(len(c.Warps))
			intf := ps.InitSum + hwdesc.Cycles(ps.Issued)
			var ok1, ok2 bool
			totInt, ok1 = addMul(totInt, m, intf)
			totExec, ok2 = addMul(totExec, m, ps.Exec)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("bound: %s: section %d: bound overflows 64-bit cycles", p.Func, s)
			}
			sec.Classes = append(sec.Classes, &Warp{Warps: c.Warps, Duration: ps.Duration, Exec: ps.Exec, Interference: intf, Phases: ps.Phases})
		}
		ts := make([]Terms, len(sec.Classes))
		for i, w := range sec.Classes {
			ts[i] = Terms{Warps: len(w.Warps), Duration: w.Duration, Interference: w.Interference}
		}
		var wubs []hwdesc.Cycles
		var err error
		if sec.Bound, wubs, err = SectionBound(ts); err != nil {
			return nil, fmt.Errorf("bound: %s: section %d: %w", p.Func, s, err)
		}
		for i, w := range sec.Classes {
			w.WUB = wubs[i]
			w.PaperWUB = w.Duration + totExec - w.Exec
			sec.GUB = max(sec.GUB, w.PaperWUB)
		}
		if sec.Bound > math.MaxInt64-r.Bound {
			return nil, fmt.Errorf("bound: %s: bound overflows 64-bit cycles", p.Func)
		}
		r.Bound += sec.Bound
		r.GUB += sec.GUB
		r.Sections = append(r.Sections, sec)
	}
	return r, nil
}

// Terms are what the sound bound needs of one class of identical warps in
// one section: the number of warps, and upper bounds of the isolated
// duration and of the interference InitSum + Issued of one warp. The static
// multi-path analysis (package phases/static) passes maxima over paths.
type Terms struct {
	Warps        int
	Duration     hwdesc.Cycles
	Interference hwdesc.Cycles
}

// SectionBound returns the sound bound of one section and the WUB of every
// class: WUB(c) = Duration(c) + Σ_{other warps w'} Interference(w'), the
// other warps being the Warps−1 other warps of c and all warps of the other
// classes; the bound is the largest WUB (docs/model.md, "The bound and its
// proof").
func SectionBound(ts []Terms) (hwdesc.Cycles, []hwdesc.Cycles, error) {
	var tot hwdesc.Cycles
	for _, t := range ts {
		if t.Warps < 1 || t.Duration < 0 || t.Interference < 0 {
			return 0, nil, fmt.Errorf("invalid section terms: %d warps, duration %d, interference %d", t.Warps, t.Duration, t.Interference)
		}
		var ok bool
		if tot, ok = addMul(tot, hwdesc.Cycles(t.Warps), t.Interference); !ok {
			return 0, nil, fmt.Errorf("bound overflows 64-bit cycles")
		}
	}
	var b hwdesc.Cycles
	wubs := make([]hwdesc.Cycles, len(ts))
	for i, t := range ts {
		if t.Duration > math.MaxInt64/4 {
			return 0, nil, fmt.Errorf("bound overflows 64-bit cycles")
		}
		wubs[i] = t.Duration + tot - t.Interference
		b = max(b, wubs[i])
	}
	return b, wubs, nil
}

func addMul(acc, m, x hwdesc.Cycles) (hwdesc.Cycles, bool) {
	if x != 0 && m > (math.MaxInt64/4)/x {
		return 0, false
	}
	v := m * x
	if acc > math.MaxInt64/4-v {
		return 0, false
	}
	return acc + v, true
}

// Check verifies the invariants of a result: every WUB is at least the
// warp's duration and its paper WUB, section figures are the maxima, the
// totals are the sums, and Bound ≥ GUB.
func (r *Result) Check() error {
	var b, g hwdesc.Cycles
	for _, s := range r.Sections {
		var mb, mg hwdesc.Cycles
		for _, w := range s.Classes {
			if w.WUB < w.Duration || w.WUB < w.PaperWUB || w.Interference < w.Exec {
				return fmt.Errorf("section %d warp %d: WUB %d, paper %d, duration %d, interference %d < exec %d", s.Index, w.Warps[0], w.WUB, w.PaperWUB, w.Duration, w.Interference, w.Exec)
			}
			mb, mg = max(mb, w.WUB), max(mg, w.PaperWUB)
		}
		if mb != s.Bound || mg != s.GUB {
			return fmt.Errorf("section %d: bound %d / GUB %d, maxima %d / %d", s.Index, s.Bound, s.GUB, mb, mg)
		}
		b += s.Bound
		g += s.GUB
	}
	if b != r.Bound || g != r.GUB || r.Bound < r.GUB {
		return fmt.Errorf("totals: bound %d GUB %d, sums %d %d", r.Bound, r.GUB, b, g)
	}
	return nil
}

// Nanoseconds converts cycles to nanoseconds at the description's clock,
// rounded up; ok is false when the description has no clock.
func Nanoseconds(c hwdesc.Cycles, hw *hwdesc.Desc) (ns int64, ok bool) {
	if hw == nil || hw.ClockMHz <= 0 {
		return 0, false
	}
	mhz := hw.ClockMHz
	if mhz == math.Trunc(mhz) && c < math.MaxInt64/1000 {
		m := int64(mhz)
		return (int64(c)*1000 + m - 1) / m, true
	}
	return int64(math.Ceil(float64(c) * 1000 / mhz)), true
}
