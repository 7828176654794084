package sim

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
)

// PolicyKind names a warp scheduling policy.
type PolicyKind uint8

const (
	// LRR is loose round robin: the eligible warp that comes first in
	// cyclic order after the warp that issued last (warp 0 first).
	LRR PolicyKind = iota
	// GTO is greedy then oldest: the warp that issued last keeps issuing
	// while eligible, otherwise the eligible warp with the lowest index.
	GTO
	// Random picks a uniformly random eligible warp each cycle,
	// reproducibly from Policy.Seed.
	Random
	// Priority issues the eligible warp that comes first in Policy.Order
	// (a static priority order; warps not listed come last, by index).
	Priority
	// Adversarial searches for a long schedule: it runs LRR, GTO, the
	// youngest-first order, most- and least-remaining, random priority
	// orders improved by swaps, and random policies, and returns the
	// longest schedule found.
	Adversarial
	// MostRemaining issues the eligible warp with the most instructions
	// left (ties: lowest index), a critical-path heuristic.
	MostRemaining
	// LeastRemaining issues the eligible warp with the fewest instructions
	// left (ties: lowest index).
	LeastRemaining
	// Script replays a recorded schedule: the k-th issue of the run goes
	// to warp Policy.Order[k] when it is eligible (otherwise, or past the
	// end of Order, to the eligible warp with the lowest index). It
	// replays the witnesses of the exhaustive explorer (package explore).
	Script
)

// Policy is a work-conserving warp scheduling policy.
type Policy struct {
	Kind  PolicyKind
	Seed  uint64 // Random, Adversarial
	Order []int  // Priority: warps from highest to lowest priority; Script: the warp of each issue
	// Budget is the number of simulations the adversarial search runs
	// (0: DefaultBudget).
	Budget int
}

// DefaultBudget is the default number of simulations of the adversarial
// search.
const DefaultBudget = 64

// String returns the policy in the syntax ParsePolicy reads.
func (p Policy) String() string {
	switch p.Kind {
	case LRR:
		return "lrr"
	case GTO:
		return "gto"
	case Random:
		return "random:" + strconv.FormatUint(p.Seed, 10)
	case Priority:
		return orderString("priority:", p.Order)
	case MostRemaining:
		return "most-remaining"
	case LeastRemaining:
		return "least-remaining"
	case Script:
		return orderString("script:", p.Order)
	case Adversarial:
		s := "adversarial"
		if p.Seed != 0 || p.Budget != 0 {
			s += ":" + strconv.FormatUint(p.Seed, 10)
			if p.Budget != 0 {
				s += ":" + strconv.Itoa(p.Budget)
			}
		}
		return s
	}
	return "policy?"
}

// orderString writes a list of warps after a prefix, comma-separated.
func orderString(prefix string, order []int) string {
	var b strings.Builder
	b.WriteString(prefix)
	for i, w := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(w))
	}
	return b.String()
}

// ParsePolicy reads "lrr", "gto", "random:SEED", "priority:W,W,...",
// "script:W,W,...", "adversarial", "adversarial:SEED" or
// "adversarial:SEED:BUDGET".
func ParsePolicy(s string) (Policy, error) {
	name, arg, hasArg := strings.Cut(s, ":")
	switch strings.ToLower(name) {
	case "lrr":
		if !hasArg {
			return Policy{Kind: LRR}, nil
		}
	case "gto":
		if !hasArg {
			return Policy{Kind: GTO}, nil
		}
	case "most-remaining":
		if !hasArg {
			return Policy{Kind: MostRemaining}, nil
		}
	case "least-remaining":
		if !hasArg {
			return Policy{Kind: LeastRemaining}, nil
		}
	case "random":
		if !hasArg {
			return Policy{}, fmt.Errorf("policy %q: random needs a seed (random:SEED)", s)
		}
		seed, err := strconv.ParseUint(arg, 10, 64)
		if err != nil {
			return Policy{}, fmt.Errorf("policy %q: bad seed: %v", s, err)
		}
		return Policy{Kind: Random, Seed: seed}, nil
	case "priority", "script":
		var order []int
		for _, f := range strings.Split(arg, ",") {
			w, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || w < 0 {
				return Policy{}, fmt.Errorf("policy %q: bad warp %q", s, f)
			}
			order = append(order, w)
		}
		if strings.ToLower(name) == "script" {
			return Policy{Kind: Script, Order: order}, nil
		}
		return Policy{Kind: Priority, Order: order}, nil
	case "adversarial":
		p := Policy{Kind: Adversarial}
		if hasArg {
			seedS, budS, hasBud := strings.Cut(arg, ":")
			seed, err := strconv.ParseUint(seedS, 10, 64)
			if err != nil {
				return Policy{}, fmt.Errorf("policy %q: bad seed: %v", s, err)
			}
			p.Seed = seed
			if hasBud {
				b, err := strconv.Atoi(budS)
				if err != nil || b < 1 {
					return Policy{}, fmt.Errorf("policy %q: bad budget %q", s, budS)
				}
				p.Budget = b
			}
		}
		return p, nil
	}
	return Policy{}, fmt.Errorf("unknown policy %q (want lrr, gto, random:SEED, priority:W,..., script:W,..., most-remaining, least-remaining or adversarial)", s)
}

func (p Policy) chooser(nwarps int) (chooser, error) {
	switch p.Kind {
	case LRR:
		return lrr{}, nil
	case GTO:
		return gto{}, nil
	case MostRemaining:
		return &remaining{most: true}, nil
	case LeastRemaining:
		return &remaining{}, nil
	case Random:
		return &random{rng: newRand(p.Seed)}, nil
	case Priority:
		seen := make([]bool, nwarps)
		var order []int
		for _, w := range p.Order {
			if w >= nwarps {
				return nil, fmt.Errorf("policy %s: warp %d does not exist (block has %d warps)", p, w, nwarps)
			}
			if !seen[w] {
				seen[w] = true
				order = append(order, w)
			}
		}
		for w := 0; w < nwarps; w++ {
			if !seen[w] {
				order = append(order, w)
			}
		}
		return priority(order), nil
	case Script:
		for _, w := range p.Order {
			if w >= nwarps {
				return nil, fmt.Errorf("policy %s: warp %d does not exist (block has %d warps)", p, w, nwarps)
			}
		}
		return &script{order: p.Order}, nil
	}
	return nil, fmt.Errorf("policy %s has no chooser", p)
}

type lrr struct{}

func (lrr) choose(mask uint64, last int) int {
	s := uint(last + 1)
	if s < 64 {
		if m := mask >> s; m != 0 {
			return int(s) + bits.TrailingZeros64(m)
		}
	}
	return bits.TrailingZeros64(mask)
}

type gto struct{}

func (gto) choose(mask uint64, last int) int {
	if last >= 0 && mask&(1<<uint(last)) != 0 {
		return last
	}
	return bits.TrailingZeros64(mask)
}

type random struct{ rng *rand.Rand }

func (r *random) choose(mask uint64, _ int) int {
	n := bits.OnesCount64(mask)
	if n == 1 {
		return bits.TrailingZeros64(mask)
	}
	k := r.rng.IntN(n)
	for ; k > 0; k-- {
		mask &= mask - 1
	}
	return bits.TrailingZeros64(mask)
}

type priority []int

func (o priority) choose(mask uint64, _ int) int {
	for _, w := range o {
		if mask&(1<<uint(w)) != 0 {
			return w
		}
	}
	return bits.TrailingZeros64(mask) // unreachable: every warp is listed
}

// script replays a recorded choice per issue.
type script struct {
	order []int
	k     int
}

func (s *script) choose(mask uint64, _ int) int {
	k := s.k
	s.k++
	if k < len(s.order) && mask&(1<<uint(s.order[k])) != 0 {
		return s.order[k]
	}
	return bits.TrailingZeros64(mask)
}

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// remaining picks by the number of instructions a warp has left; it reads
// the run's warp states (bound by run).
type remaining struct {
	most bool
	ws   []warpState
}

func (r *remaining) bind(ws []warpState) { r.ws = ws }

func (r *remaining) choose(mask uint64, _ int) int {
	best, bestLeft := -1, 0
	for m := mask; m != 0; m &= m - 1 {
		w := bits.TrailingZeros64(m)
		left := len(r.ws[w].pr.ins) - r.ws[w].pc
		if best < 0 || (r.most && left > bestLeft) || (!r.most && left < bestLeft) {
			best, bestLeft = w, left
		}
	}
	return best
}
