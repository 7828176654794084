package phases

import (
	"go/token"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// fig2HW is the hardware of Figure 2 of the ECRTS 2025 paper.
func fig2HW() *hwdesc.Desc {
	return &hwdesc.Desc{
		Name: "fig2", ClockMHz: 1000,
		Units: []hwdesc.Unit{{Name: "red", Init: 2, Lat: 6}, {Name: "blue", Init: 3, Lat: 4}, {Name: "green", Init: 2, Lat: 4}, {Name: "zero", Init: 1, Lat: 0}},
		Map:   []hwdesc.Rule{{Match: "mul.f32", Unit: "red"}, {Match: "add.s32", Unit: "blue"}, {Match: "sin.*", Unit: "green"}, {Match: "mov.*", Unit: "zero"}},
	}
}

// ins builds an instruction "op defs..., uses..." (defs and uses as comma
// lists), with an optional guard "@%p".
func ins(guard, op, defs, uses string) *isa.Instr {
	parts := strings.Split(op, ".")
	in := &isa.Instr{Opcode: parts[0], Mods: parts[1:], Text: op + " " + defs + ", " + uses}
	if guard != "" {
		in.Guard = isa.Guard{Reg: guard}
	}
	if defs != "" {
		for _, d := range strings.Split(defs, ",") {
			in.Dsts = append(in.Dsts, isa.Operand{Kind: isa.OpReg, Text: d, Regs: []string{d}})
		}
	}
	if uses != "" {
		for _, u := range strings.Split(uses, ",") {
			in.Srcs = append(in.Srcs, isa.Operand{Kind: isa.OpReg, Text: u, Regs: []string{u}})
		}
	}
	switch parts[0] {
	case "ret":
		in.Kind = isa.KindReturn
	case "exit":
		in.Kind = isa.KindExit
	case "bar":
		in.Kind, in.Barrier = isa.KindBarrier, isa.BarSync
	case "bra":
		in.Kind = isa.KindBranch
	}
	return in
}

func fig2Path() []*isa.Instr {
	return []*isa.Instr{
		ins("", "mul.f32", "%f0", "%f4,%f5"),
		ins("", "add.s32", "%r1", "%r4,%r5"),
		ins("", "add.s32", "%r2", "%r4,%r6"),
		ins("", "sin.approx.f32", "%f3", "%f0"),
		ins("", "ret", "", ""),
	}
}

func timings(t *testing.T, hw *hwdesc.Desc, path []*isa.Instr) []Timing {
	t.Helper()
	e, err := NewEngine(hw)
	if err != nil {
		t.Fatal(err)
	}
	s := e.NewState()
	var out []Timing
	for _, in := range path {
		tm, err := e.StepInstr(nil, s, in)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tm)
	}
	return out
}

func class(t *testing.T, hw *hwdesc.Desc, path []*isa.Instr) *Class {
	t.Helper()
	e, err := NewEngine(hw)
	if err != nil {
		t.Fatal(err)
	}
	ops := make([]Op, len(path))
	for i, in := range path {
		if ops[i], err = e.Prepare(nil, in); err != nil {
			t.Fatal(err)
		}
	}
	return BuildClass(e, ops, true)
}

// Example 3 / Figure 2 of the paper, with the sound ready time of the queued
// i2 (start 4 + init 3 + lat 4 = 11, not the text's 3+4 = 7 from cycle 2).
func TestFig2(t *testing.T) {
	got := timings(t, fig2HW(), fig2Path())
	want := []Timing{
		{Issue: 0, Start: 0, Ready: 8},
		{Issue: 1, Start: 1, Ready: 8},
		{Issue: 2, Start: 4, Ready: 11},
		{Issue: 8, Start: 8, Ready: 14},
		{Issue: 9, Start: 9, Ready: 14}, // ret: issues nothing
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("timings mismatch (-want +got):\n%s", d)
	}
	c := class(t, fig2HW(), fig2Path())
	wantPh := []Phase{{Exec, 0, 7}, {Idle, 7, 1}, {Exec, 8, 2}, {Idle, 10, 4}}
	if d := cmp.Diff(wantPh, c.Sections[0].Phases); d != "" {
		t.Errorf("phases mismatch (-want +got):\n%s", d)
	}
	if c.Duration != 14 || c.Exec != 9 || c.Sections[0].Issued != 4 || c.Sections[0].InitSum != 10 {
		t.Errorf("duration %d exec %d issued %d initsum %d, want 14 9 4 10", c.Duration, c.Exec, c.Sections[0].Issued, c.Sections[0].InitSum)
	}
}

// The dependent of the queued i2 waits for its result at cycle 11.
func TestQueuedDependent(t *testing.T) {
	p := fig2Path()
	p = append(p[:4:4], ins("", "mul.f32", "%f1", "%r2"))
	got := timings(t, fig2HW(), p)
	if got[4].Issue != 11 || got[4].Start != 11 || got[4].Ready != 19 {
		t.Errorf("dependent of i2: %+v, want issue 11 start 11 ready 19", got[4])
	}
}

func TestCorners(t *testing.T) {
	tests := []struct {
		name  string
		path  []*isa.Instr
		want  []Timing
		phase []Phase
	}{{
		name: "waw",
		// The second write of %f0 waits for the first (ready 8).
		path:  []*isa.Instr{ins("", "mul.f32", "%f0", "%f1"), ins("", "add.s32", "%f0", "%r1")},
		want:  []Timing{{0, 0, 8}, {8, 8, 15}},
		phase: []Phase{{Exec, 0, 2}, {Idle, 2, 6}, {Exec, 8, 3}, {Idle, 11, 4}},
	}, {
		name: "predicated",
		// The guard is read (RAW on %p1) and the instruction occupies its
		// unit and writes its destination whatever the guard's value.
		path:  []*isa.Instr{ins("", "add.s32", "%p1", "%r1"), ins("%p1", "mul.f32", "%f0", "%f1"), ins("", "mul.f32", "%f2", "%f0")},
		want:  []Timing{{0, 0, 7}, {7, 7, 15}, {15, 15, 23}},
		phase: []Phase{{Exec, 0, 3}, {Idle, 3, 4}, {Exec, 7, 2}, {Idle, 9, 6}, {Exec, 15, 2}, {Idle, 17, 6}},
	}, {
		name: "multi-destination",
		// Both destinations are pending until 8; a reader of the second waits.
		path:  []*isa.Instr{ins("", "mul.f32", "%f0,%f1", "%f2"), ins("", "add.s32", "%r0", "%f1")},
		want:  []Timing{{0, 0, 8}, {8, 8, 15}},
		phase: []Phase{{Exec, 0, 2}, {Idle, 2, 6}, {Exec, 8, 3}, {Idle, 11, 4}},
	}, {
		name: "zero-latency",
		// lat 0: the result is ready when the initiation ends.
		path:  []*isa.Instr{ins("", "mov.b32", "%r0", "%r1"), ins("", "mov.b32", "%r2", "%r0"), ins("", "mov.b32", "%r3", "%r2")},
		want:  []Timing{{0, 0, 1}, {1, 1, 2}, {2, 2, 3}},
		phase: []Phase{{Exec, 0, 3}},
	}, {
		name: "unit queue",
		// Same unit, independent: issue every cycle, start every init.
		path:  []*isa.Instr{ins("", "add.s32", "%r0", ""), ins("", "add.s32", "%r1", ""), ins("", "add.s32", "%r2", "")},
		want:  []Timing{{0, 0, 7}, {1, 3, 10}, {2, 6, 13}},
		phase: []Phase{{Exec, 0, 9}, {Idle, 9, 4}},
	}, {
		name: "exit mid-path",
		// ret and exit issue nothing and take no cycle.
		path:  []*isa.Instr{ins("", "ret", "", ""), ins("", "mov.b32", "%r0", ""), ins("", "exit", "", "")},
		want:  []Timing{{0, 0, 0}, {0, 0, 1}, {1, 1, 1}},
		phase: []Phase{{Exec, 0, 1}},
	}, {
		name:  "empty",
		path:  nil,
		want:  nil,
		phase: nil,
	}, {
		name:  "only ret",
		path:  []*isa.Instr{ins("", "ret", "", "")},
		want:  []Timing{{0, 0, 0}},
		phase: nil,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := timings(t, fig2HW(), tt.path)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("timings mismatch (-want +got):\n%s", d)
			}
			c := class(t, fig2HW(), tt.path)
			if d := cmp.Diff(tt.phase, c.Sections[0].Phases); d != "" {
				t.Errorf("phases mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestBarrierSections(t *testing.T) {
	path := []*isa.Instr{
		ins("", "mul.f32", "%f0", ""),
		ins("", "bar.sync", "", ""),
		// A new section starts from an idle SM: %f0's pending write is
		// complete (the previous section's bound covers it).
		ins("", "mul.f32", "%f1", "%f0"),
		ins("", "add.s32", "%r1", ""),
		ins("", "bar.sync", "", ""),
		ins("", "ret", "", ""),
	}
	c := class(t, fig2HW(), path)
	type sec struct {
		Dur, Exec hwdesc.Cycles
		Issued    int
		Phases    []Phase
	}
	var got []sec
	for _, s := range c.Sections {
		got = append(got, sec{s.Duration, s.Exec, s.Issued, s.Phases})
	}
	want := []sec{
		{8, 2, 1, []Phase{{Exec, 0, 2}, {Idle, 2, 6}}},
		{8, 4, 2, []Phase{{Exec, 0, 4}, {Idle, 4, 4}}},
		{0, 0, 0, nil},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sections mismatch (-want +got):\n%s", d)
	}
	if c.Duration != 16 || c.Exec != 6 {
		t.Errorf("totals %d/%d, want 16/6", c.Duration, c.Exec)
	}
}

func TestStateJoin(t *testing.T) {
	e, _ := NewEngine(fig2HW())
	a, b := e.NewState(), e.NewState()
	opA, _ := e.Prepare(nil, ins("", "mul.f32", "%f0", ""))
	opB, _ := e.Prepare(nil, ins("", "add.s32", "%r0", ""))
	Step(a, &opA)
	Step(b, &opB)
	Step(b, &opB)
	j := a.Clone()
	j.Join(b)
	if !a.Leq(j) || !b.Leq(j) || j.Leq(a) || a.Equal(j) {
		t.Errorf("join %+v of %+v and %+v is not their least upper bound", j, a, b)
	}
	// Monotonicity: stepping the join is no earlier than stepping either.
	op, _ := e.Prepare(nil, ins("", "add.s32", "%r9", "%f0,%r0"))
	ta, tb, tj := Step(a.Clone(), &op), Step(b.Clone(), &op), Step(j.Clone(), &op)
	if tj.Ready < max(ta.Ready, tb.Ready) || tj.Issue < max(ta.Issue, tb.Issue) {
		t.Errorf("step of join %+v earlier than %+v / %+v", tj, ta, tb)
	}
}

func TestErrors(t *testing.T) {
	fset := token.NewFileSet()
	f := fset.AddFile("k.ptx", -1, 100)
	f.SetLines([]int{0, 10, 20, 30})
	bad := ins("", "div.rn.f64", "%fd0", "%fd1")
	bad.Pos = f.Pos(22)
	e, _ := NewEngine(fig2HW())
	_, err := e.Prepare(fset, bad)
	if err == nil || !strings.HasPrefix(err.Error(), "k.ptx:3:3: opcode \"div.rn.f64\"") || !strings.Contains(err.Error(), "no default_unit") {
		t.Errorf("unknown opcode: got %v", err)
	}
	br := ins("", "bra", "", "")
	br.Pos = f.Pos(12)
	fn := &isa.Func{Name: "k", Instrs: []*isa.Instr{ins("", "mov.b32", "%r0", ""), br}}
	if _, err := Build(fset, fn, fig2HW(), 1, false); err == nil || !strings.HasPrefix(err.Error(), "k.ptx:2:3:") || !strings.Contains(err.Error(), "gpuwcet analyze") {
		t.Errorf("branch: got %v", err)
	}
	if _, err := NewEngine(&hwdesc.Desc{Name: "z", Units: []hwdesc.Unit{{Name: "u", Init: 0}}}); err == nil || !strings.Contains(err.Error(), "init ≥ 1") {
		t.Errorf("init 0: got %v", err)
	}
}

func TestGrouping(t *testing.T) {
	p1 := fig2Path()
	p2 := fig2Path() // distinct pointers, same signatures
	p3 := fig2Path()[1:]
	fn := &isa.Func{Name: "k", Trace: &isa.Trace{Warps: []isa.WarpPath{{Warp: 2, Instrs: p2}, {Warp: 0, Instrs: p1}, {Warp: 1, Instrs: p3}}}}
	p, err := Build(nil, fn, fig2HW(), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	var got [][]int
	for _, c := range p.Classes {
		got = append(got, c.Warps)
	}
	if d := cmp.Diff([][]int{{0, 2}, {1}}, got); d != "" {
		t.Errorf("classes mismatch (-want +got):\n%s", d)
	}
	// Barrier count mismatch deadlocks the block.
	fn.Trace.Warps[2].Instrs = append([]*isa.Instr{ins("", "bar.sync", "", "")}, p3...)
	if _, err := Build(nil, fn, fig2HW(), 0, false); err == nil || !strings.Contains(err.Error(), "deadlock") {
		t.Errorf("barrier mismatch: got %v", err)
	}
}
