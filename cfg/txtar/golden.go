package txtar

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// Update is the -update flag of every test binary that uses Golden: it
// rewrites the "want" sections instead of comparing them.
var Update = flag.Bool("update", false, "rewrite the want sections of golden txtar files")

// Golden runs one subtest per testdata file matching pattern (a
// filepath.Glob pattern). For each archive, run computes the outputs from
// the archive (its comment and input sections) and returns them by section
// name (conventionally "want", "want.dot", ...). Each output is compared with
// the section of that name; with -update the sections are rewritten.
func Golden(t *testing.T, pattern string, run func(t *testing.T, a *Archive) map[string][]byte) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no golden files match %s", pattern)
	}
	for _, file := range files {
		name := filepath.Base(file)
		name = name[:len(name)-len(filepath.Ext(name))]
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a := Parse(data)
			got := run(t, a)
			keys := make([]string, 0, len(got))
			for k := range got {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			changed := false
			for _, k := range keys {
				out := fixNL(got[k])
				want, ok := a.Get(k)
				if ok && bytes.Equal(want, out) {
					continue
				}
				if *Update {
					a.Set(k, out)
					changed = true
					continue
				}
				if !ok {
					t.Errorf("%s: no %q section; run with -update to create it. Got:\n%s", file, k, out)
					continue
				}
				t.Errorf("%s: section %q differs; run with -update to accept.\n--- want\n%s--- got\n%s", file, k, want, out)
			}
			if changed {
				if err := os.WriteFile(file, Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// Input returns the data of section name, the input of a golden test; the
// test fails ("no NAME section") when the archive has none.
func (a *Archive) Input(t testing.TB, name string) []byte {
	t.Helper()
	data, ok := a.Get(name)
	if !ok {
		t.Fatalf("no %s section", name)
	}
	return data
}
