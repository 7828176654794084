package sass

import (
	"go/token"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// TestGolden parses the input.sass section of each testdata/golden/*.txtar
// and compares the dump (functions, instructions, kinds, defs/uses,
// control fields, warnings, errors) with the want section.
func TestGolden(t *testing.T) {
	txtar.Golden(t, "testdata/golden/*.txtar", func(t *testing.T, a *txtar.Archive) map[string][]byte {
		src := a.Input(t, "input.sass")
		f, err := ParseFile(token.NewFileSet(), "input.sass", src, AllErrors)
		var b strings.Builder
		b.WriteString(dump(f))
		if err != nil {
			for _, e := range err.(isa.ErrorList) {
				b.WriteString("error: " + e.Error() + "\n")
			}
		}
		return map[string][]byte{"want": []byte(b.String())}
	})
}
