package isa

import (
	"go/token"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefsUses(t *testing.T) {
	in := &Instr{
		Guard: Guard{Reg: "%p1", Neg: true},
		Dsts: []Operand{
			{Kind: OpReg, Regs: []string{"%r1"}},
			{Kind: OpSink},
			{Kind: OpVec, Regs: []string{"%r2", "%r1"}},
			{Kind: OpMem, Regs: []string{"%rd9"}}, // a memory destination reads its address
		},
		Srcs: []Operand{
			{Kind: OpReg, Regs: []string{"%r3"}},
			{Kind: OpMem, Regs: []string{"%rd1", "%r3"}},
			{Kind: OpImm},
		},
	}
	if diff := cmp.Diff([]string{"%r1", "%r2"}, in.Defs()); diff != "" {
		t.Errorf("Defs mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"%p1", "%r3", "%rd1", "%rd9"}, in.Uses()); diff != "" {
		t.Errorf("Uses mismatch (-want +got):\n%s", diff)
	}
	if in.Guard.String() != "@!%p1" || (Guard{}).String() != "" {
		t.Errorf("Guard.String: %q", in.Guard.String())
	}
}

func TestOp(t *testing.T) {
	in := &Instr{Opcode: "ld", Mods: []string{"global", "v4", "f32"}}
	if got := in.Op(); got != "ld.global.v4.f32" {
		t.Errorf("Op() = %q", got)
	}
	if !in.HasMod("v4") || in.HasMod("v2") {
		t.Error("HasMod")
	}
	if got := (&Instr{Opcode: "ret"}).Op(); got != "ret" {
		t.Errorf("Op() = %q", got)
	}
}

func TestErrorList(t *testing.T) {
	var l ErrorList
	if l.Err() != nil {
		t.Fatal("empty list must give a nil error")
	}
	pos := func(line, col int) token.Position { return token.Position{Filename: "a.ptx", Line: line, Column: col} }
	l.Addf(pos(3, 1), "third %d", 3)
	l.Add(pos(1, 5), "first")
	l.Add(pos(1, 9), "same line")
	l.Add(pos(2, 1), "second")
	l.RemoveMultiples()
	var got []string
	for _, e := range l {
		got = append(got, e.Error())
	}
	if diff := cmp.Diff([]string{"a.ptx:1:5: first", "a.ptx:2:1: second", "a.ptx:3:1: third 3"}, got); diff != "" {
		t.Errorf("RemoveMultiples mismatch (-want +got):\n%s", diff)
	}
	if got := l.Error(); got != "a.ptx:1:5: first (and 2 more errors)" {
		t.Errorf("Error() = %q", got)
	}
}

func TestKindsAndBarriers(t *testing.T) {
	for _, k := range []Kind{KindBranch, KindIndirectBranch, KindReturn, KindExit} {
		if !k.IsTerminator() {
			t.Errorf("%v must end a block", k)
		}
	}
	for _, k := range []Kind{KindCall, KindBarrier, KindReconverge, KindOther} {
		if k.IsTerminator() {
			t.Errorf("%v must not end a block", k)
		}
	}
	if !BarSync.WaitsForBlock() || !BarRed.WaitsForBlock() || BarArrive.WaitsForBlock() || BarWarpSync.WaitsForBlock() {
		t.Error("WaitsForBlock")
	}
	f := &File{Funcs: []*Func{{Name: "a", Entry: true}, {Name: "b"}, {Name: "c", Entry: true}}}
	if got := len(f.Kernels()); got != 2 || f.Func("b") == nil || f.Func("z") != nil {
		t.Errorf("Kernels/Func lookup: %d kernels", got)
	}
}
