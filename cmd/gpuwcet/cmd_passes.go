package main

import (
	"flag"
	"fmt"
	"go/token"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

func passesCommand() *cli.Command {
	return &cli.Command{
		Name:  "passes",
		Usage: "list the registered analysis passes with their documentation and flags",
		Description: `The analyses (cfg, loops, divergence, phases, bound, static) are passes
run by one driver; this lists each with its one-line documentation, the
passes it requires and its flags.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "markdown", Usage: "print Markdown", Category: catOutput},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return codef(ExitBadInput, "passes takes no arguments")
			}
			if err := pass.Validate(suite); err != nil {
				return codef(ExitBadInput, "internal error: %v", err)
			}
			w := c.App.Writer
			md := c.Bool("markdown")
			for _, a := range pass.Closure(suite) {
				var reqs []string
				for _, r := range a.Requires {
					reqs = append(reqs, r.Name)
				}
				if md {
					fmt.Fprintf(w, "## %s\n\n%s\n\n", a.Name, strings.TrimSpace(a.Doc))
					if len(reqs) > 0 {
						fmt.Fprintf(w, "Requires: %s\n\n", strings.Join(reqs, ", "))
					}
				} else {
					fmt.Fprintf(w, "%s: %s\n", a.Name, a.Title())
					if len(reqs) > 0 {
						fmt.Fprintf(w, "  requires: %s\n", strings.Join(reqs, ", "))
					}
				}
				a.Flags.VisitAll(func(f *flag.Flag) {
					if md {
						fmt.Fprintf(w, "- `--%s.%s` (default %q): %s\n", a.Name, f.Name, f.DefValue, f.Usage)
					} else {
						fmt.Fprintf(w, "  --%s.%s (default %q): %s\n", a.Name, f.Name, f.DefValue, f.Usage)
					}
				})
				if md {
					fmt.Fprintln(w)
				}
			}
			return nil
		},
	}
}

// diagLine formats a pass diagnostic for standard error, one line:
// "file:line:col: severity: message (category)", the message with its
// call contexts (pass.Diagnostic.Text). A diagnostic without a
// position in the listing (its message names its own, e.g. a line of the
// facts file) starts with the severity.
func diagLine(fset *token.FileSet, d pass.Diagnostic) string {
	if pos := pass.Position(fset, d.Pos); pos.IsValid() {
		return fmt.Sprintf("%s: %s: %s (%s)\n", pos, d.Severity, d.Text(), d.Category)
	}
	return fmt.Sprintf("%s: %s (%s)\n", d.Severity, d.Text(), d.Category)
}
