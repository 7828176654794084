package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeDot: analyze --dot writes the drawing cfg --bound prints
// (thread-level) and one per class (cfg --bound --warp), and Graphviz
// renders each (when installed).
func TestAnalyzeDot(t *testing.T) {
	for _, tc := range []struct {
		kernel, file string
		args         []string
		classes      int
	}{
		{"blocksum", "../../examples/reduce/kernel.ptx", []string{"--hw", "ecrts25-orin-200", "--block", "256"}, 2},
		{"branchy", "../../examples/divergent/kernel.ptx", []string{"--hw", "rtx3070", "--block", "64"}, 1},
	} {
		dir := t.TempDir()
		out, errs, code := runCmd(t, append(append([]string{"analyze", "--dot", dir}, tc.args...), tc.file)...)
		if code != 0 {
			t.Fatalf("analyze --dot: exit %d: %s%s", code, out, errs)
		}
		thread, _, _ := runCmd(t, append(append([]string{"cfg", "--format", "dot", "--bound"}, tc.args...), tc.file)...)
		warp, _, _ := runCmd(t, append(append([]string{"cfg", "--format", "dot", "--bound", "--warp"}, tc.args...), tc.file)...)
		got, err := os.ReadFile(filepath.Join(dir, tc.kernel+".dot"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != thread {
			t.Errorf("%s.dot is not cfg --bound's drawing", tc.kernel)
		}
		var classes []string
		for i := 0; i < tc.classes; i++ {
			c, err := os.ReadFile(filepath.Join(dir, tc.kernel+".class"+string(rune('0'+i))+".dot"))
			if err != nil {
				t.Fatal(err)
			}
			classes = append(classes, string(c))
		}
		if strings.Join(classes, "\n") != warp {
			t.Errorf("%s.classK.dot are not cfg --bound --warp's drawings", tc.kernel)
		}
		for _, want := range []string{"worst path: ×", "bound ", "cycles of load"} {
			if !strings.Contains(thread, want) {
				t.Errorf("%s: the drawing lacks %q", tc.kernel, want)
			}
		}
		if dotPath, err := exec.LookPath("dot"); err == nil {
			for _, src := range append(classes, thread) {
				cmd := exec.Command(dotPath, "-Tsvg")
				cmd.Stdin = strings.NewReader(src)
				var o, e bytes.Buffer
				cmd.Stdout, cmd.Stderr = &o, &e
				if err := cmd.Run(); err != nil || e.Len() > 0 {
					t.Errorf("dot -Tsvg: %v: %s", err, e.String())
				}
			}
		}
	}
}
