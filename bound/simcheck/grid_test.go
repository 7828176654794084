package simcheck

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound/kernel"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simtest"
)

func numGridCases() int {
	if *long {
		return 200_000
	}
	return 1500
}

// figures are the kernel-bound inputs of one block (fixed paths),
// computed by the analysis side: the block bound (package bound), its
// whole-execution load (the phase profile), and its lower bounds (the
// engine run continuously along each warp's path, the barriers passed at
// once; the block's issued instructions; its initiation cycles per
// resource).
type figures struct {
	kernel.Block
	warp   hwdesc.Cycles   // longest continuous isolated warp
	issued hwdesc.Cycles   // instructions issued by the block
	init   []hwdesc.Cycles // initiation cycles per resource
}

// combine returns the kernel-bound inputs valid for every block of a
// grid made of blocks with figures fs: maxima of the upper bounds, and
// lower bounds from the per-component minima (the busiest resource of the
// per-resource minima: blocks of different kinds may load different
// resources).
func combine(fs []figures) kernel.Block {
	kb := fs[0].Block
	warp, issued, init := fs[0].warp, fs[0].issued, fs[0].init
	for _, f := range fs[1:] {
		kb.Bound, kb.Load = max(kb.Bound, f.Bound), max(kb.Load, f.Load)
		warp, issued = min(warp, f.warp), min(issued, f.issued)
		n := min(len(init), len(f.init))
		init = init[:n:n]
		for r := range n {
			init[r] = min(init[r], f.init[r])
		}
	}
	kb.Work = issued
	for _, x := range init {
		kb.Work = max(kb.Work, x)
	}
	kb.Lower = max(warp, kb.Work)
	return kb
}

func blockFigures(c *simtest.Case) (figures, error) {
	b, err := ComputeBounds(c)
	if err != nil {
		return figures{}, err
	}
	p, err := c.Profile()
	if err != nil {
		return figures{}, err
	}
	f := figures{Block: kernel.Block{Bound: b.Bound}}
	kb := &f.Block
	issued := &f.issued
	init := f.init
	for _, cl := range p.Classes {
		n := hwdesc.Cycles(len(cl.Warps))
		for _, s := range cl.Sections {
			kb.Load += n * (s.InitSum + hwdesc.Cycles(s.Issued))
			*issued += n * hwdesc.Cycles(s.Issued)
			for r, l := range s.Loads {
				for len(init) <= r {
					init = append(init, 0)
				}
				init[r] += n * l.InitSum
			}
		}
	}
	f.init = init
	eng, err := phases.NewEngine(c.HW)
	if err != nil {
		return figures{}, err
	}
	fn := c.Func()
	for _, path := range c.Warps {
		s := eng.NewState()
		red := phases.PathRedirects(fn, path)
		for i, in := range path {
			op, err := eng.Prepare(nil, in)
			if err != nil {
				return figures{}, err
			}
			t := phases.Step(s, &op)
			if i < len(red) && op.WaitsAfter(red[i]) {
				phases.WaitAfter(s, &op, t, red[i])
			}
		}
		f.warp = max(f.warp, s.End)
	}
	return f, nil
}

// gridCase draws a random multi-block kernel: 1 to 3 kinds of blocks on
// one description (blocks of a grid may take different paths), B blocks
// in a random order of the kinds, k SMs, m co-resident blocks per SM and a
// dispatch latency δ; and the kernel bound's inputs, maxima (U, L) and
// minima (lower bounds) over the kinds.
func gridCase(seed int64) (kinds []*simtest.Case, order []int, B, k, m int, delta int64, kb kernel.Block, err error) {
	r := rand.New(rand.NewPCG(uint64(seed), 0x6a1d))
	cfg := simtest.Config{MaxUnits: 3, MaxInit: 4, MaxLat: 40, MaxWarps: 4, MaxInstrs: 12}
	base := simtest.Generate(cfg, seed)
	kinds = []*simtest.Case{base}
	for j := int64(1); len(kinds) < 1+r.IntN(3) && j < 20; j++ {
		v := simtest.Generate(cfg, seed*1000+j)
		if len(v.HW.Units) != len(base.HW.Units) {
			continue
		}
		v.HW = base.HW
		kinds = append(kinds, v)
	}
	maxW := 0
	var fs []figures
	for i, c := range kinds {
		f, err := blockFigures(c)
		if err != nil {
			return nil, nil, 0, 0, 0, 0, kb, fmt.Errorf("kind %d: %w", i, err)
		}
		fs = append(fs, f)
		maxW = max(maxW, len(c.Warps))
	}
	kb = combine(fs)
	B = 1 + r.IntN(20)
	k = 1 + r.IntN(3)
	m = 1 + r.IntN(min(4, sim.MaxWarps/maxW))
	if r.IntN(3) > 0 {
		delta = r.Int64N(25)
	}
	for range B {
		order = append(order, r.IntN(len(kinds)))
	}
	return kinds, order, B, k, m, delta, kb, nil
}

// TestGridBound: random multi-block kernels on the grid simulator (several
// SMs, several co-resident blocks per SM, refilled as blocks end, random
// dispatch delays up to δ; every warp policy, reach and drain barriers,
// the fixed-latency memory model of the descriptions): no makespan above
// the kernel bound (bound/kernel), none below its lower bound, and in a
// single wave no block longer than the co-resident bound.
func TestGridBound(t *testing.T) {
	n := numGridCases()
	var runs, tightest, zero int
	var worst float64
	for seed := int64(1); seed <= int64(n); seed++ {
		kinds, order, B, k, m, delta, kb, err := gridCase(seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		pt, err := kernel.At(kb, kernel.Grid{Blocks: int64(B), OccLo: m, OccHi: m, Dispatch: hwdesc.Cycles(delta)}, k)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		co, _ := kernel.CoResident(kb, min(m, B))
		for _, mode := range []sim.BarrierMode{sim.BarrierReach, sim.BarrierDrain} {
			progs := make([]*sim.Program, len(kinds))
			for i, c := range kinds {
				if progs[i], err = sim.Compile(c.HW, c.Warps, mode); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
			var blocks []*sim.Program
			for _, i := range order {
				blocks = append(blocks, progs[i])
			}
			for _, pol := range sim.GridPolicies {
				for rep := uint64(0); rep < 2; rep++ {
					res, err := sim.RunGrid(sim.GridSpec{Blocks: blocks, SMs: k, Slots: m, Dispatch: delta, Seed: uint64(seed)*7 + rep, Policy: pol})
					if err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
					runs++
					if res.Makespan > pt.Upper || res.Makespan < pt.Lower {
						t.Errorf("seed %d: %d blocks on %d SMs x %d slots, dispatch <= %d, %s barriers, %s: makespan %d outside [%d, %d] (block U %d, L %d, lower %d, work %d)",
							seed, B, k, m, delta, mode, pol, res.Makespan, pt.Lower, pt.Upper, kb.Bound, kb.Load, kb.Lower, kb.Work)
					}
					if pt.SingleWave {
						for b := range res.End {
							if d := res.End[b] - res.Start[b]; d > co {
								t.Errorf("seed %d: single wave, %s: block %d lasted %d cycles, co-resident bound %d", seed, pol, b, d, co)
							}
						}
					}
					if r := float64(res.Makespan) / float64(max(pt.Upper, 1)); r > worst {
						worst = r
					}
					if res.Makespan == pt.Upper && res.Makespan > 0 {
						tightest++
					}
					if res.Makespan == 0 {
						zero++
					}
				}
			}
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d grids, %d simulations (%d of makespan 0); largest makespan/bound %.3f; %d equal to a nonzero bound", n, runs, zero, worst, tightest)
}

// TestGridOneBlockMatchesRun: one block on one SM, one slot, no dispatch
// delay, is the block simulator's run under the same policy.
func TestGridOneBlockMatchesRun(t *testing.T) {
	for seed := int64(1); seed <= 400; seed++ {
		c := simtest.Generate(simtest.Config{MaxWarps: 8, MaxInstrs: 30, MaxLat: 60}, seed)
		for _, mode := range []sim.BarrierMode{sim.BarrierReach, sim.BarrierDrain} {
			p, err := sim.Compile(c.HW, c.Warps, mode)
			if err != nil {
				t.Fatal(err)
			}
			for _, pp := range []struct {
				g sim.GridPolicy
				p sim.Policy
			}{{sim.GridLRR, sim.Policy{Kind: sim.LRR}}, {sim.GridGTO, sim.Policy{Kind: sim.GTO}}} {
				want, err := p.Run(pp.p, sim.Options{})
				if err != nil {
					t.Fatal(err)
				}
				got, err := sim.RunGrid(sim.GridSpec{Blocks: []*sim.Program{p}, SMs: 1, Slots: 1, Policy: pp.g})
				if err != nil {
					t.Fatal(err)
				}
				if got.Makespan != want.Makespan || got.Issued != want.Issued {
					t.Errorf("seed %d, %s, %s: grid %d cycles, %d issued; block run %d, %d", seed, mode, pp.g, got.Makespan, got.Issued, want.Makespan, want.Issued)
				}
			}
		}
	}
}

var waveRuns = flag.Int("wave", 0, "grids for TestWaveFormula (0: skip)")

// TestWaveFormula is an experiment, not a check: it counts the runs whose
// makespan exceeds the unproven wave formula ⌈B/(k·m)⌉·(U + (m−1)·L + δ)
// (docs/model.md, "The wave formula"):
//
//	go test ./bound/simcheck -run TestWaveFormula -wave 20000 -v
func TestWaveFormula(t *testing.T) {
	if *waveRuns == 0 {
		t.Skip("run with -wave N")
	}
	above, runs := 0, 0
	for seed := int64(1); seed <= int64(*waveRuns); seed++ {
		kinds, order, B, k, m, delta, kb, err := gridCase(seed)
		if err != nil {
			t.Fatal(err)
		}
		w := (int64(B) + int64(k*m) - 1) / int64(k*m)
		wave := hwdesc.Cycles(w) * (kb.Bound + hwdesc.Cycles(m-1)*kb.Load + hwdesc.Cycles(delta))
		progs := make([]*sim.Program, len(kinds))
		for i, c := range kinds {
			if progs[i], err = sim.Compile(c.HW, c.Warps, sim.BarrierReach); err != nil {
				t.Fatal(err)
			}
		}
		var blocks []*sim.Program
		for _, i := range order {
			blocks = append(blocks, progs[i])
		}
		for _, pol := range sim.GridPolicies {
			res, err := sim.RunGrid(sim.GridSpec{Blocks: blocks, SMs: k, Slots: m, Dispatch: delta, Seed: uint64(seed) * 7, Policy: pol})
			if err != nil {
				t.Fatal(err)
			}
			runs++
			if res.Makespan > wave {
				above++
				t.Logf("seed %d %s: %d blocks, %d SMs x %d: makespan %d above the wave formula %d", seed, pol, B, k, m, res.Makespan, wave)
			}
		}
	}
	t.Logf("%d of %d runs above the wave formula", above, runs)
}

// TestGridMatchesMergedBlock: without barriers, B ≤ m blocks of W warps on
// one SM, all dispatched at cycle 0, are one block of B·W warps: the grid
// simulator must give the block simulator's makespan under the same
// policy (LRR and GTO order the warps by slot, then warp).
func TestGridMatchesMergedBlock(t *testing.T) {
	checked := 0
	for seed := int64(1); seed <= 600; seed++ {
		c := simtest.Generate(simtest.Config{MaxWarps: 4, MaxInstrs: 20, MaxLat: 60}, seed)
		bars := false
		for _, p := range c.Warps {
			for _, in := range p {
				bars = bars || in.Kind == isa.KindBarrier
			}
		}
		if bars {
			continue
		}
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		B := 1 + r.IntN(min(4, sim.MaxWarps/len(c.Warps)))
		var merged [][]*isa.Instr
		for range B {
			merged = append(merged, c.Warps...)
		}
		one, err := sim.Compile(c.HW, c.Warps, sim.BarrierReach)
		if err != nil {
			t.Fatal(err)
		}
		all, err := sim.Compile(c.HW, merged, sim.BarrierReach)
		if err != nil {
			t.Fatal(err)
		}
		blocks := make([]*sim.Program, B)
		for i := range blocks {
			blocks[i] = one
		}
		for _, pp := range []struct {
			g sim.GridPolicy
			p sim.Policy
		}{{sim.GridLRR, sim.Policy{Kind: sim.LRR}}, {sim.GridGTO, sim.Policy{Kind: sim.GTO}}} {
			want, err := all.Run(pp.p, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := sim.RunGrid(sim.GridSpec{Blocks: blocks, SMs: 1, Slots: B, Policy: pp.g})
			if err != nil {
				t.Fatal(err)
			}
			if got.Makespan != want.Makespan || got.Issued != want.Issued {
				t.Errorf("seed %d, %d blocks of %d warps, %s: grid %d cycles (%d issued), merged block %d (%d)", seed, B, len(c.Warps), pp.g, got.Makespan, got.Issued, want.Makespan, want.Issued)
			}
		}
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d barrier-free cases", checked)
	}
}
