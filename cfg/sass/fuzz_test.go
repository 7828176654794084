package sass

import (
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// FuzzParseFile checks that no input panics the parser or the CFG builder,
// and that a listing parsed without errors yields CFGs that pass Check,
// also once its device calls are inlined (cfg.Inline).
// Seeds: the golden inputs.
func FuzzParseFile(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.txtar"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if src, ok := txtar.Parse(data).Get("input.sass"); ok {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		fset := token.NewFileSet()
		file, err := ParseFile(fset, "fuzz.sass", src, 0)
		if file == nil {
			t.Fatal("nil file")
		}
		if err != nil {
			return
		}
		allBuild := true
		for _, fn := range file.Funcs {
			for i, in := range fn.Instrs {
				if in.Index != i {
					t.Fatalf("%s: Instrs[%d].Index = %d", fn.Name, i, in.Index)
				}
			}
			g, err := cfg.Build(fset, fn)
			if err != nil {
				allBuild = false
				continue // e.g. a branch to a label of another function
			}
			if err := g.Check(); err != nil {
				t.Fatalf("Check(%s): %v\n%s", fn.Name, err, src)
			}
		}
		if !allBuild {
			return // a callee's own graph does not build, nor does an inlined copy
		}
		for _, fn := range file.Funcs {
			// Device calls (split off by splitCalls) inline into a
			// function whose graph is as sound.
			inl, info, err := cfg.Inline(file, fn)
			if err != nil || info == nil {
				continue
			}
			ig, err := cfg.Build(fset, inl)
			if err != nil {
				t.Fatalf("cfg.Build(%s inlined): %v\n%s", fn.Name, err, src)
			}
			if err := ig.Check(); err != nil {
				t.Fatalf("Check(%s inlined): %v\n%s", fn.Name, err, src)
			}
		}
	})
}
