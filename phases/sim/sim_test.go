package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simtest"
)

// paperFig2 is the warp of the ECRTS 2025 paper's Figure 2: i0 on a unit
// with init 2 and lat 6, i1 and i2 on a unit with init 3 and lat 4, i3
// (reading i0's result) on a unit with init 2 and lat 4.
const paperFig2 = `
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

func mustCase(t *testing.T, text string) *simtest.Case {
	t.Helper()
	c, err := simtest.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sched renders a timeline as "w:issue/start/ready" per instruction.
func sched(r *sim.Result) string {
	var b strings.Builder
	for w, evs := range r.Timeline {
		fmt.Fprintf(&b, "w%d:", w)
		for _, e := range evs {
			if e.Barrier {
				fmt.Fprintf(&b, " bar(%d>%d)", e.Issue, e.Ready)
				continue
			}
			fmt.Fprintf(&b, " %d/%d/%d", e.Issue, e.Start, e.Ready)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "makespan %d", r.Makespan)
	return b.String()
}

func runCase(t *testing.T, c *simtest.Case, mode sim.BarrierMode, policy string) *sim.Result {
	t.Helper()
	p, err := sim.Compile(c.HW, c.Warps, mode)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := sim.ParsePolicy(policy)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Run(pol, sim.Options{Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Verify(r, &pol); err != nil {
		t.Fatalf("%s: %v\n%s", policy, err, sched(r))
	}
	return r
}

// TestHandSchedules compares the simulator with schedules computed by hand.
func TestHandSchedules(t *testing.T) {
	tests := []struct {
		name, text, policy string
		mode               sim.BarrierMode
		want               string
	}{
		{
			// The paper's Figure 2 (Example 1 and 3): ends at cycle 14.
			name: "fig2/1warp", text: fmt.Sprintf(paperFig2, 0), policy: "lrr",
			want: "w0: 0/0/8 1/1/8 2/4/11 8/8/14\nmakespan 14",
		},
		{
			// The paper's Figure 3 (Example 2) is a GTO schedule: w0 issues
			// i0..i2, stalls on r0; w1 issues i0..i2 at 3, 4, 5; w1's i1
			// starts at 7 when w0's i2 ends its initiation.
			name: "fig3/gto", text: fmt.Sprintf(paperFig2, 1), policy: "gto",
			want: "w0: 0/0/8 1/1/8 2/4/11 8/8/14\nw1: 3/3/11 4/7/14 5/10/17 11/11/17\nmakespan 17",
		},
		{
			// LRR alternates: w1's i0 queues behind w0's on A (free at 2).
			name: "fig3/lrr", text: fmt.Sprintf(paperFig2, 1), policy: "lrr",
			want: "w0: 0/0/8 2/2/9 4/8/15 8/8/14\nw1: 1/2/10 3/5/12 5/11/18 10/10/16\nmakespan 18",
		},
		{
			// Three warps on one unit: the FIFO serialises the initiations.
			name: "fifo/3warps", policy: "lrr",
			text: "-- hw --\nA 5 1\n-- warps 0-2 --\nA r0\n",
			want: "w0: 0/0/6\nw1: 1/5/11\nw2: 2/10/16\nmakespan 16",
		},
		{
			// GTO keeps the last warp while it can issue.
			name: "gto/greedy", policy: "gto",
			text: "-- hw --\nA 1 0\nB 1 0\nC 1 0\n-- warps 0-1 --\nA r0\nB r1\nC r2\n",
			want: "w0: 0/0/1 1/1/2 2/2/3\nw1: 3/3/4 4/4/5 5/5/6\nmakespan 6",
		},
		{
			name: "lrr/alternate", policy: "lrr",
			text: "-- hw --\nA 1 0\nB 1 0\nC 1 0\n-- warps 0-1 --\nA r0\nB r1\nC r2\n",
			want: "w0: 0/0/1 2/2/3 4/4/5\nw1: 1/1/2 3/3/4 5/5/6\nmakespan 6",
		},
		{
			// LRR skips a stalled warp and comes back to it in cyclic order.
			name: "lrr/skip", policy: "lrr",
			text: "-- hw --\nA 1 3\nB 1 0\n-- warp 0 --\nA r0\nB r1 = r0\n-- warp 1 --\nB r0\nB r1\nB r2\nB r3\nB r4\n-- warp 2 --\nB r0\nB r1\n",
			want: "w0: 0/0/4 5/5/6\nw1: 1/1/2 3/3/4 6/6/7 7/7/8 8/8/9\nw2: 2/2/3 4/4/5\nmakespan 9",
		},
		{
			// WAW: the second write of r0 waits for the first.
			name: "waw", policy: "lrr",
			text: "-- hw --\nA 1 9\nB 1 0\n-- warp 0 --\nA r0\nB r0\n",
			want: "w0: 0/0/10 10/10/11\nmakespan 11",
		},
		{
			// The guard predicate is read: @p0 waits for the setp-like write.
			name: "guard", policy: "lrr",
			text: "-- hw --\nA 1 4\nB 2 0\n-- warp 0 --\nA p0\n@!p0 B r1\nB r2\n",
			want: "w0: 0/0/5 5/5/7 6/7/9\nmakespan 9",
		},
		{
			// Multi-destination: both registers are written at ready.
			name: "multidst", policy: "lrr",
			text: "-- hw --\nA 1 4\nB 1 0\n-- warp 0 --\nA r0,r1\nB r2 = r1\n",
			want: "w0: 0/0/5 5/5/6\nmakespan 6",
		},
		{
			// Drain barrier: both warps continue when the last result of the
			// block (w1's, at 12) is ready.
			name: "barrier/drain", policy: "lrr", mode: sim.BarrierDrain,
			text: "-- hw --\nA 1 10\n-- warps 0-1 --\nA r0\nbar.sync\nA r1\n",
			want: "w0: 0/0/11 bar(1>12) 12/12/23\nw1: 1/1/12 bar(2>12) 13/13/24\nmakespan 24",
		},
		{
			// Reach barrier (the model): the warps continue at the cycle the
			// last one reached it (w1, at 2), with w1's result still in
			// flight; w1's next instruction writes r1, not r0, so it issues.
			name: "barrier/reach", policy: "lrr", mode: sim.BarrierReach,
			text: "-- hw --\nA 1 10\n-- warps 0-1 --\nA r0\nbar.sync\nA r1\n",
			want: "w0: 0/0/11 bar(1>2) 2/2/13\nw1: 1/1/12 bar(2>2) 3/3/14\nmakespan 14",
		},
		{
			// Reach barrier: a dependence across the barrier waits for the
			// result of the previous section; the other warp goes first.
			name: "barrier/reach-dep", policy: "lrr", mode: sim.BarrierReach,
			text: "-- hw --\nA 1 10\nB 2 0\n-- warp 0 --\nA r0\nbar.sync\nB r1 = r0\n-- warp 1 --\nB r0\nB r2\nbar.sync\nB r1\n",
			want: "w0: 0/0/11 bar(1>3) 11/11/13\nw1: 1/1/3 2/3/5 bar(3>3) 3/5/7\nmakespan 13",
		},
		{
			// Issue barrier: bar.sync issues on A; the warps continue one
			// cycle after the last one issued it.
			name: "barrier/issue", policy: "lrr", mode: sim.BarrierIssue,
			text: "-- hw --\nA 1 10\n-- warps 0-1 --\nA r0\nbar.sync\nA r1\n",
			want: "w0: 0/0/11 bar(2>13) 4/4/15\nw1: 1/1/12 bar(3>14) 5/5/16\nmakespan 16",
		},
		{
			// A warp waiting at a barrier lets the others run; an empty
			// section releases at once.
			name: "barrier/uneven", policy: "gto", mode: sim.BarrierDrain,
			text: "-- hw --\nA 1 2\n-- warp 0 --\nbar.sync\nbar.sync\nA r0\n-- warp 1 --\nA r0\nA r1\nbar.sync\nbar.sync\n",
			want: "w0: bar(0>4) bar(4>4) 4/4/7\nw1: 0/0/3 1/1/4 bar(2>4) bar(4>4)\nmakespan 7",
		},
		{
			// ret and exit issue nothing.
			name: "ret", policy: "lrr",
			text: "-- hw --\nA 3 1\n-- warp 0 --\nA r0\nret\n-- warp 1 --\nexit\n",
			want: "w0: 0/0/4\nw1:\nmakespan 4",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCase(t, mustCase(t, tc.text), tc.mode, tc.policy)
			if d := cmp.Diff(tc.want, sched(r)); d != "" {
				t.Errorf("schedule (-want +got):\n%s", d)
			}
		})
	}
}

func TestRandomPolicyReproducible(t *testing.T) {
	c := simtest.Generate(simtest.Config{}, 42)
	p, err := sim.Compile(c.HW, c.Warps, sim.BarrierDrain)
	if err != nil {
		t.Fatal(err)
	}
	pol := sim.Policy{Kind: sim.Random, Seed: 7}
	a, err := p.Run(pol, sim.Options{Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p.Run(pol, sim.Options{Timeline: true})
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("random:7 is not reproducible:\n%s", d)
	}
}

// TestVerifyRandom runs every policy on generated blocks and checks each
// schedule with the independent verifier, and that each warp's
// instructions are never earlier than in isolation.
func TestVerifyRandom(t *testing.T) {
	cfg := simtest.Config{MaxWarps: 8, MaxInstrs: 40}
	for seed := int64(1); seed <= 300; seed++ {
		c := simtest.Generate(cfg, seed)
		for _, mode := range []sim.BarrierMode{sim.BarrierReach, sim.BarrierDrain, sim.BarrierIssue} {
			p, err := sim.Compile(c.HW, c.Warps, mode)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			iso := make([]*sim.Result, p.Warps())
			for w := range iso {
				q, err := sim.Compile(c.HW, c.Warps[w:w+1], mode)
				if err != nil {
					t.Fatal(err)
				}
				iso[w], _ = q.Run(sim.Policy{Kind: sim.LRR}, sim.Options{Timeline: true})
			}
			for _, ps := range []string{"lrr", "gto", "random:3", "priority:2,1,0", "most-remaining", "least-remaining", "adversarial:1:16"} {
				pol, _ := sim.ParsePolicy(ps)
				if pol.Kind == sim.Priority && p.Warps() < 3 {
					continue
				}
				r, err := p.Run(pol, sim.Options{Timeline: true})
				if err != nil {
					t.Fatal(err)
				}
				check := &pol
				if pol.Kind == sim.Adversarial {
					check = nil
				}
				if err := p.Verify(r, check); err != nil {
					t.Fatalf("seed %d %s %s: %v\n%s", seed, mode, ps, err, c.Format())
				}
				{
					for w, evs := range r.Timeline {
						for k, e := range evs {
							if ie := iso[w].Timeline[0][k]; e.Ready < ie.Ready && !e.Barrier {
								t.Fatalf("seed %d %s: warp %d instruction %d ready at %d, before its isolated %d", seed, ps, w, e.Index, e.Ready, ie.Ready)
							}
						}
					}
				}
			}
		}
	}
}

func TestCompileErrors(t *testing.T) {
	c := mustCase(t, "-- hw --\nA 1 0\n-- warp 0 --\nA r0\nbar.sync\n-- warp 1 --\nA r0\n")
	if _, err := sim.Compile(c.HW, c.Warps, sim.BarrierDrain); err == nil || !strings.Contains(err.Error(), "barriers") {
		t.Errorf("mismatched barriers: err = %v", err)
	}
	hw := simtest.NewHW(nil, []hwdesc.Cycles{0}, []hwdesc.Cycles{1})
	if _, err := sim.Compile(hw, c.Warps[1:], sim.BarrierDrain); err == nil {
		t.Errorf("init 0 accepted")
	}
	if _, err := sim.ParsePolicy("random"); err == nil {
		t.Errorf("random without seed accepted")
	}
	if _, err := sim.ParsePolicy("fifo"); err == nil {
		t.Errorf("unknown policy accepted")
	}
}
