package main

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

func factsCommand() *cli.Command {
	return &cli.Command{
		Name:  "facts",
		Usage: "write and check flow-facts files (loop bounds)",
		Description: `A facts file (docs/facts.md) gives the bounds of the loops gpuwcet cannot
derive, bound to the listing by its SHA-256.`,
		Subcommands: []*cli.Command{factsTemplateCommand(), factsCheckCommand()},
	}
}

func factsTemplateCommand() *cli.Command {
	return &cli.Command{
		Name:      "template",
		Usage:     "write a facts file with max = \"?\" for every loop without derived bound",
		ArgsUsage: "FILE",
		Description: `Writes to standard output (or --output) a facts file for FILE: its SHA-256,
its kernels and, per loop, the key (header label, or line), its position and
max = "?" when no bound is derived; derived bounds are listed commented out,
for review. The loops of a device function are listed once, under the device
function's name and by its own keys, with one comment per call (kernel,
position, bound or reason); a fact there bounds every call. The loops are
those analyze sees: each kernel with its device calls inlined.`,
		Flags: []cli.Flag{
			inputFormatFlag, maxInputFlag,
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of standard output", Category: catOutput},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return codef(ExitBadInput, "facts template: want exactly one FILE, got %d", c.NArg())
			}
			path := c.Args().First()
			if err := checkOutputs([]outputPath{{"output", c.String("output")}}, []string{path}); err != nil {
				return err
			}
			file, sha, err := loadFileSHA(c, path)
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if err := loops.WriteTemplate(&out, path, sha, file); err != nil {
				return withCode(ExitBadInput, err)
			}
			if o := c.String("output"); o != "" {
				return withCode(ExitBadInput, writeFile(o, out.Bytes()))
			}
			_, err = c.App.Writer.Write(out.Bytes())
			return err
		},
	}
}

func factsCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "bound the loops of FILE with a facts file and print them",
		ArgsUsage: "FILE",
		Description: `Derives the loop bounds of every kernel of FILE, applies --facts, evaluates
the bounds at the launch configuration (--block, --grid, --arg) and prints one
line per loop, by the loops pass analyze runs (the same bounds). Exit code 1 for bad input (a checksum mismatch, a fact naming
no loop, a missing --arg), 2 when a loop is not bounded (including max = "?").`,
		Flags: []cli.Flag{
			inputFormatFlag, maxInputFlag,
			&cli.StringFlag{Name: "facts", Usage: "flow facts `FILE` (TOML, docs/facts.md)", Category: catInput},
			blockFlag, gridFlag, argFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return codef(ExitBadInput, "facts check: want exactly one FILE, got %d", c.NArg())
			}
			launch, err := launchFromFlags(c)
			if err != nil {
				return withCode(ExitBadInput, fmt.Errorf("facts check: %w", err))
			}
			path := c.Args().First()
			file, sha, err := loadFileSHA(c, path)
			if err != nil {
				return err
			}
			if funcs, err := selectFuncs(file, ""); err == nil {
				if err := checkLaunchArgs(launch, funcs); err != nil {
					return withCode(ExitBadInput, fmt.Errorf("facts check: %w", err))
				}
			}
			inputs := map[string]any{loops.ListingSHAInput: sha}
			if fp := c.String("facts"); fp != "" {
				facts, err := loops.LoadFacts(fp)
				if err != nil {
					return withCode(ExitBadInput, err)
				}
				inputs[loops.FactsInput] = facts
			}
			// The loops pass, as analyze runs it: each kernel with its
			// device calls inlined.
			res, err := pass.Run([]*pass.Analyzer{loops.Analyzer}, file, pass.Options{Launch: launch, Inputs: inputs})
			if err != nil {
				return withCode(ExitBadInput, err)
			}
			var out bytes.Buffer
			var unbounded []string
			var bad []error
			entries := map[string]bool{}
			for _, fn := range res.Funcs {
				if !fn.Entry {
					continue
				}
				entries[fn.Name] = true
				act := res.Get(loops.Analyzer, fn)
				if act.Err != nil {
					bad = append(bad, act.Err)
					continue
				}
				r := act.Result.(*loops.Result)
				if err := loops.Format(&out, r); err != nil {
					return err
				}
				var ue *loops.UnboundedError
				if err := r.Err(); errors.As(err, &ue) {
					// Each problem is printed above, once, at its
					// position: name the kernel only.
					unbounded = append(unbounded, fn.Name)
				}
			}
			// Each problem once, at its position, as analyze prints its
			// diagnostics: a device function's loop unbounded alike in
			// several calls (of one kernel or several) is one line.
			for _, d := range res.Diagnostics() {
				if slices.ContainsFunc(d.Funcs, func(f string) bool { return entries[f] }) {
					fmt.Fprint(c.App.ErrWriter, diagLine(file.Fset, d))
				}
			}
			if len(bad) > 0 {
				return withCode(ExitBadInput, firstDistinct(bad))
			}
			if _, err := c.App.Writer.Write(out.Bytes()); err != nil {
				return err
			}
			if len(unbounded) > 0 {
				return codef(ExitUnbounded, "facts check: not bounded: %s (the errors are above)", strings.Join(unbounded, ", "))
			}
			return nil
		},
	}
}

// firstDistinct joins errors, each distinct message once (a facts file's
// error is the same for every kernel).
func firstDistinct(errs []error) error {
	var out []error
	seen := map[string]bool{}
	for _, e := range errs {
		if m := e.Error(); !seen[m] {
			seen[m] = true
			out = append(out, e)
		}
	}
	return errors.Join(out...)
}
