package static

import (
	"flag"
	"fmt"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

var kernelsTable = flag.Bool("kernels-table", false, "TestKernelCorpusBounded: print the table of docs/validation.md and the kernels not bounded")

// sassPreset is the description analyze is given for a SASS listing of
// each architecture of the kernel corpus ("" for none).
var sassPreset = map[string]string{"sm_62": "sass-sm61", "sm_70": "sass-sm70", "sm_80": "sass-sm86", "sm_87": "sass-sm87", "sm_90": "sass-sm90"}

// TestKernelCorpusBounded runs the static analysis, as gpuwcet analyze
// does without facts, on every kernel of the team's kernel corpus
// (testdata/kernels) whose loops all have a trip count that depends only on
// the launch, at every representative launch of the manifest (its --block,
// --grid, --arg): PTX with ecrts25-orin-200, SASS with the architecture's
// preset. Every such kernel must be bounded where the derivation is
// complete (PTX of clang -O1, -O2, -O3 and nvcc -O3: docs/validation.md),
// by loops and by every other limit of the analysis (barrier loops whose
// iterations may cross no barrier, as a bitonic sort's, included); the
// others are counted, and
// -kernels-table prints the table and the kernels not bounded with the
// reason. A kernel the description refuses
// (an opcode it does not route) is counted apart.
func TestKernelCorpusBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("kernel corpus run skipped in -short mode")
	}
	c := cfgtest.Open(t)
	ptxHW, err := hwdesc.Builtin("ecrts25-orin-200")
	if err != nil {
		t.Fatal(err)
	}
	type key = cfgtest.Row
	type row struct{ kernels, bounded, loop, unbounded, refused int }
	rows := map[key]*row{}
	var missed []string
	mustBound := func(k key) bool {
		return k.Kind == "ptx" && (k.Compiler == "clang" && k.Opt != "O0" || k.Compiler == "nvcc" && k.Opt == "O3")
	}
	for _, lst := range c.Listings() {
		for _, kind := range []string{"ptx", "sass"} {
			hw := ptxHW
			var src []byte
			var err error
			if kind == "ptx" {
				src, err = lst.PTX()
			} else {
				p := sassPreset[lst.Config.Arch]
				if p == "" {
					continue
				}
				if hw, err = hwdesc.Builtin(p); err != nil {
					t.Fatal(err)
				}
				src, err = lst.SASS()
			}
			if err != nil {
				if os.IsNotExist(err) {
					continue
				}
				t.Fatal(err)
			}
			file, err := load.File(token.NewFileSet(), lst.String()+"."+kind, src, load.Auto)
			if err != nil {
				continue // the front end's finding (TestKernelCorpusLoops logs it)
			}
			sha := loops.SHA256(src)
			k := key{Compiler: lst.Config.Compiler, Opt: lst.Config.Opt, Kind: kind}
			for _, kn := range c.KernelsOf(lst.Source) {
				if file.Func(kn.Symbol) == nil {
					continue
				}
				launchOnly := true
				for _, kl := range kn.Loops() {
					launchOnly = launchOnly && kl.Trip.Class == cfgtest.LaunchOnly
				}
				if !launchOnly {
					continue
				}
				if rows[k] == nil {
					rows[k] = &row{}
				}
				r := rows[k]
				r.kernels++
				why, refused, loop := "", false, false
				for _, launch := range kn.Launch {
					l := pass.Launch{Args: launch.PTXArgs(kn)}
					for i := 0; i < 3; i++ {
						l.Block[i], l.Grid[i] = int(launch.Block[i]), int(launch.Grid[i])
					}
					res, err := pass.Run([]*pass.Analyzer{Analyzer}, file, pass.Options{HW: hw, Launch: l,
						Funcs: regexp.MustCompile("^" + regexp.QuoteMeta(kn.Symbol) + "$"), Inputs: map[string]any{loops.ListingSHAInput: sha}})
					if err != nil {
						t.Fatal(err)
					}
					act := res.Get(Analyzer, res.Funcs[0])
					if act.Err == nil {
						continue
					}
					// A loop the loops pass leaves unbounded, or another
					// limit of the analysis (barrier sections, a call).
					if la := res.Get(loops.Analyzer, res.Funcs[0]); la != nil && la.Err == nil {
						if err := la.Result.(*loops.Result).Err(); err != nil {
							loop, why = true, fmt.Sprintf("%s: %s", launch, strings.Join(strings.Fields(err.Error()), " "))
							break
						}
					}
					msg := strings.SplitN(act.Err.Error(), "\n", 2)[0]
					if Unbounded(act.Err) {
						why = fmt.Sprintf("%s: %s", launch, msg)
						break
					}
					refused, why = true, msg
				}
				switch {
				case why == "":
					r.bounded++
				case refused:
					r.refused++
				case loop:
					r.loop++
					missed = append(missed, fmt.Sprintf("%s %s %s: %s", lst.Config, kind, kn.Name, why))
					if mustBound(k) {
						t.Errorf("%s %s %s: a loop is not bounded: %s", lst.Config, kind, kn.Name, why)
					}
				default:
					r.unbounded++
					missed = append(missed, fmt.Sprintf("%s %s %s (not a loop): %s", lst.Config, kind, kn.Name, why))
					if mustBound(k) {
						t.Errorf("%s %s %s: not bounded: %s", lst.Config, kind, kn.Name, why)
					}
				}
			}
		}
	}
	keys := cfgtest.SortedRows(rows)
	var b strings.Builder
	b.WriteString("| Compiler | Level | Listing | Kernels (loops launch-only) | Bounded | A loop not bounded | Other limit of the analysis | Refused by the description |\n|---|---|---|---:|---:|---:|---:|---:|\n")
	for _, k := range keys {
		r := rows[k]
		fmt.Fprintf(&b, "| %s | -%s | %s | %d | %d | %d | %d | %d |\n", k.Compiler, k.Opt, strings.ToUpper(k.Kind), r.kernels, r.bounded, r.loop, r.unbounded, r.refused)
	}
	if *kernelsTable {
		fmt.Println(b.String())
		sort.Strings(missed)
		for _, m := range missed {
			fmt.Println("not bounded:", m)
		}
	}
	t.Logf("\n%s", b.String())
}
