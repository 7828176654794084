package cfg_test

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
)

// BenchmarkBuild measures Build (blocks, edges, dominators,
// post-dominators, loops, irreducible regions) over every function of a
// file: the largest PTX file of the corpus (48k lines), and a synthetic
// kernel of 1x, 10x and 100x a 50-block nested-loop pattern.
func BenchmarkBuild(b *testing.B) {
	b.Run("corpus-largest", func(b *testing.B) {
		shared := sharedDir(b)
		path := filepath.Join(shared, "corpus", "ptx", "jialunzhang-psu__ptx-90-parser",
			"tests__sample__matrix_free_device_matrix_vector_04.1.sm_80.ptx")
		src, err := os.ReadFile(path)
		if err != nil {
			b.Skip(err)
		}
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, path, src, 0)
		if err != nil {
			b.Skip(err)
		}
		benchFile(b, fset, f)
	})
	for _, scale := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("synthetic-%dx", scale), func(b *testing.B) {
			f, err := cfgtest.Parse(synthetic(scale))
			if err != nil {
				b.Fatal(err)
			}
			benchFile(b, f.Fset, f)
		})
	}
}

func benchFile(b *testing.B, fset *token.FileSet, f *isa.File) {
	instrs := 0
	for _, fn := range f.Funcs {
		instrs += len(fn.Instrs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, fn := range f.Funcs {
			if fn.Decl {
				continue
			}
			if _, err := cfg.Build(fset, fn); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(instrs), "instrs")
}

// synthetic returns one kernel made of n copies of a pattern: a guarded
// early exit, a two-deep loop nest with an if/else and a continue, and a
// straight-line tail (about 50 blocks and 200 instructions per copy).
func synthetic(n int) string {
	var sb strings.Builder
	sb.WriteString(".entry synth\n")
	for c := 0; c < n; c++ {
		fmt.Fprintf(&sb, "\tld\n\t@p ret\n")
		for l := 0; l < 6; l++ {
			p := fmt.Sprintf("C%d_%d", c, l)
			fmt.Fprintf(&sb, "%s_O:\n\tmov\n%s_I:\n\tadd\n\tadd\n\t@p bra %s_E\n\tsub\n\tbra %s_J\n%s_E:\n\tmul\n%s_J:\n\t@q bra %s_I\n\tadd\n\t@r bra %s_I\n\t@s bra %s_O\n\tst\n\tst\n\tst\n",
				p, p, p, p, p, p, p, p, p)
		}
	}
	sb.WriteString("\tret\n")
	return sb.String()
}

// BenchmarkCheck measures Graph.Check (the sanity checker the pass
// framework runs on every graph) on the synthetic kernel of 1x, 10x, 80x
// (about 4,000 blocks, where the naive dominator cross-check used to stop)
// and 200x the 50-block pattern: its cost must grow near-linearly.
func BenchmarkCheck(b *testing.B) {
	for _, scale := range []int{1, 10, 80, 200} {
		b.Run(fmt.Sprintf("synthetic-%dx", scale), func(b *testing.B) {
			f, err := cfgtest.Parse(synthetic(scale))
			if err != nil {
				b.Fatal(err)
			}
			g, err := cfg.Build(f.Fset, f.Funcs[0])
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := g.Check(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(g.Blocks)), "blocks")
		})
	}
}
