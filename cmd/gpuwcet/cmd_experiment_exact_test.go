package main

import (
	"strings"
	"testing"
)

// TestExperimentExactSmall: the exact-worst-case experiment on 200 blocks:
// every block is explored within the budget, none is above the closed-form
// bound, and the summary has a row per dimension; the full table is in
// docs/validation.md (gpuwcet experiment exact).
func TestExperimentExactSmall(t *testing.T) {
	out, errs, code := runCmd(t, "experiment", "exact", "--blocks", "200", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	if !strings.Contains(out, "all,all,200,200,") {
		t.Errorf("want 200 blocks, all explored:\n%s", out)
	}
	for _, dim := range []string{"\nwarps,2,", "\nunits,3,", "\npath length,7+,", "\npipeline,barriers,"} {
		if !strings.Contains(out, dim) {
			t.Errorf("missing row %q in\n%s", dim, out)
		}
	}
	rows, err := exactExperiment(1, 200, exactConfig(4, 8, 3, 6, 12), 200000)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !r.Exact || r.Worst > r.Bound || r.Worst == 0 {
			t.Errorf("seed %d: exact %v worst %d bound %d", r.Seed, r.Exact, r.Worst, r.Bound)
		}
	}
	if _, _, code := runCmd(t, "experiment", "exact", "--warps", "1"); code != ExitBadInput {
		t.Errorf("--warps 1: exit %d, want %d", code, ExitBadInput)
	}
}
