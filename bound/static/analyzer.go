package static

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/divergence"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// Analyzer computes the static bound of a kernel (gpuwcet analyze).
var Analyzer = &pass.Analyzer{
	Name: "static",
	Doc: `sound whole-kernel bound without traces (static multi-path analysis)

The static pass inlines device calls, then bounds, per warp class of the
divergence pass and over its warp-level CFG, the isolated duration D and
the load InitSum + Issued, per resource and in total, of every barrier
section, each as a maximum over the paths the loop bounds (loops pass)
allow; a section's bound is the largest D + I, I the interference charged
by the other warps per resource (bound.SectionBound), and the block bound
the longest path
over the barriers under the loop bounds, each crossing charged the bound of
the section it ends (docs/model.md, "Static multi-path analysis"). It needs the block dimensions (pass.Launch.Block).`,
	Requires:   []*pass.Analyzer{cfg.InlineAnalyzer, divergence.Analyzer, loops.Analyzer},
	ResultType: reflect.TypeOf((*Report)(nil)),
	Run:        run,
	Check:      func(r any) error { return r.(*Report).Check() },
}

// Report is the result of the static pass: the bound and what it used.
type Report struct {
	*Result
	Graph   *cfg.Graph // thread-level graph (inlined when Inlined)
	Info    *divergence.Info
	Loops   *loops.Result
	Inlined bool
	inl     *cfg.Inlined // for Rerun
	// Serial lists the loops whose bound was multiplied by the lanes of a
	// warp (left divergently with several lane groups iterating in turn).
	Serial map[*cfg.Block]int64
	// DefaultUnit lists the opcodes timed on the description's default
	// unit (no rule routes them), with their instruction counts.
	DefaultUnit []phases.DefaultUse
	// Totals are the block's whole-execution load and lower bounds, for
	// the kernel-level bound (nil with TotalsErr when they could not be
	// computed; the block bound does not depend on them).
	Totals    *Totals
	TotalsErr error
}

func run(p *pass.Pass) (any, error) {
	if p.HW == nil {
		return nil, fmt.Errorf("static: no hardware description (use --hw)")
	}
	if p.Launch.Threads() == 0 {
		return nil, &Error{Pos: position(p.Fset, p.Func.Pos), Msg: fmt.Sprintf("%s: missing launch configuration: the number of warps enters the bound; give --block DIMS", p.Func.Name)}
	}
	// The unit (device calls inlined), its divergence and its loop bounds
	// come from the passes that computed them, on the one inlined graph.
	u := p.ResultOf[cfg.InlineAnalyzer].(*cfg.Unit)
	if ie := u.Err; ie != nil {
		return nil, &Error{Pos: ie.Pos, Msg: ie.Msg, Unbounded: ie.Unbounded}
	}
	g := u.Graph
	info := p.ResultOf[divergence.Analyzer].(*divergence.Info)
	lr := p.ResultOf[loops.Analyzer].(*loops.Result)
	if info.Graph != g {
		return nil, fmt.Errorf("static: internal error: the divergence pass analysed another graph than the inlined unit")
	}
	inl := u.Inlined
	strict, _ := p.Inputs[phases.StrictInput].(bool)
	partial, _ := p.Inputs[RegionsInput].(bool)
	rep, eng, err := kernelStrict(p.HW, g, info, lr, inl, strict, partial)
	if eng != nil {
		phases.ReportDefaultUses(p, eng)
	}
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// RegionsInput is the pass.Options.Inputs key (a bool) that asks for a
// report even when the block is not bounded because of a loop without
// bound (Input.Partial): Report.Incomplete then says why, and only
// Result.Region is meaningful (gpuwcet prem check bounds phase regions that
// way, docs/prem.md).
const RegionsInput = "static.regions"

// Unbounded reports whether err means "not bounded" (exit code 2): the
// kernel is valid input, but the analysis cannot bound it (a loop without
// bound, an irreducible loop, an unresolved call or branch, a divergence
// shape or size the warp-level CFG does not model, a bound beyond 64-bit
// cycles).
func Unbounded(err error) bool {
	var se *Error
	if errors.As(err, &se) {
		return se.Unbounded
	}
	var ue *loops.UnboundedError
	var re *divergence.RefusedError
	var le *divergence.LimitError
	var ie *cfg.InlineError
	switch {
	case errors.As(err, &ue), errors.As(err, &re), errors.As(err, &le):
		return true
	case errors.As(err, &ie):
		return ie.Unbounded
	}
	return false
}

// Kernel runs Analyze on the results of the cfg, divergence and loops
// analyses of one kernel.
func Kernel(hw *hwdesc.Desc, g *cfg.Graph, info *divergence.Info, lr *loops.Result, inl *cfg.Inlined) (*Report, error) {
	rep, _, err := kernelStrict(hw, g, info, lr, inl, false, false)
	return rep, err
}

// kernelStrict is Kernel with the engine's Strict setting; it also returns the
// engine (nil when none was made), whose DefaultUses the report lists.
// partial is Input.Partial: loops without bound do not stop the analysis.
func kernelStrict(hw *hwdesc.Desc, g *cfg.Graph, info *divergence.Info, lr *loops.Result, inl *cfg.Inlined, strict, partial bool) (*Report, *phases.Engine, error) {
	if err := lr.Err(); err != nil && !partial {
		return nil, nil, err
	}
	eng, err := phases.NewEngine(hw)
	if err != nil {
		return nil, nil, err
	}
	eng.Strict = strict
	rep, err := kernelWith(eng, g, info, lr, inl, partial, true)
	if err == nil {
		rep.DefaultUnit = eng.DefaultUses()
	}
	return rep, eng, err
}

// kernelWith analyses the kernel with eng; withTotals also computes the
// report's Totals (the whole-execution load and the lower bound), which
// the bound does not use.
func kernelWith(eng *phases.Engine, g *cfg.Graph, info *divergence.Info, lr *loops.Result, inl *cfg.Inlined, partial, withTotals bool) (*Report, error) {
	rep := &Report{Graph: g, Info: info, Loops: lr, Inlined: inl != nil, Serial: map[*cfg.Block]int64{}, inl: inl}
	loopClass := map[*cfg.Loop]*divergence.Class{}
	var classes []Class
	for _, c := range info.Classes {
		if c.Warps == nil {
			return nil, &Error{Pos: position(g.Fset, g.Func.Pos), Msg: fmt.Sprintf("%s: missing launch configuration: the divergence pass could not assign warps to classes; give --block DIMS", g.Func.Name)}
		}
		for _, l := range c.Graph.Loops {
			loopClass[l] = c
		}
		classes = append(classes, Class{Warps: c.Warps, Graph: c.Graph})
	}
	lanes := func(c *divergence.Class) int64 {
		n := 0
		for _, x := range c.Lanes {
			n = max(n, x)
		}
		if n == 0 {
			n = 32
		}
		return int64(n)
	}
	boundOf := func(l *cfg.Loop) (int64, error) {
		h := l.Header
		n, ok := lr.Max(h)
		if !ok {
			why := ""
			if lb := lr.Of(h); lb != nil && lb.Why != "" {
				why = ": " + lb.Why
			}
			return 0, &Error{Pos: position(g.Fset, h.Pos()), Unbounded: true, Msg: fmt.Sprintf("loop headed here has no bound%s; give it in a facts file (%s) with --facts", why, loops.TemplateHint(position(g.Fset, g.Func.Pos).Filename))}
		}
		th := h
		if h.Orig != nil {
			th = h.Orig
		}
		var mult int64 = 1
		var tl *cfg.Loop
		if th.Loop != nil && th.Loop.Header == th {
			tl = th.Loop
		}
		if tl != nil {
			// A loop of a class graph takes that class's multiplier; a
			// loop of the thread-level graph the largest over classes.
			for _, c := range info.Classes {
				if lc := loopClass[l]; (lc == nil || lc == c) && c.SerialLoops[tl] {
					mult = max(mult, lanes(c))
				}
			}
		}
		if mult > 1 {
			rep.Serial[th] = mult
			x, ok := mulAdd(0, n, mult)
			if !ok {
				return 0, &Error{Pos: position(g.Fset, h.Pos()), Msg: "loop bound overflows", Unbounded: true}
			}
			n = x
		}
		return n, nil
	}
	uniform := func(b *cfg.Block) bool {
		br := info.Branch(b)
		if br == nil || br.Divergent {
			return false
		}
		for _, o := range br.Outcomes[1:] {
			if o != br.Outcomes[0] {
				return false
			}
		}
		return true
	}
	in := &Input{Engine: eng, Graph: g, Classes: classes, Bound: boundOf, Uniform: uniform, Inlined: inl, Partial: partial}
	res, err := Analyze(in)
	if err != nil {
		return nil, err
	}
	rep.Result = res
	if withTotals {
		rep.Totals, rep.TotalsErr = totals(in)
	}
	return rep, nil
}

// Check verifies the invariants of a report: every segment's bound is the
// largest WUB of its classes, each WUB is the class's duration plus its
// interference, the smaller of the per-resource and whole-path charges,
// and the bound is at least every segment bound.
func (r *Report) Check() error {
	for _, s := range r.Segments {
		var m int64
		for _, c := range s.Classes {
			if c.WUB != c.Duration+c.Interference || c.Interference < 0 || c.Interference > c.PerResource || c.Interference > c.WholePath {
				return fmt.Errorf("segment: WUB %d, duration %d, interference %d, per resource %d, whole path %d", c.WUB, c.Duration, c.Interference, c.PerResource, c.WholePath)
			}
			m = max(m, int64(c.WUB))
		}
		if int64(s.Bound) != m {
			return fmt.Errorf("segment bound %d, largest WUB %d", s.Bound, m)
		}
		if s.Bound > r.Bound && r.Incomplete == nil {
			return fmt.Errorf("segment bound %d above the block bound %d", s.Bound, r.Bound)
		}
	}
	return nil
}
