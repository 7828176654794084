package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestReadmeQuickStart runs the README's first quick-start command in
// process and checks that the second one is the test command CI runs, so
// that a newcomer's path keeps working as the tool grows.
func TestReadmeQuickStart(t *testing.T) {
	cmds := readmeShell(t, "Quick start")
	if len(cmds) != 2 {
		t.Fatalf("Quick start has %d shell commands, want exactly 2: %q", len(cmds), cmds)
	}
	if cmds[1] != "go test ./..." {
		t.Errorf("second quick-start command is %q, want %q", cmds[1], "go test ./...")
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "\n"+cmds[1]+"\n") {
		t.Errorf(".ci/run does not run the README's test command %q", cmds[1])
	}
	const prefix = "go run ./cmd/gpuwcet "
	if !strings.HasPrefix(cmds[0], prefix) {
		t.Fatalf("first quick-start command %q does not start with %q", cmds[0], prefix)
	}
	t.Chdir("../..")
	args := append([]string{"gpuwcet"}, strings.Fields(strings.TrimPrefix(cmds[0], prefix))...)
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", cmds[0], code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "bound ") {
		t.Errorf("%s: no bound in the output:\n%s", cmds[0], out.String())
	}
}

// TestReadmeInstall: the module is not published, so the README's Install
// section installs from a clone (go install ./cmd/gpuwcet), not with
// "go install …@latest", which fails (issue 9, item 19).
func TestReadmeInstall(t *testing.T) {
	var cmds []string
	for _, block := range readmeShell(t, "Install") {
		cmds = append(cmds, strings.Split(block, "\n")...)
	}
	if !slices.Contains(cmds, "go install ./cmd/gpuwcet") {
		t.Errorf("Install commands %q lack %q", cmds, "go install ./cmd/gpuwcet")
	}
	for _, c := range cmds {
		if strings.Contains(c, "@latest") {
			t.Errorf("Install command %q needs a published module", c)
		}
	}
}

// readmeShell returns the bodies of the ```sh blocks of the README's
// section "## heading", trimmed.
func readmeShell(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no '## %s' section", heading)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var blocks []string
	for _, block := range strings.Split(section, "```sh\n")[1:] {
		body, _, _ := strings.Cut(block, "```")
		blocks = append(blocks, strings.TrimSpace(body))
	}
	return blocks
}
