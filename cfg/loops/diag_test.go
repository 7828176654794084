package loops

import (
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// TestDiagnosticPositionOnce: a diagnostic of the loops pass carries its
// position; its message must not repeat it (gpuwcet analyze printed
// "file:14:2: error: file:14:2: loop ..."), while Problem.String keeps it.
func TestDiagnosticPositionOnce(t *testing.T) {
	src := []byte(`.version 7.0
.target sm_80
.address_size 64
.visible .entry spin(.param .u64 spin_param_0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [spin_param_0];
LOOP:
	ld.volatile.global.u32 %r1, [%rd1];
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra LOOP;
	ret;
}
`)
	f, _ := graphs(t, "spin.ptx", src)
	res, err := pass.Run([]*pass.Analyzer{cfg.Analyzer, Analyzer}, f, pass.Options{Launch: pass.Launch{Block: [3]int{64, 1, 1}, Grid: [3]int{1, 1, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range res.Diagnostics() {
		if d.Category != CategoryUnbounded {
			continue
		}
		n++
		if want := "loop label LOOP, line 11 of spin is not bounded"; !strings.HasPrefix(d.Message, want) {
			t.Errorf("diagnostic at %s: message %q, want it to start with %q", pass.Position(f.Fset, d.Pos), d.Message, want)
		}
		if got := pass.Position(f.Fset, d.Pos).String(); got != "spin.ptx:11:2" {
			t.Errorf("diagnostic position %s, want spin.ptx:11:2", got)
		}
	}
	if n != 1 {
		t.Errorf("%d unbounded-loop diagnostics, want 1", n)
	}
	lr := res.Get(Analyzer, f.Funcs[0]).Result.(*Result)
	if s := lr.Problems[0].String(); !strings.HasPrefix(s, "spin.ptx:11:2: loop label LOOP") {
		t.Errorf("Problem.String() = %q, want the position first", s)
	}
}
