package static

import (
	"math/rand"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
	"github.com/gpuwcet/gpuwcet/phases/sim"
)

// TestTotalsAgainstConcretePaths: on random structured single-warp
// programs with barriers at every depth and random pipelines, every
// concrete path allowed by the loop bounds, run alone by the reference
// simulator (an implementation independent of the walk), lasts at least
// the lower bound and issues at least the fewest instructions; its load
// InitSum + Issued over the whole execution is at most Load, and Load is
// the largest such load (the weight walk is exact).
func TestTotalsAgainstConcretePaths(t *testing.T) {
	checked, tight := 0, 0
	for seed := int64(1); seed <= int64(*propN); seed++ {
		r := rand.New(rand.NewSource(seed))
		hw := randomHW(r)
		g := &gen{r: r, bounds: map[string]int64{}, bars: true, anywhere: seed%2 == 0}
		g.sb.WriteString(".entry random\n")
		g.block(0, "")
		g.sb.WriteString("\tret\n")
		src := g.sb.String()
		k := buildHW(t, src, hw)
		in := &Input{Engine: k.eng, Graph: k.g, Classes: []Class{{Warps: []int{0}, Graph: k.g}}, Bound: boundsByLabel(g.bounds),
			Uniform: func(*cfg.Block) bool { return true }}
		tot, err := totals(in)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		ct := tot.Classes[0]
		if tot.Lower != max(ct.MinDuration, ct.MinIssued, maxOf(ct.MinInit)) || tot.Load != ct.Load {
			t.Fatalf("seed %d: totals %+v do not combine the class's %+v", seed, tot, ct)
		}
		prepared := map[*isa.Instr]*phases.Op{}
		var maxLoad, minDur hwdesc.Cycles = 0, -1
		_, complete, err := EnumeratePaths(k.g, boundsByLabel(g.bounds), 5000, func(path []*isa.Instr) bool {
			var load hwdesc.Cycles
			for _, in := range path {
				load += hwdesc.Cycles(interference(prepareOp(t, k, prepared, in)))
			}
			p, err := sim.CompileFunc(hw, [][]*isa.Instr{path}, sim.BarrierReach, k.g.Func)
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Run(sim.Policy{Kind: sim.LRR}, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Makespan < ct.MinDuration || hwdesc.Cycles(res.Issued) < ct.MinIssued || load > ct.Load {
				t.Errorf("seed %d: hw %+v: path of %d instructions: simulated %d cycles, %d issued, load %d; lower bounds %d, %d; Load %d\n%s",
					seed, hw.Pipeline, len(path), res.Makespan, res.Issued, load, ct.MinDuration, ct.MinIssued, ct.Load, src)
				return false
			}
			maxLoad = max(maxLoad, load)
			if minDur < 0 || res.Makespan < minDur {
				minDur = res.Makespan
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			return
		}
		if !complete {
			continue
		}
		checked++
		if maxLoad != ct.Load {
			t.Errorf("seed %d: Load %d is not the heaviest path's %d (the weight walk is exact)\n%s", seed, ct.Load, maxLoad, src)
		}
		if minDur == ct.MinDuration {
			tight++
		}
	}
	t.Logf("%d programs fully enumerated; lower bound equal to the shortest simulated path in %d", checked, tight)
	if checked < *propN/2 {
		t.Errorf("only %d of %d programs enumerated completely", checked, *propN)
	}
}

func maxOf(xs []hwdesc.Cycles) hwdesc.Cycles {
	var m hwdesc.Cycles
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// TestTotalsStraightLine: on a straight line the lower bound is the
// isolated duration, the load the path's, and with several warps the
// issue and initiation lower bounds count every warp.
func TestTotalsStraightLine(t *testing.T) {
	k := build(t, `.entry f
	add r1 r2 r3
	mul r4 r1 r1
	ld r5 r4 r4
	add r6 r5 r5
	ret
`)
	in := &Input{Engine: k.eng, Graph: k.g, Classes: []Class{{Warps: []int{0, 1, 2, 3}, Graph: k.g}}, Bound: boundsByLabel(nil),
		Uniform: func(*cfg.Block) bool { return true }}
	tot, err := totals(in)
	if err != nil {
		t.Fatal(err)
	}
	var path []*isa.Instr
	path = append(path, k.g.Func.Instrs...)
	p, err := sim.CompileFunc(k.eng.HW(), [][]*isa.Instr{path}, sim.BarrierReach, k.g.Func)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := p.Run(sim.Policy{Kind: sim.LRR}, sim.Options{})
	ct := tot.Classes[0]
	if ct.MinDuration != res.Makespan || ct.MinIssued != 4 {
		t.Errorf("straight line: lower %d, issued %d; simulated %d, 4 issued", ct.MinDuration, ct.MinIssued, res.Makespan)
	}
	if tot.LowerIssued != 16 || tot.Load != 4*ct.Load {
		t.Errorf("4 warps: issued lower bound %d, want 16; load %d, want %d", tot.LowerIssued, tot.Load, 4*ct.Load)
	}
	if tot.Lower != max(tot.LowerWarp, tot.LowerIssued, tot.LowerInit) {
		t.Errorf("Lower %d is not the largest of %d, %d, %d", tot.Lower, tot.LowerWarp, tot.LowerIssued, tot.LowerInit)
	}
}
