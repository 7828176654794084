package loops

import (
	"go/token"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/sass"
)

// TestCorpusSASS derives the loop bounds of every function of every .sass
// file in ../shared/corpus/sass: no panic, no error other than unbounded
// loops; it logs derived vs unbounded counts.
func TestCorpusSASS(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus run skipped in -short mode")
	}
	files := corpusFiles(sharedDir(t, "corpus/sass"), ".sass")
	deriveCorpus(t, files, func(fset *token.FileSet, p string, src []byte) (*isa.File, error) {
		return sass.ParseFile(fset, p, src, 0)
	}, true)
}
