// Package premjson is the JSON form of a PREM schedule check (docs/prem.md,
// "JSON report"): the "prem" object of gpuwcet's report (bound/report),
// from which the text, SARIF, JUnit and Markdown renderings are made.
// Package prem produces it (its types are aliases of these); the report
// renders it without importing the checker, a later stage.
package premjson

// Check statuses.
const (
	StatusPass = "PASS"
	StatusFail = "FAIL"
	StatusWarn = "WARN"
	StatusInfo = "INFO"
)

// Result is the outcome of checking a schedule.
type Result struct {
	Schedule    string `json:"schedule"` // the file
	Name        string `json:"name"`
	Mode        string `json:"mode"`
	Granularity string `json:"granularity"`
	// N participants in release order; T_hyper; T_WB_off (phase mode).
	N              int    `json:"participants"`
	HyperperiodNS  int64  `json:"hyperperiod_ns"`
	WBBaseOffsetNS *int64 `json:"wb_base_offset_ns,omitempty"`
	WarmupNS       int64  `json:"warmup_ns"`
	WarmupTiles    int    `json:"warmup_tiles"`
	ClockHz        int64  `json:"clock_hz,omitempty"`
	ResolutionNS   int64  `json:"timer_resolution_ns"`
	JitterNS       int64  `json:"release_jitter_ns"`
	// Verdict is "pass" (no check fails) or "fail".
	Verdict string  `json:"verdict"`
	Checks  []Check `json:"checks"`

	Participants []Participant `json:"participant_table"`
	Slack        []SlackRow    `json:"slack"`
	MemorySlack  []MemSlack    `json:"memory_slack"`
	Overlaps     Overlaps      `json:"overlaps"`
	Utilisation  Utilisation   `json:"utilisation"`
	Sensitivity  Sensitivity   `json:"sensitivity"`
	Makespan     Makespan      `json:"makespan"`
	// Releases and Regions come from the analysis of the listings.
	Releases []Release `json:"release_points"`
	Regions  []Region  `json:"regions"`
}

// Check is one of C1..C12 (C0 errors stop the check before a report).
type Check struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Reason string `json:"reason"`
	// Counterexample is the first violation of a failing check.
	Counterexample *Counterexample `json:"counterexample,omitempty"`
	// FormulaHolds is the arithmetic verdict of a check that is reported
	// unsound (C4, C8 when C5 fails): the bounds assume isolation.
	FormulaHolds *bool `json:"formula_holds,omitempty"`
	Unsound      bool  `json:"unsound,omitempty"`
}

// Counterexample is a violation: a window (and for C5 the window it
// overlaps) and by how much.
type Counterexample struct {
	Text   string     `json:"text"`
	A      *WindowRef `json:"a,omitempty"`
	B      *WindowRef `json:"b,omitempty"`
	ByNS   int64      `json:"by_ns"`
	Source string     `json:"source,omitempty"` // schedule position, for SARIF
}

// WindowRef is one phase of one tile of a participant: [start, end) in ns
// from the schedule start (earliest start, latest end).
type WindowRef struct {
	Participant string `json:"participant"`
	Tile        int64  `json:"tile"` // absolute tile index (warm-up tiles first)
	Phase       string `json:"phase"`
	StartNS     int64  `json:"start_ns"`
	EndNS       int64  `json:"end_ns"`
}

// Participant is a row of the participant table.
type Participant struct {
	ID        string       `json:"id"`
	Kernel    string       `json:"kernel"`
	Blocks    int          `json:"blocks"`
	Tiles     int64        `json:"tiles"`
	Bounds    []PhaseBound `json:"bounds"` // prefetch, compute, writeback
	Triggers  []int64      `json:"trigger_offsets_ns"`
	Jitter    []int64      `json:"jitter_ns"` // per phase: J, J + r (C9) or 0 when not triggered
	EndNS     int64        `json:"end_ns"`    // latest end of its last tile
	Periodic  int64        `json:"periodic_from_tile"`
	Drift     bool         `json:"drift"`
	TileBytes int64        `json:"tile_bytes,omitempty"`
}

// PhaseBound is the bound of a phase with its provenance.
type PhaseBound struct {
	Phase       string `json:"phase"`
	WCETNS      int64  `json:"wcet_ns"`
	BCETNS      int64  `json:"bcet_ns"`
	Cycles      int64  `json:"cycles,omitempty"`
	Provenance  string `json:"provenance"` // "proven" or "assumed"
	Scope       string `json:"scope"`      // "block" or "participant"
	From        string `json:"from"`
	WarmupWCET  *int64 `json:"warmup_wcet_ns,omitempty"`
	WarmupGiven bool   `json:"warmup_given,omitempty"`
}

// SlackRow is the slack of a slot (C4): slot length, the bounds it holds,
// jitter, and the smallest slack over the tiles.
type SlackRow struct {
	Participant string `json:"participant"`
	Slot        string `json:"slot"`
	SlotNS      int64  `json:"slot_ns"`
	BoundNS     int64  `json:"bound_ns"`
	Provenance  string `json:"provenance"`
	JitterNS    int64  `json:"jitter_ns"`
	MinSlackNS  int64  `json:"min_slack_ns"`
	AtTile      int64  `json:"at_tile"`
	// BestSlackNS is the slack on the same tile when every phase runs at
	// its lower bound (BCET) and without jitter: the slot's end minus the
	// phase's earliest end.
	BestSlackNS int64 `json:"best_slack_ns"`
	WarnOnly    bool  `json:"warn_only,omitempty"`
}

// MemSlack is the C5 slack of a memory phase: the smallest gap from its
// window's end to the next memory window of another participant.
type MemSlack struct {
	Participant string `json:"participant"`
	Phase       string `json:"phase"`
	SlackNS     int64  `json:"slack_ns"`
	Next        string `json:"next"` // participant and phase of the next window
	AtTile      int64  `json:"at_tile"`
}

// Overlaps summarises C5 violations: per pair of participants.
type Overlaps struct {
	// Pairs lists the overlapping participant pairs, at most
	// MaxListedPairs of them (those with the most overlap);
	// ParticipantPairs counts them all.
	Pairs            []OverlapPair `json:"pairs"`
	ParticipantPairs int           `json:"participant_pairs"`
	WindowPairs      int64         `json:"window_pairs"`
	TotalNS          int64         `json:"total_ns"`
	TilesSwept       int64         `json:"tiles_swept"`
	PeriodicFrom     int64         `json:"periodic_from_tile"` // -1: no periodic regime (every tile swept)
}

// OverlapPair is two participants whose memory windows intersect.
type OverlapPair struct {
	A       string       `json:"a"`
	B       string       `json:"b"`
	Count   int64        `json:"count"`
	TotalNS int64        `json:"total_ns"`
	MaxNS   int64        `json:"max_ns"`
	First   [2]WindowRef `json:"first"`
}

// Utilisation is C10.
type Utilisation struct {
	MemoryPct     float64            `json:"memory_pct"` // Σ (P_i + W_i) / T_hyper
	IdleMemoryPct float64            `json:"idle_memory_pct"`
	Participants  map[string]float64 `json:"participants_pct"` // (P_i + C_i + W_i) / T_hyper
}

// Sensitivity is C11: all WCETs may be multiplied by Alpha.
type Sensitivity struct {
	Alpha   float64 `json:"alpha"`
	Binding string  `json:"binding"` // the constraint that gives it
}

// Makespan is C8.
type Makespan struct {
	NS         int64  `json:"ns"`
	Formula    string `json:"formula"`
	Last       string `json:"last_participant"`
	DeadlineNS *int64 `json:"deadline_ns,omitempty"`
	SlackNS    *int64 `json:"slack_ns,omitempty"`
	Unsound    bool   `json:"unsound,omitempty"`
}

// Release is a release point found in a listing.
type Release struct {
	Kernel  string `json:"kernel"`
	Pos     string `json:"pos"`
	Trigger string `json:"trigger"`
	Barrier string `json:"barrier"`
}

// Region is a phase region of a kernel and its bound.
type Region struct {
	Kernel string   `json:"kernel"`
	Phase  string   `json:"phase"`
	How    string   `json:"how"` // "release points", "markers", "lines"
	From   string   `json:"from"`
	To     []string `json:"to"`
	Cycles int64    `json:"cycles"`
	NS     int64    `json:"ns"`
	// LowerCycles and LowerNS are the region's lower bound (release to
	// release, the block alone or sharing its SM; the BCET, in ns rounded
	// down), 0 when none is known.
	LowerCycles int64    `json:"lower_cycles"`
	LowerNS     int64    `json:"lower_ns"`
	Sections    []string `json:"sections"`
}
