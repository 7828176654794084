package evidence

import (
	"fmt"
	"go/token"

	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

// Analysis is a kernel analysed as gpuwcet analyze does, with the
// independent judge of its executions.
type Analysis struct {
	Report *static.Report // the static pass's report, from pass.Run as analyze runs it
	Judge  *simt.Kernel   // the kernel's executions, from the instruction semantics
	Launch simt.Launch    // the judge's inputs: launch, arguments, flow-fact caps
	HW     *hwdesc.Desc
}

// Analyze parses src (PTX) and runs the static pass on its kernel named
// name under hw and launch, with the facts (may be nil) and the listing's
// checksum as analyze passes them, and prepares the judge (Judge). A
// kernel the analysis refuses is an error (static.Unbounded tells "not
// bounded" apart).
func Analyze(path string, src []byte, name string, hw *hwdesc.Desc, launch pass.Launch, facts *loops.Facts) (*Analysis, error) {
	fset := token.NewFileSet()
	file, err := load.File(fset, path, src, load.PTX)
	if err != nil {
		return nil, err
	}
	sha := loops.SHA256(src)
	inputs := map[string]any{loops.ListingSHAInput: sha}
	if facts != nil {
		inputs[loops.FactsInput] = facts
	}
	res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, file, pass.Options{HW: hw, Launch: launch, Inputs: inputs})
	if err != nil {
		return nil, err
	}
	for _, fn := range res.Funcs {
		if fn.Name != name {
			continue
		}
		act := res.Get(static.Analyzer, fn)
		if act.Err != nil {
			for _, a := range res.Actions() {
				if a.Func == fn && a.Err != nil && a != act && a.Err.Error() != "failed prerequisites" && !isPrereq(a.Err) {
					return nil, a.Err
				}
			}
			return nil, act.Err
		}
		rep := act.Result.(*static.Report)
		k, l, err := Judge(file, fn, launch, facts, sha)
		if err != nil {
			return nil, err
		}
		return &Analysis{Report: rep, Judge: k, Launch: l, HW: hw}, nil
	}
	return nil, fmt.Errorf("%s: no kernel %s", path, name)
}

// Judge prepares the judge of kernel fn (package phases/sim/simt): the
// kernel itself, device functions called, not inlined; the launch and the
// arguments given; and, as loop caps, the bounds the user's flow facts
// give (loops whose bound comes from a facts file; never a derived bound).
func Judge(file *isa.File, fn *isa.Func, launch pass.Launch, facts *loops.Facts, sha string) (*simt.Kernel, simt.Launch, error) {
	k, err := simt.New(file, fn)
	if err != nil {
		return nil, simt.Launch{}, err
	}
	l := simt.Launch{Block: launch.Block, Grid: launch.Grid, Args: launch.Args}
	if facts == nil {
		return k, l, nil
	}
	type key struct {
		fn   *isa.Func
		head *isa.Instr
	}
	caps := map[key]int64{}
	for _, f := range file.Funcs {
		if f.Decl || facts.Kernel(f.Name) == nil {
			continue
		}
		g, err := cfg.Build(file.Fset, f)
		if err != nil {
			return nil, l, err
		}
		lr, err := loops.Compute(g, launch, facts, sha)
		if err != nil {
			return nil, l, err
		}
		for _, lb := range lr.Loops {
			if lb.Bound != nil && lb.Bound.Source == loops.Annotated && len(lb.Header.Instrs) > 0 {
				caps[key{f, lb.Header.Instrs[0]}] = lb.Bound.Max
			}
		}
	}
	l.Caps = func(f *isa.Func, h *isa.Instr) (int64, bool) {
		n, ok := caps[key{f, h}]
		return n, ok
	}
	return k, l, nil
}

func isPrereq(err error) bool {
	for e := err; e != nil; {
		if e.Error() == "failed prerequisites" {
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

// Run is one simulated execution.
type Run struct {
	Seed     uint64
	Policy   string // the policy asked for
	Witness  string // the policy that produced the schedule (adversarial)
	Makespan hwdesc.Cycles
	Issued   int64
}

// Program draws the execution of opt (its seed, its order) and compiles
// it for the simulator.
func (a *Analysis) Program(opt simt.Options, mode sim.BarrierMode) (*sim.Program, *simt.Block, error) {
	blk, err := a.Judge.Run(a.Launch, opt)
	if err != nil {
		return nil, nil, err
	}
	p, err := blk.Program(a.HW, mode)
	if err != nil {
		return nil, nil, err
	}
	return p, blk, nil
}

// Simulate runs a program under each policy.
func Simulate(p *sim.Program, seed uint64, pols []sim.Policy) ([]Run, error) {
	var out []Run
	for _, pol := range pols {
		r, err := p.Run(pol, sim.Options{})
		if err != nil {
			return nil, err
		}
		out = append(out, Run{Seed: seed, Policy: pol.String(), Witness: r.Policy, Makespan: r.Makespan, Issued: r.Issued})
	}
	return out, nil
}
