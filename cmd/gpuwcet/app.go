package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
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
// in a cmd_<name>.go file of this package.
func commands() []*cli.Command {
	return []*cli.Command{
		cfgCommand,
		phasesCommand,
		boundCommand,
		analyzeCommand,
		passesCommand,
		hwCommand,
		factsCommand,
		simulateCommand,
		experimentCommand,
	}
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
		HideHelpCommand:      true,
		// Errors are printed once, by run, with their exit code.
		ExitErrHandler: func(*cli.Context, error) {},
	}
	return app
}

// run executes the command line and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.Run(args)
	if err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "gpuwcet:") {
			msg = "gpuwcet: " + msg
		}
		fmt.Fprintln(stderr, strings.TrimRight(msg, "\n"))
	}
	return exitCode(err)
}
