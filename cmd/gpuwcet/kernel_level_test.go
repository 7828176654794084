package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound/kernel"
	"github.com/gpuwcet/gpuwcet/bound/report"
	"github.com/gpuwcet/gpuwcet/bound/taskmodel"
)

// TestKernelLevelBadInput: the kernel level's bad inputs exit 1 with a
// message saying what is wrong, never a clamped value.
func TestKernelLevelBadInput(t *testing.T) {
	dir := t.TempDir()
	const (
		saxpy  = "../../examples/saxpy/kernel.ptx"
		reduce = "../../examples/reduce/kernel.ptx"
	)
	src, err := os.ReadFile(saxpy)
	if err != nil {
		t.Fatal(err)
	}
	// saxpy using a dynamic shared array.
	dyn := strings.Replace(string(src), ".visible .entry", ".extern .shared .align 4 .b8 dynsmem[];\n\n.visible .entry", 1)
	dyn = strings.Replace(dyn, "\tret;", "\tmov.u64 \t%rd9, dynsmem;\n\tret;", 1)
	dynFile := filepath.Join(dir, "dyn.ptx")
	if err := os.WriteFile(dynFile, []byte(dyn), 0o644); err != nil {
		t.Fatal(err)
	}
	plat := filepath.Join(dir, "p.toml")
	if err := os.WriteFile(plat, []byte("name = \"p\"\narch = \"sm_80\"\nsms = 8\nclock_mhz = 1000\nsourc = \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := func(s ...string) []string { return append([]string{"analyze", "--hw", "rtx3070"}, s...) }
	for _, tt := range []struct {
		args []string
		want string
	}{
		{a("--block", "256", "--platform", "jetson-tx2", saxpy), "--platform needs --grid"},
		{a("--block", "256", "--sms", "2", saxpy), "--sms needs --grid"},
		{a("--block", "256", "--grid", "64", "--platform", "jetson-tx2", reduce), "is PTX for sm_80, which cannot be compiled for sm_62"},
		{a("--block", "256", "--grid", "64", "--arch", "sm_99", "--sms", "2", saxpy), `unknown architecture "sm_99"`},
		{a("--block", "256", "--grid", "64", "--arch", "sm_86", "--platform", "jetson-tx2", saxpy), "--arch sm_86: platform jetson-tx2 is sm_62"},
		{a("--block", "256", "--grid", "2147483648", "--arch", "sm_80", "--sms", "8", saxpy), "grid dimension x is 2147483648: sm_80 allows at most 2147483647"},
		{a("--block", "256", "--grid", "1x65536", "--arch", "sm_80", "--sms", "8", saxpy), "grid dimension y is 65536: sm_80 allows at most 65535"},
		{a("--block", "1x1x65", "--grid", "4", "--arch", "sm_80", "--sms", "8", saxpy), "block dimension z is 65: sm_80 allows at most 64"},
		{a("--block", "1024", "--grid", "4", "--arch", "sm_80", "--sms", "8", "--regs", "128", saxpy), "does not fit on one sm_80 SM: the registers limit allows 0 blocks"},
		{a("--block", "256", "--grid", "4", "--arch", "sm_80", "--sms", "8", "--dynamic-smem", "200000", saxpy), "exceeds sm_80's 167936 bytes per block"},
		{a("--block", "256", "--grid", "4", "--arch", "sm_86", "--sms", "2", "--dynamic-smem", "110000", saxpy), "exceeds sm_86's 102400 bytes per block"},
		{a("--block", "256", "--grid", "4", "--platform", "jetson-agx-orin", "--sms", "20", saxpy), "--sms 20: platform jetson-agx-orin has 16 SMs"},
		{a("--block", "256", "--grid", "4", "--arch", "sm_80", "--sms", "8", "--regs", "300", saxpy), "--regs 300: want 1 to 255"},
		{a("--block", "256", "--grid", "4", "--arch", "sm_80", "--sms", "0", saxpy), "--sms 0: want at least 1"},
		{a("--block", "256", "--grid", "4", "--arch", "sm_80", "--sms", "8", "--dynamic-smem", "-1", saxpy), "--dynamic-smem -1: want at least 0 bytes"},
		{a("--block", "256", "--grid", "4", "--arch", "sm_80", "--sms", "8", dynFile), "uses dynamic shared memory (.extern .shared dynsmem at " + dynFile},
		{a("--block", "256", "--grid", "4", "--platform", "nosuch", saxpy), `unknown platform "nosuch"`},
		{a("--block", "256", "--grid", "4", "--platform", plat, saxpy), `p.toml:5: unknown key "sourc" (did you mean "source"?)`},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"gpuwcet"}, tt.args...), &out, &errb)
		if code != ExitBadInput || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("gpuwcet %s: exit %d, stderr %q; want exit 1 and %q", strings.Join(tt.args, " "), code, errb.String(), tt.want)
		}
		if strings.Contains(errb.String(), "panic") {
			t.Errorf("gpuwcet %s: panic:\n%s", strings.Join(tt.args, " "), errb.String())
		}
	}
}

// TestKernelLevelJSON: the JSON report carries the kernel level and the
// lower bound, consistent with each other: bound(k) for k = 1 … SMs,
// lower ≤ upper, non-increasing in k, the co-resident bounds for m = 1 …
// occupancy hi; without an SM count the kernel level is "not computed"
// and says why.
func TestKernelLevelJSON(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"gpuwcet", "analyze", "--hw", "ecrts25-orin-200", "--block", "256", "--grid", "40", "--platform", "jetson-agx-orin", "--regs", "24", "--format", "json", "../../examples/reduce/kernel.ptx"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	r, err := report.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	k := r.Kernels[0]
	if k.LowerBound == nil || k.LowerBound.Cycles <= 0 || k.LowerBound.Cycles > k.BoundCycles {
		t.Fatalf("lower bound %+v, bound %d", k.LowerBound, k.BoundCycles)
	}
	j := k.KernelLevel
	if j == nil || j.Status != kernel.StatusBounded || j.SMs != 16 || len(j.Bounds) != 16 || j.Blocks != 40 {
		t.Fatalf("kernel level: %+v", j)
	}
	if j.BlockBound != k.BoundCycles || j.BlockLower != k.LowerBound.Cycles || j.Occupancy.Regs != "24" || len(j.CoResident) != j.Occupancy.Hi {
		t.Errorf("kernel level inconsistent with the block: %+v", j)
	}
	for i, p := range j.Bounds {
		if p.SMs != i+1 || p.LowerCycles > p.UpperCycles || p.UpperCycles != p.HeadCycles+p.TailCycles {
			t.Errorf("bound(%d): %+v", i+1, p)
		}
		if i > 0 && (p.UpperCycles > j.Bounds[i-1].UpperCycles || p.LowerCycles > j.Bounds[i-1].LowerCycles) {
			t.Errorf("bound(%d) %+v above bound(%d) %+v", p.SMs, p, i, j.Bounds[i-1])
		}
		if p.UpperNS <= 0 || p.TotalUpperNS != 0 {
			t.Errorf("bound(%d): ns %d, total %d (orin has no launch overhead)", p.SMs, p.UpperNS, p.TotalUpperNS)
		}
	}
	if !strings.Contains(strings.Join(j.Exclusions, "\n"), "launch overhead") {
		t.Errorf("exclusions %v do not name the launch overhead", j.Exclusions)
	}

	out.Reset()
	args = []string{"gpuwcet", "analyze", "--hw", "rtx3070", "--block", "256", "--grid", "64", "--format", "json", "../../examples/saxpy/kernel.ptx"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var raw struct {
		Kernels []struct {
			KernelLevel kernel.JSON `json:"kernel_level"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if kl := raw.Kernels[0].KernelLevel; kl.Status != kernel.StatusNotComputed || !strings.Contains(kl.Reason, "--platform or --sms") {
		t.Errorf("--grid without an SM count: %+v", kl)
	}
}

// TestKernelLevelTX2: a kernel for sm_62 on the TX2 preset: the launch
// overhead is in the totals, measured, so the result is conditional.
func TestKernelLevelTX2(t *testing.T) {
	src, err := os.ReadFile("../../examples/saxpy/kernel.ptx")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "saxpy62.ptx")
	if err := os.WriteFile(file, []byte(strings.Replace(string(src), ".target sm_80", ".target sm_62", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"gpuwcet", "analyze", "--hw", "rtx3070", "--block", "128", "--grid", "16", "--platform", "jetson-tx2", "--format", "json", file}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	r, err := report.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	j := r.Kernels[0].KernelLevel
	if j.Launch == nil || j.Launch.MaxNS != 49000 || j.Launch.Kind != "measured" || !j.Conditional || len(j.Bounds) != 2 {
		t.Fatalf("TX2 kernel level: %+v", j)
	}
	for _, p := range j.Bounds {
		if p.TotalUpperNS != p.UpperNS+49000 {
			t.Errorf("bound(%d): total %d, device %d + 49000", p.SMs, p.TotalUpperNS, p.UpperNS)
		}
	}
	if j.Occupancy.Regs != "0..255" || j.Occupancy.Lo > j.Occupancy.Hi {
		t.Errorf("occupancy without stated registers: %+v", j.Occupancy)
	}
}

// TestTaskModelExport: analyze --task-model and --mast write the kernel
// level of the JSON report; both files read back (strict JSON decoding,
// the MAST reader) give the report's numbers.
func TestTaskModelExport(t *testing.T) {
	dir := t.TempDir()
	tm, mast, rep := filepath.Join(dir, "tm.json"), filepath.Join(dir, "k.mast"), filepath.Join(dir, "r.json")
	var out, errb bytes.Buffer
	args := []string{"gpuwcet", "analyze", "--hw", "ecrts25-orin-200", "--block", "256", "--grid", "64", "--platform", "jetson-agx-orin", "--regs", "16", "--sms", "3",
		"--task-model", tm, "--mast", mast, "--report-json", rep, "../../examples/reduce/kernel.ptx"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	data, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	kl := r.Kernels[0].KernelLevel
	data, err = os.ReadFile(tm)
	if err != nil {
		t.Fatal(err)
	}
	m, err := taskmodel.ParseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	if m.ReportSHA256 != r.ReportSHA256 || len(m.Tasks) != 1 || len(m.Tasks[0].Times) != 3 {
		t.Fatalf("task model: %+v", m)
	}
	for i, tt := range m.Tasks[0].Times {
		p := kl.Bounds[i]
		if tt.SMs != p.SMs || tt.WCETNS != p.UpperNS || tt.BCETNS != p.LowerNS || tt.DeviceWCETCycles != p.UpperCycles {
			t.Errorf("task model time %+v, report %+v", tt, p)
		}
	}
	data, err = os.ReadFile(mast)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := taskmodel.ReadMAST(mast, data)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := taskmodel.MASTOperations(objs)
	if err != nil {
		t.Fatal(err)
	}
	last := kl.Bounds[2]
	if got := ops["blocksum"]; got != [2]float64{float64(last.UpperNS), float64(last.LowerNS)} {
		t.Errorf("MAST operation blocksum %v, want the report's bound on 3 SMs %d / %d ns", got, last.UpperNS, last.LowerNS)
	}
	// Without --grid there is nothing to export.
	errb.Reset()
	if code := run([]string{"gpuwcet", "analyze", "--hw", "rtx3070", "--block", "256", "--task-model", tm, "../../examples/saxpy/kernel.ptx"}, &out, &errb); code != ExitBadInput || !strings.Contains(errb.String(), "--task-model needs --grid") {
		t.Errorf("--task-model without --grid: exit %d, %s", code, errb.String())
	}
}
