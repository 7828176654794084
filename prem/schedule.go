package prem

import (
	"go/token"
	"strings"
)

// SchemaVersion is the version of schedule files this package reads
// (docs/prem.md, "Schedule file").
const SchemaVersion = 1

// Mode is how a schedule releases the phases of a tile.
type Mode uint8

const (
	// WholeTile triggers the prefetch; compute and write-back follow.
	WholeTile Mode = iota + 1
	// PhaseMode triggers the prefetch and the write-back.
	PhaseMode
	// Table triggers the windows of an explicit table.
	Table
)

var modeNames = [...]string{WholeTile: "whole_tile", PhaseMode: "phase", Table: "table"}

func (m Mode) String() string {
	if int(m) < len(modeNames) && modeNames[m] != "" {
		return modeNames[m]
	}
	return "mode?"
}

// Granularity says what a participant is: a kernel instance (all its
// blocks released together) or one block.
type Granularity uint8

const (
	KernelWise Granularity = iota + 1
	BlockWise
)

func (g Granularity) String() string {
	switch g {
	case KernelWise:
		return "kernel"
	case BlockWise:
		return "block"
	}
	return "granularity?"
}

// Phase is a phase of a tile.
type Phase uint8

const (
	Prefetch Phase = iota
	Compute
	Writeback
	numPhases
)

var phaseNames = [...]string{Prefetch: "prefetch", Compute: "compute", Writeback: "writeback"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "phase?"
}

// Short returns the abbreviation of the notes: PF, C, WB.
func (p Phase) Short() string {
	switch p {
	case Prefetch:
		return "PF"
	case Compute:
		return "C"
	case Writeback:
		return "WB"
	}
	return "?"
}

// Memory reports whether the phase accesses main memory (C5 excludes it).
func (p Phase) Memory() bool { return p != Compute }

func parsePhase(s string) (Phase, bool) {
	for i, n := range phaseNames {
		if n == s {
			return Phase(i), true
		}
	}
	return 0, false
}

// Schedule is a decoded schedule file (TOML schema v1).
type Schedule struct {
	File   string // name used in messages
	SHA256 string // of the file's bytes
	Name   string

	Platform Platform

	Mode        Mode
	Granularity Granularity
	Order       []string // participant ids in release order; nil: the default order
	WarmupNS    int64    // WU
	WarmupTiles int      // K
	// Offsets, budgets and declared values in ns; -1 when absent.
	PFOffsetNS, WBOffsetNS            int64
	BudgetPFNS, BudgetCNS, BudgetWBNS int64
	HyperperiodNS, WBBaseOffsetNS     int64 // declared (whole/phase: checked by C3; table: the period)
	DeadlineNS                        int64
	Windows                           []*Window
	Kernels                           []*Kernel
	Bounds                            []*ManualBound
	Output                            Output

	pos map[string]token.Position // key path ("schedule.pf_offset_ns", "kernel[1].blocks") -> position
}

// Pos returns the position of a key path of the file ("schedule.mode",
// "kernel[0].tiles_per_block", "bound[2]"), or the file's first line.
func (s *Schedule) Pos(path string) token.Position {
	for p := path; p != ""; {
		if q, ok := s.pos[p]; ok {
			return q
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return token.Position{Filename: s.File, Line: 1}
}

// Platform is the [platform] table.
type Platform struct {
	GPU          string
	ClockHz      int64 // 0: not given
	SMs          int   // 0: not given
	Arch         string
	Timer        string // "globaltimer" or "clock64"
	ResolutionNS int64  // r
	JitterNS     int64  // J
}

// Kernel is one [[kernel]] table.
type Kernel struct {
	ID        string
	Function  string
	Instances int
	Blocks    int
	Threads   int
	// Tiles is the number of tiles of each block (warm-up included):
	// one entry for all blocks, or one per block.
	Tiles     []int64
	TileBytes int64 // 0: not given
	// Listing (relative to the schedule file) and its SHA-256, optional.
	Listing, SHA256 string
	Args            map[string]int64
	Facts           string
	Registers       int64 // per thread, 0: not given (C1; from the listing when analysed)
	SharedBytes     int64 // per block, static and dynamic, -1: not given (C1; an override of the listing's, assumed)
	DynamicShared   int64 // dynamic shared memory per block, -1: not given (C1, with the listing's .shared declarations)
	Block           [3]int
	Phases          [numPhases]*RegionSpec // nil: no region given
	Pos             token.Position
}

// TilesOf returns the tiles of block b.
func (k *Kernel) TilesOf(b int) int64 {
	if len(k.Tiles) == 1 {
		return k.Tiles[0]
	}
	return k.Tiles[b]
}

// RegionSpec says where a phase is in the code: a region label (release
// points and barriers, or source markers) or a range of listing lines.
type RegionSpec struct {
	Region string
	Lines  [2]int // first and last line, 0 when Region is used
	Pos    token.Position
}

func (r *RegionSpec) String() string {
	if r.Region != "" {
		return "region " + r.Region
	}
	return "lines " + itoa(int64(r.Lines[0])) + "-" + itoa(int64(r.Lines[1]))
}

// ManualBound is a [[bound]] entry: a bound given by the user, reported as
// assumed.
type ManualBound struct {
	Kernel string
	Phase  string // prefetch, compute, writeback or tile
	Warmup bool   // tile = "warmup"
	WCETNS int64
	BCETNS int64 // 0 when not given
	// Participant scope: the bound covers all blocks of a participant
	// running concurrently (N2).
	Participant bool
	Pos         token.Position
}

// Window is a [[schedule.window]] entry of a table schedule.
type Window struct {
	Participant string
	Phase       Phase
	OffsetNS    int64
	LengthNS    int64
	Pos         token.Position
}

// Output is the [output] table: files written next to the report.
type Output struct {
	GanttSVG, TraceJSON, ConflictDOT string
	GanttHyperperiods                int
}

func itoa(x int64) string {
	neg := x < 0
	if neg {
		x = -x
	}
	var b [24]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + x%10)
		x /= 10
		if x == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// group writes n with thin separators every three digits: 10 228 860.
func group(n int64) string {
	s := itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
