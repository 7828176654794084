package cfg_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// view is an exported, pointer-free summary of a graph for cmp.Diff.
type view struct {
	Blocks      []string // "bI kind succs=[...] idom=X ipdom=Y depth=D [unreachable]"
	Loops       []string // "header=bH latches=[...] blocks=[...] exits=[...] parent=P depth=D"
	Irreducible []string // "entries=[...] blocks=[...]"
	Unresolved  int
}

func names(bs []*cfg.Block) string {
	var s []string
	for _, b := range bs {
		s = append(s, b.Name())
	}
	return "[" + strings.Join(s, " ") + "]"
}

func succs(es []cfg.Edge) string {
	var s []string
	for _, e := range es {
		s = append(s, e.To.Name()+":"+e.Kind.String())
	}
	return "[" + strings.Join(s, " ") + "]"
}

func name(b *cfg.Block) string {
	if b == nil {
		return "-"
	}
	return b.Name()
}

func viewOf(g *cfg.Graph) view {
	var v view
	for _, b := range g.Blocks {
		s := fmt.Sprintf("%s %s succs=%s idom=%s ipdom=%s depth=%d", b, b.Kind, succs(b.Succs), name(b.Idom()), name(b.IPdom()), b.LoopDepth())
		if !b.Reachable {
			s += " unreachable"
		}
		v.Blocks = append(v.Blocks, s)
	}
	for _, l := range g.Loops {
		parent := "-"
		if l.Parent != nil {
			parent = name(l.Parent.Header)
		}
		var ex []string
		for _, e := range l.Exits {
			ex = append(ex, e.From.Name()+"->"+e.To.Name())
		}
		v.Loops = append(v.Loops, fmt.Sprintf("header=%s latches=%s blocks=%s exits=[%s] parent=%s depth=%d",
			l.Header, names(l.Latches), names(l.Blocks), strings.Join(ex, " "), parent, l.Depth))
	}
	for _, r := range g.Irreducible {
		v.Irreducible = append(v.Irreducible, fmt.Sprintf("entries=%s blocks=%s", names(r.Entries), names(r.Blocks)))
	}
	v.Unresolved = len(g.Unresolved)
	return v
}

// build parses src, builds and checks the graph.
func build(t *testing.T, src string) *cfg.Graph {
	t.Helper()
	fset, fn := cfgtest.Must(t, src)
	g, err := cfg.Build(fset, fn)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if err := g.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	return g
}

func TestShapes(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		src    string
		want   view
	}{
		{
			name:   "if_else",
			reason: "a guarded branch has taken then fall-through successors; the join post-dominates both arms",
			src: `
	setp
	@p bra ELSE
	add
	bra JOIN
ELSE:
	sub
JOIN:
	ret
`,
			want: view{Blocks: []string{
				"b0 if succs=[b2:taken b1:fall] idom=- ipdom=b3 depth=0",
				"b1 jump succs=[b3:jump] idom=b0 ipdom=b3 depth=0",
				"b2 plain succs=[b3:fall] idom=b0 ipdom=b3 depth=0",
				"b3 return succs=[exit:exit] idom=b0 ipdom=exit depth=0",
			}},
		},
		{
			name:   "nested_loops",
			reason: "an inner loop is nested in the outer one, with depth 2 and the outer loop as parent",
			src: `
	mov
OUTER:
	mov
INNER:
	add
	@p bra INNER
	@q bra OUTER
	ret
`,
			want: view{
				Blocks: []string{
					"b0 plain succs=[b1:fall] idom=- ipdom=b1 depth=0",
					"b1 plain succs=[b2:fall] idom=b0 ipdom=b2 depth=1",
					"b2 if succs=[b2:taken b3:fall] idom=b1 ipdom=b3 depth=2",
					"b3 if succs=[b1:taken b4:fall] idom=b2 ipdom=b4 depth=1",
					"b4 return succs=[exit:exit] idom=b3 ipdom=exit depth=0",
				},
				Loops: []string{
					"header=b1 latches=[b3] blocks=[b1 b2 b3] exits=[b3->b4] parent=- depth=1",
					"header=b2 latches=[b2] blocks=[b2] exits=[b2->b3] parent=b1 depth=2",
				},
			},
		},
		{
			name:   "several_back_edges",
			reason: "two back edges to one header (a continue) make one loop with two latches",
			src: `
HEAD:
	add
	@p bra HEAD
	sub
	@q bra HEAD
	exit
`,
			want: view{
				Blocks: []string{
					"b0 if succs=[b0:taken b1:fall] idom=- ipdom=b1 depth=1",
					"b1 if succs=[b0:taken b2:fall] idom=b0 ipdom=b2 depth=1",
					"b2 exit succs=[exit:exit] idom=b1 ipdom=exit depth=0",
				},
				Loops: []string{"header=b0 latches=[b0 b1] blocks=[b0 b1] exits=[b1->b2] parent=- depth=1"},
			},
		},
		{
			name:   "irreducible",
			reason: "a cycle entered at two blocks is reported as irreducible and is no natural loop",
			src: `
	@p bra B
A:
	add
B:
	sub
	@q bra A
	ret
`,
			want: view{
				Blocks: []string{
					"b0 if succs=[b2:taken b1:fall] idom=- ipdom=b2 depth=0",
					"b1 plain succs=[b2:fall] idom=b0 ipdom=b2 depth=0",
					"b2 if succs=[b1:taken b3:fall] idom=b0 ipdom=b3 depth=0",
					"b3 return succs=[exit:exit] idom=b2 ipdom=exit depth=0",
				},
				Irreducible: []string{"entries=[b1 b2] blocks=[b1 b2]"},
			},
		},
		{
			name:   "irreducible_in_loop",
			reason: "an irreducible region nested inside a natural loop is still found",
			src: `
TOP:
	@p bra B
A:
	add
B:
	sub
	@q bra A
	@r bra TOP
	ret
`,
			want: view{
				Blocks: []string{
					"b0 if succs=[b2:taken b1:fall] idom=- ipdom=b2 depth=1",
					"b1 plain succs=[b2:fall] idom=b0 ipdom=b2 depth=1",
					"b2 if succs=[b1:taken b3:fall] idom=b0 ipdom=b3 depth=1",
					"b3 if succs=[b0:taken b4:fall] idom=b2 ipdom=b4 depth=1",
					"b4 return succs=[exit:exit] idom=b3 ipdom=exit depth=0",
				},
				Loops:       []string{"header=b0 latches=[b3] blocks=[b0 b1 b2 b3] exits=[b3->b4] parent=- depth=1"},
				Irreducible: []string{"entries=[b1 b2] blocks=[b1 b2]"},
			},
		},
		{
			name:   "infinite_loop",
			reason: "blocks that cannot reach the exit have no post-dominator; the branch is post-dominated by its other side",
			src: `
	@p bra SPIN
	ret
SPIN:
	add
	bra SPIN
`,
			want: view{
				Blocks: []string{
					"b0 if succs=[b2:taken b1:fall] idom=- ipdom=b1 depth=0",
					"b1 return succs=[exit:exit] idom=b0 ipdom=exit depth=0",
					"b2 jump succs=[b2:jump] idom=b0 ipdom=- depth=1",
				},
				Loops: []string{"header=b2 latches=[b2] blocks=[b2] exits=[] parent=- depth=1"},
			},
		},
		{
			name:   "only_infinite_loop",
			reason: "a function that never exits has an empty post-dominator tree",
			src: `
L:
	bra L
`,
			want: view{
				Blocks: []string{"b0 jump succs=[b0:jump] idom=- ipdom=- depth=1"},
				Loops:  []string{"header=b0 latches=[b0] blocks=[b0] exits=[] parent=- depth=1"},
			},
		},
		{
			name:   "unreachable_padding",
			reason: "SASS-style padding after EXIT and a BRA to itself are kept, unreachable, outside loops and trees",
			src: `
	add
	exit
SELF:
	bra SELF
	nop
	nop
`,
			want: view{Blocks: []string{
				"b0 exit succs=[exit:exit] idom=- ipdom=exit depth=0",
				"b1 jump succs=[b1:jump] idom=- ipdom=- depth=0 unreachable",
				"b2 plain succs=[exit:exit] idom=- ipdom=- depth=0 unreachable",
			}},
		},
		{
			name:   "guarded_ret",
			reason: "a guarded ret has an exit edge then a fall-through",
			src: `
	@p ret
	add
	@!q exit
	trap
`,
			want: view{Blocks: []string{
				"b0 return succs=[exit:exit b1:fall] idom=- ipdom=exit depth=0",
				"b1 exit succs=[exit:exit b2:fall] idom=b0 ipdom=exit depth=0",
				"b2 exit succs=[exit:exit] idom=b1 ipdom=exit depth=0",
			}},
		},
		{
			name:   "brx_idx",
			reason: "an indirect branch has one edge per distinct target, from labels or a .branchtargets list",
			src: `
.targets TS A B A
	brx TS
A:
	add
	bra END
B:
	sub
END:
	ret
`,
			want: view{Blocks: []string{
				"b0 indirect succs=[b1:indirect b2:indirect] idom=- ipdom=b3 depth=0",
				"b1 jump succs=[b3:jump] idom=b0 ipdom=b3 depth=0",
				"b2 plain succs=[b3:fall] idom=b0 ipdom=b3 depth=0",
				"b3 return succs=[exit:exit] idom=b0 ipdom=exit depth=0",
			}},
		},
		{
			name:   "brx_unresolved",
			reason: "an indirect branch without targets is recorded, with no guessed edge",
			src: `
	@p brx
	ret
`,
			want: view{
				Blocks: []string{
					"b0 indirect succs=[b1:fall] idom=- ipdom=b1 depth=0",
					"b1 return succs=[exit:exit] idom=b0 ipdom=exit depth=0",
				},
				Unresolved: 1,
			},
		},
		{
			name:   "end_label_and_calls",
			reason: "calls, barriers and reconvergence do not end blocks; a branch to a label at the end goes to the exit; falling off the end is an exit edge",
			src: `
	ssy
	call f
	bar
	@p bra END
	sync
	add
END:
`,
			want: view{Blocks: []string{
				"b0 if succs=[exit:taken b1:fall] idom=- ipdom=exit depth=0",
				"b1 plain succs=[exit:exit] idom=b0 ipdom=exit depth=0",
			}},
		},
		{
			name:   "branch_to_next",
			reason: "a guarded branch to the next instruction has two edges to one block",
			src: `
	@p bra N
N:
	ret
`,
			want: view{Blocks: []string{
				"b0 if succs=[b1:taken b1:fall] idom=- ipdom=b1 depth=0",
				"b1 return succs=[exit:exit] idom=b0 ipdom=exit depth=0",
			}},
		},
		{
			name:   "empty",
			reason: "an empty body has one empty entry block falling to the exit",
			src:    ".func empty\n",
			want:   view{Blocks: []string{"b0 plain succs=[exit:exit] idom=- ipdom=exit depth=0"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, tt.src)
			if diff := cmp.Diff(tt.want, viewOf(g)); diff != "" {
				t.Errorf("%s\nBuild mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestReconvergeAnnotations(t *testing.T) {
	g := build(t, `
	ssy
	@p bra L
	sync
L:
	bssy
	bsync
	ret
`)
	var got [][]string
	for _, b := range g.Blocks {
		var ops []string
		for _, in := range b.Reconverge {
			ops = append(ops, in.Opcode)
		}
		got = append(got, ops)
	}
	want := [][]string{{"ssy"}, {"sync"}, {"bssy", "bsync"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reconverge mismatch (-want +got):\n%s", diff)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"undefined_label", "\tadd\n\tbra NOWHERE\n", `test.s:2:2: f: branch to undefined label "NOWHERE"`},
		{"guarded_undefined", "\t@p bra NOWHERE\n", `test.s:1:2: f: branch to undefined label "NOWHERE"`},
		{"no_target", "\tbra\n", `test.s:1:2: f: branch without target`},
		{"brx_undefined", ".targets TS A X\nA:\n\tbrx TS\n", `test.s:3:2: f: branch target list TS names undefined label "X"`},
		{"declaration", ".extern ext\n", `cfg: ext: declaration has no body`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset, fn := cfgtest.Must(t, tt.src)
			g, err := cfg.Build(fset, fn)
			if err == nil {
				t.Fatalf("Build succeeded:\n%v", g)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDominates(t *testing.T) {
	g := build(t, `
	@p bra ELSE
	add
	bra JOIN
ELSE:
	sub
JOIN:
	ret
`)
	b := g.Blocks
	for _, tt := range []struct {
		a, b     *cfg.Block
		dom, pdm bool
	}{
		{b[0], b[3], true, false},
		{b[1], b[3], false, false},
		{b[3], b[0], false, true},
		{b[3], b[1], false, true},
		{b[2], b[2], true, true},
		{g.Exit, b[0], false, true},
	} {
		if got := g.Dominates(tt.a, tt.b); got != tt.dom {
			t.Errorf("Dominates(%s, %s) = %v", tt.a, tt.b, got)
		}
		if got := g.PostDominates(tt.a, tt.b); got != tt.pdm {
			t.Errorf("PostDominates(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
	if diff := cmp.Diff("[b1 b2 b3]", names(g.Dominees(b[0]))); diff != "" {
		t.Errorf("Dominees mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("[b3]", names(g.PostDominees(g.Exit))); diff != "" {
		t.Errorf("PostDominees mismatch (-want +got):\n%s", diff)
	}
}

// TestRandom cross-checks the fast dominator and post-dominator trees
// against the naive algorithm (inside Check) on random graphs, and checks
// that Dominates agrees with the idom chains.
func TestRandom(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		n := 1 + int(seed%40)
		fset, fn := cfgtest.Must(t, cfgtest.Random(seed, n))
		g, err := cfg.Build(fset, fn)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := g.Check(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, cfgtest.Random(seed, n))
		}
		for _, a := range g.Blocks {
			for _, b := range g.Blocks {
				want := a == b
				for x := b.Idom(); x != nil && !want; x = x.Idom() {
					want = x == a
				}
				if got := g.Dominates(a, b); got != want {
					t.Fatalf("seed %d: Dominates(%s, %s) = %v, idom chain says %v", seed, a, b, got, want)
				}
				want = a == b
				for x := b.IPdom(); x != nil && !want; x = x.IPdom() {
					want = x == a
				}
				if got := g.PostDominates(a, b); got != want {
					t.Fatalf("seed %d: PostDominates(%s, %s) = %v, ipdom chain says %v", seed, a, b, got, want)
				}
			}
		}
	}
}

// TestCheckCatchesCorruption makes sure Check can fail.
func TestCheckCatchesCorruption(t *testing.T) {
	src := "L:\n\tadd\n\t@p bra L\n\tret\n"
	for _, tt := range []struct {
		name    string
		corrupt func(g *cfg.Graph)
		want    string
	}{
		{"pred", func(g *cfg.Graph) { g.Blocks[1].Preds = nil }, "preds"},
		{"kind", func(g *cfg.Graph) { g.Blocks[0].Kind = cfg.BlockJump }, "jump block"},
		{"loop", func(g *cfg.Graph) { g.Loops[0].Depth = 2 }, "outermost with depth 2"},
		{"loopblocks", func(g *cfg.Graph) { g.Loops[0].Blocks = g.Loops[0].Blocks[1:] }, "membership"},
		{"instrs", func(g *cfg.Graph) { g.Blocks[1].Instrs = g.Blocks[1].Instrs[:0] }, "empty block"},
		{"reach", func(g *cfg.Graph) { g.Blocks[1].Reachable = false }, "Reachable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, src)
			tt.corrupt(g)
			err := g.Check()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check() = %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
}

func TestCallGraph(t *testing.T) {
	f, err := cfgtest.Parse(`
.extern vprintf
.func leaf
	ret
.func rec
	@p call rec
	call leaf
	ret
.func ping
	call pong
	ret
.func pong
	call ping
	ret
.entry k
.targets CT leaf rec
	call rec
	icall CT
	icall proto
	call vprintf
	call missing
	exit
`)
	if err != nil {
		t.Fatal(err)
	}
	cg := cfg.BuildCallGraph(f)
	var got []string
	for _, n := range cg.Nodes {
		var out []string
		for _, e := range n.Out {
			s := e.Callee.Name
			if e.Indirect {
				s += "(indirect)"
			}
			out = append(out, s)
		}
		got = append(got, fmt.Sprintf("%s external=%v recursive=%v calls=%v", n.Name, n.External, n.Recursive, out))
	}
	want := []string{
		"vprintf external=true recursive=false calls=[]",
		"leaf external=false recursive=false calls=[]",
		"rec external=false recursive=true calls=[rec leaf]",
		"ping external=false recursive=true calls=[pong]",
		"pong external=false recursive=true calls=[ping]",
		"k external=false recursive=false calls=[rec leaf(indirect) rec(indirect) vprintf missing]",
		"missing external=true recursive=false calls=[]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BuildCallGraph mismatch (-want +got):\n%s", diff)
	}
	if len(cg.Unresolved) != 1 || cg.Unresolved[0].Text != "icall proto" {
		t.Errorf("Unresolved = %v, want [icall proto]", cg.Unresolved)
	}
	// SCCs come callees first.
	pos := map[string]int{}
	for i, scc := range cg.SCCs {
		for _, n := range scc {
			pos[n.Name] = i
		}
	}
	if pos["ping"] != pos["pong"] || pos["leaf"] > pos["rec"] || pos["rec"] > pos["k"] {
		t.Errorf("SCC order wrong: %v", pos)
	}
}

// TestAnalyzer runs the pass through the driver, with invariant checks, on
// a kernel and a device function, and checks its diagnostics.
func TestAnalyzer(t *testing.T) {
	f, err := cfgtest.Parse(`
.func dev
	@p brx
	ret
.entry k
	@p bra B
A:
	add
B:
	@q bra A
SPIN:
	bra SPIN
`)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pass.Run([]*pass.Analyzer{cfg.Analyzer}, f, pass.Options{AllFuncs: true, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if len(res.Funcs) != 2 {
		t.Fatalf("analysed %d functions, want 2 (device function included)", len(res.Funcs))
	}
	for _, fn := range res.Funcs {
		if _, ok := res.Get(cfg.Analyzer, fn).Result.(*cfg.Graph); !ok {
			t.Errorf("%s: no *cfg.Graph result", fn.Name)
		}
	}
	var got []string
	for _, d := range res.Diagnostics() {
		got = append(got, fmt.Sprintf("%s %s %s: %s", f.Fset.Position(d.Pos), d.Func, d.Category, d.Message))
	}
	want := []string{
		`test.s:3:2 dev unresolved-indirect-branch: indirect branch "@p brx" has no known targets`,
		`test.s:5:1 k no-exit: function k never reaches its exit`,
		`test.s:8:2 k irreducible-loop: irreducible loop: 2 blocks entered at [b1 b2]`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics mismatch (-want +got):\n%s", diff)
	}
	var buf strings.Builder
	if err := cfg.Analyzer.Format(&buf, res.Get(cfg.Analyzer, res.Funcs[0]).Result); err != nil || !strings.HasPrefix(buf.String(), "func dev device\n") {
		t.Errorf("Format: %v\n%s", err, buf.String())
	}
}

func TestReaches(t *testing.T) {
	// b0 branches to b1 or b2, both join at b3, which returns; b4 loops on
	// itself, unreachable.
	g := build(t, `
	add r0
	@p0 bra B
	add r1
	bra C
B:	add r2
C:	add r3
	ret
D:	add r4
	bra D
`)
	b := g.Blocks
	if len(b) != 5 {
		t.Fatalf("%d blocks, want 5", len(b))
	}
	for _, tt := range []struct {
		from, to, avoid *cfg.Block
		want            bool
	}{
		{b[0], b[3], nil, true},
		{b[0], b[3], b[1], true},  // through b2
		{b[0], b[3], b[2], true},  // through b1
		{b[0], b[3], b[0], false}, // from is avoided
		{b[1], b[2], nil, false},  // the sides meet only at b3
		{b[1], b[0], nil, false},  // no back edge
		{b[2], b[2], b[2], true},  // from == to counts
		{b[3], b[3], b[3], true},  // to == avoid counts
		{b[1], b[3], b[3], true},
		{b[0], g.Exit, nil, true}, // the exit as the target
		{b[3], b[0], nil, false},  // not through the exit
		{b[0], b[4], nil, false},  // unreachable
		{b[4], b[3], nil, false},  // b4 loops
	} {
		if got := g.Reaches(tt.from, tt.to, tt.avoid); got != tt.want {
			t.Errorf("Reaches(%s, %s, %v) = %v, want %v", tt.from, tt.to, tt.avoid, got, tt.want)
		}
	}
}
