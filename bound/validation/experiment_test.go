package validation

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// TestPipelineExperiment (run with GPUWCET_EXPERIMENT=1) prints, for every
// trace, the bound under each branch_wait setting and without the
// ret/barrier issue and the overhead, to show which pipeline feature each
// trace needs. With "all", a trace whose bound exceeds the observation by
// more than under "taken" shows that not-taken branches do not stall in the
// simulator. It asserts nothing.
func TestPipelineExperiment(t *testing.T) {
	if os.Getenv("GPUWCET_EXPERIMENT") == "" {
		t.Skip("set GPUWCET_EXPERIMENT=1")
	}
	dir := refDir(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "*.trace"))
	slices.Sort(paths)
	variants := []struct {
		name string
		set  func(*hwdesc.Pipeline)
	}{
		{"imported", func(*hwdesc.Pipeline) {}},
		{"wait=none", func(p *hwdesc.Pipeline) { p.BranchWait = hwdesc.BranchWaitNone }},
		{"wait=all", func(p *hwdesc.Pipeline) { p.BranchWait = hwdesc.BranchWaitAll }},
		{"no-ret", func(p *hwdesc.Pipeline) { p.RetIssues = false }},
		{"no-bar", func(p *hwdesc.Pipeline) { p.BarrierIssues = false }},
		{"ecrts", func(p *hwdesc.Pipeline) { *p = hwdesc.Pipeline{Overhead: p.Overhead} }},
	}
	for _, p := range paths {
		acc, _, ok, err := MemAccesses(filepath.Dir(p))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			acc = 5
		}
		src, _ := os.ReadFile(p)
		fset := token.NewFileSet()
		f, err := load.FileWith(fset, p, src, &load.Options{Format: load.Trace, Dedupe: true})
		if err != nil {
			t.Fatal(err)
		}
		fn := f.Funcs[0]
		line := fmt.Sprintf("%-40s obs=%6d", filepath.Base(p), fn.Trace.ObservedCycles)
		for _, v := range variants {
			hw, err := Description(filepath.Dir(p), acc)
			if err != nil {
				t.Fatal(err)
			}
			v.set(&hw.Pipeline)
			prof, err := phases.Build(fset, fn, hw, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			res, err := bound.Compute(prof)
			if err != nil {
				t.Fatal(err)
			}
			line += fmt.Sprintf(" %s=%d", v.name, res.Bound)
		}
		fmt.Println(line)
	}
}
