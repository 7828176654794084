package divergence_test

import (
	"errors"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
	"github.com/gpuwcet/gpuwcet/divergence"
)

// TestCorpus analyses every function of every .ptx file of the shared
// corpus and reference data without launch configuration: no error other
// than a clear *LimitError, no panic, and every warp-level CFG passes
// Check. With -short only a sample of files is read.
func TestCorpus(t *testing.T) {
	var files []string
	for _, dir := range []string{"../../shared/corpus/ptx", "../../shared/reference"} {
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".ptx") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("../shared corpus not present")
	}
	step := 1
	if testing.Short() {
		step = 10
	}
	var funcs, classes, limits, blocks, warpBlocks, divergent, branches int
	for i := 0; i < len(files); i += step {
		file := files[i]
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, file, src, 0)
		if err != nil {
			continue // front-end errors are the parser's business
		}
		for _, fn := range f.Funcs {
			if fn.Decl {
				continue
			}
			g, err := cfg.Build(fset, fn)
			if err != nil {
				continue
			}
			funcs++
			info, err := divergence.Analyze(g, pass.Launch{}, divergence.Options{MaxBlocks: 4000})
			var le *divergence.LimitError
			var re *divergence.RefusedError
			if errors.As(err, &le) || errors.As(err, &re) {
				limits++
				continue
			}
			if err != nil {
				t.Errorf("%s: %s: %v", file, fn.Name, err)
				continue
			}
			for _, br := range info.Branches {
				branches++
				if br.Divergent {
					divergent++
				}
			}
			for _, c := range info.Classes {
				classes++
				blocks += len(g.Blocks)
				warpBlocks += len(c.Graph.Blocks)
				if err := c.Graph.Check(); err != nil {
					t.Errorf("%s: %s: %s: %v", file, fn.Name, c.Name, err)
				}
			}
		}
	}
	t.Logf("%d files, %d functions, %d branches (%d possibly divergent), %d refused (size limit or serialized divergent loop), thread-level blocks %d -> warp-level %d",
		len(files)/step, funcs, branches, divergent, limits, blocks, warpBlocks)
}
