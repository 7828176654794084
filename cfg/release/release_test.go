package release

import (
	"go/token"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
)

// kernel wraps a loop body into a PTX kernel: the loop is $L_spin, the
// code after it ends with a barrier.
func kernel(pre, body string) string {
	return `.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.reg .pred %p<8>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	setp.ne.s32 %p5, %r1, 0;
	@%p5 bra $L_after;
` + pre + `
$L_spin:
` + body + `
$L_after:
	bar.sync 0;
	ret;
}
`
}

func graph(t *testing.T, src string) *cfg.Graph {
	t.Helper()
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, "k.ptx", []byte(src), 0)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	g, err := cfg.Build(fset, f.Funcs[0])
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestOf(t *testing.T) {
	tests := []struct {
		name, pre, body string
		want            string // the release point's String(), or "no: " + a part of why
	}{
		{"globaltimer lt", "", `	mov.u64 %rd2, %globaltimer;
	setp.lt.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;`, "spins until %globaltimer >= %rd1 (%rd1 = \"ld.param.u64 %rd1, [k_param_0]\")"},
		{"trigger first, gt", "", `	mov.u64 %rd2, %globaltimer;
	setp.gt.u64 %p1, %rd1, %rd2;
	@%p1 bra $L_spin;`, "spins until %globaltimer >= %rd1"},
		{"exit on taken branch, le", "", `	mov.u64 %rd2, %globaltimer;
	setp.gt.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_after;
	bra.uni $L_spin;`, "spins until %globaltimer > %rd1"},
		{"negated guard", "", `	mov.u64 %rd2, %globaltimer;
	setp.ge.u64 %p1, %rd2, %rd1;
	@!%p1 bra $L_spin;`, "spins until %globaltimer >= %rd1"},
		{"clock64, signed", "", `	mov.u64 %rd2, %clock64;
	setp.lt.s64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;`, "spins until %clock64 >= %rd1"},
		{"relative to a start", "	mov.u64 %rd3, 5000;", `	mov.u64 %rd2, %globaltimer;
	sub.s64 %rd4, %rd2, %rd1;
	setp.lt.u64 %p1, %rd4, %rd3;
	@%p1 bra $L_spin;`, "spins until (%globaltimer - %rd1) >= %rd3"},
		{"immediate trigger", "", `	mov.u64 %rd2, %globaltimer;
	setp.lt.u64 %p1, %rd2, 1000000;
	@%p1 bra $L_spin;`, "spins until %globaltimer >= 1000000"},
		{"hi and lo combined", "", `	mov.u32 %r2, %globaltimer_lo;
	mov.u32 %r3, %globaltimer_hi;
	mov.b64 %rd2, {%r2, %r3};
	setp.lt.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;`, "spins until %globaltimer_lo+%globaltimer_hi >= %rd1"},
		{"hi and lo swapped", "", `	mov.u32 %r2, %globaltimer_lo;
	mov.u32 %r3, %globaltimer_hi;
	mov.b64 %rd2, {%r3, %r2};
	setp.lt.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;`, "no: combined by"},
		{"32-bit word wraps", "	cvt.u32.u64 %r4, %rd1;", `	mov.u32 %r2, %globaltimer_lo;
	setp.lt.u32 %p1, %r2, %r4;
	@%p1 bra $L_spin;`, "no: 32-bit timer word"},
		{"narrowed", "	cvt.u32.u64 %r4, %rd1;", `	mov.u64 %rd2, %globaltimer;
	cvt.u32.u64 %r2, %rd2;
	setp.lt.u32 %p1, %r2, %r4;
	@%p1 bra $L_spin;`, "no: narrows"},
		{"exit while below the trigger", "", `	mov.u64 %rd2, %globaltimer;
	setp.ge.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;`, "no: is below"},
		{"equality never certain", "", `	mov.u64 %rd2, %globaltimer;
	setp.ne.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;`, "no: equals"},
		{"store in the body", "", `	mov.u64 %rd2, %globaltimer;
	st.global.u64 [%rd1], %rd2;
	setp.lt.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;`, "no: store"},
		{"sleep in the body", "", `	mov.u64 %rd2, %globaltimer;
	nanosleep.u32 100;
	setp.lt.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;`, "no: nanosleep"},
		{"trigger changes in the loop", "", `	mov.u64 %rd2, %globaltimer;
	add.s64 %rd1, %rd1, 1;
	setp.lt.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;`, "no: does not compare a timer value with a loop-invariant"},
		{"second exit on a counter", "	mov.u32 %r5, 0;", `	mov.u64 %rd2, %globaltimer;
	add.s32 %r5, %r5, 1;
	setp.gt.u32 %p2, %r5, 100;
	@%p2 bra $L_after;
	setp.lt.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;`, "no: does not compare a timer value"},
		{"subtracting the timer", "", `	mov.u64 %rd2, %globaltimer;
	sub.s64 %rd4, %rd1, %rd2;
	setp.gt.s64 %p1, %rd4, 0;
	@%p1 bra $L_spin;`, "no: subtracts the timer"},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.name, " ", "_"), func(t *testing.T) {
			g := graph(t, kernel(tt.pre, tt.body))
			if len(g.Loops) != 1 {
				t.Fatalf("%d loops, want 1", len(g.Loops))
			}
			p, why := Of(g, g.Loops[0])
			if no, ok := strings.CutPrefix(tt.want, "no: "); ok {
				if p != nil {
					t.Fatalf("recognised %s, want not a release point (%s)", p, no)
				}
				if !strings.Contains(why, no) {
					t.Fatalf("why = %q, want it to contain %q", why, no)
				}
				return
			}
			if p == nil {
				t.Fatalf("not recognised: %s", why)
			}
			if got := p.String(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("String() = %q, want prefix %q", got, tt.want)
			}
			if p.Barrier == nil || p.Barrier.Text != "bar.sync 0" {
				t.Errorf("Barrier = %v, want the bar.sync after the loop", p.Barrier)
			}
			if p.Pos.Line == 0 {
				t.Errorf("no position")
			}
		})
	}
}

// A loop that reads no timer is not a timer loop, and Of says nothing.
func TestOfNoTimer(t *testing.T) {
	g := graph(t, kernel("	mov.u32 %r5, 0;", `	add.s32 %r5, %r5, 1;
	setp.lt.u32 %p1, %r5, 10;
	@%p1 bra $L_spin;`))
	if p, why := Of(g, g.Loops[0]); p != nil || why != "" {
		t.Fatalf("Of = %v, %q; want nil, \"\"", p, why)
	}
	if IsTimerLoop(g.Loops[0]) {
		t.Fatal("IsTimerLoop = true")
	}
	if ps := Find(g); len(ps) != 0 {
		t.Fatalf("Find = %v", ps)
	}
}

// Paths from the loop reaching different barriers first give no barrier.
func TestBarrierAmbiguous(t *testing.T) {
	src := kernel("", `	mov.u64 %rd2, %globaltimer;
	setp.lt.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;
	@%p5 bra $L_other;
	bar.sync 1;
$L_other:`)
	g := graph(t, src)
	p, why := Of(g, g.Loops[0])
	if p == nil {
		t.Fatal(why)
	}
	if p.Barrier != nil {
		t.Fatalf("Barrier = %q, want nil (bar.sync 1 or bar.sync 0 first)", p.Barrier.Text)
	}
}
