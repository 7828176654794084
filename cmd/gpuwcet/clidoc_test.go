package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

const (
	cliDocPath  = "../../docs/cli.md"
	cliDocBegin = "<!-- BEGIN GENERATED: go test ./cmd/gpuwcet -run TestCLIDoc -update -->\n"
	cliDocEnd   = "<!-- END GENERATED -->\n"
)

// TestCLIDoc keeps the command reference of docs/cli.md equal to the
// application's own description of its commands and flags. Run with -update
// to rewrite it after changing a command.
func TestCLIDoc(t *testing.T) {
	md, err := newApp(io.Discard, io.Discard).ToMarkdown()
	if err != nil {
		t.Fatal(err)
	}
	// The generated document starts at heading level 1; nest it under the
	// "Command reference" section.
	var gen strings.Builder
	for _, line := range strings.SplitAfter(md, "\n") {
		if strings.HasPrefix(line, "#") {
			line = "##" + line
		}
		gen.WriteString(line)
	}
	want := strings.TrimRight(gen.String(), "\n") + "\n"

	data, err := os.ReadFile(cliDocPath)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(cliDocBegin))
	j := bytes.Index(data, []byte(cliDocEnd))
	if i < 0 || j < i {
		t.Fatalf("%s: markers %q and %q not found", cliDocPath, cliDocBegin, cliDocEnd)
	}
	got := string(data[i+len(cliDocBegin) : j])
	if got == want {
		return
	}
	if *txtar.Update {
		out := append(append(append([]byte{}, data[:i+len(cliDocBegin)]...), want...), data[j:]...)
		if err := os.WriteFile(cliDocPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the command reference is out of date; run go test ./cmd/gpuwcet -run TestCLIDoc -update", cliDocPath)
}
