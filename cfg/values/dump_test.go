package values

import (
	"fmt"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/load"
)

// TestDump prints the values of a listing: VALUES_DUMP=file[:func].
func TestDump(t *testing.T) {
	spec := os.Getenv("VALUES_DUMP")
	if spec == "" {
		t.Skip("VALUES_DUMP not set")
	}
	path, only, _ := strings.Cut(spec, ":")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file, err := load.File(fset, path, src, load.Auto)
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range file.Funcs {
		if fn.Decl || only != "" && fn.Name != only {
			continue
		}
		ifn, inl, err := cfg.Inline(file, fn)
		if err != nil {
			t.Fatal(err)
		}
		g, err := cfg.Build(fset, ifn)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Build(g, Options{Dialect: file.Dialect, Inlined: inl, Arch: file.Target})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("== %s\n", fn.Name)
		for _, v := range f.Values() {
			if v.Kind == VPhi && v.fwd == nil {
				fmt.Printf("  φ%d at %s: %s args %v\n", v.ID, v.Block, v.Name, v.Args)
			}
		}
		for _, b := range g.Blocks {
			fmt.Printf("%s:\n", b)
			for _, in := range b.Instrs {
				fmt.Printf("  %-50s", in.Text)
				if gv := f.Guard(in); gv != nil {
					fmt.Printf(" guard=%s", gv)
				}
				for k, o := range f.Outputs(in) {
					if o != nil {
						fmt.Printf(" | %s=%s", f.Sem(in).Outs[k].Name, o)
					}
				}
				fmt.Println()
			}
		}
	}
}
