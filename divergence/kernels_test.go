package divergence_test

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
	"github.com/gpuwcet/gpuwcet/cfg/values"
	"github.com/gpuwcet/gpuwcet/divergence"
)

var pairTable = flag.Bool("pairs-table", false, "TestSASSAgainstPTX: print the table of docs/validation.md and every disagreement")

// warpLines is, for one listing of one kernel at one launch, per source
// line holding a conditional branch and per warp: div, some branch of that
// line is divergent for the warp (false: every one is uniform, resolved or
// warp-uniform with an unknown value); mixed, the condition of some branch
// of that line, evaluated lane by lane on the per-lane domain, differs
// between the warp's lanes (a definite disagreement, not a may-result of
// the uniformity analysis).
type warpLines map[int]*lineWarps

type lineWarps struct{ div, mixed []bool }

// branchLines runs the divergence pass (the path gpuwcet analyze takes:
// device calls inlined) on kernel k of file at launch l and maps its
// branches to source lines: by .loc for PTX, by the nvdisasm line table
// for SASS.
func branchLines(t *testing.T, file *isa.File, k *cfgtest.Kernel, l pass.Launch, ptxLines func([]*isa.Instr) []int, sassLines *cfgtest.LineTable) (warpLines, error) {
	res, err := pass.Run([]*pass.Analyzer{divergence.Analyzer}, file, pass.Options{Launch: l,
		Funcs: regexp.MustCompile("^" + regexp.QuoteMeta(k.Symbol) + "$")})
	if err != nil {
		return nil, err
	}
	fn := res.Funcs[0]
	act := res.Get(divergence.Analyzer, fn)
	if act.Err != nil {
		return nil, act.Err
	}
	info := act.Result.(*divergence.Info)
	vf, _ := res.Get(values.Analyzer, fn).Result.(*values.Func)
	var inlined *cfg.Inlined
	if ia := res.Get(cfg.InlineAnalyzer, fn); ia != nil && ia.Err == nil {
		inlined = ia.Result.(*cfg.Unit).Inlined
	}
	warps := 0
	for _, c := range info.Classes {
		for _, w := range c.Warps {
			warps = max(warps, w+1)
		}
	}
	out := warpLines{}
	for bi, br := range info.Branches {
		if br.Exit {
			continue // a guarded exit: lanes leave, nothing to resolve against
		}
		ins := []*isa.Instr{br.Instr}
		var ls []int
		if ptxLines != nil {
			ls = ptxLines(ins)
		} else {
			ls = sassLines.Lines(fn.Name, ins)
			if len(ls) == 0 && inlined != nil {
				for _, cp := range inlined.Copies {
					if ls = sassLines.Lines(cp.Callee.Name, ins); len(ls) > 0 {
						break
					}
				}
			}
		}
		for _, line := range ls {
			lw := out[line]
			if lw == nil {
				lw = &lineWarps{div: make([]bool, warps), mixed: make([]bool, warps)}
				out[line] = lw
			}
			for _, c := range info.Classes {
				if c.Outcomes[bi] != divergence.Divergent {
					continue
				}
				for _, w := range c.Warps {
					lw.div[w] = true
					if vf != nil && mixedLanes(vf, br.Instr, l, w) {
						lw.mixed[w] = true
					}
				}
			}
		}
	}
	return out, nil
}

// mixedLanes evaluates the guard of branch in lane by lane for warp w of
// launch l (thread ids 32w..32w+31, x fastest; the block index unknown)
// and reports whether every lane's value is known and they differ.
func mixedLanes(vf *values.Func, in *isa.Instr, l pass.Launch, w int) bool {
	g := vf.Guard(in)
	if g == nil {
		return false
	}
	d := l.Block
	for i := range d {
		d[i] = max(d[i], 1)
	}
	env := &values.LaneEnv{Args: l.Args}
	n := d[0] * d[1] * d[2]
	for t := 32 * w; t < 32*w+32 && t < n; t++ {
		env.Tid = append(env.Tid, [3]uint64{uint64(t % d[0]), uint64(t / d[0] % d[1]), uint64(t / (d[0] * d[1]))})
	}
	for i := 0; i < 3; i++ {
		env.Ntid[i], env.Nctaid[i] = uint64(d[i]), uint64(max(l.Grid[i], 1))
	}
	v := values.NewEvaluator[values.Lanes](values.LaneDomain{Env: env}).Eval(g)
	if len(v) == 0 {
		return false
	}
	for _, x := range v[1:] {
		if x != v[0] {
			return true
		}
	}
	return false
}

// pairExceptions are the source lines where the SASS of a build resolves
// a branch per warp that its PTX leaves divergent, each with the reason it
// is not a wrong SASS resolution. Key: "config stem kernel line".
var pairExceptions = map[string]string{}

// TestSASSAgainstPTX checks the per-warp resolution of SASS branches
// against the PTX of the same build (issue 10, evidence item 4): for every
// kernel of the team's corpus whose PTX and SASS listings both load, at
// every launch of the manifest, the branches of each source line (PTX .loc,
// SASS nvdisasm line table) are compared warp by warp. Both listings are
// analysed by the same divergence pass, but through different front ends
// and instruction semantics (PTX, SASS), and ptxas reorders, if-converts and
// rewrites the comparisons; the PTX is the compiler's statement of the
// source. A line where the PTX finds the lanes of a warp may disagree but
// every SASS branch of that line is resolved as uniform for that warp is a
// failure (the SASS resolution would drop a side some lanes run), unless
// pairExceptions explains it. Lines where the SASS is divergent and the
// PTX uniform are imprecision (counted); lines with a branch in one
// listing only (if-converted, unrolled away) are counted apart.
func TestSASSAgainstPTX(t *testing.T) {
	if testing.Short() {
		t.Skip("kernel corpus run skipped in -short mode")
	}
	c := cfgtest.Open(t)
	type key = cfgtest.Row
	type row struct {
		kernels, lines, agree, sassOnlyDiv, ptxOnlyDiv, excepted, oneSide, failed int
		definite                                                                  int // warps × lines where the PTX lanes disagree and the SASS is divergent
	}
	rows := map[key]*row{}
	var notes []string
	for _, lst := range c.Listings() {
		psrc, err1 := lst.PTX()
		ssrc, err2 := lst.SASS()
		if err1 != nil || err2 != nil {
			if (err1 != nil && !os.IsNotExist(err1)) || (err2 != nil && !os.IsNotExist(err2)) {
				t.Fatal(err1, err2)
			}
			continue
		}
		fset := token.NewFileSet()
		pf, err := load.File(fset, lst.String()+".ptx", psrc, load.Auto)
		if err != nil {
			continue
		}
		sf, err := load.File(fset, lst.String()+".sass", ssrc, load.Auto)
		if err != nil {
			continue // a SASS listing the front end refuses: its own tests
		}
		lines, err := lst.Lines()
		if err != nil {
			t.Fatalf("%s: %v", lst, err)
		}
		r := rows[key{Compiler: lst.Config.Compiler, Opt: lst.Config.Opt}]
		if r == nil {
			r = &row{}
			rows[key{Compiler: lst.Config.Compiler, Opt: lst.Config.Opt}] = r
		}
		for _, k := range c.KernelsOf(lst.Source) {
			if pf.Func(k.Symbol) == nil || sf.Func(k.Symbol) == nil {
				continue
			}
			counted := false
			for li, launch := range k.Launch {
				l := pass.Launch{Args: launch.PTXArgs(k)}
				for i := 0; i < 3; i++ {
					l.Block[i], l.Grid[i] = int(launch.Block[i]), int(launch.Grid[i])
				}
				pw, err := branchLines(t, pf, k, l, lst.Source.PTXLines, nil)
				if err != nil {
					notes = append(notes, fmt.Sprintf("%s %s launch %d: PTX not analysed: %.120s", lst, k.Name, li, err))
					continue
				}
				sw, err := branchLines(t, sf, k, l, nil, lines)
				if err != nil {
					notes = append(notes, fmt.Sprintf("%s %s launch %d: SASS not analysed: %.120s", lst, k.Name, li, err))
					continue
				}
				if !counted {
					r.kernels++
					counted = true
				}
				all := map[int]bool{}
				for line := range pw {
					all[line] = true
				}
				for line := range sw {
					all[line] = true
				}
				var ls []int
				for line := range all {
					ls = append(ls, line)
				}
				sort.Ints(ls)
				for _, line := range ls {
					p, s := pw[line], sw[line]
					r.lines++
					if p == nil || s == nil {
						r.oneSide++
						continue
					}
					agree, sassDiv, conservative := true, false, false
					var bad []int
					for w := 0; w < min(len(p.div), len(s.div)); w++ {
						if p.mixed[w] && s.div[w] {
							r.definite++
						}
						switch {
						case p.div[w] == s.div[w]:
						case s.div[w]:
							agree, sassDiv = false, true
						case p.mixed[w]:
							agree = false
							bad = append(bad, w)
						default:
							agree, conservative = false, true
						}
					}
					switch {
					case len(bad) > 0:
						id := fmt.Sprintf("%s %s %s %d", lst.Config, lst.Stem(), k.Name, line)
						if why, ok := pairExceptions[id]; ok {
							notes = append(notes, fmt.Sprintf("%s: exception: %s", id, why))
							r.excepted++
							continue
						}
						r.failed++
						t.Errorf("%s:%d (%s %s, launch %d %s): the lanes of warps %v disagree on the PTX branch of this line (evaluated lane by lane), the SASS resolves every branch of the line as uniform for them", lst.Source.Name, line, lst.Config, k.Name, li, launch, bad)
					case agree:
						r.agree++
					case conservative:
						r.ptxOnlyDiv++
					case sassDiv:
						r.sassOnlyDiv++
					}
				}
			}
		}
	}
	keys := cfgtest.SortedRows(rows)
	var b strings.Builder
	b.WriteString("| Compiler | Level | Kernels | Branch lines × launches | Agree | SASS divergent, PTX uniform | PTX may diverge, SASS uniform | Lanes disagree in PTX, SASS uniform: excepted | … failures | Branch in one listing only | Warp × line checks: lanes disagree in PTX, SASS divergent |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range keys {
		r := rows[k]
		fmt.Fprintf(&b, "| %s | -%s | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", k.Compiler, k.Opt, r.kernels, r.lines, r.agree, r.sassOnlyDiv, r.ptxOnlyDiv, r.excepted, r.failed, r.oneSide, r.definite)
	}
	if *pairTable {
		fmt.Println(b.String())
		for _, n := range notes {
			fmt.Println(n)
		}
	}
	t.Logf("\n%s", b.String())
}
