package bound

import (
	"encoding/json"
	"fmt"
	"go/token"
	"io"
	"strings"

	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// WriteText writes the result in the stable text form of `gpuwcet bound`.
// With phases, every warp class also lists its phases.
func WriteText(w io.Writer, r *Result, fset *token.FileSet, withPhases bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s: %s, %s\n", r.Func, r.HW.Name, phases.Plural(r.NumWarps, "warp"), phases.Plural(len(r.Sections), "section"))
	for _, s := range r.Sections {
		fmt.Fprintf(&b, "  section %d: bound %d, ECRTS 2025 GUB %d", s.Index, s.Bound, s.GUB)
		if s.Barrier != nil {
			fmt.Fprintf(&b, ", ends at %q", s.Barrier.Text)
			if fset != nil && s.Barrier.Pos.IsValid() {
				fmt.Fprintf(&b, " (%s)", fset.Position(s.Barrier.Pos))
			}
		}
		b.WriteByte('\n')
		for _, c := range s.Classes {
			fmt.Fprintf(&b, "    warps %s (x%d): duration %d, exec %d, path %d, interference %d%s, WUB %d, ECRTS 2025 WUB %d\n",
				phases.WarpList(c.Warps), len(c.Warps), c.Duration, c.Exec, c.Path, c.Interference, FormatCharge(c.Charge, r.HW), c.WUB, c.PaperWUB)
			if withPhases {
				for _, ph := range c.Phases {
					fmt.Fprintf(&b, "      %-4s [%d,%d) %d\n", ph.Kind, ph.Start, ph.End(), ph.Dur)
				}
			}
		}
	}
	fmt.Fprintf(&b, "bound: %d cycles", r.Reported())
	if ns, ok := Nanoseconds(r.Reported(), r.HW); ok {
		fmt.Fprintf(&b, " (%d ns at %g MHz)", ns, r.HW.ClockMHz)
	}
	if x := r.Exact; x != nil {
		fmt.Fprintf(&b, ", exact: the worst case over every work-conserving schedule (%d states explored, budget %d); closed-form bound: %d cycles", x.States, x.Budget, r.Bound)
	}
	fmt.Fprintf(&b, "; ECRTS 2025 GUB: %d cycles\n", r.GUB)
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON is the JSON document of `gpuwcet bound --format json`
// (format "gpuwcet-bound/1").
type JSON struct {
	Tool        string  `json:"tool"`
	Version     string  `json:"version"`
	Format      string  `json:"format"`
	Func        string  `json:"func"`
	HW          string  `json:"hw"`
	ClockMHz    float64 `json:"clock_mhz"`
	Warps       int     `json:"warps"`
	BoundCycles int64   `json:"bound_cycles"`
	BoundNS     *int64  `json:"bound_ns,omitempty"`
	// BoundKind says what bound_cycles is: "exact" (the worst case over
	// every work-conserving schedule, Exact) or "formula" (the closed-form
	// bound, FormulaCycles).
	BoundKind string `json:"bound_kind"`
	// FormulaCycles is the closed-form bound (the sum of the sections').
	FormulaCycles  int64      `json:"formula_cycles"`
	Exact          *JSONExact `json:"exact,omitempty"`
	GUBPaperCycles int64      `json:"gub_paper_cycles"`
	Deadline       *int64     `json:"deadline_cycles,omitempty"`
	// ObservedCycles is the execution time a simulator trace reports for
	// the launch (GPGPU-Sim kernel_execution_time), when the input has one.
	ObservedCycles *int64        `json:"observed_cycles,omitempty"`
	Sections       []JSONSection `json:"sections"`
}

// JSONExact is the exhaustive search behind an exact bound.
type JSONExact struct {
	Cycles int64 `json:"cycles"`
	States int   `json:"states"`
	Budget int   `json:"budget"`
}

// JSONSection is one section of JSON.
type JSONSection struct {
	Index    int        `json:"index"`
	Barrier  string     `json:"barrier,omitempty"` // position of the barrier ending the section
	Bound    int64      `json:"bound"`
	GUBPaper int64      `json:"gub_paper"`
	Warps    []JSONWarp `json:"warps"`
}

// JSONWarp is one class of identical warps in a section.
type JSONWarp struct {
	Warps    []int `json:"warps"`
	Count    int   `json:"count"`
	Duration int64 `json:"duration"`
	Exec     int64 `json:"exec"`
	// Load is InitSum + Issued of one warp of the class.
	Load int64 `json:"load"`
	// Path is the length of the isolated critical path the bound charges
	// (at most Duration: docs/model.md, "The per-path charge"), and
	// Interference what the other warps are charged to one warp of the
	// class along it (WUB − path), broken down in ByResource.
	Path         int64           `json:"path"`
	Interference int64           `json:"interference"`
	ByResource   []JSONResCharge `json:"interference_by_resource"`
	WUB          int64           `json:"wub"`
	WUBPaper     int64           `json:"wub_paper"`
	Phases       []phases.Phase  `json:"phases"`
}

// JSONResCharge is the charge of one resource in a class's interference
// (ResCharge).
type JSONResCharge struct {
	Resource string `json:"resource"` // hwdesc group, or unit when ungrouped
	Own      bool   `json:"own"`      // the class uses the resource
	Init     int64  `json:"init"`     // other warps' initiation cycles charged
	Issue    int64  `json:"issue"`    // other warps' issue cycles charged
}

// NewJSONCharge returns the JSON breakdown of a charge.
func NewJSONCharge(c Charge, hw *hwdesc.Desc) []JSONResCharge {
	out := []JSONResCharge{}
	for _, rc := range c.ByRes {
		out = append(out, JSONResCharge{Resource: resName(hw, rc.Res), Own: rc.Own, Init: int64(rc.Init), Issue: int64(rc.Issue)})
	}
	return out
}

func resName(hw *hwdesc.Desc, r int) string {
	if hw != nil && r >= 0 && r < len(hw.Units) {
		return hw.GroupOf(r)
	}
	return fmt.Sprintf("resource%d", r)
}

// FormatCharge returns the compact text form of a charge's breakdown,
// " (NAME INIT, NAME +ISSUE, ...)": the other warps' initiation cycles
// INIT on a resource the charged path initiates on, their issue cycles
// +ISSUE on another; with a note when the whole-path charge, smaller, was
// used. Empty when nothing is charged.
func FormatCharge(c Charge, hw *hwdesc.Desc) string {
	if len(c.ByRes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(" (")
	if c.Interference < c.PerResource {
		fmt.Fprintf(&b, "whole path; per resource %d: ", c.PerResource)
	}
	for i, rc := range c.ByRes {
		if i > 0 {
			b.WriteString(", ")
		}
		if rc.Own {
			fmt.Fprintf(&b, "%s %d", resName(hw, rc.Res), rc.Init+rc.Issue)
		} else {
			fmt.Fprintf(&b, "%s +%d", resName(hw, rc.Res), rc.Issue)
		}
	}
	b.WriteString(")")
	return b.String()
}

// NewJSON builds the JSON document of a result.
func NewJSON(r *Result, fset *token.FileSet, tool, version string) *JSON {
	j := &JSON{Tool: tool, Version: version, Format: "gpuwcet-bound/1", Func: r.Func, HW: r.HW.Name, ClockMHz: r.HW.ClockMHz,
		Warps: r.NumWarps, BoundCycles: int64(r.Reported()), BoundKind: "formula", FormulaCycles: int64(r.Bound), GUBPaperCycles: int64(r.GUB), Sections: []JSONSection{}}
	if x := r.Exact; x != nil {
		j.BoundKind = "exact"
		j.Exact = &JSONExact{Cycles: int64(x.Cycles), States: x.States, Budget: x.Budget}
	}
	if ns, ok := Nanoseconds(r.Reported(), r.HW); ok {
		j.BoundNS = &ns
	}
	for _, s := range r.Sections {
		js := JSONSection{Index: s.Index, Bound: int64(s.Bound), GUBPaper: int64(s.GUB)}
		if s.Barrier != nil && fset != nil && s.Barrier.Pos.IsValid() {
			js.Barrier = fset.Position(s.Barrier.Pos).String()
		}
		for _, c := range s.Classes {
			ph := c.Phases
			if ph == nil {
				ph = []phases.Phase{}
			}
			js.Warps = append(js.Warps, JSONWarp{Warps: c.Warps, Count: len(c.Warps), Duration: int64(c.Duration), Exec: int64(c.Exec), Load: int64(c.Load),
				Path: int64(c.Path), Interference: int64(c.Interference), ByResource: NewJSONCharge(c.Charge, r.HW), WUB: int64(c.WUB), WUBPaper: int64(c.PaperWUB), Phases: ph})
		}
		j.Sections = append(j.Sections, js)
	}
	return j
}

// WriteJSON writes j indented.
func WriteJSON(w io.Writer, j *JSON) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
