package pessimism_test

import (
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound/pessimism"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
	"github.com/gpuwcet/gpuwcet/divergence"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// BenchmarkCorpusSplit is bound/static's BenchmarkCorpus (every kernel of
// ../shared/corpus/ptx, --block 256, on one core) with the pessimism split
// of every bounded kernel, as gpuwcet analyze computes it: the difference
// between the two is the split's cost (docs/performance.md).
func BenchmarkCorpusSplit(b *testing.B) {
	dir, err := filepath.Abs("../../../shared/corpus/ptx")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("corpus not available at %s", dir)
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".ptx" {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	hw, err := hwdesc.Builtin("rtx3070")
	if err != nil {
		b.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		splits := 0
		for _, p := range files {
			src, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			f, err := load.File(token.NewFileSet(), p, src, load.Auto)
			if err != nil {
				continue
			}
			launch := pass.Launch{Block: [3]int{256, 1, 1}}
			opts := pass.Options{HW: hw, Launch: launch}
			res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, f, opts)
			if err != nil {
				b.Fatal(err)
			}
			for _, fn := range res.Funcs {
				act := res.Get(static.Analyzer, fn)
				if act.Err != nil {
					continue
				}
				env := pessimism.Env{Launch: launch, DivOptions: divergence.OptionsOf(opts.Inputs)}
				if va := res.Get(values.Analyzer, fn); va != nil && va.Err == nil {
					env.Values, _ = va.Result.(*values.Func)
				}
				if _, err := pessimism.Static(act.Result.(*static.Report), env); err != nil {
					b.Fatal(err)
				}
				splits++
			}
		}
		if i == 0 {
			b.ReportMetric(float64(splits), "splits")
		}
	}
}
