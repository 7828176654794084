package prem

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/token"
	"math"
	"math/bits"
	"regexp"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/input"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Input limits: every input is bounded in time and memory. A schedule
// file is read up to MaxFileBytes; DecodeStrict refuses documents nested
// too deeply before decoding (input.CheckTOML). Every time is at most
// MaxTimeNS (about 13 days), the tiles of a block MaxTiles and the
// participants MaxParticipants, so that products of a time and a tile
// count stay far below 2^63.
const (
	MaxFileBytes    = 1 << 20
	MaxTimeNS       = int64(1) << 50
	MaxTiles        = int64(1) << 31
	MaxParticipants = 1 << 20
	maxSpanNS       = int64(1) << 62 // the latest instant the engine computes
)

// Load reads and decodes a schedule file.
func Load(path string) (*Schedule, error) {
	data, err := input.ReadFile(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("prem: %w", err)
	}
	return Decode(path, data)
}

// tilesValue is tiles_per_block: an integer or an array of integers.
type tilesValue struct {
	list []int64
	bad  string
}

// UnmarshalTOML implements toml.Unmarshaler.
func (t *tilesValue) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		t.list = []int64{v}
	case []any:
		for _, x := range v {
			n, ok := x.(int64)
			if !ok {
				t.bad = fmt.Sprintf("tiles_per_block must list integers, not %T", x)
				return nil
			}
			t.list = append(t.list, n)
		}
		if len(t.list) == 0 {
			t.bad = "tiles_per_block is an empty list"
		}
	default:
		t.bad = fmt.Sprintf("tiles_per_block must be an integer or a list of integers (one per block), not %T", v)
	}
	return nil
}

type rawSchedule struct {
	SchemaVersion *int64      `toml:"schema_version"`
	Name          string      `toml:"name"`
	Platform      rawPlatform `toml:"platform"`
	Schedule      rawSched    `toml:"schedule"`
	Kernel        []rawKernel `toml:"kernel"`
	Bound         []rawBound  `toml:"bound"`
	Output        rawOutput   `toml:"output"`
}

type rawPlatform struct {
	GPU               string `toml:"gpu"`
	ClockHz           *int64 `toml:"clock_hz"`
	SMs               *int64 `toml:"sms"`
	Arch              string `toml:"arch"`
	Timer             string `toml:"timer"`
	TimerResolutionNS *int64 `toml:"timer_resolution_ns"`
	ReleaseJitterNS   *int64 `toml:"release_jitter_ns"`
}

type rawSched struct {
	Mode           string      `toml:"mode"`
	Granularity    string      `toml:"granularity"`
	Order          []string    `toml:"order"`
	WarmupNS       *int64      `toml:"warmup_ns"`
	WarmupTiles    *int64      `toml:"warmup_tiles"`
	PFOffsetNS     *int64      `toml:"pf_offset_ns"`
	WBOffsetNS     *int64      `toml:"wb_offset_ns"`
	BudgetPFNS     *int64      `toml:"budget_pf_ns"`
	BudgetCNS      *int64      `toml:"budget_c_ns"`
	BudgetWBNS     *int64      `toml:"budget_wb_ns"`
	BudgetPFCycles *int64      `toml:"budget_pf_cycles"`
	BudgetCCycles  *int64      `toml:"budget_c_cycles"`
	BudgetWBCycles *int64      `toml:"budget_wb_cycles"`
	HyperperiodNS  *int64      `toml:"hyperperiod_ns"`
	WBBaseOffsetNS *int64      `toml:"wb_base_offset_ns"`
	DeadlineNS     *int64      `toml:"deadline_ns"`
	Window         []rawWindow `toml:"window"`
}

type rawWindow struct {
	Participant  string `toml:"participant"`
	Phase        string `toml:"phase"`
	OffsetNS     *int64 `toml:"offset_ns"`
	LengthNS     *int64 `toml:"length_ns"`
	LengthCycles *int64 `toml:"length_cycles"`
}

type rawKernel struct {
	ID                 string           `toml:"id"`
	Function           string           `toml:"function"`
	Instances          *int64           `toml:"instances"`
	Blocks             *int64           `toml:"blocks"`
	ThreadsPerBlock    *int64           `toml:"threads_per_block"`
	Block              []int64          `toml:"block"`
	TilesPerBlock      *tilesValue      `toml:"tiles_per_block"`
	TileBytes          *int64           `toml:"tile_bytes"`
	Listing            string           `toml:"listing"`
	SHA256             string           `toml:"sha256"`
	Args               map[string]int64 `toml:"args"`
	Facts              string           `toml:"facts"`
	RegistersPerThread *int64           `toml:"registers_per_thread"`
	SharedBytes        *int64           `toml:"shared_bytes"`
	DynamicShared      *int64           `toml:"dynamic_shared_bytes"`
	Phases             rawPhases        `toml:"phases"`
}

type rawPhases struct {
	Prefetch  *rawRegion `toml:"prefetch"`
	Compute   *rawRegion `toml:"compute"`
	Writeback *rawRegion `toml:"writeback"`
}

type rawRegion struct {
	Region string  `toml:"region"`
	Lines  []int64 `toml:"lines"`
}

type rawBound struct {
	Kernel     string `toml:"kernel"`
	Phase      string `toml:"phase"`
	Tile       string `toml:"tile"`
	WCETNS     *int64 `toml:"wcet_ns"`
	WCETCycles *int64 `toml:"wcet_cycles"`
	BCETNS     *int64 `toml:"bcet_ns"`
	BCETCycles *int64 `toml:"bcet_cycles"`
	Scope      string `toml:"scope"`
}

type rawOutput struct {
	GanttSVG          string `toml:"gantt_svg"`
	TraceJSON         string `toml:"trace_json"`
	ConflictDOT       string `toml:"conflict_dot"`
	GanttHyperperiods *int64 `toml:"gantt_hyperperiods"`
}

// schemaKeys are the keys of each table, for unknown-key hints (a test
// checks them against the struct tags).
var schemaKeys = map[string][]string{
	"":                        {"schema_version", "name", "platform", "schedule", "kernel", "bound", "output"},
	"platform":                {"gpu", "clock_hz", "sms", "arch", "timer", "timer_resolution_ns", "release_jitter_ns"},
	"schedule":                {"mode", "granularity", "order", "warmup_ns", "warmup_tiles", "pf_offset_ns", "wb_offset_ns", "budget_pf_ns", "budget_c_ns", "budget_wb_ns", "budget_pf_cycles", "budget_c_cycles", "budget_wb_cycles", "hyperperiod_ns", "wb_base_offset_ns", "deadline_ns", "window"},
	"schedule.window":         {"participant", "phase", "offset_ns", "length_ns", "length_cycles"},
	"kernel":                  {"id", "function", "instances", "blocks", "threads_per_block", "block", "tiles_per_block", "tile_bytes", "listing", "sha256", "args", "facts", "registers_per_thread", "shared_bytes", "dynamic_shared_bytes", "phases"},
	"kernel.phases":           {"prefetch", "compute", "writeback"},
	"kernel.phases.prefetch":  {"region", "lines"},
	"kernel.phases.compute":   {"region", "lines"},
	"kernel.phases.writeback": {"region", "lines"},
	"bound":                   {"kernel", "phase", "tile", "wcet_ns", "wcet_cycles", "bcet_ns", "bcet_cycles", "scope"},
	"output":                  {"gantt_svg", "trace_json", "conflict_dot", "gantt_hyperperiods"},
}

// idRE is the form of kernel ids: participant ids are built from them.
var idRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// Decode strictly decodes and validates a schedule; name is used in
// messages. Errors are positioned (name:line) and joined: TOML syntax,
// unknown keys, missing or out-of-range values, ids that do not resolve,
// table windows that overlap or leave the hyperperiod (C0, C3).
func Decode(name string, data []byte) (*Schedule, error) {
	var raw rawSchedule
	lines, err := hwdesc.DecodeStrict(name, data, &raw, hwdesc.Schema{Keys: schemaKeys})
	if err != nil {
		var se *hwdesc.SyntaxError
		if errors.As(err, &se) {
			// The library quotes the input: keep the message on one line.
			se.Msg = strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(se.Msg)
		}
		return nil, err
	}
	pos := map[string]token.Position{}
	for k, l := range lines {
		pos[k] = token.Position{Filename: name, Line: l}
	}
	sum := sha256.Sum256(data)
	s := &Schedule{File: name, SHA256: hex.EncodeToString(sum[:]), Name: raw.Name, pos: pos,
		PFOffsetNS: -1, WBOffsetNS: -1, BudgetPFNS: -1, BudgetCNS: -1, BudgetWBNS: -1, HyperperiodNS: -1, WBBaseOffsetNS: -1, DeadlineNS: -1}
	d := &decoder{s: s}
	d.decode(&raw)
	if len(d.errs) > 0 {
		d.errs.RemoveMultiples()
		return nil, d.errs
	}
	return s, nil
}

type decoder struct {
	s    *Schedule
	errs isa.ErrorList
}

func (d *decoder) errf(path, format string, args ...any) {
	d.errs.Addf(d.s.Pos(path), format, args...)
}

// time checks a time value: 0 <= v <= MaxTimeNS.
func (d *decoder) time(path string, v *int64, def int64) int64 {
	if v == nil {
		return def
	}
	if *v < 0 {
		d.errf(path, "%s = %d: a time must not be negative", leaf(path), *v)
		return def
	}
	if *v > MaxTimeNS {
		d.errf(path, "%s = %d: larger than the limit of %d ns", leaf(path), *v, MaxTimeNS)
		return def
	}
	return *v
}

// count checks a count: lo <= v <= hi.
func (d *decoder) count(path string, v *int64, def, lo, hi int64) int64 {
	if v == nil {
		return def
	}
	if *v < lo || *v > hi {
		d.errf(path, "%s = %d: must be between %d and %d", leaf(path), *v, lo, hi)
		return def
	}
	return *v
}

func leaf(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// cyclesToNS converts cycles at clock hz to ns: rounding up for a WCET
// (ceil true), down for a slot or a BCET (N3); false when the result is
// above MaxTimeNS.
func cyclesToNS(c, hz int64, ceil bool) (int64, bool) {
	if hz <= 0 || c < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(c), 1_000_000_000)
	if hi >= uint64(hz) {
		return 0, false
	}
	q, r := bits.Div64(hi, lo, uint64(hz))
	if ceil && r != 0 {
		q++
	}
	return int64(q), q <= uint64(MaxTimeNS)
}

// MaxClockHz bounds clock_hz (100 GHz).
const MaxClockHz = int64(100_000_000_000)

func (d *decoder) decode(raw *rawSchedule) {
	s := d.s
	switch {
	case raw.SchemaVersion == nil:
		d.errf("", "missing schema_version = %d", SchemaVersion)
	case *raw.SchemaVersion != SchemaVersion:
		d.errf("schema_version", "schema_version %d is not supported (want %d)", *raw.SchemaVersion, SchemaVersion)
	}
	// [platform]
	p := raw.Platform
	s.Platform = Platform{GPU: p.GPU, Arch: p.Arch, Timer: p.Timer}
	s.Platform.ClockHz = d.count("platform.clock_hz", p.ClockHz, 0, 1, MaxClockHz)
	s.Platform.SMs = int(d.count("platform.sms", p.SMs, 0, 1, 1<<16))
	switch p.Timer {
	case "":
		s.Platform.Timer = "globaltimer"
	case "globaltimer", "clock64":
	default:
		d.errf("platform.timer", "timer %q: want \"globaltimer\" or \"clock64\"", p.Timer)
	}
	s.Platform.ResolutionNS = d.time("platform.timer_resolution_ns", p.TimerResolutionNS, 0)
	if p.TimerResolutionNS == nil {
		d.errf("platform", "missing timer_resolution_ns (160 after nvprof on a Jetson TX2, about 1000 without; prem-schedules.md §2.4)")
	} else if s.Platform.ResolutionNS == 0 {
		d.errf("platform.timer_resolution_ns", "timer_resolution_ns must be positive")
	}
	if p.ReleaseJitterNS == nil {
		d.errf("platform", "missing release_jitter_ns (the delay from a trigger to the phase start: spin exit and barrier)")
	}
	s.Platform.JitterNS = d.time("platform.release_jitter_ns", p.ReleaseJitterNS, 0)

	// [schedule]
	r := raw.Schedule
	switch r.Mode {
	case "whole_tile":
		s.Mode = WholeTile
	case "phase":
		s.Mode = PhaseMode
	case "table":
		s.Mode = Table
	case "":
		d.errf("schedule", "missing mode (\"whole_tile\", \"phase\" or \"table\")")
	default:
		d.errf("schedule.mode", "mode %q: want \"whole_tile\", \"phase\" or \"table\"", r.Mode)
	}
	switch r.Granularity {
	case "kernel":
		s.Granularity = KernelWise
	case "block":
		s.Granularity = BlockWise
	case "":
		d.errf("schedule", "missing granularity (\"kernel\" or \"block\")")
	default:
		d.errf("schedule.granularity", "granularity %q: want \"kernel\" or \"block\"", r.Granularity)
	}
	if r.WarmupNS == nil {
		d.errf("schedule", "missing warmup_ns (WU: the first trigger, after the warm-up tiles)")
	}
	s.WarmupNS = d.time("schedule.warmup_ns", r.WarmupNS, 0)
	s.WarmupTiles = int(d.count("schedule.warmup_tiles", r.WarmupTiles, 1, 0, 1<<20))
	s.PFOffsetNS = d.time("schedule.pf_offset_ns", r.PFOffsetNS, -1)
	s.WBOffsetNS = d.time("schedule.wb_offset_ns", r.WBOffsetNS, -1)
	s.HyperperiodNS = d.time("schedule.hyperperiod_ns", r.HyperperiodNS, -1)
	s.WBBaseOffsetNS = d.time("schedule.wb_base_offset_ns", r.WBBaseOffsetNS, -1)
	s.DeadlineNS = d.time("schedule.deadline_ns", r.DeadlineNS, -1)
	budget := func(key string, ns, cyc *int64) int64 {
		switch {
		case ns != nil && cyc != nil:
			d.errf("schedule."+key+"_cycles", "give %s_ns or %s_cycles, not both", key, key)
		case cyc != nil:
			if *cyc < 0 {
				d.errf("schedule."+key+"_cycles", "%s_cycles = %d: must not be negative", key, *cyc)
				return -1
			}
			if s.Platform.ClockHz == 0 {
				d.errf("schedule."+key+"_cycles", "%s_cycles needs platform.clock_hz to convert to ns", key)
				return -1
			}
			v, ok := cyclesToNS(*cyc, s.Platform.ClockHz, false)
			if !ok {
				d.errf("schedule."+key+"_cycles", "%s_cycles = %d: larger than the limit of %d ns", key, *cyc, MaxTimeNS)
				return -1
			}
			return v // slots in cycles convert with floor (N3)
		}
		return d.time("schedule."+key+"_ns", ns, -1)
	}
	s.BudgetPFNS = budget("budget_pf", r.BudgetPFNS, r.BudgetPFCycles)
	s.BudgetCNS = budget("budget_c", r.BudgetCNS, r.BudgetCCycles)
	s.BudgetWBNS = budget("budget_wb", r.BudgetWBNS, r.BudgetWBCycles)
	switch s.Mode {
	case WholeTile:
		if r.PFOffsetNS == nil {
			d.errf("schedule", "missing pf_offset_ns (whole_tile mode: participant i is released at WU + (n-K)*T_hyper + i*pf_offset_ns)")
		} else if s.PFOffsetNS == 0 {
			d.errf("schedule.pf_offset_ns", "pf_offset_ns must be positive")
		}
		for _, k := range []string{"wb_offset_ns", "budget_pf_ns", "budget_c_ns", "budget_wb_ns", "budget_pf_cycles", "budget_c_cycles", "budget_wb_cycles", "wb_base_offset_ns"} {
			if _, ok := s.pos["schedule."+k]; ok {
				d.errf("schedule."+k, "%s is not used in whole_tile mode (the write-back is not triggered; T_hyper = N*pf_offset_ns)", k)
			}
		}
	case PhaseMode:
		for _, k := range []struct {
			key string
			v   int64
		}{{"pf_offset_ns", s.PFOffsetNS}, {"wb_offset_ns", s.WBOffsetNS}, {"budget_pf_ns", s.BudgetPFNS}, {"budget_c_ns", s.BudgetCNS}, {"budget_wb_ns", s.BudgetWBNS}} {
			if k.v < 0 {
				_, given := s.pos["schedule."+k.key]
				if _, ok := s.pos["schedule."+strings.Replace(k.key, "_ns", "_cycles", 1)]; !ok && !given {
					d.errf("schedule", "missing %s (phase mode)", k.key)
				}
			}
		}
	case Table:
		for _, k := range []string{"pf_offset_ns", "wb_offset_ns", "budget_pf_ns", "budget_c_ns", "budget_wb_ns", "budget_pf_cycles", "budget_c_cycles", "budget_wb_cycles", "wb_base_offset_ns"} {
			if _, ok := s.pos["schedule."+k]; ok {
				d.errf("schedule."+k, "%s is not used in table mode (the windows give every trigger and slot)", k)
			}
		}
		if r.HyperperiodNS == nil {
			d.errf("schedule", "missing hyperperiod_ns (table mode: the period of the table)")
		} else if s.HyperperiodNS == 0 {
			d.errf("schedule.hyperperiod_ns", "hyperperiod_ns must be positive")
		}
	}
	if s.Mode != Table && len(r.Window) > 0 {
		d.errf("schedule.window[0]", "[[schedule.window]] is only used in table mode")
	}

	// [[kernel]]
	ids := map[string]int{}
	for i, rk := range raw.Kernel {
		at := fmt.Sprintf("kernel[%d]", i)
		k := &Kernel{ID: rk.ID, Function: rk.Function, Listing: rk.Listing, SHA256: strings.ToLower(rk.SHA256), Args: rk.Args, Facts: rk.Facts, Pos: s.Pos(at), SharedBytes: -1, DynamicShared: -1}
		switch {
		case rk.ID == "":
			d.errf(at, "kernel without id")
		case !idRE.MatchString(rk.ID):
			d.errf(at+".id", "kernel id %q: use letters, digits, '_' and '-' (participant ids are built from it: %s.0/b1)", rk.ID, rk.ID)
		default:
			if j, dup := ids[rk.ID]; dup {
				d.errf(at+".id", "kernel id %q is already used by kernel %d (line %d)", rk.ID, j+1, s.Pos(fmt.Sprintf("kernel[%d]", j)).Line)
			}
			ids[rk.ID] = i
		}
		k.Instances = int(d.count(at+".instances", rk.Instances, 1, 1, MaxParticipants))
		if rk.Blocks == nil {
			d.errf(at, "kernel %s: missing blocks (blocks per instance)", rk.ID)
		}
		k.Blocks = int(d.count(at+".blocks", rk.Blocks, 1, 1, MaxParticipants))
		if rk.ThreadsPerBlock == nil {
			d.errf(at, "kernel %s: missing threads_per_block", rk.ID)
		}
		k.Threads = int(d.count(at+".threads_per_block", rk.ThreadsPerBlock, 1, 1, 1<<16))
		k.Block = [3]int{k.Threads, 1, 1}
		if rk.Block != nil {
			if len(rk.Block) < 1 || len(rk.Block) > 3 {
				d.errf(at+".block", "block must list 1 to 3 dimensions")
			} else {
				n := int64(1)
				k.Block = [3]int{1, 1, 1}
				for j, x := range rk.Block {
					if x < 1 || x > 1<<16 {
						d.errf(at+".block", "block dimension %d is out of range", x)
						x = 1
					}
					k.Block[j] = int(x)
					n *= x
				}
				if n != int64(k.Threads) {
					d.errf(at+".block", "block %v has %d threads, threads_per_block says %d", rk.Block, n, k.Threads)
				}
			}
		}
		switch t := rk.TilesPerBlock; {
		case t == nil:
			d.errf(at, "kernel %s: missing tiles_per_block (tiles of each block, warm-up tiles included)", rk.ID)
			k.Tiles = []int64{int64(s.WarmupTiles) + 1}
		case t.bad != "":
			d.errf(at+".tiles_per_block", "%s", t.bad)
			k.Tiles = []int64{int64(s.WarmupTiles) + 1}
		default:
			if len(t.list) != 1 && len(t.list) != k.Blocks {
				d.errf(at+".tiles_per_block", "tiles_per_block lists %d counts for %d blocks", len(t.list), k.Blocks)
			}
			for _, n := range t.list {
				if n <= int64(s.WarmupTiles) || n > MaxTiles {
					d.errf(at+".tiles_per_block", "tiles_per_block %d: a block needs more tiles than the %d warm-up tiles (at most %d)", n, s.WarmupTiles, MaxTiles)
					n = int64(s.WarmupTiles) + 1
				}
				k.Tiles = append(k.Tiles, n)
			}
			if len(k.Tiles) != 1 && len(k.Tiles) != k.Blocks {
				k.Tiles = k.Tiles[:1]
			}
		}
		k.TileBytes = d.count(at+".tile_bytes", rk.TileBytes, 0, 1, 1<<40)
		k.Registers = d.count(at+".registers_per_thread", rk.RegistersPerThread, 0, 1, 255)
		k.SharedBytes = d.count(at+".shared_bytes", rk.SharedBytes, -1, 0, 1<<30)
		k.DynamicShared = d.count(at+".dynamic_shared_bytes", rk.DynamicShared, -1, 0, 1<<30)
		if k.SharedBytes >= 0 && k.DynamicShared >= 0 {
			d.errf(at+".dynamic_shared_bytes", "dynamic_shared_bytes with shared_bytes: shared_bytes gives the block's whole shared memory (an override of the listing's); give either")
		}
		if rk.SHA256 != "" && (len(k.SHA256) != 64 || strings.Trim(k.SHA256, "0123456789abcdef") != "") {
			d.errf(at+".sha256", "sha256 %q is not 64 hexadecimal digits", rk.SHA256)
		}
		if rk.SHA256 != "" && rk.Listing == "" {
			d.errf(at+".sha256", "sha256 without listing: name the listing it is the checksum of")
		}
		for ph, rr := range []*rawRegion{rk.Phases.Prefetch, rk.Phases.Compute, rk.Phases.Writeback} {
			if rr == nil {
				continue
			}
			pat := fmt.Sprintf("%s.phases.%s", at, Phase(ph))
			rs := &RegionSpec{Region: rr.Region, Pos: s.Pos(pat)}
			switch {
			case rr.Region != "" && rr.Lines != nil:
				d.errf(pat, "%s: give region or lines, not both", Phase(ph))
			case rr.Lines != nil:
				if len(rr.Lines) != 2 || rr.Lines[0] < 1 || rr.Lines[1] < rr.Lines[0] || rr.Lines[1] > 1<<30 {
					d.errf(pat, "%s: lines must be [first, last] with 1 <= first <= last", Phase(ph))
				} else {
					rs.Lines = [2]int{int(rr.Lines[0]), int(rr.Lines[1])}
				}
			case rr.Region == "":
				d.errf(pat, "%s: give region (a label: prefetch, compute, writeback, or a source marker's name) or lines", Phase(ph))
			}
			k.Phases[ph] = rs
		}
		if k.Phases != [numPhases]*RegionSpec{} && k.Function == "" {
			d.errf(at, "kernel %s: phases name code regions, but function (the kernel analysed) is missing", rk.ID)
		}
		s.Kernels = append(s.Kernels, k)
	}
	if len(raw.Kernel) == 0 {
		d.errf("", "no [[kernel]]: the schedule has no participant")
	}

	// [[bound]]
	seen := map[string]int{}
	for i, rb := range raw.Bound {
		at := fmt.Sprintf("bound[%d]", i)
		b := &ManualBound{Kernel: rb.Kernel, Phase: rb.Phase, Pos: s.Pos(at)}
		if _, ok := ids[rb.Kernel]; !ok {
			d.errf(at+".kernel", "bound for kernel %q: no [[kernel]] has this id (ids: %s)", rb.Kernel, idList(raw.Kernel))
		}
		switch rb.Phase {
		case "prefetch", "compute", "writeback":
		case "tile":
			if s.Mode != WholeTile {
				d.errf(at+".phase", "a bound of the whole tile is only meaningful in whole_tile mode (give prefetch, compute and writeback)")
			}
		default:
			d.errf(at+".phase", "phase %q: want prefetch, compute, writeback or tile", rb.Phase)
		}
		switch rb.Tile {
		case "", "steady":
		case "warmup":
			b.Warmup = true
		default:
			d.errf(at+".tile", "tile %q: want \"steady\" or \"warmup\"", rb.Tile)
		}
		switch rb.Scope {
		case "", "block":
		case "participant":
			b.Participant = true
		default:
			d.errf(at+".scope", "scope %q: want \"participant\" (all blocks of a participant running concurrently) or \"block\"", rb.Scope)
		}
		conv := func(key string, ns, cyc *int64, ceil bool) (int64, bool) {
			switch {
			case ns != nil && cyc != nil:
				d.errf(at+"."+key+"_cycles", "give %s_ns or %s_cycles, not both", key, key)
			case cyc != nil:
				if s.Platform.ClockHz == 0 {
					d.errf(at+"."+key+"_cycles", "%s_cycles needs platform.clock_hz to convert to ns", key)
					return 0, false
				}
				if *cyc < 0 {
					d.errf(at+"."+key+"_cycles", "%s_cycles = %d: must not be negative", key, *cyc)
					return 0, false
				}
				v, ok := cyclesToNS(*cyc, s.Platform.ClockHz, ceil)
				if !ok {
					d.errf(at+"."+key+"_cycles", "%s_cycles = %d: larger than the limit of %d ns", key, *cyc, MaxTimeNS)
				}
				return v, ok
			case ns != nil:
				v := d.time(at+"."+key+"_ns", ns, -1)
				return v, v >= 0
			}
			return 0, false
		}
		var ok bool
		if b.WCETNS, ok = conv("wcet", rb.WCETNS, rb.WCETCycles, true); !ok && rb.WCETNS == nil && rb.WCETCycles == nil {
			d.errf(at, "bound for %s %s: missing wcet_ns or wcet_cycles", rb.Kernel, rb.Phase)
		}
		b.BCETNS, _ = conv("bcet", rb.BCETNS, rb.BCETCycles, false)
		if b.BCETNS > b.WCETNS {
			d.errf(at, "bound for %s %s: bcet %d ns above wcet %d ns", rb.Kernel, rb.Phase, b.BCETNS, b.WCETNS)
		}
		key := rb.Kernel + "/" + rb.Phase + "/" + fmt.Sprint(b.Warmup)
		if j, dup := seen[key]; dup {
			d.errf(at, "a bound for %s %s (%s) is already given at line %d", rb.Kernel, rb.Phase, tileWord(b.Warmup), s.Pos(fmt.Sprintf("bound[%d]", j)).Line)
		}
		seen[key] = i
		s.Bounds = append(s.Bounds, b)
	}

	// [output]
	o := raw.Output
	s.Output = Output{GanttSVG: o.GanttSVG, TraceJSON: o.TraceJSON, ConflictDOT: o.ConflictDOT}
	s.Output.GanttHyperperiods = int(d.count("output.gantt_hyperperiods", o.GanttHyperperiods, 2, 0, 64))

	// Participants, order and windows need valid kernels.
	if len(d.errs) > 0 {
		return
	}
	parts := s.participantIDs()
	if len(parts) > MaxParticipants {
		d.errf("kernel[0]", "%d participants: more than the limit of %d", len(parts), MaxParticipants)
		return
	}
	if r.Order != nil {
		known := map[string]bool{}
		for _, p := range parts {
			known[p] = true
		}
		used := map[string]bool{}
		for _, o := range r.Order {
			switch {
			case !known[o]:
				d.errf("schedule.order", "order names %q, which is no participant (%s granularity: %s)", o, s.Granularity, sample(parts))
			case used[o]:
				d.errf("schedule.order", "order names %q twice", o)
			}
			used[o] = true
		}
		if len(used) != len(parts) && len(d.errs) == 0 {
			var missing []string
			for _, p := range parts {
				if !used[p] {
					missing = append(missing, p)
				}
			}
			d.errf("schedule.order", "order leaves out %s: list every participant", sample(missing))
		}
		s.Order = r.Order
	}
	if s.Mode == Table {
		d.windows(r.Window, parts)
	}
	d.spans(len(parts))
}

func tileWord(warmup bool) string {
	if warmup {
		return "warm-up tile"
	}
	return "steady tiles"
}

func idList(ks []rawKernel) string {
	var ids []string
	for _, k := range ks {
		ids = append(ids, k.ID)
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// sample lists up to 6 names.
func sample(xs []string) string {
	if len(xs) > 6 {
		return strings.Join(xs[:6], ", ") + fmt.Sprintf(", ... (%d in all)", len(xs))
	}
	return strings.Join(xs, ", ")
}

// participantIDs lists the participants in the default order: kernels in
// file order, then instances, then (block-wise) blocks.
func (s *Schedule) participantIDs() []string {
	var out []string
	for _, k := range s.Kernels {
		for inst := 0; inst < k.Instances; inst++ {
			if s.Granularity == BlockWise {
				for b := 0; b < k.Blocks; b++ {
					out = append(out, fmt.Sprintf("%s.%d/b%d", k.ID, inst, b))
				}
			} else {
				out = append(out, fmt.Sprintf("%s.%d", k.ID, inst))
			}
			if len(out) > MaxParticipants {
				return out
			}
		}
	}
	return out
}

// windows validates a table (C0, C3): participants resolve, one window
// per participant and phase, PF and WB windows present, inside the
// hyperperiod, in the order PF < C < WB, and no two windows of the
// memory (PF, WB) or of one participant overlapping.
func (d *decoder) windows(raw []rawWindow, parts []string) {
	s := d.s
	known := map[string]bool{}
	for _, p := range parts {
		known[p] = true
	}
	type key struct {
		p  string
		ph Phase
	}
	got := map[key]*Window{}
	for i, rw := range raw {
		at := fmt.Sprintf("schedule.window[%d]", i)
		w := &Window{Participant: rw.Participant, Pos: s.Pos(at)}
		if !known[rw.Participant] {
			d.errf(at+".participant", "window for %q, which is no participant (%s granularity: %s)", rw.Participant, s.Granularity, sample(parts))
			continue
		}
		ph, ok := parsePhase(rw.Phase)
		if !ok {
			d.errf(at+".phase", "phase %q: want prefetch, compute or writeback", rw.Phase)
			continue
		}
		w.Phase = ph
		if rw.OffsetNS == nil {
			d.errf(at, "window without offset_ns")
			continue
		}
		w.OffsetNS = d.time(at+".offset_ns", rw.OffsetNS, 0)
		switch {
		case rw.LengthNS != nil && rw.LengthCycles != nil:
			d.errf(at+".length_cycles", "give length_ns or length_cycles, not both")
		case rw.LengthCycles != nil:
			if s.Platform.ClockHz == 0 || *rw.LengthCycles < 0 {
				d.errf(at+".length_cycles", "length_cycles needs platform.clock_hz and must not be negative")
				continue
			}
			v, ok := cyclesToNS(*rw.LengthCycles, s.Platform.ClockHz, false)
			if !ok {
				d.errf(at+".length_cycles", "length_cycles %d: larger than the limit of %d ns", *rw.LengthCycles, MaxTimeNS)
			}
			w.LengthNS = v
		case rw.LengthNS != nil:
			w.LengthNS = d.time(at+".length_ns", rw.LengthNS, 0)
		default:
			d.errf(at, "window without length_ns")
			continue
		}
		if w.LengthNS == 0 {
			d.errf(at, "window of %s %s has length 0", w.Participant, w.Phase)
		}
		if s.HyperperiodNS > 0 && (w.OffsetNS >= s.HyperperiodNS || w.OffsetNS+w.LengthNS > s.HyperperiodNS) {
			d.errf(at, "window of %s %s [%d, %d) leaves the hyperperiod [0, %d) (C3)", w.Participant, w.Phase, w.OffsetNS, w.OffsetNS+w.LengthNS, s.HyperperiodNS)
		}
		k := key{w.Participant, ph}
		if prev := got[k]; prev != nil {
			d.errf(at, "a second %s window for %s (the first at line %d)", ph, w.Participant, prev.Pos.Line)
			continue
		}
		got[k] = w
		s.Windows = append(s.Windows, w)
	}
	if len(d.errs) > 0 {
		return
	}
	for _, p := range parts {
		pf, c, wb := got[key{p, Prefetch}], got[key{p, Compute}], got[key{p, Writeback}]
		if pf == nil || wb == nil {
			d.errf("schedule", "participant %s needs a prefetch and a writeback window (compute is optional)", p)
			continue
		}
		seq := []*Window{pf}
		if c != nil {
			seq = append(seq, c)
		}
		seq = append(seq, wb)
		for j := 1; j < len(seq); j++ {
			if seq[j].OffsetNS < seq[j-1].OffsetNS+seq[j-1].LengthNS {
				d.errs.Addf(seq[j].Pos, "window of %s %s [%d, %d) starts before its %s window [%d, %d) ends: a participant's windows must be in the order prefetch < compute < writeback within the hyperperiod (C3)",
					p, seq[j].Phase, seq[j].OffsetNS, seq[j].OffsetNS+seq[j].LengthNS, seq[j-1].Phase, seq[j-1].OffsetNS, seq[j-1].OffsetNS+seq[j-1].LengthNS)
			}
		}
	}
	// Memory windows of the table must not overlap (ARINC 653's
	// "overlapping partition timeframes").
	var mem []*Window
	for _, w := range s.Windows {
		if w.Phase.Memory() {
			mem = append(mem, w)
		}
	}
	sort.SliceStable(mem, func(i, j int) bool { return mem[i].OffsetNS < mem[j].OffsetNS })
	for j := 1; j < len(mem); j++ {
		// The window ending last among the earlier ones.
		a, b := mem[j-1], mem[j]
		for k := j - 1; k >= 0; k-- {
			if mem[k].OffsetNS+mem[k].LengthNS > a.OffsetNS+a.LengthNS {
				a = mem[k]
			}
		}
		if b.OffsetNS < a.OffsetNS+a.LengthNS && a.Participant != b.Participant {
			d.errs.Addf(b.Pos, "window of %s %s [%d, %d) overlaps the window of %s %s [%d, %d) (line %d): memory windows of a table must not overlap",
				b.Participant, b.Phase, b.OffsetNS, b.OffsetNS+b.LengthNS, a.Participant, a.Phase, a.OffsetNS, a.OffsetNS+a.LengthNS, a.Pos.Line)
		}
	}
}

// spans rejects schedules whose last instant would not fit the engine's
// 64-bit arithmetic: WU + tiles x T_hyper + offsets (overflowing times).
func (d *decoder) spans(n int) {
	s := d.s
	var T int64
	switch s.Mode {
	case WholeTile:
		T, _ = mulAdd(0, int64(n), s.PFOffsetNS)
	case PhaseMode:
		T, _ = s.derivedPhase(n)
	case Table:
		T = s.HyperperiodNS
	}
	var tiles int64
	for _, k := range s.Kernels {
		for _, t := range k.Tiles {
			tiles = max(tiles, t)
		}
	}
	span, ok := mulAdd(s.WarmupNS, tiles+2, T)
	if ok {
		span, ok = mulAdd(span, 64, MaxTimeNS) // room for offsets, bounds and jitter
	}
	if !ok || span > maxSpanNS || T < 0 {
		d.errf("schedule", "the schedule spans more than 2^62 ns (%d tiles of a %d ns hyperperiod): times overflow", tiles, T)
	}
}

// derivedPhase returns T_hyper and T_WB_off of phase mode for n
// participants (-1 when they overflow).
func (s *Schedule) derivedPhase(n int) (hyper, wbBase int64) {
	wb, ok1 := mulAdd(s.BudgetPFNS+s.BudgetCNS, int64(n-1), s.PFOffsetNS)
	h, ok2 := mulAdd(wb+s.BudgetWBNS, int64(n-1), s.WBOffsetNS)
	if !ok1 || !ok2 || wb > MaxTimeNS*4 || h > MaxTimeNS*4 {
		return -1, -1
	}
	return h, wb
}

// mulAdd returns a + m·b and whether it fits in int64 (m, b >= 0).
func mulAdd(a, m, b int64) (int64, bool) {
	if m < 0 || b < 0 {
		return 0, false
	}
	if m != 0 && b > (math.MaxInt64-max(a, 0))/m {
		return 0, false
	}
	return a + m*b, true
}
