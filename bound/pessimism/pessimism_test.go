package pessimism_test

import (
	"fmt"
	"go/token"
	"os"
	"slices"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/bound/pessimism"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/assume"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
	"github.com/gpuwcet/gpuwcet/divergence"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

type kernel struct {
	rep *static.Report
	env pessimism.Env
}

func analyze(t *testing.T, path, hwName string, launch pass.Launch, facts string) kernel {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hw, err := hwdesc.Resolve(hwName)
	if err != nil {
		t.Fatal(err)
	}
	return analyzeSrc(t, path, src, hw, launch, facts)
}

// analyzeSrc is analyze on a listing's text and a description.
func analyzeSrc(t *testing.T, path string, src []byte, hw *hwdesc.Desc, launch pass.Launch, facts string) kernel {
	t.Helper()
	fset := token.NewFileSet()
	f, err := load.File(fset, path, src, load.PTX)
	if err != nil {
		t.Fatal(err)
	}
	sha := loops.SHA256(src)
	inputs := map[string]any{loops.ListingSHAInput: sha}
	if facts != "" {
		fx, err := loops.DecodeFacts("facts.toml", []byte(fmt.Sprintf(facts, sha)))
		if err != nil {
			t.Fatal(err)
		}
		inputs[loops.FactsInput] = fx
	}
	res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, f, pass.Options{HW: hw, Launch: launch, Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	var fn *isa.Func
	for _, x := range f.Funcs {
		if x.Entry {
			fn = x
		}
	}
	act := res.Get(static.Analyzer, fn)
	if act.Err != nil {
		t.Fatal(act.Err)
	}
	env := pessimism.Env{Launch: launch, DivOptions: divergence.OptionsOf(inputs)}
	if va := res.Get(values.Analyzer, fn); va != nil && va.Err == nil {
		env.Values = va.Result.(*values.Func)
	}
	return kernel{act.Result.(*static.Report), env}
}

const colsumFacts = `version = 1
sha256 = "%s"
[[kernel]]
name = "colsum"
[[kernel.loop]]
label = "LBB0_2"
max = 50
why = "test"
`

// TestStaticSplit: on the examples, the sum parts add up to the bound,
// every counterfactual drop is at least 0 (resolving an approximation
// favourably or switching an option off never raises the bound: the
// analysis is monotone), a kernel without branch or annotated loop is
// approximation-free, and each kind of approximation is found and costs
// what a direct re-analysis says.
func TestStaticSplit(t *testing.T) {
	b256 := pass.Launch{Block: [3]int{256, 1, 1}}
	for _, tc := range []struct {
		name, path, hw string
		launch         pass.Launch
		facts          string
		free           bool
		kinds          []string
	}{
		{"saxpy", "../../examples/saxpy/kernel.ptx", "ecrts25-orin-200", b256, "", true, nil},
		{"divergent", "../../examples/divergent/kernel.ptx", "ecrts25-orin-200", b256, "", false, []string{pessimism.KindDivergent}},
		{"reduce", "../../examples/reduce/kernel.ptx", "rtx3070", b256, "", false, nil},
		{"counted-annotated", "../../examples/counted-loop/kernel.ptx", "ecrts25-orin-200", b256, colsumFacts, false, []string{pessimism.KindAnnotatedLoop}},
		{"device-call", "../../examples/device-call/kernel.ptx", "ecrts25-orin-5", b256, "", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := analyze(t, tc.path, tc.hw, tc.launch, tc.facts)
			s, err := pessimism.Static(k.rep, k.env)
			if err != nil {
				t.Fatal(err)
			}
			if s.BoundCycles != int64(k.rep.Bound) || s.IsolatedCycles+s.InterferenceCycles+s.UnattributedCycles != s.BoundCycles {
				t.Errorf("bound %d = isolated %d + interference %d + unattributed %d?", s.BoundCycles, s.IsolatedCycles, s.InterferenceCycles, s.UnattributedCycles)
			}
			var byRes int64
			for _, r := range s.ByResource {
				byRes += r.Cycles
			}
			if byRes != s.InterferenceCycles {
				t.Errorf("interference %d, by resource %d", s.InterferenceCycles, byRes)
			}
			for _, c := range []pessimism.Category{s.Control, s.Data, s.Assumptions} {
				if c.Cycles < 0 || c.Cycles > s.BoundCycles {
					t.Errorf("category of %d cycles (bound %d): %+v", c.Cycles, s.BoundCycles, c)
				}
				for _, it := range c.Items {
					if it.Cycles < 0 || it.Cycles > c.Cycles+s.BoundCycles {
						t.Errorf("item %+v", it)
					}
				}
			}
			if s.ApproximationFree != tc.free || tc.free && len(s.Control.Items) != 0 {
				t.Errorf("approximation-free %v, want %v: %+v", s.ApproximationFree, tc.free, s.Control)
			}
			for _, kind := range tc.kinds {
				found := false
				for _, it := range s.Control.Items {
					if it.Kind == kind && it.Cycles > 0 {
						found = true
					}
				}
				if !found {
					t.Errorf("no %s item with cycles > 0: %+v", kind, s.Control)
				}
			}
			if len(s.Assumptions.Items) == 0 || s.Assumptions.Cycles <= 0 {
				t.Errorf("the ECRTS and RTX presets' [pipeline] options cost nothing? %+v", s.Assumptions)
			}
		})
	}
}

// TestAnnotatedLoopDrop: the cycles of an annotated loop bound are the
// bound minus the bound with that loop at 1, by direct re-analysis with a
// facts file saying 1.
func TestAnnotatedLoopDrop(t *testing.T) {
	b256 := pass.Launch{Block: [3]int{256, 1, 1}}
	k := analyze(t, "../../examples/counted-loop/kernel.ptx", "ecrts25-orin-200", b256, colsumFacts)
	one := analyze(t, "../../examples/counted-loop/kernel.ptx", "ecrts25-orin-200", b256, `version = 1
sha256 = "%s"
[[kernel]]
name = "colsum"
[[kernel.loop]]
label = "LBB0_2"
max = 1
`)
	s, err := pessimism.Static(k.rep, k.env)
	if err != nil {
		t.Fatal(err)
	}
	want := int64(k.rep.Bound - one.rep.Bound)
	for _, it := range s.Control.Items {
		if it.Kind == pessimism.KindAnnotatedLoop && it.Cycles != want {
			t.Errorf("annotated loop: %d cycles, want %d (bound %d, with max 1: %d)", it.Cycles, want, k.rep.Bound, one.rep.Bound)
		}
	}
	if want <= 0 {
		t.Errorf("bound %d with 50 iterations, %d with 1", k.rep.Bound, one.rep.Bound)
	}
	ledgerIDs(t, s)
}

// ledgerIDs checks the ledger IDs of a split (issue 12 item 4: the cycles
// owed to stated assumptions name them): every ID is in the ledger, the
// stated assumptions are A-PIPELINE's, the data approximations rest on the
// fixed latencies, and an annotated loop bound names A-LOOP-ANNOTATED.
func ledgerIDs(t *testing.T, s *pessimism.Split) {
	t.Helper()
	for _, c := range []pessimism.Category{s.Control, s.Data, s.Assumptions} {
		ids := slices.Clone(c.Assumptions)
		for _, it := range c.Items {
			ids = append(ids, it.Assumptions...)
		}
		for _, id := range ids {
			if _, ok := assume.Get(id); !ok {
				t.Errorf("%q is not in the ledger", id)
			}
		}
	}
	if !slices.Equal(s.Assumptions.Assumptions, []string{assume.Pipeline}) {
		t.Errorf("stated assumptions name %v, want %s", s.Assumptions.Assumptions, assume.Pipeline)
	}
	if !slices.Contains(s.Data.Assumptions, assume.MemFixedLatency) {
		t.Errorf("data approximations name %v, want %s among them", s.Data.Assumptions, assume.MemFixedLatency)
	}
	for _, it := range s.Control.Items {
		if it.Kind == pessimism.KindAnnotatedLoop && !slices.Equal(it.Assumptions, []string{assume.LoopAnnotated}) {
			t.Errorf("annotated loop item names %v, want %s", it.Assumptions, assume.LoopAnnotated)
		}
	}
}

// brxKernel branches only through brx.idx (an indirect branch): it has a
// branch wait under branch_wait but no isa.KindBranch.
const brxKernel = `.version 7.0
.target sm_80
.address_size 64
.visible .entry brx()
{
	.reg .b32 %r<4>;
	.reg .f32 %f<4>;
	mov.u32 %r1, 1;
	mov.f32 %f1, 0f3F800000;
	ts: .branchtargets a, b;
	brx.idx %r1, ts;
a:
	add.f32 %f2, %f1, %f1;
	add.f32 %f3, %f2, %f2;
	ret;
b:
	mul.f32 %f2, %f1, %f1;
	mul.f32 %f3, %f2, %f2;
	ret;
}
`

// TestAssumptionsDirect: each [pipeline] item, and the category, is the
// bound minus the bound of a fresh analysis (the whole pipeline, not
// static.Report.Rerun) with the option(s) switched off, including the
// options Static lists without an analysis because the kernel has nothing
// they apply to (branch_wait without a branch, barrier_issues without a
// block barrier).
func TestAssumptionsDirect(t *testing.T) {
	b256 := pass.Launch{Block: [3]int{256, 1, 1}}
	type listing struct {
		name string
		src  []byte
	}
	var ls []listing
	for _, p := range []string{"saxpy", "divergent", "reduce", "device-call"} {
		src, err := os.ReadFile("../../examples/" + p + "/kernel.ptx")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, listing{p, src})
	}
	ls = append(ls, listing{"brx", []byte(brxKernel)})
	off := map[string]func(*hwdesc.Pipeline){
		"overhead":       func(q *hwdesc.Pipeline) { q.Overhead = 0 },
		"branch_wait":    func(q *hwdesc.Pipeline) { q.BranchWait = hwdesc.BranchWaitNone },
		"ret_issues":     func(q *hwdesc.Pipeline) { q.RetIssues = false },
		"barrier_issues": func(q *hwdesc.Pipeline) { q.BarrierIssues = false },
	}
	for _, hwName := range []string{"ecrts25-orin-200", "rtx3070"} {
		hw, err := hwdesc.Resolve(hwName)
		if err != nil {
			t.Fatal(err)
		}
		for _, wait := range []string{hwdesc.BranchWaitTaken, hwdesc.BranchWaitAll} {
			h := *hw
			h.Pipeline.BranchWait = wait
			h.Pipeline.RetIssues = true
			h.Pipeline.BarrierIssues = true
			for _, l := range ls {
				t.Run(hwName+"/"+wait+"/"+l.name, func(t *testing.T) {
					k := analyzeSrc(t, l.name+".ptx", l.src, &h, b256, "")
					s, err := pessimism.Static(k.rep, k.env)
					if err != nil {
						t.Fatal(err)
					}
					all := h
					for _, it := range s.Assumptions.Items {
						o := h
						off[it.Name](&o.Pipeline)
						off[it.Name](&all.Pipeline)
						want := int64(k.rep.Bound - analyzeSrc(t, l.name+".ptx", l.src, &o, b256, "").rep.Bound)
						if it.Cycles != want {
							t.Errorf("%s: %d cycles, a fresh analysis without it %d", it.Name, it.Cycles, want)
						}
					}
					want := int64(k.rep.Bound - analyzeSrc(t, l.name+".ptx", l.src, &all, b256, "").rep.Bound)
					if s.Assumptions.Cycles != want {
						t.Errorf("assumptions: %d cycles, a fresh analysis without any %d", s.Assumptions.Cycles, want)
					}
				})
			}
		}
	}
}

// TestFixedPathSplit: the fixed-path split adds up and measures the
// pipeline options by recomputation.
func TestFixedPathSplit(t *testing.T) {
	src, err := os.ReadFile("../../examples/saxpy/kernel.ptx")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := load.File(fset, "saxpy.ptx", src, load.PTX)
	if err != nil {
		t.Fatal(err)
	}
	hw, _ := hwdesc.Resolve("ecrts25-orin-200")
	compute := func(hw *hwdesc.Desc) (*bound.Result, error) {
		p, err := phases.Build(fset, f.Funcs[0], hw, 4, false)
		if err != nil {
			return nil, err
		}
		return bound.Compute(p)
	}
	r, err := compute(hw)
	if err != nil {
		t.Fatal(err)
	}
	s := pessimism.FixedPath(r, compute)
	if s.IsolatedCycles+s.InterferenceCycles != s.BoundCycles || s.UnattributedCycles != 0 || !s.ApproximationFree {
		t.Errorf("split %+v", s)
	}
	if s.Assumptions.Cycles <= 0 {
		t.Errorf("assumptions %+v", s.Assumptions)
	}
}
