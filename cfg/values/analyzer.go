package values

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// Analyzer builds the value graph (Build) of each function's unit
// (cfg.InlineAnalyzer): the function with its device calls inlined, so
// that a callee's parameters are the values its caller passed.
var Analyzer = &pass.Analyzer{
	Name: "values",
	Doc: `integer and predicate values in static single assignment form

The values pass decodes every integer and predicate instruction of PTX and
SASS once into generic operations (after LLVM IR and the Go compiler's
generic SSA ops), and builds the value graph of the function with its calls
inlined: registers, local-frame slots at constant offsets and parameter
cells in SSA form, kernel arguments and launch dimensions as leaves (SASS:
read from the constant bank by the architecture's layout). Per-warp branch
resolution (divergence) and loop bounds (loops) interpret it.`,
	Requires:   []*pass.Analyzer{cfg.InlineAnalyzer},
	ResultType: reflect.TypeOf((*Func)(nil)),
	Run: func(p *pass.Pass) (any, error) {
		u := p.ResultOf[cfg.InlineAnalyzer].(*cfg.Unit)
		return Build(u.Graph, Options{Dialect: p.File.Dialect, Inlined: u.Inlined, Arch: p.File.Target})
	},
	Format: func(w io.Writer, result any) error {
		f, ok := result.(*Func)
		if !ok {
			return fmt.Errorf("values: result of type %T", result)
		}
		return Format(w, f)
	},
}

// Format writes the values each instruction writes, block by block.
func Format(w io.Writer, f *Func) error {
	var b strings.Builder
	fmt.Fprintf(&b, "values %s\n", f.Graph.Func.Name)
	for _, blk := range f.Graph.Blocks {
		if !blk.Reachable {
			continue
		}
		fmt.Fprintf(&b, "%s:\n", blk)
		for _, in := range blk.Instrs {
			fmt.Fprintf(&b, "  %s", in.Text)
			if g := f.Guard(in); g != nil {
				fmt.Fprintf(&b, "  [guard %s]", g)
			}
			s := f.Sem(in)
			for k, o := range f.Outputs(in) {
				if o == nil {
					continue
				}
				name := s.Outs[k].Name
				if s.Outs[k].Kind == OutMem {
					name = "mem"
				}
				fmt.Fprintf(&b, "  %s = %s", name, o)
			}
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// FrameValues reports whether some load of a local frame slot is read as
// the value last stored there: the analysis then rests on the frame
// premise (assume.FramePrivate).
func (f *Func) FrameValues() bool { return len(f.frameLoads) > 0 }

// Divisions reports whether some value is read as a division ptxas
// expanded into its float-reciprocal sequence (divide.go): the analysis
// then rests on the precision premise (assume.RcpPrecision).
func (f *Func) Divisions() bool { return f.divisions > 0 }

// UsesDivisions reports whether the value graph of some function of res
// reads a division from ptxas's reciprocal sequence (Divisions).
func UsesDivisions(res *pass.Results) bool {
	for _, fn := range res.Funcs {
		if act := res.Get(Analyzer, fn); act != nil && act.Err == nil {
			if f, ok := act.Result.(*Func); ok && f.Divisions() {
				return true
			}
		}
	}
	return false
}

// UsesFrames reports whether the value graph of some function of res
// reads values through local frame slots (FrameValues).
func UsesFrames(res *pass.Results) bool {
	for _, fn := range res.Funcs {
		if act := res.Get(Analyzer, fn); act != nil && act.Err == nil {
			if f, ok := act.Result.(*Func); ok && f.FrameValues() {
				return true
			}
		}
	}
	return false
}

// UsesActiveMask reports whether the value graph of some function of res
// took two reads of the active mask in one block execution for one value
// (the premise assume.ActiveMask).
func UsesActiveMask(res *pass.Results) bool {
	for _, fn := range res.Funcs {
		if act := res.Get(Analyzer, fn); act != nil && act.Err == nil {
			if f, ok := act.Result.(*Func); ok && f.ActiveMasks() {
				return true
			}
		}
	}
	return false
}
