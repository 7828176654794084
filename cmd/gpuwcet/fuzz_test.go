package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound/report"
)

// FuzzAnalyze runs the whole pipeline of gpuwcet analyze (front end, CFG,
// loop bounds, facts, divergence, static analysis, the four reports) on a
// fuzzed listing and a fuzzed facts file. Whatever the input: no panic; an
// exit code of 0, 1 or 2; the JSON report written (also when the input
// does not parse), parsing strictly, verifying, and recording that exit
// code; the JUnit report valid XML; no temporary file left beside them.
func FuzzAnalyze(f *testing.F) {
	for _, p := range []string{"../../examples/saxpy/kernel.ptx", "../../examples/reduce/kernel.ptx", "../../examples/counted-loop/kernel.ptx",
		"../../examples/divergent/kernel.ptx", "../../examples/device-call/kernel.ptx", "testdata/analyze/spin.ptx", "testdata/analyze/serial.ptx"} {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, []byte(""))
	}
	f.Add([]byte(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tbra.uni L;\n\tret;\n"), []byte("version = 1\nx = {a = {b = 1}}\n"))
	f.Add([]byte("\tcode for sm_80\n\t\tFunction : k\n        /*0000*/                   EXIT ;\n"), []byte("version = 1\nsha256 = \"00\"\n[[kernel]]\nname = \"k\"\n"))
	f.Fuzz(func(t *testing.T, listing, facts []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "k.ptx")
		if err := os.WriteFile(in, listing, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"gpuwcet", "analyze", "--hw", "rtx3070", "--block", "64", "--max-input-size", "64KiB", "--max-warp-blocks", "2000",
			"--report-json", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "r.xml")}
		if len(facts) > 0 {
			fp := filepath.Join(dir, "f.toml")
			if err := os.WriteFile(fp, facts, 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, "--facts", fp)
		}
		var out, errb bytes.Buffer
		code := run(append(args, in), &out, &errb)
		if code < 0 || code > 2 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		if s := errb.String(); strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") {
			t.Fatalf("panic: %s", s)
		}
		data, err := os.ReadFile(filepath.Join(dir, "r.json"))
		if err != nil {
			t.Fatalf("exit %d, no JSON report: %v; stderr %s", code, err, errb.String())
		}
		r, err := report.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := report.Verify(data); err != nil {
			t.Fatal(err)
		}
		if r.Summary.ExitCode != code {
			t.Errorf("report records exit code %d, the run exited %d", r.Summary.ExitCode, code)
		}
		x, err := os.ReadFile(filepath.Join(dir, "r.xml"))
		if err != nil {
			t.Fatal(err)
		}
		var ju report.JUnitSuites
		if err := xml.Unmarshal(x, &ju); err != nil {
			t.Fatalf("JUnit: %v", err)
		}
		if code != 0 && ju.Failures+ju.Errors == 0 {
			t.Errorf("exit %d but JUnit shows no failure or error", code)
		}
		assertNoTemp(t, dir)
	})
}
