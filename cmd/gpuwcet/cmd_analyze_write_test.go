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

// reportFlags returns the four report flags writing into dir.
func reportFlags(dir string) []string {
	return []string{"--report-json", filepath.Join(dir, "r.json"), "--report", filepath.Join(dir, "r.md"),
		"--sarif", filepath.Join(dir, "r.sarif"), "--junit", filepath.Join(dir, "r.xml")}
}

// TestAnalyzeReportOnBadInput: the report files are written even when the
// run stops before any kernel (a listing that does not parse, an unknown
// description, a facts file that does not decode), with the error in them
// (docs/report.md: CI steps upload them). Before, no file was written.
func TestAnalyzeReportOnBadInput(t *testing.T) {
	dir := t.TempDir()
	trunc := filepath.Join(dir, "trunc.ptx")
	if err := os.WriteFile(trunc, []byte(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tbra.uni LBB0_4;\n\tret;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badFacts := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(badFacts, []byte("version = 1\nsha256 = \"x\"\nmaxx = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string // in the JSON report's errors, in order
		loc  *report.Location
	}{
		{"parse", []string{"--hw", "rtx3070", "--block", "32", trunc}, []string{"trunc.ptx:6:10: undefined label LBB0_4"}, &report.Location{URI: filepath.ToSlash(trunc), Line: 6, Column: 10}},
		{"hw", []string{"--hw", "nosuch", "--block", "32", trunc}, []string{`analyze: --hw: unknown hardware description "nosuch"`}, nil},
		{"facts", []string{"--hw", "rtx3070", "--block", "32", "--facts", badFacts, "../../examples/saxpy/kernel.ptx"}, []string{"bad.toml:3:1: unknown key \"maxx\""}, &report.Location{URI: filepath.ToSlash(badFacts), Line: 2, Column: 10}},
		{"usage", []string{"--hw", "rtx3070", "--block", "32", "a.ptx", "b.ptx"}, []string{"analyze: want exactly one INPUT, got 2"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"gpuwcet", "analyze", "--format", "json"}, reportFlags(out)...), tc.args...)
			if code := run(args, &stdout, &stderr); code != ExitBadInput {
				t.Fatalf("exit %d, want 1: %s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want[0]) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tc.want[0])
			}
			data, err := os.ReadFile(filepath.Join(out, "r.json"))
			if err != nil {
				t.Fatalf("JSON report not written: %v", err)
			}
			if !bytes.Equal(data, stdout.Bytes()) {
				t.Errorf("--format json on standard output differs from --report-json")
			}
			r, err := report.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if err := report.Verify(data); err != nil {
				t.Errorf("report hash: %v", err)
			}
			if r.Summary.Verdict != "error" || r.Summary.ExitCode != 1 || len(r.Errors) == 0 || !strings.Contains(strings.Join(r.Errors, "\n"), tc.want[0]) {
				t.Errorf("summary %+v, errors %q", r.Summary, r.Errors)
			}
			if len(r.Diagnostics) == 0 || r.Diagnostics[0].Rule != "input-error" {
				t.Fatalf("diagnostics %+v, want input-error first", r.Diagnostics)
			}
			if tc.loc != nil {
				found := false
				for _, d := range r.Diagnostics {
					found = found || d.Location != nil && d.Location.URI == tc.loc.URI && d.Location.Line > 0
				}
				if !found {
					t.Errorf("no diagnostic located in %s: %+v", tc.loc.URI, r.Diagnostics)
				}
			}
			// JUnit: one test case in error (a CI dashboard shows red).
			x, err := os.ReadFile(filepath.Join(out, "r.xml"))
			if err != nil {
				t.Fatal(err)
			}
			var ju report.JUnitSuites
			if err := xml.Unmarshal(x, &ju); err != nil {
				t.Fatal(err)
			}
			if ju.Errors != 1 || len(ju.Suites) != 1 || len(ju.Suites[0].Cases) != 1 || ju.Suites[0].Cases[0].Error == nil {
				t.Errorf("JUnit %+v, want one test case in error", ju)
			}
			s, err := os.ReadFile(filepath.Join(out, "r.sarif"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(s), `"executionSuccessful": false`) || !strings.Contains(string(s), `"ruleId": "input-error"`) {
				t.Errorf("SARIF lacks the failed invocation or the input-error result:\n%s", s)
			}
			md, err := os.ReadFile(filepath.Join(out, "r.md"))
			if err != nil || !strings.Contains(string(md), "**ERROR**") {
				t.Errorf("Markdown report: %v\n%s", err, md)
			}
		})
	}
}

// TestAnalyzeOutputIsInput: a report path that is an input (the listing,
// the facts file, through another name or a link) or another report is an
// error before anything is written; before, --report-json k.ptx k.ptx
// replaced the listing.
func TestAnalyzeOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/saxpy/kernel.ptx")
	if err != nil {
		t.Fatal(err)
	}
	k := filepath.Join(dir, "k.ptx")
	if err := os.WriteFile(k, src, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.ptx")
	if err := os.Symlink(k, link); err != nil {
		t.Fatal(err)
	}
	facts := filepath.Join(dir, "f.toml")
	if err := os.WriteFile(facts, []byte("version = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"gpuwcet", "analyze", "--hw", "rtx3070", "--block", "32"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--report-json", k, k}, "--report-json " + k + " is also the input " + k},
		{[]string{"--junit", "./" + filepath.Base(k), k}, "is also the input"},
		{[]string{"--sarif", link, k}, "--sarif " + link + " is also the input " + k},
		{[]string{"--report", facts, "--facts", facts, k}, "is also the input " + facts},
		{[]string{"--report", filepath.Join(dir, "r"), "--sarif", filepath.Join(dir, "r"), k}, "--sarif " + filepath.Join(dir, "r") + " is also --report " + filepath.Join(dir, "r")},
	} {
		var out, errb bytes.Buffer
		wd, _ := os.Getwd()
		if strings.HasPrefix(tc.args[1], "./") {
			if err := os.Chdir(dir); err != nil {
				t.Fatal(err)
			}
		}
		code := run(append(base, tc.args...), &out, &errb)
		if err := os.Chdir(wd); err != nil {
			t.Fatal(err)
		}
		if code != ExitBadInput || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 1 and %q", tc.args, code, errb.String(), tc.want)
		}
		if got, _ := os.ReadFile(k); !bytes.Equal(got, src) {
			t.Fatalf("%v: the listing was overwritten", tc.args)
		}
		if got, _ := os.ReadFile(facts); string(got) != "version = 1\n" {
			t.Fatalf("%v: the facts file was overwritten", tc.args)
		}
		if _, err := os.Stat(filepath.Join(dir, "r")); err == nil {
			t.Fatalf("%v: a report was written", tc.args)
		}
	}
}

// TestAnalyzeWriteFailure: a report that cannot be written is exit code 1
// even when the analysis's own code is 2 (not bounded) or 3 (over the
// deadline), which used to hide the failure; the other reports are still
// written whole.
func TestAnalyzeWriteFailure(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"directory, not bounded", []string{"--hw", "rtx3070", "--block", "64", "--report-json", dir, "--junit", filepath.Join(dir, "r.xml"), "testdata/analyze/spin.ptx"},
			"--report-json: write " + dir + ": is a directory"},
		{"missing directory, over the deadline", []string{"--hw", "rtx3070", "--block", "256", "--deadline", "10", "--sarif", filepath.Join(dir, "no", "r.sarif"), "--junit", filepath.Join(dir, "r.xml"), "../../examples/saxpy/kernel.ptx"},
			"--sarif: write " + filepath.Join(dir, "no", "r.sarif") + ": no such file or directory"},
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		cases = append(cases, struct {
			name string
			args []string
			want string
		}{"disk full, over the deadline", []string{"--hw", "rtx3070", "--block", "256", "--deadline", "10", "--report", "/dev/full", "--junit", filepath.Join(dir, "r.xml"), "../../examples/saxpy/kernel.ptx"},
			"--report: write /dev/full: no space left on device"})
	}
	for _, tc := range cases {
		os.Remove(filepath.Join(dir, "r.xml"))
		var out, errb bytes.Buffer
		code := run(append([]string{"gpuwcet", "analyze"}, tc.args...), &out, &errb)
		if code != ExitBadInput || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q, want 1 and %q", tc.name, code, errb.String(), tc.want)
		}
		if x, err := os.ReadFile(filepath.Join(dir, "r.xml")); err != nil || !bytes.HasSuffix(x, []byte("</testsuites>\n")) {
			t.Errorf("%s: the JUnit report was not written whole: %v", tc.name, err)
		}
	}
	assertNoTemp(t, dir)
}

// assertNoTemp fails if dir holds a temporary file of writeFile.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
