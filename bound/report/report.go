// Package report is the bound report of gpuwcet analyze: its JSON schema
// (the single source of truth, docs/report.md), its integrity hash, and
// renderers that read the JSON back and write Markdown, SARIF 2.1.0 and
// JUnit XML. The renderers take a *Report decoded from the JSON (Parse),
// never the analysis's internal structures, so that every rendered fact is
// in the hashed JSON.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound/kernel"
	"github.com/gpuwcet/gpuwcet/bound/pessimism"
	"github.com/gpuwcet/gpuwcet/bound/report/premjson"
	"github.com/gpuwcet/gpuwcet/bound/static"
)

// SchemaVersion is the version of the JSON report written by this package.
// Version 1 had schema_version, tool, inputs, hw, launch, assumptions,
// kernels and errors; version 2 adds fields only (docs/report.md).
const SchemaVersion = 2

// Kernel statuses (Scope.Kernels[].Status).
const (
	StatusBounded    = "bounded"     // a bound was computed (listed in Kernels)
	StatusNotBounded = "not-bounded" // exit code 2: a loop, region or branch could not be bounded
	StatusError      = "error"       // exit code 1: bad input for this kernel
)

// Diagnostic levels (SARIF's).
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNote    = "note"
)

// Report is the JSON bound report. Field order follows the checklist of
// wcet-conventions.md §4.2.
type Report struct {
	SchemaVersion int `json:"schema_version"`

	// 1. Identification.
	Tool        Tool     `json:"tool"`
	CommandLine []string `json:"command_line"`

	// 2. Input manifest.
	Inputs []Input `json:"inputs"`
	HW     HW      `json:"hw"`
	Launch Launch  `json:"launch"`
	Clock  Clock   `json:"clock"`
	// Configuration is the configuration record: the system the bound is
	// for, as the user states it (not checked).
	Configuration Configuration `json:"configuration"`

	// 3. Scope.
	Scope Scope `json:"scope"`

	// 4. Assumptions: Assumptions is the version-1 list (the analysis's
	// own, unnumbered); NumberedAssumptions repeats it as A1..An and adds
	// the model's and the environment's fixed assumptions.
	Assumptions         []string     `json:"assumptions"`
	NumberedAssumptions []Assumption `json:"numbered_assumptions"`

	// 5. Results and 6. Breakdown, per bounded kernel.
	Summary Summary  `json:"summary"`
	Kernels []Kernel `json:"kernels"`
	// Comparison, with --compare, says how the bounds and their parts
	// changed since an older report.
	Comparison *Comparison `json:"comparison,omitempty"`

	// Prem is the result of a PREM schedule check (gpuwcet prem check;
	// docs/prem.md), absent from analyze reports.
	Prem *premjson.Result `json:"prem,omitempty"`

	// 7. Diagnostics; Errors is the version-1 list of kernel errors.
	Diagnostics []Diagnostic `json:"diagnostics"`
	Errors      []string     `json:"errors"`

	// 10. Integrity: SHA-256 of the canonical form of this report without
	// this field (Canonical).
	ReportSHA256 string `json:"report_sha256"`
}

// Tool identifies the analyzer build.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// From runtime/debug.ReadBuildInfo, when available.
	Module        string `json:"module,omitempty"`
	ModuleVersion string `json:"module_version,omitempty"`
	GoVersion     string `json:"go_version,omitempty"`
	Platform      string `json:"platform,omitempty"` // GOOS/GOARCH of the build
	VCS           string `json:"vcs,omitempty"`
	Revision      string `json:"vcs_revision,omitempty"`
	RevisionTime  string `json:"vcs_time,omitempty"`
	Modified      *bool  `json:"vcs_modified,omitempty"`
}

// Input is one analysed file.
type Input struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Kind   string `json:"kind"` // the listing's dialect ("ptx", "sass", ...) or "facts"
	// Header facts of a listing, when it states them.
	Version string `json:"isa_version,omitempty"`
	Target  string `json:"target,omitempty"`
}

// HW is the hardware description.
type HW struct {
	Name        string  `json:"name"`
	Version     string  `json:"version,omitempty"`
	SHA256      string  `json:"sha256"`
	ClockMHz    float64 `json:"clock_mhz"`
	Description string  `json:"description,omitempty"`
	Arch        string  `json:"arch,omitempty"`
	Source      string  `json:"source,omitempty"`
}

// Launch is the launch configuration (zero: not given).
type Launch struct {
	Block [3]int           `json:"block"`
	Grid  [3]int           `json:"grid"`
	Args  map[string]int64 `json:"args"`
}

// Clock is the clock assumption under which nanoseconds are given.
type Clock struct {
	MHz    float64 `json:"mhz"`
	Source string  `json:"source"`
}

// Configuration is the configuration record (docs/report.md,
// "Configuration record"): optional inputs a listing does not state,
// recorded and hashed with the report, not checked. NotRecorded lists the
// flags of the items not given (gpu-model, driver, cuda-toolkit,
// compiler-flags, clocks), so that a report says what it lacks.
type Configuration struct {
	GPUModel      string   `json:"gpu_model,omitempty"`
	Driver        string   `json:"driver,omitempty"`
	CUDAToolkit   string   `json:"cuda_toolkit,omitempty"`
	CompilerFlags string   `json:"compiler_flags,omitempty"`
	Clocks        string   `json:"clocks,omitempty"`
	NotRecorded   []string `json:"not_recorded"`
}

// Scope says what was bounded and what was not.
type Scope struct {
	Kernels      []ScopeKernel `json:"kernels"`
	KernelFilter string        `json:"kernel_filter,omitempty"` // --kernel
	Unit         string        `json:"unit"`
	Exclusions   []string      `json:"exclusions"`
}

// ScopeKernel is one selected kernel and its outcome.
type ScopeKernel struct {
	Name   string `json:"name"`
	Pos    string `json:"pos"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Assumption is a numbered assumption: an entry of the assumptions
// ledger (package cfg/assume, docs/assumptions.md) that this run rests on.
type Assumption struct {
	ID string `json:"id"` // "A1", ... (the position in this report)
	// Key is the entry's stable ledger ID (A-BLOCK-ALONE, …), the same in
	// every report.
	Key    string `json:"key,omitempty"`
	Origin string `json:"origin"` // the ledger's origin: analysis, hardware, input, model, environment, kernel-level, prem
	Text   string `json:"text"`   // the statement, with this run's facts
	Basis  string `json:"basis"`  // where it is checked or justified
	// Discharge says what the user must show, or which setting removes
	// the assumption.
	Discharge string `json:"discharge,omitempty"`
}

// Summary is the outcome of the run.
type Summary struct {
	Kernels      int    `json:"kernels"`
	Bounded      int    `json:"bounded"`
	NotBounded   int    `json:"not_bounded"`
	Errors       int    `json:"errors"`
	OverDeadline int    `json:"over_deadline"`
	Verdict      string `json:"verdict"` // "pass", "fail", "not-bounded" or "error"
	ExitCode     int    `json:"exit_code"`
}

// Kernel is the version-1 kernel object (static.JSONKernel: bound,
// classes, sections, per-block tables, loops, divergent branches,
// warnings, deadline and verdict) with the fields version 2 adds.
type Kernel struct {
	static.JSONKernel
	Pos          string `json:"pos"`
	MarginCycles *int64 `json:"margin_cycles,omitempty"` // deadline − bound, with a block-level --deadline
	// DeadlineCheck is the --deadline verdict with its level and unit
	// (docs/report.md); Verdict repeats its outcome.
	DeadlineCheck *DeadlineCheck `json:"deadline_check,omitempty"`
	// LowerBound is the block's lower bound (docs/model.md, "Lower
	// bounds"); KernelLevel the kernel-level bound, with --grid
	// (docs/kernel.md).
	LowerBound  *kernel.LowerJSON `json:"lower_bound,omitempty"`
	KernelLevel *kernel.JSON      `json:"kernel_level,omitempty"`
	// Pessimism says where the bound's cycles come from (package
	// bound/pessimism; docs/report.md, "Pessimism split").
	Pessimism *pessimism.Split `json:"pessimism,omitempty"`
}

// DeadlineCheck is a kernel's --deadline check: what was compared with
// what, in which unit, and the outcome.
type DeadlineCheck struct {
	Level    string `json:"level"`    // "block" (the block bound) or "kernel" (the kernel-level bound)
	Given    string `json:"given"`    // the deadline as written: "150000", "2ms"
	Unit     string `json:"unit"`     // the deadline's unit: "cycles", or "ns" for a time
	Deadline int64  `json:"deadline"` // in Unit
	// Compared is the unit of the comparison: "cycles" at the block
	// level (a time converted at the description's clock, rounding down:
	// exact for the bound in ns rounded up), "ns" at the kernel level.
	Compared         string `json:"compared_in"`
	DeadlineCompared int64  `json:"deadline_compared"`
	Bound            int64  `json:"bound"`  // the figure compared, in Compared
	Figure           string `json:"figure"` // which figure of the kernel's report it is
	SMs              int    `json:"sms,omitempty"`
	Margin           int64  `json:"margin"` // DeadlineCompared − Bound
	// Conditional: the kernel-level figure includes an overhead that is
	// measured or assumed, not bounded (kernel_level.conditional).
	Conditional bool   `json:"conditional,omitempty"`
	Verdict     string `json:"verdict"` // "pass" or "fail"
}

// Text says the check in one line: "kernel-level bound on 2 SMs 1234 ns
// (device makespan: no launch overhead given) exceeds the deadline of
// 1000 ns (1us) (margin -234 ns)".
func (d *DeadlineCheck) Text() string {
	what := fmt.Sprintf("bound %d %s", d.Bound, d.Compared)
	if d.Level == "kernel" {
		switch {
		case strings.Contains(d.Figure, "persistent"):
			what = fmt.Sprintf("per-item bound of the persistent kernel %d ns", d.Bound)
		case strings.Contains(d.Figure, "total_upper_ns"):
			what = fmt.Sprintf("kernel-level bound on %d SMs %d ns (launch overhead included)", d.SMs, d.Bound)
		default:
			what = fmt.Sprintf("kernel-level bound on %d SMs %d ns (device makespan: the platform gives no launch overhead)", d.SMs, d.Bound)
		}
	}
	dl := fmt.Sprintf("%d %s", d.DeadlineCompared, d.Compared)
	if g := strings.ReplaceAll(d.Given, " ", ""); g != fmt.Sprint(d.DeadlineCompared) && g != fmt.Sprint(d.DeadlineCompared)+d.Compared {
		dl += " (" + d.Given + ")"
	}
	verb := "is within"
	if d.Verdict == "fail" {
		verb = "exceeds"
	}
	s := fmt.Sprintf("%s %s the deadline of %s (margin %d %s)", what, verb, dl, d.Margin, d.Compared)
	if d.Conditional {
		s += "; conditional: it includes a platform overhead that is measured or assumed, not bounded"
	}
	return s
}

// Diagnostic is a finding: an analysis diagnostic, a kernel error, or a
// bound over the deadline.
type Diagnostic struct {
	Rule     string    `json:"rule"`
	Level    string    `json:"level"`
	Message  string    `json:"message"`
	Kernel   string    `json:"kernel,omitempty"`
	Location *Location `json:"location,omitempty"`
}

// Location is a position in an input file.
type Location struct {
	URI    string `json:"uri"` // the path as given on the command line, with forward slashes
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty"`
}

// Parse decodes a JSON report strictly: an unknown field is an error, so
// that a field added to the analysis output without being added here (and
// documented) is caught by the tests.
func Parse(data []byte) (*Report, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("report: schema_version %d, want %d", r.SchemaVersion, SchemaVersion)
	}
	return &r, nil
}
