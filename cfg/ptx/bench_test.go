package ptx

import (
	"bytes"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"
)

// largestCorpusFile returns the largest .ptx file (in lines) of the shared
// corpus, or skips.
func largestCorpusFile(b *testing.B) (string, []byte) {
	b.Helper()
	dir := filepath.Join(sharedDir, "corpus", "ptx")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("shared corpus absent (%s): %v", dir, err)
	}
	var best string
	var bestSrc []byte
	for _, file := range corpusFiles(b) {
		src, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		if bytes.Count(src, []byte("\n")) > bytes.Count(bestSrc, []byte("\n")) {
			best, bestSrc = file, src
		}
	}
	return best, bestSrc
}

var identRE = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)

// replicate returns n copies of the module src as one valid module: the
// header is kept once and every function name of copy k gets the suffix
// "_k", so that no function is defined twice.
func replicate(b *testing.B, src []byte, n int) []byte {
	b.Helper()
	f, err := ParseFile(token.NewFileSet(), "x.ptx", src, 0)
	if err != nil {
		b.Fatal(err)
	}
	names := make(map[string]bool)
	for _, fn := range f.Funcs {
		names[fn.Name] = true
	}
	// Split off the header (.version, .target, .address_size lines).
	hdr := regexp.MustCompile(`(?m)^\s*\.(version|target|address_size)\b[^\n]*\n`)
	body := hdr.ReplaceAll(src, nil)
	var out bytes.Buffer
	for _, m := range hdr.FindAll(src, -1) {
		out.Write(m)
	}
	for k := 0; k < n; k++ {
		suffix := []byte("_" + strconv.Itoa(k))
		out.Write(identRE.ReplaceAllFunc(body, func(id []byte) []byte {
			if names[string(id)] {
				return append(append([]byte(nil), id...), suffix...)
			}
			return id
		}))
	}
	return out.Bytes()
}

func benchParse(b *testing.B, src []byte) {
	lines := bytes.Count(src, []byte("\n"))
	b.SetBytes(int64(len(src)))
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	for b.Loop() {
		if _, err := ParseFile(token.NewFileSet(), "bench.ptx", src, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	total := float64(b.N) * float64(lines)
	b.ReportMetric(total/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/total, "B/line")
}

// BenchmarkParse parses the largest corpus file (about 48k lines).
func BenchmarkParse(b *testing.B) {
	_, src := largestCorpusFile(b)
	benchParse(b, src)
}

// BenchmarkParseScale parses 1, 10 and 100 renamed copies of the largest
// corpus file, to show that the cost is linear in the input.
func BenchmarkParseScale(b *testing.B) {
	_, src := largestCorpusFile(b)
	for _, n := range []int{1, 10, 100} {
		big := replicate(b, src, n)
		b.Run(fmt.Sprintf("x%d", n), func(b *testing.B) { benchParse(b, big) })
	}
}
