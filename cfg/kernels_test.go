package cfg_test

import (
	"fmt"
	"go/token"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
)

// kernelListing is one parsed listing of the team's kernel corpus.
type kernelListing struct {
	*cfgtest.Listing
	kind   string // "ptx" or "sass"
	file   *isa.File
	graphs map[string]*cfg.Graph // by function name
	lines  *cfgtest.LineTable    // SASS only
}

// parseKernelListing parses one listing of the corpus and builds the graph
// of every function, reporting any error, warning or failed check.
func parseKernelListing(t *testing.T, l *cfgtest.Listing, kind string) *kernelListing {
	t.Helper()
	var src []byte
	var err error
	path := l.PTXPath()
	if kind == load.SASS {
		path = l.SASSPath()
		src, err = l.SASS()
	} else {
		src, err = l.PTX()
	}
	if err != nil {
		t.Errorf("%s: %v", l, err)
		return nil
	}
	fset := token.NewFileSet()
	f, err := load.File(fset, path, src, kind)
	gaps := disassemblyGaps(src)
	if kind == load.SASS && len(gaps) > 0 {
		// cuobjdump 11.8 prints no text for some sm_90 instructions: the
		// listing is incomplete, and the front end must refuse it.
		if err == nil {
			t.Errorf("%s (%s): accepted a listing with no text for the instructions at %v", l, kind, gaps)
		} else if !strings.Contains(err.Error(), "encoding word without an instruction") {
			t.Errorf("%s (%s): the listing has no text for the instructions at %v, and the error does not say so: %v", l, kind, gaps, err)
		}
		if l.Config.Arch != "sm_90" {
			t.Errorf("%s (%s): disassembly gaps at %v outside sm_90", l, kind, gaps)
		}
		return nil
	}
	if err != nil {
		t.Errorf("%s (%s): %v", l, kind, err)
		return nil
	}
	for _, w := range f.Warnings {
		t.Errorf("%s (%s): warning: %v", l, kind, w)
	}
	kl := &kernelListing{Listing: l, kind: kind, file: f, graphs: map[string]*cfg.Graph{}}
	for _, fn := range f.Funcs {
		if fn.Decl {
			continue
		}
		g, err := cfg.Build(fset, fn)
		if err != nil {
			t.Errorf("%s (%s): cfg.Build(%s): %v", l, kind, fn.Name, err)
			continue
		}
		if err := g.Check(); err != nil {
			t.Errorf("%s (%s): Check(%s): %v", l, kind, fn.Name, err)
			continue
		}
		kl.graphs[fn.Name] = g
	}
	if kind == load.SASS {
		if kl.lines, err = l.Lines(); err != nil {
			t.Errorf("%s: %v", l, err)
		}
	}
	return kl
}

// disassemblyGaps returns the offsets after which a cuobjdump listing for
// sm_70 or later (where each instruction line carries its low encoding
// word and is followed by one line holding the high word) has an encoding
// pair with no instruction text: an instruction the disassembler did not
// print.
func disassemblyGaps(src []byte) []string {
	var gaps []string
	modern := false
	run, last := 0, ""
	for _, ln := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(ln)
		switch {
		case strings.HasPrefix(t, "code for sm_"):
			n, _ := strconv.Atoi(strings.TrimPrefix(t, "code for sm_"))
			modern, run, last = n >= 70, 0, ""
		case strings.HasPrefix(t, "/*") && len(t) > 8 && t[6:8] == "*/":
			if modern && run > 1 && last != "" {
				gaps = append(gaps, "0x"+last)
			}
			run, last = 0, t[2:6]
		case strings.HasPrefix(t, "/* 0x"):
			run++
		default:
			run, last = 0, ""
		}
	}
	return gaps
}

// TestKernelCorpusListings parses every PTX and SASS listing of the team's
// kernel corpus (testdata/kernels) with the project's front ends: no
// error, no warning (an unknown opcode is one), every function's graph
// passes Check, and the kernels of each listing are exactly the manifest's
// kernels of its source, with the manifest's parameter count.
func TestKernelCorpusListings(t *testing.T) {
	c := cfgtest.Open(t)
	refused, gaps := 0, 0
	defer func() {
		t.Logf("%d listings; %d SASS listings refused for %d instructions cuobjdump printed no text for", len(c.Listings()), refused, gaps)
	}()
	for _, l := range c.Listings() {
		if src, err := l.SASS(); err == nil {
			if g := disassemblyGaps(src); len(g) > 0 {
				refused++
				gaps += len(g)
			}
		}
		t.Run(l.String(), func(t *testing.T) {
			want := map[string]*cfgtest.Kernel{}
			for _, k := range c.KernelsOf(l.Source) {
				want[k.Symbol] = k
			}
			for _, kind := range []string{load.PTX, load.SASS} {
				kl := parseKernelListing(t, l, kind)
				if kl == nil {
					continue
				}
				got := map[string]bool{}
				for _, fn := range kl.file.Kernels() {
					got[fn.Name] = true
					k := want[fn.Name]
					if k == nil {
						t.Errorf("%s: kernel %s is not in the manifest", kind, fn.Name)
						continue
					}
					if kind == load.PTX {
						var names []string
						for _, p := range fn.Params {
							names = append(names, p.Name)
						}
						var wantNames []string
						for _, p := range k.Params {
							wantNames = append(wantNames, k.PTXParam(p))
						}
						if strings.Join(names, ",") != strings.Join(wantNames, ",") {
							t.Errorf("%s: %s: PTX parameters %v, want %v", kind, fn.Name, names, wantNames)
						}
					}
				}
				for sym := range want {
					if !got[sym] {
						t.Errorf("%s: manifest kernel %s missing from the listing", kind, sym)
					}
				}
			}
		})
	}
}

// deviceFunc returns the __device__ function of s whose mangled name is
// sym, or nil.
func deviceFunc(s *cfgtest.Source, sym string) *cfgtest.Func {
	for _, f := range s.Funcs {
		if !f.Kernel && strings.HasPrefix(sym, fmt.Sprintf("_Z%d%s", len(f.Name), f.Name)) {
			return f
		}
	}
	return nil
}

// ownInstrs returns the instructions of the blocks whose innermost loop
// is l.
func ownInstrs(g *cfg.Graph, l *cfg.Loop) []*isa.Instr {
	var out []*isa.Instr
	for _, b := range l.Blocks {
		if b.Loop == l {
			out = append(out, b.Instrs...)
		}
	}
	return out
}

// TestKernelCorpusLoopMap maps every loop of every listing of the corpus
// to a source loop by line (cfgtest.Source.MatchLoop over the lines of
// the loop's own blocks) and checks that each maps, and that at clang -O0
// every source loop that a kernel executes has a listing loop.
func TestKernelCorpusLoopMap(t *testing.T) {
	c := cfgtest.Open(t)
	type tally struct{ loops, mapped, header, asm int }
	perConfig := map[string]*tally{}
	for _, l := range c.Listings() {
		for _, kind := range []string{load.PTX, load.SASS} {
			kl := parseKernelListing(t, l, kind)
			if kl == nil {
				continue
			}
			name := l.Config.String() + " " + kind
			tl := perConfig[name]
			if tl == nil {
				tl = &tally{}
				perConfig[name] = tl
			}
			found := map[*cfgtest.Loop]bool{}
			var fns []string
			for fn := range kl.graphs {
				fns = append(fns, fn)
			}
			sort.Strings(fns)
			for _, fn := range fns {
				g := kl.graphs[fn]
				for _, lp := range g.Loops {
					var lines []int
					if kind == load.PTX {
						lines = l.Source.PTXLines(ownInstrs(g, lp))
					} else if kl.lines != nil {
						lines = kl.lines.Lines(sectionOf(fn), ownInstrs(g, lp))
					}
					tl.loops++
					src := l.Source.MatchLoop(lines)
					if src == nil && len(lines) == 0 && kernelBySymbol(c, fn) == nil && deviceFunc(l.Source, fn) == nil {
						// A loop of a function from a CUDA header (clang's
						// 64-bit __shfl_xor_sync, wmma::fill_fragment):
						// not a loop of the corpus sources.
						tl.header++
						continue
					}
					if src == nil && kind == load.SASS && asmLines(t, l.Source, lines) {
						// ptxas's expansion of one inline-PTX
						// instruction: before sm_70, mov.u64 from
						// %globaltimer reads the high word, the low
						// word and the high word again, until the
						// two high words agree (data.cu's now_ns).
						tl.asm++
						continue
					}
					if src == nil {
						t.Errorf("%s %s: %s: loop at %s (lines %v) maps to no source loop", l, kind, fn, lp.Header, lines)
						continue
					}
					tl.mapped++
					found[src] = true
					if k := kernelBySymbol(c, fn); k != nil {
						executes := false
						for _, x := range k.Loops() {
							executes = executes || x.Loop == src
						}
						if !executes {
							t.Errorf("%s %s: %s: loop at %s (lines %v) maps to %s, which the kernel does not execute", l, kind, fn, lp.Header, lines, src)
						}
					} else if src.Func.Kernel {
						t.Errorf("%s %s: device function %s: loop at %s (lines %v) maps to %s of a kernel", l, kind, fn, lp.Header, lines, src)
					}
				}
			}
			if l.Config.Compiler == "clang" && l.Config.Opt == "O0" {
				for _, sl := range l.Source.Loops {
					switch {
					case found[sl]:
					default:
						t.Errorf("%s %s: source loop %s has no listing loop", l, kind, sl)
					}
				}
			}
		}
	}
	var names []string
	for n := range perConfig {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-22s %4d listing loops, %4d mapped, %d in header functions, %d of an asm statement", n, perConfig[n].loops, perConfig[n].mapped, perConfig[n].header, perConfig[n].asm)
	}
}

// asmLines reports whether lines are all lines of inline asm statements
// of s (and there is one at least).
func asmLines(t *testing.T, s *cfgtest.Source, lines []int) bool {
	t.Helper()
	data, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Split(string(data), "\n")
	for _, n := range lines {
		if n < 1 || n > len(text) || !strings.HasPrefix(strings.TrimSpace(text[n-1]), "asm") {
			return false
		}
	}
	return len(lines) > 0
}

// sectionOf returns the kernel whose code section holds SASS function fn:
// the front end names a device function that ptxas placed in a kernel's
// section "$<kernel>$L_0x<address>", and the line table gives the section's
// addresses under the kernel's name.
func sectionOf(fn string) string {
	if rest, ok := strings.CutPrefix(fn, "$"); ok {
		if k, _, ok := strings.Cut(rest, "$"); ok {
			return k
		}
	}
	return fn
}

func kernelBySymbol(c *cfgtest.Corpus, sym string) *cfgtest.Kernel {
	for _, k := range c.Kernels {
		if k.Symbol == sym {
			return k
		}
	}
	return nil
}

// TestKernelCorpusCalls checks the kernels named by the @trip clauses of
// device-function loops against the calls of the unoptimised PTX (clang
// -O0 inlines nothing): a loop of device function f is for kernel k
// exactly when k calls f, directly or through other functions.
func TestKernelCorpusCalls(t *testing.T) {
	c := cfgtest.Open(t)
	for _, s := range c.Sources {
		l := c.Listing(cfgtest.Config{Compiler: "clang", Opt: "O0", Arch: "sm_52"}, s)
		kl := parseKernelListing(t, l, load.PTX)
		if kl == nil {
			continue
		}
		for _, k := range c.KernelsOf(s) {
			reached := map[string]bool{}
			var visit func(name string)
			visit = func(name string) {
				fn := kl.file.Func(name)
				if fn == nil || reached[name] {
					return
				}
				reached[name] = true
				for _, in := range fn.Instrs {
					if in.Kind == isa.KindCall {
						for _, tgt := range in.Targets {
							visit(tgt)
						}
					}
				}
			}
			visit(k.Symbol)
			for _, lp := range s.Loops {
				if lp.Func.Kernel {
					continue
				}
				calls := false
				for sym := range reached {
					if f := deviceFunc(s, sym); f == lp.Func {
						calls = true
					}
				}
				named := false
				for _, tr := range lp.Trips {
					named = named || tr.For(lp, k.Name)
				}
				if calls != named {
					t.Errorf("%s: kernel %s calls %s: %v; a @trip clause names it: %v", lp, k.Name, lp.Func.Name, calls, named)
				}
			}
		}
	}
}
