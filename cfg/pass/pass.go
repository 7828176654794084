// Package pass is gpuwcet's pass framework, modelled on
// golang.org/x/tools/go/analysis.
//
// An analysis is a value of type *Analyzer declared in a package of its own:
// it names the analyses whose results it needs (Requires), declares the type
// of its result (ResultType) and computes it in Run from a *Pass, which
// carries the kernel, the listing, the hardware description, the launch
// configuration and the results of the required analyses. The driver (Run)
// validates the graph of analyzers, runs each analyzer once per function in
// dependency order, memoises results, turns panics into errors naming the
// pass and the function, checks result types and, on request, invariants,
// and returns diagnostics in a deterministic order.
//
// Adding a pass: write a package that exports an Analyzer, and register it
// in cmd/gpuwcet/suite.go.
package pass

import (
	"flag"
	"fmt"
	"go/token"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// An Analyzer describes an analysis: its name, documentation, flags,
// prerequisites and result.
type Analyzer struct {
	// Name is an identifier used in flags (--<name>.<flag>), dumps and JSON.
	Name string

	// Doc is the documentation: a short lowercase title on the first line,
	// then paragraphs.
	Doc string

	// Flags are the analyzer's own options, exposed by the CLI as
	// --<name>.<flag>.
	Flags flag.FlagSet

	// Requires lists the analyzers whose results Run reads through
	// Pass.ResultOf. The driver runs them first.
	Requires []*Analyzer

	// ResultType is the type of the value Run returns (nil: no result).
	ResultType reflect.Type

	// Run computes the analysis of one function. It may report
	// diagnostics through Pass.Report. A non-nil error fails this action
	// and every action that requires it.
	Run func(*Pass) (any, error)

	// Check, if set, verifies the invariants of a result; the driver calls
	// it after Run when Options.Check is set (always in tests).
	Check func(result any) error

	// Format, if set, writes a stable text dump of a result.
	Format func(w io.Writer, result any) error
}

func (a *Analyzer) String() string { return a.Name }

// Title returns the first line of Doc.
func (a *Analyzer) Title() string {
	t, _, _ := strings.Cut(a.Doc, "\n")
	return strings.TrimSpace(t)
}

// Launch is the launch configuration of a kernel, as far as it is known.
type Launch struct {
	Block [3]int // threads per block (x, y, z); zero when unknown
	Grid  [3]int // blocks per grid; zero when unknown

	// Warps, when positive, replicates a single known path to this many
	// warps (gpuwcet bound --warps).
	Warps int

	// Args are kernel arguments given on the command line (--arg n=1024).
	Args map[string]int64
}

// Threads returns the number of threads per block, 0 when unknown.
func (l Launch) Threads() int {
	if l.Block[0] == 0 {
		return 0
	}
	n := 1
	for _, d := range l.Block {
		if d > 0 {
			n *= d
		}
	}
	return n
}

// Pass is the interface between the driver and one analyzer run on one
// function.
type Pass struct {
	Analyzer *Analyzer
	Fset     *token.FileSet
	File     *isa.File
	Func     *isa.Func // the function analysed
	HW       *hwdesc.Desc
	Launch   Launch

	// Inputs carries further, command-specific inputs by name (for
	// example a flow-facts file); analyzers document the keys they read.
	Inputs map[string]any

	// ResultOf holds the results of the required analyzers.
	ResultOf map[*Analyzer]any

	// Report records a diagnostic.
	Report func(Diagnostic)
}

func (p *Pass) String() string { return p.Analyzer.Name + "@" + p.Func.Name }

// Reportf records a diagnostic at pos.
func (p *Pass) Reportf(pos token.Pos, severity Severity, category, format string, args ...any) {
	p.Report(Diagnostic{Pos: pos, Severity: severity, Category: category, Message: fmt.Sprintf(format, args...)})
}

// Position resolves pos in the pass's file set.
func (p *Pass) Position(pos token.Pos) token.Position {
	if p.Fset == nil {
		return token.Position{}
	}
	return p.Fset.Position(pos)
}

// Severity of a diagnostic.
type Severity uint8

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	}
	return "error"
}

// Diagnostic is a finding of an analyzer, at a position.
type Diagnostic struct {
	Pos      token.Pos
	Severity Severity
	Category string // a constant per kind of finding: "unbounded-loop", "divergent-branch"
	Message  string
	// Context is the call chain that reached a finding in a device
	// function inlined into the function analysed ("called from K at
	// POS, then POS"), empty for the function's own code. The same
	// finding in several calls is one finding: Results.Diagnostics
	// merges diagnostics that differ only in their function and context
	// into one, whose Context lists every call ("…; called from …").
	Context  string
	Analyzer string // filled by the driver
	Func     string // filled by the driver: the function analysed (the first, once merged)
	// Funcs is every function the finding was reported for, in sorted
	// order (filled by Results.Diagnostics; one entry unless merged).
	Funcs []string
}

// Text is the message with its call context, if any:
// "MESSAGE (called from K at POS; called from L at POS)".
func (d Diagnostic) Text() string {
	if d.Context == "" {
		return d.Message
	}
	return d.Message + " (" + d.Context + ")"
}

// MergeContexts merges sorted diagnostics (SortDiagnostics) that are one
// finding reached through several calls: same position, severity,
// category, analyzer and message, each with a call context. The merged
// diagnostic keeps the first's Func, lists every function in Funcs and
// every distinct context, in order, in Context. Others pass unchanged
// (Funcs set to their Func).
func MergeContexts(ds []Diagnostic) []Diagnostic {
	out := ds[:0:0]
	same := func(a, b Diagnostic) bool {
		return a.Context != "" && b.Context != "" && a.Pos == b.Pos && a.Severity == b.Severity &&
			a.Category == b.Category && a.Analyzer == b.Analyzer && a.Message == b.Message
	}
	for _, d := range ds {
		if n := len(out); n > 0 && same(out[n-1], d) {
			m := &out[n-1]
			if !slices.Contains(m.Funcs, d.Func) {
				m.Funcs = append(m.Funcs, d.Func)
				sort.Strings(m.Funcs)
			}
			if !slices.Contains(strings.Split(m.Context, "; "), d.Context) {
				m.Context += "; " + d.Context
			}
			continue
		}
		d.Funcs = []string{d.Func}
		out = append(out, d)
	}
	return out
}

// Validate checks that the analyzers and everything they require are
// well-formed: identifier names, a Doc, a Run function, no two analyzers with
// one name, and no cycle in Requires (the error names the cycle).
func Validate(analyzers []*Analyzer) error {
	names := map[string]*Analyzer{}
	const (
		white = iota
		grey
		black
	)
	color := map[*Analyzer]int{}
	var stack []*Analyzer
	var visit func(a *Analyzer) error
	visit = func(a *Analyzer) error {
		if a == nil {
			return fmt.Errorf("nil *Analyzer")
		}
		switch color[a] {
		case black:
			return nil
		case grey:
			var cyc []string
			for i := len(stack) - 1; i >= 0; i-- {
				cyc = append([]string{stack[i].Name}, cyc...)
				if stack[i] == a {
					break
				}
			}
			return fmt.Errorf("cycle in Requires: %s -> %s", strings.Join(cyc, " -> "), a.Name)
		}
		if !isIdent(a.Name) {
			return fmt.Errorf("analyzer %q: name is not an identifier", a.Name)
		}
		if b, ok := names[a.Name]; ok && b != a {
			return fmt.Errorf("two analyzers named %q", a.Name)
		}
		names[a.Name] = a
		if strings.TrimSpace(a.Doc) == "" {
			return fmt.Errorf("analyzer %q has no Doc", a.Name)
		}
		if a.Run == nil {
			return fmt.Errorf("analyzer %q has no Run function", a.Name)
		}
		color[a] = grey
		stack = append(stack, a)
		for _, r := range a.Requires {
			if err := visit(r); err != nil {
				return err
			}
		}
		stack = stack[:len(stack)-1]
		color[a] = black
		return nil
	}
	for _, a := range analyzers {
		if err := visit(a); err != nil {
			return err
		}
	}
	return nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(unicode.IsLetter(r) || r == '_' || i > 0 && (unicode.IsDigit(r) || r == '-')) {
			return false
		}
	}
	return true
}

// Closure returns the analyzers and everything they require, in a
// deterministic topological order (requirements first).
func Closure(roots []*Analyzer) []*Analyzer {
	var out []*Analyzer
	seen := map[*Analyzer]bool{}
	var visit func(a *Analyzer)
	visit = func(a *Analyzer) {
		if seen[a] {
			return
		}
		seen[a] = true
		for _, r := range a.Requires {
			visit(r)
		}
		out = append(out, a)
	}
	for _, a := range roots {
		visit(a)
	}
	return out
}

// SortDiagnostics orders diagnostics by position, then analyzer,
// category, message, function and context, for deterministic output (one
// finding's diagnostics of several functions are adjacent: MergeContexts).
func SortDiagnostics(fset *token.FileSet, ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Pos != b.Pos {
			if fset != nil {
				pa, pb := fset.Position(a.Pos), fset.Position(b.Pos)
				if pa.Filename != pb.Filename {
					return pa.Filename < pb.Filename
				}
			}
			return a.Pos < b.Pos
		}
		if a.Analyzer != b.Analyzer {
			return a.Analyzer < b.Analyzer
		}
		if a.Category != b.Category {
			return a.Category < b.Category
		}
		if a.Message != b.Message {
			return a.Message < b.Message
		}
		if a.Func != b.Func {
			return a.Func < b.Func
		}
		return a.Context < b.Context
	})
}
