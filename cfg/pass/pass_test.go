package pass_test

import (
	"errors"
	"go/token"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

func noop(*pass.Pass) (any, error) { return nil, nil }

func TestValidate(t *testing.T) {
	a := &pass.Analyzer{Name: "a", Doc: "a", Run: noop}
	b := &pass.Analyzer{Name: "b", Doc: "b", Run: noop, Requires: []*pass.Analyzer{a}}
	c1 := &pass.Analyzer{Name: "c1", Doc: "c", Run: noop}
	c2 := &pass.Analyzer{Name: "c2", Doc: "c", Run: noop, Requires: []*pass.Analyzer{c1}}
	c1.Requires = []*pass.Analyzer{c2}
	tests := []struct {
		name string
		in   []*pass.Analyzer
		err  string
	}{
		{"ok", []*pass.Analyzer{b}, ""},
		{"bad name", []*pass.Analyzer{{Name: "1x", Doc: "d", Run: noop}}, "not an identifier"},
		{"no doc", []*pass.Analyzer{{Name: "x", Run: noop}}, "has no Doc"},
		{"no run", []*pass.Analyzer{{Name: "x", Doc: "d"}}, "no Run function"},
		{"duplicate", []*pass.Analyzer{a, {Name: "a", Doc: "d", Run: noop}}, `two analyzers named "a"`},
		{"cycle", []*pass.Analyzer{c1}, "cycle in Requires: c1 -> c2 -> c1"},
		{"nil", []*pass.Analyzer{nil}, "nil *Analyzer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := pass.Validate(tt.in)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("Validate: %v, want error containing %q", err, tt.err)
			}
		})
	}
}

func TestClosureOrder(t *testing.T) {
	a := &pass.Analyzer{Name: "a", Doc: "a", Run: noop}
	b := &pass.Analyzer{Name: "b", Doc: "b", Run: noop, Requires: []*pass.Analyzer{a}}
	c := &pass.Analyzer{Name: "c", Doc: "c", Run: noop, Requires: []*pass.Analyzer{a, b}}
	var got []string
	for _, x := range pass.Closure([]*pass.Analyzer{c, b}) {
		got = append(got, x.Name)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, got); diff != "" {
		t.Errorf("Closure mismatch (-want +got):\n%s", diff)
	}
}

func testFile() *isa.File {
	fset := token.NewFileSet()
	tf := fset.AddFile("k.ptx", -1, 100)
	tf.SetLinesForContent([]byte(strings.Repeat("x\n", 50)))
	return &isa.File{Fset: fset, Name: "k.ptx", Funcs: []*isa.Func{
		{Name: "k1", Entry: true, Pos: tf.Pos(0)},
		{Name: "helper", Pos: tf.Pos(10)},
		{Name: "k2", Entry: true, Pos: tf.Pos(20)},
		{Name: "ext", Entry: true, Decl: true},
	}}
}

// TestDriver checks memoisation, dependency order, result types, failed
// prerequisites, recovered panics and sorted diagnostics.
func TestDriver(t *testing.T) {
	var calls []string
	count := &pass.Analyzer{
		Name: "count", Doc: "count", ResultType: reflect.TypeOf(0),
		Run: func(p *pass.Pass) (any, error) {
			calls = append(calls, p.String())
			p.Reportf(p.Func.Pos, pass.Warning, "demo", "seen %s", p.Func.Name)
			return len(p.Func.Name), nil
		},
	}
	double := &pass.Analyzer{
		Name: "double", Doc: "double", ResultType: reflect.TypeOf(0), Requires: []*pass.Analyzer{count},
		Run: func(p *pass.Pass) (any, error) {
			calls = append(calls, p.String())
			if p.Func.Name == "k2" {
				return nil, errors.New("k2 is not supported")
			}
			return 2 * p.ResultOf[count].(int), nil
		},
	}
	top := &pass.Analyzer{
		Name: "top", Doc: "top", Requires: []*pass.Analyzer{double, count},
		Run: func(p *pass.Pass) (any, error) {
			calls = append(calls, p.String())
			return nil, nil
		},
	}
	f := testFile()
	res, err := pass.Run([]*pass.Analyzer{top, double}, f, pass.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{"count@k1", "double@k1", "top@k1", "count@k2", "double@k2"}
	if diff := cmp.Diff(wantCalls, calls); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}
	if got := res.Get(double, f.Funcs[0]).Result; got != 4 {
		t.Errorf("double@k1 = %v, want 4", got)
	}
	if a := res.Get(top, f.Funcs[2]); a == nil || a.Err == nil || !strings.Contains(a.Err.Error(), "failed prerequisites: double@k2") {
		t.Errorf("top@k2 error = %v, want failed prerequisites", a.Err)
	}
	err = res.Err()
	if err == nil || !strings.Contains(err.Error(), "double@k2: k2 is not supported") || strings.Contains(err.Error(), "top@k2") {
		t.Errorf("Err() = %v: want the root cause once, not the failed prerequisite", err)
	}
	var diags []string
	for _, d := range res.Diagnostics() {
		diags = append(diags, d.Analyzer+"@"+d.Func+": "+d.Message)
	}
	if diff := cmp.Diff([]string{"count@k1: seen k1", "count@k2: seen k2"}, diags); diff != "" {
		t.Errorf("diagnostics mismatch (-want +got):\n%s", diff)
	}
}

func TestDriverSelection(t *testing.T) {
	var seen []string
	a := &pass.Analyzer{Name: "a", Doc: "a", Run: func(p *pass.Pass) (any, error) {
		seen = append(seen, p.Func.Name)
		return nil, nil
	}}
	f := testFile()
	if _, err := pass.Run([]*pass.Analyzer{a}, f, pass.Options{AllFuncs: true, Funcs: regexp.MustCompile("^(k1|helper|ext)$")}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"k1", "helper"}, seen); diff != "" {
		t.Errorf("selected functions mismatch (-want +got):\n%s", diff)
	}
}

func TestDriverContracts(t *testing.T) {
	panicky := &pass.Analyzer{Name: "panicky", Doc: "p", Run: func(*pass.Pass) (any, error) { panic("boom") }}
	wrongType := &pass.Analyzer{Name: "wrong", Doc: "w", ResultType: reflect.TypeOf(""), Run: func(*pass.Pass) (any, error) { return 1, nil }}
	checked := &pass.Analyzer{Name: "checked", Doc: "c", Run: func(*pass.Pass) (any, error) { return 1, nil },
		Check: func(any) error { return errors.New("invariant broken") }}
	f := testFile()
	res, err := pass.Run([]*pass.Analyzer{panicky, wrongType, checked}, f, pass.Options{Check: true, Funcs: regexp.MustCompile("^k1$")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a    *pass.Analyzer
		want string
	}{
		{panicky, "panic in pass panicky on function k1: boom"},
		{wrongType, "result of type int, declared string"},
		{checked, "invariant check failed: invariant broken"},
	} {
		if a := res.Get(tc.a, f.Funcs[0]); a.Err == nil || !strings.Contains(a.Err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.a.Name, a.Err, tc.want)
		}
	}
	if err := pass.Validate([]*pass.Analyzer{panicky}); err != nil {
		t.Fatal(err)
	}
}

// TestMergeContexts: one finding of a device function reached through
// several calls (of one kernel or several) is one diagnostic listing every
// call; findings that differ in anything but function and context, or that
// have no call context, stay apart.
func TestMergeContexts(t *testing.T) {
	d := func(pos token.Pos, fn, msg, ctx string) pass.Diagnostic {
		return pass.Diagnostic{Pos: pos, Severity: pass.Error, Category: "unbounded-loop", Message: msg, Context: ctx, Analyzer: "loops", Func: fn}
	}
	in := []pass.Diagnostic{
		d(5, "k2", "loop L of device function f is not bounded", "called from k2 at a.ptx:40:2"),
		d(5, "k1", "loop L of device function f is not bounded", "called from k1 at a.ptx:20:2"),
		d(5, "k1", "loop L of device function f is not bounded", "called from k1 at a.ptx:20:2"), // a second graph of k1
		d(5, "k1", "loop L of device function f is not bounded", "called from k1 at a.ptx:22:2"),
		d(5, "k3", "loop L of device function f is not bounded: another reason", "called from k3 at a.ptx:60:2"),
		d(9, "k1", "loop M of k1 is not bounded", ""),
		d(9, "k2", "loop M of k1 is not bounded", ""),
	}
	pass.SortDiagnostics(nil, in)
	got := pass.MergeContexts(in)
	want := []pass.Diagnostic{
		{Pos: 5, Severity: pass.Error, Category: "unbounded-loop", Analyzer: "loops", Func: "k1", Funcs: []string{"k1", "k2"},
			Message: "loop L of device function f is not bounded",
			Context: "called from k1 at a.ptx:20:2; called from k1 at a.ptx:22:2; called from k2 at a.ptx:40:2"},
		{Pos: 5, Severity: pass.Error, Category: "unbounded-loop", Analyzer: "loops", Func: "k3", Funcs: []string{"k3"},
			Message: "loop L of device function f is not bounded: another reason", Context: "called from k3 at a.ptx:60:2"},
		{Pos: 9, Severity: pass.Error, Category: "unbounded-loop", Analyzer: "loops", Func: "k1", Funcs: []string{"k1"}, Message: "loop M of k1 is not bounded"},
		{Pos: 9, Severity: pass.Error, Category: "unbounded-loop", Analyzer: "loops", Func: "k2", Funcs: []string{"k2"}, Message: "loop M of k1 is not bounded"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pass.MergeContexts (-want +got):\n%s", diff)
	}
	if s := got[0].Text(); s != "loop L of device function f is not bounded (called from k1 at a.ptx:20:2; called from k1 at a.ptx:22:2; called from k2 at a.ptx:40:2)" {
		t.Errorf("Text = %q", s)
	}
}
