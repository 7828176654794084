package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const cfgTestPTX = `.version 7.8
.target sm_80
.address_size 64

.func (.param .b32 r) dev(.param .b32 a)
{
	.reg .b32 %r<2>;
	ld.param.u32 %r1, [a];
	st.param.b32 [r+0], %r1;
	ret;
}

.visible .entry k1(.param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [n];
$L__BB0_1:
	add.s32 %r1, %r1, -1;
	setp.gt.s32 %p1, %r1, 0;
	@%p1 bra $L__BB0_1;
	ret;
}

.visible .entry k2()
{
	ret;
}
`

func runCFG(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(append([]string{"gpuwcet", "cfg"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func writeCFGInput(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.ptx")
	if err := os.WriteFile(path, []byte(cfgTestPTX), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCFGText(t *testing.T) {
	in := writeCFGInput(t)
	code, out, errs := runCFG(t, in)
	if code != ExitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "func k1 kernel\n") || !strings.Contains(out, "func k2 kernel\n") || strings.Contains(out, "func dev") {
		t.Errorf("want kernels k1 and k2 only:\n%s", out)
	}
	if !strings.Contains(out, "loop 0 header b1 $L__BB0_1 line 19 depth 1") {
		t.Errorf("loop line missing:\n%s", out)
	}
	_, out, _ = runCFG(t, "--all-funcs", "--kernel", "^dev$", in)
	if !strings.HasPrefix(out, "func dev device\n") || strings.Contains(out, "func k") {
		t.Errorf("--all-funcs --kernel ^dev$:\n%s", out)
	}
}

func TestCFGOutDirAndJSON(t *testing.T) {
	in := writeCFGInput(t)
	dir := t.TempDir()
	code, out, errs := runCFG(t, "--format", "dot", "--out", dir, "--check", in)
	if code != ExitOK || errs != "" || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, name := range []string{"k1.dot", "k2.dot"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.HasPrefix(data, []byte(`digraph "`)) {
			t.Errorf("%s: %v %q", name, err, data)
		}
	}
	code, out, _ = runCFG(t, "--format", "json", "--kernel", "k1", in)
	if code != ExitOK {
		t.Fatalf("json: exit %d", code)
	}
	var doc struct {
		Format string `json:"format"`
		Funcs  []struct {
			Name   string `json:"name"`
			Blocks []struct {
				Kind string `json:"kind"`
			} `json:"blocks"`
			Loops []struct {
				HeaderLabel string `json:"header_label"`
			} `json:"loops"`
		} `json:"funcs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if doc.Format != "gpuwcet-cfg/1" || len(doc.Funcs) != 1 || doc.Funcs[0].Name != "k1" ||
		len(doc.Funcs[0].Loops) != 1 || doc.Funcs[0].Loops[0].HeaderLabel != "$L__BB0_1" {
		t.Errorf("json document: %+v", doc)
	}
	_, again, _ := runCFG(t, "--format", "json", "--kernel", "k1", in)
	if again != out {
		t.Errorf("json output not deterministic")
	}
}

// TestCFGOutDirNames: with --out, every function gets its own file, also
// when safe names collide (same input base name in two directories, a
// kernel named like a collision suffix, names differing only in case).
func TestCFGOutDirNames(t *testing.T) {
	src := t.TempDir()
	write := func(path string, kernels ...string) string {
		var b strings.Builder
		b.WriteString(".version 7.8\n.target sm_80\n.address_size 64\n")
		for _, k := range kernels {
			b.WriteString(".visible .entry " + k + "()\n{\n\tret;\n}\n")
		}
		path = filepath.Join(src, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := write("a/x.ptx", "k", "K")
	b := write("b/x.ptx", "k")
	c := write("c/x.ptx", "k_2")
	dir := t.TempDir()
	code, _, errs := runCFG(t, "--out", dir, a, b, c)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{"x__K_2.txt", "x__k.txt", "x__k_2_2.txt", "x__k_3.txt"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", got, want)
	}
}

func TestCFGErrors(t *testing.T) {
	in := writeCFGInput(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "svg", in}, `unknown --format "svg"`},
		{[]string{"--kernel", "nomatch", in}, "no kernel selected"},
		{[]string{"--kernel", "(", in}, "--kernel"},
		{[]string{}, "no input file"},
	} {
		code, _, errs := runCFG(t, tt.args...)
		if code != ExitBadInput || !strings.Contains(errs, tt.want) {
			t.Errorf("cfg %v: exit %d, stderr %q, want exit %d and %q", tt.args, code, errs, ExitBadInput, tt.want)
		}
	}
}

// TestCFGDotSeveralGraphs (issue 9, item 18): several DOT graphs on
// standard output draw as one image of the first graph only; the command
// says so on standard error and names --out; one graph says nothing. With
// dot installed, the suggested dot -O draws every graph.
func TestCFGDotSeveralGraphs(t *testing.T) {
	in := writeCFGInput(t)
	code, out, errs := runCFG(t, "--format", "dot", in)
	if code != ExitOK || strings.Count(out, "digraph ") != 2 {
		t.Fatalf("exit %d, %d graphs", code, strings.Count(out, "digraph "))
	}
	for _, want := range []string{"gpuwcet: cfg: note: 2 graphs on standard output, one per kernel", "draws only the first", "--out DIR", "dot -Tsvg -O FILE"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q lacks %q", errs, want)
		}
	}
	if _, _, errs := runCFG(t, "--format", "dot", "--kernel", "^k1$", in); errs != "" {
		t.Errorf("one graph: stderr %q", errs)
	}
	if _, _, errs := runCFG(t, "--format", "text", in); errs != "" {
		t.Errorf("text: stderr %q", errs)
	}
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("dot not installed")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "all.dot")
	if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("dot", "-Tsvg", "-O", f).CombinedOutput(); err != nil {
		t.Fatalf("dot -O: %v: %s", err, b)
	}
	for _, name := range []string{"all.dot.svg", "all.dot.2.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("dot -Tsvg -O did not draw %s: %v", name, err)
		}
	}
}

// TestCFGGolden runs the cfg command lines of testdata/cfg (the worst
// case drawn with --bound, barriers never collapsed).
func TestCFGGolden(t *testing.T) { commandGolden(t, "testdata/cfg/*.txtar") }
