package phases

import (
	"encoding/json"
	"fmt"
	"go/token"
	"io"
	"reflect"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// ExplainInput is the Pass.Inputs key that, set to true, makes the pass keep
// per-instruction timings (gpuwcet phases --explain).
const ExplainInput = "phases.explain"

// StrictInput is the Pass.Inputs key that, set to true, makes every pass
// that times instructions refuse the description's default unit
// (Engine.Strict; gpuwcet --strict).
const StrictInput = "phases.strict"

// CategoryDefaultUnit is the category of the diagnostic that lists an
// opcode timed on the description's default unit.
const CategoryDefaultUnit = "default-unit"

// ReportDefaultUses reports one warning per opcode that e timed on its
// description's default unit, at its first instruction, with the count.
func ReportDefaultUses(p *pass.Pass, e *Engine) {
	hw := e.HW()
	for _, u := range e.DefaultUses() {
		p.Reportf(u.Pos, pass.Warning, CategoryDefaultUnit, "%s: %d instruction(s) timed on the default unit %q of hardware description %q: no rule routes this opcode", u.Op, u.Count, hw.DefaultUnit, hw.Name)
	}
}

// Analyzer builds the isolated phase profile of every warp of the block.
var Analyzer = &pass.Analyzer{
	Name: "phases",
	Doc: `per-warp exec/idle phase profiles in isolation

The phases pass runs the timing model (see docs/model.md) over each known
warp path: the function's trace when it has one, otherwise its straight-line
body (a branch is an error). Launch.Warps replicates a single path. Warps
with identical paths are analysed once. Each path is split at block-wide
barriers into sections, each profiled from an idle SM at cycle 0.`,
	ResultType: reflect.TypeOf((*Profile)(nil)),
	Run:        run,
	Check:      func(r any) error { return r.(*Profile).Check() },
	Format:     func(w io.Writer, r any) error { return WriteText(w, r.(*Profile), nil) },
}

func run(p *pass.Pass) (any, error) {
	explain, _ := p.Inputs[ExplainInput].(bool)
	strict, _ := p.Inputs[StrictInput].(bool)
	if p.HW == nil {
		return nil, fmt.Errorf("phases: no hardware description (use --hw)")
	}
	e, err := NewEngine(p.HW)
	if err != nil {
		return nil, err
	}
	e.Strict = strict
	prof, err := build(p.Fset, p.Func, e, p.Launch.Warps, explain)
	if err != nil {
		return nil, err
	}
	ReportDefaultUses(p, e)
	return prof, nil
}

// Build computes the profile of fn on hw (see Analyzer).
func Build(fset *token.FileSet, fn *isa.Func, hw *hwdesc.Desc, warps int, explain bool) (*Profile, error) {
	if hw == nil {
		return nil, fmt.Errorf("phases: no hardware description (use --hw)")
	}
	e, err := NewEngine(hw)
	if err != nil {
		return nil, err
	}
	return build(fset, fn, e, warps, explain)
}

func build(fset *token.FileSet, fn *isa.Func, e *Engine, warps int, explain bool) (*Profile, error) {
	hw := e.HW()
	paths, source, err := Paths(fset, fn, warps)
	if err != nil {
		return nil, err
	}
	prof := &Profile{Func: fn.Name, HW: hw, Source: source, Explain: explain}
	prepared := map[*isa.Instr]*Op{}
	for _, pth := range paths {
		ops := make([]*Op, len(pth.Instrs))
		for i, in := range pth.Instrs {
			op, ok := prepared[in]
			if !ok {
				o, err := e.Prepare(fset, in)
				if err != nil {
					return nil, err
				}
				op = &o
				prepared[in] = op
			}
			ops[i] = op
		}
		c := BuildClassPath(e, ops, PathRedirects(fn, pth.Instrs), explain)
		c.Warps = pth.Warps
		prof.Classes = append(prof.Classes, c)
		prof.NumWarps += len(pth.Warps)
	}
	for i, c := range prof.Classes {
		if i == 0 {
			prof.NumSections = len(c.Sections)
			continue
		}
		if len(c.Sections) != prof.NumSections {
			c0 := prof.Classes[0]
			return nil, &isa.Error{Pos: position(fset, fn.Pos), Msg: fmt.Sprintf("%s: warp %d reaches %d block barriers and warp %d reaches %d: the block would deadlock", fn.Name, c0.Warps[0], prof.NumSections-1, c.Warps[0], len(c.Sections)-1)}
		}
	}
	return prof, nil
}

// Check verifies the invariants of a profile: in every section the phases
// alternate and tile [0, Duration) without gaps, the exec phases add up to
// Exec, Exec lies between max(Issued, MaxInit) and InitSum, and the class
// totals are the sums of their sections.
func (p *Profile) Check() error {
	n := 0
	for _, c := range p.Classes {
		n += len(c.Warps)
		if len(c.Sections) != p.NumSections {
			return fmt.Errorf("class of warp %d has %d sections, profile %d", c.Warps[0], len(c.Sections), p.NumSections)
		}
		var dur, exec = c.Duration, c.Exec
		for _, s := range c.Sections {
			var t, ex = s.Phases, s.Exec
			var at = int64(0)
			var sumExec int64
			for i, ph := range t {
				if int64(ph.Start) != at {
					return fmt.Errorf("warp %d section %d phase %d starts at %d, want %d", c.Warps[0], s.Index, i, ph.Start, at)
				}
				if ph.Dur <= 0 {
					return fmt.Errorf("warp %d section %d phase %d has duration %d", c.Warps[0], s.Index, i, ph.Dur)
				}
				if i > 0 && t[i-1].Kind == ph.Kind {
					return fmt.Errorf("warp %d section %d phases %d and %d are both %s", c.Warps[0], s.Index, i-1, i, ph.Kind)
				}
				if ph.Kind == Exec {
					sumExec += int64(ph.Dur)
				}
				at += int64(ph.Dur)
			}
			if at != int64(s.Duration) || sumExec != int64(ex) {
				return fmt.Errorf("warp %d section %d: phases end at %d with exec %d, section says %d and %d", c.Warps[0], s.Index, at, sumExec, s.Duration, ex)
			}
			if int64(s.Exec) < int64(s.Issued) || s.Exec < s.MaxInit || s.InitSum < s.Exec {
				return fmt.Errorf("warp %d section %d: exec %d outside [max(issued %d, max init %d), init sum %d]", c.Warps[0], s.Index, s.Exec, s.Issued, s.MaxInit, s.InitSum)
			}
			var li int64
			var ls hwdesc.Cycles
			for _, l := range s.Loads {
				if l.Issued < 0 || int64(l.InitSum) < l.Issued {
					return fmt.Errorf("warp %d section %d: resource load issued %d, init sum %d (init ≥ 1)", c.Warps[0], s.Index, l.Issued, l.InitSum)
				}
				li += l.Issued
				ls += l.InitSum
			}
			if li != int64(s.Issued) || ls != s.InitSum {
				return fmt.Errorf("warp %d section %d: resource loads sum to issued %d, init sum %d; section says %d and %d", c.Warps[0], s.Index, li, ls, s.Issued, s.InitSum)
			}
			var longest hwdesc.Cycles
			for _, ch := range s.Chains {
				longest = max(longest, ch.Len)
			}
			if len(s.Chains) > 0 && longest != s.Duration || len(s.Chains) == 0 && s.Issued > 0 {
				return fmt.Errorf("warp %d section %d: longest chain %d (%d chains), duration %d", c.Warps[0], s.Index, longest, len(s.Chains), s.Duration)
			}
			dur -= s.Duration
			exec -= s.Exec
		}
		if dur != 0 || exec != 0 {
			return fmt.Errorf("warp %d: totals differ from the sum of its sections", c.Warps[0])
		}
	}
	if n != p.NumWarps {
		return fmt.Errorf("classes hold %d warps, profile says %d", n, p.NumWarps)
	}
	return nil
}

// JSON is the JSON form of a profile.
type jsonProfile struct {
	Func     string      `json:"func"`
	HW       string      `json:"hw"`
	Source   string      `json:"source"`
	NumWarps int         `json:"warps"`
	Sections int         `json:"sections"`
	Classes  []jsonClass `json:"classes"`
}

type jsonClass struct {
	Warps    []int         `json:"warps"`
	Count    int           `json:"count"`
	Instrs   int           `json:"instrs"`
	Duration int64         `json:"duration"`
	Exec     int64         `json:"exec"`
	Sections []jsonSection `json:"sections"`
}

type jsonSection struct {
	*Section
	Instrs []jsonInstr `json:"instrs,omitempty"`
}

type jsonInstr struct {
	Index int    `json:"index"`
	Pos   string `json:"pos,omitempty"`
	Text  string `json:"text"`
	Unit  string `json:"unit,omitempty"`
	Issue int64  `json:"issue"`
	Start int64  `json:"start"`
	Ready int64  `json:"ready"`
}

// WriteJSON writes the profile as indented JSON.
func WriteJSON(w io.Writer, p *Profile, fset *token.FileSet) error {
	jp := jsonProfile{Func: p.Func, HW: p.HW.Name, Source: p.Source, NumWarps: p.NumWarps, Sections: p.NumSections}
	for _, c := range p.Classes {
		jc := jsonClass{Warps: c.Warps, Count: len(c.Warps), Instrs: c.Instrs, Duration: int64(c.Duration), Exec: int64(c.Exec)}
		for _, s := range c.Sections {
			js := jsonSection{Section: s}
			for _, t := range s.Timings {
				js.Instrs = append(js.Instrs, jsonInstr{Index: t.Index, Pos: posString(fset, t.Instr), Text: t.Instr.Text, Unit: unitName(p, t.Unit),
					Issue: int64(t.Issue), Start: int64(t.Start), Ready: int64(t.Ready)})
			}
			jc.Sections = append(jc.Sections, js)
		}
		jp.Classes = append(jp.Classes, jc)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jp)
}

func unitName(p *Profile, u int) string {
	if u == NoUnit {
		return ""
	}
	return p.HW.Units[u].Name
}
