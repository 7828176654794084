package main

import (
	"fmt"
	"go/token"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/bound/evidence"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

const sgemmKernel = "_Z17sgemm_double_buffiiifPKfS0_fPf"

// paperTable4 is the double-buffering half of the ECRTS 2025 Table 4
// (reference-data.md §8.4): GUB overestimation vs the GPGPU-Sim block time,
// in percent, by memory latency and warps.
var paperTable4 = map[int]map[int]float64{
	400: {32: 11.15, 16: 19.19, 8: 33.08, 4: 58.21},
	200: {32: 8.51, 16: 14.12, 8: 23.37, 4: 40.40},
	100: {32: 8.44, 16: 14.11, 8: 23.57, 4: 41.08},
	50:  {32: 8.39, 16: 14.06, 8: 23.65, 4: 41.42},
	25:  {32: 8.35, 16: 14.01, 8: 23.59, 4: 41.54},
	10:  {32: 8.33, 16: 13.98, 8: 23.57, 4: 41.59},
	5:   {32: 8.32, 16: 13.97, 8: 23.59, 4: 41.60},
}

func sgemmCommand() *cli.Command {
	return &cli.Command{
		Name:  "sgemm",
		Usage: "static bound vs simulated makespan of the SGEMM double-buffer kernel (the shape of the ECRTS 2025 Table 4)",
		Description: `For every memory latency L (--latencies; ecrts25-orin-L) and warp count W
(--warps; one block of 32*W threads, M = N = K = --k), analyses the SGEMM
double-buffer kernel as gpuwcet analyze does (loop bound derived from K:
32 for K = 1024), draws its concrete execution (no data-dependent control
flow: the uniform branch resolved from K, the loop at its bound, one path per
warp: package phases/sim/simt with max loops) and simulates it under each
policy (--policies; the adversarial search with --budget only for the warp
counts in --adversarial-warps). Prints the static bound, the fixed-path
bound and the paper's GUB of the concrete paths (package bound), the
makespans, and the overestimations beside the paper's Table 4 (GUB vs
GPGPU-Sim). A makespan above the static bound exits with code 4.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "ptx", Value: "../shared/reference/sgemm/" + sgemmKernel + ".ptx", Usage: "the SGEMM listing `FILE`", Category: catInput},
			maxInputFlag,
			&cli.StringFlag{Name: "latencies", Value: "5,10,25,50,100,200,400", Usage: "memory latencies, comma-separated `LIST` of cycles", Category: catTarget},
			&cli.StringFlag{Name: "warps", Value: "32,16,8,4", Usage: "warps per block, comma-separated `LIST` (at most 32)", Category: catTarget},
			&cli.IntFlag{Name: "k", Value: 1024, Usage: "matrix size `K` (also M and N)", Category: catTarget},
			&cli.StringFlag{Name: "policies", Value: "lrr,gto", Usage: "policies, comma-separated `LIST`", Category: catTarget},
			&cli.StringFlag{Name: "adversarial-warps", Value: "4,8", Usage: "warp counts also run under the adversarial search, comma-separated `LIST` (empty: none)", Category: catTarget},
			&cli.IntFlag{Name: "budget", Value: 16, Usage: "`N` simulations of the adversarial search", Category: catTarget},
		},
		Action: runSGEMM,
	}
}

// sgemmRow is one (latency, warps) cell of the experiment.
type sgemmRow struct {
	Lat, Warps  int
	Static      hwdesc.Cycles // gpuwcet analyze
	Fixed, GUB  hwdesc.Cycles // package bound on the concrete paths
	Makespan    map[string]hwdesc.Cycles
	Worst       hwdesc.Cycles
	WorstPolicy string
}

// sgemmExperiment computes the rows from the SGEMM listing src (read from
// ptxPath).
func sgemmExperiment(ptxPath string, src []byte, lats, warps []int, k int, pols []sim.Policy, advWarps map[int]bool, budget int) ([]sgemmRow, error) {
	sha := loops.SHA256(src)
	var rows []sgemmRow
	for _, lat := range lats {
		hw, err := hwdesc.Resolve(fmt.Sprintf("ecrts25-orin-%d", lat))
		if err != nil {
			return nil, err
		}
		for _, w := range warps {
			fset := token.NewFileSet()
			file, err := load.File(fset, ptxPath, src, load.PTX)
			if err != nil {
				return nil, err
			}
			var fn *isa.Func
			for _, f := range file.Funcs {
				if f.Name == sgemmKernel {
					fn = f
				}
			}
			if fn == nil {
				return nil, fmt.Errorf("%s: no kernel %s", ptxPath, sgemmKernel)
			}
			args := map[string]int64{}
			for i := range 3 {
				args[fmt.Sprintf("%s_param_%d", sgemmKernel, i)] = int64(k)
			}
			launch := pass.Launch{Block: [3]int{32 * w, 1, 1}, Grid: [3]int{1, 1, 1}, Args: args}
			res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, file, pass.Options{HW: hw, Launch: launch, Inputs: map[string]any{loops.ListingSHAInput: sha}})
			if err != nil {
				return nil, err
			}
			act := res.Get(static.Analyzer, fn)
			if act.Err != nil {
				return nil, fmt.Errorf("%s, %d warps: %w", hw.Name, w, act.Err)
			}
			row := sgemmRow{Lat: lat, Warps: w, Static: act.Result.(*static.Report).Bound, Makespan: map[string]hwdesc.Cycles{}}
			judge, jl, err := evidence.Judge(file, fn, launch, nil, sha)
			if err != nil {
				return nil, err
			}
			blk, err := judge.Run(jl, simt.Options{Seed: 1})
			if err != nil {
				return nil, err
			}
			// The fixed-path bound and the paper's GUB of the concrete
			// paths: the paths as a trace of the (inlined) function.
			tf := *fn
			tf.Trace = &isa.Trace{}
			for i, p := range blk.Paths {
				tf.Trace.Warps = append(tf.Trace.Warps, isa.WarpPath{Warp: i, Instrs: p})
			}
			prof, err := phases.Build(fset, &tf, hw, 0, false)
			if err != nil {
				return nil, err
			}
			br, err := bound.Compute(prof)
			if err != nil {
				return nil, err
			}
			row.Fixed, row.GUB = br.Bound, br.GUB
			prog, err := blk.Program(hw, sim.BarrierReach)
			if err != nil {
				return nil, err
			}
			ps := pols
			if advWarps[w] {
				ps = append(ps[:len(ps):len(ps)], sim.Policy{Kind: sim.Adversarial, Seed: 1, Budget: budget})
			}
			for _, pol := range ps {
				r, err := prog.Run(pol, sim.Options{})
				if err != nil {
					return nil, err
				}
				name := pol.String()
				if pol.Kind == sim.Adversarial {
					name = "adversarial"
				}
				row.Makespan[name] = r.Makespan
				if r.Makespan > row.Worst {
					row.Worst, row.WorstPolicy = r.Makespan, r.Policy
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

func pct(b, m hwdesc.Cycles) string {
	if m <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f %%", 100*(float64(b)/float64(m)-1))
}

func writeSGEMMTable(w io.Writer, rows []sgemmRow, pols []sim.Policy) {
	var names []string
	for _, p := range pols {
		names = append(names, strings.ToUpper(p.String()))
	}
	fmt.Fprintf(w, "| Mem. lat. | Warps | Static bound | Fixed-path bound | GUB | %s | Adversarial | Static / worst | GUB / LRR | GUB / GTO | Paper GUB / GPGPU-Sim |\n", strings.Join(names, " | "))
	fmt.Fprintf(w, "|---:|---:|---:|---:|---:|%s---:|---:|---:|---:|---:|\n", strings.Repeat("---:|", len(names)))
	for _, r := range rows {
		var ms []string
		for _, p := range pols {
			ms = append(ms, fmt.Sprint(r.Makespan[p.String()]))
		}
		adv := "-"
		if m, ok := r.Makespan["adversarial"]; ok {
			adv = fmt.Sprint(m)
		}
		paper := "-"
		if v, ok := paperTable4[r.Lat][r.Warps]; ok {
			paper = fmt.Sprintf("%.2f %%", v)
		}
		fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s |\n", r.Lat, r.Warps, r.Static, r.Fixed, r.GUB,
			strings.Join(ms, " | "), adv, pct(r.Static, r.Worst), pct(r.GUB, r.Makespan["lrr"]), pct(r.GUB, r.Makespan["gto"]), paper)
	}
}

func runSGEMM(c *cli.Context) error {
	if c.NArg() > 0 {
		return codef(ExitBadInput, "experiment sgemm takes no arguments (the listing goes to --ptx)")
	}
	lats, err := splitInts(c.String("latencies"), "latencies")
	if err != nil {
		return codef(ExitBadInput, "experiment sgemm: %v", err)
	}
	warps, err := splitInts(c.String("warps"), "warps")
	if err != nil {
		return codef(ExitBadInput, "experiment sgemm: %v", err)
	}
	for _, w := range warps {
		if err := checkWarps("experiment sgemm", w); err != nil {
			return err
		}
	}
	pols, err := splitPolicies(c.String("policies"))
	if err != nil {
		return codef(ExitBadInput, "experiment sgemm: --policies: %v", err)
	}
	adv := map[int]bool{}
	if s := strings.TrimSpace(c.String("adversarial-warps")); s != "" {
		ws, err := splitInts(s, "adversarial-warps")
		if err != nil {
			return codef(ExitBadInput, "experiment sgemm: %v", err)
		}
		for _, w := range ws {
			adv[w] = true
		}
	}
	ptx := c.String("ptx")
	src, err := experimentInput(c, "experiment sgemm", "ptx", ptx,
		"the SGEMM double-buffer listing "+sgemmKernel+".ptx, which the development checkout's shared data holds in ../shared/reference/sgemm/ (the default path, from the repository root)")
	if err != nil {
		return err
	}
	rows, err := sgemmExperiment(ptx, src, lats, warps, c.Int("k"), pols, adv, c.Int("budget"))
	if err != nil {
		return codef(ExitBadInput, "experiment sgemm: %v", err)
	}
	writeSGEMMTable(c.App.Writer, rows, pols)
	var bad []string
	for _, r := range rows {
		if r.Worst > r.Static {
			bad = append(bad, fmt.Sprintf("latency %d, %d warps: makespan %d (%s) > static bound %d", r.Lat, r.Warps, r.Worst, r.WorstPolicy, r.Static))
		}
	}
	if len(bad) > 0 {
		return codef(ExitUnsound, "experiment sgemm: soundness violation: %s", joinLines(bad))
	}
	return nil
}
