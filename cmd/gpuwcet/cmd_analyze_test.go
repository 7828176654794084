package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// TestAnalyzeGolden runs the command line in the comment of each
// testdata/analyze/*.txtar (relative to this package's directory) and
// compares standard output, standard error and the exit code with its
// "want" section (-update rewrites it). The examples' READMEs show the
// same commands.
func TestAnalyzeGolden(t *testing.T) { commandGolden(t, "testdata/analyze/*.txtar") }

// commandGolden runs the command line in the comment of each archive
// matching pattern and compares its output with the "want" section.
func commandGolden(t *testing.T, pattern string) {
	txtar.Golden(t, pattern, func(t *testing.T, a *txtar.Archive) map[string][]byte {
		args := strings.Fields(strings.TrimSpace(string(a.Comment)))
		var out, errb bytes.Buffer
		code := run(append([]string{"gpuwcet"}, args...), &out, &errb)
		var b bytes.Buffer
		b.Write(out.Bytes())
		if errb.Len() > 0 {
			b.WriteString("-- stderr:\n")
			b.Write(errb.Bytes())
		}
		fmt.Fprintf(&b, "[exit %d]\n", code)
		return map[string][]byte{"want": b.Bytes()}
	})
}

// TestAnalyzeStraightLineEqualsBound: on kernels without branches the static
// bound is the fixed-path bound of package bound without its per-path
// charge (same engine, same formula, same pipeline options; the static walk
// charges a class's duration on every resource it uses: docs/model.md,
// "Known gaps of the static analysis"), and at least the bound command's
// closed-form bound.
func TestAnalyzeStraightLineEqualsBound(t *testing.T) {
	for _, tc := range []struct{ ptx, hw string }{
		{"../../examples/saxpy/kernel.ptx", "rtx3070"},
		{"../../examples/paper-fig2/kernel.ptx", "../../examples/paper-fig2/hw.toml"},
		// An ECRTS 2025 preset: overhead, branch_wait taken, ret_issues,
		// barrier_issues and shared resources.
		{"../../examples/saxpy/kernel.ptx", "ecrts25-orin-100"},
		{"../../examples/saxpy/kernel.ptx", "ecrts25-orin-5"},
		{"testdata/analyze/barrier-straight.ptx", "ecrts25-orin-100"},
		{"testdata/analyze/barrier-straight.ptx", "rtx3070"},
	} {
		var o1, o2, e bytes.Buffer
		if c := run([]string{"gpuwcet", "analyze", "--hw", tc.hw, "--block", "256", "--format", "json", tc.ptx}, &o1, &e); c != 0 {
			t.Fatalf("analyze %s: exit %d: %s", tc.ptx, c, e.String())
		}
		if c := run([]string{"gpuwcet", "bound", "--hw", tc.hw, "--warps", "8", "--exact-budget", "0", "--format", "json", tc.ptx}, &o2, &e); c != 0 {
			t.Fatalf("bound %s: exit %d: %s", tc.ptx, c, e.String())
		}
		a, err1 := strconv.ParseInt(firstField(o1.String(), `"bound_cycles": `), 10, 64)
		b, err2 := strconv.ParseInt(firstField(o2.String(), `"bound_cycles": `), 10, 64)
		if err1 != nil || err2 != nil || a < b {
			t.Errorf("%s: analyze bound %d, bound command %d (%v, %v)", tc.ptx, a, b, err1, err2)
		}
		// The fixed-path bound without the per-path charge.
		hw, err := hwdesc.Resolve(tc.hw)
		if err != nil {
			t.Fatal(err)
		}
		f, err := loadFile(nil, tc.ptx)
		if err != nil {
			t.Fatal(err)
		}
		prof, err := phases.Build(f.Fset, f.Kernels()[0], hw, 8, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range prof.Classes {
			for _, s := range c.Sections {
				s.Chains = nil
			}
		}
		r, err := bound.Compute(prof)
		if err != nil {
			t.Fatal(err)
		}
		if a != int64(r.Bound) {
			t.Errorf("%s: analyze bound %d, fixed-path bound without the per-path charge %d", tc.ptx, a, r.Bound)
		}
	}
}

func firstField(s, key string) string {
	i := strings.Index(s, key)
	if i < 0 {
		return ""
	}
	s = s[i+len(key):]
	return strings.TrimRight(s[:strings.IndexAny(s, ",\n")], " ")
}

// BenchmarkAnalyzeLoopBound: analysis time with a loop bound of 10 and 10^9
// (the loop acceleration makes them equal).
func BenchmarkAnalyzeLoopBound(b *testing.B) {
	for _, n := range []string{"10", "1000000000"} {
		b.Run("n="+n, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var o, e bytes.Buffer
				if c := run([]string{"gpuwcet", "analyze", "--hw", "rtx3070", "--block", "256", "--arg", "colsum_param_2=" + n, "../../examples/counted-loop/kernel.ptx"}, &o, &e); c != 0 {
					b.Fatal(e.String())
				}
			}
		})
	}
}

// TestAnalyzeTraceRefused: a trace holds only the instructions one
// execution ran (bfs Kernel2's trace gave 68 cycles where the kernel's PTX
// gives 103), so analyze refuses it with exit 1, naming the module and
// kernel to analyse instead and pointing to gpuwcet bound.
func TestAnalyzeTraceRefused(t *testing.T) {
	const dir = "../../../shared/reference/accelsim-singlewarp/bfs-rodinia-2.0-ft/"
	tr := dir + "_Z7Kernel2PbS_S_S_i2.trace"
	if _, err := os.Stat(tr); err != nil {
		t.Skip("shared reference traces not available")
	}
	var out, errb bytes.Buffer
	code := run([]string{"gpuwcet", "analyze", "--hw", "ecrts25-orin-5", "--block", "32", tr}, &out, &errb)
	if code != ExitBadInput || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, want exit 1 and no output", code, out.String())
	}
	for _, want := range []string{"is a simulator trace", "--kernel '^_Z7Kernel2PbS_S_S_i$' " + dir + "bfs-rodinia-2.4.sm_75.ptx", "gpuwcet bound"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

// TestAnalyzeSectionCounts: on the examples, Σ count_on_worst_path ×
// section bound = the kernel bound (reduce: its loop barrier's section 7
// times).
func TestAnalyzeSectionCounts(t *testing.T) {
	for _, args := range [][]string{
		{"--hw", "ecrts25-orin-200", "--block", "256", "../../examples/reduce/kernel.ptx"},
		{"--hw", "rtx3070", "--block", "256", "--arg", "colsum_param_2=8", "../../examples/counted-loop/kernel.ptx"},
		{"--hw", "paper-fig2", "--block", "64", "../../examples/paper-fig2/kernel.ptx"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"gpuwcet", "analyze", "--format", "json"}, args...), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		var r struct {
			Kernels []struct {
				Bound    int64 `json:"bound_cycles"`
				Exact    bool  `json:"section_counts_exact"`
				Sections []struct {
					Bound int64 `json:"bound_cycles"`
					Count int64 `json:"count_on_worst_path"`
				} `json:"sections"`
			} `json:"kernels"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		for _, k := range r.Kernels {
			var sum int64
			for _, s := range k.Sections {
				sum += s.Count * s.Bound
			}
			if !k.Exact || sum != k.Bound {
				t.Errorf("%v: sum of count x section bound %d, bound %d, exact %v", args, sum, k.Bound, k.Exact)
			}
		}
	}
}

// TestAnalyzeDeepNest: a PTX kernel of 200 counted loops nested in one
// another (one in five runs twice) goes through the whole pipeline (CFG,
// loop-bound derivation, divergence, static analysis) and is bounded. The
// test's own timeout is the guard: the analysis was exponential in the
// depth (issue 9, item 8).
func TestAnalyzeDeepNest(t *testing.T) {
	const depth = 200
	var sb strings.Builder
	fmt.Fprintf(&sb, ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry nest(.param .u64 p0)\n{\n\t.reg .pred %%p<%d>;\n\t.reg .b32 %%r<%d>;\n\t.reg .f32 %%f<2>;\n\t.reg .b64 %%rd<3>;\n", depth+1, depth+1)
	sb.WriteString("\tld.param.u64 %rd1, [p0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.f32 %f1, 0f00000000;\n")
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&sb, "\tmov.u32 %%r%d, 0;\nL%d:\n", i+1, i)
	}
	sb.WriteString("\tadd.f32 %f1, %f1, 0f3F800000;\n")
	for i := depth - 1; i >= 0; i-- {
		n := 1
		if i%5 == 0 {
			n = 2
		}
		fmt.Fprintf(&sb, "\tadd.s32 %%r%d, %%r%d, 1;\n\tsetp.lt.u32 %%p%d, %%r%d, %d;\n\t@%%p%d bra L%d;\n", i+1, i+1, i+1, i+1, n, i+1, i)
	}
	sb.WriteString("\tst.global.f32 [%rd2], %f1;\n\tret;\n}\n")
	path := t.TempDir() + "/nest.ptx"
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"gpuwcet", "analyze", "--hw", "rtx3070", "--block", "32", "--format", "json", path}, &out, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if got := strings.Count(out.String(), `"source": "derived"`); got < depth {
		t.Errorf("%d derived loop bounds in the report, want %d", got, depth)
	}
}

// TestAnalyzeWarpBlockLimit (issue 9, item 13): the limit on the
// warp-level CFG counts only the copies divergent branches add, so a
// kernel of more than 20,000 blocks without divergent branch is analysed
// (it was told "too many divergent paths … raise the limit or give the
// launch configuration", with --block given and no flag to raise it);
// a kernel that reaches the limit is not bounded (exit 2), and the message
// says what the limit is, why, and names --max-warp-blocks.
func TestAnalyzeWarpBlockLimit(t *testing.T) {
	const n = 7000 // uniform if/else diamonds: 3n+1 blocks
	var sb strings.Builder
	sb.WriteString(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry wide(.param .u64 p0, .param .u32 p1)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\t.reg .f32 %f<3>;\n\t.reg .b64 %rd<3>;\n")
	sb.WriteString("\tld.param.u64 %rd1, [p0];\n\tld.param.u32 %r1, [p1];\n\tsetp.lt.u32 %p1, %r1, 7;\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.f32 %f1, 0f00000000;\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "\t@%%p1 bra E%d;\n\tmul.f32 %%f1, %%f1, %%f1;\n\tbra.uni J%d;\nE%d:\n\tadd.f32 %%f1, %%f1, 0f3F800000;\nJ%d:\n\tadd.f32 %%f2, %%f1, %%f1;\n", i, i, i, i)
	}
	sb.WriteString("\tst.global.f32 [%rd2], %f1;\n\tret;\n}\n")
	path := t.TempDir() + "/wide.ptx"
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"gpuwcet", "analyze", "--hw", "rtx3070", "--block", "128", path}, &out, &errb); code != ExitOK {
		t.Fatalf("%d blocks without divergent branch: exit %d: %s", 3*n+1, code, errb.String())
	}
	for _, tc := range []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"--block", "256"}, []string{"branchy: warps 0-7: the warp-level CFG needs more than 5 blocks (4 thread-level blocks plus at most 1 copied by divergent branches)",
			"give the kernel's arguments (--arg) if branches depend on them, or raise the limit with --max-warp-blocks (default 20000"}, "--block"},
	} {
		var out, errb bytes.Buffer
		args := append(append([]string{"gpuwcet", "analyze", "--hw", "rtx3070", "--max-warp-blocks", "1"}, tc.args...), "../../examples/divergent/kernel.ptx")
		code := run(args, &out, &errb)
		if code != ExitUnbounded {
			t.Errorf("%v: exit %d, want 2: %s", tc.args, code, errb.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%v: stderr lacks %q:\n%s", tc.args, w, errb.String())
			}
		}
		if strings.Contains(errb.String(), tc.not) {
			t.Errorf("%v: stderr suggests %s, already given:\n%s", tc.args, tc.not, errb.String())
		}
	}
}
