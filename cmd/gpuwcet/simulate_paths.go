package main

import (
	"fmt"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

// simPaths draws a block's paths through a kernel with control flow
// (gpuwcet simulate --paths-seed), on the graph gpuwcet analyze uses.
type simPaths struct {
	file   *isa.File
	hw     *hwdesc.Desc
	launch pass.Launch
	facts  *loops.Facts
	sha    string
	seed   uint64
	opt    simt.Options
	check  bool
}

// newSimPaths reads the flags of drawn executions; sha is the SHA-256 of
// the listing file was parsed from (loadFileSHA).
func newSimPaths(c *cli.Context, file *isa.File, sha string, hw *hwdesc.Desc) (*simPaths, error) {
	launch, err := launchFromFlags(c)
	if err != nil {
		return nil, withCode(ExitBadInput, fmt.Errorf("simulate: %w", err))
	}
	if funcs, err := selectFuncs(file, c.String("kernel")); err == nil {
		if err := checkLaunchArgs(launch, funcs); err != nil {
			return nil, withCode(ExitBadInput, fmt.Errorf("simulate: %w", err))
		}
	}
	if launch.Threads() == 0 {
		return nil, codef(ExitBadInput, "simulate: --paths-seed needs the launch configuration: give --block DIMS")
	}
	if c.IsSet("warps") {
		return nil, codef(ExitBadInput, "simulate: --warps replicates a single path; with --paths-seed the warps come from --block")
	}
	order, err := simt.ParseOrder(c.String("sides"))
	if err != nil {
		return nil, codef(ExitBadInput, "simulate: --sides: %v", err)
	}
	p := &simPaths{file: file, hw: hw, launch: launch, sha: sha, seed: c.Uint64("paths-seed"),
		opt: simt.Options{Order: order, MaxLoops: c.Bool("max-loops")}, check: c.Bool("check-bound")}
	if fp := c.String("facts"); fp != "" {
		if p.facts, err = loops.LoadFacts(fp); err != nil {
			return nil, withCode(ExitBadInput, fmt.Errorf("simulate: --facts: %w", err))
		}
	}
	return p, nil
}

// block draws fn's execution and compiles it; with check, it also
// computes the static bound as gpuwcet analyze does.
func (p *simPaths) block(fn *isa.Func, mode sim.BarrierMode) (*simBlock, error) {
	gen, ifn, err := simt.NewKernel(p.file, fn, p.launch, p.facts, p.sha)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn.Name, err)
	}
	blk, err := gen.Draw(p.seed, p.opt)
	if err != nil {
		return nil, fmt.Errorf("%s: drawing the paths: %w", fn.Name, err)
	}
	b := &simBlock{fn: fn, hw: p.hw, source: "simt seed " + strconv.FormatUint(p.seed, 10) + ", sides " + p.opt.Order.String()}
	if p.opt.MaxLoops {
		b.source += ", max loops"
	}
	for w := range blk.Paths {
		b.warps = append(b.warps, w)
	}
	if b.prog, err = sim.CompileFunc(p.hw, blk.Paths, mode, ifn); err != nil {
		return nil, fmt.Errorf("%s: %w", fn.Name, err)
	}
	if p.check {
		inputs := map[string]any{loops.ListingSHAInput: p.sha}
		if p.facts != nil {
			inputs[loops.FactsInput] = p.facts
		}
		res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, p.file, pass.Options{HW: p.hw, Launch: p.launch, Inputs: inputs})
		if err != nil {
			return nil, err
		}
		for _, f := range res.Funcs {
			if f.Name != fn.Name {
				continue
			}
			act := res.Get(static.Analyzer, f)
			if act.Err != nil {
				return nil, fmt.Errorf("%s: --check-bound: the static analysis failed: %w", fn.Name, act.Err)
			}
			bnd := act.Result.(*static.Report).Bound
			b.bound = &bnd
		}
	}
	return b, nil
}
