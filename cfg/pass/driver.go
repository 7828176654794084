package pass

import (
	"errors"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Options configure a run of the driver.
type Options struct {
	HW     *hwdesc.Desc
	Launch Launch
	Inputs map[string]any

	// Funcs selects the functions analysed; nil means every kernel (PTX
	// .entry or SASS entry function) of the file.
	Funcs *regexp.Regexp

	// AllFuncs analyses device functions too, not only kernels.
	AllFuncs bool

	// Check calls each analyzer's Check on its result.
	Check bool

	// Dump names analyzers whose results are written, with their Format,
	// to DumpDir as <func>_<NN>__<pass>.txt.
	Dump    map[string]bool
	DumpDir string
}

// Action is one analyzer run on one function.
type Action struct {
	Analyzer *Analyzer
	Func     *isa.Func
	Result   any
	Err      error
	Diags    []Diagnostic
}

func (a *Action) String() string { return a.Analyzer.Name + "@" + a.Func.Name }

// Results holds every action of a run.
type Results struct {
	File    *isa.File
	Funcs   []*isa.Func // analysed, in source order
	actions map[actionKey]*Action
	order   []*Action
	diags   []Diagnostic // the driver's own, about the whole file
}

type actionKey struct {
	a *Analyzer
	f *isa.Func
}

// Get returns the action of analyzer a on function f, or nil.
func (r *Results) Get(a *Analyzer, f *isa.Func) *Action { return r.actions[actionKey{a, f}] }

// Actions returns every action in execution order.
func (r *Results) Actions() []*Action { return r.order }

// Diagnostics returns every diagnostic of the run, sorted, one per
// finding: the diagnostics of one finding in a device function reached
// through several calls (of one kernel or several) are merged
// (MergeContexts).
func (r *Results) Diagnostics() []Diagnostic {
	ds := append([]Diagnostic(nil), r.diags...)
	for _, a := range r.order {
		ds = append(ds, a.Diags...)
	}
	SortDiagnostics(r.File.Fset, ds)
	return MergeContexts(ds)
}

// Err returns the errors of the root actions joined, or nil. Errors of
// prerequisites appear once, where they happened.
func (r *Results) Err() error {
	var errs []error
	for _, a := range r.order {
		if a.Err != nil && !errors.Is(a.Err, errPrereq) {
			errs = append(errs, fmt.Errorf("%s: %w", a, a.Err))
		}
	}
	return errors.Join(errs...)
}

var errPrereq = errors.New("failed prerequisites")

// CategoryArchMismatch is the category of the driver's diagnostic when the
// listing's architecture is not the one the hardware description models
// (hwdesc.Desc.ArchMismatch).
const CategoryArchMismatch = "arch-mismatch"

// CheckListing is where a listing meets its hardware description, for
// every command: a description whose instruction set (isa) is not the
// listing's is an error naming both sides; a listing for another
// architecture than the description's is a warning diagnostic
// (CategoryArchMismatch), which reports list among their assumptions. Run
// calls it; so does any path that times a listing without Run (the
// simulator's).
func CheckListing(file *isa.File, hw *hwdesc.Desc) ([]Diagnostic, error) {
	if err := hw.CheckISA(file.Dialect.String(), file.Target); err != nil {
		return nil, fmt.Errorf("%s: %w", file.Name, err)
	}
	if m := hw.ArchMismatch(file.Dialect.String(), file.Target); m != "" {
		return []Diagnostic{{Severity: Warning, Category: CategoryArchMismatch, Message: m, Analyzer: "driver"}}, nil
	}
	return nil, nil
}

// Run validates the analyzers and runs them, with everything they require,
// on the selected functions of file.
func Run(roots []*Analyzer, file *isa.File, opts Options) (*Results, error) {
	if err := Validate(roots); err != nil {
		return nil, err
	}
	res := &Results{File: file, actions: map[actionKey]*Action{}}
	if hw := opts.HW; hw != nil {
		d, err := CheckListing(file, hw)
		if err != nil {
			return nil, err
		}
		res.diags = append(res.diags, d...)
	}
	for _, f := range file.Funcs {
		if f.Decl {
			continue
		}
		if !f.Entry && !opts.AllFuncs {
			continue
		}
		if opts.Funcs != nil && !opts.Funcs.MatchString(f.Name) {
			continue
		}
		res.Funcs = append(res.Funcs, f)
	}
	all := Closure(roots)
	for _, f := range res.Funcs {
		for i, a := range all {
			act := runAction(a, f, file, opts, res)
			if opts.Dump[a.Name] && act.Err == nil && a.Format != nil && opts.DumpDir != "" {
				if err := dump(opts.DumpDir, i, act); err != nil {
					return res, err
				}
			}
		}
	}
	return res, nil
}

func runAction(a *Analyzer, f *isa.Func, file *isa.File, opts Options, res *Results) *Action {
	act := &Action{Analyzer: a, Func: f}
	res.actions[actionKey{a, f}] = act
	res.order = append(res.order, act)

	resultOf := map[*Analyzer]any{}
	var failed []string
	for _, r := range a.Requires {
		ra := res.actions[actionKey{r, f}]
		if ra.Err != nil {
			failed = append(failed, ra.String())
			continue
		}
		resultOf[r] = ra.Result
	}
	if len(failed) > 0 {
		act.Err = fmt.Errorf("%w: %s", errPrereq, strings.Join(failed, ", "))
		return act
	}
	p := &Pass{
		Analyzer: a,
		Fset:     file.Fset,
		File:     file,
		Func:     f,
		HW:       opts.HW,
		Launch:   opts.Launch,
		Inputs:   opts.Inputs,
		ResultOf: resultOf,
	}
	p.Report = func(d Diagnostic) {
		d.Analyzer, d.Func = a.Name, f.Name
		act.Diags = append(act.Diags, d)
	}
	act.Result, act.Err = safeRun(p)
	if act.Err != nil {
		return act
	}
	if a.ResultType != nil && act.Result != nil && reflect.TypeOf(act.Result) != a.ResultType {
		act.Err = fmt.Errorf("internal error: result of type %T, declared %v", act.Result, a.ResultType)
		return act
	}
	if opts.Check && a.Check != nil {
		if err := a.Check(act.Result); err != nil {
			act.Err = fmt.Errorf("internal error: invariant check failed: %w", err)
		}
	}
	return act
}

func safeRun(p *Pass) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: panic in pass %s on function %s: %v\n%s", p.Analyzer.Name, p.Func.Name, r, debug.Stack())
		}
	}()
	return p.Analyzer.Run(p)
}

func dump(dir string, ordinal int, act *Action) error {
	name := fmt.Sprintf("%s_%02d__%s.txt", sanitize(act.Func.Name), ordinal, act.Analyzer.Name)
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if err := act.Analyzer.Format(f, act.Result); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, s)
}

// Position is a convenience for resolving positions outside a pass.
func Position(fset *token.FileSet, pos token.Pos) token.Position {
	if fset == nil || !pos.IsValid() {
		return token.Position{}
	}
	return fset.Position(pos)
}
