package ptx

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// dump parses src and returns the Fprint dump followed by the warnings and
// errors, one per line.
func dump(t *testing.T, name string, src []byte, mode Mode) []byte {
	t.Helper()
	var buf bytes.Buffer
	f, err := ParseFile(token.NewFileSet(), name, src, mode)
	if f == nil {
		t.Fatalf("%s: nil file", name)
	}
	if err := Fprint(&buf, f); err != nil {
		t.Fatal(err)
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(&buf, "warning: %s\n", w)
	}
	if err != nil {
		var el isa.ErrorList
		if !errors.As(err, &el) {
			t.Fatalf("%s: error %T is not an isa.ErrorList", name, err)
		}
		for _, e := range el {
			fmt.Fprintf(&buf, "error: %s\n", e)
		}
	}
	return buf.Bytes()
}

// TestGolden parses every *.ptx section of testdata/golden/*.txtar and
// compares the dumps with the "want" section (go test -update rewrites it).
// An archive whose comment contains "mode: first-errors" is parsed without
// AllErrors.
func TestGolden(t *testing.T) {
	txtar.Golden(t, filepath.Join("testdata", "golden", "*.txtar"), func(t *testing.T, a *txtar.Archive) map[string][]byte {
		mode := AllErrors
		if bytes.Contains(a.Comment, []byte("mode: first-errors")) {
			mode = 0
		}
		var out bytes.Buffer
		n := 0
		for _, f := range a.Files {
			if !strings.HasSuffix(f.Name, ".ptx") {
				continue
			}
			n++
			fmt.Fprintf(&out, "== %s ==\n", f.Name)
			out.Write(dump(t, f.Name, f.Data, mode))
		}
		if n == 0 {
			t.Fatal("archive has no .ptx section")
		}
		return map[string][]byte{"want": out.Bytes()}
	})
}
