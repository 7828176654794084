package loops

import (
	"flag"
	"fmt"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

var kernelTable = flag.Bool("table", false, "TestKernelCorpusLoops: print the derivation table of docs/validation.md")

// corpusLoop is one loop of a listing of the team's kernel corpus, for one
// kernel, mapped to its source loop.
type corpusLoop struct {
	config cfgtest.Config
	kind   string // "ptx" or "sass"
	kernel *cfgtest.Kernel
	src    *cfgtest.Loop
	trip   *cfgtest.Trip
	pos    string
	// derived: a bound derived at every launch of the kernel; why: the
	// reason when not.
	derived bool
	why     string
	// below: a derived bound below the source loop's trip count (a sign of
	// an unrolled listing loop or of an unsound derivation; reported).
	below []string
}

// corpusLoops derives the bounds of every loop of every listing of the
// kernel corpus, for each kernel and each of its launches, through the
// loops pass (the path gpuwcet analyze takes).
func corpusLoops(t *testing.T, c *cfgtest.Corpus) []*corpusLoop {
	t.Helper()
	var out []*corpusLoop
	for _, lst := range c.Listings() {
		for _, kind := range []string{"ptx", "sass"} {
			var src []byte
			var err error
			if kind == "ptx" {
				src, err = lst.PTX()
			} else {
				src, err = lst.SASS()
			}
			if err != nil {
				if os.IsNotExist(err) {
					continue
				}
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			file, err := load.File(fset, lst.String()+"."+kind, src, load.Auto)
			if err != nil {
				// A listing the front end refuses is the front end's
				// finding (its own tests), not a derivation failure.
				t.Logf("%s %s skipped: %v", lst, kind, err)
				continue
			}
			var lines *cfgtest.LineTable
			if kind == "sass" {
				if lines, err = lst.Lines(); err != nil {
					t.Fatalf("%s: %v", lst, err)
				}
			}
			sha := SHA256(src)
			for _, k := range c.KernelsOf(lst.Source) {
				if file.Func(k.Symbol) == nil {
					continue // not in this listing (an architecture it needs)
				}
				byLoop := map[int]*corpusLoop{}
				var order []int
				for li, launch := range k.Launch {
					l := pass.Launch{Args: launch.PTXArgs(k)}
					for i := 0; i < 3; i++ {
						l.Block[i], l.Grid[i] = int(launch.Block[i]), int(launch.Grid[i])
					}
					res, err := pass.Run([]*pass.Analyzer{Analyzer}, file, pass.Options{Launch: l,
						Funcs: regexp.MustCompile("^" + regexp.QuoteMeta(k.Symbol) + "$"), Inputs: map[string]any{ListingSHAInput: sha}})
					if err != nil {
						t.Fatal(err)
					}
					fn := res.Funcs[0]
					act := res.Get(Analyzer, fn)
					ia := res.Get(cfg.InlineAnalyzer, fn)
					if ia.Err != nil {
						t.Errorf("%s %s %s: %v", lst, kind, k.Name, ia.Err)
						break
					}
					u := ia.Result.(*cfg.Unit)
					var r *Result
					if act.Err == nil {
						r = act.Result.(*Result)
					}
					for i, lp := range u.Graph.Loops {
						var own []*isa.Instr
						for _, b := range lp.Blocks {
							if b.Loop == lp {
								own = append(own, b.Instrs...)
							}
						}
						var ls []int
						if kind == "ptx" {
							ls = lst.Source.PTXLines(own)
						} else {
							ls = lines.Lines(fn.Name, own)
							if len(ls) == 0 && u.Inlined != nil {
								// An inlined SASS callee keeps its own name in the table.
								for _, cp := range u.Inlined.Copies {
									if ls = lines.Lines(cp.Callee.Name, own); len(ls) > 0 {
										break
									}
								}
							}
						}
						sl := lst.Source.MatchLoop(ls)
						if sl == nil {
							continue
						}
						var trip *cfgtest.Trip
						for _, tr := range sl.Trips {
							if tr.For(sl, k.Name) {
								trip = tr
							}
						}
						if trip == nil {
							continue
						}
						cl := byLoop[i]
						if cl == nil {
							cl = &corpusLoop{config: lst.Config, kind: kind, kernel: k, src: sl, trip: trip, derived: true,
								pos: fmt.Sprintf("%s:%d", lst.Source.Name, sl.Line)}
							byLoop[i] = cl
							order = append(order, i)
						}
						switch {
						case r == nil:
							cl.derived, cl.why = false, act.Err.Error()
						case r.Loops[i].Bound == nil || r.Loops[i].Bound.Source != Derived:
							cl.derived = false
							if cl.why == "" {
								cl.why = r.Loops[i].Why
							}
						case trip.Class == cfgtest.LaunchOnly:
							if tc, err := launch.Max(trip.Expr); err == nil && r.Loops[i].Bound.Max < tc {
								cl.below = append(cl.below, fmt.Sprintf("launch %d: %d < trip %d", li, r.Loops[i].Bound.Max, tc))
							}
						}
					}
				}
				for _, i := range order {
					out = append(out, byLoop[i])
				}
			}
		}
	}
	return out
}

// recordedDerived is the ratchet of TestKernelCorpusLoops: per compiler,
// level and listing kind, the launch-only loops of the kernel corpus
// derived when last recorded (docs/validation.md, "Loop bounds of the
// kernel corpus"). The test fails when a row derives fewer. Who raises a
// rate raises its figure here and in the table (go test ./cfg/loops -run
// TestKernelCorpusLoops -table prints it); lowering one needs a reason in
// the commit (a derivation found unsound).
var recordedDerived = map[string]int{
	"clang -O0 PTX": 492, "clang -O0 SASS": 401,
	"clang -O1 PTX": 478, "clang -O1 SASS": 412,
	"clang -O2 PTX": 557, "clang -O2 SASS": 552,
	"clang -O3 PTX": 630, "clang -O3 SASS": 613,
	"nvcc -O0 PTX": 246, "nvcc -O0 SASS": 246,
	"nvcc -O3 PTX": 320, "nvcc -O3 SASS": 368,
}

// maxWhyLen bounds the length of the reason a loop is not derived.
const maxWhyLen = 1200

// TestKernelCorpusLoops derives the loop bounds of the team's kernel
// corpus (testdata/kernels: clang -O0..-O3 for sm_52/70/80/90, nvcc -O0
// and -O3 for sm_62/87, PTX and SASS) and counts, per compiler,
// optimisation level and listing kind, the listing loops whose source
// loop's trip count depends only on the launch, and how many of them get a
// derived bound at every representative launch. -table prints the table of
// docs/validation.md and the loops not derived.
func TestKernelCorpusLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("kernel corpus run skipped in -short mode")
	}
	c := cfgtest.Open(t)
	loops := corpusLoops(t, c)
	type key = cfgtest.Row
	type row struct{ total, derived, below int }
	rows := map[key]*row{}
	var missed []string
	for _, l := range loops {
		if l.trip.Class != cfgtest.LaunchOnly {
			continue
		}
		k := key{Compiler: l.config.Compiler, Opt: l.config.Opt, Kind: l.kind}
		if rows[k] == nil {
			rows[k] = &row{}
		}
		rows[k].total++
		if l.derived {
			rows[k].derived++
		} else {
			missed = append(missed, fmt.Sprintf("%s %s %s %s: %s", l.config, l.kind, l.kernel.Name, l.pos, l.why))
			// A reason is read by a person: its expressions are cut
			// (values.PrettyLimit), so it stays short whatever the
			// code (nvcc -O0 SASS of loop_udiv_const gave 3 KB of
			// select(…) before).
			if len(l.why) > maxWhyLen {
				t.Errorf("%s %s %s %s: the reason is %d bytes long, want at most %d: %.300s…", l.config, l.kind, l.kernel.Name, l.pos, len(l.why), maxWhyLen, l.why)
			}
		}
		if len(l.below) > 0 {
			rows[k].below++
		}
	}
	keys := cfgtest.SortedRows(rows)
	var b strings.Builder
	b.WriteString("| Compiler | Level | Listing | Launch-only loops | Derived | Fraction |\n|---|---|---|---:|---:|---:|\n")
	for _, k := range keys {
		r := rows[k]
		fmt.Fprintf(&b, "| %s | -%s | %s | %d | %d | %.1f %% |\n", k.Compiler, k.Opt, strings.ToUpper(k.Kind), r.total, r.derived, 100*float64(r.derived)/float64(max(r.total, 1)))
	}
	// The ratchet: no row may derive fewer loops than recorded.
	for _, k := range keys {
		name := fmt.Sprintf("%s -%s %s", k.Compiler, k.Opt, strings.ToUpper(k.Kind))
		rec, ok := recordedDerived[name]
		switch d := rows[k].derived; {
		case !ok:
			t.Errorf("%s: no recorded figure: add %q: %d to recordedDerived (cfg/loops/kernels_test.go)", name, name, d)
		case d < rec:
			t.Errorf("%s: %d loops derived, %d recorded: a derivation was lost (go test ./cfg/loops -run TestKernelCorpusLoops -table lists the loops not derived); if the loss is intended (a derivation found unsound), lower recordedDerived in cfg/loops/kernels_test.go and the table of docs/validation.md (Loop bounds of the kernel corpus)", name, d, rec)
		case d > rec:
			t.Logf("%s: %d loops derived, %d recorded: raise recordedDerived in cfg/loops/kernels_test.go and the table of docs/validation.md", name, d, rec)
		}
	}
	if *kernelTable {
		fmt.Println(b.String())
		sort.Strings(missed)
		for _, m := range missed {
			fmt.Println("not derived:", m)
		}
	}
	t.Logf("\n%s", b.String())
}
