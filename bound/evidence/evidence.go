package evidence

import (
	"fmt"
	"go/token"

	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

// Analysis is a kernel analysed as gpuwcet analyze does, with a generator
// of its concrete executions.
type Analysis struct {
	Report *static.Report // the static pass's report, from pass.Run as analyze runs it
	Gen    *simt.Generator
	HW     *hwdesc.Desc
	Func   *isa.Func // the function the generator's paths come from (calls inlined)
}

// Analyze parses src (PTX) and runs the static pass on its kernel named
// name under hw and launch, with the facts (may be nil) and the listing's
// checksum as analyze passes them. A kernel the analysis refuses is an
// error (static.Unbounded tells "not bounded" apart).
func Analyze(path string, src []byte, name string, hw *hwdesc.Desc, launch pass.Launch, facts *loops.Facts) (*Analysis, error) {
	fset := token.NewFileSet()
	file, err := load.File(fset, path, src, load.PTX)
	if err != nil {
		return nil, err
	}
	inputs := map[string]any{loops.ListingSHAInput: loops.SHA256(src)}
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
		gen, ifn, err := simt.NewKernel(file, fn, launch, facts, loops.SHA256(src))
		if err != nil {
			return nil, err
		}
		return &Analysis{Report: rep, Gen: gen, HW: hw, Func: ifn}, nil
	}
	return nil, fmt.Errorf("%s: no kernel %s", path, name)
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

// Program draws the execution of seed and compiles it for the simulator.
func (a *Analysis) Program(seed uint64, opt simt.Options, mode sim.BarrierMode) (*sim.Program, *simt.Block, error) {
	blk, err := a.Gen.Draw(seed, opt)
	if err != nil {
		return nil, nil, err
	}
	p, err := sim.CompileFunc(a.HW, blk.Paths, mode, a.Func)
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
