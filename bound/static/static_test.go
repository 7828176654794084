package static

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// testHW: "add" and others on alu (init 1, lat 3), "mul" on a slow unit
// (init 4, lat 2), ld/st on mem (init 2, lat 20); bra and nop issue on alu.
func testHW() *hwdesc.Desc {
	return &hwdesc.Desc{
		Name:        "static-test",
		ClockMHz:    1000,
		DefaultUnit: "alu",
		Units:       []hwdesc.Unit{{Name: "alu", Init: 1, Lat: 3}, {Name: "mul", Init: 4, Lat: 2}, {Name: "mem", Init: 2, Lat: 20}},
		Map:         []hwdesc.Rule{{Match: "mul*", Unit: "mul"}, {Match: "ld*", Unit: "mem"}, {Match: "st*", Unit: "mem"}},
	}
}

// regs gives cfgtest instructions registers: "op rD rS..." writes rD and
// reads the others (cfgtest leaves operands empty).
func regs(fn *isa.Func) {
	for _, in := range fn.Instrs {
		if in.Kind.IsTerminator() || in.Kind == isa.KindBarrier {
			continue
		}
		f := strings.Fields(in.Text)
		if in.Guard.Reg != "" {
			f = f[1:]
		}
		for i, a := range f[1:] {
			o := isa.Operand{Kind: isa.OpReg, Text: a, Regs: []string{a}}
			if i == 0 {
				in.Dsts = append(in.Dsts, o)
			} else {
				in.Srcs = append(in.Srcs, o)
			}
		}
	}
}

type kernel struct {
	g   *cfg.Graph
	eng *phases.Engine
}

func build(t testing.TB, src string) *kernel { return buildHW(t, src, testHW()) }

func buildHW(t testing.TB, src string, hw *hwdesc.Desc) *kernel {
	t.Helper()
	fset, fn := cfgtest.Must(t, src)
	regs(fn)
	g, err := cfg.Build(fset, fn)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := phases.NewEngine(hw)
	if err != nil {
		t.Fatal(err)
	}
	return &kernel{g: g, eng: eng}
}

// boundsByLabel keys loop bounds by the header's label.
func boundsByLabel(m map[string]int64) LoopBound {
	return func(l *cfg.Loop) (int64, error) {
		for _, lab := range l.Header.Labels {
			if n, ok := m[lab]; ok {
				return n, nil
			}
		}
		n, ok := int64(0), false
		if !ok {
			return 0, &Error{Msg: fmt.Sprintf("loop %s has no bound", l.Label()), Unbounded: true}
		}
		return n, nil
	}
}

func (k *kernel) analyze(t testing.TB, warps int, bounds map[string]int64) (*Result, error) {
	t.Helper()
	return k.analyzePartial(t, warps, bounds, false)
}

// analyzePartial is analyze with Input.Partial.
func (k *kernel) analyzePartial(t testing.TB, warps int, bounds map[string]int64, partial bool) (*Result, error) {
	t.Helper()
	ws := make([]int, warps)
	for i := range ws {
		ws[i] = i
	}
	return Analyze(&Input{Engine: k.eng, Graph: k.g, Classes: []Class{{Warps: ws, Graph: k.g}}, Bound: boundsByLabel(bounds),
		Uniform: func(*cfg.Block) bool { return true }, Partial: partial})
}

// fixedPath is the bound command's figure for one path replicated to
// warps, without the per-path charge (phases.Section.Chains), which the
// static walk does not compute: it charges the class's duration on every
// resource it uses. That figure is at least the bound command's.
func fixedPath(t *testing.T, k *kernel, path []*isa.Instr, warps int) hwdesc.Cycles {
	t.Helper()
	var ops []phases.Op
	for _, in := range path {
		op, err := k.eng.Prepare(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, op)
	}
	c := phases.BuildClass(k.eng, ops, false)
	for i := 0; i < warps; i++ {
		c.Warps = append(c.Warps, i)
	}
	p := &phases.Profile{Func: "f", HW: k.eng.HW(), NumWarps: warps, Classes: []*phases.Class{c}, NumSections: len(c.Sections)}
	withChains, err := bound.Compute(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Sections {
		s.Chains = nil
	}
	r, err := bound.Compute(p)
	if err != nil {
		t.Fatal(err)
	}
	if withChains.Bound > r.Bound {
		t.Fatalf("per-path charge %d above the whole-class charge %d", withChains.Bound, r.Bound)
	}
	return r.Bound
}

func TestStraightLineEqualsBound(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		warps     int
	}{
		{"one", "add r1 r2\nmul r3 r1\nst r4 r3\nret\n", 1},
		{"deps", "ld r1 r0\nadd r2 r1\nmul r3 r2 r1\nmul r4 r3\nadd r5 r4 r2\nret\n", 4},
		{"barriers", "ld r1 r0\nbar\nadd r2 r1\nmul r3 r2\nbar\nst r9 r3\nret\n", 8},
		{"empty-sections", "bar\nbar\nret\n", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := build(t, tc.src)
			r, err := k.analyze(t, tc.warps, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := fixedPath(t, k, k.g.Func.Instrs, tc.warps)
			if r.Bound != want {
				t.Errorf("static bound %d, bound command %d", r.Bound, want)
			}
		})
	}
}

// paths of the if/else shapes below, as instruction indices.
func pick(fn *isa.Func, idx ...int) []*isa.Instr {
	var p []*isa.Instr
	for _, i := range idx {
		p = append(p, fn.Instrs[i])
	}
	return p
}

func TestIfElseTakesWorseSide(t *testing.T) {
	src := `ld r1 r0
	@p bra ELSE
	mul r2 r1
	mul r3 r2
	mul r4 r3
	bra JOIN
ELSE:
	add r2 r1
JOIN:
	st r9 r2
	ret
`
	k := build(t, src)
	r, err := k.analyze(t, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	fn := k.g.Func
	then := fixedPath(t, k, pick(fn, 0, 1, 2, 3, 4, 5, 7, 8), 2)
	els := fixedPath(t, k, pick(fn, 0, 1, 6, 7, 8), 2)
	if then <= els {
		t.Fatalf("test shape: then side %d not worse than else side %d", then, els)
	}
	if r.Bound < then {
		t.Errorf("static bound %d below the then path %d", r.Bound, then)
	}
	// D and I are maximised separately, so the bound may exceed the worse
	// path; here the then side dominates both terms and the bound is exact.
	if r.Bound != then {
		t.Errorf("static bound %d, worse path %d", r.Bound, then)
	}
}

// A divergent if/else: the divergence pass's warp-level graph executes both
// sides one after the other; given that graph the bound costs both.
func TestDivergentIfElseCostsBoth(t *testing.T) {
	thread := build(t, `ld r1 r0
	@p bra ELSE
	mul r2 r1
	bra JOIN
ELSE:
	add r2 r1
	add r3 r2
JOIN:
	st r9 r2
	ret
`)
	fn := thread.g.Func
	// Warp-level graph: b0 -> then -> else' -> join, as cfg.Derive builds it.
	tb := thread.g.Blocks
	wg, err := cfg.Derive(thread.g, []*cfg.Block{tb[0], tb[1], tb[2], tb[3]})
	if err != nil {
		t.Fatal(err)
	}
	wg.AddEdge(wg.Blocks[0], wg.Blocks[1], cfg.EdgeFallThrough)
	wg.AddEdge(wg.Blocks[1], wg.Blocks[2], cfg.EdgeResume)
	wg.AddEdge(wg.Blocks[2], wg.Blocks[3], cfg.EdgeFallThrough)
	wg.AddEdge(wg.Blocks[3], wg.Exit, cfg.EdgeExit)
	wg.Recompute()
	r, err := Analyze(&Input{Engine: thread.eng, Graph: thread.g, Classes: []Class{{Warps: []int{0, 1}, Graph: wg}}, Bound: boundsByLabel(nil)})
	if err != nil {
		t.Fatal(err)
	}
	both := fixedPath(t, thread, pick(fn, 0, 1, 2, 3, 4, 5, 6, 7), 2)
	if r.Bound != both {
		t.Errorf("static bound %d, both sides in turn %d", r.Bound, both)
	}
	single, err := thread.analyze(t, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if single.Bound >= r.Bound {
		t.Errorf("warp-level bound %d not above the thread-level bound %d", r.Bound, single.Bound)
	}
}

const countedLoop = `ld r1 r0
LOOP:
	ld r2 r1
	add r3 r3 r2
	add r1 r1
	@p bra LOOP
	st r9 r3
	ret
`

func TestLoopBoundArithmetic(t *testing.T) {
	k := build(t, countedLoop)
	at := func(n int64) hwdesc.Cycles {
		r, err := k.analyze(t, 4, map[string]int64{"LOOP": n})
		if err != nil {
			t.Fatal(err)
		}
		return r.Bound
	}
	// Small bounds are computed exactly: compare with the unrolled path.
	fn := k.g.Func
	for n := int64(1); n <= 3; n++ {
		path := pick(fn, 0)
		for i := int64(0); i < n; i++ {
			path = append(path, pick(fn, 1, 2, 3, 4)...)
		}
		path = append(path, pick(fn, 5, 6)...)
		if got, want := at(n), fixedPath(t, k, path, 4); got != want {
			t.Errorf("bound %d: static %d, unrolled %d", n, got, want)
		}
	}
	d := at(101) - at(100)
	if d <= 0 {
		t.Fatalf("bound(101) - bound(100) = %d", d)
	}
	for _, n := range []int64{20, 1000, 1_000_000, 1_000_000_000} {
		if got := at(n+1) - at(n); got != d {
			t.Errorf("bound(%d+1) - bound(%d) = %d, want %d", n, n, got, d)
		}
	}
	// Soundness of the acceleration against the unrolled path.
	for _, n := range []int64{5, 9, 30} {
		path := pick(fn, 0)
		for i := int64(0); i < n; i++ {
			path = append(path, pick(fn, 1, 2, 3, 4)...)
		}
		path = append(path, pick(fn, 5, 6)...)
		if got, want := at(n), fixedPath(t, k, path, 4); got < want {
			t.Errorf("bound %d: static %d below the unrolled path %d", n, got, want)
		}
	}
	if at(0) != at(1) {
		t.Errorf("bound 0 (%d) differs from bound 1 (%d): an entered loop runs its header once", at(0), at(1))
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		bounds    map[string]int64
		unbounded bool
		want      string
	}{
		{"unbounded", countedLoop, nil, true, "loop LOOP has no bound"},
		{"negative", countedLoop, map[string]int64{"LOOP": -1}, false, "test.s:3:2: negative loop bound -1"},
		{"irreducible", "@p bra B\nA:\nadd r1 r1\nB:\nadd r2 r2\n@q bra A\nret\n", nil, true, "irreducible loop"},
		{"unresolved", "brx\nret\n", nil, true, "no known targets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := build(t, tc.src)
			_, err := k.analyze(t, 2, tc.bounds)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if se.Unbounded != tc.unbounded || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v (unbounded %v), want %q (unbounded %v)", err, se.Unbounded, tc.want, tc.unbounded)
			}
		})
	}
}

func TestBarrierDivergenceRejected(t *testing.T) {
	k := build(t, "@p bra S\nbar\nS:\nadd r1 r1\nret\n")
	_, err := Analyze(&Input{Engine: k.eng, Graph: k.g, Classes: []Class{{Warps: []int{0, 1}, Graph: k.g}}, Bound: boundsByLabel(nil)})
	if err == nil || !strings.Contains(err.Error(), "different barrier sequences") || !err.(*Error).Unbounded {
		t.Fatalf("err = %v", err)
	}
	// The same branch, known uniform across the block, is accepted.
	if _, err := k.analyze(t, 2, nil); err != nil {
		t.Fatal(err)
	}
}

func TestSegmentsOfBarrierLoop(t *testing.T) {
	k := build(t, `ld r1 r0
bar
L:
	bar
	add r1 r1
	@p bra SKIP
	mul r2 r1
SKIP:
	@q bra L
	st r9 r2
	ret
`)
	r, err := k.analyze(t, 2, map[string]int64{"L": 8})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range r.Segments {
		got = append(got, fmt.Sprintf("%s->%s %d", name(s.From), name(s.To), s.Bound))
	}
	// By hand (2 warps): entry->bar2: ld ready 22, I 2 (the other warp's
	// ld initiation: no issue cycle is charged on a resource the path
	// initiates on, docs/model.md Lemma 5), WUB 24; bar2->bar3: empty;
	// bar3->bar3: add (ready 4), bra (issue 1), mul (issue 4, ready 10),
	// bra: D 10, I 3+4 = 7 (the other warp's 3 alu and its mul
	// initiations), WUB 17; bar3->end: then st issues at 10, ready 32, I 9,
	// WUB 41.
	want := []string{"-->2 24", "2->3 0", "3->3 17", "3->- 41"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("segments (-want +got):\n%s", diff)
	}
	// Path: entry->bar2 (24), bar2->bar3 (0) on the first of the eight
	// executions of bar3, bar3->bar3 (17) on the seven others, then the
	// end (41). Weighting bar3 by its largest incoming section would
	// charge 17 on the first one too.
	if want := hwdesc.Cycles(24 + 0 + 7*17 + 41); r.Bound != want {
		t.Errorf("bound %d, want %d", r.Bound, want)
	}
}

func name(in *isa.Instr) string {
	if in == nil {
		return "-"
	}
	return fmt.Sprint(in.Index + 1)
}

// TestResumeEdgeWaits: on a warp-level graph running the taken side of a
// divergent if/else first, the edges are: the taken branch (waits under
// branch_wait taken), a resume edge from the end of the else side to the
// then side (a redirect after an ordinary instruction: charged like a
// taken branch, beyond the engine), and the jump to the join (waits). The
// graph has one path, so the static D is exactly the engine's duration on
// that path with the resume redirect charged as a branch.
func TestResumeEdgeWaits(t *testing.T) {
	hw := testHW()
	hw.Map = append(hw.Map, hwdesc.Rule{Match: "bra", Unit: "mul"}) // ready 6+overhead after its start
	hw.Pipeline = hwdesc.Pipeline{Overhead: 2, BranchWait: hwdesc.BranchWaitTaken, RetIssues: true}
	thread := buildHW(t, `ld r1 r0
	@p bra ELSE
	mul r2 r1
	bra JOIN
ELSE:
	add r2 r1
	add r3 r2
JOIN:
	st r9 r2
	ret
`, hw)
	fn := thread.g.Func
	tb := thread.g.Blocks
	// b0 -taken-> ELSE -resume-> then -jump-> JOIN.
	wg, err := cfg.Derive(thread.g, []*cfg.Block{tb[0], tb[2], tb[1], tb[3]})
	if err != nil {
		t.Fatal(err)
	}
	wg.AddEdge(wg.Blocks[0], wg.Blocks[1], cfg.EdgeTaken)
	wg.AddEdge(wg.Blocks[1], wg.Blocks[2], cfg.EdgeResume)
	wg.AddEdge(wg.Blocks[2], wg.Blocks[3], cfg.EdgeJump)
	wg.AddEdge(wg.Blocks[3], wg.Exit, cfg.EdgeExit)
	wg.Recompute()
	r, err := Analyze(&Input{Engine: thread.eng, Graph: thread.g, Classes: []Class{{Warps: []int{0}, Graph: wg}}, Bound: boundsByLabel(nil)})
	if err != nil {
		t.Fatal(err)
	}
	path := pick(fn, 0, 1, 4, 5, 2, 3, 6, 7)
	ops := make([]*phases.Op, len(path))
	for i, in := range path {
		op, err := thread.eng.Prepare(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		ops[i] = &op
	}
	redirect := phases.PathRedirects(fn, path)
	if diff := cmp.Diff([]bool{false, true, false, true, false, true, false}, redirect); diff != "" {
		t.Fatalf("redirects (-want +got):\n%s", diff)
	}
	engine := phases.BuildClassPath(thread.eng, ops, redirect, false).Duration
	ops[3].WaitTaken = true // the resume redirect after "add r3 r2", charged as a taken branch
	charged := phases.BuildClassPath(thread.eng, ops, redirect, false).Duration
	got := r.Segments[0].Classes[0].Duration
	if got != charged || charged <= engine {
		t.Errorf("static D %d; engine %d, with the resume redirect charged %d", got, engine, charged)
	}
	// With branch_wait none nothing waits: the static D is the engine's.
	hw.Pipeline.BranchWait = hwdesc.BranchWaitNone
	eng, err := phases.NewEngine(hw)
	if err != nil {
		t.Fatal(err)
	}
	r, err = Analyze(&Input{Engine: eng, Graph: thread.g, Classes: []Class{{Warps: []int{0}, Graph: wg}}, Bound: boundsByLabel(nil)})
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range path {
		op, _ := eng.Prepare(nil, in)
		ops[i] = &op
	}
	if got, want := r.Segments[0].Classes[0].Duration, phases.BuildClassPath(eng, ops, redirect, false).Duration; got != want {
		t.Errorf("branch_wait none: static D %d, engine %d", got, want)
	}
}
