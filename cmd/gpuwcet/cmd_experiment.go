package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
	"github.com/gpuwcet/gpuwcet/phases/sim"
)

func experimentCommand() *cli.Command {
	return &cli.Command{
		Name:  "experiment",
		Usage: "run the reproducible experiments of docs/validation.md",
		Description: `Each subcommand regenerates one table of docs/validation.md from the
reference data under ../shared (run from the repository root).`,
		Subcommands: []*cli.Command{
			tightnessCommand(),
			sgemmCommand(),
			exactCommand(),
			kernelExperimentCommand(),
		},
	}
}

func tightnessCommand() *cli.Command {
	return &cli.Command{
		Name:  "tightness",
		Usage: "bound / simulated makespan over kernel paths, latencies and policies (the shape of the ECRTS 2025 Table 3)",
		Description: `For every memory latency L (--latencies; hardware description
ecrts25-orin-L, or --hw-pattern), every kernel path (the single-warp traces
under --traces replicated to --warps warps, and the kernels without branches
of --kernels) and every policy (--policies), simulates the block with the
reference simulator (barrier semantics of docs/model.md) and computes the
bound of package bound and the ECRTS 2025 GUB. Prints, per latency and
policy, the mean, maximum, length-weighted mean (weight: warp-instructions
issued) and standard deviation of bound / makespan - 1, for both bounds; the
"S.w." rows compare each path's isolated profile with its one-warp
simulation (0 by construction: the two implementations agree).

A block whose makespan exceeds its bound is an unsoundness: it is listed on
standard error and the exit code is 4.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "latencies", Value: "5,10,25,50,100,200,400", Usage: "memory latencies, comma-separated `LIST` of cycles", Category: catTarget},
			&cli.StringFlag{Name: "hw-pattern", Value: "ecrts25-orin-%d", Usage: "hardware description per latency: `PATTERN` of a built-in name or TOML file, %d is the latency", Category: catTarget},
			&cli.StringFlag{Name: "policies", Value: "lrr,gto", Usage: "policies, comma-separated `LIST` (lrr, gto, random:SEED, adversarial[:SEED[:BUDGET]])", Category: catTarget},
			&cli.StringFlag{Name: "warps", Value: "4,8,16,32", Usage: "warp counts the single-warp paths are replicated to, comma-separated `LIST` (at most 32)", Category: catTarget},
			&cli.StringFlag{Name: "traces", Value: "../shared/reference/accelsim-singlewarp", Usage: "`DIR` searched (recursively) for single-warp *.trace files; empty: none", Category: catInput},
			&cli.StringSliceFlag{Name: "kernels", Value: cli.NewStringSlice("examples/paper-fig2/kernel.ptx", "examples/saxpy/kernel.ptx", "examples/reduce/kernel.ptx", "examples/counted-loop/kernel.ptx", "examples/divergent/kernel.ptx", "examples/device-call/kernel.ptx"), Usage: "listing `FILE`s whose kernels without branches are added (others are skipped with a note)", Category: catInput},
			maxInputFlag,
			&cli.StringFlag{Name: "format", Value: "markdown", Usage: "output `FORMAT`: markdown, csv (summary) or blocks (one CSV row per block)", Category: catOutput},
		},
		Action: runTightness,
	}
}

type tightBlock struct {
	name   string // kernel (file:func)
	fn     *isa.Func
	file   *isa.File
	warps  int
	single bool // a single-warp path replicated (warps > 0 for phases.Paths)
}

type tightRow struct {
	lat      int
	policy   string
	kernel   string
	warps    int
	issued   int64
	makespan hwdesc.Cycles
	bound    hwdesc.Cycles
	gub      hwdesc.Cycles
}

// splitPolicies parses a comma-separated --policies list.
func splitPolicies(s string) ([]sim.Policy, error) {
	var pols []sim.Policy
	for _, p := range strings.Split(s, ",") {
		pol, err := sim.ParsePolicy(strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		pols = append(pols, pol)
	}
	return pols, nil
}

func splitInts(s, what string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("--%s: bad value %q", what, f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--%s: empty list", what)
	}
	return out, nil
}

// experimentInput reads an experiment's input file named by --flag; a file
// that does not exist is an error saying what the file is (need) and
// which flag gives its path: the defaults point into the development
// checkout, which an installed binary does not have.
func experimentInput(c *cli.Context, cmd, flag, path, need string) ([]byte, error) {
	src, err := readInput(c, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, codef(ExitBadInput, "%s: --%s %s: no such file: %s; give its path with --%s FILE", cmd, flag, path, need, flag)
	}
	return src, err
}

func runTightness(c *cli.Context) error {
	if c.NArg() > 0 {
		return codef(ExitBadInput, "experiment tightness takes no arguments (listings go to --kernels)")
	}
	lats, err := splitInts(c.String("latencies"), "latencies")
	if err != nil {
		return codef(ExitBadInput, "experiment tightness: %v", err)
	}
	warpCounts, err := splitInts(c.String("warps"), "warps")
	if err != nil {
		return codef(ExitBadInput, "experiment tightness: %v", err)
	}
	for _, w := range warpCounts {
		if err := checkWarps("experiment tightness", w); err != nil {
			return err
		}
	}
	pols, err := splitPolicies(c.String("policies"))
	if err != nil {
		return codef(ExitBadInput, "experiment tightness: --policies: %v", err)
	}
	format := c.String("format")
	if format != "markdown" && format != "csv" && format != "blocks" {
		return codef(ExitBadInput, "experiment tightness: unknown --format %q (want markdown, csv or blocks)", format)
	}
	stderr := c.App.ErrWriter

	// The kernel paths.
	var blocks []tightBlock
	var files []string
	if dir := c.String("traces"); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			fmt.Fprintf(stderr, "experiment tightness: skipping traces: %v (the Accel-Sim single-warp traces are in the development checkout's ../shared/reference/accelsim-singlewarp; give a directory with --traces, or --traces '' for none)\n", err)
		} else {
			err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(path, ".trace") {
					files = append(files, path)
				}
				return err
			})
			if err != nil {
				return codef(ExitBadInput, "experiment tightness: --traces: %v", err)
			}
		}
	}
	sort.Strings(files)
	files = append(files, c.StringSlice("kernels")...)
	kernels := c.StringSlice("kernels")
	for _, path := range files {
		if slices.Contains(kernels, path) {
			if _, err := experimentInput(c, "experiment tightness", "kernels", path,
				"the default listings are the repository's examples (run from the repository root)"); err != nil {
				return err
			}
		}
		f, err := loadFile(c, path)
		if err != nil {
			return err
		}
		for _, fn := range f.Funcs {
			if fn.Decl || (!fn.Entry && fn.Trace == nil) {
				continue
			}
			name := filepath.Base(filepath.Dir(path)) + "/" + fn.Name
			if fn.Trace != nil && len(fn.Trace.Warps) != 1 {
				fmt.Fprintf(stderr, "experiment tightness: %s: %s: %d warps in the trace, want 1; skipped\n", path, fn.Name, len(fn.Trace.Warps))
				continue
			}
			if fn.Trace == nil {
				if _, err := phases.StraightLine(f.Fset, fn); err != nil {
					fmt.Fprintf(stderr, "experiment tightness: %s: skipped: %v\n", path, err)
					continue
				}
			}
			for _, w := range warpCounts {
				blocks = append(blocks, tightBlock{name: name, fn: fn, file: f, warps: w})
			}
		}
	}
	if len(blocks) == 0 {
		return codef(ExitBadInput, "experiment tightness: no kernel path (see --traces and --kernels)")
	}

	var rows []tightRow
	var single []tightRow // S.w.: one warp, isolated profile vs simulation
	var unsound []string
	for _, lat := range lats {
		hwName := c.String("hw-pattern")
		if strings.Contains(hwName, "%d") {
			hwName = fmt.Sprintf(hwName, lat)
		}
		hw, err := hwdesc.Resolve(hwName)
		if err != nil {
			return withCode(ExitBadInput, fmt.Errorf("experiment tightness: latency %d: %w", lat, err))
		}
		seen := map[*isa.Func]bool{}
		for _, b := range blocks {
			prof, err := phases.Build(b.file.Fset, b.fn, hw, b.warps, false)
			if err != nil {
				return withCode(ExitBadInput, fmt.Errorf("experiment tightness: %s: %w", b.name, err))
			}
			res, err := bound.Compute(prof)
			if err != nil {
				return withCode(ExitBadInput, fmt.Errorf("experiment tightness: %s: %w", b.name, err))
			}
			blk, err := newSimBlock(b.file.Fset, b.fn, hw, b.warps, sim.BarrierReach)
			if err != nil {
				return withCode(ExitBadInput, fmt.Errorf("experiment tightness: %w", err))
			}
			if !seen[b.fn] {
				seen[b.fn] = true
				one, err := newSimBlock(b.file.Fset, b.fn, hw, 1, sim.BarrierDrain)
				if err != nil {
					return withCode(ExitBadInput, fmt.Errorf("experiment tightness: %w", err))
				}
				r, err := one.prog.Run(sim.Policy{Kind: sim.LRR}, sim.Options{})
				if err != nil {
					return withCode(ExitBadInput, err)
				}
				p1, err := phases.Build(b.file.Fset, b.fn, hw, 1, false)
				if err != nil {
					return withCode(ExitBadInput, err)
				}
				single = append(single, tightRow{lat: lat, policy: "S.w.", kernel: b.name, warps: 1, issued: r.Issued, makespan: r.Makespan, bound: p1.Classes[0].Duration, gub: p1.Classes[0].Duration})
			}
			for _, pol := range pols {
				r, err := blk.prog.Run(pol, sim.Options{})
				if err != nil {
					return withCode(ExitBadInput, err)
				}
				row := tightRow{lat: lat, policy: pol.String(), kernel: b.name, warps: b.warps, issued: r.Issued, makespan: r.Makespan, bound: res.Bound, gub: res.GUB}
				rows = append(rows, row)
				if r.Makespan > res.Bound {
					unsound = append(unsound, fmt.Sprintf("%s x%d on %s, %s: makespan %d > bound %d", b.name, b.warps, hw.Name, r.Policy, r.Makespan, res.Bound))
				}
				if r.Makespan > res.GUB {
					fmt.Fprintf(stderr, "experiment tightness: note: %s x%d on %s, %s: makespan %d > ECRTS 2025 GUB %d\n", b.name, b.warps, hw.Name, r.Policy, r.Makespan, res.GUB)
				}
			}
		}
	}

	var out bytes.Buffer
	switch format {
	case "blocks":
		w := csv.NewWriter(&out)
		w.Write([]string{"latency", "policy", "kernel", "warps", "issued", "makespan", "bound", "gub_paper", "over_bound", "over_gub"})
		for _, r := range append(rows, single...) {
			w.Write([]string{strconv.Itoa(r.lat), r.policy, r.kernel, strconv.Itoa(r.warps), strconv.FormatInt(r.issued, 10),
				strconv.FormatInt(int64(r.makespan), 10), strconv.FormatInt(int64(r.bound), 10), strconv.FormatInt(int64(r.gub), 10),
				fmt.Sprintf("%.6f", over(r.bound, r.makespan)), fmt.Sprintf("%.6f", over(r.gub, r.makespan))})
		}
		w.Flush()
	default:
		writeTightSummary(&out, format, lats, pols, rows, single, len(blocks))
	}
	if _, err := c.App.Writer.Write(out.Bytes()); err != nil {
		return err
	}
	if len(unsound) > 0 {
		return codef(ExitUnsound, "experiment tightness: %d blocks above their bound: %s", len(unsound), joinLines(unsound))
	}
	return nil
}

func over(bound, makespan hwdesc.Cycles) float64 {
	if makespan == 0 {
		return 0
	}
	return float64(bound)/float64(makespan) - 1
}

type tightStats struct {
	n                    int
	mean, max, wmean, sd float64
}

func statsOf(rows []tightRow, sel func(tightRow) hwdesc.Cycles) tightStats {
	var s tightStats
	var sum, wsum, w2 float64
	s.max = math.Inf(-1)
	for _, r := range rows {
		o := over(sel(r), r.makespan)
		s.n++
		sum += o
		s.max = math.Max(s.max, o)
		wsum += o * float64(r.issued)
		w2 += float64(r.issued)
	}
	if s.n == 0 {
		return tightStats{}
	}
	s.mean = sum / float64(s.n)
	if w2 > 0 {
		s.wmean = wsum / w2
	}
	var v float64
	for _, r := range rows {
		d := over(sel(r), r.makespan) - s.mean
		v += d * d
	}
	s.sd = math.Sqrt(v / float64(s.n))
	return s
}

func writeTightSummary(w io.Writer, format string, lats []int, pols []sim.Policy, rows, single []tightRow, nblocks int) {
	pct := func(x float64) string { return fmt.Sprintf("%.2f %%", 100*x) }
	var cw *csv.Writer
	if format == "csv" {
		cw = csv.NewWriter(w)
		cw.Write([]string{"latency", "policy", "blocks", "bound_mean", "bound_max", "bound_wmean", "bound_sd", "gub_mean", "gub_max", "gub_wmean", "gub_sd"})
	} else {
		fmt.Fprintf(w, "| Mem. lat. | Policy | Blocks | Bound mean | Bound max | Bound wgt. mean | Bound std. dev. | GUB mean | GUB max | GUB wgt. mean | GUB std. dev. |\n")
		fmt.Fprintf(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	}
	for i := len(lats) - 1; i >= 0; i-- { // the paper lists 400 first
		lat := lats[i]
		names := []string{}
		for _, p := range pols {
			names = append(names, p.String())
		}
		names = append(names, "S.w.")
		for _, name := range names {
			var sel []tightRow
			src := rows
			if name == "S.w." {
				src = single
			}
			for _, r := range src {
				if r.lat == lat && r.policy == name {
					sel = append(sel, r)
				}
			}
			b := statsOf(sel, func(r tightRow) hwdesc.Cycles { return r.bound })
			g := statsOf(sel, func(r tightRow) hwdesc.Cycles { return r.gub })
			label := strings.ToUpper(name)
			if name == "S.w." {
				label = name
			}
			if cw != nil {
				f := func(x float64) string { return fmt.Sprintf("%.6f", x) }
				cw.Write([]string{strconv.Itoa(lat), label, strconv.Itoa(b.n), f(b.mean), f(b.max), f(b.wmean), f(b.sd), f(g.mean), f(g.max), f(g.wmean), f(g.sd)})
				continue
			}
			fmt.Fprintf(w, "| %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", lat, label, b.n, pct(b.mean), pct(b.max), pct(b.wmean), pct(b.sd), pct(g.mean), pct(g.max), pct(g.wmean), pct(g.sd))
		}
	}
	if cw != nil {
		cw.Flush()
	}
}
