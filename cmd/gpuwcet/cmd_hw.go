package main

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/hwdesc"
)

func hwCommand() *cli.Command {
	return &cli.Command{
		Name:  "hw",
		Usage: "list, show, check and import hardware descriptions (docs/hwdesc.md)",
		Description: `A hardware description routes every opcode to a functional unit with its
initiation interval and latency; every command that times instructions takes
one with --hw, a built-in NAME or a TOML FILE (docs/hwdesc.md).`,
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "list the built-in hardware descriptions with their source",
				Description: `Prints one line per built-in description (the names --hw accepts) with
its one-line description, and below it the source of its numbers.`,
				Action: hwList,
			},
			{
				Name:      "show",
				Usage:     "print a hardware description as TOML (a built-in verbatim, a file in canonical form)",
				ArgsUsage: "NAME|FILE",
				Description: `Prints a built-in description as it is embedded, or a description file,
validated, in the canonical form whose SHA-256 the reports record (--hash
prints only that hash). Exit code 1 when the file does not validate.`,
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "hash", Usage: "print only the SHA-256 of the canonical encoding", Category: catOutput},
				},
				Action: hwShow,
			},
			{
				Name:      "check",
				Usage:     "validate hardware description files; exit 1 with positioned errors",
				ArgsUsage: "FILE...",
				Description: `Decodes each FILE strictly and validates it: prints "FILE: ok" with its
units, rules and hash, or every problem as file:line[:col]: message, and
exits with code 1.`,
				Action: hwCheck,
			},
			{
				Name:      "import",
				Usage:     "convert a GPGPU-Sim gpgpusim.config into a hardware description (TOML on stdout)",
				ArgsUsage: "gpgpusim.config",
				Description: `Reads the functional-unit latencies, initiation intervals and unit
counts of a GPGPU-Sim configuration and writes the equivalent description
(init = GPGPU-Sim initiation, lat = GPGPU-Sim latency - initiation; routing
as GPGPU-Sim's; docs/hwdesc.md, "Importing a GPGPU-Sim config").`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "name", Usage: "description `NAME` (default: derived from the config's directory)", Category: catOutput},
					&cli.Int64Flag{Name: "mem-latency", Usage: "global-load latency in `CYCLES` from dispatch to result (GPGPU-Sim convention); overrides the mem_impostor latency, required under -gpgpu_perfect_mem 1 without one", DefaultText: "from the config", Category: catTarget},
					&cli.StringFlag{Name: "source", Usage: "provenance `TEXT` recorded in the description (default: the config path)", Category: catOutput},
					maxInputFlag,
				},
				Action: hwImport,
			},
		},
	}
}

func hwList(c *cli.Context) error {
	if c.NArg() > 0 {
		return codef(ExitBadInput, "hw list takes no arguments")
	}
	w := c.App.Writer
	names := hwdesc.Names()
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		d, err := hwdesc.Builtin(n)
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		fmt.Fprintf(w, "%-*s  %s\n%-*s  source: %s\n", width, n, d.Description, width, "", d.Source)
	}
	return nil
}

func hwShow(c *cli.Context) error {
	if c.NArg() != 1 {
		return codef(ExitBadInput, "hw show takes one built-in name or file (built-ins: %s)", strings.Join(hwdesc.Names(), ", "))
	}
	arg := c.Args().First()
	d, err := hwdesc.Resolve(arg)
	if err != nil {
		return withCode(ExitBadInput, hwError(err))
	}
	w := c.App.Writer
	if c.Bool("hash") {
		fmt.Fprintln(w, d.Hash())
		return nil
	}
	if d.File == "" { // a built-in: print its file, comments included
		src, err := hwdesc.BuiltinSource(d.Name)
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		_, err = w.Write(src)
		return err
	}
	return hwdesc.Encode(w, d)
}

func hwCheck(c *cli.Context) error {
	if c.NArg() == 0 {
		return codef(ExitBadInput, "hw check needs at least one FILE")
	}
	var msgs []string
	for _, arg := range c.Args().Slice() {
		d, err := hwdesc.Resolve(arg)
		if err != nil {
			msgs = append(msgs, hwError(err).Error())
			continue
		}
		fmt.Fprintf(c.App.Writer, "%s: ok (%d units, %d rules, sha256 %s)\n", arg, len(d.Units), len(d.Map), d.Hash()[:12])
	}
	if len(msgs) > 0 {
		return codef(ExitBadInput, "%s", strings.Join(msgs, "\n"))
	}
	return nil
}

func hwImport(c *cli.Context) error {
	if c.NArg() != 1 {
		return codef(ExitBadInput, "hw import takes one gpgpusim.config file")
	}
	file := c.Args().First()
	name := c.String("name")
	if name == "" {
		name = defaultName(file)
	}
	mem := c.Int64("mem-latency")
	if c.IsSet("mem-latency") && mem < 1 {
		return codef(ExitBadInput, "--mem-latency must be ≥ 1 cycle, got %d", mem)
	}
	src, err := readInput(c, file)
	if err != nil {
		return err
	}
	d, err := hwdesc.ImportOptions{Name: name, File: file, Source: c.String("source"), MemLatency: hwdesc.Cycles(mem)}.Import(bytes.NewReader(src))
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	return hwdesc.Encode(c.App.Writer, d)
}

// defaultName derives a description name from the config's directory
// ("configs/SM86_ORIN_5l_lrr/gpgpusim.config" → "sm86_orin_5l_lrr").
func defaultName(file string) string {
	dir := filepath.Base(filepath.Dir(file))
	var b strings.Builder
	for _, r := range strings.ToLower(dir) {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '_', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-._")
	if s == "" {
		return "imported"
	}
	return s
}

// hwError shows a TOML syntax error with its source excerpt.
func hwError(err error) error {
	var se *hwdesc.SyntaxError
	if errors.As(err, &se) {
		return errors.New(se.ErrorWithPosition())
	}
	return err
}
