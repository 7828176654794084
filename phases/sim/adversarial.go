package sim

import (
	"math/rand/v2"
)

// adversarial searches for a long schedule. It is a heuristic: the longest
// makespan it finds is a lower bound on the block's worst case over all
// work-conserving policies, useful to judge how tight a bound is (a bound
// below it is unsound). The search is deterministic for a given seed and
// budget:
//
//  1. LRR, GTO, the static orders oldest-first and youngest-first, and
//     most- and least-remaining-instructions first;
//  2. a quarter of the budget on random static priority orders, a quarter
//     on random policies (random:SEED');
//  3. the rest on hill climbing: swap two warps of the best priority order
//     found so far, keep the swap when the makespan does not decrease.
//
// The Result's Policy names the witness, so that the schedule can be
// replayed with that policy.
func (p *Program) adversarial(pol Policy, opt Options) (*Result, error) {
	budget := pol.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	nw := len(p.warps)
	rng := rand.New(rand.NewPCG(pol.Seed, 0xadc0ffee))
	var best *Result
	var bestPol Policy
	runs := 0
	try := func(q Policy) int64 {
		var ch chooser
		switch q.Kind {
		case LRR:
			ch = lrr{}
		case GTO:
			ch = gto{}
		case Random:
			ch = &random{rng: newRand(q.Seed)}
		case MostRemaining:
			ch = &remaining{most: true}
		case LeastRemaining:
			ch = &remaining{}
		default: // Priority, with a permutation of all warps
			ch = priority(q.Order)
		}
		r := p.run(ch, Options{})
		runs++
		if best == nil || r.Makespan > best.Makespan {
			best, bestPol = r, q
		}
		return int64(r.Makespan)
	}
	try(Policy{Kind: LRR})
	if nw == 1 {
		return p.finish(bestPol, opt)
	}
	try(Policy{Kind: GTO})
	oldest := make([]int, nw)
	youngest := make([]int, nw)
	for i := range oldest {
		oldest[i] = i
		youngest[i] = nw - 1 - i
	}
	bestOrder, bestOrderMk := oldest, try(Policy{Kind: Priority, Order: oldest})
	if mk := try(Policy{Kind: Priority, Order: youngest}); mk > bestOrderMk {
		bestOrder, bestOrderMk = youngest, mk
	}
	try(Policy{Kind: MostRemaining})
	try(Policy{Kind: LeastRemaining})
	quarter := budget / 4
	for i := 0; i < quarter && runs < budget; i++ {
		o := rng.Perm(nw)
		if mk := try(Policy{Kind: Priority, Order: o}); mk > bestOrderMk {
			bestOrder, bestOrderMk = o, mk
		}
	}
	for i := 0; i < quarter && runs < budget; i++ {
		try(Policy{Kind: Random, Seed: rng.Uint64()})
	}
	for runs < budget {
		o := append([]int(nil), bestOrder...)
		i, j := rng.IntN(nw), rng.IntN(nw)
		o[i], o[j] = o[j], o[i]
		if mk := try(Policy{Kind: Priority, Order: o}); mk >= bestOrderMk {
			bestOrder, bestOrderMk = o, mk
		}
	}
	return p.finish(bestPol, opt)
}

// finish replays the witness policy, with the requested options.
func (p *Program) finish(q Policy, opt Options) (*Result, error) {
	ch, err := q.chooser(len(p.warps))
	if err != nil {
		return nil, err
	}
	r := p.run(ch, opt)
	r.Policy = q.String()
	return r, nil
}
