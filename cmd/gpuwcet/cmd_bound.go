package main

import (
	"bytes"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound"
)

var boundCommand = &cli.Command{
	Name:      "bound",
	Usage:     "bound the execution time of a thread block (sum over barrier sections of the largest warp bound)",
	ArgsUsage: "INPUT",
	Description: `Computes, for each kernel of INPUT (a simulator trace, or a kernel without
branches replicated to --warps warps), the block bound of docs/model.md: per
barrier section, every warp's isolated duration plus the interference of
the other warps, maximised over warps; the sections are summed. The ECRTS
2025 GUB is printed alongside for comparison; it is not the bound.

With --deadline, the exit code is 3 when a bound exceeds the deadline.`,
	Flags: []cli.Flag{
		timingHWFlag, timingFormatFlag, timingKernelFlag, inputFormatFlag, dedupeFlag,
		&cli.IntFlag{Name: "warps", Usage: "replicate the single path to `N` warps", Category: catTarget},
		&cli.Int64Flag{Name: "deadline", Usage: "exit with code 3 when the bound exceeds `CYCLES`", Category: catOutput},
		&cli.BoolFlag{Name: "phases", Usage: "text: also list every warp's phases", Category: catOutput},
	},
	Action: func(c *cli.Context) error {
		file, res, err := runTiming(c, bound.Analyzer, false)
		if err != nil {
			return err
		}
		deadline := c.Int64("deadline")
		if c.IsSet("deadline") && deadline < 0 {
			return codef(ExitBadInput, "bound: --deadline must not be negative, got %d", deadline)
		}
		var out bytes.Buffer
		var late []string
		for i, fn := range res.Funcs {
			r := res.Get(bound.Analyzer, fn).Result.(*bound.Result)
			if c.IsSet("deadline") && int64(r.Bound) > deadline {
				late = append(late, fmt.Sprintf("%s: bound %d cycles exceeds the deadline of %d cycles", fn.Name, r.Bound, deadline))
			}
			if c.String("format") == "json" {
				if len(res.Funcs) != 1 {
					return codef(ExitBadInput, "bound: --format json describes one kernel; %s has %d, choose one with --kernel", file.Name, len(res.Funcs))
				}
				j := bound.NewJSON(r, file.Fset, "gpuwcet", version)
				if c.IsSet("deadline") {
					j.Deadline = &deadline
				}
				if err := bound.WriteJSON(&out, j); err != nil {
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
		}
		if _, err := c.App.Writer.Write(out.Bytes()); err != nil {
			return err
		}
		if len(late) > 0 {
			return codef(ExitVerdict, "bound: %s", joinLines(late))
		}
		return nil
	},
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
