package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestHelp checks the --help of every command: a usage line, a
// description of what the command is for, flag placeholders that say what
// to give (not urfave's "value") and no "(default: 0)" on flags whose zero
// means "not given".
func TestHelp(t *testing.T) {
	var walk func(path []string, cmds []*cli.Command)
	placeholder := regexp.MustCompile(`(?m)^\s+--?[a-z-]+(, -[a-z])? value\b`)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Name == "help" {
				continue
			}
			p := append(append([]string{}, path...), c.Name)
			var out, errb bytes.Buffer
			if code := run(append(append([]string{"gpuwcet"}, p...), "--help"), &out, &errb); code != 0 {
				t.Errorf("gpuwcet %s --help: exit %d: %s", strings.Join(p, " "), code, errb.String())
				continue
			}
			help := out.String()
			name := strings.Join(p, " ")
			// (Commands are package variables that urfave/cli updates on
			// each in-process run, which may repeat the program name.)
			if !regexp.MustCompile(`USAGE:\n   (gpuwcet )+` + regexp.QuoteMeta(name) + ` `).MatchString(help) {
				t.Errorf("gpuwcet %s --help: no usage line:\n%s", name, help)
			}
			if c.Description == "" {
				t.Errorf("gpuwcet %s: no description of what the command is for", name)
			}
			if m := placeholder.FindString(help); m != "" {
				t.Errorf("gpuwcet %s --help: flag without a placeholder name: %q", name, strings.TrimSpace(m))
			}
			for _, line := range strings.Split(help, "\n") {
				if strings.Contains(line, "(default: 0)") && !strings.Contains(line, "--budget") {
					t.Errorf("gpuwcet %s --help: %q", name, strings.TrimSpace(line))
				}
			}
			walk(p, c.Subcommands)
		}
	}
	walk(nil, commands())
}

// TestHelpCommand: the help command listed in every command list is
// accepted at the top level as at every level below it.
func TestHelpCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"help"}, 0, "help, h"},
		{[]string{"h"}, 0, "COMMANDS:"},
		{[]string{"help", "analyze"}, 0, "gpuwcet analyze - "},
		{[]string{"hw", "help"}, 0, "help, h"},
		{[]string{"help", "nosuch"}, 1, `unknown command "nosuch"`},
		{[]string{"hw", "help", "nosuch"}, 1, `unknown command "nosuch"`},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"gpuwcet"}, tc.args...), &out, &errb)
		if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.want) {
			t.Errorf("gpuwcet %s: exit %d (want %d), output lacks %q:\n%s%s", strings.Join(tc.args, " "), code, tc.code, tc.want, out.String(), errb.String())
		}
	}
}
