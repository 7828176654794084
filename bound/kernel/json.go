package kernel

import (
	"github.com/gpuwcet/gpuwcet/cfg/assume"
	"github.com/gpuwcet/gpuwcet/hwdesc/arch"
)

// Statuses of a kernel-level result (JSON.Status).
const (
	StatusBounded     = "bounded"      // the kernel-level bound was computed
	StatusNotComputed = "not-computed" // --grid without an architecture or SM count; Reason says what is missing
	StatusPersistent  = "persistent"   // a persistent kernel: a per-item bound only (Persistent)
)

// JSON is the kernel-level part of a kernel's report (field
// kernels[].kernel_level, docs/report.md and docs/kernel.md).
type JSON struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`

	Grid     [3]int        `json:"grid"`
	Block    [3]int        `json:"block"`
	Blocks   int64         `json:"blocks"`
	Arch     string        `json:"arch,omitempty"`
	SMs      int           `json:"sms,omitempty"`
	ClockMHz float64       `json:"clock_mhz,omitempty"`
	Platform *PlatformJSON `json:"platform,omitempty"`

	Occupancy OccupancyJSON `json:"occupancy"`

	// The block's figures (cycles): its bound alone on an SM, its load
	// over its whole execution (Σ InitSum + Issued of its warps), its
	// lower bound and its SM-exclusive work.
	BlockBound  int64  `json:"block_bound_cycles"`
	BlockLoad   int64  `json:"block_load_cycles"`
	BlockLower  int64  `json:"block_lower_cycles"`
	BlockWork   int64  `json:"block_work_cycles"`
	LoopMinimum string `json:"loop_minimum,omitempty"`
	// CoResident: the bound of a block sharing its SM with at most m−1
	// other blocks over its lifetime (no refill), m = 1 … occupancy hi.
	CoResident []CoResidentJSON `json:"co_resident"`

	Launch    *OverheadJSON `json:"launch_overhead,omitempty"`
	Dispatch  *DispatchJSON `json:"dispatch_latency,omitempty"`
	Handshake *OverheadJSON `json:"persistent_handshake,omitempty"`

	// Bounds is bound(k) for k = 1 … SMs.
	Bounds []PointJSON `json:"bounds"`
	// Conditional: a total includes an overhead that is measured or
	// assumed, not bounded.
	Conditional bool     `json:"conditional"`
	Assumptions []string `json:"assumptions"`
	Exclusions  []string `json:"exclusions"`
	// Uses are Assumptions as entries of the assumptions ledger (the
	// report numbers them; not in the JSON, whose assumptions are their
	// texts).
	Uses []assume.Use `json:"-"`

	Persistent *PersistentJSON `json:"persistent,omitempty"`
}

// PlatformJSON identifies the platform.
type PlatformJSON struct {
	Name     string  `json:"name"`
	SMs      int     `json:"sms"`
	ClockMHz float64 `json:"clock_mhz"`
	Source   string  `json:"source"`
}

// OccupancyJSON is the co-resident blocks per SM and what limits them.
type OccupancyJSON struct {
	Lo            int        `json:"lo"` // guaranteed while blocks wait
	Hi            int        `json:"hi"` // the most ever co-resident
	WarpsPerBlock int        `json:"warps_per_block"`
	Limiter       []string   `json:"limiter"`
	LimitsLo      LimitsJSON `json:"limits_lo"`
	LimitsHi      LimitsJSON `json:"limits_hi"`
	Regs          string     `json:"regs_per_thread"`      // "32" or "0..255"
	StaticSmem    string     `json:"static_smem_bytes"`    // "4096" or a range
	DynamicSmem   int64      `json:"dynamic_smem_bytes"`   //
	Sources       []string   `json:"sources"`              // where each input comes from
	Assumed       []string   `json:"assumed,omitempty"`    // what the occupancy assumes
	ArchSources   []string   `json:"arch_table,omitempty"` // the architecture table's sources
}

// LimitsJSON are the blocks per SM each resource allows (-1: no limit).
type LimitsJSON struct {
	Warps    int `json:"warps"`
	Blocks   int `json:"blocks"`
	Regs     int `json:"registers"`
	Smem     int `json:"shared_memory"`
	Barriers int `json:"barriers"`
}

// CoResidentJSON is the co-resident bound for m blocks.
type CoResidentJSON struct {
	Blocks      int   `json:"blocks"`
	BoundCycles int64 `json:"bound_cycles"`
}

// OverheadJSON is a host-side overhead of the platform.
type OverheadJSON struct {
	MaxNS    int64  `json:"max_ns"`
	MinNS    int64  `json:"min_ns"`
	JitterNS int64  `json:"jitter_ns,omitempty"`
	Kind     string `json:"kind"`
	Source   string `json:"source"`
}

// DispatchJSON is the platform's dispatch latency.
type DispatchJSON struct {
	MaxCycles int64  `json:"max_cycles"`
	Kind      string `json:"kind"`
	Source    string `json:"source"`
}

// PointJSON is bound(k).
type PointJSON struct {
	SMs         int   `json:"sms"`
	UpperCycles int64 `json:"upper_cycles"` // device makespan, from the first possible dispatch
	LowerCycles int64 `json:"lower_cycles"`
	HeadCycles  int64 `json:"head_cycles"` // until the last dispatch
	TailCycles  int64 `json:"tail_cycles"` // co-resident bound of the last block
	UpperNS     int64 `json:"upper_ns,omitempty"`
	LowerNS     int64 `json:"lower_ns,omitempty"`
	// TotalUpperNS and TotalLowerNS add the launch overhead (host launch
	// call to synchronisation), when the platform gives it.
	TotalUpperNS  int64  `json:"total_upper_ns,omitempty"`
	TotalLowerNS  int64  `json:"total_lower_ns,omitempty"`
	Waves         int64  `json:"waves"`
	PerSM         int64  `json:"blocks_before_last_dispatch_per_sm"`
	Slots         int    `json:"slots_counted"`
	SingleWave    bool   `json:"single_wave"`
	DispatchCoeff int64  `json:"dispatch_latency_coefficient"`
	LowerBy       string `json:"lower_by"`
}

// PersistentJSON is the per-item bound of a persistent kernel.
type PersistentJSON struct {
	Loop            string   `json:"loop"`            // the persistent loop's header position
	Handshakes      []string `json:"handshake_loops"` // the handshake loops' header positions
	ItemCycles      int64    `json:"item_bound_cycles"`
	ItemNS          int64    `json:"item_bound_ns,omitempty"`
	ItemLowerCycles int64    `json:"item_lower_cycles"`
	HandshakeNS     int64    `json:"handshake_max_ns,omitempty"`
	HandshakeKind   string   `json:"handshake_kind,omitempty"`
	Scope           string   `json:"scope"`
}

// assumptions returns the kernel-level assumptions and exclusions.
func assumptions(in Input, occ *arch.Occupancy, j JSON) (as []assume.Use, ex []string) {
	as = append(as, assume.U(assume.GridDispatch), assume.U(assume.GridAlone), assume.U(assume.CoResident))
	as = append(as, occ.Assumed...)
	if in.Platform != nil {
		as = append(as, assume.Uf(assume.GridClock, "the SM clock is fixed at %g MHz (platform %s)", in.Platform.ClockMHz, in.Platform.Name))
	} else if in.ClockMHz > 0 {
		as = append(as, assume.Uf(assume.GridClock, "the SM clock is fixed at %g MHz (the hardware description's clock: no platform given)", in.ClockMHz))
	}
	if j.Launch != nil {
		as = append(as, assume.Uf(assume.LaunchOverhead, "launch overhead (host launch call to synchronisation return) at most %d ns: %s, %s", j.Launch.MaxNS, j.Launch.Kind, j.Launch.Source))
	} else {
		ex = append(ex, "kernel launch overhead (host launch call to the first dispatch, and the last block's end to the synchronisation's return): the platform gives none, so the totals are device makespans only")
	}
	if j.Dispatch != nil {
		as = append(as, assume.Uf(assume.DispatchLatency, "a free block slot stays empty at most %d cycles while blocks wait: %s, %s", j.Dispatch.MaxCycles, j.Dispatch.Kind, j.Dispatch.Source))
	} else {
		ex = append(ex, "per-block dispatch latency: the platform gives none, so the bounds take it as 0; each bound grows by at most dispatch_latency_coefficient cycles per cycle of dispatch latency")
	}
	ex = append(ex, "host code, host-device copies and other kernels of the stream")
	return as, ex
}

// NotComputed returns the kernel-level result when something it needs is
// missing.
func NotComputed(grid, block [3]int, reason string) JSON {
	var b int64 = 1
	for _, d := range grid {
		b *= int64(max(d, 1))
	}
	return JSON{Status: StatusNotComputed, Reason: reason, Grid: grid, Block: block, Blocks: b, Bounds: []PointJSON{}, Assumptions: []string{}, Exclusions: []string{}, CoResident: []CoResidentJSON{}}
}

// LowerJSON is a block's lower bound (kernels[].lower_bound): the largest
// of the shortest isolated warp, the block's fewest issued instructions
// and its busiest resource's fewest initiation cycles; with the block's
// largest whole-execution load, which the kernel level charges.
type LowerJSON struct {
	Cycles       int64  `json:"cycles"`
	NS           *int64 `json:"ns,omitempty"`
	WarpCycles   int64  `json:"warp_cycles"`
	IssuedCycles int64  `json:"issued_cycles"`
	InitCycles   int64  `json:"init_cycles"`
	LoadCycles   int64  `json:"block_load_cycles"`
	LoopMinimum  string `json:"loop_minimum"`
}

// useTexts returns the statements of uses.
func useTexts(us []assume.Use) []string {
	out := make([]string, 0, len(us))
	for _, u := range us {
		out = append(out, u.Statement())
	}
	return out
}
