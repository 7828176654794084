package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound/report"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/assume"
	"github.com/gpuwcet/gpuwcet/cfg/input"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/prem"
)

func premCommand() *cli.Command {
	return &cli.Command{
		Name:  "prem",
		Usage: "check PREM tile schedules against the phase bounds",
		Description: `A PREM tile schedule (docs/prem.md) releases the prefetch, compute and
write-back phases of every tile of every participant at time-triggered
instants, so that only one participant accesses memory at a time.`,
		Subcommands: []*cli.Command{premCheckCommand()},
	}
}

func premCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check a PREM tile schedule (checks C1-C12) against the phase bounds of its kernels",
		ArgsUsage: "SCHEDULE [LISTING...]",
		Description: `Decodes SCHEDULE (TOML schema v1, docs/prem.md) strictly, bounds the
prefetch, compute and write-back regions of each kernel that names them
([kernel.phases]) with the static analysis of gpuwcet analyze (--hw), takes
the [[bound]] entries as assumed bounds, expands the schedule into its window
table and checks C1-C12: co-residency, bound provenance, period consistency,
slot fit, memory exclusion, compute before the write-back trigger, warm-up,
makespan, timer quantisation, utilisation, sensitivity and bandwidth. Each
failure comes with its first counterexample.

A kernel's listing is its listing key (relative to SCHEDULE) or a LISTING
given on the command line that defines its function; a sha256 key must match
the listing's SHA-256.

Exit codes: 0 every check passes (warnings allowed); 1 bad input (the
schedule, a listing, the hardware description; no report claims a pass); 2 a
phase region is not bounded; 3 a check fails.

The JSON report (--format json, --report-json) carries the result in its
"prem" object; Markdown, SARIF (one result per failing or warning check) and
JUnit (one test case per check) are rendered from it. --gantt writes an SVG
Gantt chart of the schedule, --trace a Chrome trace (Perfetto), --conflicts
the DOT graph of the overlapping participants; the [output] table of the
schedule names the same files.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "hw", Usage: "hardware description `NAME|FILE` for the static analysis of the phase regions", Category: catTarget},
			analyzeFormatFlag,
			&cli.StringFlag{Name: "report", Usage: "also write the report to `FILE`: HTML when FILE ends in .html or .htm (self-contained, with the Gantt chart), else Markdown", Category: catOutput},
			&cli.StringFlag{Name: "report-json", Usage: "also write the JSON report to `FILE`", Category: catOutput},
			&cli.StringFlag{Name: "sarif", Usage: "also write the failing and warning checks as SARIF 2.1.0 to `FILE`", Category: catOutput},
			&cli.StringFlag{Name: "junit", Usage: "also write one JUnit XML test case per check to `FILE`", Category: catOutput},
			&cli.StringFlag{Name: "gantt", Usage: "write the SVG Gantt chart to `FILE`", Category: catOutput},
			&cli.StringFlag{Name: "trace", Usage: "write the Chrome trace (JSON, opens in Perfetto) to `FILE`", Category: catOutput},
			&cli.StringFlag{Name: "conflicts", Usage: "write the DOT graph of the overlapping participants to `FILE`", Category: catOutput},
			&cli.StringFlag{Name: "gantt-range", Usage: "draw the tiles `FIRST:LAST` (absolute tile indexes) instead of the warm-up, the first periods and the last one", Category: catOutput},
		}, configFlags()...),
		Action: premCheckAction,
	}
}

// premCheckRules maps a check to the schedule key its diagnostic points at.
var premCheckKeys = map[string]string{
	"C1": "platform.sms", "C2": "bound[0]", "C3": "schedule.hyperperiod_ns", "C4": "schedule", "C5": "schedule.pf_offset_ns",
	"C6": "schedule.wb_offset_ns", "C7": "schedule.warmup_ns", "C8": "schedule.deadline_ns", "C9": "platform.timer_resolution_ns",
	"C10": "schedule", "C11": "schedule", "C12": "kernel[0].tile_bytes",
}

// premOutputs are the files prem check writes besides the report files.
var premOutputs = []string{"gantt", "trace", "conflicts"}

func premCheckAction(c *cli.Context) error {
	// An output that is also an input (or another output) is refused
	// before anything is read or written.
	var outs []outputPath
	for _, o := range analyzeOutputs {
		outs = append(outs, outputPath{o.flag, c.String(o.flag)})
	}
	for _, o := range premOutputs {
		outs = append(outs, outputPath{o, c.String(o)})
	}
	ins := c.Args().Slice()
	if hw := c.String("hw"); hw != "" {
		if _, err := os.Stat(hw); err == nil {
			ins = append(ins, hw)
		}
	}
	if c.NArg() > 0 {
		// The schedule's [output] files, when it decodes.
		if src, err := input.ReadFile(c.Args().First(), prem.MaxFileBytes); err == nil {
			if s, err := prem.Decode(c.Args().First(), src); err == nil {
				g, t, d := premGraphicsFiles(c, s)
				for _, o := range []struct{ flag, what, path string }{{"gantt", "gantt_svg", g}, {"trace", "trace_json", t}, {"conflicts", "conflict_dot", d}} {
					if c.String(o.flag) == "" {
						outs = append(outs, outputPath{"[output] " + o.what, o.path})
					}
				}
			}
		}
	}
	if err := checkOutputs(outs, ins); err != nil {
		return err
	}
	format := c.String("format")
	j := &report.Report{SchemaVersion: report.SchemaVersion, Tool: toolInfo(), CommandLine: commandLine(c), Inputs: []report.Input{},
		Assumptions: []string{}, Kernels: []report.Kernel{}, Errors: []string{}, Diagnostics: []report.Diagnostic{}}
	j.SetAssumptions(assume.EveryPREM())
	j.Scope = report.Scope{Unit: premUnit, Exclusions: premExclusions, Kernels: []report.ScopeKernel{}}
	j.Configuration = configRecord(c)
	var text bytes.Buffer
	run, err := premRun(c, j, &text)
	code := ExitOK
	var msgs []string
	if err != nil {
		// The check stopped on bad input: the reports say so (verdict
		// error), so that none left from an earlier run claims a pass.
		code = exitCode(err)
		j.Prem = nil
		j.Errors = append(j.Errors, strings.Split(errorLines(err), "\n")...)
		j.Diagnostics = append(j.Diagnostics, runErrorDiags(err, code, ins)...)
		sortDiagnostics(j.Diagnostics)
		name := c.Args().First()
		j.Scope.Kernels = append(j.Scope.Kernels, report.ScopeKernel{Name: name, Status: report.StatusError, Error: err.Error()})
		j.Summary = report.Summary{Kernels: 1, Errors: 1, Verdict: "error", ExitCode: code}
		if code == ExitUnbounded {
			j.Scope.Kernels[0].Status = report.StatusNotBounded
			j.Summary = report.Summary{Kernels: 1, NotBounded: 1, Verdict: "not-bounded", ExitCode: code}
		}
	} else if j.Prem.Verdict == "fail" {
		code = ExitVerdict
		var failed []string
		for _, ch := range j.Prem.Checks {
			if ch.Status == prem.StatusFail {
				failed = append(failed, ch.ID)
			}
		}
		msgs = append(msgs, fmt.Sprintf("%s: %s failed", c.Args().First(), strings.Join(failed, ", ")))
	}
	if err == nil {
		j.Summary = report.Summary{Kernels: len(j.Scope.Kernels), Bounded: len(j.Scope.Kernels), ExitCode: code, Verdict: j.Prem.Verdict}
	}
	data, serr := report.Seal(j)
	var parsed *report.Report
	if serr == nil {
		parsed, serr = report.Parse(data)
	}
	if serr != nil {
		return withCode(ExitBadInput, fmt.Errorf("prem check: %w", serr))
	}
	var figs []report.Figure
	if err == nil && (format == "html" || reportFormat("report", "markdown", c.String("report")) == "html") {
		figs = premFigures(c, run.sched, parsed.Prem, run.model)
	}
	var werrs []string
	switch {
	case err == nil && format == "text":
		if perr := prem.WriteText(&text, parsed.Prem); perr != nil {
			return perr
		}
		if _, werr := c.App.Writer.Write(text.Bytes()); werr != nil {
			werrs = append(werrs, fmt.Sprintf("standard output: %v", werr))
		}
	case slices.Contains(analyzeFormats, format) && format != "text":
		var b bytes.Buffer
		if werr := writeReport(&b, format, data, parsed, figs); werr == nil {
			if _, werr := c.App.Writer.Write(b.Bytes()); werr != nil {
				werrs = append(werrs, fmt.Sprintf("standard output: %v", werr))
			}
		}
	}
	for _, o := range analyzeOutputs {
		fp := c.String(o.flag)
		if fp == "" {
			continue
		}
		var b bytes.Buffer
		werr := writeReport(&b, reportFormat(o.flag, o.format, c.String(o.flag)), data, parsed, figs)
		if werr == nil {
			werr = writeFile(fp, b.Bytes())
		}
		if werr != nil {
			werrs = append(werrs, fmt.Sprintf("--%s: %v", o.flag, werr))
		}
	}
	if err == nil {
		werrs = append(werrs, premGraphics(c, run.sched, parsed.Prem, run.model)...)
	}
	if len(werrs) > 0 {
		// A file that could not be written is exit code 1 whatever the
		// check found.
		if err != nil {
			werrs = append([]string{err.Error()}, werrs...)
		} else {
			werrs = append(msgs, werrs...)
		}
		return codef(ExitBadInput, "prem check: %s", joinLines(werrs))
	}
	if err != nil {
		return err
	}
	if code != ExitOK {
		return codef(code, "prem check: %s", joinLines(msgs))
	}
	return nil
}

const premUnit = "the schedule: every tile of every participant from the schedule's start (its first trigger is at warmup_ns) to the end of the last tile"

var premExclusions = []string{"the host, the kernel launches and the time before the schedule's start", "the warm-up tiles' memory overlap (C7)", "memory interference beyond what the schedule excludes (the phase bounds are in isolation)"}

// premRunResult is what premRun keeps for the graphics.
type premRunResult struct {
	sched *prem.Schedule
	model *prem.Model
}

// premRun decodes the schedule, analyses the listings and checks the
// schedule into j. An error means bad input (or an unbounded region):
// nothing was checked.
// premResourcesGiven lists the registers_per_thread and shared_bytes a
// schedule gives (C1's overrides of the listings), "" when none.
func premResourcesGiven(s *prem.Schedule) string {
	var parts []string
	for _, k := range s.Kernels {
		if k.Registers > 0 {
			parts = append(parts, fmt.Sprintf("kernel %s registers_per_thread %d", k.ID, k.Registers))
		}
		if k.SharedBytes >= 0 {
			parts = append(parts, fmt.Sprintf("kernel %s shared_bytes %d", k.ID, k.SharedBytes))
		}
	}
	return strings.Join(parts, ", ")
}

func premRun(c *cli.Context, j *report.Report, text *bytes.Buffer) (*premRunResult, error) {
	if c.NArg() < 1 {
		return nil, codef(ExitBadInput, "prem check: want a SCHEDULE, got no argument")
	}
	format := c.String("format")
	if !slices.Contains(analyzeFormats, format) {
		return nil, codef(ExitBadInput, "prem check: unknown --format %q (want %s)", format, strings.Join(analyzeFormats, ", "))
	}
	if g := c.String("gantt-range"); g != "" {
		if _, err := parseGanttRange(g); err != nil {
			return nil, withCode(ExitBadInput, fmt.Errorf("prem check: --gantt-range: %w", err))
		}
	}
	path := c.Args().First()
	src, err := input.ReadFile(path, prem.MaxFileBytes)
	if err != nil {
		return nil, withCode(ExitBadInput, fmt.Errorf("prem check: %w", err))
	}
	sched, err := prem.Decode(path, src)
	if err != nil {
		return nil, withCode(ExitBadInput, fmt.Errorf("prem check: %w", err))
	}
	j.Inputs = append(j.Inputs, report.Input{Path: path, SHA256: sched.SHA256, Kind: "prem-schedule"})
	uses := assume.EveryPREM()
	if given := premResourcesGiven(sched); given != "" {
		uses = append(uses, assume.Uf(assume.PremResources, "the schedule's figures are the deployed kernel's: %s", given))
		j.SetAssumptions(uses)
	}
	var hw *hwdesc.Desc
	if h := c.String("hw"); h != "" {
		if hw, err = hwdesc.Resolve(h); err != nil {
			return nil, withCode(ExitBadInput, fmt.Errorf("prem check: --hw: %w", err))
		}
		j.HW = report.HW{Name: hw.Name, Version: hw.Version, SHA256: hw.Hash(), ClockMHz: hw.ClockMHz, Description: hw.Description, Arch: hw.Arch, Source: hw.Source}
	}
	an, err := premAnalyze(c, sched, hw, c.Args().Slice()[1:])
	if err != nil {
		return nil, err
	}
	j.Inputs = append(j.Inputs, an.inputs...)
	if len(an.bounds) > 0 && hw != nil {
		// Phase bounds from the analysis rest on what every analyze
		// report states, as analyze would state it for the same
		// description, plus the kernels' own (an.uses).
		uses = append(uses, analyzeUses(hw)...)
		if hw.Base != "" {
			uses = append(uses, hwOverrideUse(hw))
		}
	}
	if len(an.uses) > 0 || len(an.bounds) > 0 {
		j.SetAssumptions(assume.Sort(append(uses, an.uses...)))
	}
	res, model, err := prem.Evaluate(sched, prem.Bounds(sched, an.bounds))
	if err != nil {
		return nil, withCode(ExitBadInput, fmt.Errorf("prem check: %w", err))
	}
	res.Releases = append(res.Releases, an.releases...)
	res.Regions = append(res.Regions, an.regions...)
	j.Prem = res
	j.Clock = report.Clock{MHz: float64(sched.Platform.ClockHz) / 1e6, Source: "clock_hz of the schedule's [platform] table: converts the analysis's cycles to ns (N3)"}
	for _, k := range sched.Kernels {
		j.Scope.Kernels = append(j.Scope.Kernels, report.ScopeKernel{Name: k.ID, Pos: k.Pos.String(), Status: report.StatusBounded})
	}
	for _, ch := range res.Checks {
		level := ""
		switch ch.Status {
		case prem.StatusFail:
			level = report.LevelError
		case prem.StatusWarn:
			level = report.LevelWarning
		default:
			continue
		}
		msg := ch.ID + " " + ch.Name + ": " + ch.Reason
		if ch.Counterexample != nil {
			msg += "; first counterexample: " + ch.Counterexample.Text
		}
		j.Diagnostics = append(j.Diagnostics, report.Diagnostic{Rule: "prem-" + strings.ToLower(ch.ID), Level: level, Message: msg, Location: location(sched.Pos(premCheckKeys[ch.ID]))})
	}
	j.Diagnostics = append(j.Diagnostics, an.diags...)
	sortDiagnostics(j.Diagnostics)
	return &premRunResult{sched: sched, model: model}, nil
}

// premAnalysis is what the listings give a check.
type premAnalysis struct {
	bounds   []prem.KernelBounds
	releases []prem.Release
	regions  []prem.Region
	inputs   []report.Input
	diags    []report.Diagnostic
	uses     []assume.Use // the analysis's assumptions beyond every prem check's
}

// premAnalyze bounds the phase regions of the kernels that name them.
func premAnalyze(c *cli.Context, s *prem.Schedule, hw *hwdesc.Desc, paths []string) (*premAnalysis, error) {
	an := &premAnalysis{}
	need := false
	for _, k := range s.Kernels {
		for _, ph := range k.Phases {
			if ph != nil {
				need = true
			}
		}
	}
	if !need {
		if len(paths) > 0 {
			return nil, codef(ExitBadInput, "prem check: listings given, but no kernel of %s names code regions ([kernel.phases])", s.File)
		}
		return an, nil
	}
	if hw == nil {
		return nil, codef(ExitBadInput, "prem check: %s names code regions ([kernel.phases]): give --hw for their static analysis", s.File)
	}
	var listings []*prem.Listing
	load := func(p string) (*prem.Listing, error) {
		for _, l := range listings {
			if l.Path == p {
				return l, nil
			}
		}
		file, src, err := loadFileSrc(c, p)
		if err != nil {
			return nil, err
		}
		l := &prem.Listing{Path: p, File: file, Src: src, SHA256: loops.SHA256(src)}
		listings = append(listings, l)
		an.inputs = append(an.inputs, report.Input{Path: p, SHA256: l.SHA256, Kind: file.Dialect.String(), Version: file.Version, Target: file.Target})
		return l, nil
	}
	for _, p := range paths {
		if _, err := load(p); err != nil {
			return nil, err
		}
	}
	byKernel := map[*prem.Kernel]*prem.Listing{}
	for _, k := range s.Kernels {
		if k.Listing != "" {
			p := k.Listing
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(s.File), p)
			}
			l, err := load(p)
			if err != nil {
				return nil, err
			}
			byKernel[k] = l
		}
	}
	res, err := prem.Analyze(s, hw, listings, byKernel)
	if err != nil {
		code := ExitBadInput
		if static.Unbounded(err) || errors.Is(err, prem.ErrUnbounded) {
			code = ExitUnbounded
		}
		return nil, withCode(code, fmt.Errorf("prem check: %w", err))
	}
	an.bounds, an.releases, an.regions, an.uses = res.Bounds, res.Releases, res.Regions, res.Uses
	for _, w := range res.Warnings {
		an.diags = append(an.diags, report.Diagnostic{Rule: w.Rule, Level: report.LevelWarning, Message: w.Message, Kernel: w.Kernel, Location: location(w.Pos)})
	}
	return an, nil
}
