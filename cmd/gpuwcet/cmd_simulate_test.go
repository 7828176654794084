package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func runCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"gpuwcet"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

// TestSimulatePaperFig2 checks the simulator on the paper's Figure 2/3
// kernel: 14 cycles alone, 17 under GTO (the paper's Figure 3 schedule),
// 18 under LRR, which is also the worst case found by the exhaustive
// search of bound/oracle_explore_test.go and by the adversarial policy.
func TestSimulatePaperFig2(t *testing.T) {
	const k = "../../examples/paper-fig2/kernel.ptx"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--policy", "lrr"}, "makespan 14 cycles"},
		{[]string{"--warps", "2", "--policy", "gto"}, "makespan 17 cycles"},
		{[]string{"--warps", "2", "--policy", "lrr"}, "makespan 18 cycles"},
		{[]string{"--warps", "2", "--policy", "adversarial"}, "makespan 18 cycles"},
		{[]string{"--warps", "2", "--policy", "random:5"}, "makespan "},
	} {
		args := append([]string{"simulate", "--hw", "paper-fig2"}, tc.args...)
		out, errs, code := runCmd(t, append(args, k)...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want %q in\n%s%s", tc.args, code, tc.want, out, errs)
		}
	}
	out, errs, code := runCmd(t, "simulate", "--hw", "paper-fig2", "--warps", "2", "--policy", "gto", "--format", "json", "--timeline", k)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var j struct {
		Makespan int64 `json:"makespan_cycles"`
		Timeline []struct {
			Warp   int
			Instrs []struct{ Issue, Start, Ready int64 }
		}
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Makespan != 17 || len(j.Timeline) != 2 {
		t.Fatalf("json: makespan %d, %d warps\n%s", j.Makespan, len(j.Timeline), out)
	}
	var got [][3]int64
	for _, in := range j.Timeline[1].Instrs {
		got = append(got, [3]int64{in.Issue, in.Start, in.Ready})
	}
	want := [][3]int64{{3, 3, 11}, {4, 7, 14}, {5, 10, 17}, {11, 11, 17}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("warp 1 timeline (-want +got):\n%s", d)
	}
}

func TestSimulateErrors(t *testing.T) {
	const k = "../../examples/paper-fig2/kernel.ptx"
	for _, args := range [][]string{
		{"simulate", "--hw", "paper-fig2", "--policy", "fifo", k},
		{"simulate", "--hw", "paper-fig2", "--policy", "random", k},
		{"simulate", "--hw", "paper-fig2", "--barriers", "never", k},
		{"simulate", "--hw", "no-such-hw", k},
		{"simulate", "--hw", "paper-fig2", "--format", "xml", k},
		{"simulate", "--hw", "paper-fig2", "--warps", "65", k},
		{"simulate", "--hw", "paper-fig2", "no-such-file.ptx"},
	} {
		_, errs, code := runCmd(t, args...)
		if code != ExitBadInput || !strings.HasPrefix(errs, "gpuwcet: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

func TestExperimentTightnessSmall(t *testing.T) {
	out, errs, code := runCmd(t, "experiment", "tightness", "--traces", "", "--kernels", "../../examples/paper-fig2/kernel.ptx",
		"--latencies", "5", "--hw-pattern", "paper-fig2", "--warps", "2", "--policies", "lrr,gto,adversarial", "--format", "blocks")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Fig. 2 with two warps: bound 20, paper GUB 23; LRR 18, GTO 17.
	for _, want := range []string{
		"5,lrr,paper-fig2/fig2,2,8,18,20,23,",
		"5,gto,paper-fig2/fig2,2,8,17,20,23,",
		"5,adversarial,paper-fig2/fig2,2,8,18,20,23,",
		"5,S.w.,paper-fig2/fig2,1,4,14,14,14,0.000000,0.000000",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

// TestSimulatePathsSeed: --paths-seed draws the block's execution through a
// kernel with branches from the instruction semantics (the divergent
// example: lanes 16-31 of every warp take the branch, so both sides run, in
// the order --order says) and --check-bound compares the makespan with the
// static bound of gpuwcet analyze.
func TestSimulatePathsSeed(t *testing.T) {
	const k = "../../examples/divergent/kernel.ptx"
	bound := ""
	for _, order := range []string{"taken-first", "fallthrough-first", "random", "gpgpusim"} {
		for _, seed := range []string{"1", "2", "3"} {
			out, errs, code := runCmd(t, "simulate", "--hw", "ecrts25-orin-200", "--block", "64", "--paths-seed", seed, "--order", order, "--check-bound", "--timeline", k)
			if code != 0 || !strings.Contains(out, "makespan within the bound") || !strings.Contains(out, "order "+order) {
				t.Fatalf("%s seed %s: exit %d\n%s%s", order, seed, code, out, errs)
			}
			if !strings.Contains(out, "div.rn.f32") || !strings.Contains(out, "fma.rn.f32") {
				t.Errorf("%s seed %s: a side is missing\n%s", order, seed, out)
			}
			i := strings.Index(out, "static bound ")
			b := strings.Fields(out[i:])[2]
			if bound != "" && b != bound {
				t.Errorf("static bound %s, then %s", bound, b)
			}
			bound = b
		}
	}
	// The side that runs first: the taken side (div) with taken-first and
	// gpgpusim (lanes 16-31 hold the highest lane, so the fall-through
	// group, lanes 0-15, runs first under gpgpusim: fma first).
	for order, first := range map[string]string{"taken-first": "div.rn.f32", "fallthrough-first": "fma.rn.f32", "gpgpusim": "fma.rn.f32"} {
		out, errs, code := runCmd(t, "simulate", "--hw", "ecrts25-orin-200", "--block", "32", "--paths-seed", "1", "--order", order, "--timeline", k)
		other := "fma.rn.f32"
		if first == other {
			other = "div.rn.f32"
		}
		if code != 0 || strings.Index(out, first) > strings.Index(out, other) {
			t.Errorf("%s: want %s before %s: exit %d\n%s%s", order, first, other, code, out, errs)
		}
	}
	// all: the four orders; exhaustive: both orders of the one divergence
	// of each warp (2 warps: 4 executions).
	out, errs, code := runCmd(t, "simulate", "--hw", "ecrts25-orin-200", "--block", "64", "--paths-seed", "1", "--order", "all", "--check-bound", k)
	if code != 0 || !strings.Contains(out, "longest of 4 executions") {
		t.Errorf("all: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = runCmd(t, "simulate", "--hw", "ecrts25-orin-200", "--block", "64", "--paths-seed", "1", "--order", "exhaustive", "--check-bound", k)
	if code != 0 || !strings.Contains(out, "longest of 4 executions (every order of the lane groups)") {
		t.Errorf("exhaustive: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = runCmd(t, "simulate", "--hw", "ecrts25-orin-200", "--block", "64", "--paths-seed", "1", "--order", "exhaustive", "--max-orders", "3", k)
	if code != 0 || !strings.Contains(out, "the first 3 orders of the lane groups") {
		t.Errorf("exhaustive, 3: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = runCmd(t, "simulate", "--hw", "ecrts25-orin-200", "--block", "64", "--paths-seed", "1", "--check-bound", "--format", "json", k)
	if code != 0 || !strings.Contains(out, `"static_bound_cycles": `+bound) || !strings.Contains(out, `"source": "simt seed 1, order taken-first"`) {
		t.Errorf("json: exit %d\n%s%s", code, out, errs)
	}
	// The counted loop with its trip count given: the loop runs 5 times.
	out, errs, code = runCmd(t, "simulate", "--hw", "ecrts25-orin-5", "--block", "32", "--arg", "colsum_param_2=5", "--paths-seed", "1", "--check-bound", "--timeline", "../../examples/counted-loop/kernel.ptx")
	if code != 0 || strings.Count(out, "ld.global.f32") != 5 {
		t.Errorf("counted loop: exit %d, want 5 loads\n%s%s", code, out, errs)
	}
}

func TestSimulatePathsSeedErrors(t *testing.T) {
	const k = "../../examples/divergent/kernel.ptx"
	for _, args := range [][]string{
		{"simulate", "--hw", "ecrts25-orin-200", "--paths-seed", "1", k},                                  // no --block
		{"simulate", "--hw", "ecrts25-orin-200", "--block", "64", k},                                      // --block without --paths-seed
		{"simulate", "--hw", "ecrts25-orin-200", "--block", "64", "--paths-seed", "1", "--warps", "2", k}, // --warps
		{"simulate", "--hw", "ecrts25-orin-200", "--block", "64", "--paths-seed", "1", "--order", "left", k},
		{"simulate", "--hw", "ecrts25-orin-200", "--block", "64", "--paths-seed", "1", "--order", "exhaustive", "--max-orders", "0", k},
		{"simulate", "--hw", "ecrts25-orin-200", "--block", "64", "--order", "gpgpusim", k},                                                       // --order without --paths-seed
		{"simulate", "--hw", "ecrts25-orin-200", "--block", "32", "--paths-seed", "1", "--check-bound", "../../examples/counted-loop/kernel.ptx"}, // loop without a bound
	} {
		_, errs, code := runCmd(t, args...)
		if code != ExitBadInput || !strings.HasPrefix(errs, "gpuwcet: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestExperimentSGEMMSmall: the SGEMM experiment on one latency and two
// warp counts; the full table is in docs/validation.md (gpuwcet experiment
// sgemm).
func TestExperimentSGEMMSmall(t *testing.T) {
	const ptx = "../../../shared/reference/sgemm/" + sgemmKernel + ".ptx"
	if _, err := os.Stat(ptx); err != nil {
		t.Skipf("shared data absent (%v): SGEMM experiment not run", err)
	}
	out, errs, code := runCmd(t, "experiment", "sgemm", "--ptx", ptx, "--latencies", "200", "--warps", "4,32", "--adversarial-warps", "4", "--budget", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	// Static bound = fixed-path bound (SGEMM has one path per warp), the
	// paper's value in the last column.
	for _, want := range []string{"| 200 | 4 | 26305 | 26305 | 26305 | 18698 | 24516 | 24516 |", "| 200 | 32 | 151213 | 151213 |", "40.40 %", "8.51 %"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}
