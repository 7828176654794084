package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/static"
)

var analyzeCommand = &cli.Command{
	Name:      "analyze",
	Usage:     "sound static bound of a thread block over every path (no trace needed)",
	ArgsUsage: "INPUT",
	Description: `Bounds, for each kernel of INPUT, the execution time of one thread block over
every path the loop bounds allow: device calls are inlined, warps are grouped
into classes by the divergence analysis (--block, --grid, --arg), loop bounds
are derived or read from --facts, and per barrier section every class's
isolated duration D and interference I = InitSum + Issued are maximised over
paths (docs/model.md, "Static multi-path analysis").

Exit codes: 0 bound computed (and within --deadline); 1 bad input; 2 not
bounded (unbounded loop, irreducible loop, unresolved indirect branch or call,
recursion, barriers under divergent control); 3 a bound exceeds --deadline.`,
	Flags: []cli.Flag{
		timingHWFlag, timingFormatFlag, timingKernelFlag, inputFormatFlag,
		blockFlag, gridFlag, argFlag,
		&cli.StringFlag{Name: "facts", Usage: "flow-facts `FILE` (loop bounds; docs/facts.md)", Category: catInput},
		&cli.Int64Flag{Name: "deadline", Usage: "exit with code 3 when a bound exceeds `CYCLES`", Category: catOutput},
		&cli.BoolFlag{Name: "blocks", Usage: "print the per-block contribution tables (always in JSON)", Category: catOutput},
	},
	Action: analyzeAction,
}

// analyzeAssumptions are the numbered assumptions every analyze report
// states (wcet-conventions.md §4.2 item 4).
var analyzeAssumptions = []string{
	"the thread block runs alone on one SM (no other block, no preemption, no MPS co-tenancy)",
	"one instruction issued per cycle per SM by a work-conserving scheduler (GTO, LRR or any other)",
	"the hardware description's units: FIFO, initiation interval >= 1, fixed latency; memory is a unit with fixed latency (no cache, no contention)",
	"no instruction-cache misses",
	"predicated-off instructions are issued and timed like executed ones",
	"bar.sync/bar.red end a section; every warp of the block reaches the same sequence of barriers, and a uniform branch that decides a barrier evaluates identically across the block (CUDA's rule for __syncthreads)",
	"loop bounds: derived from the code at the given launch configuration, or annotated in the facts file (trusted)",
	"device calls inlined per call context; an inlined ret is timed as the ret it replaces",
	"the paper's GUB (ECRTS 2025, reported by `gpuwcet bound`) is not given: it is defined for one known path per warp, not for a maximum over paths",
}

// pipelineAssumption states how the description's [pipeline] table is
// applied on every path (docs/model.md, "Static multi-path analysis").
func pipelineAssumption(p hwdesc.Pipeline) string {
	wait := p.BranchWait
	if wait == "" {
		wait = hwdesc.BranchWaitNone
	}
	return fmt.Sprintf("pipeline: overhead %d cycles on every result; branch_wait %s on the edges of the warp-level graph that redirect the warp (a resume edge redirecting after an ordinary instruction is charged as a taken branch); ret_issues %v; barrier_issues %v", p.Overhead, wait, p.RetIssues, p.BarrierIssues)
}

type analyzeInput struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Kind   string `json:"kind"`
}

type analyzeJSON struct {
	SchemaVersion int `json:"schema_version"`
	Tool          struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"tool"`
	Inputs []analyzeInput `json:"inputs"`
	HW     struct {
		Name     string  `json:"name"`
		Version  string  `json:"version,omitempty"`
		SHA256   string  `json:"sha256"`
		ClockMHz float64 `json:"clock_mhz"`
	} `json:"hw"`
	Launch struct {
		Block [3]int           `json:"block"`
		Grid  [3]int           `json:"grid"`
		Args  map[string]int64 `json:"args"`
	} `json:"launch"`
	Assumptions []string             `json:"assumptions"`
	Kernels     []*static.JSONKernel `json:"kernels"`
	Errors      []string             `json:"errors"`
}

func analyzeAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return codef(ExitBadInput, "analyze: want exactly one INPUT, got %d", c.NArg())
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return codef(ExitBadInput, "analyze: unknown --format %q (want text or json)", format)
	}
	var deadline *int64
	if c.IsSet("deadline") {
		d := c.Int64("deadline")
		if d < 0 {
			return codef(ExitBadInput, "analyze: --deadline must not be negative, got %d", d)
		}
		deadline = &d
	}
	hw, err := hwdesc.Resolve(c.String("hw"))
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("analyze: --hw: %w", err))
	}
	launch, err := launchFromFlags(c)
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("analyze: %w", err))
	}
	path := c.Args().First()
	file, err := loadFile(c, path)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	sha := loops.SHA256(src)
	inputs := []analyzeInput{{Path: path, SHA256: sha, Kind: file.Dialect.String()}}
	opts := pass.Options{HW: hw, Launch: launch, Check: true, Inputs: map[string]any{loops.ListingSHAInput: sha}}
	if fp := c.String("facts"); fp != "" {
		facts, err := loops.LoadFacts(fp)
		if err != nil {
			return withCode(ExitBadInput, fmt.Errorf("analyze: --facts: %w", err))
		}
		opts.Inputs[loops.FactsInput] = facts
		fsrc, err := os.ReadFile(fp)
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		inputs = append(inputs, analyzeInput{Path: fp, SHA256: loops.SHA256(fsrc), Kind: "facts"})
	}
	if k := c.String("kernel"); k != "" {
		re, err := regexp.Compile(k)
		if err != nil {
			return codef(ExitBadInput, "analyze: --kernel: %v", err)
		}
		opts.Funcs = re
	}
	res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, file, opts)
	if err != nil {
		return codef(ExitBadInput, "analyze: %v", err)
	}
	if len(res.Funcs) == 0 {
		return codef(ExitBadInput, "analyze: %s: no kernel selected", file.Name)
	}
	// Diagnostics of several passes at one position come in pass order,
	// which the driver does not fix: sort the lines for a stable output.
	var diags []string
	for _, d := range res.Diagnostics() {
		if d.Category == "divergent-branch" {
			continue // listed in the report
		}
		diags = append(diags, fmt.Sprintf("%s: %s: %s (%s)\n", pass.Position(file.Fset, d.Pos), d.Severity, d.Message, d.Category))
	}
	sort.Strings(diags)
	for _, d := range diags {
		fmt.Fprint(c.App.ErrWriter, d)
	}

	assumptions := append(slices.Clone(analyzeAssumptions), pipelineAssumption(hw.Pipeline))
	j := &analyzeJSON{SchemaVersion: 1, Inputs: inputs, Assumptions: assumptions, Errors: []string{}}
	j.Tool.Name, j.Tool.Version = "gpuwcet", version
	j.HW.Name, j.HW.Version, j.HW.SHA256, j.HW.ClockMHz = hw.Name, hw.Version, hw.Hash(), hw.ClockMHz
	j.Launch.Block, j.Launch.Grid, j.Launch.Args = launch.Block, launch.Grid, launch.Args
	code := ExitOK
	var msgs []string
	var text bytes.Buffer
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
			msgs = append(msgs, msg)
			j.Errors = append(j.Errors, msg)
			continue
		}
		rep := act.Result.(*static.Report)
		jk := static.NewJSON(rep, file.Fset)
		if deadline != nil {
			jk.Deadline = deadline
			jk.Verdict = "pass"
			if int64(rep.Bound) > *deadline {
				jk.Verdict = "fail"
				code = worse(code, ExitVerdict)
				msgs = append(msgs, fmt.Sprintf("%s: bound %d cycles exceeds the deadline of %d cycles", fn.Name, rep.Bound, *deadline))
			}
		}
		j.Kernels = append(j.Kernels, jk)
		if format == "text" {
			if text.Len() > 0 {
				text.WriteByte('\n')
			}
			if err := static.WriteText(&text, rep, file.Fset, static.TextOptions{Deadline: deadline, Blocks: c.Bool("blocks")}); err != nil {
				return withCode(ExitBadInput, err)
			}
		}
	}
	if format == "json" {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		if err := enc.Encode(j); err != nil {
			return err
		}
	} else if _, err := c.App.Writer.Write(text.Bytes()); err != nil {
		return err
	}
	if code != ExitOK {
		return codef(code, "analyze: %s", joinLines(msgs))
	}
	return nil
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
