package simtest

import (
	"fmt"
	"strconv"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
	"github.com/gpuwcet/gpuwcet/phases/sim"
)

// Func wraps the case's paths as a kernel with a trace, the input the
// phases pass and the bound read.
func (c *Case) Func() *isa.Func {
	fn := &isa.Func{Name: "case", Entry: true, Trace: &isa.Trace{}}
	for w, p := range c.Warps {
		fn.Trace.Warps = append(fn.Trace.Warps, isa.WarpPath{Warp: w, Instrs: p})
	}
	return fn
}

// Profile builds the phase profile of the case (package phases).
func (c *Case) Profile() (*phases.Profile, error) {
	return phases.Build(nil, c.Func(), c.HW, 0, false)
}

// PaperGUB is the ECRTS 2025 bound computed from a profile: per barrier
// section, GUB = max over warps w of (w's section duration + the exec
// phases of every other warp in the section), summed over sections.
func PaperGUB(p *phases.Profile) hwdesc.Cycles {
	var total hwdesc.Cycles
	for s := 0; s < p.NumSections; s++ {
		var exec hwdesc.Cycles
		for _, c := range p.Classes {
			exec += hwdesc.Cycles(len(c.Warps)) * c.Sections[s].Exec
		}
		var g hwdesc.Cycles
		for _, c := range p.Classes {
			sec := c.Sections[s]
			g = max(g, sec.Duration+exec-sec.Exec)
		}
		total += g
	}
	return total
}

// Policies returns the policies the property tests run on each case: LRR,
// GTO, a random policy and the adversarial search, seeded from the case
// seed.
func Policies(seed int64, budget int) []sim.Policy {
	return []sim.Policy{
		{Kind: sim.LRR},
		{Kind: sim.GTO},
		{Kind: sim.Random, Seed: uint64(seed)},
		{Kind: sim.Adversarial, Seed: uint64(seed), Budget: budget},
	}
}

// Violation describes a simulated makespan above the bound.
type Violation struct {
	Policy   string
	Makespan hwdesc.Cycles
	Bound    hwdesc.Cycles
	What     string // "makespan > bound" or "isolated warp > bound"
}

func (v *Violation) String() string {
	return fmt.Sprintf("%s: %s (%d > %d)", v.Policy, v.What, v.Makespan, v.Bound)
}

// Check simulates the case under every policy and compares with the bound
// computed by bound(c): every makespan and every warp's isolated duration
// must be at most the bound. It returns the first violation (nil when
// sound) and an error when the case cannot be judged.
func Check(c *Case, seed int64, budget int, bound func(*Case) (hwdesc.Cycles, error)) (*Violation, error) {
	b, err := bound(c)
	if err != nil {
		return nil, fmt.Errorf("bound: %w", err)
	}
	p, err := sim.Compile(c.HW, c.Warps, sim.BarrierDrain)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	for w := range c.Warps {
		if w > 0 && sameSlice(c.Warps[w], c.Warps[w-1]) {
			continue
		}
		q, err := sim.Compile(c.HW, c.Warps[w:w+1], sim.BarrierDrain)
		if err != nil {
			return nil, err
		}
		r, err := q.Run(sim.Policy{Kind: sim.LRR}, sim.Options{})
		if err != nil {
			return nil, err
		}
		if r.Makespan > b {
			return &Violation{Policy: "isolation(warp " + strconv.Itoa(w) + ")", Makespan: r.Makespan, Bound: b, What: "isolated warp > bound"}, nil
		}
	}
	for _, pol := range Policies(seed, budget) {
		r, err := p.Run(pol, sim.Options{})
		if err != nil {
			return nil, err
		}
		if r.Makespan > b {
			return &Violation{Policy: r.Policy, Makespan: r.Makespan, Bound: b, What: "makespan > bound"}, nil
		}
	}
	return nil, nil
}
