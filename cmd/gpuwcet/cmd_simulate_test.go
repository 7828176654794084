package main

import (
	"bytes"
	"encoding/json"
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
	// Fig. 2 with two warps: bound 28, paper GUB 23; LRR 18, GTO 17.
	for _, want := range []string{
		"5,lrr,paper-fig2/fig2,2,8,18,28,23,",
		"5,gto,paper-fig2/fig2,2,8,17,28,23,",
		"5,adversarial,paper-fig2/fig2,2,8,18,28,23,",
		"5,S.w.,paper-fig2/fig2,1,4,14,14,14,0.000000,0.000000",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}
