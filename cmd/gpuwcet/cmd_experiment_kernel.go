package main

import (
	"fmt"
	"go/token"
	"io"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound/evidence"
	"github.com/gpuwcet/gpuwcet/bound/kernel"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/hwdesc/arch"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

func kernelExperimentCommand() *cli.Command {
	return &cli.Command{
		Name:      "kernel",
		Usage:     "kernel-level bound vs simulated grid makespans (docs/validation.md, \"Kernel-level bound\")",
		ArgsUsage: "INPUT",
		Description: `For each kernel of the PTX listing INPUT (--kernel), each grid size of --grids
(one-dimensional grids) and each SM count of --sms, computes the kernel-level
bound as gpuwcet analyze --grid does (the block bound, the co-resident bound,
bound(k) and the lower bound; occupancy from --arch and --regs), draws one
execution of every block of the grid (package phases/sim/simt, block index
and memory drawn per block from --seed), and simulates the grid on k SMs
(package phases/sim, RunGrid: the occupancy's co-resident blocks per SM, at
both ends of its range, refilled as blocks end; every grid policy; reach
barriers; the description's fixed-latency memory). Prints a Markdown table.
A makespan above the kernel bound or below its lower bound exits with
code 4.`,
		Flags: []cli.Flag{
			timingHWFlag, timingKernelFlag, maxInputFlag, blockFlag, argFlag,
			&cli.StringFlag{Name: "facts", Usage: "flow-facts `FILE`", Category: catInput},
			&cli.StringFlag{Name: "grids", Value: "8,32,128", Usage: "grid sizes (blocks), comma-separated `LIST`", Category: catTarget},
			&cli.StringFlag{Name: "sms", Value: "1,2,4,8", Usage: "SM counts, comma-separated `LIST`", Category: catTarget},
			&cli.StringFlag{Name: "arch", Value: "sm_80", Usage: "compute capability `ARCH` for the occupancy", Category: catTarget},
			&cli.IntFlag{Name: "regs", Usage: "registers per thread `N`", DefaultText: "a range", Category: catTarget},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "`SEED` of the drawn executions", Category: catTarget},
		},
		Action: runKernelExperiment,
	}
}

type kernelRow struct {
	name            string
	blocks, sms, m  int
	occ             [2]int
	blockBound, co  hwdesc.Cycles
	upper, lower    hwdesc.Cycles
	makespan        hwdesc.Cycles
	minMakespan     hwdesc.Cycles
	policy          string
	longestBlock    hwdesc.Cycles // longest block lifetime in the worst run
	maxSingleBlock  hwdesc.Cycles // single wave: longest block lifetime over the runs
	singleWave      bool
	coResidentBound hwdesc.Cycles // the co-resident bound for min(mHi, B)
}

func runKernelExperiment(c *cli.Context) error {
	if c.NArg() != 1 {
		return codef(ExitBadInput, "experiment kernel: want exactly one INPUT, got %d", c.NArg())
	}
	hw, err := hwdesc.Resolve(c.String("hw"))
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("experiment kernel: --hw: %w", err))
	}
	launch, err := launchFromFlags(c)
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("experiment kernel: %w", err))
	}
	if launch.Threads() == 0 {
		return codef(ExitBadInput, "experiment kernel: give --block DIMS")
	}
	grids, err := splitInts(c.String("grids"), "grids")
	if err != nil {
		return codef(ExitBadInput, "experiment kernel: %v", err)
	}
	smss, err := splitInts(c.String("sms"), "sms")
	if err != nil {
		return codef(ExitBadInput, "experiment kernel: %v", err)
	}
	a, err := arch.Lookup(c.String("arch"))
	if err != nil {
		return codef(ExitBadInput, "experiment kernel: --arch: %v", err)
	}
	path := c.Args().First()
	src, err := readInput(c, path)
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("experiment kernel: %w", err))
	}
	var facts *loops.Facts
	if fp := c.String("facts"); fp != "" {
		if facts, err = loops.LoadFacts(fp); err != nil {
			return withCode(ExitBadInput, fmt.Errorf("experiment kernel: --facts: %w", err))
		}
	}
	var re *regexp.Regexp
	if k := c.String("kernel"); k != "" {
		if re, err = regexp.Compile(k); err != nil {
			return codef(ExitBadInput, "experiment kernel: --kernel: %v", err)
		}
	}
	rows, err := kernelExperiment(path, src, hw, a, launch, facts, re, grids, smss, c.Int("regs"), c.Uint64("seed"))
	if err != nil {
		return codef(ExitBadInput, "experiment kernel: %v", err)
	}
	writeKernelTable(c.App.Writer, rows)
	var bad []string
	for _, r := range rows {
		if r.makespan > r.upper || r.minMakespan < r.lower || (r.singleWave && r.maxSingleBlock > r.coResidentBound) {
			bad = append(bad, fmt.Sprintf("%s, %d blocks, %d SMs, %d slots: makespans %d..%d outside [%d, %d], longest block %d (co-resident bound %d)",
				r.name, r.blocks, r.sms, r.m, r.minMakespan, r.makespan, r.lower, r.upper, r.maxSingleBlock, r.coResidentBound))
		}
	}
	if len(bad) > 0 {
		return codef(ExitUnsound, "experiment kernel: soundness violation: %s", joinLines(bad))
	}
	return nil
}

// kernelExperiment computes the rows.
func kernelExperiment(path string, src []byte, hw *hwdesc.Desc, a *arch.Arch, block pass.Launch, facts *loops.Facts, re *regexp.Regexp, grids, smss []int, regs int, seed uint64) ([]kernelRow, error) {
	sha := loops.SHA256(src)
	var rows []kernelRow
	for _, B := range grids {
		fset := token.NewFileSet()
		file, err := load.File(fset, path, src, load.PTX)
		if err != nil {
			return nil, err
		}
		launch := block
		launch.Grid = [3]int{B, 1, 1}
		inputs := map[string]any{loops.ListingSHAInput: sha}
		if facts != nil {
			inputs[loops.FactsInput] = facts
		}
		opts := pass.Options{HW: hw, Launch: launch, Inputs: inputs, Funcs: re}
		res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, file, opts)
		if err != nil {
			return nil, err
		}
		for _, fn := range res.Funcs {
			act := res.Get(static.Analyzer, fn)
			if act.Err != nil {
				return nil, fmt.Errorf("%s: %w", fn.Name, act.Err)
			}
			rep := act.Result.(*static.Report)
			maxSMs := 0
			for _, k := range smss {
				maxSMs = max(maxSMs, k)
			}
			kr, err := kernel.Analyze(kernel.Input{File: file, Func: fn, Static: rep, Block: launch.Block, Grid: launch.Grid, Arch: a, SMs: maxSMs, ClockMHz: hw.ClockMHz, Regs: regs})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fn.Name, err)
			}
			j := kr.JSON
			blocks, err := drawGrid(file, fn, launch, facts, sha, hw, B, seed)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fn.Name, err)
			}
			slots := []int{j.Occupancy.Hi}
			if j.Occupancy.Lo != j.Occupancy.Hi {
				slots = append(slots, j.Occupancy.Lo)
			}
			for _, k := range smss {
				p := j.Bounds[k-1]
				for _, m := range slots {
					if m*blocks[0].Warps() > sim.MaxWarps {
						m = sim.MaxWarps / blocks[0].Warps()
					}
					co, _ := kernel.CoResident(kernel.Block{Bound: rep.Bound, Load: hwdesc.Cycles(j.BlockLoad)}, min(j.Occupancy.Hi, B))
					row := kernelRow{name: fn.Name, blocks: B, sms: k, m: m, occ: [2]int{j.Occupancy.Lo, j.Occupancy.Hi}, blockBound: rep.Bound,
						co: hwdesc.Cycles(j.CoResident[min(m, len(j.CoResident))-1].BoundCycles), upper: hwdesc.Cycles(p.UpperCycles), lower: hwdesc.Cycles(p.LowerCycles),
						singleWave: B <= k*m, coResidentBound: co, minMakespan: -1}
					for _, pol := range sim.GridPolicies {
						r, err := sim.RunGrid(sim.GridSpec{Blocks: blocks, SMs: k, Slots: m, Seed: seed, Policy: pol})
						if err != nil {
							return nil, err
						}
						if r.Makespan > row.makespan || row.policy == "" {
							row.makespan, row.policy = r.Makespan, pol.String()
						}
						if row.minMakespan < 0 || r.Makespan < row.minMakespan {
							row.minMakespan = r.Makespan
						}
						for b := range r.End {
							row.maxSingleBlock = max(row.maxSingleBlock, r.End[b]-r.Start[b])
						}
					}
					rows = append(rows, row)
				}
			}
		}
	}
	return rows, nil
}

// drawGrid draws one execution of every block of a one-dimensional grid
// of B blocks (block index b, memory from seed+b) and compiles it.
func drawGrid(file *isa.File, fn *isa.Func, launch pass.Launch, facts *loops.Facts, sha string, hw *hwdesc.Desc, B int, seed uint64) ([]*sim.Program, error) {
	k, l, err := evidence.Judge(file, fn, launch, facts, sha)
	if err != nil {
		return nil, err
	}
	var out []*sim.Program
	for b := range B {
		cta := [3]int{b, 0, 0}
		l.CTA = &cta
		blk, err := k.Run(l, simt.Options{Seed: seed + uint64(b)})
		if err != nil {
			return nil, fmt.Errorf("drawing block %d: %w", b, err)
		}
		p, err := blk.Program(hw, sim.BarrierReach)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func writeKernelTable(w io.Writer, rows []kernelRow) {
	fmt.Fprintln(w, "| Kernel | Blocks | SMs | Occupancy | Slots simulated | Block bound | Co-resident bound (slots) | Kernel bound | Lower bound | Simulated makespan (max, policy) | Simulated min | Bound / max |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		occ := fmt.Sprint(r.occ[0])
		if r.occ[0] != r.occ[1] {
			occ = fmt.Sprintf("%d..%d", r.occ[0], r.occ[1])
		}
		ratio := "-"
		if r.makespan > 0 {
			ratio = fmt.Sprintf("%.2f", float64(r.upper)/float64(r.makespan))
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %d | %d | %d | %d | %d | %d (%s) | %d | %s |\n", strings.ReplaceAll(r.name, "|", `\|`), r.blocks, r.sms, occ, r.m,
			r.blockBound, r.co, r.upper, r.lower, r.makespan, r.policy, r.minMakespan, ratio)
	}
}
