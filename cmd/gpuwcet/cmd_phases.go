package main

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// Flags shared by phases and bound.
var (
	timingHWFlag     = &cli.StringFlag{Name: "hw", Usage: "hardware description (required): a built-in `NAME` (gpuwcet hw list) or a TOML FILE", Category: catTarget, Required: true}
	timingFormatFlag = &cli.StringFlag{Name: "format", Value: "text", Usage: "output `FORMAT`: text or json", Category: catOutput}
	timingKernelFlag = &cli.StringFlag{Name: "kernel", Usage: "only kernels whose name matches `REGEXP`", Category: catInput}
	strictFlag       = &cli.BoolFlag{Name: "strict", Usage: "refuse the hardware description's default_unit: an opcode that no rule routes is an error (docs/decisions.md, \"Default units\")", Category: catTarget}
)

func phasesCommand() *cli.Command {
	return &cli.Command{
		Name:      "phases",
		Usage:     "print the isolated exec/idle phase profile of every warp",
		ArgsUsage: "INPUT",
		Description: `Runs the timing model of docs/model.md over each kernel of INPUT: the per-warp
paths of a simulator trace, or the body of a kernel without branches (one
path). Warps with identical paths are shown once, with their count. Each
barrier section starts from an idle SM at cycle 0.

--explain lists every instruction with its issue, start (initiation) and
ready cycles.`,
		Flags: []cli.Flag{
			timingHWFlag, timingFormatFlag, timingKernelFlag, inputFormatFlag, maxInputFlag, dedupeFlag, strictFlag,
			&cli.IntFlag{Name: "warps", Usage: "replicate the single path to `N` warps (at most 32)", DefaultText: "the trace's warps, or 1", Category: catTarget},
			&cli.BoolFlag{Name: "explain", Usage: "list per-instruction issue/start/ready cycles", Category: catOutput},
		},
		Action: func(c *cli.Context) error {
			explain := c.Bool("explain")
			file, res, err := runTiming(c, phases.Analyzer, explain)
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if c.String("format") == "json" {
				if len(res.Funcs) != 1 {
					return codef(ExitBadInput, "phases: --format json describes one kernel; %s has %d, choose one with --kernel", file.Name, len(res.Funcs))
				}
				p := res.Get(phases.Analyzer, res.Funcs[0]).Result.(*phases.Profile)
				if err := phases.WriteJSON(&out, p, file.Fset); err != nil {
					return withCode(ExitBadInput, err)
				}
			} else {
				for i, fn := range res.Funcs {
					if i > 0 {
						out.WriteByte('\n')
					}
					p := res.Get(phases.Analyzer, fn).Result.(*phases.Profile)
					if err := phases.WriteText(&out, p, file.Fset); err != nil {
						return withCode(ExitBadInput, err)
					}
				}
			}
			_, err = c.App.Writer.Write(out.Bytes())
			return err
		},
	}
}

// runTiming loads the input, resolves --hw and runs root (phases or bound)
// on the selected kernels.
func runTiming(c *cli.Context, root *pass.Analyzer, explain bool) (*isa.File, *pass.Results, error) {
	name := c.Command.Name
	if c.NArg() != 1 {
		return nil, nil, codef(ExitBadInput, "%s: want exactly one INPUT, got %d", name, c.NArg())
	}
	switch f := c.String("format"); f {
	case "text", "json":
	default:
		return nil, nil, codef(ExitBadInput, "%s: unknown --format %q (want text or json)", name, f)
	}
	if err := checkWarps(name, c.Int("warps")); err != nil {
		return nil, nil, err
	}
	hw, err := hwdesc.Resolve(c.String("hw"))
	if err != nil {
		return nil, nil, withCode(ExitBadInput, fmt.Errorf("%s: --hw: %w", name, err))
	}
	file, err := loadFile(c, c.Args().First())
	if err != nil {
		return nil, nil, err
	}
	opts := pass.Options{
		HW:     hw,
		Launch: pass.Launch{Warps: c.Int("warps")},
		Inputs: map[string]any{phases.ExplainInput: explain, phases.StrictInput: c.Bool(strictFlag.Name)},
		Check:  true,
	}
	if k := c.String("kernel"); k != "" {
		re, err := regexp.Compile(k)
		if err != nil {
			return nil, nil, codef(ExitBadInput, "%s: --kernel: %v", name, err)
		}
		opts.Funcs = re
	}
	res, err := pass.Run([]*pass.Analyzer{root}, file, opts)
	if err != nil {
		return nil, nil, codef(ExitBadInput, "%s: %v", name, err)
	}
	for _, d := range res.Diagnostics() {
		fmt.Fprint(c.App.ErrWriter, diagLine(file.Fset, d))
	}
	if err := res.Err(); err != nil {
		return nil, nil, withCode(ExitBadInput, err)
	}
	if len(res.Funcs) == 0 {
		return nil, nil, codef(ExitBadInput, "%s: %s", name, noKernelSelected(file, opts.Funcs))
	}
	return file, res, nil
}
