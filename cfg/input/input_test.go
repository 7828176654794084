package input

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestCheckTOML(t *testing.T) {
	deep := func(open, close string, n int) string {
		return "a = " + strings.Repeat(open, n) + "1" + strings.Repeat(close, n) + "\n"
	}
	for _, tc := range []struct {
		name, doc string
		want      string // "" accepted, else the error
	}{
		{"flat", "a = 1\nb = \"x\"\n[t]\nc = [1, 2, {d = 3}]\n[[u.v]]\ne = 1.5\n", ""},
		{"inline-at-limit", deep("{b=", "}", MaxTOMLDepth), ""},
		{"inline-over", deep("{b=", "}", MaxTOMLDepth+1), "x.toml:1:101: nesting deeper than 32"},
		{"array-over", deep("[", "]", MaxTOMLDepth+1), "x.toml:1:37: nesting deeper than 32"},
		{"dotted-key-at-limit", "a" + strings.Repeat(".b", MaxTOMLDepth) + " = 1\n", ""},
		{"dotted-key", "\n\na" + strings.Repeat(".b", MaxTOMLDepth+1) + " = 1\n", "x.toml:3:66: nesting deeper"},
		{"dotted-header", "[a" + strings.Repeat(".b", MaxTOMLDepth) + "]\n", "x.toml:1:65: nesting deeper"},
		{"dotted-then-inline", "a" + strings.Repeat(".b", 20) + " = " + strings.Repeat("{c=", 13) + "1" + strings.Repeat("}", 13), "x.toml:1:81: nesting deeper"},
		// Brackets, dots and quotes in strings and comments do not count.
		{"strings", "a = \"" + strings.Repeat("{[.", 100) + "\\\"\"\n" +
			"b = '" + strings.Repeat("{", 100) + "'\n" +
			"c = \"\"\"\n" + strings.Repeat("[", 100) + "\"\"\"\"\n" +
			"d = '''" + strings.Repeat("{", 100) + "'''''\n" +
			"# " + strings.Repeat("[", 100) + "\n", ""},
		// Many floats in a row: commas end each run of dots.
		{"floats", "a = [" + strings.Repeat("1.5, ", 1000) + "2.5]\n", ""},
		// Closing brackets restore the depth: many siblings are fine.
		{"siblings", strings.Repeat("[[t.u]]\nx = {a = {b = [1]}}\n", 1000), ""},
		{"too-large", strings.Repeat("#", MaxTOMLBytes+1), "x.toml: 4194305 bytes, above the limit of 4194304 bytes for a TOML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckTOML("x.toml", []byte(tc.doc))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if tc.want == "" && tc.name != "too-large" {
				var v map[string]any
				if _, err := toml.Decode(tc.doc, &v); err != nil {
					t.Errorf("test document is not TOML: %v", err)
				}
			}
		})
	}
}

// TestCheckTOMLHostile: the inputs of issue 9, item 9 (40 KB of inline
// tables nested 10,000 deep took 26 s and 5 GB to decode) are refused at
// once, at the first byte past the limit.
func TestCheckTOMLHostile(t *testing.T) {
	doc := "version = 1\n[[kernel]]\nname = " + strings.Repeat("{a=", 10000) + "1" + strings.Repeat("}", 10000)
	err := CheckTOML("facts.toml", []byte(doc))
	var e *Error
	if !errors.As(err, &e) || e.Pos.Line != 3 || e.Pos.Column != 8+3*MaxTOMLDepth {
		t.Fatalf("got %v, want a nesting error at facts.toml:3:%d", err, 8+3*MaxTOMLDepth)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(small, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	var tl *TooLargeError
	if _, err := ReadFile(small, 9); !errors.As(err, &tl) || tl.Size != 10 || tl.Limit != 9 || tl.Path != small {
		t.Errorf("over the limit: %v", err)
	} else if want := small + ": 10 bytes, above the input size limit of 9 bytes"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	var pe *fs.PathError
	if _, err := ReadFile(dir, 0); !errors.As(err, &pe) || pe.Path != dir {
		t.Errorf("directory: %v", err)
	}
	// A device is read up to the limit, never to its end.
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadFile("/dev/zero", 1000); !errors.As(err, &tl) || tl.Size != -1 {
			t.Errorf("/dev/zero: %v", err)
		} else if want := "/dev/zero: more than 1000 bytes, above the input size limit"; err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}
	}
}

// FuzzCheckTOML: CheckTOML never panics, and a document it accepts that
// the decoder also accepts is nested at most MaxTOMLDepth deep.
func FuzzCheckTOML(f *testing.F) {
	for _, s := range []string{"a = 1", "a = {b = [1, {c = 2}]}", "[a.b.c]\nx = '''\n[[['''", "a.b.\"c.d\" = 1", "x = \"\\\"{\"", "# {{{{\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if CheckTOML("f.toml", data) != nil {
			return
		}
		var v any
		if _, err := toml.Decode(string(data), &v); err != nil {
			return
		}
		if d := nesting(v); d > MaxTOMLDepth {
			t.Fatalf("accepted a document nested %d deep", d)
		}
	})
}

// nesting is the depth of a decoded TOML value.
func nesting(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			d = max(d, nesting(x))
		}
		return d + 1
	case []any:
		for _, x := range v {
			d = max(d, nesting(x))
		}
		return d + 1
	case []map[string]any:
		for _, x := range v {
			d = max(d, nesting(x))
		}
		return d + 1
	}
	return 0
}

func TestVisible(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain name_1", "plain name_1"},
		{"a\x1b[31mred\x07", `a\x1b[31mred\x07`},
		{"tab\tand\nnewline", "tab\tand\nnewline"},
		{"cr\rdel\x7f", `cr\x0ddel\x7f`},
		{"c1\u0085", `c1\u0085`},
		{"bidi \u202eevil\u202c \u2066x\u2069", `bidi \u202eevil\u202c \u2066x\u2069`},
		{"zw\u200bj\ufeff", `zw\u200bj\ufeff`},
		{"bad \xff utf8", `bad \xff utf8`},
		{"é ü 漢字", "é ü 漢字"},
	} {
		if got := Visible(tc.in); got != tc.want {
			t.Errorf("Visible(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := OneLine("a\nb\tc\r\nd"); got != "a b c d" {
		t.Errorf("OneLine: %q", got)
	}
}

// TestVisibleWriter: a rune cut between two writes is kept whole; an
// escape sequence never reaches the underlying writer.
func TestVisibleWriter(t *testing.T) {
	var b bytes.Buffer
	w := VisibleWriter(&b)
	s := []byte("k\u202e漢\x1b[2J\n")
	for i := range s {
		if _, err := w.Write(s[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := b.String(), `k\u202e漢\x1b[2J`+"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
