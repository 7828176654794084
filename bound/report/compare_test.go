package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/bound/pessimism"
	"github.com/gpuwcet/gpuwcet/bound/static"
)

func kernelWithSplit(name string, bound, isolated, control int64, items ...pessimism.Item) Kernel {
	s := &pessimism.Split{BoundCycles: bound, IsolatedCycles: isolated, InterferenceCycles: bound - isolated,
		ByResource: []pessimism.Resource{{Resource: "int", Cycles: bound - isolated}},
		Sections:   []pessimism.Section{{From: "entry", To: "end", Count: 1, BoundCycles: bound, IsolatedCycles: isolated, InterferenceCycles: bound - isolated}},
		Control:    pessimism.Category{Cycles: control, Items: items}}
	return Kernel{JSONKernel: static.JSONKernel{Name: name, BoundCycles: bound}, Pessimism: s}
}

// TestCompare: a commit that adds 1,200 control-approximated cycles to a
// kernel (an annotated loop bound raised) is reported as such, with the
// item, the section's change, and the kernels added and removed.
func TestCompare(t *testing.T) {
	loop := func(c int64) pessimism.Item {
		return pessimism.Item{Kind: pessimism.KindAnnotatedLoop, Pos: "k.ptx:10:1", What: "loop", Cycles: c}
	}
	old := &Report{ReportSHA256: "0123456789abcdef", Kernels: []Kernel{kernelWithSplit("K", 5000, 3000, 800, loop(800)), kernelWithSplit("gone", 10, 10, 0)}}
	cur := &Report{Kernels: []Kernel{kernelWithSplit("K", 6200, 4200, 2000, loop(2000)), kernelWithSplit("new", 20, 20, 0)}}
	c := Compare(old, cur, "old.json")
	if len(c.Kernels) != 3 || c.Kernels[0].Status != DeltaChanged || c.Kernels[1].Status != DeltaAdded || c.Kernels[2].Status != DeltaRemoved {
		t.Fatalf("kernels %+v", c.Kernels)
	}
	want := []Delta{
		{Part: "bound", Old: 5000, New: 6200, Change: 1200},
		{Part: "isolated path", Old: 3000, New: 4200, Change: 1200},
		{Part: "interference", Old: 2000, New: 2000},
		{Part: "interference: int", Old: 2000, New: 2000},
		{Part: "unattributed"},
		{Part: "control approximations", Old: 800, New: 2000, Change: 1200},
		{Part: "control approximations: annotated-loop-bound k.ptx:10:1", Old: 800, New: 2000, Change: 1200},
		{Part: "data approximations"},
		{Part: "stated assumptions"},
	}
	if d := cmp.Diff(want, c.Kernels[0].Parts); d != "" {
		t.Errorf("parts (-want +got):\n%s", d)
	}
	var b strings.Builder
	if err := WriteComparisonText(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"compared with old.json (report 0123456789ab):",
		"  kernel K: bound 5000 -> 6200 (+1200)",
		"    control approximations +1200 (800 -> 2000)",
		"    control approximations: annotated-loop-bound k.ptx:10:1 +1200 (800 -> 2000)",
		"    section entry -> end: changed; bound +1200 (5000 -> 6200); isolated path +1200 (3000 -> 4200)",
		"  kernel new: new, bound 20",
		"  kernel gone: removed (bound was 10)",
	} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("missing line %q in\n%s", line, b.String())
		}
	}
}
