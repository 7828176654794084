package report

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"
)

func sample() *Report {
	return &Report{SchemaVersion: SchemaVersion, Tool: Tool{Name: "gpuwcet", Version: "x"}, CommandLine: []string{"gpuwcet", "analyze", "a b.ptx"},
		Inputs: []Input{{Path: "a b.ptx", SHA256: "00", Kind: "ptx"}}, HW: HW{Name: "hw<1>", SHA256: "11", ClockMHz: 1000},
		Scope:   Scope{Kernels: []ScopeKernel{{Name: "k", Pos: "a b.ptx:3:1", Status: StatusBounded}, {Name: "u", Pos: "a b.ptx:9:1", Status: StatusNotBounded, Error: "no | bound"}}},
		Kernels: []Kernel{{Pos: "a b.ptx:3:1"}}, Errors: []string{}, Assumptions: []string{},
		Diagnostics: []Diagnostic{{Rule: "unbounded-loop", Level: LevelError, Message: "loop at line 12", Kernel: "u", Location: &Location{URI: "a b.ptx", Line: 12, Column: 2}},
			{Rule: "some-new-rule", Level: LevelNote, Message: "m"}},
		Summary: Summary{Kernels: 2, Bounded: 1, NotBounded: 1, Verdict: "not-bounded", ExitCode: 2},
	}
}

func TestSealVerifyParse(t *testing.T) {
	r := sample()
	r.Kernels[0].Name, r.Kernels[0].BoundCycles, r.Kernels[0].BoundNS = "k", 10000, new(int64)
	data, err := Seal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(data); err != nil {
		t.Fatal(err)
	}
	// The hash does not depend on formatting or member order.
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	compact, _ := json.Marshal(m)
	if err := Verify(compact); err != nil {
		t.Errorf("compact form: %v", err)
	}
	if err := Verify(bytes.Replace(data, []byte("10000"), []byte("10001"), 1)); err == nil {
		t.Error("a changed bound verifies")
	}
	if _, err := Parse(data); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(bytes.Replace(data, []byte(`"errors"`), []byte(`"errorz"`), 1)); err == nil {
		t.Error("an unknown field parses")
	}
	again, _ := Seal(r)
	if !bytes.Equal(data, again) {
		t.Error("Seal is not deterministic")
	}
}

func TestRulesSorted(t *testing.T) {
	if !sort.SliceIsSorted(Rules, func(i, j int) bool { return Rules[i].ID < Rules[j].ID }) {
		t.Fatal("Rules not sorted by id (ruleFor searches them)")
	}
	for _, id := range []string{"unbounded-loop", "irreducible-loop", "unresolved-indirect-branch", "barrier-divergence", "over-deadline", "unsupported-opcode", "annotation-below-derived"} {
		if ruleFor(id).Short == id {
			t.Errorf("rule %s not in the catalogue", id)
		}
	}
}

func TestRenderers(t *testing.T) {
	r := sample()
	r.Kernels[0].Name = "k"
	log := NewSARIF(r)
	res := log.Runs[0].Results
	if len(res) != 2 || res[1].RuleID != "some-new-rule" || log.Runs[0].Tool.Driver.Rules[res[1].RuleIndex].ID != "some-new-rule" {
		t.Errorf("SARIF results %+v", res)
	}
	if uri := res[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "a%20b.ptx" {
		t.Errorf("uri %q", uri)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "gpuwcet analyze 'a b.ptx'") || !strings.Contains(md.String(), "**NOT BOUNDED**") {
		t.Errorf("Markdown:\n%s", md.String())
	}
	j := NewJUnit(r)
	if j.Skipped != 0 || j.Failures != 1 || j.Suites[0].Cases[1].Failure == nil || j.Suites[0].Cases[1].Failure.Type != StatusNotBounded || j.Suites[0].Name != "hw<1>" {
		t.Errorf("JUnit %+v", j)
	}
}
