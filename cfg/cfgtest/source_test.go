package cfgtest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sampleSource = `// A header comment that mentions @trip in prose.
__device__ __noinline__ int helper(int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) { // @trip[k1] launch-only max(0, n) @trip[k2] launch-only 3
    s += i;
  }
  return s;
}

/* a block comment with for (;;) { } inside */
__global__ void k1(const float *a, float *out, int n, unsigned m) {
  const char *msg = "while (1) {";
  int i = 0;
  while (i < n) { // @trip launch-only max(0, n)
    do { // @trip data max 4
      i++;
    } while (a[i] > 0.0f && i < 4);
    for (int j = 0; j < 2; j++) { // @trip launch-only n > 0 ? 2 : 0
      out[j] = helper(n);
    }
  }
}

__global__ void k2(int *x) {
  x[0] = helper(3);
}
`

func TestParseSource(t *testing.T) {
	s, err := parseSource("/x/sample.cu", sampleSource)
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		Name          string
		Kernel        bool
		Line, EndLine int
		Params        []CParam
	}
	var gotF []fn
	for _, f := range s.Funcs {
		gotF = append(gotF, fn{f.Name, f.Kernel, f.Line, f.EndLine, f.Params})
	}
	wantF := []fn{
		{"helper", false, 2, 8, []CParam{{"int", "n"}}},
		{"k1", true, 11, 22, []CParam{{"const float *", "a"}, {"float *", "out"}, {"int", "n"}, {"unsigned", "m"}}},
		{"k2", true, 24, 26, []CParam{{"int *", "x"}}},
	}
	if diff := cmp.Diff(wantF, gotF); diff != "" {
		t.Errorf("functions (-want +got):\n%s", diff)
	}
	type loop struct {
		Func, Keyword           string
		Line, EndLine, CondLine int
		Parent                  int // line of the parent, 0 for none
		Depth                   int
		Trips                   []string
	}
	var gotL []loop
	for _, l := range s.Loops {
		p := 0
		if l.Parent != nil {
			p = l.Parent.Line
		}
		var trips []string
		for _, tr := range l.Trips {
			e := "<nil>"
			if tr.Expr != nil {
				e = tr.Expr.String()
			}
			trips = append(trips, strings.Join(tr.Kernels, ",")+"|"+string(tr.Class)+"|"+e)
		}
		gotL = append(gotL, loop{l.Func.Name, l.Keyword, l.Line, l.EndLine, l.CondLine(), p, l.Depth, trips})
	}
	wantL := []loop{
		{"helper", "for", 4, 6, 4, 0, 0, []string{"k1|launch-only|max(0, n)", "k2|launch-only|3"}},
		{"k1", "while", 14, 21, 14, 0, 0, []string{"|launch-only|max(0, n)"}},
		{"k1", "do", 15, 17, 17, 14, 1, []string{"|data|4"}},
		{"k1", "for", 18, 20, 18, 14, 1, []string{"|launch-only|n > 0 ? 2 : 0"}},
	}
	if diff := cmp.Diff(wantL, gotL); diff != "" {
		t.Errorf("loops (-want +got):\n%s", diff)
	}
	// Trip.For: a body loop belongs to its kernel, a device-function loop
	// to the kernels its clauses name.
	if !s.Loops[1].Trips[0].For(s.Loops[1], "k1") || s.Loops[1].Trips[0].For(s.Loops[1], "k2") {
		t.Error("Trip.For of a kernel-body loop")
	}
	if !s.Loops[0].Trips[1].For(s.Loops[0], "k2") || s.Loops[0].Trips[1].For(s.Loops[0], "k1") {
		t.Error("Trip.For of a device-function loop")
	}
}

func TestParseSourceErrors(t *testing.T) {
	tests := []struct{ name, src, err string }{
		{"no trip", "__global__ void k(int n) {\n  for (int i = 0; i < n; ++i) {\n  }\n}\n", "sample.cu:2: for loop without a @trip annotation"},
		{"stray trip", "__global__ void k(int n) {\n  int x = 0; // @trip launch-only 1\n}\n", "sample.cu:2: @trip on a line without a loop keyword"},
		{"no brace", "__global__ void k(int n) {\n  for (int i = 0; i < n; ++i) // @trip launch-only n\n    n--;\n}\n", "must open with a brace on the loop's line"},
		{"if body", "__global__ void k(int n) {\n  if (n)\n  for (int i = 0; i < n; ++i) { // @trip launch-only n\n  }\n}\n", "not the body of an if"},
		{"two per line", "__global__ void k(int n) {\n  for (int i = 0; i < n; ++i) { for (;;) { } } // @trip launch-only n\n}\n", "two loops on one line"},
		{"not first", "__global__ void k(int n) {\n  int i = 0; while (i < n) { // @trip launch-only n\n  }\n}\n", "must start its line"},
		{"device without kernel", "__device__ int f(int n) {\n  for (int i = 0; i < n; ++i) { // @trip launch-only n\n  }\n  return 0;\n}\n", "needs @trip[KERNEL] clauses"},
		{"other kernel", "__global__ void k(int n) {\n  for (int i = 0; i < n; ++i) { // @trip[j] launch-only n\n  }\n}\n", "@trip[j] in the body of kernel k"},
		{"bad class", "__global__ void k(int n) {\n  for (int i = 0; i < n; ++i) { // @trip static n\n  }\n}\n", `unknown class "static"`},
		{"bad expr", "__global__ void k(int n) {\n  for (int i = 0; i < n; ++i) { // @trip launch-only n +\n  }\n}\n", "unexpected end of expression"},
		{"launch-only without expr", "__global__ void k(int n) {\n  for (int i = 0; i < n; ++i) { // @trip launch-only\n  }\n}\n", "launch-only needs an expression"},
		{"data junk", "__global__ void k(int n) {\n  for (int i = 0; i < n; ++i) { // @trip data n\n  }\n}\n", `want "data" or "data max EXPR"`},
		{"do without while", "__global__ void k(int n) {\n  do { // @trip launch-only 1\n  }\n}\n", "do without while"},
		{"outside", "int g = 0;\nfor (;;) { }\n", "for outside a function body"},
	}
	for _, tt := range tests {
		_, err := parseSource("/x/sample.cu", tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.err)
		}
	}
}

func TestMatchLoop(t *testing.T) {
	s, err := parseSource("/x/sample.cu", sampleSource)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		lines []int
		want  int // keyword line, 0 for nil
	}{
		{[]int{14, 16}, 14},     // the while: its condition line
		{[]int{16, 17}, 15},     // the do: its while clause
		{[]int{18, 19, 14}, 14}, // an unrolled inner for in the while's own blocks: the outermost
		{[]int{18, 19}, 18},
		{[]int{4, 5}, 4},
		{[]int{5, 16}, 0},
		{nil, 0},
	}
	for _, tt := range tests {
		got := 0
		if l := s.MatchLoop(tt.lines); l != nil {
			got = l.Line
		}
		if got != tt.want {
			t.Errorf("MatchLoop(%v) = line %d, want %d", tt.lines, got, tt.want)
		}
	}
}

func TestParseLineTable(t *testing.T) {
	tab, err := ParseLineTable("x.lines", []byte("# provenance\nf\t0x0000\t10\nf\t0x0040\t0\nf\t0x0050\t12\ng\t0x0000\t3\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		fn   string
		off  int64
		want int
	}{{"f", 0, 10}, {"f", 0x30, 10}, {"f", 0x40, 0}, {"f", 0x50, 12}, {"f", 0x900, 12}, {"g", 0x10, 3}, {"h", 0, 0}} {
		if got := tab.Line(tt.fn, tt.off); got != tt.want {
			t.Errorf("Line(%s, %#x) = %d, want %d", tt.fn, tt.off, got, tt.want)
		}
	}
	for _, bad := range []string{"f\t0x10\n", "f\tzz\t1\n", "f\t0x10\t1\nf\t0x10\t2\n", "f\t0x10\t-1\n"} {
		if _, err := ParseLineTable("x.lines", []byte(bad)); err == nil {
			t.Errorf("ParseLineTable(%q): no error", bad)
		}
	}
}
