package sass

import (
	"bytes"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
)

// benchInput is the Ampere corpus listing (5,111 lines), or the Volta
// golden input when the corpus is absent, repeated n times as separate
// Function blocks.
func benchInput(b *testing.B, n int) []byte {
	src, err := os.ReadFile(filepath.Join(corpusDir, "Jokeren__PTX-Samples", "local-memory-1__main.sass"))
	if err != nil {
		b.Skipf("corpus not available: %v", err)
	}
	var buf bytes.Buffer
	for k := 0; k < n; k++ {
		buf.Write(bytes.Replace(src, []byte("Function : triton"), []byte(fmt.Sprintf("Function : k%d_triton", k)), 1))
	}
	return buf.Bytes()
}

func benchParse(b *testing.B, n int, withCFG bool) {
	src := benchInput(b, n)
	lines := bytes.Count(src, []byte("\n"))
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for range b.N {
		fset := token.NewFileSet()
		f, err := ParseFile(fset, "bench.sass", src, 0)
		if err != nil {
			b.Fatal(err)
		}
		if withCFG {
			for _, fn := range f.Funcs {
				if _, err := cfg.Build(fset, fn); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

func BenchmarkParse1x(b *testing.B)      { benchParse(b, 1, false) }
func BenchmarkParse10x(b *testing.B)     { benchParse(b, 10, false) }
func BenchmarkParse100x(b *testing.B)    { benchParse(b, 100, false) }
func BenchmarkParseCFG1x(b *testing.B)   { benchParse(b, 1, true) }
func BenchmarkParseCFG10x(b *testing.B)  { benchParse(b, 10, true) }
func BenchmarkParseCFG100x(b *testing.B) { benchParse(b, 100, true) }
