package txtar

import (
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
