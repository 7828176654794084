package loops

import (
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/sass"
)

// TestCorpusSASS derives the loop bounds of every function of every .sass
// file in ../shared/corpus/sass: no panic, no error other than unbounded
// loops; it logs derived vs unbounded counts.
func TestCorpusSASS(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus run skipped in -short mode")
	}
	root := sharedDir(t, "corpus/sass")
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sass") {
			files = append(files, p)
		}
		return nil
	})
	var loops, bounded, funcs, parseFail int
	why := map[string]int{}
	for _, p := range files {
		f, err := sass.ParseFile(token.NewFileSet(), p, readFile(t, p), 0)
		if err != nil {
			parseFail++
			continue
		}
		_, gs := graphsOf(t, f)
		for _, g := range gs {
			funcs++
			for _, d := range Derive(g) {
				loops++
				if d.Expr != nil {
					bounded++
					t.Logf("derived: %s: %s: %s", filepath.Base(p), g.Func.Name, d.Why)
					continue
				}
				t.Logf("unbounded: %s: %s", filepath.Base(p), d.Why)
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
