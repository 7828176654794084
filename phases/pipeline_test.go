package phases

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Two units of one group share one initiation FIFO; each instruction keeps
// its own init and lat.
func TestSharedResource(t *testing.T) {
	hw := fig2HW()
	path := []*isa.Instr{ins("", "mul.f32", "%f0", "%f4"), ins("", "add.s32", "%r1", "%r4")}
	// Independent units: add starts at its issue.
	want := []Timing{{0, 0, 8}, {1, 1, 8}}
	if diff := cmp.Diff(want, timings(t, hw, path)); diff != "" {
		t.Errorf("independent (-want +got):\n%s", diff)
	}
	hw.Units[0].Group, hw.Units[1].Group = "g", "g"
	// Shared: add queues behind mul's initiation [0,2).
	want = []Timing{{0, 0, 8}, {1, 2, 9}}
	if diff := cmp.Diff(want, timings(t, hw, path)); diff != "" {
		t.Errorf("shared (-want +got):\n%s", diff)
	}
	e, _ := NewEngine(hw)
	if e.Resource(0) != 0 || e.Resource(1) != 0 || e.Resource(2) != 2 {
		t.Errorf("resources %d %d %d", e.Resource(0), e.Resource(1), e.Resource(2))
	}
}

func TestPipelineOverheadAndRet(t *testing.T) {
	hw := fig2HW()
	hw.Map = append(hw.Map, hwdesc.Rule{Match: "ret", Unit: "zero"}, hwdesc.Rule{Match: "bar.sync", Unit: "zero"})
	hw.Pipeline = hwdesc.Pipeline{Overhead: 4, RetIssues: true}
	got := timings(t, hw, fig2Path())
	// Example 3 with every result 4 cycles later, then ret on "zero"
	// (init 1, lat 0 + 4) at cycle 4.
	want := []Timing{{0, 0, 12}, {1, 1, 12}, {2, 4, 15}, {12, 12, 22}, {13, 13, 18}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Default pipeline: ret issues nothing.
	if e, _ := NewEngine(fig2HW()); !e.IssuesNothing(ins("", "ret", "", "")) {
		t.Error("ret issues under the default pipeline")
	}
}

// Branch waits on a known path: the wait applies on the edge, taken when
// the next instruction is not the fall-through.
func TestBranchWait(t *testing.T) {
	mk := func() []*isa.Instr {
		p := []*isa.Instr{
			ins("", "mov.u32", "%r1", ""),
			ins("%p", "bra", "", ""),
			ins("", "mov.u32", "%r2", ""),
		}
		for i, in := range p {
			in.Index = i
		}
		return p
	}
	hw := fig2HW()
	hw.Map = append(hw.Map, hwdesc.Rule{Match: "bra", Unit: "green"}) // init 2, lat 4: ready at start+6
	run := func(wait string, taken bool) Timing {
		hw.Pipeline.BranchWait = wait
		e, err := NewEngine(hw)
		if err != nil {
			t.Fatal(err)
		}
		p := mk()
		if taken {
			p[2].Index = 7
		}
		var ops []*Op
		for _, in := range p {
			op, err := e.Prepare(nil, in)
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, &op)
		}
		c := BuildClassOps(e, ops, true)
		return c.Sections[0].Timings[2].Timing
	}
	for _, tt := range []struct {
		wait  string
		taken bool
		want  Timing
	}{
		{"", true, Timing{2, 2, 3}},
		{"none", true, Timing{2, 2, 3}},
		{"taken", false, Timing{2, 2, 3}},
		{"taken", true, Timing{7, 7, 8}},
		{"all", false, Timing{7, 7, 8}},
		{"all", true, Timing{7, 7, 8}},
	} {
		if got := run(tt.wait, tt.taken); got != tt.want {
			t.Errorf("branch_wait %q taken %v: next instruction %+v, want %+v", tt.wait, tt.taken, got, tt.want)
		}
	}
}

// An issuing barrier is the last instruction of the section it ends.
func TestBarrierIssues(t *testing.T) {
	hw := fig2HW()
	hw.Map = append(hw.Map, hwdesc.Rule{Match: "bar.sync", Unit: "zero"})
	hw.Pipeline.BarrierIssues = true
	e, err := NewEngine(hw)
	if err != nil {
		t.Fatal(err)
	}
	var ops []*Op
	for _, in := range []*isa.Instr{ins("", "mov.u32", "%r1", ""), ins("", "bar.sync", "", ""), ins("", "mov.u32", "%r2", "")} {
		op, err := e.Prepare(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, &op)
	}
	c := BuildClassOps(e, ops, false)
	if len(c.Sections) != 2 || c.Sections[0].Issued != 2 || c.Sections[0].Duration != 2 || c.Sections[1].Issued != 1 {
		t.Errorf("sections %+v %+v", c.Sections[0], c.Sections[1])
	}
}
