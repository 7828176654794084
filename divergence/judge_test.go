package divergence_test

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/divergence"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

// TestJudgePathsCovered: on random structured functions with a known
// launch (2 warps, the second partial), every execution the independent
// judge (phases/sim/simt: its own SIMT stack, GPGPU-Sim's update, every
// order of the lane groups, exhaustively when there are few) draws is,
// warp by warp, a path of the warp's class's warp-level CFG. The
// functions' conditions are live-in predicates, which the judge draws at
// every read (Options.Volatile: data-dependent branches), and their loops
// are capped at random bounds 1-3, which the judge's header counts must
// respect.
func TestJudgePathsCovered(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 40
	}
	var refused, draws, enumerated int
	for seed := int64(1); seed <= int64(seeds); seed++ {
		r := rand.New(rand.NewSource(seed))
		src := cfgtest.Structured(r, 12)
		file, err := cfgtest.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		fn := file.Funcs[0]
		g, err := cfg.Build(file.Fset, fn)
		if err != nil {
			t.Fatal(err)
		}
		caps := map[*isa.Instr]int64{}
		for _, l := range g.Loops {
			caps[l.Header.Instrs[0]] = 1 + r.Int63n(3)
		}
		// The caps are the loop bounds of the analysis too: the drains of
		// the warp-level CFG are as long as the branches can run.
		launch := pass.Launch{Block: [3]int{50, 1, 1}}
		info, err := divergence.Analyze(g, launch, divergence.Options{LoopBound: func(l *cfg.Loop) (int64, bool) { return caps[l.Header.Instrs[0]], true }})
		var re *divergence.RefusedError
		if errors.As(err, &re) {
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		k, err := simt.New(file, fn)
		if err != nil {
			t.Fatal(err)
		}
		jl := simt.Launch{Block: launch.Block, Caps: func(_ *isa.Func, h *isa.Instr) (int64, bool) {
			n, ok := caps[h]
			return n, ok
		}}
		classOf := map[int]*divergence.Class{}
		for _, c := range info.Classes {
			for _, w := range c.Warps {
				classOf[w] = c
			}
		}
		check := func(b *simt.Block, what string) error {
			for w, steps := range b.Steps {
				draws++
				seq := make([]int, len(steps))
				for i, s := range steps {
					seq[i] = s.Block
				}
				if !accepts(classOf[w].Graph, seq) {
					return fmt.Errorf("seed %d (%s) warp %d: sequence %v is not a path of the warp-level CFG\n%s", seed, what, w, seq, src)
				}
			}
			return nil
		}
		for run := range 8 {
			opt := simt.Options{Order: simt.Orders[run%len(simt.Orders)], Seed: uint64(seed*100 + int64(run)), Volatile: true, MaxLoops: run >= 4}
			b, err := k.Run(jl, opt)
			if err != nil {
				t.Fatalf("seed %d run %d: %v\n%s", seed, run, err, src)
			}
			if err := check(b, fmt.Sprintf("run %d, order %v", run, opt.Order)); err != nil {
				t.Fatal(err)
			}
		}
		all, err := k.Exhaustive(jl, simt.Options{Seed: uint64(seed), Volatile: true}, 16, func(b *simt.Block) error {
			return check(b, "exhaustive")
		})
		if err != nil {
			t.Fatal(err)
		}
		if all {
			enumerated++
		}
	}
	t.Logf("%d functions refused, %d warp executions checked, %d functions with every order enumerated", refused, draws, enumerated)
	if refused > seeds/4 {
		t.Errorf("%d of %d refused", refused, seeds)
	}
}
