// Package hwdesc holds hardware descriptions: the functional units of one
// streaming multiprocessor, with their initiation interval and latency, and
// the rules that route each opcode to a unit.
//
// A description is data (TOML, decoded strictly); see docs/hwdesc.md for the
// schema. Latencies follow the ECRTS 2025 convention: a unit is exclusive for
// Init cycles from the start of an instruction's initiation, then the
// instruction's result is ready Lat cycles later (Init+Lat after the start).
// GPGPU-Sim's "latency" counts from dispatch and includes the initiation
// interval; the importer converts.
package hwdesc

import (
	"fmt"
	"strings"
)

// Cycles is a duration or an instant in SM clock cycles.
type Cycles int64

// Desc is a hardware description.
//
// Every field except File and the Line fields is part of the TOML schema
// (docs/hwdesc.md) and of the canonical encoding written by Encode.
type Desc struct {
	Name string `toml:"name"`
	// Extends names the description this one extends: a built-in name or
	// a TOML file (relative to this file's directory). The decoder merges
	// the two (Extend) and clears the field: a decoded description is
	// whole, and Base and Overrides say where it came from.
	Extends     string  `toml:"extends,omitempty"`
	Description string  `toml:"description,omitempty"`
	Version     string  `toml:"version,omitempty"` // version of this description
	Source      string  `toml:"source,omitempty"`  // provenance: where the numbers come from
	Arch        string  `toml:"arch,omitempty"`    // "sm_86", informational
	ISA         string  `toml:"isa,omitempty"`     // opcode spelling of the rules: "ptx", "sass" or "" (unspecified)
	ClockMHz    float64 `toml:"clock_mhz"`         // SM clock, for cycles <-> ns in reports

	// MemLatency is the global-load latency the description was built with,
	// counted from dispatch to result (GPGPU-Sim's convention, the value of
	// -ptx_opcode_latency_mem_impostor). Informational: the analysis uses the
	// init and lat of the unit that global loads are routed to. 0 = unset.
	MemLatency Cycles `toml:"mem_latency,omitempty"`

	// DefaultUnit is the unit of opcodes no rule matches; empty means an
	// unmatched opcode is an error.
	DefaultUnit string `toml:"default_unit,omitempty"`

	// Notes record how each number was derived (provenance), one item per
	// derivation step.
	Notes []string `toml:"notes,omitempty"`

	// Pipeline holds the description-wide pipeline behaviour: a fixed
	// result overhead, control hazards, and whether ret/exit and block
	// barriers issue. The zero value is the ECRTS 2025 model (nothing
	// added, no branch wait, ret/exit/bar.sync issue nothing).
	Pipeline Pipeline `toml:"pipeline,omitempty"`

	Units []Unit `toml:"unit"`
	Map   []Rule `toml:"map"`

	// Base and BaseSHA256 name the description this one extends and its
	// hash; Overrides lists what this one changes of it, one item each,
	// with its position ("file:line: unit sfu: lat 13 -> 20"). Empty
	// unless the description was decoded from one with extends; Notes
	// repeat them, so that Hash covers them.
	Base       string   `toml:"-"`
	BaseSHA256 string   `toml:"-"`
	Overrides  []string `toml:"-"`

	// File is the path the description was loaded from ("" for built-ins).
	File string `toml:"-"`
	// Lines maps each top-level key to its line in File (nil when the
	// description was not decoded from text).
	Lines map[string]int `toml:"-"`
}

// Branch-wait settings (Pipeline.BranchWait).
const (
	BranchWaitNone  = "none"  // the default (also ""): a branch is an ordinary instruction
	BranchWaitTaken = "taken" // after a branch that redirects the warp, it issues nothing until the branch's result is ready
	BranchWaitAll   = "all"   // after every branch, taken or not
)

// Pipeline is the [pipeline] table of a description: behaviour of the
// issue pipeline that is not a property of one unit.
type Pipeline struct {
	// Overhead is added to the ready time of every result: an
	// instruction started at s is ready at s + init + lat + Overhead.
	// It models the simulator's fixed front-end / operand-collection /
	// write-back time, which GPGPU-Sim's configured latencies leave out.
	Overhead Cycles `toml:"overhead,omitempty"`
	// BranchWait is "none" (or ""), "taken" or "all": on which edges out
	// of a branch (isa.KindBranch, KindIndirectBranch) the warp issues
	// nothing until the branch's result is ready (its start + init + lat
	// + Overhead): a control hazard.
	BranchWait string `toml:"branch_wait,omitempty"`
	// RetIssues: ret and exit issue on the unit their opcode is routed to
	// and the warp ends when that result is ready (false: they issue
	// nothing).
	RetIssues bool `toml:"ret_issues,omitempty"`
	// BarrierIssues: block barriers (bar.sync, bar.red) issue on the unit
	// their opcode is routed to, as the last instruction of the section
	// they end (false: they issue nothing).
	BarrierIssues bool `toml:"barrier_issues,omitempty"`
	// Doc says where these settings come from.
	Doc string `toml:"doc,omitempty"`

	Line  int            `toml:"-"` // line of the [pipeline] header; 0 if unknown
	Lines map[string]int `toml:"-"` // line of each key; nil if unknown
}

// WaitsAfterBranch reports whether, after a branch, the warp waits for the
// branch's result on an edge that redirects it (taken) or on the
// fall-through edge (!taken).
func (p *Pipeline) WaitsAfterBranch(taken bool) bool {
	switch p.BranchWait {
	case BranchWaitAll:
		return true
	case BranchWaitTaken:
		return taken
	}
	return false
}

// Unit is a functional unit, or more precisely a timing class: a unit of
// the analysis model with one initiation interval and one latency. Several
// timing classes can run on the same hardware functional unit (GPGPU-Sim
// runs integer, float and double divisions and the transcendental functions
// on its SFU with different timings); they then share a Group.
type Unit struct {
	Name string `toml:"name"`
	Init Cycles `toml:"init"` // initiation interval: cycles the unit is exclusive per instruction (≥ 1)
	Lat  Cycles `toml:"lat"`  // cycles from the end of initiation to the result (≥ 0)

	// Group names the hardware functional unit (the resource) this timing
	// class runs on ("" = its own). Units of one group share one
	// initiation FIFO: the analysis serialises their initiations, each
	// instruction keeping its own class's init and lat (Resources).
	Group string `toml:"group,omitempty"`
	// Count is the number of instances of the hardware unit per SM
	// (informational; 0 in a file means 1). All units of a group have the
	// same count.
	Count int `toml:"count,omitempty"`
	// GPGPUSimLatency, when set, is the latency in GPGPU-Sim's convention
	// (dispatch to result, initiation included); it must equal Init+Lat.
	GPGPUSimLatency Cycles `toml:"gpgpusim_latency,omitempty"`
	Doc             string `toml:"doc,omitempty"`

	Line  int            `toml:"-"` // line of the unit's [[unit]] header, for messages; 0 if unknown
	Lines map[string]int `toml:"-"` // line of each key of the unit; nil if unknown
}

// Rule routes opcodes matching a glob to a unit. Rules are tried in order;
// the first match wins. A rule with Reject set routes nowhere: matching
// opcodes are an error (used for opcodes whose timing is unknown).
type Rule struct {
	Match  string `toml:"match"` // glob over the full dotted opcode: '*' any run, '?' one character
	Unit   string `toml:"unit,omitempty"`
	Reject string `toml:"reject,omitempty"` // reason; exclusive with Unit
	Doc    string `toml:"doc,omitempty"`
	Line   int    `toml:"-"` // line of the rule in its file, for messages; 0 if unknown

	Lines map[string]int `toml:"-"` // line of each key of the rule; nil if unknown
}

// at returns the line of key in a unit or rule, or else the header line.
func at(lines map[string]int, key string, header int) int {
	if l, ok := lines[key]; ok {
		return l
	}
	return header
}

// GroupOf returns the hardware group of unit u (its own name when Group is
// empty).
func (d *Desc) GroupOf(u int) string {
	if g := d.Units[u].Group; g != "" {
		return g
	}
	return d.Units[u].Name
}

// Resources returns the resource (hardware unit) of every unit: res[u] is
// a dense index, in order of first appearance of each group, and n the
// number of resources. Units of one group share one resource.
func (d *Desc) Resources() (res []int, n int) {
	res = make([]int, len(d.Units))
	idx := map[string]int{}
	for u := range d.Units {
		g := d.GroupOf(u)
		r, ok := idx[g]
		if !ok {
			r = len(idx)
			idx[g] = r
		}
		res[u] = r
	}
	return res, len(idx)
}

// UnitIndex returns the index of the named unit in d.Units, or -1.
func (d *Desc) UnitIndex(name string) int {
	for i := range d.Units {
		if d.Units[i].Name == name {
			return i
		}
	}
	return -1
}

// Lookup returns the index in d.Units of the unit that executes the full
// dotted opcode op ("mul.f32", "ld.global.v4.f32", "IMAD.WIDE"), and the
// index of the matching rule (-1 when the default unit was used). It fails
// when no rule matches and the description has no default unit, and when
// the matching rule rejects the opcode.
func (d *Desc) Lookup(op string) (unit, rule int, err error) {
	for i := range d.Map {
		r := &d.Map[i]
		if Glob(r.Match, op) {
			if r.Reject != "" {
				return -1, i, fmt.Errorf("hardware description %q cannot time opcode %q (rule %q%s): %s; %s", d.Name, op, r.Match, lineSuffix(r.Line), r.Reject, d.extendHint())
			}
			u := d.UnitIndex(r.Unit)
			if u < 0 {
				return -1, i, fmt.Errorf("rule %q names unknown unit %q", r.Match, r.Unit)
			}
			return u, i, nil
		}
	}
	if d.DefaultUnit != "" {
		if u := d.UnitIndex(d.DefaultUnit); u >= 0 {
			return u, -1, nil
		}
		return -1, -1, fmt.Errorf("default unit %q is not defined", d.DefaultUnit)
	}
	return -1, -1, fmt.Errorf("no rule of hardware description %q matches opcode %q and it has no default_unit; %s", d.Name, op, d.extendHint())
}

// extendHint is the next step of an opcode the description cannot time.
func (d *Desc) extendHint() string {
	return fmt.Sprintf("to time it, write a description with extends = %q and a [[map]] rule for it (docs/hwdesc.md, \"Extending a description\")", d.Name)
}

func lineSuffix(line int) string {
	if line > 0 {
		return fmt.Sprintf(", line %d", line)
	}
	return ""
}

// Glob reports whether s matches pattern, where '*' matches any run of
// characters (including dots) and '?' exactly one character.
func Glob(pattern, s string) bool {
	// Iterative matcher with single-star backtracking: linear in practice.
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// String returns a one-line summary.
func (d *Desc) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d units, %d rules)", d.Name, len(d.Units), len(d.Map))
	return b.String()
}
