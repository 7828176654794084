package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
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
for review.`,
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
			file, sha, graphs, err := factsLoad(c, path)
			if err != nil {
				return err
			}
			_ = file
			var out bytes.Buffer
			if err := loops.WriteTemplate(&out, path, sha, graphs); err != nil {
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
line per loop. Exit code 1 for bad input (a checksum mismatch, a fact naming
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
			file, sha, graphs, err := factsLoad(c, path)
			if err != nil {
				return err
			}
			if funcs, err := selectFuncs(file, ""); err == nil {
				if err := checkLaunchArgs(launch, funcs); err != nil {
					return withCode(ExitBadInput, fmt.Errorf("facts check: %w", err))
				}
			}
			var facts *loops.Facts
			if fp := c.String("facts"); fp != "" {
				facts, err = loops.LoadFacts(fp)
				if err != nil {
					return withCode(ExitBadInput, err)
				}
				if err := facts.Check(file, sha); err != nil {
					return withCode(ExitBadInput, err)
				}
			}
			var out bytes.Buffer
			var unbounded []string
			for _, g := range graphs {
				if !g.Func.Entry {
					continue
				}
				r, err := loops.Compute(g, launch, facts, sha)
				if err != nil {
					return withCode(ExitBadInput, err)
				}
				if err := loops.Format(&out, r); err != nil {
					return err
				}
				var ue *loops.UnboundedError
				if err := r.Err(); errors.As(err, &ue) {
					unbounded = append(unbounded, err.Error())
				}
				for _, p := range r.Problems {
					if p.Warning {
						fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s\n", p.Pos, strings.TrimPrefix(p.Message, p.Pos.String()+": "))
					}
				}
			}
			if _, err := c.App.Writer.Write(out.Bytes()); err != nil {
				return err
			}
			if len(unbounded) > 0 {
				return codef(ExitUnbounded, "%s", strings.Join(unbounded, "\n"))
			}
			return nil
		},
	}
}

// factsLoad reads a listing, its SHA-256 and the graphs of its functions.
func factsLoad(c *cli.Context, path string) (*isa.File, string, []*cfg.Graph, error) {
	file, sha, err := loadFileSHA(c, path)
	if err != nil {
		return nil, "", nil, err
	}
	var gs []*cfg.Graph
	for _, fn := range file.Funcs {
		if fn.Decl {
			continue
		}
		g, err := cfg.Build(file.Fset, fn)
		if err != nil {
			return nil, "", nil, withCode(ExitBadInput, err)
		}
		gs = append(gs, g)
	}
	return file, sha, gs, nil
}
