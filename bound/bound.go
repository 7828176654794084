// Package bound computes the block bound from the phase profiles of the
// phases pass: per barrier section, a warp upper bound (WUB) for every warp
// and the maximum over warps; the section bounds are summed.
//
// Two figures are computed for every section (docs/model.md gives the
// proofs and the reason for two):
//
//   - Bound, the sound bound of gpuwcet's reference model: WUB(w) =
//     the longest isolated critical path of w charged with the
//     interference of the other warps w', per resource r: a resource the
//     path initiates on costs the others' initiation cycles InitSum_r(w'),
//     any other resource only their issue cycles Issued_r(w')
//     (SectionBound). It is never above the earlier rule
//     Σ_{w'≠w} (InitSum(w') + Issued(w'));
//   - GUB, the ECRTS 2025 formula:
//     WUB(w) = duration(w) + Σ_{w' ≠ w} exec(w'),
//     kept for comparison with the paper. Its published proof assumes that
//     the cycles in which other warps initiate instructions number at most
//     their isolated exec phases, which does not hold when contention
//     separates initiations that overlap in isolation, and it does not count
//     lost issue slots; gpuwcet reports it but never uses it as the bound.
//
// Bound may be below GUB when other warps initiate on resources w does
// not use.
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

	// Exact, when set by the caller, is the exact worst case of the block
	// over every work-conserving schedule of the reference model (package
	// phases/sim/explore): Reported gives it instead of Bound.
	Exact *Exact
}

// Exact is the exact worst case of a block, found by exhaustive search
// within a budget of normalised states (phases/sim/explore).
type Exact struct {
	Cycles hwdesc.Cycles
	States int // distinct normalised states explored
	Budget int // the budget they fitted in
}

// Reported returns the figure gpuwcet reports: the exact worst case when
// it is known, otherwise the closed-form bound.
func (r *Result) Reported() hwdesc.Cycles {
	if r.Exact != nil {
		return r.Exact.Cycles
	}
	return r.Bound
}

// Section is the bound of one barrier section.
type Section struct {
	Index   int
	Barrier *isa.Instr // the barrier ending the section; nil for the last
	Bound   hwdesc.Cycles
	GUB     hwdesc.Cycles
	Classes []*Warp // in the order of the profile's classes
}

// Warp is the bound of a class of identical warps in a section. The
// embedded Charge holds its WUB and the interference charged to one of its
// warps by the others, with the per-resource breakdown.
type Warp struct {
	Warps    []int
	Duration hwdesc.Cycles // isolated duration
	Exec     hwdesc.Cycles // isolated exec phases
	Load     hwdesc.Cycles // InitSum + Issued of one warp of the class
	Charge
	PaperWUB hwdesc.Cycles // ECRTS 2025 warp bound
	Phases   []phases.Phase
}

// Compute computes the bound of a profile.
func Compute(p *phases.Profile) (*Result, error) {
	r := &Result{Func: p.Func, HW: p.HW, NumWarps: p.NumWarps}
	for s := 0; s < p.NumSections; s++ {
		sec := &Section{Index: s}
		var totExec hwdesc.Cycles
		ts := make([]Terms, len(p.Classes))
		for i, c := range p.Classes {
			ps := c.Sections[s]
			if sec.Barrier == nil {
				sec.Barrier = ps.Barrier
			}
			var ok bool
			totExec, ok = addMul(totExec, hwdesc.Cycles(len(c.Warps)), ps.Exec)
			if !ok {
				return nil, fmt.Errorf("bound: %s: section %d: bound overflows 64-bit cycles", p.Func, s)
			}
			ts[i] = Terms{Warps: len(c.Warps), Duration: ps.Duration, Load: ps.InitSum + hwdesc.Cycles(ps.Issued), Loads: ps.Loads, Chains: ps.Chains}
			sec.Classes = append(sec.Classes, &Warp{Warps: c.Warps, Duration: ps.Duration, Exec: ps.Exec, Load: ts[i].Load, Phases: ps.Phases})
		}
		var cs []Charge
		var err error
		if sec.Bound, cs, err = SectionBound(ts); err != nil {
			return nil, fmt.Errorf("bound: %s: section %d: %w", p.Func, s, err)
		}
		for i, w := range sec.Classes {
			w.Charge = cs[i]
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
// one section: the number of warps, upper bounds of the isolated duration
// and, per resource, of the instructions one warp issues there and of the
// sum of their initiation intervals, and an upper bound of the warp's
// whole InitSum + Issued. On a fixed path Load is the sum of the Loads; the
// static multi-path analysis (package bound/static) passes maxima over
// paths, each taken separately, so that Load may be below the sum.
type Terms struct {
	Warps    int
	Duration hwdesc.Cycles
	Load     hwdesc.Cycles
	Loads    []phases.Load // indexed by resource (phases.Op.Resource)
	// Chains cover the isolated critical paths of the class by the
	// resources they initiate on (phases.Section.Chains): every path of
	// the dependence graph ending at a result is at most the Len of a
	// chain whose Res holds every resource it initiates on. nil: one
	// chain of length Duration on every resource the class uses.
	Chains []phases.Chain
}

// Charge is the bound of one class in a section: its WUB and the
// interference charged to one of its warps by all the other warps of the
// block, along the chain (isolated critical path) that maximises the WUB.
type Charge struct {
	WUB hwdesc.Cycles // Path + Interference
	// Path is the length of the chain charged (at most the class's
	// duration): WUB = max over chains c of Len(c) + charge(Res(c)).
	Path         hwdesc.Cycles
	Interference hwdesc.Cycles // min(PerResource, WholePath)
	// PerResource is the per-resource charge of the chain (the sum of
	// ByRes), and WholePath the charge Σ_{w'} Load(w') of the coarser
	// rule; they differ in the static analysis only, where per-resource
	// maxima over paths may come from different paths.
	PerResource, WholePath hwdesc.Cycles
	// ByRes is the per-resource breakdown, by increasing resource, of
	// every resource with a nonzero charge.
	ByRes []ResCharge
}

// ResCharge is what the other warps are charged for one resource r.
type ResCharge struct {
	Res int // resource index (phases.Op.Resource)
	// Own: the charged chain initiates on r (r ∈ Res(c) ⊆ R(w)), so
	// the warp may wait in r's FIFO.
	Own bool
	// Init: the other warps' initiation cycles on r, Σ InitSum_r(w'),
	// when Own, 0 otherwise. Issue: their issue cycles on r,
	// Σ Issued_r(w'), when not Own, 0 otherwise (docs/model.md, Lemma 5:
	// their issue cycles on a resource the chain initiates on are paid
	// by their initiations there).
	Init, Issue hwdesc.Cycles
}

// SectionBound returns the sound bound of one section and the charge
// of every class (docs/model.md, "The bound and its proof", "The per-path
// charge" and "No issue term on the path's resources"): for a warp w of
// class c, with R(w) the resources its class uses (Loads[r].InitSum > 0)
// and the sums over the other warps of the block (the Warps−1 other warps
// of c and all warps of the other classes), the charge of a resource set
// R' ⊆ R(w) is
//
//	PR(R') = Σ_{r∈R'} Σ_{w'} InitSum_r(w') + Σ_{r∉R'} Σ_{w'} Issued_r(w'),
//	WholePath = Σ_{w'} Load(w'),
//
// and WUB(w) = max over the class's chains ch of Len(ch) + min(PR(Res(ch)),
// WholePath) (one chain, Duration on R(w), without Chains). The section
// bound is the largest WUB.
func SectionBound(ts []Terms) (hwdesc.Cycles, []Charge, error) {
	var tot hwdesc.Cycles // Σ warps·Load
	nres := 0
	for _, t := range ts {
		if t.Warps < 1 || t.Duration < 0 || t.Load < 0 {
			return 0, nil, fmt.Errorf("invalid section terms: %d warps, duration %d, load %d", t.Warps, t.Duration, t.Load)
		}
		if t.Duration > math.MaxInt64/4 {
			return 0, nil, fmt.Errorf("bound overflows 64-bit cycles")
		}
		for _, ch := range t.Chains {
			if ch.Len < 0 || ch.Len > t.Duration {
				return 0, nil, fmt.Errorf("invalid section terms: chain of %d cycles, duration %d", ch.Len, t.Duration)
			}
		}
		var ok bool
		if tot, ok = addMul(tot, hwdesc.Cycles(t.Warps), t.Load); !ok {
			return 0, nil, fmt.Errorf("bound overflows 64-bit cycles")
		}
		nres = max(nres, len(t.Loads))
	}
	// Block totals per resource: Σ warps·InitSum_r and Σ warps·Issued_r.
	totInit := make([]hwdesc.Cycles, nres)
	totIss := make([]hwdesc.Cycles, nres)
	for _, t := range ts {
		for r, l := range t.Loads {
			if l.Issued < 0 || l.InitSum < 0 {
				return 0, nil, fmt.Errorf("invalid section terms: resource %d: issued %d, init sum %d", r, l.Issued, l.InitSum)
			}
			var ok1, ok2 bool
			totInit[r], ok1 = addMul(totInit[r], hwdesc.Cycles(t.Warps), l.InitSum)
			totIss[r], ok2 = addMul(totIss[r], hwdesc.Cycles(t.Warps), hwdesc.Cycles(l.Issued))
			if !ok1 || !ok2 {
				return 0, nil, fmt.Errorf("bound overflows 64-bit cycles")
			}
		}
	}
	var b hwdesc.Cycles
	cs := make([]Charge, len(ts))
	for i, t := range ts {
		own := func(r int) load {
			if r < len(t.Loads) {
				return load{Issued: hwdesc.Cycles(t.Loads[r].Issued), InitSum: t.Loads[r].InitSum}
			}
			return load{}
		}
		chains := t.Chains
		if len(chains) == 0 {
			all := []int{}
			for r := 0; r < nres; r++ {
				if own(r).InitSum > 0 {
					all = append(all, r)
				}
			}
			chains = []phases.Chain{{Res: all, Len: t.Duration}}
		}
		best := Charge{WUB: -1}
		for _, ch := range chains {
			c := Charge{WholePath: tot - t.Load, Path: ch.Len}
			k := 0 // next resource of ch.Res
			for r := 0; r < nres; r++ {
				o := own(r)
				onPath := false
				for k < len(ch.Res) && ch.Res[k] < r {
					k++
				}
				if k < len(ch.Res) && ch.Res[k] == r {
					onPath = o.InitSum > 0
				}
				oInit, oIss := totInit[r]-o.InitSum, totIss[r]-o.Issued
				rc := ResCharge{Res: r, Own: onPath}
				if onPath {
					rc.Init = oInit
				} else {
					rc.Issue = oIss
				}
				if rc.Init+rc.Issue == 0 {
					continue
				}
				c.PerResource += rc.Init + rc.Issue // each ≤ a block total ≤ MaxInt64/4
				if c.PerResource > math.MaxInt64/4 {
					return 0, nil, fmt.Errorf("bound overflows 64-bit cycles")
				}
				c.ByRes = append(c.ByRes, rc)
			}
			c.Interference = min(c.PerResource, c.WholePath)
			c.WUB = c.Path + c.Interference
			if c.WUB > best.WUB || c.WUB == best.WUB && c.Path > best.Path {
				best = c
			}
		}
		cs[i] = best
		b = max(b, best.WUB)
	}
	return b, cs, nil
}

// load is a resource load in cycles (phases.Load with Issued as Cycles).
type load struct{ Issued, InitSum hwdesc.Cycles }

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

// Check verifies the invariants of a result: every WUB is the warp's
// duration plus its interference, the per-resource breakdown sums to the
// per-resource charge, which on a fixed path is never above the
// whole-path charge (so it is the interference), section figures are the
// maxima and the totals are the sums. The bound may be below the ECRTS
// 2025 GUB: an other warp's initiations on a resource w does not use are
// not charged to w.
func (r *Result) Check() error {
	var b, g hwdesc.Cycles
	for _, s := range r.Sections {
		var mb, mg hwdesc.Cycles
		for _, w := range s.Classes {
			var sum hwdesc.Cycles
			for _, rc := range w.ByRes {
				sum += rc.Init + rc.Issue
			}
			if w.WUB != w.Path+w.Interference || w.Path > w.Duration || sum != w.PerResource || w.Interference != w.PerResource || w.PerResource > w.WholePath || w.Load < w.Exec {
				return fmt.Errorf("section %d warp %d: WUB %d, path %d, duration %d, interference %d, per resource %d (breakdown %d), whole path %d, load %d < exec %d", s.Index, w.Warps[0], w.WUB, w.Path, w.Duration, w.Interference, w.PerResource, sum, w.WholePath, w.Load, w.Exec)
			}
			mb, mg = max(mb, w.WUB), max(mg, w.PaperWUB)
		}
		if mb != s.Bound || mg != s.GUB {
			return fmt.Errorf("section %d: bound %d / GUB %d, maxima %d / %d", s.Index, s.Bound, s.GUB, mb, mg)
		}
		b += s.Bound
		g += s.GUB
	}
	if b != r.Bound || g != r.GUB {
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
