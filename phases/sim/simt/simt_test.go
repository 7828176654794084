package simt

import (
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
)

// texts returns the instruction texts of a warp's path.
func texts(p []*isa.Instr) []string {
	var out []string
	for _, in := range p {
		out = append(out, in.Text)
	}
	return out
}

func indexOf(xs []string, prefix string, from int) int {
	for i := from; i < len(xs); i++ {
		if strings.HasPrefix(xs[i], prefix) {
			return i
		}
	}
	return -1
}

func count(xs []string, prefix string) int {
	n := 0
	for _, x := range xs {
		if strings.HasPrefix(x, prefix) {
			n++
		}
	}
	return n
}

// leavers is issue 9's item 4: odd lanes leave the loop at its fifth
// header execution through a store; the even lanes iterate to 8.
const leavers = `
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	ld.param.u64 %rd1, [k_param_1];
	mov.u32 %r3, 0;
LOOP:
	setp.eq.s32 %p1, %r3, 4;
	setp.ne.s32 %p2, %r2, 0;
	and.pred %p3, %p1, %p2;
	@%p3 bra LEAVE;
	ld.global.f32 %f2, [%rd1];
	add.s32 %r3, %r3, 1;
	setp.lt.s32 %p1, %r3, 8;
	@%p1 bra LOOP;
	bra.uni DONE;
LEAVE:
	st.global.f32 [%rd1], %f1;
DONE:`

// TestOrders: the lane groups of a divergence run in the order asked.
// With GPGPU-Sim's order the odd lanes (they hold lane 31) leave last:
// their store comes after the even lanes' eighth load, where taken first
// runs it after the fourth.
func TestOrders(t *testing.T) {
	k := prepare(t, kernelOf(leavers))
	for _, tc := range []struct {
		order      Order
		loadsFirst int // loads before the store
	}{{TakenFirst, 4}, {FallThroughFirst, 8}, {GPGPUSim, 8}} {
		b, err := k.Run(Launch{Block: [3]int{32, 1, 1}}, Options{Order: tc.order, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		p := texts(b.Paths[0])
		st := indexOf(p, "st.global", 0)
		if got := count(p[:st], "ld.global"); got != tc.loadsFirst || count(p, "ld.global") != 8 || b.Divergences != 1 || !slices.Equal(b.Orders, []int{2}) {
			t.Errorf("%v: %d loads before the store (want %d), %d in all, %d divergences\n%s", tc.order, got, tc.loadsFirst, count(p, "ld.global"), b.Divergences, strings.Join(p, "\n"))
		}
	}
	// Lanes 0-30 only: the odd lanes no longer hold the highest lane, so
	// GPGPU-Sim runs them first.
	b, err := k.Run(Launch{Block: [3]int{31, 1, 1}}, Options{Order: GPGPUSim, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := texts(b.Paths[0])
	if got := count(p[:indexOf(p, "st.global", 0)], "ld.global"); got != 4 {
		t.Errorf("31 lanes, gpgpusim: %d loads before the store, want 4", got)
	}
}

// TestExhaustive: two divergences in sequence (tid&1, then tid&2) have 2
// orders each; Exhaustive enumerates the 4 executions, all different, and
// Choose picks each.
func TestExhaustive(t *testing.T) {
	k := prepare(t, kernelOf(`
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.ne.s32 %p1, %r2, 0;
	@%p1 bra A1;
	add.s32 %r10, %r10, 1;
	bra.uni J1;
A1:
	mul.lo.s32 %r10, %r10, 3;
J1:
	and.b32 %r3, %r1, 2;
	setp.ne.s32 %p2, %r3, 0;
	@%p2 bra A2;
	sub.s32 %r11, %r11, 1;
	bra.uni J2;
A2:
	xor.b32 %r11, %r11, 5;
J2:`))
	seen := map[string]bool{}
	var orders [][]int
	all, err := k.Exhaustive(Launch{Block: [3]int{32, 1, 1}}, Options{Seed: 1}, 100, func(b *Block) error {
		seen[strings.Join(texts(b.Paths[0]), ";")] = true
		orders = append(orders, b.Orders)
		return nil
	})
	if err != nil || !all || len(seen) != 4 {
		t.Fatalf("exhaustive: complete %v, %d distinct of %d, %v", all, len(seen), len(orders), err)
	}
	if d := cmp.Diff([][]int{{2, 2}, {2, 2}, {2, 2}, {2, 2}}, orders); d != "" {
		t.Errorf("orders (-want +got)\n%s", d)
	}
	all, err = k.Exhaustive(Launch{Block: [3]int{32, 1, 1}}, Options{Seed: 1}, 3, func(*Block) error { return nil })
	if err != nil || all {
		t.Errorf("limit 3 of 4: complete %v, %v", all, err)
	}
	// Lanes that agree: no divergence, one execution.
	n := 0
	all, err = k.Exhaustive(Launch{Block: [3]int{1, 1, 1}}, Options{Seed: 1}, 100, func(*Block) error { n++; return nil })
	if err != nil || !all || n != 1 {
		t.Errorf("one lane: complete %v, %d executions, %v", all, n, err)
	}
}

// TestDeviceCall: a device function runs with its own registers and
// parameters; its return value, computed from the caller's argument
// tid & 1, is per lane, so the branch on it splits the warp (issue 9,
// item 1: the return value is not warp-uniform).
func TestDeviceCall(t *testing.T) {
	src := `.version 7.0
.target sm_80
.address_size 64
.func (.param .b32 func_retval0) pick(
	.param .b32 pick_param_0
)
{
	.reg .b32 %r<4>;
	ld.param.u32 %r1, [pick_param_0];
	and.b32 %r2, %r1, 1;
	st.param.b32 [func_retval0+0], %r2;
	ret;
}
.visible .entry k()
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .f32 %f<4>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 100;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), pick, (param0);
	ld.param.b32 %r3, [retval0+0];
	}
	setp.eq.s32 %p1, %r3, 0;
	@%p1 bra EVEN;
	sin.approx.f32 %f1, %f1;
	bra.uni END;
EVEN:
	cos.approx.f32 %f1, %f1;
END:
	ret;
}
`
	k := prepare(t, src)
	b, err := k.Run(Launch{Block: [3]int{32, 1, 1}}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := texts(b.Paths[0])
	if count(p, "sin.approx") != 1 || count(p, "cos.approx") != 1 || count(p, "and.b32") != 1 || b.Divergences != 1 {
		t.Errorf("both sides once, the callee once: %d divergences\n%s", b.Divergences, strings.Join(p, "\n"))
	}
	// The callee's registers are its own: %r2 of the kernel keeps 100.
	x, err := k.execute(Launch{Block: [3]int{32, 1, 1}}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	fr := x.warps[0].base
	for l := 0; l < 32; l++ {
		r2, _ := fr.get(x, fr.f.dc.regs["%r2"], l)
		r3, _ := fr.get(x, fr.f.dc.regs["%r3"], l)
		if r2 != 100 || r3 != uint64(l&1) {
			t.Errorf("lane %d: %%r2 %d (want 100), %%r3 %d (want %d)", l, r2, r3, l&1)
		}
	}
}

// TestCaps: a loop whose exit depends on memory runs as the data says,
// but never past the cap the flow facts give it (MaxLoops: drawn memory is
// non-zero, so the loop runs to its cap; memory fixed by the test is kept).
func TestCaps(t *testing.T) {
	k := prepare(t, kernelOf(`
	ld.param.u64 %rd1, [k_param_1];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
HEAD:
	ld.global.u32 %r2, [%rd3];
	add.s64 %rd3, %rd3, 128;
	setp.ne.s32 %p1, %r2, 0;
	@%p1 bra HEAD;`))
	var head *isa.Instr
	for _, in := range k.fn.Instrs {
		if strings.HasPrefix(in.Text, "ld.global") {
			head = in
		}
	}
	caps := func(fn *isa.Func, h *isa.Instr) (int64, bool) { return 3, h == head }
	l := Launch{Block: [3]int{32, 1, 1}, Caps: caps}
	// Memory all non-zero: the data never lets the loop end; the cap does.
	nonzero := func(isa.Space, uint64, int, bool) (uint64, bool) { return 7, true }
	zero := func(isa.Space, uint64, int, bool) (uint64, bool) { return 0, true }
	for _, tc := range []struct {
		mem  Memory
		max  bool
		want int
	}{{nonzero, false, 3}, {zero, false, 1}, {zero, true, 1}, {nil, true, 3}} {
		b, err := k.Run(l, Options{Seed: 1, Memory: tc.mem, MaxLoops: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		if got := count(texts(b.Paths[0]), "ld.global"); got != tc.want {
			t.Errorf("max loops %v: %d header executions, want %d", tc.max, got, tc.want)
		}
	}
	// Without a cap, memory that never ends the loop runs into the path
	// limit: an error, not a guess.
	_, err := k.Run(Launch{Block: [3]int{32, 1, 1}}, Options{Seed: 1, Memory: nonzero, MaxInstrs: 1000})
	if err == nil || !strings.Contains(err.Error(), "path longer than 1000") {
		t.Errorf("uncapped endless loop: %v", err)
	}
	// A loop that does not depend on data and runs past its cap: the fact
	// is wrong at these inputs.
	k2 := prepare(t, kernelOf(`
	mov.u32 %r1, 0;
HEAD:
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, 5;
	@%p1 bra HEAD;`))
	var h2 *isa.Instr
	for _, in := range k2.fn.Instrs {
		if strings.HasPrefix(in.Text, "add.s32") {
			h2 = in
		}
	}
	_, err = k2.Run(Launch{Block: [3]int{32, 1, 1}, Caps: func(fn *isa.Func, h *isa.Instr) (int64, bool) { return 3, h == h2 }}, Options{Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "more than its flow fact's 3 times") {
		t.Errorf("a fact below the loop's count: %v", err)
	}
}

// TestBarrier: warps run in lockstep phases between block barriers: a
// value warp 1 stores before the barrier is what warp 0 loads after it,
// and a branch on it is the same in every warp.
func TestBarrier(t *testing.T) {
	k := prepare(t, kernelOf(`
	mov.u32 %r1, %tid.x;
	setp.ne.s32 %p1, %r1, 63;
	@%p1 bra SKIP;
	st.shared.u32 [0], 5;
SKIP:
	bar.sync 0;
	ld.shared.u32 %r2, [0];
	setp.eq.s32 %p2, %r2, 5;
	@%p2 bra FIVE;
	add.s32 %r3, %r3, 1;
FIVE:`))
	x, err := k.execute(Launch{Block: [3]int{64, 1, 1}}, Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range x.warps {
		fr := w.base
		v, _ := fr.get(x, fr.f.dc.regs["%r2"], 0)
		if v != 5 || w.bars != 1 || count(texts(w.path), "add.s32") != 0 {
			t.Errorf("warp %d: loaded %d after the barrier (want 5), %d barriers\n%s", w.index, v, w.bars, strings.Join(texts(w.path), "\n"))
		}
	}
	// Different barrier counts per warp: undefined in CUDA, an error.
	k2 := prepare(t, kernelOf(`
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra SKIP;
	bar.sync 0;
SKIP:`))
	if _, err := k2.Run(Launch{Block: [3]int{64, 1, 1}}, Options{}); err == nil || !strings.Contains(err.Error(), "block barriers") {
		t.Errorf("warps with different barrier counts: %v", err)
	}
}

// TestNested: GPGPU-Sim's stack on nested divergence with a shared
// reconvergence point: the inner groups replace the outer group's entry,
// every lane reaches the join once, and the join runs once.
func TestNested(t *testing.T) {
	k := prepare(t, kernelOf(`
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.ne.s32 %p1, %r2, 0;
	@%p1 bra ODD;
	and.b32 %r3, %r1, 2;
	setp.ne.s32 %p2, %r3, 0;
	@%p2 bra JOIN;
	add.s32 %r10, %r10, 1;
	bra.uni JOIN;
ODD:
	mul.lo.s32 %r10, %r10, 3;
JOIN:
	xor.b32 %r11, %r11, 1;`))
	for _, o := range Orders {
		b, err := k.Run(Launch{Block: [3]int{32, 1, 1}}, Options{Order: o, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		p := texts(b.Paths[0])
		if count(p, "xor.b32") != 1 || count(p, "add.s32") != 1 || count(p, "mul.lo") != 1 || indexOf(p, "xor.b32", 0) != len(p)-2 {
			t.Errorf("%v: join once, at the end, each side once\n%s", o, strings.Join(p, "\n"))
		}
	}
}

// TestRefused: what the judge does not execute is an error.
func TestRefused(t *testing.T) {
	f := &isa.File{Dialect: isa.DialectSASS, Funcs: []*isa.Func{{Name: "k", Entry: true}}}
	if _, err := New(f, f.Funcs[0]); err == nil || !strings.Contains(err.Error(), "PTX only") {
		t.Errorf("SASS: %v", err)
	}
	src := `.version 7.0
.target sm_80
.address_size 64
.extern .func ext();
.visible .entry k()
{
	call.uni ext, ();
	ret;
}
`
	pf, err := ptx.ParseFile(token.NewFileSet(), "k.ptx", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(pf, pf.Funcs[len(pf.Funcs)-1]); err == nil || !strings.Contains(err.Error(), "not in the listing") {
		t.Errorf("external callee: %v", err)
	}
	k := prepare(t, kernelOf(""))
	if _, err := k.Run(Launch{Block: [3]int{32, 1, 1}, Args: map[string]int64{"nosuch": 1}}, Options{}); err == nil {
		t.Errorf("unknown argument accepted")
	}
	if _, err := k.Run(Launch{}, Options{}); err == nil {
		t.Errorf("unknown block accepted")
	}
}

// TestConvergenceLoop: ptxas's convergence loop (two reads of the active
// mask, repeated while a lane active at the second was not at the first)
// written in PTX, in the divergent side of a branch, runs once per entry
// on the SIMT stack in every order: both reads see the entry's mask. The
// value analysis derives the same bound (cfg/loops
// TestConvergenceLoopPTX, premise A-ACTIVE-MASK).
func TestConvergenceLoop(t *testing.T) {
	k := prepare(t, kernelOf(`
	mov.u32 %r1, %tid.x;
	ld.param.u32 %r2, [k_param_0];
	setp.lt.u32 %p1, %r1, %r2;
	@%p1 bra CONV;
	bra.uni JOIN;
CONV:
	activemask.b32 %r3;
	activemask.b32 %r4;
	not.b32 %r5, %r3;
	and.b32 %r6, %r5, %r4;
	setp.ne.u32 %p2, %r6, 0;
	@%p2 bra CONV;
JOIN:`))
	for _, n := range []int64{0, 1, 5, 31, 32, 40, 64} {
		all, err := k.Exhaustive(Launch{Block: [3]int{64, 1, 1}, Args: map[string]int64{"k_param_0": n}}, Options{Seed: 1}, 100, func(b *Block) error {
			for w, p := range b.Paths {
				want := 0
				if int64(32*w) < n {
					want = 1 // some lane of the warp enters
				}
				if got := count(texts(p), "and.b32"); got != want {
					t.Errorf("n=%d warp %d: %d iterations, want %d", n, w, got, want)
				}
			}
			return nil
		})
		if err != nil || !all {
			t.Fatalf("n=%d: complete %v, %v", n, all, err)
		}
	}
}
