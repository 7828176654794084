package sass

import (
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
)

// corpusDir is ../shared/corpus/sass relative to the repository root.
var corpusDir = filepath.Join("..", "..", "..", "shared", "corpus", "sass")

func corpusFiles(t testing.TB) []string {
	t.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("shared corpus not available at %s: %v", corpusDir, err)
	}
	files, err := filepath.Glob(filepath.Join(corpusDir, "*", "*.sass"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no .sass files under %s", corpusDir)
	}
	return files
}

func TestCorpus(t *testing.T) {
	for _, file := range corpusFiles(t) {
		name := filepath.Base(filepath.Dir(file)) + "/" + filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ParseFile(token.NewFileSet(), file, src, AllErrors)
			if err != nil {
				t.Fatalf("ParseFile: %v", err)
			}
			if len(f.Funcs) == 0 {
				t.Fatalf("no functions")
			}
			for _, w := range f.Warnings {
				t.Logf("warning: %v", w)
			}
			for _, fn := range f.Funcs {
				g, err := cfg.Build(f.Fset, fn)
				if err != nil {
					t.Errorf("cfg.Build(%s): %v", fn.Name, err)
					continue
				}
				if err := g.Check(); err != nil {
					t.Errorf("Check(%s): %v", fn.Name, err)
				}
			}
		})
	}
}
