package cfg_test

import (
	"bytes"
	"go/token"
	"os/exec"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgdot"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// TestGolden builds the graph of every function of each
// testdata/golden/*.txtar input.ptx and compares the text form with the
// "want" section and the drawing with "want.dot" (go test -update
// rewrites them).
func TestGolden(t *testing.T) {
	txtar.Golden(t, "testdata/golden/*.txtar", func(t *testing.T, a *txtar.Archive) map[string][]byte {
		src := a.Input(t, "input.ptx")
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, "input.ptx", src, 0)
		if err != nil {
			t.Fatalf("ParseFile: %v", err)
		}
		var text, dot bytes.Buffer
		for _, fn := range f.Funcs {
			if fn.Decl {
				continue
			}
			g, err := cfg.Build(fset, fn)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if err := g.Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			if text.Len() > 0 {
				text.WriteByte('\n')
			}
			if err := cfg.Format(&text, g); err != nil {
				t.Fatal(err)
			}
			if err := cfgdot.Write(&dot, g, cfgdot.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		if dotPath, err := exec.LookPath("dot"); err == nil {
			for _, e := range renderAll(dotPath, 1, func(int) (string, string) { return "want.dot", dot.String() }) {
				t.Error(e)
			}
		}
		return map[string][]byte{"want": text.Bytes(), "want.dot": dot.Bytes()}
	})
}
