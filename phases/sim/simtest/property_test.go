package simtest

import (
	"flag"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
	"github.com/gpuwcet/gpuwcet/phases/sim"
)

// The long mode (10^6 cases) runs with -long or GPUWCET_LONG=1:
//
//	GPUWCET_LONG=1 go test -run TestSoundness -timeout 0 ./phases/sim/simtest/
var long = flag.Bool("long", false, "run the long soundness property test (10^6 cases)")

func numCases() int {
	if *long || os.Getenv("GPUWCET_LONG") == "1" {
		return 1_000_000
	}
	return 5000
}

// adversarialBudget is the number of simulations of the adversarial
// policy per case in the property tests.
const adversarialBudget = 12

func paperGUB(c *Case) (hwdesc.Cycles, error) {
	p, err := c.Profile()
	if err != nil {
		return 0, err
	}
	return PaperGUB(p), nil
}

type outcome struct {
	seed int64
	v    *Violation
	err  error
}

// sweep checks cases first..first+n-1 on all cores and returns the
// failures, by seed.
func sweep(cfg Config, first int64, n int, bound func(*Case) (hwdesc.Cycles, error)) (fails []outcome, issued int64) {
	var mu sync.Mutex
	next := first
	var wg sync.WaitGroup
	for k := 0; k < runtime.GOMAXPROCS(0); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				seed := next
				next++
				stop := seed >= first+int64(n) || len(fails) >= 5
				mu.Unlock()
				if stop {
					return
				}
				c := Generate(cfg, seed)
				v, err := Check(c, seed, adversarialBudget, bound)
				mu.Lock()
				if v != nil || err != nil {
					fails = append(fails, outcome{seed, v, err})
				}
				if p, err := sim.Compile(c.HW, c.Warps, sim.BarrierDrain); err == nil {
					issued += p.Issues()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return fails, issued
}

// TestSoundness is the soundness property test: on random blocks (random
// descriptions with 1–6 units, init 1–12, lat 0–400; 1–32 warps running
// identical or different paths of 1–200 instructions with dependencies,
// guards, multi-destination instructions and barriers), every policy's
// makespan and every warp's isolated duration is at most the bound.
// A failing case is shrunk and printed in the simtest format, ready to
// be kept under testdata/.
func TestSoundness(t *testing.T) {
	n := numCases()
	start := time.Now()
	fails, issued := sweep(Config{}, 1, n, paperGUB)
	t.Logf("%d cases, %d warp-instructions per policy, %d failures, %v", n, issued, len(fails), time.Since(start).Round(time.Millisecond))
	for _, f := range fails {
		if f.err != nil {
			t.Errorf("seed %d: %v", f.seed, f.err)
			continue
		}
		c := Generate(Config{}, f.seed)
		min := Shrink(c, func(c *Case) bool {
			v, err := Check(c, f.seed, adversarialBudget, paperGUB)
			return err == nil && v != nil
		})
		v, _ := Check(min, f.seed, adversarialBudget, paperGUB)
		t.Errorf("seed %d: %v; shrunk: %v\n%s", f.seed, f.v, v, min.Format())
	}
}

// TestIsolationMatchesEngine runs random single-warp paths through the
// simulator and through the isolation engine of package phases
// (BuildClass): the two independent implementations of the timing model
// must agree on every instruction's issue, start and ready cycles, and on
// the section durations.
func TestIsolationMatchesEngine(t *testing.T) {
	for seed := int64(1); seed <= 2000; seed++ {
		c := Generate(Config{MaxWarps: 1}, seed)
		e, err := phases.NewEngine(c.HW)
		if err != nil {
			t.Fatal(err)
		}
		ops := make([]phases.Op, len(c.Warps[0]))
		for i, in := range c.Warps[0] {
			if ops[i], err = e.Prepare(nil, in); err != nil {
				t.Fatal(err)
			}
		}
		cl := phases.BuildClass(e, ops, true)
		var want []sim.Event
		var off hwdesc.Cycles
		for _, sec := range cl.Sections {
			for _, ti := range sec.Timings {
				if ti.Unit == phases.NoUnit {
					continue
				}
				want = append(want, sim.Event{Index: ti.Index, Unit: ti.Unit, Issue: off + ti.Issue, Start: off + ti.Start, Ready: off + ti.Ready})
			}
			off += sec.Duration
		}
		p, err := sim.Compile(c.HW, c.Warps, sim.BarrierDrain)
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Run(sim.Policy{Kind: sim.GTO}, sim.Options{Timeline: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []sim.Event
		for _, ev := range r.Timeline[0] {
			if !ev.Barrier {
				got = append(got, ev)
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("seed %d: simulator vs phases engine (-engine +sim):\n%s\n%s", seed, d, c.Format())
		}
		if r.Makespan != cl.Duration {
			t.Fatalf("seed %d: simulated makespan %d, engine duration %d\n%s", seed, r.Makespan, cl.Duration, c.Format())
		}
	}
}

func TestShrinkKeepsFailure(t *testing.T) {
	// A synthetic property: "fails" when some warp has ≥ 3 instructions on
	// unit u0 with lat ≥ 5. The shrinker must keep it failing and reach a
	// minimal case: one warp, three instructions, one unit.
	fails := func(c *Case) bool {
		for _, p := range c.Warps {
			n := 0
			for _, in := range p {
				if in.Opcode == "u0" && c.HW.Units[0].Lat >= 5 {
					n++
				}
			}
			if n >= 3 {
				return true
			}
		}
		return false
	}
	var c *Case
	for seed := int64(1); ; seed++ {
		if c = Generate(Config{}, seed); fails(c) {
			break
		}
	}
	m := Shrink(c, fails)
	if !fails(m) {
		t.Fatalf("shrunk case does not fail:\n%s", m.Format())
	}
	w, n := m.Size()
	if w != 1 || n != 3 || len(m.HW.Units) != 1 || m.HW.Units[0].Lat != 5 || m.HW.Units[0].Init != 1 {
		t.Errorf("not minimal: %d warps, %d instructions, units %v\n%s", w, n, m.HW.Units, m.Format())
	}
}

func TestFormatRoundTrip(t *testing.T) {
	for seed := int64(1); seed <= 50; seed++ {
		c := Generate(Config{MaxWarps: 4, MaxInstrs: 20}, seed)
		text := c.Format()
		d, err := Parse(text)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		if got := d.Format(); string(got) != string(text) {
			t.Fatalf("seed %d: round trip differs:\n%s\n---\n%s", seed, text, got)
		}
		p1, err1 := sim.Compile(c.HW, c.Warps, sim.BarrierDrain)
		p2, err2 := sim.Compile(d.HW, d.Warps, sim.BarrierDrain)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		r1, _ := p1.Run(sim.Policy{Kind: sim.LRR}, sim.Options{})
		r2, _ := p2.Run(sim.Policy{Kind: sim.LRR}, sim.Options{})
		if r1.Makespan != r2.Makespan {
			t.Fatalf("seed %d: makespan %d vs %d after round trip", seed, r1.Makespan, r2.Makespan)
		}
	}
}
