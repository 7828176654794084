package isa

import (
	"go/token"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineStartsMatchesSetLinesForContent(t *testing.T) {
	for _, s := range []string{"", "\n", "\n\n", "a", "a\n", "a\nb", "a\n\nb\n", "\r\n x \n\n\ny"} {
		fset := token.NewFileSet()
		f := fset.AddFile("x", -1, len(s))
		f.SetLinesForContent([]byte(s))
		want := f.Lines()
		got := LineStarts([]byte(s))
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("LineStarts(%q) (-want +got):\n%s", s, diff)
		}
	}
}

func TestErrorsStopAfterMaxErrors(t *testing.T) {
	for _, mode := range []Mode{0, AllErrors} {
		e := &Errors{Mode: mode}
		stopped := func() (stopped bool) {
			defer func() {
				r := recover()
				stopped = r != nil
				Recover(r)
			}()
			for range 2 * MaxErrors {
				e.Add(token.Position{Line: 1}, "x")
			}
			return false
		}()
		want := 2 * MaxErrors
		if mode&AllErrors == 0 {
			want = MaxErrors
		}
		if stopped != (mode&AllErrors == 0) || len(e.List) != want {
			t.Errorf("mode %d: stopped %v with %d errors, want %v with %d", mode, stopped, len(e.List), mode&AllErrors == 0, want)
		}
	}
}

func TestRecoverPassesOtherPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "other" {
			t.Errorf("recovered %v, want the other panic", r)
		}
	}()
	func() {
		defer func() { Recover(recover()) }()
		panic("other")
	}()
}
