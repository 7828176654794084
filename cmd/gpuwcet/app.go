package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/cfg/input"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// version is the tool version, reported in JSON outputs and reports.
var version = "0.1.0-dev"

// Flag categories, shown in help output.
const (
	catInput  = "INPUT"
	catTarget = "TARGET"
	catOutput = "OUTPUT"
	catDebug  = "DEBUGGING"
)

// commands is the command registry: one entry per subcommand, each defined
// in a cmd_<name>.go file of this package. Every call builds fresh command
// values, because urfave/cli modifies a command while running it (it adds
// help flags and subcommands); shared values made in-process runs, such as
// the tests', depend on their order.
func commands() []*cli.Command {
	cs := []*cli.Command{
		cfgCommand(),
		phasesCommand(),
		boundCommand(),
		analyzeCommand(),
		passesCommand(),
		hwCommand(),
		factsCommand(),
		simulateCommand(),
		experimentCommand(),
		premCommand(),
	}
	for _, c := range cs {
		flagsFirst(c)
	}
	return cs
}

// flagsFirst makes c and its subcommands refuse a flag written after the
// input: urfave/cli v2 (like the standard flag package) stops reading
// flags at the first argument that is not one, so "analyze k.ptx --block
// 256" would read "--block" and "256" as inputs. The error says that flags
// go before the input. (Reordering the arguments ourselves would guess
// which words are flag values; urfave/cli v3 parses flags anywhere.)
func flagsFirst(c *cli.Command) {
	for _, sub := range c.Subcommands {
		flagsFirst(sub)
	}
	action := c.Action
	if action == nil {
		return
	}
	c.Action = func(ctx *cli.Context) error {
		for i, a := range ctx.Args().Slice() {
			if i > 0 && len(a) > 1 && a[0] == '-' {
				return codef(ExitBadInput, "%s: %q comes after the input %q: flags go before the input (%s [flags] %s)",
					strings.TrimPrefix(ctx.Command.HelpName, ctx.App.Name+" "), a, ctx.Args().First(), ctx.Command.HelpName, ctx.Command.ArgsUsage)
			}
		}
		return action(ctx)
	}
}

// requiredRE matches urfave/cli's error for required flags not given.
var requiredRE = regexp.MustCompile(`^Required flags? "([^"]*)" not set`)

// requiredHint returns, for a required flag reported missing that the
// command line does give (after the input, where it was not read), a hint
// that flags go before the input ("" otherwise).
func requiredHint(err error, args []string) string {
	m := requiredRE.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	for _, name := range strings.Split(m[1], ", ") {
		for _, a := range args {
			if a == "-"+name || a == "--"+name || strings.HasPrefix(a, "--"+name+"=") || strings.HasPrefix(a, "-"+name+"=") {
				return fmt.Sprintf(" (%s is given after the input, where it is not read: flags go before the input)", a)
			}
		}
	}
	return ""
}

// newApp builds the application with the given output streams, so that
// tests can run it in-process.
func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:                 "gpuwcet",
		Usage:                "static worst-case execution time analysis of GPU thread blocks",
		Version:              version,
		Writer:               stdout,
		ErrWriter:            stderr,
		Commands:             commands(),
		EnableBashCompletion: false,
		// Errors are printed once, by run, with their exit code.
		ExitErrHandler: func(*cli.Context, error) {},
	}
	return app
}

// run executes the command line and returns the process exit code.
// Standard output and standard error show the characters of an input
// that would act on a terminal (escape sequences, bidirectional
// controls) as escapes (input.VisibleWriter; issue 9 item 12).
func run(args []string, stdout, stderr io.Writer) int {
	vout, verr := input.VisibleWriter(stdout), input.VisibleWriter(stderr)
	defer vout.Flush()
	defer verr.Flush()
	stdout, stderr = vout, verr
	app := newApp(stdout, stderr)
	// urfave/cli reports an unknown command as a missing help topic
	// with exit code 3, which is the deadline verdict here.
	var unknown error
	app.CommandNotFound = func(c *cli.Context, name string) {
		if parent := c.Command.FullName(); parent != "" && parent != c.App.Name {
			unknown = codef(ExitBadInput, "%s: unknown command %q (see %s %s --help)", parent, name, c.App.Name, parent)
		} else {
			unknown = codef(ExitBadInput, "unknown command %q (see %s --help)", name, c.App.Name)
		}
	}
	err := app.Run(args)
	if err == nil {
		err = unknown
	}
	if err != nil {
		msg := errorLines(err) + requiredHint(err, args)
		if !strings.HasPrefix(msg, "gpuwcet:") {
			msg = "gpuwcet: " + msg
		}
		fmt.Fprintln(stderr, strings.TrimRight(msg, "\n"))
	}
	return exitCode(err)
}

// errorLines is err's message with the errors of a front end's list one
// per line (ErrorList.Error shows only the first).
func errorLines(err error) string {
	msg := err.Error()
	var list isa.ErrorList
	if !errors.As(err, &list) || len(list) < 2 {
		return msg
	}
	prefix, ok := strings.CutSuffix(msg, list.Error())
	if !ok {
		return msg
	}
	lines := make([]string, len(list))
	for i, e := range list {
		lines[i] = e.Error()
	}
	return prefix + strings.Join(lines, "\n")
}
