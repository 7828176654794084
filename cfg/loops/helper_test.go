package loops

import (
	"errors"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// valuesOf runs the values pass (on the inlined unit, as the loops pass
// does) on every function of f with a body, in source order.
func valuesOf(t testing.TB, f *isa.File) []*values.Func {
	t.Helper()
	res, err := pass.Run([]*pass.Analyzer{values.Analyzer}, f, pass.Options{AllFuncs: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []*values.Func
	for _, fn := range res.Funcs {
		act := res.Get(values.Analyzer, fn)
		if act.Err != nil {
			t.Logf("%s: %v", fn.Name, res.Err())
			continue
		}
		out = append(out, act.Result.(*values.Func))
	}
	return out
}

// graphs parses PTX source and builds the graph of every function.
func graphs(t testing.TB, name string, src []byte) (*isa.File, []*cfg.Graph) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	var gs []*cfg.Graph
	for _, fn := range f.Funcs {
		if fn.Decl {
			continue
		}
		g, err := cfg.Build(fset, fn)
		if err != nil {
			t.Fatalf("cfg %s: %v", fn.Name, err)
		}
		gs = append(gs, g)
	}
	return f, gs
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sharedDir returns ../shared relative to the repository root, or skips.
func sharedDir(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data %s not present: %v", p, err)
	}
	return p
}

// graphsOf builds the graph of every function of f, reporting (not
// stopping at) a function whose graph cannot be built.
func graphsOf(t testing.TB, f *isa.File) []*cfg.Graph {
	t.Helper()
	var gs []*cfg.Graph
	for _, fn := range f.Funcs {
		if fn.Decl {
			continue
		}
		g, err := cfg.Build(f.Fset, fn)
		if err != nil {
			t.Errorf("cfg %s: %v", fn.Name, err)
			continue
		}
		gs = append(gs, g)
	}
	return gs
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
