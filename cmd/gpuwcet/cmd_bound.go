package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/token"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/bound/pessimism"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/explore"
)

func boundCommand() *cli.Command {
	return &cli.Command{
		Name:      "bound",
		Usage:     "bound the execution time of a thread block (sum over barrier sections of the largest warp bound)",
		ArgsUsage: "INPUT",
		Description: `Computes, for each kernel of INPUT (a simulator trace, or a kernel without
branches replicated to --warps warps), the block bound of docs/model.md: per
barrier section, every warp's isolated duration plus the interference of
the other warps, maximised over warps; the sections are summed. The ECRTS
2025 GUB is printed alongside for comparison; it is not the bound.

When the block is small enough for an exhaustive search of its schedules
(at most --exact-budget normalised states, package phases/sim/explore), the
bound reported is the exact worst case over every work-conserving schedule
of the reference model, marked "exact", with the closed-form bound beside
it; --exact-budget 0 reports the closed-form bound only.

With --deadline, the exit code is 3 when a bound exceeds the deadline.

When INPUT is a simulator trace that records the observed execution time
(GPGPU-Sim's kernel_execution_time) and --warps is not given, the observed
time is printed beside the bound; an observation above the bound is a
soundness violation (of the hardware description or of the analyzer) and
exits with code 4.`,
		Flags: []cli.Flag{
			timingHWFlag, timingFormatFlag, timingKernelFlag, inputFormatFlag, maxInputFlag, dedupeFlag, strictFlag,
			&cli.IntFlag{Name: "warps", Usage: "replicate the single path to `N` warps (at most 32)", DefaultText: "the trace's warps, or 1", Category: catTarget},
			&cli.Int64Flag{Name: "deadline", Usage: "exit with code 3 when the bound exceeds `CYCLES`", DefaultText: "none", Category: catOutput},
			&cli.BoolFlag{Name: "phases", Usage: "text: also list every warp's phases", Category: catOutput},
			&cli.IntFlag{Name: "exact-budget", Value: defaultExactBudget, Usage: "report the exact worst case when the exhaustive search of the block's schedules needs at most `N` normalised states (0: never)", Category: catTarget},
		},
		Action: func(c *cli.Context) error {
			file, res, err := runTiming(c, bound.Analyzer, false)
			if err != nil {
				return err
			}
			budget := c.Int("exact-budget")
			if budget < 0 {
				return codef(ExitBadInput, "bound: --exact-budget must not be negative, got %d", budget)
			}
			deadline := c.Int64("deadline")
			if c.IsSet("deadline") && deadline < 0 {
				return codef(ExitBadInput, "bound: --deadline must not be negative, got %d", deadline)
			}
			var out bytes.Buffer
			var late, unsound []string
			for i, fn := range res.Funcs {
				r := res.Get(bound.Analyzer, fn).Result.(*bound.Result)
				if budget > 0 && r.NumWarps > 1 {
					x, err := exactWorst(file.Fset, fn, r.HW, c.Int("warps"), budget)
					if err != nil {
						return withCode(ExitBadInput, fmt.Errorf("bound: %w", err))
					}
					if x != nil && x.Cycles > r.Bound {
						unsound = append(unsound, fmt.Sprintf("%s: a schedule takes %d cycles, above the closed-form bound of %d cycles: the analyzer is wrong for this input", fn.Name, x.Cycles, r.Bound))
					}
					r.Exact = x
				}
				split := pessimism.FixedPath(r, func(hw *hwdesc.Desc) (*bound.Result, error) {
					p, err := phases.Build(file.Fset, fn, hw, c.Int("warps"), false)
					if err != nil {
						return nil, err
					}
					return bound.Compute(p)
				})
				reported := r.Reported()
				if c.IsSet("deadline") && int64(reported) > deadline {
					late = append(late, fmt.Sprintf("%s: bound %d cycles exceeds the deadline of %d cycles", fn.Name, reported, deadline))
				}
				var observed *int64
				if tr := fn.Trace; tr != nil && tr.HasObserved && !c.IsSet("warps") {
					observed = &tr.ObservedCycles
					if tr.ObservedCycles > int64(reported) {
						unsound = append(unsound, fmt.Sprintf("%s: observed %d cycles exceeds the bound of %d cycles: the hardware description or the analyzer is wrong for this input", fn.Name, tr.ObservedCycles, reported))
					}
				}
				if c.String("format") == "json" {
					if len(res.Funcs) != 1 {
						return codef(ExitBadInput, "bound: --format json describes one kernel; %s has %d, choose one with --kernel", file.Name, len(res.Funcs))
					}
					j := bound.NewJSON(r, file.Fset, "gpuwcet", version)
					if c.IsSet("deadline") {
						j.Deadline = &deadline
					}
					j.ObservedCycles = observed
					enc := json.NewEncoder(&out)
					enc.SetIndent("", "  ")
					if err := enc.Encode(boundJSON{JSON: j, Pessimism: split}); err != nil {
						return withCode(ExitBadInput, err)
					}
					continue
				}
				if i > 0 {
					out.WriteByte('\n')
				}
				if err := bound.WriteText(&out, r, file.Fset, c.Bool("phases")); err != nil {
					return withCode(ExitBadInput, err)
				}
				if err := pessimism.WriteText(&out, split); err != nil {
					return withCode(ExitBadInput, err)
				}
				if observed != nil {
					fmt.Fprintf(&out, "observed: %d cycles (trace); bound - observed = %d cycles\n", *observed, int64(reported)-*observed)
				}
			}
			if _, err := c.App.Writer.Write(out.Bytes()); err != nil {
				return err
			}
			if len(unsound) > 0 {
				return codef(ExitUnsound, "bound: soundness violation: %s", joinLines(unsound))
			}
			if len(late) > 0 {
				return codef(ExitVerdict, "bound: %s", joinLines(late))
			}
			return nil
		},
	}
}

// boundJSON is the JSON document of gpuwcet bound: package bound's, with
// the pessimism split of the closed-form bound (docs/report.md).
type boundJSON struct {
	*bound.JSON
	Pessimism *pessimism.Split `json:"pessimism"`
}

// defaultExactBudget is the default --exact-budget of gpuwcet bound: a
// search of at most this many normalised states takes a fraction of a
// second.
const defaultExactBudget = 10000

// exactWorst returns the exact worst case of the block of fn (the paths
// gpuwcet bound analyses) over every work-conserving schedule, under the
// model's barriers and, when the block has barriers, drained ones (the
// larger), or nil when the search needs more than budget states.
func exactWorst(fset *token.FileSet, fn *isa.Func, hw *hwdesc.Desc, warps, budget int) (*bound.Exact, error) {
	x := &bound.Exact{Budget: budget}
	for _, mode := range []sim.BarrierMode{sim.BarrierReach, sim.BarrierDrain} {
		blk, err := newSimBlock(fset, fn, hw, warps, mode)
		if err != nil {
			return nil, err
		}
		r, err := explore.Worst(blk.prog, explore.Options{Budget: budget - x.States})
		if err != nil {
			return nil, err
		}
		x.States += r.States
		if !r.Exact {
			return nil, nil
		}
		x.Cycles = max(x.Cycles, r.Makespan)
		if len(r.Witness) == 0 || !hasBarrier(blk.prog) {
			break
		}
	}
	return x, nil
}

// hasBarrier reports whether a warp of p reaches a block barrier.
func hasBarrier(p *sim.Program) bool {
	for w := 0; w < p.Warps(); w++ {
		for _, in := range p.Instrs(w) {
			if in.Barrier {
				return true
			}
		}
	}
	return false
}

func joinLines(ss []string) string {
	var b bytes.Buffer
	for i, s := range ss {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s)
	}
	return b.String()
}
