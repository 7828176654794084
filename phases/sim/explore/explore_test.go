package explore_test

import (
	"fmt"
	"testing"

	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/explore"
	"github.com/gpuwcet/gpuwcet/phases/sim/simtest"
)

const fig2 = `
-- hw --
A 2 6
B 3 4
C 2 4
-- warps 0-%d --
A r0
B r1
B r2
C r3 = r0
ret
`

func compile(t *testing.T, c *simtest.Case, mode sim.BarrierMode) *sim.Program {
	t.Helper()
	p, err := sim.Compile(c.HW, c.Warps, mode)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFig2 checks the worst case of the paper's Figure 2 block against
// the value the independent oracle of package bound found (18 cycles for
// two warps) and checks the witness.
func TestFig2(t *testing.T) {
	for _, tc := range []struct {
		warps int
		want  hwdesc.Cycles
	}{{1, 14}, {2, 18}, {3, 25}} {
		c, err := simtest.Parse(fmt.Appendf(nil, fig2, tc.warps-1))
		if err != nil {
			t.Fatal(err)
		}
		p := compile(t, c, sim.BarrierReach)
		r, err := explore.Worst(p, explore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Exact || r.Makespan != tc.want {
			t.Errorf("%d warps: worst %d (exact %v), want %d", tc.warps, r.Makespan, r.Exact, tc.want)
		}
		checkWitness(t, p, r)
	}
}

func checkWitness(t *testing.T, p *sim.Program, r explore.Result) {
	t.Helper()
	if !r.Exact {
		return
	}
	run, err := explore.Replay(p, r.Witness)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Verify(run, nil); err != nil {
		t.Fatalf("witness %v is not a schedule of the model: %v", r.Witness, err)
	}
	if run.Makespan != r.Makespan {
		t.Fatalf("witness %v replays to makespan %d, explorer says %d", r.Witness, run.Makespan, r.Makespan)
	}
}

// TestAgainstPoliciesAndNaive: on random small blocks (every pipeline
// option, shared FIFOs, barriers, every barrier semantics), the explorer's
// worst case is at least the makespan of every policy of the simulator,
// equals a naive search without memoisation, normalisation or symmetry
// reduction (on the smallest blocks), equals the isolated run for one
// warp, and its witness replays on the simulator to a verified schedule
// with that makespan.
func TestAgainstPoliciesAndNaive(t *testing.T) {
	cfg := simtest.Config{MaxWarps: 3, MaxInstrs: 6, MaxUnits: 3, MaxInit: 4, MaxLat: 8}
	naived := 0
	for seed := int64(1); seed <= 600; seed++ {
		c := simtest.Generate(cfg, seed)
		for _, mode := range []sim.BarrierMode{sim.BarrierReach, sim.BarrierDrain, sim.BarrierIssue} {
			p := compile(t, c, mode)
			r, err := explore.Worst(p, explore.Options{Budget: 200000})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Exact {
				continue
			}
			checkWitness(t, p, r)
			for _, pol := range simtest.Policies(seed, 16) {
				run, err := p.Run(pol, sim.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if run.Makespan > r.Makespan {
					t.Fatalf("seed %d %s: policy %s makespan %d > explored worst %d\n%s", seed, mode, run.Policy, run.Makespan, r.Makespan, c.Format())
				}
				if p.Warps() == 1 && run.Makespan != r.Makespan {
					t.Fatalf("seed %d %s: one warp: policy %d, explorer %d", seed, mode, run.Makespan, r.Makespan)
				}
			}
			if _, n := c.Size(); n <= 9 {
				naived++
				if got := naive(p); got != r.Makespan {
					t.Fatalf("seed %d %s: naive search %d, explorer %d\n%s", seed, mode, got, r.Makespan, c.Format())
				}
			}
		}
	}
	if naived < 200 {
		t.Errorf("only %d blocks compared with the naive search", naived)
	}
}

// naive enumerates every schedule by replaying choice sequences on the
// simulator (sim.Script): a depth-first search over the decisions, with
// no state of its own. A prefix is extended by each warp that may issue at
// the next decision, found by trying every warp and keeping those the
// replay honours.
func naive(p *sim.Program) hwdesc.Cycles {
	var worst hwdesc.Cycles
	var dfs func(prefix []int)
	dfs = func(prefix []int) {
		run, err := p.Run(sim.Policy{Kind: sim.Script, Order: prefix}, sim.Options{Timeline: true})
		if err != nil {
			panic(err)
		}
		worst = max(worst, run.Makespan)
		if int64(len(prefix)) >= run.Issued {
			return
		}
		// The candidates at decision len(prefix): warps whose forced
		// choice is honoured (the replay issues that warp there).
		for w := 0; w < p.Warps(); w++ {
			q := append(append([]int(nil), prefix...), w)
			r2, err := p.Run(sim.Policy{Kind: sim.Script, Order: q}, sim.Options{Timeline: true})
			if err != nil {
				panic(err)
			}
			if issuedAt(r2, len(prefix)) == w {
				dfs(q)
			}
		}
	}
	dfs(nil)
	return worst
}

// issuedAt returns the warp of the k-th issue of a run.
func issuedAt(r *sim.Result, k int) int {
	type iss struct {
		c hwdesc.Cycles
		w int
	}
	var all []iss
	for w, evs := range r.Timeline {
		for _, e := range evs {
			if e.Unit >= 0 {
				all = append(all, iss{e.Issue, w})
			}
		}
	}
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			if all[j].c < all[i].c {
				all[i], all[j] = all[j], all[i]
			}
		}
	}
	if k < len(all) {
		return all[k].w
	}
	return -1
}

// TestBudget: a block too large for the budget is reported as not exact,
// with a makespan at least LRR's (the first schedule explored is
// complete).
func TestBudget(t *testing.T) {
	c, err := simtest.Parse(fmt.Appendf(nil, fig2, 7))
	if err != nil {
		t.Fatal(err)
	}
	p := compile(t, c, sim.BarrierReach)
	r, err := explore.Worst(p, explore.Options{Budget: 50})
	if err != nil {
		t.Fatal(err)
	}
	if r.Exact || r.States > 50 || r.Witness != nil {
		t.Errorf("budget 50: exact %v, %d states, witness %v", r.Exact, r.States, r.Witness)
	}
	full, err := explore.Worst(p, explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !full.Exact || r.Makespan > full.Makespan {
		t.Errorf("partial %d, full %d (exact %v)", r.Makespan, full.Makespan, full.Exact)
	}
	checkWitness(t, p, full)
}
