package loops

import (
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// A %globaltimer spin loop is a release point: bounded by 2 header
// executions from its trigger, with a release-point warning; a timer loop
// that does not match the idiom stays unbounded and says why.
func TestReleasePoint(t *testing.T) {
	src := func(cmp string) []byte {
		return []byte(`.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.reg .pred %p<4>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [k_param_0];
$L_spin:
	mov.u64 %rd2, %globaltimer;
	setp.` + cmp + `.u64 %p1, %rd2, %rd1;
	@%p1 bra $L_spin;
	bar.sync 0;
	ret;
}
`)
	}
	_, gs := graphs(t, "k.ptx", src("lt"))
	r, err := Compute(gs[0], pass.Launch{Block: [3]int{32, 1, 1}}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	lb := r.Loops[0]
	if lb.Bound == nil || lb.Bound.Source != Release || lb.Bound.Max != 2 || lb.Release == nil {
		t.Fatalf("bound %+v, release %v; want a release bound of 2", lb.Bound, lb.Release)
	}
	if !r.Bounded() || r.Err() != nil {
		t.Fatalf("not bounded: %v", r.Err())
	}
	if len(r.Problems) != 1 || r.Problems[0].Category != CategoryRelease || !r.Problems[0].Warning ||
		!strings.Contains(r.Problems[0].Message, "spins until %globaltimer >= %rd1") {
		t.Fatalf("problems %+v, want one release-point warning naming the trigger", r.Problems)
	}

	_, gs = graphs(t, "k.ptx", src("ne"))
	r, err = Compute(gs[0], pass.Launch{Block: [3]int{32, 1, 1}}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Loops[0].Bound != nil || r.Bounded() {
		t.Fatalf("a spin until the timer equals the trigger is bounded: %+v", r.Loops[0].Bound)
	}
	if len(r.Problems) != 1 || r.Problems[0].Category != CategoryUnbounded || !strings.Contains(r.Problems[0].Message, "not a release point: the loop is left when the timer equals the trigger") {
		t.Fatalf("problems %+v, want the unbounded-loop diagnostic saying why it is not a release point", r.Problems)
	}
}
