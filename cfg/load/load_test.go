package load_test

import (
	"bytes"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
)

const ptxSrc = `// a comment mentioning .entry is not a marker
.version 7.0
.target sm_75
.address_size 64

.visible .entry k()
{
ret;
}
`

const sassSrc = `	code for sm_80
		Function : k
	.headerflags    @"EF_CUDA_SM80 EF_CUDA_PTX_SM(EF_CUDA_SM80)"
        /*0000*/                   EXIT ;                                                /* 0x000000000000794d */
                                                                                         /* 0x000fea0003800000 */
`

const traceSrc = "warp 0 :  PC=0x10 (k.ptx:8) ret;\nkernel_execution_time : 9"

func TestDetect(t *testing.T) {
	tests := []struct {
		name, src, want, err string
	}{
		{"ptx", ptxSrc, load.PTX, ""},
		{"ptx entry only", "/* x */ .visible .entry k() { ret; }", load.PTX, ""},
		{"ptx in block comment", "/* .version 1.0\n*/\n.target sm_80\n", load.PTX, ""},
		{"cuobjdump ptx", "Fatbin ptx code:\n================\n.version 7.0\n", load.PTX, ""},
		{"trace", traceSrc, load.Trace, ""},
		{"trace header", "File start...\n", load.Trace, ""},
		{"cuobjdump sass", "\tcode for sm_80\n\t\tFunction : k\n", load.SASS, ""},
		{"fatbin elf", "Fatbin elf code:\n================\narch = sm_75\n", load.SASS, ""},
		{"nvdisasm", ".headerflags @\"EF_CUDA_SM80\"\n", load.SASS, ""},
		{"address comment", "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n", load.SASS, ""},
		{"nvdisasm section", "\t.section\t.text.k,\"ax\",@progbits\n", load.SASS, ""},
		{"cuasm", "// --------------------- FileHeader --------------------------\n", load.SASS, ""},
		{"maxas", "# Kernel: sgemm\n", load.SASS, ""},
		{"maxas ctrl", "--:-:1:-:1      S2R R118, SR_TID.X;\n", load.SASS, ""},
		{"empty", "", "", "empty file"},
		{"blank", " \n\t\n", "", "empty file"},
		{"nul", "warp\x00", "", "binary data"},
		{"invalid utf8", "\xff\xfe\xfd", "", "binary data"},
		{"elf", "\x7fELF\x02\x01", "", "binary ELF file"},
		{"unknown", "hello world\n", "", "unknown input format"},
		{"traceg", "-kernel name = _Z13lud_perimeterPfii\n-kernel id = 8\n", "", ""},
		{"ptx target only", ".target sm_80\n", load.PTX, ""},
		{"ptx target then version", ".target sm_80\n.version 7.0\n", load.PTX, ""},
		{"nvdisasm target", ".target sm_100\n\t.section\t.text.k,\"ax\",@progbits\n", load.SASS, ""},
		{"nvdisasm target life ranges", ".target sm_100\n// +----+\n        /*0000*/                   MOV R1, c[0x0][0x28] ;   // |  1   ^ |\n", load.SASS, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := load.Detect([]byte(tt.src))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Detect error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("Detect = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.ptx"), []byte(ptxSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src, format string
		dialect           isa.Dialect
		err               string
	}{
		{"auto ptx", ptxSrc, "", isa.DialectPTX, ""},
		{"auto trace", traceSrc, load.Auto, isa.DialectTrace, ""},
		{"forced ptx", ptxSrc, load.PTX, isa.DialectPTX, ""},
		{"forced trace", traceSrc, load.Trace, isa.DialectTrace, ""},
		{"forced trace on ptx", ptxSrc, load.Trace, 0, "in.txt:1:1: expected \"warp N"},
		{"auto sass", sassSrc, "", isa.DialectSASS, ""},
		{"forced sass", sassSrc, load.SASS, isa.DialectSASS, ""},
		{"forced sass on ptx", ptxSrc, load.SASS, 0, "in.txt:"},
		{"traceg", "-kernel name = k\n", "", 0, "in.txt: Accel-Sim SASS traces (.traceg) are not supported yet"},
		{"empty", "", "", 0, "in.txt: empty file"},
		{"garbage", "\x00\x01\x02", "", 0, "in.txt: binary data"},
		{"bad format", ptxSrc, "cubin", 0, `in.txt: unknown input format "cubin"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := load.File(token.NewFileSet(), filepath.Join(dir, "in.txt"), []byte(tt.src), tt.format)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("File error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Dialect != tt.dialect {
				t.Errorf("Dialect = %v, want %v", f.Dialect, tt.dialect)
			}
		})
	}
}

// TestTraceModuleBeside checks that a trace finds its module in its own
// directory and that a module name cannot escape it.
func TestTraceModuleBeside(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.ptx"), []byte(ptxSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := load.FileWith(token.NewFileSet(), filepath.Join(dir, "k1.trace"), []byte(traceSrc), &load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Funcs[0].Name; got != "k" {
		t.Errorf("kernel = %q, want k (from the module)", got)
	}
	if len(f.Warnings) != 0 {
		t.Errorf("warnings: %v", f.Warnings)
	}
	mod := load.ModulesIn(dir, 0)
	for _, bad := range []string{"../k.ptx", "/etc/passwd", "..", ""} {
		if _, _, err := mod(bad); err == nil {
			t.Errorf("ModulesIn(%q) accepted", bad)
		}
	}
}

// TestDetectCorpus checks detection on every listing of ../shared/corpus.
func TestDetectCorpus(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("corpus not available (%v)", err)
	}
	want := map[string]string{"ptx": load.PTX, "sass": load.SASS}
	got := map[string]int{}
	for dir, format := range want {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*", "*"))
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := load.Detect(src)
			if err != nil || f != format {
				t.Errorf("%s: Detect = %q, %v; want %q", file, f, err, format)
			}
			got[dir]++
		}
	}
	if diff := cmp.Diff(map[string]int{"ptx": 44, "sass": 21}, got); diff != "" {
		t.Errorf("corpus file counts (-want +got):\n%s", diff)
	}
	tg, err := os.ReadFile(filepath.Join(root, "trace", "jager197__accel-sim-hbf", "artifact__inputs__lud__kernel-8.traceg"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := load.File(token.NewFileSet(), "kernel-8.traceg", tg, ""); err == nil || !strings.Contains(err.Error(), "not supported yet") {
		t.Errorf("traceg: %v", err)
	}
}

func FuzzDetect(f *testing.F) {
	for _, s := range []string{ptxSrc, traceSrc, "\tcode for sm_80\n", "", "\x00", "-kernel name = k\n", "/* .version"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		format, err := load.Detect(src)
		if err == nil && format == "" {
			t.Fatal("Detect returned no format and no error")
		}
	})
}

// TestLifeRangeListings is issue 9 item 18: nvdisasm listings with
// register life ranges (--print-life-ranges: "// | GPR | UGPR |" columns
// after every line) are SASS, also when the first line is ".target
// sm_100", and parse: the columns are comments. The listings are
// cfg/sass/testdata/widths/ldsm.*.plr.sass (gen.sh; the sm_100 header is a
// hand edit of the sm_86 one).
func TestLifeRangeListings(t *testing.T) {
	for _, tc := range []struct{ file, target string }{
		{"ldsm.sm_86.plr.sass", "sm_86"},
		{"ldsm.sm_100.plr.sass", "sm_100"},
	} {
		path := filepath.Join("..", "sass", "testdata", "widths", tc.file)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := load.Detect(src); err != nil || got != load.SASS {
			t.Errorf("%s: Detect = %q, %v; want sass", tc.file, got, err)
		}
		f, err := load.File(token.NewFileSet(), path, src, load.Auto)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if f.Target != tc.target || len(f.Kernels()) != 1 {
			t.Fatalf("%s: target %q, %d kernels; want %s and 1", tc.file, f.Target, len(f.Kernels()), tc.target)
		}
		var ldsm *isa.Instr
		for _, in := range f.Kernels()[0].Instrs {
			if in.Opcode == "LDSM" {
				ldsm = in
			}
		}
		if ldsm == nil || strings.Join(ldsm.Defs(), " ") != "R8 R9 R10 R11" {
			t.Errorf("%s: LDSM %v; want it to write R8 R9 R10 R11", tc.file, ldsm)
		}
	}
	// The narrow life-range listings of sm_52 ... sm_90 (one column per
	// register) are SASS too.
	files, _ := filepath.Glob(filepath.Join("..", "sass", "testdata", "widths", "sm_*.plr.sass"))
	if len(files) < 7 {
		t.Fatalf("%d narrow life-range listings, want 7", len(files))
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if f, err := load.File(token.NewFileSet(), path, src, load.Auto); err != nil || f.Dialect != isa.DialectSASS {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// bigListing returns a PTX listing of about size bytes: its .version line,
// then comment lines.
func bigListing(size int) []byte {
	var b strings.Builder
	b.WriteString(".version 7.0\n")
	line := "// " + strings.Repeat("x", 77) + "\n"
	for b.Len() < size {
		b.WriteString(line)
	}
	return []byte(b.String())
}

// TestDetectBounded: Detect reads what detection needs, one line at a
// time: on a 32 MiB listing whose first line decides, it allocates far
// less than the file (it used to copy and split all of it).
func TestDetectBounded(t *testing.T) {
	src := bigListing(32 << 20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := load.Detect(src)
	runtime.ReadMemStats(&after)
	if err != nil || f != load.PTX {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("Detect allocated %d bytes for a %d-byte listing whose first line decides", n, len(src))
	}
	// One 32 MiB line: the trace check reads its first 64 KiB only.
	long := append([]byte("warp 0 :  PC=0x10 "), bytes.Repeat([]byte("x"), 32<<20)...)
	runtime.GC()
	runtime.ReadMemStats(&before)
	load.Detect(long)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 2<<20 {
		t.Errorf("Detect allocated %d bytes for one %d-byte line", n, len(long))
	}
	// A marker past the first MiB is not looked for: the error says how
	// much was read.
	late := append(bigListing(2 << 20)[len(".version 7.0\n"):], ".version 7.0\n"...)
	if _, err := load.Detect(late); err == nil || !strings.Contains(err.Error(), "in its first 1048576 bytes; use --input-format") {
		t.Errorf("marker after 2 MiB: %v", err)
	}
}

// BenchmarkDetect measures Detect on a 32 MiB listing decided by its first
// line, and on one with no marker (every line read).
func BenchmarkDetect(b *testing.B) {
	for _, tc := range []struct {
		name string
		src  []byte
	}{{"marker-first", bigListing(32 << 20)}, {"no-marker", bigListing(32 << 20)[len(".version 7.0\n"):]}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.src)))
			for i := 0; i < b.N; i++ {
				load.Detect(tc.src)
			}
		})
	}
}
