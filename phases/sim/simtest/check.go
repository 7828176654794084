package simtest

import (
	"fmt"

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

// Outcome is the longest execution the simulator found for a case.
type Outcome struct {
	Makespan hwdesc.Cycles   // longest makespan over the policies and barrier modes
	Policy   string          // the policy that produced it
	Mode     sim.BarrierMode // the barrier semantics it ran under
	Isolated hwdesc.Cycles   // longest isolated duration of a warp (reach semantics)
	Issued   int64           // warp-instructions issued per run
}

func (o Outcome) String() string {
	return fmt.Sprintf("makespan %d (%s, barriers %s), longest isolated warp %d", o.Makespan, o.Policy, o.Mode, o.Isolated)
}

// Worst simulates the case under every policy of Policies with the model's
// barrier semantics (BarrierReach), under LRR and GTO with BarrierDrain,
// and each distinct warp alone, and returns the longest execution.
func Worst(c *Case, seed int64, budget int) (Outcome, error) {
	var o Outcome
	p, err := sim.Compile(c.HW, c.Warps, sim.BarrierReach)
	if err != nil {
		return o, err
	}
	o.Issued = p.Issues()
	for w := range c.Warps {
		if w > 0 && sameSlice(c.Warps[w], c.Warps[w-1]) {
			continue
		}
		r, err := p.Warp(w).Run(sim.Policy{Kind: sim.LRR}, sim.Options{})
		if err != nil {
			return o, err
		}
		o.Isolated = max(o.Isolated, r.Makespan)
	}
	for _, mode := range []sim.BarrierMode{sim.BarrierReach, sim.BarrierDrain} {
		p, err := p.WithBarrier(mode)
		if err != nil {
			return o, err
		}
		pols := Policies(seed, budget)
		if mode == sim.BarrierDrain {
			pols = pols[:2]
		}
		for _, pol := range pols {
			r, err := p.Run(pol, sim.Options{})
			if err != nil {
				return o, err
			}
			if r.Makespan > o.Makespan || o.Policy == "" {
				o.Makespan, o.Policy, o.Mode = r.Makespan, r.Policy, mode
			}
		}
	}
	return o, nil
}
