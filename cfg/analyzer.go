package cfg

import (
	"fmt"
	"io"
	"reflect"

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
