package sass

import (
	"bytes"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
)

// benchInputs caches the inputs by repeat count: building the 100x input
// (51 MB) once keeps it and its garbage out of the measured runs.
var benchInputs sync.Map // int → []byte

// benchInput is the Ampere corpus listing (5,111 lines) repeated n times
// as separate Function blocks.
func benchInput(b *testing.B, n int) []byte {
	if src, ok := benchInputs.Load(n); ok {
		return src.([]byte)
	}
	src, err := os.ReadFile(filepath.Join(corpusDir, "Jokeren__PTX-Samples", "local-memory-1__main.sass"))
	if err != nil {
		b.Skipf("corpus not available: %v", err)
	}
	var buf bytes.Buffer
	buf.Grow(n * (len(src) + 16))
	for k := 0; k < n; k++ {
		buf.Write(bytes.Replace(src, []byte("Function : triton"), []byte(fmt.Sprintf("Function : k%d_triton", k)), 1))
	}
	benchInputs.Store(n, buf.Bytes())
	return buf.Bytes()
}

// benchParse measures ParseFile (and cfg.Build of every function when
// withCFG) and reports lines/s and the bytes allocated per input line.
func benchParse(b *testing.B, n int, withCFG bool) {
	src := benchInput(b, n)
	lines := bytes.Count(src, []byte("\n"))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.GC() // no garbage of earlier runs collected on this run's time
	runtime.ReadMemStats(&before)
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
	b.StopTimer()
	runtime.ReadMemStats(&after)
	total := float64(lines) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/total, "B/line")
}

func BenchmarkParse1x(b *testing.B)      { benchParse(b, 1, false) }
func BenchmarkParse10x(b *testing.B)     { benchParse(b, 10, false) }
func BenchmarkParse100x(b *testing.B)    { benchParse(b, 100, false) }
func BenchmarkParseCFG1x(b *testing.B)   { benchParse(b, 1, true) }
func BenchmarkParseCFG10x(b *testing.B)  { benchParse(b, 10, true) }
func BenchmarkParseCFG100x(b *testing.B) { benchParse(b, 100, true) }
