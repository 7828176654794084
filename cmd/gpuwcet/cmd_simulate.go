package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/token"
	"io"
	"regexp"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
	"github.com/gpuwcet/gpuwcet/phases/sim"
)

func simulateCommand() *cli.Command {
	return &cli.Command{
		Name:      "simulate",
		Usage:     "simulate a thread block on the reference timing model (the judge of the bounds)",
		ArgsUsage: "INPUT",
		Description: `Simulates each kernel of INPUT (a simulator trace, or a kernel without
branches replicated to --warps warps; the same paths as gpuwcet bound) on the
reference timing model of docs/model.md: one SM, one instruction issued per
cycle, per-warp scoreboard, one FIFO per functional unit, block barriers.
Prints the makespan: the cycle at which the last result of the block is
ready. --timeline lists every instruction's issue, start and ready cycles.

Policies: lrr (loose round robin), gto (greedy then oldest), random:SEED (a
uniformly random eligible warp each cycle, reproducible), priority:W,W,...
(static priority order), script:W,W,... (the warp of each issue, in order:
replays a recorded schedule, such as the witness of the exhaustive explorer
of gpuwcet experiment exact), most-remaining and least-remaining (the
eligible warp with the most / fewest instructions left) and
adversarial[:SEED[:BUDGET]] (a search for a long schedule; prints the
witness policy, which replays it).

--barriers selects the barrier semantics: reach (docs/model.md: warps
continue when the last one reaches the barrier), drain (also wait until every
result of the block is ready) or issue (bar.sync issues on its unit).

Kernels with branches, loops and calls (PTX listings): --paths-seed N draws
a concrete execution of the block from the instruction semantics (package
phases/sim/simt, the judge of the static bound, which shares no code with the
analysis): every lane interprets the kernel's instructions (thread and block
indices, launch dimensions, --arg values, literals; memory the kernel reads
before writing it, arguments not given, the block index and timers are drawn
from N), device functions run with a call stack, branches follow the lanes'
values on a SIMT reconvergence stack (GPGPU-Sim's, reconvergence at the
immediate post-dominator), and block barriers synchronise the warps. Loops
run as their arithmetic says; a loop whose exit depends on drawn data stops
at the bound --facts gives it. --order orders the lane groups of a
divergence: taken-first (as measured on Pascal), fallthrough-first, random
(drawn at each divergence), gpgpusim (the group holding the highest lane
runs last: lanes leaving a loop then run after its remaining iterations),
all (the four, the longest simulated is printed) or exhaustive (every order
at every divergence, at most --max-orders executions; the longest is
printed). --max-loops draws memory never written as non-zero values, so
that loops ended by a zero in memory (a sentinel, a flag) run to their
--facts bound. --check-bound also runs the static analysis (as analyze) and exits with code 4 when the makespan exceeds its bound.`,
		Flags: []cli.Flag{
			timingHWFlag, timingFormatFlag, timingKernelFlag, inputFormatFlag, maxInputFlag, dedupeFlag,
			&cli.IntFlag{Name: "warps", Usage: "replicate the single path to `N` warps (at most 32)", DefaultText: "the trace's warps, or 1", Category: catTarget},
			&cli.StringFlag{Name: "policy", Value: "lrr", Usage: "warp scheduling `POLICY`: lrr, gto, random:SEED, priority:W,..., script:W,..., most-remaining, least-remaining, adversarial[:SEED[:BUDGET]]", Category: catTarget},
			&cli.StringFlag{Name: "barriers", Value: "reach", Usage: "barrier semantics `MODE`: reach, drain or issue", Category: catTarget},
			&cli.BoolFlag{Name: "timeline", Usage: "list per-instruction issue/start/ready cycles per warp", Category: catOutput},
			blockFlag, gridFlag, argFlag,
			&cli.StringFlag{Name: "facts", Usage: "flow-facts `FILE` (loop bounds; docs/facts.md), with --paths-seed", Category: catInput},
			&cli.Uint64Flag{Name: "paths-seed", Usage: "draw the warps' paths through a kernel with control flow on a SIMT stack from seed `N` (needs --block)", DefaultText: "none: a single path", Category: catTarget},
			&cli.StringFlag{Name: "order", Aliases: []string{"sides"}, Value: "taken-first", Usage: "with --paths-seed: `ORDER` of the lane groups of a divergence: " + orderNames, Category: catTarget},
			&cli.IntFlag{Name: "max-orders", Value: 256, Usage: "with --order exhaustive: simulate at most `N` executions", Category: catTarget},
			&cli.BoolFlag{Name: "max-loops", Usage: "with --paths-seed: memory never written is drawn non-zero (loops ended by a zero run to their --facts bound)", Category: catTarget},
			&cli.BoolFlag{Name: "check-bound", Usage: "with --paths-seed: print the static bound (gpuwcet analyze) and exit 4 when the makespan exceeds it", Category: catOutput},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return codef(ExitBadInput, "simulate: want exactly one INPUT, got %d", c.NArg())
			}
			format := c.String("format")
			if format != "text" && format != "json" {
				return codef(ExitBadInput, "simulate: unknown --format %q (want text or json)", format)
			}
			if err := checkWarps("simulate", c.Int("warps")); err != nil {
				return err
			}
			pol, err := sim.ParsePolicy(c.String("policy"))
			if err != nil {
				return codef(ExitBadInput, "simulate: --policy: %v", err)
			}
			mode, err := sim.ParseBarrierMode(c.String("barriers"))
			if err != nil {
				return codef(ExitBadInput, "simulate: --barriers: %v", err)
			}
			hw, err := hwdesc.Resolve(c.String("hw"))
			if err != nil {
				return withCode(ExitBadInput, fmt.Errorf("simulate: --hw: %w", err))
			}
			file, sha, err := loadFileSHA(c, c.Args().First())
			if err != nil {
				return err
			}
			// The simulator times the listing without the pass driver:
			// the same listing check.
			ds, err := pass.CheckListing(file, hw)
			if err != nil {
				return withCode(ExitBadInput, fmt.Errorf("simulate: %w", err))
			}
			for _, d := range ds {
				fmt.Fprint(c.App.ErrWriter, diagLine(file.Fset, d))
			}
			funcs, err := selectFuncs(file, c.String("kernel"))
			if err != nil {
				return codef(ExitBadInput, "simulate: %v", err)
			}
			if format == "json" && len(funcs) != 1 {
				return codef(ExitBadInput, "simulate: --format json describes one kernel; %s has %d, choose one with --kernel", file.Name, len(funcs))
			}
			var paths *simPaths
			if c.IsSet("paths-seed") || c.Bool("max-loops") || c.Bool("check-bound") {
				if paths, err = newSimPaths(c, file, sha, hw); err != nil {
					return err
				}
			} else {
				for _, f := range []string{"block", "grid", "arg", "facts", "order", "max-orders"} {
					if c.IsSet(f) {
						return codef(ExitBadInput, "simulate: --%s needs --paths-seed (a drawn execution of a kernel with control flow)", f)
					}
				}
			}
			var out bytes.Buffer
			code := ExitOK
			var msgs []string
			for i, fn := range funcs {
				var blk *simBlock
				var r *sim.Result
				var err error
				opt := sim.Options{Timeline: c.Bool("timeline")}
				if paths != nil {
					blk, r, err = paths.run(fn, mode, pol, opt)
				} else if blk, err = newSimBlock(file.Fset, fn, hw, c.Int("warps"), mode); err == nil {
					if r, err = blk.prog.Run(pol, opt); err != nil {
						return codef(ExitBadInput, "simulate: %s: %v", fn.Name, err)
					}
				}
				if err != nil {
					code := ExitBadInput
					if static.Unbounded(err) {
						code = ExitUnbounded // a valid kernel the analysis cannot bound
					}
					return withCode(code, fmt.Errorf("simulate: %w", err))
				}
				if blk.bound != nil && r.Makespan > *blk.bound {
					code = worse(code, ExitUnsound)
					msgs = append(msgs, fmt.Sprintf("%s: makespan %d cycles exceeds the static bound %d cycles (%s, policy %s): a defect of the analyzer", fn.Name, r.Makespan, *blk.bound, blk.source, r.Policy))
				}
				if format == "json" {
					if err := writeSimJSON(&out, blk, r, pol, mode); err != nil {
						return withCode(ExitBadInput, err)
					}
					continue
				}
				if i > 0 {
					out.WriteByte('\n')
				}
				writeSimText(&out, file.Fset, blk, r, pol, mode)
			}
			if _, err := c.App.Writer.Write(out.Bytes()); err != nil {
				return err
			}
			if code != ExitOK {
				return codef(code, "simulate: %s", joinLines(msgs))
			}
			return nil
		},
	}
}

// selectFuncs returns the kernels of file whose names match the regexp
// (all kernels when it is empty); files without kernels (traces of device
// functions) fall back to every function.
func selectFuncs(file *isa.File, pattern string) ([]*isa.Func, error) {
	var re *regexp.Regexp
	if pattern != "" {
		var err error
		if re, err = regexp.Compile(pattern); err != nil {
			return nil, fmt.Errorf("--kernel: %v", err)
		}
	}
	cands := file.Kernels()
	if len(cands) == 0 {
		cands = file.Funcs
	}
	var out []*isa.Func
	for _, fn := range cands {
		if fn.Decl || (re != nil && !re.MatchString(fn.Name)) {
			continue
		}
		out = append(out, fn)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no kernel selected", file.Name)
	}
	return out, nil
}

// simBlock is a kernel's block, compiled for the simulator.
type simBlock struct {
	fn     *isa.Func
	hw     *hwdesc.Desc
	warps  []int // the warp numbers, in block order
	source string
	prog   *sim.Program
	bound  *hwdesc.Cycles // the static bound (--check-bound), or nil
}

// newSimBlock takes the paths of fn as package phases does (trace warps, or
// the straight-line body replicated to warps warps) and compiles them.
func newSimBlock(fset *token.FileSet, fn *isa.Func, hw *hwdesc.Desc, warps int, mode sim.BarrierMode) (*simBlock, error) {
	paths, source, err := phases.Paths(fset, fn, warps)
	if err != nil {
		return nil, err
	}
	type wp struct {
		warp int
		path []*isa.Instr
	}
	var all []wp
	for _, p := range paths {
		for _, w := range p.Warps {
			all = append(all, wp{w, p.Instrs})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].warp < all[j].warp })
	b := &simBlock{fn: fn, hw: hw, source: source}
	var ps [][]*isa.Instr
	for _, x := range all {
		b.warps = append(b.warps, x.warp)
		ps = append(ps, x.path)
	}
	if b.prog, err = sim.CompileFunc(hw, ps, mode, fn); err != nil {
		return nil, fmt.Errorf("%s: %w", fn.Name, err)
	}
	return b, nil
}

func writeSimText(w io.Writer, fset *token.FileSet, b *simBlock, r *sim.Result, pol sim.Policy, mode sim.BarrierMode) {
	fmt.Fprintf(w, "kernel %s: %d warps (%s), hw %s, policy %s, barriers %s\n", b.fn.Name, len(b.warps), b.source, b.hw.Name, pol, mode)
	if r.Policy != pol.String() {
		fmt.Fprintf(w, "witness policy: %s\n", r.Policy)
	}
	fmt.Fprintf(w, "makespan %d cycles, %d instructions issued\n", r.Makespan, r.Issued)
	if b.bound != nil {
		verdict := "within"
		if r.Makespan > *b.bound {
			verdict = "EXCEEDS"
		}
		fmt.Fprintf(w, "static bound %d cycles (gpuwcet analyze): makespan %s the bound\n", *b.bound, verdict)
	}
	if len(r.Releases) > 0 {
		fmt.Fprintf(w, "barrier releases:")
		for _, c := range r.Releases {
			fmt.Fprintf(w, " %d", c)
		}
		fmt.Fprintln(w)
	}
	if r.Timeline == nil {
		return
	}
	for i, evs := range r.Timeline {
		path := b.prog.Path(i)
		fmt.Fprintf(w, "warp %d: ends at %d\n", b.warps[i], r.WarpEnd[i])
		fmt.Fprintf(w, "  %5s %7s %7s %7s  %-10s %s\n", "index", "issue", "start", "ready", "unit", "instruction")
		for _, e := range evs {
			unit := "-"
			if e.Unit >= 0 {
				unit = b.hw.Units[e.Unit].Name
			}
			kind := ""
			if e.Barrier && e.Unit < 0 {
				kind = " (reached; released at start)"
			}
			fmt.Fprintf(w, "  %5d %7d %7d %7d  %-10s %s%s\n", e.Index, e.Issue, e.Start, e.Ready, unit, path[e.Index].Text, kind)
		}
	}
}

type simJSON struct {
	Tool           string        `json:"tool"`
	Version        string        `json:"version"`
	Format         string        `json:"format"`
	Func           string        `json:"func"`
	HW             string        `json:"hw"`
	Warps          int           `json:"warps"`
	Source         string        `json:"source"`
	Policy         string        `json:"policy"`
	Witness        string        `json:"witness_policy"`
	Barriers       string        `json:"barriers"`
	MakespanCycles int64         `json:"makespan_cycles"`
	StaticBound    *int64        `json:"static_bound_cycles,omitempty"`
	Issued         int64         `json:"issued"`
	WarpEnd        []int64       `json:"warp_end_cycles"`
	Releases       []int64       `json:"barrier_release_cycles"`
	Timeline       []simJSONWarp `json:"timeline,omitempty"`
}

type simJSONWarp struct {
	Warp   int            `json:"warp"`
	Instrs []simJSONInstr `json:"instrs"`
}

type simJSONInstr struct {
	Index   int    `json:"index"`
	Text    string `json:"text"`
	Unit    string `json:"unit,omitempty"`
	Barrier bool   `json:"barrier,omitempty"`
	Issue   int64  `json:"issue"`
	Start   int64  `json:"start"`
	Ready   int64  `json:"ready"`
}

func writeSimJSON(w io.Writer, b *simBlock, r *sim.Result, pol sim.Policy, mode sim.BarrierMode) error {
	j := simJSON{
		Tool: "gpuwcet", Version: version, Format: "gpuwcet.simulate/1",
		Func: b.fn.Name, HW: b.hw.Name, Warps: len(b.warps), Source: b.source,
		Policy: pol.String(), Witness: r.Policy, Barriers: mode.String(),
		MakespanCycles: int64(r.Makespan), Issued: r.Issued,
		WarpEnd: []int64{}, Releases: []int64{},
	}
	if b.bound != nil {
		x := int64(*b.bound)
		j.StaticBound = &x
	}
	for _, c := range r.WarpEnd {
		j.WarpEnd = append(j.WarpEnd, int64(c))
	}
	for _, c := range r.Releases {
		j.Releases = append(j.Releases, int64(c))
	}
	for i, evs := range r.Timeline {
		path := b.prog.Path(i)
		jw := simJSONWarp{Warp: b.warps[i], Instrs: []simJSONInstr{}}
		for _, e := range evs {
			ji := simJSONInstr{Index: e.Index, Text: path[e.Index].Text, Barrier: e.Barrier,
				Issue: int64(e.Issue), Start: int64(e.Start), Ready: int64(e.Ready)}
			if e.Unit >= 0 {
				ji.Unit = b.hw.Units[e.Unit].Name
			}
			jw.Instrs = append(jw.Instrs, ji)
		}
		j.Timeline = append(j.Timeline, jw)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
