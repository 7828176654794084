package txtar

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Archive
	}{
		{"empty", "", &Archive{}},
		{"comment only", "hello\nworld", &Archive{Comment: []byte("hello\nworld\n")}},
		{"two files", "c\n-- a --\nx\n-- b.ptx --\ny\nz\n", &Archive{
			Comment: []byte("c\n"),
			Files:   []File{{"a", []byte("x\n")}, {"b.ptx", []byte("y\nz\n")}},
		}},
		{"not a marker", "-- a --\n--x --\n", &Archive{Files: []File{{"a", []byte("--x --\n")}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse([]byte(tt.in))
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b []byte) bool { return string(a) == string(b) })); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
			again := Parse(Format(got))
			if diff := cmp.Diff(got, again, cmp.Comparer(func(a, b []byte) bool { return string(a) == string(b) })); diff != "" {
				t.Errorf("Parse(Format(a)) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// fatalRecorder records Fatalf instead of stopping the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) { f.msg = fmt.Sprintf(format, args...) }

func TestInput(t *testing.T) {
	a := Parse([]byte("c\n-- input.ptx --\nx\n"))
	if got := a.Input(t, "input.ptx"); string(got) != "x\n" {
		t.Errorf("Input(input.ptx) = %q, want %q", got, "x\n")
	}
	r := &fatalRecorder{TB: t}
	if got := a.Input(r, "input.sass"); got != nil || r.msg != "no input.sass section" {
		t.Errorf("Input(input.sass) = %q, failing with %q; want nil, failing with %q", got, r.msg, "no input.sass section")
	}
}
