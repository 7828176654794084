package ptx

import (
	"errors"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// sharedDir is the read-only shared data folder, relative to this package.
var sharedDir = filepath.Join("..", "..", "..", "shared")

// corpusFiles returns every .ptx file under the shared corpus and reference
// folders, or skips the test when they are absent.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{filepath.Join(sharedDir, "corpus", "ptx"), filepath.Join(sharedDir, "reference")} {
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("shared data absent (%s): %v", dir, err)
		}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".ptx") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		t.Skip("no .ptx files in shared data")
	}
	return files
}

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	entryDir     = regexp.MustCompile(`(?m)\.entry\b`)
)

// countEntries counts .entry directives outside comments.
func countEntries(src []byte) int {
	s := blockComment.ReplaceAll(src, nil)
	s = lineComment.ReplaceAll(s, nil)
	return len(entryDir.FindAll(s, -1))
}

func TestCorpus(t *testing.T) {
	files := corpusFiles(t)
	totalWarn, totalInstrs := 0, 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(sharedDir, file)
		fset := token.NewFileSet()
		f, err := ParseFile(fset, file, src, AllErrors)
		if err != nil {
			var el isa.ErrorList
			if !errors.As(err, &el) {
				t.Errorf("%s: error is %T, not isa.ErrorList", name, err)
				continue
			}
			for i, e := range el {
				if i == 5 {
					t.Errorf("%s: ... %d errors in all", name, len(el))
					break
				}
				t.Errorf("%s", e)
			}
			continue
		}
		if got, want := len(f.Kernels()), countEntries(src); got != want {
			t.Errorf("%s: %d kernels, want %d (.entry directives)", name, got, want)
		}
		n := 0
		for _, fn := range f.Funcs {
			n += len(fn.Instrs)
		}
		totalInstrs += n
		totalWarn += len(f.Warnings)
		if len(f.Warnings) > 0 {
			t.Logf("%s: %d warnings, first: %s", name, len(f.Warnings), f.Warnings[0])
		}
	}
	t.Logf("%d files, %d instructions, %d warnings", len(files), totalInstrs, totalWarn)
}
