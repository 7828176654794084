package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/explore"
	"github.com/gpuwcet/gpuwcet/phases/sim/simtest"
)

func exactCommand() *cli.Command {
	return &cli.Command{
		Name:  "exact",
		Usage: "closed-form bound and ECRTS 2025 GUB over the exact worst case of small random blocks",
		Description: `Draws --blocks random blocks of 2 to --warps warps (package
phases/sim/simtest: random descriptions of 1 to --units units, init 1 to
--init, lat 0 to --lat, half of them with a random [pipeline] table and
shared FIFOs, identical or different straight-line paths of 1 to --instrs
instructions with dependencies, guards, branches and barriers; seeds
--seed, --seed+1, ...), computes for each the exact worst case over every
work-conserving schedule (package phases/sim/explore, at most --budget
normalised states; barriers under both the model's reach semantics and
drained, the larger counts), the closed-form bound of package bound and the
ECRTS 2025 GUB, and prints bound / exact and GUB / exact (mean, 95th
percentile, maximum) by warps, units, path length and pipeline options,
and the mean of what gpuwcet bound reports by default over the exact worst
case (the exact worst case itself when its search needs at most the
default --exact-budget of gpuwcet bound, otherwise the closed-form bound).
Blocks the budget does not cover are counted and left out of the ratios.

A block whose exact worst case exceeds the closed-form bound is an
unsoundness: it is listed on standard error and the exit code is 4.`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "blocks", Value: 5000, Usage: "`N` random blocks", Category: catTarget},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "first `SEED`", Category: catTarget},
			&cli.IntFlag{Name: "warps", Value: 4, Usage: "at most `N` warps per block (at least 2)", Category: catTarget},
			&cli.IntFlag{Name: "instrs", Value: 8, Usage: "at most `N` instructions per warp", Category: catTarget},
			&cli.IntFlag{Name: "units", Value: 3, Usage: "at most `N` units", Category: catTarget},
			&cli.IntFlag{Name: "init", Value: 6, Usage: "largest initiation interval `N`", Category: catTarget},
			&cli.IntFlag{Name: "lat", Value: 12, Usage: "largest latency `N`", Category: catTarget},
			&cli.IntFlag{Name: "budget", Value: 200000, Usage: "`N` normalised states explored per block at most", Category: catTarget},
			&cli.StringFlag{Name: "format", Value: "markdown", Usage: "output `FORMAT`: markdown, csv (one row per group) or blocks (one CSV row per block)", Category: catOutput},
		},
		Action: runExact,
	}
}

// exactRow is one block of the experiment.
type exactRow struct {
	Seed          int64
	Warps, Units  int
	Instrs        int    // longest path, instructions
	Pipeline      string // plain, pipeline, groups, barriers
	Exact         bool   // fully explored
	Worst         hwdesc.Cycles
	Bound, GUB    hwdesc.Cycles
	States        int
	WorstOverGUB  bool
	WorstOverBnd  bool
	BarrierBlocks bool
}

// exactExperiment computes the rows (shared by the command and its test).
func exactExperiment(first int64, n int, cfg simtest.Config, budget int) ([]exactRow, error) {
	var rows []exactRow
	for seed := first; len(rows) < n; seed++ {
		c := simtest.Generate(cfg, seed)
		if len(c.Warps) < 2 {
			continue
		}
		p, err := c.Profile()
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
		res, err := bound.Compute(p)
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
		row := exactRow{Seed: seed, Warps: len(c.Warps), Units: len(c.HW.Units), Bound: res.Bound, GUB: res.GUB, Exact: true, Pipeline: pipelineClass(c)}
		for _, w := range c.Warps {
			row.Instrs = max(row.Instrs, len(w))
		}
		modes := []sim.BarrierMode{sim.BarrierReach}
		if p.NumSections > 1 {
			modes = append(modes, sim.BarrierDrain)
		}
		for _, mode := range modes {
			prog, err := sim.Compile(c.HW, c.Warps, mode)
			if err != nil {
				return nil, fmt.Errorf("seed %d: %w", seed, err)
			}
			r, err := explore.Worst(prog, explore.Options{Budget: budget})
			if err != nil {
				return nil, fmt.Errorf("seed %d: %w", seed, err)
			}
			row.Worst = max(row.Worst, r.Makespan)
			row.Exact = row.Exact && r.Exact
			row.States += r.States
		}
		row.WorstOverBnd = row.Worst > row.Bound
		row.WorstOverGUB = row.Worst > row.GUB
		rows = append(rows, row)
	}
	return rows, nil
}

func exactConfig(warps, instrs, units, init, lat int) simtest.Config {
	return simtest.Config{MaxWarps: warps, MaxInstrs: instrs, MaxUnits: units, MaxInit: init, MaxLat: lat}
}

// pipelineClass names the timing features a block uses, the most specific
// first: barriers, shared FIFOs (groups), a [pipeline] table, or none.
func pipelineClass(c *simtest.Case) string {
	for _, w := range c.Warps {
		for _, in := range w {
			if in.Opcode == "bar" {
				return "barriers"
			}
		}
	}
	for _, u := range c.HW.Units {
		if u.Group != "" {
			return "shared FIFOs"
		}
	}
	if pp := c.HW.Pipeline; pp.Overhead != 0 || (pp.BranchWait != "" && pp.BranchWait != hwdesc.BranchWaitNone) || pp.RetIssues || pp.BarrierIssues {
		return "[pipeline]"
	}
	return "plain"
}

func runExact(c *cli.Context) error {
	if c.NArg() > 0 {
		return codef(ExitBadInput, "experiment exact takes no arguments")
	}
	cfg := exactConfig(c.Int("warps"), c.Int("instrs"), c.Int("units"), c.Int("init"), c.Int("lat"))
	if cfg.MaxWarps < 2 || cfg.MaxWarps > 8 || cfg.MaxInstrs < 1 || cfg.MaxUnits < 1 || cfg.MaxInit < 1 || cfg.MaxLat < 1 {
		return codef(ExitBadInput, "experiment exact: want 2 ≤ --warps ≤ 8 and --instrs, --units, --init, --lat ≥ 1")
	}
	if c.Int("blocks") < 1 || c.Int("budget") < 1 {
		return codef(ExitBadInput, "experiment exact: --blocks and --budget must be at least 1")
	}
	format := c.String("format")
	if format != "markdown" && format != "csv" && format != "blocks" {
		return codef(ExitBadInput, "experiment exact: unknown --format %q (want markdown, csv or blocks)", format)
	}
	rows, err := exactExperiment(c.Int64("seed"), c.Int("blocks"), cfg, c.Int("budget"))
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("experiment exact: %w", err))
	}
	var out bytes.Buffer
	if format == "blocks" {
		w := csv.NewWriter(&out)
		w.Write([]string{"seed", "warps", "units", "instrs", "pipeline", "exact", "states", "worst", "bound", "gub_paper"})
		for _, r := range rows {
			w.Write([]string{strconv.FormatInt(r.Seed, 10), strconv.Itoa(r.Warps), strconv.Itoa(r.Units), strconv.Itoa(r.Instrs), r.Pipeline,
				strconv.FormatBool(r.Exact), strconv.Itoa(r.States), strconv.FormatInt(int64(r.Worst), 10), strconv.FormatInt(int64(r.Bound), 10), strconv.FormatInt(int64(r.GUB), 10)})
		}
		w.Flush()
	} else {
		writeExactSummary(&out, format, rows)
	}
	if _, err := c.App.Writer.Write(out.Bytes()); err != nil {
		return err
	}
	var unsound []string
	for _, r := range rows {
		if r.WorstOverBnd {
			unsound = append(unsound, fmt.Sprintf("seed %d: worst %d > bound %d", r.Seed, r.Worst, r.Bound))
		}
		if r.WorstOverGUB {
			fmt.Fprintf(c.App.ErrWriter, "experiment exact: note: seed %d: worst %d > ECRTS 2025 GUB %d\n", r.Seed, r.Worst, r.GUB)
		}
	}
	if len(unsound) > 0 {
		return codef(ExitUnsound, "experiment exact: %d blocks above their bound: %s", len(unsound), joinLines(unsound))
	}
	return nil
}

// ratioStats are the mean, 95th percentile and maximum of ratios.
type ratioStats struct {
	n              int
	mean, p95, max float64
}

func ratiosOf(xs []float64) ratioStats {
	if len(xs) == 0 {
		return ratioStats{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	return ratioStats{n: len(s), mean: sum / float64(len(s)), p95: s[(len(s)*95+99)/100-1], max: s[len(s)-1]}
}

// exactGroup is one row of a summary table.
type exactGroup struct {
	dim, key string
	rows     []exactRow
}

func exactGroups(rows []exactRow) []exactGroup {
	lenBucket := func(n int) string {
		switch {
		case n <= 2:
			return "1–2"
		case n <= 4:
			return "3–4"
		case n <= 6:
			return "5–6"
		}
		return "7+"
	}
	dims := []struct {
		name string
		key  func(exactRow) string
	}{
		{"all", func(exactRow) string { return "all" }},
		{"warps", func(r exactRow) string { return strconv.Itoa(r.Warps) }},
		{"units", func(r exactRow) string { return strconv.Itoa(r.Units) }},
		{"path length", func(r exactRow) string { return lenBucket(r.Instrs) }},
		{"pipeline", func(r exactRow) string { return r.Pipeline }},
	}
	var out []exactGroup
	for _, d := range dims {
		by := map[string][]exactRow{}
		var keys []string
		for _, r := range rows {
			k := d.key(r)
			if _, ok := by[k]; !ok {
				keys = append(keys, k)
			}
			by[k] = append(by[k], r)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, exactGroup{dim: d.name, key: k, rows: by[k]})
		}
	}
	return out
}

func writeExactSummary(w io.Writer, format string, rows []exactRow) {
	var cw *csv.Writer
	if format == "csv" {
		cw = csv.NewWriter(w)
		cw.Write([]string{"dimension", "value", "blocks", "explored", "bound_mean", "bound_p95", "bound_max", "gub_mean", "gub_p95", "gub_max", "reported_mean", "above_gub", "above_bound"})
	} else {
		fmt.Fprintf(w, "| Dimension | Value | Blocks | Exact | Bound / exact: mean | p95 | max | GUB / exact: mean | p95 | max | Reported / exact | Above GUB | Above bound |\n")
		fmt.Fprintf(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	}
	for _, g := range exactGroups(rows) {
		var rb, rg, rr []float64
		explored, aboveGUB, aboveB := 0, 0, 0
		for _, r := range g.rows {
			if !r.Exact || r.Worst == 0 {
				continue
			}
			explored++
			rb = append(rb, float64(r.Bound)/float64(r.Worst))
			rg = append(rg, float64(r.GUB)/float64(r.Worst))
			rep := r.Bound
			if r.States <= defaultExactBudget {
				rep = r.Worst
			}
			rr = append(rr, float64(rep)/float64(r.Worst))
			if r.WorstOverGUB {
				aboveGUB++
			}
			if r.WorstOverBnd {
				aboveB++
			}
		}
		b, gb, rep := ratiosOf(rb), ratiosOf(rg), ratiosOf(rr)
		f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
		if cw != nil {
			cw.Write([]string{g.dim, g.key, strconv.Itoa(len(g.rows)), strconv.Itoa(explored), f(b.mean), f(b.p95), f(b.max), f(gb.mean), f(gb.p95), f(gb.max), f(rep.mean), strconv.Itoa(aboveGUB), strconv.Itoa(aboveB)})
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %d | %d |\n", g.dim, strings.ReplaceAll(g.key, "|", "\\|"), len(g.rows), explored, f(b.mean), f(b.p95), f(b.max), f(gb.mean), f(gb.p95), f(gb.max), f(rep.mean), aboveGUB, aboveB)
	}
	if cw != nil {
		cw.Flush()
	}
}
