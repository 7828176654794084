package cfg

import (
	"fmt"
	"io"
	"reflect"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// Diagnostic categories reported by Analyzer.
const (
	CategoryUnresolved  = "unresolved-indirect-branch"
	CategoryIrreducible = "irreducible-loop"
	CategoryNoExit      = "no-exit"
)

// Analyzer builds the control-flow graph of each function (kernel or
// device function) with Build. Its result is a *Graph.
var Analyzer = &pass.Analyzer{
	Name: "cfg",
	Doc: `build control-flow graphs with dominators and loops

The cfg pass splits a function into basic blocks, links them with edges
labelled fall, taken, jump, indirect and exit (to a virtual exit node),
and computes the dominator and post-dominator trees, the natural loop nest
and the irreducible regions. It reports indirect branches with unknown
targets (unresolved-indirect-branch), irreducible regions
(irreducible-loop) and functions whose exit is unreachable (no-exit) as
warnings; later passes decide whether they are fatal.`,
	ResultType: reflect.TypeOf((*Graph)(nil)),
	Run:        run,
	Check: func(result any) error {
		g, ok := result.(*Graph)
		if !ok {
			return fmt.Errorf("cfg: result of type %T", result)
		}
		return g.Check()
	},
	Format: func(w io.Writer, result any) error {
		g, ok := result.(*Graph)
		if !ok {
			return fmt.Errorf("cfg: result of type %T", result)
		}
		return Format(w, g)
	},
}

func run(p *pass.Pass) (any, error) {
	g, err := Build(p.Fset, p.Func)
	if err != nil {
		return nil, err
	}
	for _, in := range g.Unresolved {
		p.Reportf(in.Pos, pass.Warning, CategoryUnresolved,
			"indirect branch %q has no known targets", instrText(in))
	}
	for _, r := range g.Irreducible {
		p.Reportf(r.Entries[0].Pos(), pass.Warning, CategoryIrreducible,
			"irreducible loop: %d blocks entered at %s", len(r.Blocks), blockList(r.Entries))
	}
	if !g.Exit.Reachable {
		p.Reportf(p.Func.Pos, pass.Warning, CategoryNoExit,
			"function %s never reaches its exit", p.Func.Name)
	}
	return g, nil
}

// Unit is the code one function runs: the function with its device calls
// inlined (Inline), and its control-flow graph. Every analysis after the
// CFG (values, loop bounds, divergence, timing) works on the unit, so that
// a callee is analysed in each of its call contexts.
type Unit struct {
	Func    *isa.Func // the inlined function (the function itself when it makes no call)
	Graph   *Graph
	Inlined *Inlined // nil when nothing was inlined
	// Err, when not nil, is why the calls could not be inlined (recursion,
	// an indirect call, a callee without body): Func and Graph are then
	// the function itself, its calls unanalysed.
	Err *InlineError
}

// InlineAnalyzer inlines the device calls of each function (Inline) and
// builds the graph of the result. Its result is a *Unit.
var InlineAnalyzer = &pass.Analyzer{
	Name: "inline",
	Doc: `inline device calls: the code a function runs, per call context

The inline pass replaces every call to a device function by the callee's
body (recursively), with the callee's labels and PTX registers renamed per
copy, and builds the control-flow graph of the result. When a call cannot be
inlined (recursion, an indirect call, a callee without body), the unit is
the function itself with the reason in Unit.Err: the passes that need every
path (the static bound) refuse it.`,
	Requires:   []*pass.Analyzer{Analyzer},
	ResultType: reflect.TypeOf((*Unit)(nil)),
	Run: func(p *pass.Pass) (any, error) {
		g := p.ResultOf[Analyzer].(*Graph)
		fn, inl, err := Inline(p.File, p.Func)
		if err != nil {
			ie, ok := err.(*InlineError)
			if !ok {
				return nil, err
			}
			return &Unit{Func: p.Func, Graph: g, Err: ie}, nil
		}
		if fn == p.Func {
			return &Unit{Func: fn, Graph: g}, nil
		}
		ig, err := Build(p.Fset, fn)
		if err != nil {
			return nil, err
		}
		return &Unit{Func: fn, Graph: ig, Inlined: inl}, nil
	},
}
