package values

import (
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/load"
)

// TestBuildCorpus builds the value graph of every function of the shared
// corpus, inlined as the analysis does: no error, no panic.
func TestBuildCorpus(t *testing.T) {
	root := "../../../shared/corpus"
	if _, err := os.Stat(root); err != nil {
		t.Skip("no shared corpus")
	}
	var files []string
	for _, sub := range []string{"ptx", "sass"} {
		filepath.WalkDir(filepath.Join(root, sub), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
	}
	nf, nv := 0, 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		file, err := load.File(fset, p, src, load.Auto)
		if err != nil {
			continue
		}
		for _, fn := range file.Funcs {
			if fn.Decl {
				continue
			}
			ifn, inl, err := cfg.Inline(file, fn)
			if err != nil {
				continue
			}
			g, err := cfg.Build(fset, ifn)
			if err != nil {
				continue
			}
			f, err := Build(g, Options{Dialect: file.Dialect, Inlined: inl, Arch: file.Target})
			if err != nil {
				t.Errorf("%s: %s: %v", p, fn.Name, err)
				continue
			}
			nf++
			nv += len(f.Values())
		}
	}
	t.Logf("%d functions, %d values", nf, nv)
}
