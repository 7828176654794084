package static

import (
	"flag"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

var corpusSASS = flag.Bool("corpus-sass", false, "TestCorpus, BenchmarkCorpus: also the SASS listings of ../shared/corpus/sass")

// corpusDir is ../shared/corpus/ptx relative to the repository root.
func corpusDir(tb testing.TB) string {
	dir, err := filepath.Abs("../../../shared/corpus/ptx")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("corpus not available at %s", dir)
	}
	return dir
}

type corpusStats struct {
	files, kernels, bounded, unbounded, failed int
	sassFiles, noPreset                        int
	biggest                                    string
	biggestSize                                int64
	reasons                                    map[string]int
}

// analyzeCorpus runs the static analysis (as gpuwcet analyze does, with
// --block 256 and no arguments or facts) on every kernel of every PTX file
// under dir with hw, and, when sass is set, of every SASS file under
// ../sass with the description of its architecture (sassPreset; a listing
// of an architecture without one is counted in st.noPreset).
func analyzeCorpus(tb testing.TB, dir string, hw *hwdesc.Desc, sass bool) corpusStats {
	st := corpusStats{reasons: map[string]int{}}
	var files []string
	walk := func(dir, ext string) {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ext {
				files = append(files, p)
			}
			return nil
		})
	}
	walk(dir, ".ptx")
	if sass {
		walk(filepath.Join(dir, "..", "sass"), ".sass")
	}
	ptxHW := hw
	sort.Strings(files)
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if int64(len(src)) > st.biggestSize {
			st.biggest, st.biggestSize = p, int64(len(src))
		}
		f, err := load.File(token.NewFileSet(), p, src, load.Auto)
		if err != nil {
			continue // parse errors belong to the front end's corpus test
		}
		hw := ptxHW
		if f.Dialect == isa.DialectSASS {
			p, ok := sassPreset[f.Target]
			if !ok {
				p, ok = map[string]string{"sm_61": "sass-sm61", "sm_75": "sass-sm75", "sm_86": "sass-sm86"}[f.Target]
			}
			if !ok {
				st.noPreset++
				continue
			}
			if hw, err = hwdesc.Builtin(p); err != nil {
				tb.Fatal(err)
			}
			st.sassFiles++
		}
		st.files++
		res, err := pass.Run([]*pass.Analyzer{Analyzer}, f, pass.Options{HW: hw, Launch: pass.Launch{Block: [3]int{256, 1, 1}}})
		if err != nil {
			tb.Fatal(err)
		}
		for _, fn := range res.Funcs {
			st.kernels++
			act := res.Get(Analyzer, fn)
			switch {
			case act.Err == nil:
				st.bounded++
			case Unbounded(act.Err):
				st.unbounded++
			default:
				st.failed++
				msg := act.Err.Error()
				for _, a := range res.Actions() {
					if a.Func == fn && a.Err != nil && a.Analyzer != Analyzer {
						msg = a.Analyzer.Name + ": " + a.Err.Error()
						if strings.Contains(msg, "no value for kernel argument") {
							// A derived bound: the kernel is bounded
							// once the user gives the arguments.
							msg = "a derived loop bound needs an --arg"
							break
						}
					}
				}
				if len(msg) > 90 {
					msg = msg[:90]
				}
				st.reasons[msg]++
			}
		}
	}
	return st
}

// TestCorpus: every kernel of the corpus is bounded, refused as not bounded
// (exit 2), or fails with an error that is not a panic; run with -v for
// the counts.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus: skipped in -short mode")
	}
	hw, err := hwdesc.Builtin("rtx3070")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	st := analyzeCorpus(t, corpusDir(t), hw, *corpusSASS)
	t.Logf("%d files (%d SASS; %d SASS of an architecture without a description left out), %d kernels: %d bounded, %d not bounded (exit 2), %d other errors, in %v; largest file %s (%d bytes)",
		st.files, st.sassFiles, st.noPreset, st.kernels, st.bounded, st.unbounded, st.failed, time.Since(start).Round(time.Millisecond), st.biggest, st.biggestSize)
	for r, n := range st.reasons {
		t.Logf("  %3d × %s", n, r)
	}
}

// BenchmarkCorpus: the whole corpus on one core.
func BenchmarkCorpus(b *testing.B) {
	hw, err := hwdesc.Builtin("rtx3070")
	if err != nil {
		b.Fatal(err)
	}
	dir := corpusDir(b)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		analyzeCorpus(b, dir, hw, *corpusSASS)
	}
}
