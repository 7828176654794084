package sass

import (
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// TestSplitAgainstNvdisasm checks the split of each cuobjdump -sass
// listing of the kernel corpus into kernels and device functions
// (splitCalls) against nvdisasm -cfg of the same cubin: nvdisasm reads the
// cubin's symbol table, so it draws each device function as a cluster of
// its own ("$kernel$callee"). For every cluster, the function of our split
// that starts at the cluster's entry address (the kernel, or
// "$kernel$L_0x…") must have the cluster's blocks and edges (with the
// rules of TestDOTAgainstNvdisasmKernels), and every function of our split
// must be drawn by nvdisasm. The graphs are the corpus's
// (testdata/kernels/dot, four configurations) and those of
// testdata/calls/gen.sh (the other builds whose SASS makes calls, from the
// same cubins).
func TestSplitAgainstNvdisasm(t *testing.T) {
	c := cfgtest.Open(t)
	files, err := c.DOTFiles()
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob(filepath.Join("testdata", "calls", "dot", "*", "*.dot.gz"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	if len(files) == 0 {
		t.Skip("no DOT files in the kernel corpus")
	}
	funcsCompared, devCompared := 0, 0
	for _, file := range files {
		cfgName := filepath.Base(filepath.Dir(file))
		stem := strings.TrimSuffix(filepath.Base(file), ".dot.gz")
		t.Run(cfgName+"/"+stem, func(t *testing.T) {
			data, err := cfgtest.ReadGzip(file)
			if err != nil {
				t.Fatal(err)
			}
			sassPath := filepath.Join(c.Dir, "listings", cfgName, stem+".sass.gz")
			src, err := cfgtest.ReadGzip(sassPath)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			f, err := ParseFile(fset, sassPath, src, AllErrors)
			if err != nil {
				t.Skipf("listing does not parse (sm_90 text cuobjdump 11.8 does not print): %v", err)
			}
			// Our functions by kernel and entry address.
			type key struct {
				kernel string
				entry  int64
			}
			ours := map[key]*isa.Func{}
			kernelOf := map[*isa.Func]string{}
			kernel := ""
			for _, fn := range f.Funcs {
				if !strings.HasPrefix(fn.Name, "$") {
					kernel = fn.Name
				} else if !strings.HasPrefix(fn.Name, "$"+kernel+"$") {
					t.Fatalf("%s does not follow its kernel %s", fn.Name, kernel)
				}
				kernelOf[fn] = kernel
				ours[key{kernel, fn.Instrs[0].Offset}] = fn
			}
			drawn := map[*isa.Func]bool{}
			for _, chunk := range strings.Split(string(data), `subgraph "cluster_`)[1:] {
				cl := readCluster(t, chunk)
				k := cl.name
				if strings.HasPrefix(k, "$") {
					k, _, _ = strings.Cut(k[1:], "$")
				}
				fn := ours[key{k, cl.entry}]
				if fn == nil {
					t.Errorf("%s (entry %#x): no function of ours starts there", cl.name, cl.entry)
					continue
				}
				if drawn[fn] {
					continue // nvdisasm draws a callee once per kernel
				}
				drawn[fn] = true
				compareGraph(t, cl, fset, fn, true, true)
				funcsCompared++
				if strings.HasPrefix(fn.Name, "$") {
					devCompared++
				}
			}
			for _, fn := range f.Funcs {
				if !drawn[fn] {
					t.Errorf("%s (kernel %s): not drawn by nvdisasm", fn.Name, kernelOf[fn])
				}
			}
		})
	}
	t.Logf("%d functions compared, %d of them device functions", funcsCompared, devCompared)
}

// TestKernelCorpusSplit parses every SASS listing of the kernel corpus
// and checks the split: every function's graph builds and passes
// cfg.Check, every direct call names a function of the file with a body
// (or was made a branch into code without RET), no corpus kernel is taken
// for a device function, and every kernel inlines its calls (cfg.Inline).
func TestKernelCorpusSplit(t *testing.T) {
	c := cfgtest.Open(t)
	listings, withCalls, devFuncs, branches, inlined := 0, 0, 0, 0, 0
	for _, l := range c.Listings() {
		src, err := l.SASS()
		if err != nil {
			t.Errorf("%s: %v", l, err)
			continue
		}
		f, err := ParseFile(token.NewFileSet(), l.SASSPath(), src, AllErrors)
		if err != nil {
			continue // sm_90 listings without text for some instructions: TestKernelCorpusListings
		}
		listings++
		for _, w := range f.Warnings {
			t.Errorf("%s: warning: %v", l, w)
		}
		calls := false
		for _, fn := range f.Funcs {
			isKernel := false
			for _, k := range c.KernelsOf(l.Source) {
				isKernel = isKernel || k.Symbol == fn.Name
			}
			if fn.Entry != isKernel {
				t.Errorf("%s: %s: entry %v, but the manifest says kernel %v", l, fn.Name, fn.Entry, isKernel)
			}
			if !fn.Entry {
				devFuncs++
				calls = true
			}
			g, err := cfg.Build(f.Fset, fn)
			if err != nil {
				t.Errorf("%s: %s: %v", l, fn.Name, err)
				continue
			}
			if err := g.Check(); err != nil {
				t.Errorf("%s: %s: %v", l, fn.Name, err)
			}
			for _, in := range fn.Instrs {
				switch {
				case in.Kind == isa.KindBranch && (in.Opcode == "CALL" || in.Opcode == "CAL"):
					branches++
				case in.Kind == isa.KindCall:
					if callee := f.Func(in.Targets[0]); callee == nil || callee.Decl || callee.Entry {
						t.Errorf("%s: %s: %s at %#x: calls %s, not a device function of the listing", l, fn.Name, in.Op(), in.Offset, in.Targets[0])
					}
				case in.Kind == isa.KindIndirectCall:
					t.Errorf("%s: %s: indirect call %s at %#x", l, fn.Name, in.Op(), in.Offset)
				}
			}
			if fn.Entry {
				inl, info, err := cfg.Inline(f, fn)
				if err != nil {
					t.Errorf("%s: %s: %v", l, fn.Name, err)
					continue
				}
				if info != nil {
					inlined++
					if _, err := cfg.Build(f.Fset, inl); err != nil {
						t.Errorf("%s: %s inlined: %v", l, fn.Name, err)
					}
				}
			}
		}
		if calls {
			withCalls++
		}
	}
	t.Logf("%d SASS listings parsed, %d with device functions (%d in all), %d kernels inlined, %d calls into code without RET made branches",
		listings, withCalls, devFuncs, inlined, branches)
	if devFuncs == 0 {
		t.Error("no device function in the corpus's SASS")
	}
}
