package loops

import (
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
)

var lineRE = regexp.MustCompile(`line \d+`)

// TestCorpus derives the loop bounds of every kernel of every .ptx file in
// ../shared/corpus/ptx and ../shared/reference: no panic, no error other
// than unbounded loops; it logs bounded vs unbounded counts.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus run skipped in -short mode")
	}
	var files []string
	for _, dir := range []string{"corpus/ptx", "reference"} {
		files = append(files, corpusFiles(sharedDir(t, dir), ".ptx")...)
	}
	deriveCorpus(t, files, func(fset *token.FileSet, p string, src []byte) (*isa.File, error) {
		return ptx.ParseFile(fset, p, src, 0)
	}, os.Getenv("LOOPS_LOG") != "")
}

// corpusFiles lists the files under root whose names end in ext.
func corpusFiles(root, ext string) []string {
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ext) {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// deriveCorpus parses every file with parse, derives the loop bounds of
// every function without launch values, fails on any Compute error other
// than a missing launch value, and logs derived vs unbounded counts with
// the reasons for the unbounded ones. logEach also logs every loop.
func deriveCorpus(t *testing.T, files []string, parse func(*token.FileSet, string, []byte) (*isa.File, error), logEach bool) {
	t.Helper()
	var loops, bounded, funcs, parseFail int
	why := map[string]int{}
	for _, p := range files {
		f, err := parse(token.NewFileSet(), p, readFile(t, p))
		if err != nil {
			parseFail++
			continue
		}
		for _, vf := range valuesOf(t, f) {
			g := vf.Graph
			funcs++
			for _, d := range Derive(vf) {
				loops++
				if d.Expr != nil {
					bounded++
					if logEach {
						t.Logf("derived: %s: %s: %s", filepath.Base(p), g.Func.Name, d.Why)
					}
					continue
				}
				if logEach {
					t.Logf("unbounded: %s: %s", filepath.Base(p), d.Why)
				}
				k := lineRE.ReplaceAllString(d.Why, "line N")
				if i := strings.Index(k, ";"); i > 0 {
					k = k[:i]
				}
				if i := strings.IndexAny(k, "%\"("); i > 0 {
					k = k[:i]
				}
				why[k]++
			}
			if _, err := Compute(g, pass.Launch{}, nil, ""); err != nil && !strings.Contains(err.Error(), "no value for kernel argument") && !strings.Contains(err.Error(), "launch configuration does not give") {
				t.Errorf("%s: %s: %v", p, g.Func.Name, err)
			}
		}
	}
	t.Logf("%d files (%d not parsed), %d functions, %d loops: %d derived, %d unbounded", len(files), parseFail, funcs, loops, bounded, loops-bounded)
	var ks []string
	for k := range why {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return why[ks[i]] > why[ks[j]] || why[ks[i]] == why[ks[j]] && ks[i] < ks[j] })
	for _, k := range ks {
		t.Logf("  %4d  %s", why[k], k)
	}
}
