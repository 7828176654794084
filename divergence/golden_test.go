package divergence_test

import (
	"bytes"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
	"github.com/gpuwcet/gpuwcet/divergence"
)

// TestGolden analyses input.ptx of each testdata/golden/*.txtar and
// compares divergence.Format with the "want" section (go test -update
// rewrites it). A comment line "block: X[xYxZ]" gives the block size;
// "arg: NAME=VALUE" lines give kernel arguments.
func TestGolden(t *testing.T) {
	txtar.Golden(t, "testdata/golden/*.txtar", func(t *testing.T, a *txtar.Archive) map[string][]byte {
		src := a.Input(t, "input.ptx")
		var l pass.Launch
		for _, line := range strings.Split(string(a.Comment), "\n") {
			if v, ok := strings.CutPrefix(line, "block: "); ok {
				for i, d := range strings.Split(v, "x") {
					l.Block[i], _ = strconv.Atoi(d)
				}
			}
			if v, ok := strings.CutPrefix(line, "arg: "); ok {
				name, val, _ := strings.Cut(v, "=")
				n, _ := strconv.ParseInt(val, 0, 64)
				if l.Args == nil {
					l.Args = map[string]int64{}
				}
				l.Args[name] = n
			}
		}
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, "input.ptx", src, 0)
		if err != nil {
			t.Fatalf("ParseFile: %v", err)
		}
		var out bytes.Buffer
		for _, fn := range f.Kernels() {
			info := analyzeFunc(t, fset, fn, l)
			if err := divergence.Format(&out, info); err != nil {
				t.Fatal(err)
			}
		}
		return map[string][]byte{"want": out.Bytes()}
	})
}
