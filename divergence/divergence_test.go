package divergence_test

import (
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
	"github.com/gpuwcet/gpuwcet/divergence"
)

// kernel wraps a body into a PTX kernel k(n, p) with enough registers.
func kernel(body string) string {
	return `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(
	.param .u32 k_param_n,
	.param .u64 k_param_p
)
{
	.reg .pred %p<16>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<16>;
	.reg .f32 %f<8>;
` + body + `
}
`
}

func analyze(t *testing.T, src string, l pass.Launch) *divergence.Info {
	t.Helper()
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, "k.ptx", []byte(src), 0)
	if err != nil {
		t.Fatalf("ParseFile: %v", err)
	}
	ks := f.Kernels()
	if len(ks) == 0 {
		t.Fatal("no kernel")
	}
	return analyzeFunc(t, fset, ks[0], l)
}

// analyzeFunc builds the graph of fn, analyses it under l and checks every
// class's warp-level graph.
func analyzeFunc(t *testing.T, fset *token.FileSet, fn *isa.Func, l pass.Launch) *divergence.Info {
	t.Helper()
	g, err := cfg.Build(fset, fn)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	info, err := divergence.Analyze(g, l, divergence.Options{})
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	for _, c := range info.Classes {
		if err := c.Graph.Check(); err != nil {
			t.Fatalf("%s: Check: %v", c.Name, err)
		}
	}
	return info
}

// summary is the comparable view of an Info.
type summary struct {
	Divergent []bool              // per branch
	Classes   map[string][]string // class name -> outcome per branch
}

func summarize(info *divergence.Info) summary {
	s := summary{Classes: map[string][]string{}}
	for _, br := range info.Branches {
		s.Divergent = append(s.Divergent, br.Divergent)
	}
	for _, c := range info.Classes {
		var outs []string
		for _, o := range c.Outcomes {
			outs = append(outs, o.String())
		}
		s.Classes[c.Name] = outs
	}
	return s
}

const (
	tidIfElse = `
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra THEN;
	add.s32 %r2, %r1, 1;
	bra.uni DONE;
THEN:
	add.s32 %r2, %r1, 2;
DONE:
	ret;`
	ctaidIf = `
	mov.u32 %r1, %ctaid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra DONE;
	add.s32 %r2, %r1, 1;
DONE:
	ret;`
	paramLoop = `
	ld.param.u32 %r1, [k_param_n];
	mov.u32 %r2, 0;
LOOP:
	add.s32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, %r1;
	@%p1 bra LOOP;
	ret;`
	strideLoop = `
	ld.param.u32 %r1, [k_param_n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ntid.x;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra DONE;
LOOP:
	add.s32 %r2, %r2, %r3;
	setp.lt.u32 %p2, %r2, %r1;
	@%p2 bra LOOP;
DONE:
	ret;`
	nested = `
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 16;
	@%p1 bra DONE;
	setp.ge.u32 %p2, %r1, 8;
	@%p2 bra ELSE;
	add.s32 %r2, %r1, 1;
	bra.uni JOIN;
ELSE:
	add.s32 %r2, %r1, 2;
JOIN:
	add.s32 %r3, %r1, 3;
DONE:
	ret;`
	merged = `
	mov.u32 %r1, %tid.x;
	mov.u32 %r5, 0;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra L;
	mov.u32 %r5, 1;
L:
	setp.eq.u32 %p2, %r5, 0;
	@%p2 bra M;
	add.s32 %r6, %r5, 1;
M:
	ret;`
	mergedUniform = `
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r5, 0;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra L;
	mov.u32 %r5, 1;
L:
	setp.eq.u32 %p2, %r5, 0;
	@%p2 bra M;
	add.s32 %r6, %r5, 1;
M:
	ret;`
	shuffle = `
	mov.u32 %r1, %ctaid.x;
	shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra M;
	add.s32 %r3, %r2, 1;
M:
	setp.eq.u32 %p2, %r1, 0;
	vote.sync.any.pred %p3, %p2, -1;
	@%p3 bra N;
	add.s32 %r4, %r2, 1;
N:
	ret;`
	lt16 = `
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra DONE;
	add.s32 %r2, %r1, 1;
DONE:
	ret;`
	and31 = `
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 31;
	setp.lt.u32 %p1, %r2, 16;
	@%p1 bra DONE;
	add.s32 %r3, %r1, 1;
DONE:
	ret;`
	argIf = `
	ld.param.u32 %r1, [k_param_n];
	setp.gt.u32 %p1, %r1, 100;
	@%p1 bra DONE;
	add.s32 %r2, %r1, 1;
DONE:
	ret;`
	tidY = `
	mov.u32 %r1, %tid.y;
	setp.lt.u32 %p1, %r1, 2;
	@%p1 bra DONE;
	add.s32 %r2, %r1, 1;
DONE:
	ret;`
	uniAsserted = `
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra.uni DONE;
	add.s32 %r2, %r1, 1;
DONE:
	ret;`
	guardedExit = `
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 40;
	@%p1 exit;
	add.s32 %r2, %r1, 1;
	ret;`
	sharedUniformLoad = `
	mov.u32 %r1, %ctaid.x;
	ld.shared.u32 %r2, [%r1];
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra A;
	add.s32 %r3, %r1, 1;
A:
	ld.local.u32 %r4, [%r1];
	setp.eq.u32 %p2, %r4, 0;
	@%p2 bra B;
	add.s32 %r5, %r1, 1;
B:
	mov.u32 %r6, %tid.x;
	ld.shared.u32 %r7, [%r6];
	setp.eq.u32 %p3, %r7, 0;
	@%p3 bra C;
	add.s32 %r8, %r1, 1;
C:
	ret;`
	// -O0 code keeps its variables in frame slots (clang: generic
	// [%SP+k]). slotLoop is reduce_tree's stride loop: the stride lives in
	// slot 4 and is reloaded inside the divergent "if (tid < s)"; the
	// reload writes no new value, so the loop stays uniform.
	slotFrame = `
	.local .align 4 .b8 __local_depot0[16];
	.reg .b64 %SP;
	.reg .b64 %SPL;
	mov.u64 %SPL, __local_depot0;
	cvta.local.u64 %SP, %SPL;
	mov.u32 %r1, %tid.x;
	st.u32 [%SP+0], %r1;`
	slotLoop = slotFrame + `
	mov.u32 %r2, %ntid.x;
	shr.u32 %r3, %r2, 1;
	st.u32 [%SP+4], %r3;
H:
	ld.u32 %r4, [%SP+4];
	setp.eq.s32 %p1, %r4, 0;
	@%p1 bra X;
	ld.u32 %r5, [%SP+0];
	ld.u32 %r6, [%SP+4];
	setp.ge.u32 %p2, %r5, %r6;
	@%p2 bra S;
	ld.u32 %r7, [%SP+4];
	add.s32 %r8, %r5, %r7;
S:
	bar.sync 0;
	ld.u32 %r9, [%SP+4];
	shr.u32 %r10, %r9, 1;
	st.u32 [%SP+4], %r10;
	bra.uni H;
X:
	ret;`
	// A uniform value stored under a divergent branch: the slot differs
	// between the lanes that ran the store and the others.
	slotDivergentStore = slotFrame + `
	mov.u32 %r2, 0;
	st.u32 [%SP+4], %r2;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra L;
	mov.u32 %r3, 1;
	st.u32 [%SP+4], %r3;
L:
	ld.u32 %r4, [%SP+4];
	setp.eq.u32 %p2, %r4, 0;
	@%p2 bra M;
	add.s32 %r6, %r4, 1;
M:
	ret;`
	// A slot counted up in a loop the lanes leave in different
	// iterations: read after the loop, it differs between lanes.
	slotLoopExit = slotFrame + `
	mov.u32 %r2, 0;
	st.u32 [%SP+4], %r2;
H:
	ld.u32 %r4, [%SP+4];
	add.s32 %r5, %r4, 1;
	st.u32 [%SP+4], %r5;
	ld.u32 %r6, [%SP+0];
	setp.lt.u32 %p1, %r5, %r6;
	@%p1 bra H;
	ld.u32 %r7, [%SP+4];
	setp.eq.u32 %p2, %r7, 3;
	@%p2 bra M;
	add.s32 %r8, %r7, 1;
M:
	ret;`
	// The stack-overflow check ptxas adds to code with a frame, in PTX: a
	// branch over a trap on a condition the analysis cannot show uniform
	// (here %clock). Under A-NO-TRAP no lane takes the trap side: the
	// branch is uniform, and the slot stored before it stays uniform.
	slotTrap = slotFrame + `
	mov.u32 %r2, %ctaid.x;
	st.u32 [%SP+4], %r2;
	mov.u32 %r3, %clock;
	setp.ne.u32 %p1, %r3, 7;
	@%p1 bra L;
	mov.u32 %r2, %tid.x;
	st.u32 [%SP+4], %r2;
	trap;
L:
	ld.u32 %r4, [%SP+4];
	setp.eq.u32 %p2, %r4, 0;
	@%p2 bra M;
	add.s32 %r6, %r4, 1;
M:
	ret;`
)

func TestClassify(t *testing.T) {
	all := func(outs ...string) map[string][]string { return map[string][]string{"all warps": outs} }
	b64 := pass.Launch{Block: [3]int{64, 1, 1}}
	tests := []struct {
		name   string
		body   string
		launch pass.Launch
		want   summary
		reason string
	}{
		{"tid if/else", tidIfElse, pass.Launch{}, summary{[]bool{true}, all("divergent")},
			"a condition on %tid.x may split any warp"},
		{"ctaid if", ctaidIf, pass.Launch{}, summary{[]bool{false}, all("uniform-unknown")},
			"%ctaid is the same for every thread of a block"},
		{"param loop", paramLoop, pass.Launch{}, summary{[]bool{false}, all("uniform-unknown")},
			"a counter compared with a kernel parameter is uniform"},
		{"stride loop", strideLoop, pass.Launch{}, summary{[]bool{true, true}, all("divergent", "divergent")},
			"i = tid; i < n; i += ntid exits divergently"},
		{"nested", nested, pass.Launch{}, summary{[]bool{true, true}, all("divergent", "divergent")}, ""},
		{"merged value", merged, pass.Launch{}, summary{[]bool{true, true}, all("divergent", "divergent")},
			"%r5 is assigned on one side of a divergent branch: varying at the join"},
		{"merged uniform", mergedUniform, pass.Launch{}, summary{[]bool{false, false}, all("uniform-unknown", "uniform-unknown")},
			"same shape under a uniform branch stays uniform"},
		{"shuffle and vote", shuffle, pass.Launch{}, summary{[]bool{true, true}, all("divergent", "divergent")},
			"shfl and vote results are treated as varying"},
		{"tid<16 block 48", lt16, pass.Launch{Block: [3]int{48, 1, 1}},
			summary{[]bool{true}, map[string][]string{"warp 0": {"divergent"}, "warp 1": {"never-taken"}}},
			"warp 1 holds tid 32..47 (half full): never below 16"},
		{"tid&31<16 block 64", and31, b64,
			summary{[]bool{true}, map[string][]string{"warps 0-1": {"divergent"}}},
			"every warp has lanes on both sides"},
		{"arg resolved", argIf, pass.Launch{Block: [3]int{64, 1, 1}, Args: map[string]int64{"k_param_n": 50}},
			summary{[]bool{false}, map[string][]string{"warps 0-1": {"never-taken"}}},
			"n=50 > 100 is false for the whole warp"},
		{"tid.y block 16x16", tidY, pass.Launch{Block: [3]int{16, 16, 1}},
			summary{[]bool{true}, map[string][]string{"warp 0": {"always-taken"}, "warps 1-7": {"never-taken"}}},
			"warp 0 holds tid.y 0 and 1"},
		{".uni not trusted", uniAsserted, pass.Launch{}, summary{[]bool{true}, all("divergent")},
			".uni is an assertion, not a proof"},
		{"guarded exit block 64", guardedExit, b64,
			summary{[]bool{true}, map[string][]string{"warp 0": {"never-taken"}, "warp 1": {"divergent"}}},
			"tid >= 40 exits part of warp 1"},
		{"loads", sharedUniformLoad, pass.Launch{}, summary{[]bool{false, true, true}, all("uniform-unknown", "divergent", "divergent")},
			"shared at a uniform address is uniform; local memory is per thread; a tid-indexed load varies"},
		{"slot loop", slotLoop, pass.Launch{}, summary{[]bool{false, true}, all("uniform-unknown", "divergent")},
			"a stride kept in a frame slot and reloaded under the divergent if stays uniform"},
		{"slot divergent store", slotDivergentStore, pass.Launch{}, summary{[]bool{true, true}, all("divergent", "divergent")},
			"a slot stored on one side of a divergent branch varies at the join"},
		{"slot trap", slotTrap, pass.Launch{}, summary{[]bool{false, false}, all("always-taken", "uniform-unknown")},
			"a side that only traps is taken by no lane (A-NO-TRAP)"},
		{"slot loop exit", slotLoopExit, pass.Launch{}, summary{[]bool{true, true}, all("divergent", "divergent")},
			"a slot counted in a loop left in different iterations varies after it"},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.name, " ", "_"), func(t *testing.T) {
			info := analyze(t, kernel(tt.body), tt.launch)
			if diff := cmp.Diff(tt.want, summarize(info)); diff != "" {
				t.Errorf("%s: Analyze mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestReason(t *testing.T) {
	info := analyze(t, kernel(merged), pass.Launch{})
	got := []string{info.Branches[0].Reason, info.Branches[1].Reason}
	want := []string{
		"condition %p1 depends on %tid.x (line 14) via %r1",
		// %r5 merged at the join of the triangle is select(%p1, 0, 1)
		// (gated SSA, cfg/values gatePhi): the dependence is on %p1.
		"condition %p2 depends on %tid.x (line 14) via %r1, %p1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reason mismatch (-want +got):\n%s", diff)
	}
}

func TestDivergentLoop(t *testing.T) {
	info := analyze(t, kernel(strideLoop), pass.Launch{})
	c := info.Classes[0]
	if len(c.DivergentLoops) != 1 || c.SerialLoops[c.DivergentLoops[0]] {
		t.Fatalf("DivergentLoops = %v, serial %v; want the one loop, not serial", c.DivergentLoops, c.SerialLoops)
	}
	if len(c.Graph.Loops) != 1 {
		t.Errorf("warp-level CFG has %d loops, want 1 (the loop stays a loop)", len(c.Graph.Loops))
	}
}

// TestBothOrders checks that a divergent if/else gets both orders: the
// branch block has four successors: each side alone (all active lanes
// agree), and both sides, taken first or fall-through first.
func TestBothOrders(t *testing.T) {
	info := analyze(t, kernel(tidIfElse), pass.Launch{})
	g := info.Classes[0].Graph
	entry := g.Entry()
	if len(entry.Succs) != 4 {
		t.Fatalf("entry has %d successors, want 4 (taken only, fall-through only, taken first, fall-through first)", len(entry.Succs))
	}
	var paths []string
	var walk func(b *cfg.Block, p []string)
	walk = func(b *cfg.Block, p []string) {
		if b == g.Exit {
			paths = append(paths, strings.Join(p, " "))
			return
		}
		p = append(p, b.Orig.Name())
		for _, e := range b.Succs {
			walk(e.To, p)
		}
	}
	walk(entry, nil)
	want := []string{"b0 b2 b3", "b0 b1 b3", "b0 b2 b1 b3", "b0 b1 b2 b3"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("paths mismatch (-want +got):\n%s", diff)
	}
}

func TestExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/*/kernel.ptx")
	if len(files) == 0 {
		t.Skip("no examples")
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		info := analyze(t, string(src), pass.Launch{Block: [3]int{64, 1, 1}})
		if filepath.Base(filepath.Dir(file)) == "divergent" {
			want := summary{[]bool{true}, map[string][]string{"warps 0-1": {"divergent"}}}
			if diff := cmp.Diff(want, summarize(info)); diff != "" {
				t.Errorf("%s: (tid & 16) != 0 splits every warp (-want +got):\n%s", file, diff)
			}
		}
	}
}

// leaveLoop: lanes leave the loop at the iteration equal to their lane
// (counter == tid & 3) through a store, before the reconvergence point.
const leaveLoop = `
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 3;
	mov.u32 %r3, 0;
LOOP:
	setp.eq.s32 %p1, %r3, %r2;
	@%p1 bra LEAVE;
	add.s32 %r3, %r3, 1;
	setp.lt.s32 %p2, %r3, 3;
	@%p2 bra LOOP;
	bra.uni DONE;
LEAVE:
	st.global.f32 [%rd1], %f1;
DONE:
	ret;`

// TestDrain: the leaving lanes' store is also placed after the loop, once
// per group that may wait there: lanes-1 of them, or, when the loop bound
// is known, as many as the branches reconverging there run: the break and
// the latch (whose counter is varying after the divergent break; its exit
// side is the jump to DONE), 3 times each.
func TestDrain(t *testing.T) {
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, "k.ptx", []byte(kernel(leaveLoop)), 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := cfg.Build(fset, f.Kernels()[0])
	if err != nil {
		t.Fatal(err)
	}
	copies := func(o divergence.Options) int {
		info, err := divergence.Analyze(g, pass.Launch{Block: [3]int{32, 1, 1}}, o)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, b := range info.Classes[0].Graph.Blocks {
			if len(b.Instrs) > 0 && strings.HasPrefix(b.Instrs[0].Text, "st.global") {
				n++
			}
		}
		return n
	}
	all := copies(divergence.Options{})
	three := copies(divergence.Options{LoopBound: func(*cfg.Loop) (int64, bool) { return 3, true }})
	unknown := copies(divergence.Options{LoopBound: func(*cfg.Loop) (int64, bool) { return 0, false }})
	if all-three != 31-6 || unknown != all {
		t.Errorf("store copies: %d with lanes-1 groups, %d with loop bound 3 (want 25 fewer), %d with the bound unknown (want %d)", all, three, unknown, all)
	}
}
