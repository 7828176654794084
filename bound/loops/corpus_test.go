package loops

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
	"go/token"
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
		root := sharedDir(t, dir)
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".ptx") {
				files = append(files, p)
			}
			return nil
		})
	}
	var loops, bounded, kernels, parseFail int
	why := map[string]int{}
	for _, p := range files {
		src := readFile(t, p)
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, p, src, 0)
		if err != nil {
			parseFail++
			continue
		}
		_, gs := graphsOf(t, f)
		for _, g := range gs {
			kernels++
			// No launch values: count what derives symbolically.
			for _, d := range Derive(g) {
				loops++
				if d.Expr != nil {
					bounded++
					continue
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
	t.Logf("%d files (%d not parsed), %d functions, %d loops: %d derived, %d unbounded", len(files), parseFail, kernels, loops, bounded, loops-bounded)
	var ks []string
	for k := range why {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return why[ks[i]] > why[ks[j]] || why[ks[i]] == why[ks[j]] && ks[i] < ks[j] })
	for _, k := range ks {
		t.Logf("  %4d  %s", why[k], k)
	}
}
