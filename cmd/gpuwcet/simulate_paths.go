package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound/evidence"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

// simPaths draws executions of a kernel with control flow (gpuwcet
// simulate --paths-seed) from the instruction semantics (package
// phases/sim/simt, the judge, which shares no code with the analysis).
type simPaths struct {
	file   *isa.File
	hw     *hwdesc.Desc
	launch pass.Launch
	facts  *loops.Facts
	sha    string
	seed   uint64
	orders []simt.Order // the orders to draw; nil with exhaustive
	// exhaustive enumerates every order of the lane groups at every
	// divergence, at most limit executions.
	exhaustive bool
	limit      int
	maxLoops   bool
	check      bool
}

// orderNames lists the values of --order.
const orderNames = "taken-first, fallthrough-first, random, gpgpusim, all (the four) or exhaustive"

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
	if file.Dialect != isa.DialectPTX {
		return nil, codef(ExitBadInput, "simulate: --paths-seed interprets PTX only; %s is a %s listing (simulate a trace of it, or analyze it)", file.Name, file.Dialect)
	}
	p := &simPaths{file: file, hw: hw, launch: launch, sha: sha, seed: c.Uint64("paths-seed"),
		maxLoops: c.Bool("max-loops"), check: c.Bool("check-bound"), limit: c.Int("max-orders")}
	switch o := c.String("order"); o {
	case "all":
		p.orders = simt.Orders
	case "exhaustive":
		p.exhaustive = true
		if p.limit <= 0 {
			return nil, codef(ExitBadInput, "simulate: --max-orders must be positive, got %d", p.limit)
		}
	default:
		order, err := simt.ParseOrder(o)
		if err != nil {
			return nil, codef(ExitBadInput, "simulate: --order: unknown order %q (want %s)", o, orderNames)
		}
		p.orders = []simt.Order{order}
	}
	if fp := c.String("facts"); fp != "" {
		if p.facts, err = loops.LoadFacts(fp); err != nil {
			return nil, withCode(ExitBadInput, fmt.Errorf("simulate: --facts: %w", err))
		}
	}
	return p, nil
}

// run draws fn's executions, simulates each under pol and returns the
// longest (its block, result); with check, the block carries the static
// bound as gpuwcet analyze computes it.
func (p *simPaths) run(fn *isa.Func, mode sim.BarrierMode, pol sim.Policy, opt sim.Options) (*simBlock, *sim.Result, error) {
	k, l, err := evidence.Judge(p.file, fn, p.launch, p.facts, p.sha)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", fn.Name, err)
	}
	var best *simBlock
	var bestR *sim.Result
	n := 0
	visit := func(blk *simt.Block, what string) error {
		n++
		b := &simBlock{fn: fn, hw: p.hw, source: what}
		for w := range blk.Paths {
			b.warps = append(b.warps, w)
		}
		if b.prog, err = blk.Program(p.hw, mode); err != nil {
			return fmt.Errorf("%s: %w", fn.Name, err)
		}
		r, err := b.prog.Run(pol, opt)
		if err != nil {
			return fmt.Errorf("%s: %w", fn.Name, err)
		}
		if bestR == nil || r.Makespan > bestR.Makespan {
			best, bestR = b, r
		}
		return nil
	}
	base := "simt seed " + strconv.FormatUint(p.seed, 10)
	if p.maxLoops {
		base += ", max loops"
	}
	complete := true
	if p.exhaustive {
		complete, err = k.Exhaustive(l, simt.Options{Seed: p.seed, MaxLoops: p.maxLoops}, p.limit, func(blk *simt.Block) error {
			return visit(blk, fmt.Sprintf("%s, order sequence %d", base, n+1))
		})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: drawing the executions: %w", fn.Name, err)
		}
	} else {
		for _, o := range p.orders {
			blk, err := k.Run(l, simt.Options{Seed: p.seed, Order: o, MaxLoops: p.maxLoops})
			if err != nil {
				return nil, nil, fmt.Errorf("%s: drawing the execution: %w", fn.Name, err)
			}
			if err := visit(blk, base+", order "+o.String()); err != nil {
				return nil, nil, err
			}
		}
	}
	if n > 1 {
		var sb strings.Builder
		fmt.Fprintf(&sb, "longest of %d executions", n)
		if p.exhaustive {
			if complete {
				sb.WriteString(" (every order of the lane groups)")
			} else {
				fmt.Fprintf(&sb, " (the first %d orders of the lane groups: raise --max-orders for all)", p.limit)
			}
		}
		best.source = sb.String() + ": " + best.source
	} else if p.exhaustive {
		best.source += " (the only order)"
	}
	if p.check {
		bnd, err := p.bound(fn)
		if err != nil {
			return nil, nil, err
		}
		best.bound = &bnd
	}
	return best, bestR, nil
}

// bound computes fn's static bound as gpuwcet analyze does.
func (p *simPaths) bound(fn *isa.Func) (hwdesc.Cycles, error) {
	inputs := map[string]any{loops.ListingSHAInput: p.sha}
	if p.facts != nil {
		inputs[loops.FactsInput] = p.facts
	}
	res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, p.file, pass.Options{HW: p.hw, Launch: p.launch, Inputs: inputs})
	if err != nil {
		return 0, err
	}
	for _, f := range res.Funcs {
		if f.Name != fn.Name {
			continue
		}
		act := res.Get(static.Analyzer, f)
		if act.Err != nil {
			return 0, fmt.Errorf("%s: --check-bound: the static analysis failed: %w", fn.Name, act.Err)
		}
		return act.Result.(*static.Report).Bound, nil
	}
	return 0, fmt.Errorf("%s: --check-bound: no static result", fn.Name)
}
