package ptx

import (
	"errors"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// parseBody parses one kernel body and returns its instructions.
func parseBody(t *testing.T, body string) []*isa.Instr {
	t.Helper()
	src := ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .pred q;\n" + body + "\n}\n"
	f, err := ParseFile(token.NewFileSet(), "t.ptx", []byte(src), AllErrors)
	if err != nil {
		t.Fatalf("ParseFile(%q): %v", body, err)
	}
	return f.Funcs[0].Instrs
}

func TestDefsUses(t *testing.T) {
	tests := []struct {
		in         string
		defs, uses []string
	}{
		{"add.s32 %r1, %r2, 4;", []string{"%r1"}, []string{"%r2"}},
		{"@!%p1 mov.u32 %r1, %tid.x;", []string{"%r1"}, []string{"%p1"}},
		{"setp.lt.s32 %p1|%p2, %r1, %r2;", []string{"%p1", "%p2"}, []string{"%r1", "%r2"}},
		{"setp.lt.s32 _|%p2, %r1, %r1;", []string{"%p2"}, []string{"%r1"}},
		{"shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;", []string{"%r1", "%p1"}, []string{"%r2"}},
		{"ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];", []string{"%f1", "%f2", "%f3", "%f4"}, []string{"%rd1"}},
		{"st.shared.v2.f32 [%rd1], {%f1, %f2};", nil, []string{"%rd1", "%f1", "%f2"}},
		{"mov.b64 {%r1, %r2}, %rd1;", []string{"%r1", "%r2"}, []string{"%rd1"}},
		{"mov.b64 %rd1, {%r1, %r2};", []string{"%rd1"}, []string{"%r1", "%r2"}},
		{"tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}|%p1, [tex, {%r1, %r2}];", []string{"%f1", "%f2", "%f3", "%f4", "%p1"}, []string{"%r1", "%r2"}},
		{"atom.global.cas.b32 %r1, [%rd1], %r2, %r3;", []string{"%r1"}, []string{"%rd1", "%r2", "%r3"}},
		{"red.global.add.u32 [%rd1], %r1;", nil, []string{"%rd1", "%r1"}},
		{"add.cc.u32 %r1, %r2, %r3;", []string{"%r1", "%cc"}, []string{"%r2", "%r3"}},
		{"addc.cc.u32 %r1, %r2, %r3;", []string{"%r1", "%cc"}, []string{"%r2", "%r3", "%cc"}},
		{"madc.hi.u32 %r1, %r2, %r3, %r4;", []string{"%r1"}, []string{"%r2", "%r3", "%r4", "%cc"}},
		{"and.pred %p3, !%p1, %p2;", []string{"%p3"}, []string{"%p1", "%p2"}},
		{"bar.red.popc.u32 %r1, 0, %p1;", []string{"%r1"}, []string{"%p1"}},
		{"bar.sync %r1, %r2;", nil, []string{"%r1", "%r2"}},
		{"wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2}, %r1;", nil, []string{"%rd1", "%f1", "%f2", "%r1"}},
		{"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1, %r2}, [%r3];", []string{"%r1", "%r2"}, []string{"%r3"}},
		{"cp.async.cg.shared.global [%r1], [%rd1], 16;", nil, []string{"%r1", "%rd1"}},
		{"vote.sync.ballot.b32 %r1, q, -1;", []string{"%r1"}, []string{"q"}},
		{"mov.u64 %rd1, smem+8;", []string{"%rd1"}, nil},
		{"frob.b32 %r1, %r2;", []string{"%r1"}, []string{"%r2"}},
	}
	for _, tt := range tests {
		in := parseBody(t, tt.in)[0]
		if diff := cmp.Diff(tt.defs, in.Defs()); diff != "" {
			t.Errorf("%s: Defs() mismatch (-want +got):\n%s", tt.in, diff)
		}
		if diff := cmp.Diff(tt.uses, in.Uses()); diff != "" {
			t.Errorf("%s: Uses() mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestClassify checks Kind, Space, Barrier, Targets of representative
// instructions.
func TestClassify(t *testing.T) {
	type class struct {
		Kind    isa.Kind
		Space   isa.Space
		Barrier isa.BarrierOp
		Uni     bool
		Generic bool
		Targets []string
	}
	tests := []struct {
		in   string
		want class
	}{
		{"ld.global.nc.f32 %f1, [%rd1];", class{Kind: isa.KindLoad, Space: isa.SpaceGlobal}},
		{"ld.f32 %f1, [%rd1];", class{Kind: isa.KindLoad, Space: isa.SpaceGeneric}},
		{"ldu.global.f32 %f1, [%rd1];", class{Kind: isa.KindLoad, Space: isa.SpaceGlobal}},
		{"ld.shared::cluster.u32 %r1, [%rd1];", class{Kind: isa.KindLoad, Space: isa.SpaceShared}},
		{"suld.b.2d.b32.trap {%r1}, [surf, {%r2, %r3}];", class{Kind: isa.KindLoad, Space: isa.SpaceSurface}},
		{"sust.b.2d.b32.trap [surf, {%r2, %r3}], {%r1};", class{Kind: isa.KindStore, Space: isa.SpaceSurface}},
		{"st.local.u32 [%rd1], %r1;", class{Kind: isa.KindStore, Space: isa.SpaceLocal}},
		{"atom.shared.add.u32 %r1, [%rd1], 1;", class{Kind: isa.KindAtomic, Space: isa.SpaceShared}},
		{"cp.async.ca.shared.global [%r1], [%rd1], 4;", class{Kind: isa.KindLoad, Space: isa.SpaceGlobal}},
		{"bar.sync 0;", class{Kind: isa.KindBarrier, Barrier: isa.BarSync}},
		{"barrier.sync.aligned 0;", class{Kind: isa.KindBarrier, Barrier: isa.BarSync}},
		{"bar.arrive 1, 64;", class{Kind: isa.KindBarrier, Barrier: isa.BarArrive}},
		{"bar.warp.sync -1;", class{Kind: isa.KindBarrier, Barrier: isa.BarWarpSync}},
		{"bar.red.and.pred q, 0, q;", class{Kind: isa.KindBarrier, Barrier: isa.BarRed}},
		{"exit;", class{Kind: isa.KindExit}},
		{"trap;", class{Kind: isa.KindExit}},
		{"ret.uni;", class{Kind: isa.KindReturn, Uni: true}},
		{"nop;", class{Kind: isa.KindNop}},
		{"membar.gl;", class{Kind: isa.KindOther}},
		{"@q bra.uni L1;\nL1:", class{Kind: isa.KindBranch, Uni: true, Targets: []string{"L1"}}},
		{"call.uni f;", class{Kind: isa.KindCall, Uni: true, Targets: []string{"f"}}},
		{"xyzzy %r1;", class{Generic: true}},
	}
	for _, tt := range tests {
		in := parseBody(t, tt.in)[0]
		got := class{in.Kind, in.Space, in.Barrier, in.Uni, in.Generic, in.Targets}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: classification mismatch (-want +got):\n%s", tt.in, diff)
		}
		if in.Offset != -1 {
			t.Errorf("%s: Offset = %d, want -1", tt.in, in.Offset)
		}
	}
}

// TestBinaryInput checks that binary garbage is reported once, positioned.
func TestBinaryInput(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"nul", ".version 7.0\n.target\x00 sm_70\n", "nul.ptx:2:8: not a PTX text file: NUL byte at byte offset 20"},
		{"utf8", ".version 7.0\n\xff\xfe garbage\x00", "utf8.ptx:2:1: not a PTX text file: invalid UTF-8 at byte offset 13"},
		{"elf", "\x7fELF\x02\x01\x01\x00\x00", "elf.ptx:1:8: not a PTX text file: NUL byte at byte offset 7"},
	}
	for _, tt := range tests {
		f, err := ParseFile(token.NewFileSet(), tt.name+".ptx", []byte(tt.src), AllErrors)
		var el isa.ErrorList
		if !errors.As(err, &el) || len(el) != 1 {
			t.Errorf("%s: got error %v, want one error", tt.name, err)
			continue
		}
		if got := el[0].Error(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		if f == nil || len(f.Funcs) != 0 {
			t.Errorf("%s: want an empty partial file", tt.name)
		}
	}
}

// TestPositions checks Pos, End and label indices of a parsed function.
func TestPositions(t *testing.T) {
	src := ".version 8.0\n.target sm_80\n.visible .entry k()\n{\n\tmov.u32 %r1, 0;\nL1:\n  @%p1 bra L1;\nL2:\n}\n"
	fset := token.NewFileSet()
	f, err := ParseFile(fset, "p.ptx", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	fn := f.Func("k")
	type pos struct{ Line, Col int }
	at := func(p token.Pos) pos { q := fset.Position(p); return pos{q.Line, q.Column} }
	got := []pos{at(fn.Pos), at(fn.End), at(fn.Instrs[0].Pos), at(fn.Instrs[1].Pos)}
	want := []pos{{3, 10}, {9, 1}, {5, 2}, {7, 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("positions mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"L1": 1, "L2": 2}, fn.Labels); diff != "" {
		t.Errorf("labels mismatch (-want +got):\n%s", diff)
	}
}

// fuzzSeeds returns the inputs of the golden files and a few snippets.
func fuzzSeeds(t testing.TB) [][]byte {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.txtar"))
	var seeds [][]byte
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range txtar.Parse(data).Files {
			if strings.HasSuffix(f.Name, ".ptx") {
				seeds = append(seeds, f.Data)
			}
		}
	}
	for _, s := range []string{
		"",
		".version 7.0\n.target sm_70\n.entry k {",
		".version 7.0\n.entry k() { { { ld.global.v4.f32 {%f1,%f2}, [%rd1+-4]; } }",
		".version 7.0\n.func (.param .b32 r) f (.param .b32 a) { call (r), f, (a); ret; }",
		".version 7.0\n.entry k() { t: .branchtargets a, b; brx.idx %r1, t; a: b: exit; }",
		".version 7.0\n.section .debug_info { .b8 1,2 }\n.entry k() { @@DWARF x\n }",
		".version 7.0\n.entry k() { .loc 1 2 3\n mov.u32 %r1, \"x\"; }",
		".version 7.0\n.entry k() { @%p1.lt bra L; L: ret; } .file 1 \"a.cu\"\n",
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// FuzzParseFile checks that ParseFile never panics and that its errors
// are positioned isa.ErrorLists.
func FuzzParseFile(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		fset := token.NewFileSet()
		for _, mode := range []Mode{0, AllErrors} {
			file, err := ParseFile(fset, "fuzz.ptx", src, mode)
			if file == nil {
				t.Fatal("nil file")
			}
			if err == nil {
				checkInvariants(t, file)
				continue
			}
			var el isa.ErrorList
			if !errors.As(err, &el) {
				t.Fatalf("error %T is not an isa.ErrorList", err)
			}
			if len(el) == 0 || (mode == 0 && len(el) > isa.MaxErrors) {
				t.Fatalf("mode %d: %d errors", mode, len(el))
			}
			for _, e := range el {
				if e.Pos.Filename != "fuzz.ptx" || e.Pos.Line < 1 || e.Pos.Column < 1 {
					t.Fatalf("badly positioned error %q (%+v)", e, e.Pos)
				}
			}
		}
	})
}

// checkInvariants checks structural properties of a parse without errors.
func checkInvariants(t *testing.T, f *isa.File) {
	t.Helper()
	for _, fn := range f.Funcs {
		for i, in := range fn.Instrs {
			if in.Index != i || !in.Pos.IsValid() || in.Opcode == "" || in.Text == "" {
				t.Fatalf("%s: bad instruction %d: %+v", fn.Name, i, in)
			}
		}
		for l, i := range fn.Labels {
			if i < 0 || i > len(fn.Instrs) {
				t.Fatalf("%s: label %s -> %d out of range", fn.Name, l, i)
			}
		}
	}
}

// TestInlineAsmScopedRegs: cuda_fp16.h's h2exp (nvcc 11.8 and clang 19
// output) declares registers in an inline-asm scope with the type glued to
// the directive (".reg.b16 hl, hu;") and uses them without '%'.
func TestInlineAsmScopedRegs(t *testing.T) {
	body := `{.reg.b16         hl, hu;
 .reg.b32         h,r,fl,fu,C,nZ;
  mov.b32         {hl, hu}, %r2;
  cvt.f32.f16     fl, hl;
  mov.b32         C, 0x3fb8aa3bU;
  fma.rn.f32      fl,fl,C,nZ;
  cvt.rn.f16.f32  hl, fl;
  mov.b32         r, {hl,hu};
  mov.b32         %r1, r;
}`
	ins := parseBody(t, body)
	want := [][2][]string{
		{{"hl", "hu"}, {"%r2"}},
		{{"fl"}, {"hl"}},
		{{"C"}, nil},
		{{"fl"}, {"fl", "C", "nZ"}},
		{{"hl"}, {"fl"}},
		{{"r"}, {"hl", "hu"}},
		{{"%r1"}, {"r"}},
	}
	if len(ins) != len(want) {
		t.Fatalf("got %d instructions, want %d", len(ins), len(want))
	}
	for i, in := range ins {
		got := [2][]string{in.Defs(), in.Uses()}
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Errorf("%s: defs/uses mismatch (-want +got):\n%s", in.Text, diff)
		}
	}
}
