package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAnalyzeWriteFull simulates a full disk on regular files: the command
// runs in a child process whose file-size limit (RLIMIT_FSIZE) is below the
// size of the JSON report, so that the write stops part-way (EFBIG), as on
// a full file system. The report files must hold their previous content or
// not exist, never a part, with no temporary file left behind, and the
// exit code is 1 although the analysis itself gives 3. Before, a truncated
// JSON was left and the exit code was 3.
func TestAnalyzeWriteFull(t *testing.T) {
	if dir := os.Getenv("GPUWCET_TEST_FSIZE_DIR"); dir != "" {
		lim := syscall.Rlimit{Cur: 2048, Max: 2048}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := run([]string{"gpuwcet", "analyze", "--hw", "rtx3070", "--block", "256", "--deadline", "10",
			"--report-json", filepath.Join(dir, "old.json"), "--report", filepath.Join(dir, "new.md"), "../../examples/saxpy/kernel.ptx"}, &out, &errb)
		os.Stderr.Write(errb.Bytes())
		os.Exit(code)
	}
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte("previous report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAnalyzeWriteFull$")
	cmd.Env = append(os.Environ(), "GPUWCET_TEST_FSIZE_DIR="+dir)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != ExitBadInput {
		t.Fatalf("child: %v, want exit 1; stderr:\n%s", err, errb.String())
	}
	for _, want := range []string{"--report-json: write " + old + ": file too large", "--report: write " + filepath.Join(dir, "new.md") + ": file too large", "exceeds the deadline"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if got, _ := os.ReadFile(old); string(got) != "previous report\n" {
		t.Errorf("old.json = %q, want its previous content", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.md")); err == nil {
		t.Errorf("new.md exists: a partial report was left")
	}
	assertNoTemp(t, dir)
}
