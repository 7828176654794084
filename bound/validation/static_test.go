package validation

import (
	"go/token"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// TestStatic asserts, for every single-warp trace, that the static bound
// of the traced kernel's PTX, with loop bounds covering the traced run, is
// at least the observed kernel_execution_time and at least the trace-based
// bound; a kernel the analysis refuses is reported. With -table it prints
// the tables of docs/validation.md and the generated facts files.
func TestStatic(t *testing.T) {
	rows, err := StaticBounds(refDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10 {
		t.Errorf("%d traces, want 10", len(rows))
	}
	for _, r := range rows {
		for _, l := range r.Loops {
			if l.Source == LoopDerived && l.DerivedMax < l.Traced {
				t.Errorf("UNSOUND derived loop bound: %s (%s) loop at line %d: derived %s = %d < %d header executions in one entry of the trace", r.Trace, r.Kernel, l.Line, l.Derived, l.DerivedMax, l.Traced)
			}
			if r.Refused == "" && !l.Covers() {
				t.Errorf("%s (%s) loop at line %d: bound used %d does not cover the trace's %d (%d entries)", r.Trace, r.Kernel, l.Line, l.Used, l.Traced, l.Entries)
			}
		}
		if r.Refused != "" {
			t.Logf("refused: %s (%s): %s", r.Trace, r.Kernel, r.Refused)
			continue
		}
		if int64(r.Static) < r.Observed {
			t.Errorf("UNSOUND: %s (%s): static bound %d < observed %d", r.Trace, r.Kernel, r.Static, r.Observed)
		}
		if r.Static < r.Bound {
			t.Errorf("%s (%s): static bound %d < trace-based bound %d", r.Trace, r.Kernel, r.Static, r.Bound)
		}
	}
	if *table {
		var b strings.Builder
		if err := WriteStaticMarkdown(&b, rows); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.Facts != nil {
				b.WriteString("\n--- facts for " + r.Trace + "\n" + string(r.Facts))
			}
		}
		t.Log("\n" + b.String())
	}
}

// nestedPTX has an outer loop (header line 10) and an inner one (header
// line 12) whose trip count grows with the outer counter.
const nestedPTX = `.version 7.0
.target sm_75
.address_size 64
.visible .entry k()
{
.reg .pred %p<3>;
.reg .b32 %r<3>;
mov.u32 %r1, 0;
L1:
mov.u32 %r2, 0;
L2:
add.s32 %r2, %r2, 1;
setp.lt.s32 %p1, %r2, %r1;
@%p1 bra L2;
add.s32 %r1, %r1, 1;
setp.lt.s32 %p2, %r1, 3;
@%p2 bra L1;
ret;
}
`

// TestTraceLoops checks the per-entry header counts on a path through
// nested loops, and that the generated facts file decodes and bounds the
// loops as annotated.
func TestTraceLoops(t *testing.T) {
	fset := token.NewFileSet()
	file, err := load.File(fset, "nested.ptx", []byte(nestedPTX), load.PTX)
	if err != nil {
		t.Fatal(err)
	}
	g, err := cfg.Build(fset, file.Funcs[0])
	if err != nil {
		t.Fatal(err)
	}
	inner := []int{12, 13, 14}
	path := []int{8}
	for _, k := range []int{1, 1, 2} { // inner iterations per outer one
		path = append(path, 10)
		for range k {
			path = append(path, inner...)
		}
		path = append(path, 15, 16, 17)
	}
	path = append(path, 18)
	ls := traceLoops(g, [][]int{path})
	got := map[int][2]int64{}
	for _, l := range ls {
		got[l.Line] = [2]int64{int64(l.Entries), l.Traced}
	}
	want := map[int][2]int64{10: {1, 3}, 12: {3, 2}}
	if len(got) != 2 || got[10] != want[10] || got[12] != want[12] {
		t.Fatalf("traceLoops = %v, want %v (line: entries, max per entry)", got, want)
	}
	sha := loops.SHA256([]byte(nestedPTX))
	src := tracedFacts("nested.ptx", sha, "k", "k1.trace", ls)
	facts, err := loops.DecodeFacts("traced.facts.toml", src)
	if err != nil {
		t.Fatalf("generated facts do not decode: %v\n%s", err, src)
	}
	lr, err := loops.Compute(g, pass.Launch{Block: [3]int{32, 1, 1}}, facts, sha)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		lb := lr.ByLine(l.Line)
		if lb == nil || lb.Bound == nil || lb.Bound.Source != loops.Annotated || lb.Bound.Max != l.Traced {
			t.Errorf("loop at line %d: bound %+v, want annotated %d", l.Line, lb.Bound, l.Traced)
		}
	}
}
