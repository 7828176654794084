package values

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/load"
)

// callChain writes a kernel whose device functions each call the next
// twice (2^levels inlined copies of the last), the last one reading a
// register nothing writes.
func callChain(levels int) string {
	var b strings.Builder
	b.WriteString(".version 7.8\n.target sm_80\n.address_size 64\n")
	for i := levels; i >= 1; i-- {
		fmt.Fprintf(&b, ".func f%d()\n{\n", i)
		if i == levels {
			b.WriteString("\t.reg .f32 %f<3>;\n\tadd.f32 %f1, %f2, %f2;\n\tret;\n}\n")
		} else {
			fmt.Fprintf(&b, "\tcall.uni f%d, ();\n\tcall.uni f%d, ();\n\tret;\n}\n", i+1, i+1)
		}
	}
	b.WriteString(".visible .entry k()\n{\n\tcall.uni f1, ();\n\tcall.uni f1, ();\n\tret;\n}\n")
	return b.String()
}

// BenchmarkBuildCallChain: the value graph of an inlined call tree is
// linear in its size (a register no instruction writes is not looked up
// back to the entry).
func BenchmarkBuildCallChain(b *testing.B) {
	for _, levels := range []int{8, 10, 12} {
		src := callChain(levels)
		fset := token.NewFileSet()
		file, err := load.File(fset, "chain.ptx", []byte(src), load.PTX)
		if err != nil {
			b.Fatal(err)
		}
		ifn, inl, err := cfg.Inline(file, file.Func("k"))
		if err != nil {
			b.Fatal(err)
		}
		g, err := cfg.Build(fset, ifn)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("calls=%d", 1<<levels), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Build(g, Options{Dialect: file.Dialect, Inlined: inl}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBuildKernelCorpusO0 builds the value graph of every kernel of
// the clang -O0 listings of the kernel corpus (PTX and SASS, calls
// inlined): the frame slots and the frame addresses kept in them are
// decided to a fixed point (frame.go), a few builds per kernel.
func BenchmarkBuildKernelCorpusO0(b *testing.B) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "kernels", "listings", "clang-O0-*", "*"))
	if err != nil || len(paths) == 0 {
		b.Skip("no kernel corpus listings")
	}
	type unit struct {
		g    *cfg.Graph
		inl  *cfg.Inlined
		arch string
	}
	var units []unit
	for _, p := range paths {
		if !strings.HasSuffix(p, ".ptx") && !strings.HasSuffix(p, ".sass.gz") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		name := p
		if strings.HasSuffix(p, ".gz") {
			r, err := gzip.NewReader(bytes.NewReader(src))
			if err != nil {
				b.Fatal(err)
			}
			if src, err = io.ReadAll(r); err != nil {
				b.Fatal(err)
			}
			name = strings.TrimSuffix(p, ".gz")
		}
		fset := token.NewFileSet()
		file, err := load.File(fset, name, src, load.Auto)
		if err != nil {
			continue // a listing the front end refuses (kernels_test reports it)
		}
		for _, fn := range file.Funcs {
			if fn.Decl || !fn.Entry {
				continue
			}
			ifn, inl, err := cfg.Inline(file, fn)
			if err != nil {
				continue
			}
			g, err := cfg.Build(fset, ifn)
			if err != nil {
				continue
			}
			units = append(units, unit{g, inl, file.Target})
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, u := range units {
			if _, err := Build(u.g, Options{Inlined: u.inl, Arch: u.arch}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(units)), "kernels")
}
