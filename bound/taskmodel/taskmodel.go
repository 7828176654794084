// Package taskmodel exports the kernel-level bounds of a bound report as
// task descriptions for schedulability analyses: a documented JSON task
// model (docs/task-model.md, schema "gpuwcet-task-model/1") and a model
// file of MAST, the Modeling and Analysis Suite for Real-Time
// Applications (WriteMAST, ReadMAST). Both are rendered from the JSON
// report (package bound/report), never from the analysis's structures, so
// that every exported number is in the hashed report.
package taskmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound/kernel"
	"github.com/gpuwcet/gpuwcet/bound/report"
)

// Schema identifies the task-model format and its version.
const Schema = "gpuwcet-task-model/1"

// Model is the task model of one analyze run.
type Model struct {
	Schema string `json:"schema"`
	Tool   Tool   `json:"tool"`
	// ReportSHA256 is the SHA-256 of the bound report the model was
	// rendered from: every number below is in that report.
	ReportSHA256 string    `json:"report_sha256"`
	Inputs       []Input   `json:"inputs"`
	HW           HW        `json:"hw"`
	Platform     *Platform `json:"platform,omitempty"`
	TimeUnit     string    `json:"time_unit"` // "ns"
	Tasks        []Task    `json:"tasks"`
}

// Tool identifies gpuwcet.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Input is an analysed file.
type Input struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Kind   string `json:"kind"`
}

// HW is the hardware description the block bounds were computed on.
type HW struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// Platform is the GPU.
type Platform struct {
	Name     string  `json:"name"`
	Arch     string  `json:"arch"`
	SMs      int     `json:"sms"`
	ClockMHz float64 `json:"clock_mhz"`
	Source   string  `json:"source"`
}

// Task is one kernel launch.
type Task struct {
	Name string `json:"name"` // the kernel, as in the listing
	// Status: "bounded" (Times given), "persistent" (Item given; the
	// kernel has no bound) or "not-computed" (Reason).
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`

	Block  [3]int `json:"block"`
	Grid   [3]int `json:"grid"`
	Blocks int64  `json:"blocks"`
	Arch   string `json:"arch,omitempty"`
	// OccupancyLo and OccupancyHi: co-resident blocks per SM, guaranteed
	// and largest.
	OccupancyLo int     `json:"occupancy_lo"`
	OccupancyHi int     `json:"occupancy_hi"`
	ClockMHz    float64 `json:"clock_mhz"`

	// Times are the bounds for k = 1 … SMs.
	Times []Time `json:"times"`

	Launch   *Overhead `json:"launch_overhead,omitempty"`
	Dispatch *Dispatch `json:"dispatch_latency,omitempty"`
	// Conditional: a time includes an overhead that is measured or
	// assumed, not bounded.
	Conditional bool     `json:"conditional"`
	Assumptions []string `json:"assumptions"`
	Exclusions  []string `json:"exclusions"`

	Item *Item `json:"persistent_item,omitempty"`
}

// Time is a task's bounds on k SMs.
type Time struct {
	SMs int `json:"sms"`
	// WCETNS and BCETNS are the upper and lower bounds of the time from
	// the host's launch call to the return of its synchronisation: the
	// device makespan plus the launch overhead when the platform gives
	// one (else the device makespan alone: see Task.Exclusions).
	WCETNS int64 `json:"wcet_ns"`
	BCETNS int64 `json:"bcet_ns"`
	// The device makespan alone (first possible dispatch to last result).
	DeviceWCETNS     int64 `json:"device_wcet_ns"`
	DeviceBCETNS     int64 `json:"device_bcet_ns"`
	DeviceWCETCycles int64 `json:"device_wcet_cycles"`
	DeviceBCETCycles int64 `json:"device_bcet_cycles"`
	// DispatchCoeff: the device bound grows by at most this many cycles
	// per cycle of dispatch latency (the platform's latency is already in
	// the bound when it gives one).
	DispatchCoeff int64 `json:"dispatch_latency_coefficient"`
}

// Overhead is the launch overhead.
type Overhead struct {
	MaxNS  int64  `json:"max_ns"`
	MinNS  int64  `json:"min_ns"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
}

// Dispatch is the platform's dispatch latency.
type Dispatch struct {
	MaxCycles int64  `json:"max_cycles"`
	Kind      string `json:"kind"`
	Source    string `json:"source"`
}

// Item is a persistent kernel's per-item bound.
type Item struct {
	WCETCycles  int64  `json:"wcet_cycles"`
	WCETNS      int64  `json:"wcet_ns"`
	BCETCycles  int64  `json:"bcet_cycles"`
	HandshakeNS int64  `json:"handshake_max_ns,omitempty"`
	Kind        string `json:"handshake_kind,omitempty"`
	Scope       string `json:"scope"`
}

// FromReport renders the task model of a bound report: one task per
// kernel whose report has a kernel level (analyze --grid).
func FromReport(r *report.Report) (*Model, error) {
	m := &Model{Schema: Schema, Tool: Tool{Name: r.Tool.Name, Version: r.Tool.Version}, ReportSHA256: r.ReportSHA256,
		HW: HW{Name: r.HW.Name, SHA256: r.HW.SHA256}, TimeUnit: "ns", Inputs: []Input{}, Tasks: []Task{}}
	for _, in := range r.Inputs {
		m.Inputs = append(m.Inputs, Input{Path: in.Path, SHA256: in.SHA256, Kind: in.Kind})
	}
	for _, k := range r.Kernels {
		j := k.KernelLevel
		if j == nil {
			continue
		}
		if j.Platform != nil && m.Platform == nil {
			m.Platform = &Platform{Name: j.Platform.Name, Arch: j.Arch, SMs: j.Platform.SMs, ClockMHz: j.Platform.ClockMHz, Source: j.Platform.Source}
		}
		t := Task{Name: k.Name, Status: j.Status, Reason: j.Reason, Block: j.Block, Grid: j.Grid, Blocks: j.Blocks, Arch: j.Arch,
			OccupancyLo: j.Occupancy.Lo, OccupancyHi: j.Occupancy.Hi, ClockMHz: j.ClockMHz, Times: []Time{},
			Conditional: j.Conditional, Assumptions: nonNil(j.Assumptions), Exclusions: nonNil(j.Exclusions)}
		if j.Launch != nil {
			t.Launch = &Overhead{MaxNS: j.Launch.MaxNS, MinNS: j.Launch.MinNS, Kind: j.Launch.Kind, Source: j.Launch.Source}
		}
		if j.Dispatch != nil {
			t.Dispatch = &Dispatch{MaxCycles: j.Dispatch.MaxCycles, Kind: j.Dispatch.Kind, Source: j.Dispatch.Source}
		}
		if j.Status == kernel.StatusBounded && !(j.ClockMHz > 0) {
			return nil, fmt.Errorf("taskmodel: kernel %s: no clock to convert cycles to ns", k.Name)
		}
		for _, p := range j.Bounds {
			tm := Time{SMs: p.SMs, DeviceWCETNS: p.UpperNS, DeviceBCETNS: p.LowerNS, DeviceWCETCycles: p.UpperCycles, DeviceBCETCycles: p.LowerCycles,
				WCETNS: p.UpperNS, BCETNS: p.LowerNS, DispatchCoeff: p.DispatchCoeff}
			if t.Launch != nil {
				tm.WCETNS, tm.BCETNS = p.TotalUpperNS, p.TotalLowerNS
			}
			t.Times = append(t.Times, tm)
		}
		if p := j.Persistent; p != nil {
			t.Item = &Item{WCETCycles: p.ItemCycles, WCETNS: p.ItemNS, BCETCycles: p.ItemLowerCycles, HandshakeNS: p.HandshakeNS, Kind: p.HandshakeKind, Scope: p.Scope}
		}
		m.Tasks = append(m.Tasks, t)
	}
	return m, nil
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// WriteJSON writes the task model as indented JSON.
func WriteJSON(w io.Writer, m *Model) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// ParseJSON decodes a task model strictly (an unknown field is an error)
// and checks its schema.
func ParseJSON(data []byte) (*Model, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var m Model
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("taskmodel: %w", err)
	}
	if m.Schema != Schema {
		return nil, fmt.Errorf("taskmodel: schema %q, want %q", m.Schema, Schema)
	}
	return &m, nil
}
