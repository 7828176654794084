package cfg_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgdot"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
)

// sharedDir returns ../shared relative to the repository root, skipping
// the test when it is absent.
func sharedDir(t testing.TB) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "shared"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared data not found at %s (../shared from the repository root): %v", dir, err)
	}
	return dir
}

// corpusPTX lists every .ptx under shared/corpus/ptx and shared/reference,
// sorted.
func corpusPTX(t testing.TB) []string {
	shared := sharedDir(t)
	var files []string
	for _, root := range []string{filepath.Join(shared, "corpus", "ptx"), filepath.Join(shared, "reference")} {
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".ptx") {
				files = append(files, path)
			}
			return nil
		})
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Skip("no .ptx files in the shared corpus")
	}
	return files
}

func parsePTX(t testing.TB, path string) (*token.FileSet, *isa.File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, path, src, 0)
	return fset, f, err
}

// renderMaxBlocks caps the graphs rendered with Graphviz in the corpus
// test: larger ones take up to 2 s each in dot's layout. -render-all
// lifts the cap.
const renderMaxBlocks = 150

var renderAllFlag = flag.Bool("render-all", false, "TestCorpus: render every corpus drawing with Graphviz, however large")

// TestCorpus builds the graph of every function of every PTX file of the
// shared corpus, checks its invariants, and, when Graphviz is installed
// and -short is not set, renders each drawing of up to renderMaxBlocks
// blocks with dot -Tsvg, in parallel.
func TestCorpus(t *testing.T) {
	files := corpusPTX(t)
	type job struct{ name, dot string }
	var jobs []job
	funcs, parseFailures := 0, 0
	for _, path := range files {
		rel := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		fset, f, err := parsePTX(t, path)
		if err != nil {
			// The front end is not under test here.
			t.Logf("%s: not parsed (skipped): %v", rel, err)
			parseFailures++
			continue
		}
		for _, fn := range f.Funcs {
			if fn.Decl {
				continue
			}
			funcs++
			g, err := cfg.Build(fset, fn)
			if err != nil {
				t.Errorf("%s: Build: %v", rel, err)
				continue
			}
			if err := g.Check(); err != nil {
				t.Errorf("%s: %v", rel, err)
				continue
			}
			if len(g.Blocks) <= renderMaxBlocks || *renderAllFlag {
				var buf bytes.Buffer
				if err := cfgdot.Write(&buf, g, cfgdot.Options{}); err != nil {
					t.Fatal(err)
				}
				jobs = append(jobs, job{rel + ":" + fn.Name, buf.String()})
			}
		}
	}
	t.Logf("%d files, %d not parsed, %d functions built and checked", len(files), parseFailures, funcs)
	if testing.Short() {
		t.Skip("-short: not rendering with Graphviz")
	}
	dotPath, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot not installed (apt-get install graphviz): not rendering")
	}
	errs := renderAll(dotPath, len(jobs), func(i int) (string, string) { return jobs[i].name, jobs[i].dot })
	for _, e := range errs {
		t.Error(e)
	}
	t.Logf("%d drawings rendered with dot -Tsvg", len(jobs))
}

// renderAll renders n DOT graphs with dot -Tsvg on all CPUs and returns
// the failures.
func renderAll(dotPath string, n int, get func(i int) (name, src string)) []string {
	var mu sync.Mutex
	var errs []string
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				name, src := get(i)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				cmd := exec.CommandContext(ctx, dotPath, "-Tsvg", "-o", os.DevNull)
				cmd.Stdin = strings.NewReader(src)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				cancel()
				if err != nil || stderr.Len() > 0 {
					mu.Lock()
					errs = append(errs, fmt.Sprintf("%s: dot -Tsvg: %v: %s", name, err, stderr.String()))
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	sort.Strings(errs)
	return errs
}
