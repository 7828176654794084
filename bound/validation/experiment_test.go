package validation

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/phases"
)

// TestControlFlowExperiment (run with GPUWCET_EXPERIMENT=1) rewrites each
// path so that the target of a taken branch reads a pseudo-register the
// branch writes, and ret issues as an ALU instruction: the two simulator
// effects the phases model leaves out. It prints the resulting bounds to
// locate the cause of the bfs gap; it asserts nothing.
func TestControlFlowExperiment(t *testing.T) {
	if os.Getenv("GPUWCET_EXPERIMENT") == "" {
		t.Skip("set GPUWCET_EXPERIMENT=1")
	}
	dir := refDir(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "*.trace"))
	slices.Sort(paths)
	for _, p := range paths {
		lat, ok, err := MemLatency(filepath.Dir(p))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			lat = 10
		}
		src, _ := os.ReadFile(p)
		fset := token.NewFileSet()
		f, err := load.FileWith(fset, p, src, &load.Options{Format: load.Trace, Dedupe: true})
		if err != nil {
			t.Fatal(err)
		}
		fn := f.Funcs[0]
		w := fn.Trace.Warps[0].Instrs
		out := make([]*isa.Instr, len(w))
		for i, in := range w {
			c := *in
			out[i] = &c
		}
		for i := range out {
			in := out[i]
			if in.Kind == isa.KindReturn {
				in.Kind = isa.KindOther
			}
			if in.Kind == isa.KindBranch && i+1 < len(out) && slices.Contains(fn.LabelAt(out[i+1].Index), firstTarget(in)) {
				in.Dsts = append(slices.Clone(in.Dsts), isa.Operand{Kind: isa.OpReg, Text: "%ctl", Regs: []string{"%ctl"}})
				nx := out[i+1]
				nx.Srcs = append(slices.Clone(nx.Srcs), isa.Operand{Kind: isa.OpReg, Text: "%ctl", Regs: []string{"%ctl"}})
			}
		}
		fn.Trace.Warps[0].Instrs = out
		hw, err := Description(filepath.Dir(p), lat)
		if err != nil {
			t.Fatal(err)
		}
		prof, err := phases.Build(fset, fn, hw, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := bound.Compute(prof)
		if err != nil {
			t.Fatal(err)
		}
		obs := fn.Trace.ObservedCycles
		fmt.Printf("%-45s obs=%6d bound=%6d over=%6.2f%%\n", filepath.Base(p), obs, res.Bound, 100*float64(int64(res.Bound)-obs)/float64(obs))
	}
}

func firstTarget(in *isa.Instr) string {
	if len(in.Targets) == 0 {
		return ""
	}
	return in.Targets[0]
}
