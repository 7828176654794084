package sim_test

import (
	"testing"

	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simtest"
)

// benchCase is a 32-warp block of identical 200-instruction paths on the
// default random description of a fixed seed, with a few large latencies.
func benchProgram(b *testing.B, warps int, identical bool) *sim.Program {
	b.Helper()
	var c *simtest.Case
	for seed := int64(1); ; seed++ {
		c = simtest.Generate(simtest.Config{MaxWarps: warps, MaxInstrs: 200}, seed)
		_, n := c.Size()
		if len(c.Warps) == warps && n >= warps*100 && (c.Warps[0] != nil && (&c.Warps[0][0] == &c.Warps[warps-1][0]) == identical) {
			break
		}
	}
	p, err := sim.Compile(c.HW, c.Warps, sim.BarrierDrain)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func benchRun(b *testing.B, p *sim.Program, pol sim.Policy) {
	b.ReportAllocs()
	var issued int64
	for b.Loop() {
		r, err := p.Run(pol, sim.Options{})
		if err != nil {
			b.Fatal(err)
		}
		issued += r.Issued
	}
	b.ReportMetric(float64(issued)/b.Elapsed().Seconds()/1e6, "Minstr/s")
}

func BenchmarkSimLRR32(b *testing.B) {
	benchRun(b, benchProgram(b, 32, true), sim.Policy{Kind: sim.LRR})
}

func BenchmarkSimGTO32(b *testing.B) {
	benchRun(b, benchProgram(b, 32, true), sim.Policy{Kind: sim.GTO})
}

func BenchmarkSimRandom32(b *testing.B) {
	benchRun(b, benchProgram(b, 32, false), sim.Policy{Kind: sim.Random, Seed: 1})
}

func BenchmarkSimLRR4(b *testing.B) {
	benchRun(b, benchProgram(b, 4, false), sim.Policy{Kind: sim.LRR})
}
