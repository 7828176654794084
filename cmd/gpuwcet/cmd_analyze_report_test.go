package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound/report"
	"github.com/gpuwcet/gpuwcet/cfg/assume"
)

// Goldens must not depend on the Go toolchain that runs the tests.
func init() {
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.24", Main: debug.Module{Path: "github.com/gpuwcet/gpuwcet", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"}}}, true
	}
}

// reportCase is one analyze run whose outputs are checked.
type reportCase struct {
	name     string
	args     []string // after "analyze"
	code     int
	statuses map[string]string // kernel -> scope status
	rules    []string          // rule ids that must appear in the diagnostics
}

var reportCases = []reportCase{
	{"reduce", []string{"--hw", "ecrts25-orin-200", "--block", "256", "../../examples/reduce/kernel.ptx"}, 0,
		map[string]string{"blocksum": report.StatusBounded}, nil},
	{"deadline", []string{"--hw", "rtx3070", "--block", "256", "--deadline", "1000", "../../examples/saxpy/kernel.ptx"}, 3,
		map[string]string{"saxpy": report.StatusBounded}, []string{"over-deadline"}},
	{"within", []string{"--hw", "rtx3070", "--block", "256", "--deadline", "100000", "../../examples/saxpy/kernel.ptx"}, 0,
		map[string]string{"saxpy": report.StatusBounded}, nil},
	{"spin", []string{"--hw", "rtx3070", "--block", "64", "testdata/analyze/spin.ptx"}, 2,
		map[string]string{"spin": report.StatusNotBounded}, []string{"unbounded-loop"}},
	{"irreducible", []string{"--hw", "rtx3070", "--block", "64", "testdata/analyze/irreducible.ptx"}, 2,
		map[string]string{"irr": report.StatusNotBounded}, []string{"irreducible-loop"}},
	{"no-arg", []string{"--hw", "rtx3070", "--block", "256", "../../examples/counted-loop/kernel.ptx"}, 1,
		map[string]string{"colsum": report.StatusError}, []string{"missing-argument"}},
	{"device-call", []string{"--hw", "rtx3070", "--block", "256", "../../examples/device-call/kernel.ptx"}, 0, nil, nil},
}

// runReports runs analyze with every output file requested and returns
// the files by flag name, standard output and the exit code.
func runReports(t *testing.T, dir string, args []string) (map[string][]byte, string, int) {
	t.Helper()
	files := map[string]string{"report-json": "r.json", "report": "r.md", "sarif": "r.sarif", "junit": "r.xml"}
	argv := []string{"gpuwcet", "analyze"}
	for _, flag := range []string{"report-json", "report", "sarif", "junit"} {
		argv = append(argv, "--"+flag, filepath.Join(dir, files[flag]))
	}
	argv = append(argv, args...)
	var out, errb bytes.Buffer
	code := run(argv, &out, &errb)
	got := map[string][]byte{}
	for flag, name := range files {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%v: %s not written: %v (stderr %s)", args, flag, err, errb.String())
		}
		got[flag] = data
	}
	return got, out.String(), code
}

// TestAnalyzeReports: every output in one run; exit codes unchanged; the
// JSON parses strictly, carries the checklist items and verifies; SARIF
// and JUnit are valid and agree with it; two runs give the same bytes.
func TestAnalyzeReports(t *testing.T) {
	for _, tc := range reportCases {
		t.Run(tc.name, func(t *testing.T) {
			var plainOut, plainErr bytes.Buffer
			plain := run(append([]string{"gpuwcet", "analyze"}, tc.args...), &plainOut, &plainErr)
			if plain != tc.code {
				t.Fatalf("exit %d without report flags, want %d: %s", plain, tc.code, plainErr.String())
			}
			dir := t.TempDir()
			files, stdout, code := runReports(t, dir, tc.args)
			if code != tc.code {
				t.Errorf("exit %d with report flags, want %d", code, tc.code)
			}
			if stdout != plainOut.String() {
				t.Errorf("standard output changed by the report flags:\n%s\nwant:\n%s", stdout, plainOut.String())
			}
			// Determinism: the same command line gives the same bytes.
			again, _, _ := runReports(t, dir, tc.args)
			for flag, data := range files {
				if !bytes.Equal(data, again[flag]) {
					t.Errorf("--%s: two runs differ", flag)
				}
			}
			r := checkJSONReport(t, files["report-json"], tc)
			checkSARIF(t, files["sarif"], r)
			checkJUnit(t, files["junit"], r, tc)
			md := string(files["report"])
			for i, h := range []string{"Identification", "Input manifest", "Scope", "Assumptions", "Results", "Breakdown", "Diagnostics", "Traceability", "Cross-check evidence", "Integrity"} {
				if want := fmt.Sprintf("\n## %d. %s\n", i+1, h); !strings.Contains(md, want) {
					t.Errorf("Markdown: no heading %q", want)
				}
			}
			if !strings.Contains(md, r.ReportSHA256) {
				t.Errorf("Markdown: no report hash")
			}
			// The renderings are functions of the JSON report alone.
			for flag, write := range map[string]func(io.Writer, *report.Report) error{"report": report.WriteMarkdown, "sarif": report.WriteSARIF, "junit": report.WriteJUnit} {
				var b bytes.Buffer
				if err := write(&b, r); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(b.Bytes(), files[flag]) {
					t.Errorf("--%s is not the rendering of the JSON report", flag)
				}
			}
			// --format json writes the report on standard output.
			var out, e bytes.Buffer
			run(append([]string{"gpuwcet", "analyze", "--format", "json"}, tc.args...), &out, &e)
			if err := report.Verify(out.Bytes()); err != nil {
				t.Errorf("--format json: %v", err)
			}
		})
	}
}

func checkJSONReport(t *testing.T, data []byte, tc reportCase) *report.Report {
	t.Helper()
	r, err := report.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	// Integrity: recompute the hash independently of package report.
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	delete(m, "report_sha256")
	var canon bytes.Buffer
	enc := json.NewEncoder(&canon)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(bytes.TrimSuffix(canon.Bytes(), []byte("\n")))
	if got := hex.EncodeToString(sum[:]); got != r.ReportSHA256 || len(got) != 64 {
		t.Errorf("report_sha256 %s, recomputed %s", r.ReportSHA256, got)
	}
	if err := report.Verify(data); err != nil {
		t.Error(err)
	}
	tampered := bytes.Replace(data, []byte(`"bound_cycles": `), []byte(`"bound_cycles": 1`), 1)
	if !bytes.Equal(tampered, data) && report.Verify(tampered) == nil {
		t.Error("a tampered report verifies")
	}

	if r.SchemaVersion != report.SchemaVersion || r.Tool.Name != "gpuwcet" || r.Tool.Version != version || r.Tool.Module == "" {
		t.Errorf("identification: %+v", r.Tool)
	}
	if want := append([]string{"gpuwcet", "analyze"}, tc.args...); !slices.Equal(r.CommandLine[:2], want[:2]) || r.CommandLine[len(r.CommandLine)-1] != want[len(want)-1] {
		t.Errorf("command_line %q", r.CommandLine)
	}
	for _, in := range r.Inputs {
		src, err := os.ReadFile(in.Path)
		if err != nil {
			t.Fatal(err)
		}
		if s := sha256.Sum256(src); hex.EncodeToString(s[:]) != in.SHA256 {
			t.Errorf("input %s: sha256 %s is not the file's", in.Path, in.SHA256)
		}
	}
	if r.HW.SHA256 == "" || r.Clock.MHz != r.HW.ClockMHz || r.Scope.Unit == "" || len(r.Scope.Exclusions) == 0 {
		t.Errorf("hw/clock/scope incomplete: %+v %+v %+v", r.HW, r.Clock, r.Scope)
	}
	checkAssumptions(t, r)
	if r.Summary.ExitCode != tc.code || r.Summary.Kernels != len(r.Scope.Kernels) || r.Summary.Bounded != len(r.Kernels) {
		t.Errorf("summary %+v (exit %d, %d kernels, %d bounded)", r.Summary, tc.code, len(r.Scope.Kernels), len(r.Kernels))
	}
	for name, st := range tc.statuses {
		found := false
		for _, k := range r.Scope.Kernels {
			if k.Name == name {
				found = true
				if k.Status != st {
					t.Errorf("kernel %s: status %s, want %s", name, k.Status, st)
				}
			}
		}
		if !found {
			t.Errorf("kernel %s not in scope", name)
		}
	}
	for _, k := range r.Kernels {
		if k.Deadline != nil && (k.MarginCycles == nil || *k.MarginCycles != *k.Deadline-k.BoundCycles) {
			t.Errorf("kernel %s: margin %v", k.Name, k.MarginCycles)
		}
	}
	for _, rule := range tc.rules {
		if !slices.ContainsFunc(r.Diagnostics, func(d report.Diagnostic) bool { return d.Rule == rule }) {
			t.Errorf("no %s diagnostic in %+v", rule, r.Diagnostics)
		}
	}
	return r
}

// checkSARIF validates the fields SARIF 2.1.0 requires (sarifLog: version,
// runs; run: tool; tool: driver; toolComponent: name; reportingDescriptor:
// id; result: message; invocation: executionSuccessful; region lines and
// columns >= 1) on the generic JSON, and what gpuwcet promises: rule ids
// unique and referenced ones defined, locations in the listing, one
// result per diagnostic, fingerprints.
func checkSARIF(t *testing.T, data []byte, r *report.Report) {
	t.Helper()
	var log map[string]any
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("SARIF: %v", err)
	}
	if log["version"] != "2.1.0" {
		t.Errorf("SARIF version %v", log["version"])
	}
	runs, _ := log["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("SARIF: %d runs", len(runs))
	}
	run := runs[0].(map[string]any)
	driver, _ := dig(run, "tool", "driver").(map[string]any)
	if name, _ := driver["name"].(string); name != "gpuwcet" {
		t.Errorf("SARIF driver name %v", driver["name"])
	}
	rules, _ := driver["rules"].([]any)
	ids := map[string]int{}
	for i, x := range rules {
		id, _ := x.(map[string]any)["id"].(string)
		if id == "" {
			t.Errorf("rule %d without id", i)
		}
		if _, dup := ids[id]; dup {
			t.Errorf("rule %s defined twice", id)
		}
		ids[id] = i
	}
	for _, inv := range run["invocations"].([]any) {
		if _, ok := inv.(map[string]any)["executionSuccessful"].(bool); !ok {
			t.Error("invocation without executionSuccessful")
		}
	}
	results, _ := run["results"].([]any)
	if len(results) != len(r.Diagnostics) {
		t.Errorf("%d SARIF results, %d diagnostics", len(results), len(r.Diagnostics))
	}
	for i, x := range results {
		res := x.(map[string]any)
		id, _ := res["ruleId"].(string)
		idx, ok := ids[id]
		if !ok {
			t.Errorf("result %d: rule %q not defined", i, id)
		}
		if ri, _ := res["ruleIndex"].(float64); int(ri) != idx {
			t.Errorf("result %d: ruleIndex %v, rule %s is at %d", i, res["ruleIndex"], id, idx)
		}
		if text, _ := dig(res, "message", "text").(string); text == "" {
			t.Errorf("result %d: no message.text", i)
		}
		if lv := res["level"]; !slices.Contains([]any{"none", "note", "warning", "error"}, lv) {
			t.Errorf("result %d: level %v", i, lv)
		}
		if fp, _ := res["partialFingerprints"].(map[string]any); len(fp) == 0 {
			t.Errorf("result %d: no partialFingerprints", i)
		}
		locs, _ := res["locations"].([]any)
		if len(locs) == 0 {
			t.Errorf("result %d (%s): no location", i, id)
		}
		for _, l := range locs {
			pl := l.(map[string]any)["physicalLocation"].(map[string]any)
			uri, _ := dig(pl, "artifactLocation", "uri").(string)
			u, err := url.Parse(uri)
			if uri == "" || err != nil {
				t.Errorf("result %d: uri %q: %v", i, uri, err)
				continue
			}
			line, _ := dig(pl, "region", "startLine").(float64)
			col, hasCol := dig(pl, "region", "startColumn").(float64)
			if line < 1 || hasCol && col < 1 {
				t.Errorf("result %d: region %v", i, pl["region"])
			}
			src, err := os.ReadFile(u.Path)
			if err != nil {
				t.Errorf("result %d: %v", i, err)
				continue
			}
			if n := bytes.Count(src, []byte("\n")) + 1; int(line) > n {
				t.Errorf("result %d: line %v beyond the %d lines of %s", i, line, n, uri)
			}
		}
	}
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

type junitDoc struct {
	XMLName xml.Name `xml:"testsuites"`
	Tests   int      `xml:"tests,attr"`
	Suites  []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Errors   int    `xml:"errors,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// checkJUnit parses the JUnit XML back: one suite per hardware
// description, one case per kernel, failure/skipped/error as the report.
func checkJUnit(t *testing.T, data []byte, r *report.Report, tc reportCase) {
	t.Helper()
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	if len(doc.Suites) != 1 || doc.Suites[0].Name != r.HW.Name {
		t.Fatalf("JUnit: suites %+v, want one named %s", doc.Suites, r.HW.Name)
	}
	s := doc.Suites[0]
	if s.Tests != len(r.Scope.Kernels) || len(s.Cases) != s.Tests || doc.Tests != s.Tests {
		t.Errorf("JUnit: %d tests, %d cases, %d kernels", s.Tests, len(s.Cases), len(r.Scope.Kernels))
	}
	if !slices.ContainsFunc(s.Props, func(p struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}) bool {
		return p.Name == "hw.sha256" && p.Value == r.HW.SHA256
	}) {
		t.Error("JUnit: no hw.sha256 property")
	}
	var failures, skipped, errs int
	for i, c := range s.Cases {
		sk := r.Scope.Kernels[i]
		if c.Name != sk.Name {
			t.Errorf("JUnit case %d: %s, want %s", i, c.Name, sk.Name)
		}
		switch sk.Status {
		case report.StatusBounded:
			var k *report.Kernel
			for j := range r.Kernels {
				if r.Kernels[j].Name == sk.Name {
					k = &r.Kernels[j]
				}
			}
			if (c.Failure != nil) != (k.Verdict == "fail") {
				t.Errorf("JUnit case %s: failure %v, verdict %q", c.Name, c.Failure, k.Verdict)
			}
			if c.Failure != nil {
				failures++
				for _, want := range []string{itoa64(k.BoundCycles), itoa64(*k.Deadline), itoa64(*k.MarginCycles)} {
					if !strings.Contains(c.Failure.Message, want) {
						t.Errorf("JUnit failure %q lacks %s", c.Failure.Message, want)
					}
				}
			}
		case report.StatusNotBounded:
			// A failure, not <skipped>: dashboards show skipped tests
			// green (issue 9, item 15).
			if c.Failure == nil || c.Skipped != nil || !strings.Contains(c.Failure.Message, "not bounded") {
				t.Errorf("JUnit case %s: failure %+v, skipped %+v, want a not-bounded failure", c.Name, c.Failure, c.Skipped)
			}
			failures++
		default:
			if c.Error == nil {
				t.Errorf("JUnit case %s: no error", c.Name)
			}
			errs++
		}
	}
	if s.Failures != failures || s.Skipped != skipped || s.Errors != errs {
		t.Errorf("JUnit counts %d/%d/%d, cases %d/%d/%d", s.Failures, s.Skipped, s.Errors, failures, skipped, errs)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// checkAssumptions checks a report's assumptions against the ledger:
// numbered in order, each a ledger entry with its origin, basis and
// discharge, in ledger order; every assumption of every analyze run
// present; the version-1 list the texts of the analysis's, hardware's
// and inputs' ones.
func checkAssumptions(t *testing.T, r *report.Report) {
	t.Helper()
	rank := -1
	keys := map[string]bool{}
	var v1 []string
	for i, a := range r.NumberedAssumptions {
		e, ok := assume.Get(a.Key)
		if a.ID != fmt.Sprintf("A%d", i+1) || a.Text == "" || !ok || a.Origin != e.Origin || a.Basis != e.Basis || a.Discharge != e.Discharge {
			t.Errorf("assumption %d: %+v", i, a)
		}
		if assume.Rank(a.Key) < rank {
			t.Errorf("%s (%s) is out of ledger order", a.ID, a.Key)
		}
		rank = assume.Rank(a.Key)
		keys[a.Key] = true
		switch a.Origin {
		case assume.OriginAnalysis, assume.OriginHardware, assume.OriginInput:
			v1 = append(v1, a.Text)
		}
	}
	for _, u := range assume.EveryAnalyze() {
		if !keys[u.ID] {
			t.Errorf("no %s", u.ID)
		}
	}
	if !slices.Equal(v1, r.Assumptions) {
		t.Errorf("assumptions %q, want the texts %q", r.Assumptions, v1)
	}
}
