package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound/kernel"
	"github.com/gpuwcet/gpuwcet/bound/pessimism"
	"github.com/gpuwcet/gpuwcet/bound/report"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/bound/taskmodel"
	"github.com/gpuwcet/gpuwcet/cfg/assume"
	"github.com/gpuwcet/gpuwcet/cfg/input"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
	"github.com/gpuwcet/gpuwcet/divergence"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

func analyzeCommand() *cli.Command {
	return &cli.Command{
		Name:      "analyze",
		Usage:     "sound static bound of a thread block over every path (no trace needed)",
		ArgsUsage: "INPUT",
		Description: `Bounds, for each kernel of INPUT, the execution time of one thread block over
every path the loop bounds allow: device calls are inlined, warps are grouped
into classes by the divergence analysis (--block, --grid, --arg), loop bounds
are derived or read from --facts, and per barrier section every class's
isolated duration D and load InitSum + Issued (in total and per resource) are
maximised over paths; a class's bound is D plus the interference I of the
other warps, charged per resource (docs/model.md, "Static multi-path
analysis").

--deadline checks a bound in CI: a bare integer is cycles against the block
bound (as always); with a unit (--deadline 2ms; ns, us, ms, s, or cycles) a
time is converted at the hardware description's clock. With --deadline-level
kernel (and --grid with --platform, or --arch and --sms) the deadline, a
time, bounds the kernel: the kernel-level bound on all the SMs it may use,
launch overhead included when the platform gives it (a persistent kernel:
its per-item bound). Every report records the check (kernels[].deadline_check).

Exit codes: 0 bound computed (and within --deadline); 1 bad input; 2 not
bounded (unbounded loop, irreducible loop, unresolved indirect branch or call,
recursion, barriers under divergent control); 3 a bound exceeds --deadline.

The JSON report (--format json, --report-json) is the source of truth of the
bound report (docs/report.md): identification, input manifest, scope,
numbered assumptions, results, breakdown, diagnostics and its own SHA-256.
The Markdown report (--format markdown, --report), SARIF 2.1.0 (--format
sarif, --sarif) and JUnit XML (--format junit, --junit) are rendered from it;
several can be written in one run. The exit code does not depend on them.

INPUT is a PTX or SASS listing. A simulator trace is refused (exit 1): it
holds only the instructions one execution ran, so the message names the PTX
module the trace resolves to, to analyse instead with --kernel, and points
to gpuwcet bound, which bounds the traced execution.`,
		Flags: append([]cli.Flag{
			timingHWFlag, analyzeFormatFlag, timingKernelFlag, inputFormatFlag, maxInputFlag, strictFlag,
			blockFlag, gridFlag, argFlag, maxWarpBlocksFlag,
			&cli.StringFlag{Name: "facts", Usage: "flow-facts `FILE` (loop bounds; docs/facts.md)", Category: catInput},
			&cli.StringFlag{Name: "compare", Usage: "compare with an older JSON report `FILE` of this command: per kernel and section, how the bound and each part of its pessimism split changed (text; JSON comparison; Markdown)", Category: catInput},
			deadlineFlag, deadlineLevelFlag,
			&cli.BoolFlag{Name: "blocks", Usage: "print the per-block contribution tables (always in JSON)", Category: catOutput},
			&cli.StringFlag{Name: "report", Usage: "also write the bound report to `FILE`: HTML when FILE ends in .html or .htm (self-contained, with the phase timelines and the CFGs), else Markdown", Category: catOutput},
			&cli.StringFlag{Name: "report-json", Usage: "also write the JSON report to `FILE`", Category: catOutput},
			&cli.StringFlag{Name: "sarif", Usage: "also write the diagnostics as SARIF 2.1.0 to `FILE`", Category: catOutput},
			&cli.StringFlag{Name: "junit", Usage: "also write one JUnit XML test case per kernel to `FILE`", Category: catOutput},
			&cli.StringFlag{Name: "timeline", Usage: "also write the phase timelines of each bounded kernel as SVG into `DIR` (KERNEL.timeline.svg; docs/report.md)", Category: catOutput},
			&cli.StringFlag{Name: "dot", Usage: "also write the CFGs with the worst case drawn on them into `DIR` (KERNEL.dot, and KERNEL.classK.dot per warp class; docs/report.md)", Category: catOutput},
		}, append(kernelLevelFlags(), configFlags()...)...),
		Action: analyzeAction,
	}
}

// pipelineAssumption states how the description's [pipeline] table is
// applied on every path (docs/model.md, "Static multi-path analysis").
func pipelineAssumption(p hwdesc.Pipeline) assume.Use {
	wait := p.BranchWait
	if wait == "" {
		wait = hwdesc.BranchWaitNone
	}
	return assume.Uf(assume.Pipeline, "pipeline: overhead %d cycles on every result; branch_wait %s on the edges of the warp-level graph that redirect the warp (a resume edge redirecting after an ordinary instruction is charged as a taken branch); ret_issues %v; barrier_issues %v", p.Overhead, wait, p.RetIssues, p.BarrierIssues)
}

// analyzeOutputs are the report files analyze writes, by flag and format.
var analyzeOutputs = []struct{ flag, format string }{{"report-json", "json"}, {"report", "markdown"}, {"sarif", "sarif"}, {"junit", "junit"},
	{"task-model", "task-model"}, {"mast", "mast"}}

func analyzeAction(c *cli.Context) error {
	// An output that is also an input (or another output) is refused
	// before anything is read or written.
	var outs []outputPath
	for _, o := range analyzeOutputs {
		outs = append(outs, outputPath{o.flag, c.String(o.flag)})
	}
	ins := append(c.Args().Slice(), c.String("facts"), c.String("compare"))
	if hw := c.String("hw"); hw != "" {
		if _, err := os.Stat(hw); err == nil {
			ins = append(ins, hw) // a description file (or a file named like a built-in)
		}
	}
	if err := checkOutputs(outs, ins); err != nil {
		return err
	}
	format := c.String("format")
	j := &report.Report{SchemaVersion: report.SchemaVersion, Tool: toolInfo(), CommandLine: commandLine(c), Inputs: []report.Input{},
		Kernels: []report.Kernel{}, Errors: []string{}, Diagnostics: []report.Diagnostic{}}
	j.Scope = report.Scope{KernelFilter: c.String("kernel"), Unit: analyzeUnit, Exclusions: analyzeExclusions, Kernels: []report.ScopeKernel{}}
	j.Configuration = configRecord(c)
	j.SetAssumptions(assume.EveryAnalyze())
	var text bytes.Buffer
	var bounded []*static.Report // drawn for --dot and the HTML report
	code, msgs, err := analyzeRun(c, j, &text, &bounded)
	if fp := c.String("compare"); err == nil && fp != "" {
		if j.Comparison, err = compareWith(fp, j); err == nil && format == "text" {
			text.WriteByte('\n')
			err = report.WriteComparisonText(&text, j.Comparison)
		}
	}
	if err != nil {
		// The run stopped before the kernels were analysed (usage, a
		// listing that does not parse, a bad description or facts
		// file): the reports are written all the same, with the error
		// (CI steps upload them).
		code = exitCode(err)
		j.Errors = append(j.Errors, strings.Split(errorLines(err), "\n")...)
		j.Diagnostics = append(j.Diagnostics, runErrorDiags(err, code, ins)...)
		sortDiagnostics(j.Diagnostics)
	}
	j.Summary = summary(j, code)
	data, serr := report.Seal(j)
	var parsed *report.Report
	if serr == nil {
		// The renderers read the JSON back: every rendered fact is in
		// the hashed report.
		parsed, serr = report.Parse(data)
	}
	if serr != nil {
		return withCode(ExitBadInput, fmt.Errorf("analyze: %w", serr))
	}
	// The CFG drawings of the HTML report, rendered once when needed.
	var figs []report.Figure
	if format == "html" || reportFormat("report", "markdown", c.String("report")) == "html" {
		figs = htmlFigures(drawKernels(bounded))
	}
	var werrs []string
	switch {
	case err == nil && format == "text":
		if _, err := c.App.Writer.Write(text.Bytes()); err != nil {
			werrs = append(werrs, fmt.Sprintf("standard output: %v", err))
		}
	case slices.Contains(analyzeFormats, format) && format != "text":
		var b bytes.Buffer
		if err := writeReport(&b, format, data, parsed, figs); err == nil {
			if _, err := c.App.Writer.Write(b.Bytes()); err != nil {
				werrs = append(werrs, fmt.Sprintf("standard output: %v", err))
			}
		}
	}
	for _, o := range analyzeOutputs {
		fp := c.String(o.flag)
		if fp == "" {
			continue
		}
		var b bytes.Buffer
		werr := writeReport(&b, reportFormat(o.flag, o.format, fp), data, parsed, figs)
		if werr == nil {
			werr = writeFile(fp, b.Bytes())
		}
		if werr != nil {
			werrs = append(werrs, fmt.Sprintf("--%s: %v", o.flag, werr))
		}
	}
	if dir := c.String("timeline"); dir != "" {
		check := func(p string) error { return checkOutputs([]outputPath{{"timeline", p}}, ins) }
		if err := writeTimelines(dir, parsed, check); err != nil {
			werrs = append(werrs, fmt.Sprintf("--timeline: %v", err))
		}
	}
	if dir := c.String("dot"); dir != "" {
		check := func(p string) error { return checkOutputs([]outputPath{{"dot", p}}, ins) }
		if err := writeDrawings(dir, drawKernels(bounded), check); err != nil {
			werrs = append(werrs, fmt.Sprintf("--dot: %v", err))
		}
	}
	if len(werrs) > 0 {
		// A report that could not be written is exit code 1 whatever
		// the analysis found: a CI step must not pass, or give a
		// verdict, on a missing report.
		if err != nil {
			werrs = append([]string{err.Error()}, werrs...)
		} else {
			werrs = append(msgs, werrs...)
		}
		return codef(ExitBadInput, "analyze: %s", joinLines(werrs))
	}
	if err != nil {
		return err
	}
	if code != ExitOK {
		return codef(code, "analyze: %s", joinLines(msgs))
	}
	return nil
}

// compareWith compares the kernels of j with those of the older JSON
// report at path (report.Compare).
func compareWith(path string, j *report.Report) (*report.Comparison, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, withCode(ExitBadInput, fmt.Errorf("analyze: --compare: %w", err))
	}
	old, err := report.Parse(data)
	if err != nil {
		return nil, withCode(ExitBadInput, fmt.Errorf("analyze: --compare %s: %w", path, err))
	}
	return report.Compare(old, j, path), nil
}

// analyzeRun runs the analysis of analyze's command line into j (inputs,
// description, launch, kernels, diagnostics) and the text summary into
// text, and appends the analyses of the bounded kernels to bounded (for
// the CFG drawings). It returns the exit code and the messages of the
// kernels, or an error when the run stops before the kernels are
// analysed.
func analyzeRun(c *cli.Context, j *report.Report, text *bytes.Buffer, bounded *[]*static.Report) (int, []string, error) {
	if c.NArg() != 1 {
		return 0, nil, codef(ExitBadInput, "analyze: want exactly one INPUT, got %d", c.NArg())
	}
	format := c.String("format")
	if !slices.Contains(analyzeFormats, format) {
		return 0, nil, codef(ExitBadInput, "analyze: unknown --format %q (want %s)", format, strings.Join(analyzeFormats, ", "))
	}
	if c.IsSet(deadlineFlag.Name) {
		if _, _, err := parseDeadline(c.String(deadlineFlag.Name)); err != nil {
			return 0, nil, withCode(ExitBadInput, fmt.Errorf("analyze: %w", err))
		}
	}
	hw, err := hwdesc.Resolve(c.String("hw"))
	if err != nil {
		return 0, nil, withCode(ExitBadInput, fmt.Errorf("analyze: --hw: %w", err))
	}
	j.HW = report.HW{Name: hw.Name, Version: hw.Version, SHA256: hw.Hash(), ClockMHz: hw.ClockMHz, Description: hw.Description, Arch: hw.Arch, Source: hw.Source}
	j.Clock = report.Clock{MHz: hw.ClockMHz, Source: fmt.Sprintf("clock_mhz of the hardware description %s; used only to convert cycles to ns", hw.Name)}
	uses := analyzeUses(hw)
	j.SetAssumptions(uses)
	launch, err := launchFromFlags(c)
	if err != nil {
		return 0, nil, withCode(ExitBadInput, fmt.Errorf("analyze: %w", err))
	}
	j.Launch = report.Launch{Block: launch.Block, Grid: launch.Grid, Args: launch.Args}
	path := c.Args().First()
	file, src, err := loadFileSrc(c, path)
	if src != nil {
		in := report.Input{Path: path, SHA256: loops.SHA256(src), Kind: "listing"}
		if file != nil {
			in.Kind, in.Version, in.Target = file.Dialect.String(), file.Version, file.Target
		}
		j.Inputs = append(j.Inputs, in)
	}
	if err != nil {
		return 0, nil, err
	}
	sha := j.Inputs[0].SHA256
	if file.Dialect == isa.DialectTrace {
		return 0, nil, traceRefusal(file)
	}
	if funcs, err := selectFuncs(file, c.String("kernel")); err == nil {
		if err := checkLaunchArgs(launch, funcs); err != nil {
			return 0, nil, withCode(ExitBadInput, fmt.Errorf("analyze: %w", err))
		}
	}
	kl, err := newKernelLevel(c, hw, launch, file)
	if err != nil {
		return 0, nil, withCode(ExitBadInput, fmt.Errorf("analyze: %w", err))
	}
	dl, err := deadlineFromFlags(c, hw.ClockMHz, kl.on, kl.reason)
	if err != nil {
		return 0, nil, withCode(ExitBadInput, fmt.Errorf("analyze: %w", err))
	}
	var deadline *int64 // a block-level deadline in cycles
	if dl != nil && dl.level == levelBlock {
		deadline = &dl.cycles
	}
	opts, facts, err := analysisOptions(c, hw, launch, sha)
	if facts != nil {
		j.Inputs = append(j.Inputs, *facts)
	}
	if err != nil {
		return 0, nil, withCode(ExitBadInput, fmt.Errorf("analyze: %w", err))
	}
	res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, file, opts)
	if err != nil {
		return 0, nil, codef(ExitBadInput, "analyze: %v", err)
	}
	if len(res.Funcs) == 0 {
		return 0, nil, codef(ExitBadInput, "analyze: %s", noKernelSelected(file, opts.Funcs))
	}
	// Diagnostics of several passes at one position come in pass order,
	// which the driver does not fix: sort the lines for a stable output.
	var diags []string
	var rdiags []report.Diagnostic
	errorDiag := map[string]bool{}     // kernels with an error diagnostic
	errorMsgs := map[string][]string{} // their messages, printed on standard error
	for _, d := range res.Diagnostics() {
		if d.Category == "divergent-branch" {
			continue // listed in the report
		}
		if d.Category == pass.CategoryArchMismatch {
			uses = append(uses, assume.Use{ID: assume.ArchMismatch, Text: d.Message})
		}
		diags = append(diags, diagLine(file.Fset, d))
		// A finding of several kernels (a device function's, through
		// their calls) is one diagnostic; its message names the kernels.
		kernel := ""
		if len(d.Funcs) == 1 {
			kernel = d.Func
		}
		rdiags = append(rdiags, report.Diagnostic{Rule: d.Category, Level: sarifLevel(d.Severity), Message: d.Text(), Kernel: kernel, Location: location(pass.Position(file.Fset, d.Pos))})
		if d.Severity == pass.Error {
			for _, f := range d.Funcs {
				errorDiag[f] = true
				errorMsgs[f] = append(errorMsgs[f], d.Message)
			}
		}
	}
	for _, w := range file.Warnings {
		rule := "front-end"
		if strings.HasPrefix(w.Msg, "unknown opcode") {
			rule = "unknown-opcode"
		}
		rdiags = append(rdiags, report.Diagnostic{Rule: rule, Level: report.LevelWarning, Message: w.Msg, Location: location(w.Pos)})
	}
	sort.Strings(diags)
	for _, d := range diags {
		fmt.Fprint(c.App.ErrWriter, d)
	}

	if u, ok := defaultUnitAssumption(hw, res); ok {
		uses = append(uses, u)
	}
	if values.UsesFrames(res) {
		uses = append(uses, assume.U(assume.FramePrivate))
	}
	if values.UsesActiveMask(res) {
		uses = append(uses, assume.U(assume.ActiveMask))
	}
	if divergence.UsesNoTrap(res) {
		uses = append(uses, assume.U(assume.NoTrap))
	}
	if values.UsesDivisions(res) {
		uses = append(uses, assume.U(assume.RcpPrecision))
	}
	if hw.Base != "" {
		uses = append(uses, hwOverrideUse(hw))
	}
	if file.Dialect == isa.DialectPTX {
		uses = append(uses, assume.U(assume.PTXAsExecuted))
	}
	code := ExitOK
	var msgs []string
	for _, fn := range res.Funcs {
		act := res.Get(static.Analyzer, fn)
		if act.Err != nil {
			// The failing action may be a prerequisite (loops: a missing
			// --arg, a facts checksum mismatch): report that error.
			err := act.Err
			for _, a := range res.Actions() {
				if a.Func == fn && a.Err != nil && a != act && !errors.Is(a.Err, errPrereqSentinel(a.Err)) {
					err = a.Err
				}
			}
			k := ExitBadInput
			if static.Unbounded(err) {
				k = ExitUnbounded
			}
			code = worse(code, k)
			msg := fmt.Sprintf("%s: %v", fn.Name, err)
			j.Errors = append(j.Errors, msg)
			if slices.ContainsFunc(errorMsgs[fn.Name], func(m string) bool { return strings.Contains(msg, m) }) {
				// Already printed as an error diagnostic: say it once.
				what := "not bounded"
				if k != ExitUnbounded {
					what = "not analysed"
				}
				msg = fmt.Sprintf("%s: %s (the error is above)", fn.Name, what)
			}
			msgs = append(msgs, msg)
			sk := report.ScopeKernel{Name: fn.Name, Pos: pass.Position(file.Fset, fn.Pos).String(), Status: report.StatusError, Error: err.Error()}
			if k == ExitUnbounded {
				sk.Status = report.StatusNotBounded
			}
			j.Scope.Kernels = append(j.Scope.Kernels, sk)
			if !errorDiag[fn.Name] {
				rdiags = append(rdiags, kernelErrorDiag(fn.Name, err, pass.Position(file.Fset, fn.Pos)))
			}
			continue
		}
		rep := act.Result.(*static.Report)
		jk := static.NewJSON(rep, file.Fset)
		kpos := pass.Position(file.Fset, fn.Pos)
		rk := report.Kernel{Pos: kpos.String()}
		env := pessimism.Env{Launch: launch, DivOptions: divergence.OptionsOf(opts.Inputs)}
		if va := res.Get(values.Analyzer, fn); va != nil && va.Err == nil {
			env.Values, _ = va.Result.(*values.Func)
		}
		split, err := pessimism.Static(rep, env)
		if err != nil {
			return ExitBadInput, nil, fmt.Errorf("analyze: %s: pessimism split: %w", fn.Name, err)
		}
		rk.Pessimism = split
		if deadline != nil {
			jk.Deadline = deadline
			jk.Verdict = "pass"
			margin := *deadline - int64(rep.Bound)
			rk.MarginCycles = &margin
			rk.DeadlineCheck = dl.blockCheck(int64(rep.Bound))
			if int64(rep.Bound) > *deadline {
				jk.Verdict = "fail"
				code = worse(code, ExitVerdict)
				msg := fmt.Sprintf("bound %d cycles exceeds the deadline of %d cycles", rep.Bound, *deadline)
				if dl.unit != "cycles" {
					msg = fmt.Sprintf("bound %d cycles exceeds the deadline of %d cycles (%s at %g MHz)", rep.Bound, *deadline, dl.given, hw.ClockMHz)
				}
				msgs = append(msgs, fn.Name+": "+msg)
				rdiags = append(rdiags, report.Diagnostic{Rule: "over-deadline", Level: report.LevelError, Kernel: fn.Name, Location: location(kpos),
					Message: fmt.Sprintf("%s: %s (margin %d cycles)", fn.Name, msg, margin)})
			}
		}
		*bounded = append(*bounded, rep)
		rk.LowerBound = blockLower(rep, hw)
		// kernelLevelError records a kernel-level failure: bad input.
		kernelLevelError := func(msg string) {
			code = worse(code, ExitBadInput)
			msgs = append(msgs, msg)
			j.Errors = append(j.Errors, msg)
			rdiags = append(rdiags, report.Diagnostic{Rule: "kernel-level", Level: report.LevelError, Kernel: fn.Name, Message: msg, Location: location(kpos)})
		}
		if kl.on {
			kj, err := kl.compute(file, fn, rep, launch)
			if err != nil {
				kernelLevelError(fmt.Sprintf("%s: kernel level: %v", fn.Name, err))
			} else {
				rk.KernelLevel = kj
			}
		}
		if dl != nil && dl.level == levelKernel {
			var dc *report.DeadlineCheck
			err := fmt.Errorf("--deadline-level kernel: no kernel-level bound")
			if rk.KernelLevel != nil {
				dc, err = dl.kernelCheck(rk.KernelLevel)
			}
			if err != nil {
				kernelLevelError(fmt.Sprintf("%s: %v", fn.Name, err))
			} else {
				rk.DeadlineCheck = dc
				jk.Verdict = dc.Verdict
				if dc.Verdict == "fail" {
					code = worse(code, ExitVerdict)
					msgs = append(msgs, fn.Name+": "+dc.Text())
					rdiags = append(rdiags, report.Diagnostic{Rule: "over-deadline", Level: report.LevelError, Kernel: fn.Name, Location: location(kpos),
						Message: fn.Name + ": " + dc.Text()})
				}
			}
		}
		rk.JSONKernel = *jk
		j.Kernels = append(j.Kernels, rk)
		j.Scope.Kernels = append(j.Scope.Kernels, report.ScopeKernel{Name: fn.Name, Pos: kpos.String(), Status: report.StatusBounded})
		if format == "text" {
			if text.Len() > 0 {
				text.WriteByte('\n')
			}
			if err := static.WriteText(text, rep, file.Fset, static.TextOptions{Deadline: deadline, Blocks: c.Bool("blocks")}); err != nil {
				return 0, nil, withCode(ExitBadInput, err)
			}
			writeLowerText(text, rk.LowerBound, rep)
			if p := persistentOf(rep); p != nil {
				writePersistentText(text, p)
			}
			if err := pessimism.WriteText(text, split); err != nil {
				return 0, nil, withCode(ExitBadInput, err)
			}
			if rk.KernelLevel != nil {
				if err := kernel.WriteText(text, rk.KernelLevel); err != nil {
					return 0, nil, withCode(ExitBadInput, err)
				}
			}
			if dc := rk.DeadlineCheck; dc != nil && dc.Level == levelKernel {
				fmt.Fprintf(text, "deadline (kernel level): %s: %s\n", strings.ToUpper(dc.Verdict), dc.Text())
			}
		}
	}
	uses = append(uses, kernelUses(j)...)
	j.SetAssumptions(uses)
	sortDiagnostics(rdiags)
	j.Diagnostics = append([]report.Diagnostic{}, rdiags...)
	return code, msgs, nil
}

// analysisOptions returns the options of the static analysis of a
// listing whose SHA-256 is sha (--strict, --max-warp-blocks, --facts,
// --kernel), and the facts file's input record when --facts names one
// that could be read.
func analysisOptions(c *cli.Context, hw *hwdesc.Desc, launch pass.Launch, sha string) (pass.Options, *report.Input, error) {
	opts := pass.Options{HW: hw, Launch: launch, Check: true, Inputs: map[string]any{loops.ListingSHAInput: sha, phases.StrictInput: c.Bool(strictFlag.Name)}}
	if err := divergenceInputs(c, opts.Inputs); err != nil {
		return opts, nil, err
	}
	var in *report.Input
	if fp := c.String("facts"); fp != "" {
		fsrc, err := input.ReadFile(fp, input.MaxTOMLBytes)
		if err != nil {
			return opts, nil, fmt.Errorf("--facts: %w", err)
		}
		in = &report.Input{Path: fp, SHA256: loops.SHA256(fsrc), Kind: "facts"}
		facts, err := loops.DecodeFacts(fp, fsrc)
		if err != nil {
			return opts, in, fmt.Errorf("--facts: %w", err)
		}
		opts.Inputs[loops.FactsInput] = facts
	}
	if k := c.String("kernel"); k != "" {
		re, err := regexp.Compile(k)
		if err != nil {
			return opts, in, fmt.Errorf("--kernel: %v", err)
		}
		opts.Funcs = re
	}
	return opts, in, nil
}

// runErrorDiags turns an error that stopped analyze before the kernels
// were analysed into report diagnostics: one per line of the message (a
// front end's error list gives one per error), located at the position
// that follows the name of one of the inputs on that line, if any. The
// rule is input-error (exit code 1), or not-bounded for exit code 2.
func runErrorDiags(err error, code int, inputs []string) []report.Diagnostic {
	rule := "input-error"
	if code == ExitUnbounded {
		rule = "not-bounded"
	}
	var ds []report.Diagnostic
	for _, line := range strings.Split(errorLines(err), "\n") {
		d := report.Diagnostic{Rule: rule, Level: report.LevelError, Message: line}
		for _, in := range inputs {
			i := strings.Index(line, in+":")
			if in == "" || i < 0 {
				continue
			}
			if m := linePos.FindStringSubmatch(line[i+len(in)+1:]); m != nil {
				l, _ := strconv.Atoi(m[1])
				col, _ := strconv.Atoi(m[2])
				d.Location = location(token.Position{Filename: in, Line: l, Column: col})
				break
			}
		}
		ds = append(ds, d)
	}
	return ds
}

// linePos matches "LINE:COL: " or "LINE: " at the start of a string.
var linePos = regexp.MustCompile(`^(\d+)(?::(\d+))?: `)

// traceRefusal is analyze's answer to a simulator trace. The trace front
// end resolves each traced line to the PTX module beside the trace, but
// keeps only the instructions the trace executed: a bound over the paths
// of that partial code is not a bound of the kernel, and analysing the
// whole module instead would silently bound another input. The message
// names the module to analyse and points to gpuwcet bound for the traced
// path.
func traceRefusal(file *isa.File) error {
	var mods, names []string
	for _, fn := range file.Funcs {
		names = append(names, fn.Name)
		for _, in := range fn.Instrs {
			if p := pass.Position(file.Fset, in.Pos); p.Filename != "" && p.Filename != file.Name && !slices.Contains(mods, p.Filename) {
				mods = append(mods, p.Filename)
			}
		}
	}
	hint := "analyze the PTX module it was traced from"
	if len(mods) > 0 {
		hint = fmt.Sprintf("analyze the PTX module it resolves to (gpuwcet analyze ... --kernel '^%s$' %s)", strings.Join(names, "|"), strings.Join(mods, " "))
	}
	return codef(ExitBadInput, "analyze: %s is a simulator trace, which holds only the instructions one execution ran, not every path of the kernel: %s; for a bound of the traced execution use gpuwcet bound", file.Name, hint)
}

// errPrereqSentinel returns the error that pass uses to mark an action
// whose prerequisites failed, found by unwrapping (the sentinel is not
// exported).
func errPrereqSentinel(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "failed prerequisites" {
			return e
		}
	}
	return nil
}

// analyzeFormats are the values of analyze's --format.
var analyzeFormats = []string{"text", "json", "markdown", "html", "sarif", "junit"}

// reportFormat is the format of the file of an output flag: --report
// writes HTML when its path ends in .html or .htm (in any case), else
// Markdown.
func reportFormat(flag, format, path string) string {
	if flag == "report" {
		if ext := strings.ToLower(filepath.Ext(path)); ext == ".html" || ext == ".htm" {
			return "html"
		}
	}
	return format
}

var analyzeFormatFlag = &cli.StringFlag{Name: "format", Value: "text", Usage: "standard output `FORMAT`: text, json (the report), markdown, html, sarif or junit", Category: catOutput}

// writeReport writes the sealed JSON report data, or a rendering of it.
func writeReport(w io.Writer, format string, data []byte, r *report.Report, figs []report.Figure) error {
	switch format {
	case "html":
		return report.WriteHTML(w, r, figs)
	case "json":
		_, err := w.Write(data)
		return err
	case "markdown":
		return report.WriteMarkdown(w, r)
	case "sarif":
		return report.WriteSARIF(w, r)
	case "junit":
		return report.WriteJUnit(w, r)
	case "task-model", "mast":
		m, err := taskmodel.FromReport(r)
		if err != nil {
			return err
		}
		if format == "mast" {
			return taskmodel.WriteMAST(w, m, 0)
		}
		return taskmodel.WriteJSON(w, m)
	}
	return fmt.Errorf("unknown report format %q", format)
}

// analyzeUnit and analyzeExclusions state the scope of an analyze bound
// (wcet-conventions.md §4.2 item 3).
const analyzeUnit = "one thread block of each kernel, in isolation on one SM, from the first issue of its first warp to the readiness of the last result of its last warp"

var analyzeExclusions = []string{
	"kernel launch overhead and the time before the block is dispatched to its SM",
	"host code, host-device copies and stream synchronisation",
	"the other thread blocks of the grid and other kernels (the bound is for one block in isolation)",
	"memory interference beyond the model: caches, contention with other SMs or engines, DRAM refresh (memory is a unit with the description's fixed latency)",
}

// defaultUnitAssumption states, when the analysis timed instructions on
// the description's default unit, which opcodes and how many
// instructions (over the kernels bounded).
func defaultUnitAssumption(hw *hwdesc.Desc, res *pass.Results) (assume.Use, bool) {
	var reps []*static.Report
	for _, fn := range res.Funcs {
		if act := res.Get(static.Analyzer, fn); act != nil && act.Err == nil {
			reps = append(reps, act.Result.(*static.Report))
		}
	}
	return static.DefaultUnitUse(hw, reps...)
}

// hwOverrideUse states that description hw extends a preset, and what it
// overrides.
func hwOverrideUse(hw *hwdesc.Desc) assume.Use {
	over := "no unit, rule or timing key"
	if len(hw.Overrides) > 0 {
		over = strings.Join(hw.Overrides, "; ")
	}
	return assume.Uf(assume.HWOverride, "hardware description %s extends %s (sha256 %s) and overrides: %s", hw.Name, hw.Base, hw.BaseSHA256, over)
}

// analyzeUses are the assumptions of every analyze run with description
// hw: the ledger's fixed ones, the pipeline's in hw's numbers.
func analyzeUses(hw *hwdesc.Desc) []assume.Use {
	uses := assume.EveryAnalyze()
	for i, u := range uses {
		if u.ID == assume.Pipeline {
			uses[i] = pipelineAssumption(hw.Pipeline)
		}
	}
	return uses
}

// kernelUses returns the assumptions the bounded kernels of r add: an
// annotated loop bound, a release point, inlined calls, and the kernel
// level's (with --grid).
func kernelUses(r *report.Report) []assume.Use {
	var uses []assume.Use
	for _, k := range r.Kernels {
		for _, l := range k.Loops {
			if id := loops.SourceNamed(l.Source).Assumption(); id != "" {
				uses = append(uses, assume.U(id))
			}
		}
		if k.Inlined {
			uses = append(uses, assume.U(assume.InlinedCalls))
		}
	}
	return append(uses, kernelLevelUses(r)...)
}

// readBuildInfo is debug.ReadBuildInfo; tests fix it so that goldens do
// not depend on the Go toolchain.
var readBuildInfo = debug.ReadBuildInfo

// toolInfo identifies the running build.
func toolInfo() report.Tool {
	t := report.Tool{Name: "gpuwcet", Version: version}
	bi, ok := readBuildInfo()
	if !ok || bi == nil {
		return t
	}
	t.Module, t.ModuleVersion, t.GoVersion = bi.Main.Path, bi.Main.Version, bi.GoVersion
	var goos, goarch string
	for _, s := range bi.Settings {
		switch s.Key {
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		case "vcs":
			t.VCS = s.Value
		case "vcs.revision":
			t.Revision = s.Value
		case "vcs.time":
			t.RevisionTime = s.Value
		case "vcs.modified":
			m := s.Value == "true"
			t.Modified = &m
		}
	}
	if goos != "" || goarch != "" {
		t.Platform = goos + "/" + goarch
	}
	return t
}

// commandLine returns the command line as run: the application name and
// the arguments after it, paths as given.
func commandLine(c *cli.Context) []string {
	// The parent context's arguments start with the command's name (or
	// an alias of it); a subcommand's (prem check) with its parent's.
	lin := c.Lineage()
	for i := len(lin) - 1; i >= 1; i-- {
		p := lin[i]
		if p.NArg() == 0 {
			continue
		}
		for _, q := range lin[:i] {
			if q.Command != nil && q.Command.HasName(p.Args().First()) {
				return append([]string{c.App.Name}, p.Args().Slice()...)
			}
		}
	}
	return append([]string{c.App.Name, c.Command.Name}, c.Args().Slice()...)
}

func sarifLevel(s pass.Severity) string {
	switch s {
	case pass.Error:
		return report.LevelError
	case pass.Warning:
		return report.LevelWarning
	}
	return report.LevelNote
}

// location converts a position (nil when invalid).
func location(p token.Position) *report.Location {
	if !p.IsValid() || p.Filename == "" {
		return nil
	}
	return &report.Location{URI: filepath.ToSlash(p.Filename), Line: p.Line, Column: p.Column}
}

var leadingPos = regexp.MustCompile(`^(\S+?):(\d+):(\d+): `)

// kernelErrorDiag turns a kernel's error that no error diagnostic
// reported into a diagnostic: its rule from the error, its location from
// the error (or the kernel).
func kernelErrorDiag(kernel string, err error, kpos token.Position) report.Diagnostic {
	msg := err.Error()
	d := report.Diagnostic{Level: report.LevelError, Kernel: kernel, Message: kernel + ": " + msg}
	var se *static.Error
	var ie *isa.Error
	var ce *loops.ChecksumError
	pos := kpos
	switch {
	case errors.As(err, &se) && se.Pos.IsValid():
		pos = se.Pos
	case errors.As(err, &ie) && ie.Pos.IsValid():
		pos = ie.Pos
	default:
		if m := leadingPos.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			pos = token.Position{Filename: m[1], Line: line, Column: col}
		}
	}
	d.Location = location(pos)
	switch {
	case errors.As(err, &ce):
		d.Rule = "stale-facts"
	case strings.Contains(msg, "no value for kernel argument"):
		d.Rule = "missing-argument"
	case strings.Contains(msg, "no rule of hardware description"):
		d.Rule = "unsupported-opcode"
	case strings.Contains(msg, "barrier") && strings.Contains(msg, "divergen"):
		d.Rule = "barrier-divergence"
	case strings.Contains(msg, "indirect branch"):
		d.Rule = "unresolved-indirect-branch"
	case strings.Contains(msg, "irreducible"):
		d.Rule = "irreducible-loop"
	case strings.Contains(msg, "not inlined"), strings.Contains(msg, "recurs"):
		d.Rule = "unresolved-call"
	case strings.Contains(msg, "no path reaches the end"):
		d.Rule = "no-exit"
	case static.Unbounded(err):
		d.Rule = "not-bounded"
	default:
		d.Rule = "analysis-error"
	}
	return d
}

// sortDiagnostics orders diagnostics by location, then rule and message
// (those without a location last).
func sortDiagnostics(ds []report.Diagnostic) {
	key := func(d report.Diagnostic) (string, int, int) {
		if d.Location == nil {
			return "\xff", 0, 0
		}
		return d.Location.URI, d.Location.Line, d.Location.Column
	}
	sort.SliceStable(ds, func(i, j int) bool {
		fi, li, ci := key(ds[i])
		fj, lj, cj := key(ds[j])
		if fi != fj {
			return fi < fj
		}
		if li != lj {
			return li < lj
		}
		if ci != cj {
			return ci < cj
		}
		if ds[i].Rule != ds[j].Rule {
			return ds[i].Rule < ds[j].Rule
		}
		if ds[i].Kernel != ds[j].Kernel {
			return ds[i].Kernel < ds[j].Kernel
		}
		return ds[i].Message < ds[j].Message
	})
}

// summary counts the outcomes of a report; code is the exit code.
func summary(j *report.Report, code int) report.Summary {
	s := report.Summary{Kernels: len(j.Scope.Kernels), ExitCode: code}
	for _, k := range j.Scope.Kernels {
		switch k.Status {
		case report.StatusBounded:
			s.Bounded++
		case report.StatusNotBounded:
			s.NotBounded++
		default:
			s.Errors++
		}
	}
	for _, k := range j.Kernels {
		if k.Verdict == "fail" {
			s.OverDeadline++
		}
	}
	switch code {
	case ExitOK:
		s.Verdict = "pass"
	case ExitVerdict:
		s.Verdict = "fail"
	case ExitUnbounded:
		s.Verdict = "not-bounded"
	default:
		s.Verdict = "error"
	}
	return s
}
