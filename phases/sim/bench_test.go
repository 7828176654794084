package sim_test

import (
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/trace"
	"github.com/gpuwcet/gpuwcet/hwdesc"

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

// BenchmarkSimTraceLUD32 simulates the lud_diagonal Rodinia trace (2898
// instructions, 31 barriers) replicated to 32 warps on ecrts25-orin-200.
func BenchmarkSimTraceLUD32(b *testing.B) {
	path := filepath.Join("..", "..", "..", "shared", "reference", "accelsim-singlewarp", "lud-rodinia-2.0-ft", "_Z12lud_diagonalPfii1.trace")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("../shared is absent: %v", err)
	}
	f, err := trace.ParseFile(token.NewFileSet(), path, src, nil)
	if err != nil {
		b.Fatal(err)
	}
	hw, err := hwdesc.Resolve("ecrts25-orin-200")
	if err != nil {
		b.Fatal(err)
	}
	fn := f.Funcs[0]
	paths := make([][]*isa.Instr, 32)
	for i := range paths {
		paths[i] = fn.Trace.Warps[0].Instrs
	}
	p, err := sim.Compile(hw, paths, sim.BarrierReach)
	if err != nil {
		b.Fatal(err)
	}
	for _, pol := range []sim.Policy{{Kind: sim.LRR}, {Kind: sim.GTO}} {
		b.Run(pol.String(), func(b *testing.B) { benchRun(b, p, pol) })
	}
}
