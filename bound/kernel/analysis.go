package kernel

import (
	"fmt"
	"go/token"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/hwdesc/arch"
	"github.com/gpuwcet/gpuwcet/hwdesc/platform"
)

// Input is what the kernel-level analysis of one kernel needs.
type Input struct {
	File   *isa.File // the listing (module-scope shared memory)
	Func   *isa.Func // the kernel
	Static *static.Report
	Block  [3]int // threads per block
	Grid   [3]int // blocks per grid

	Arch     *arch.Arch
	Platform *platform.Platform // nil: none (then SMs and ClockMHz must be given)
	SMs      int                // SMs the kernel may use (≤ the platform's); 0: the platform's
	ClockMHz float64            // SM clock for ns (the platform's when it has one)

	// Regs overrides the registers per thread (--regs); 0: from the
	// listing. DynamicSmem is the launch's dynamic shared memory
	// (--dynamic-smem); DynamicSmemSet says it was given.
	Regs           int
	DynamicSmem    int64
	DynamicSmemSet bool
	// DynamicHint names what gives the dynamic shared memory in the
	// error when it is needed ("" : --dynamic-smem BYTES).
	DynamicHint string

	// Persistent, when set, says the kernel is persistent (facts name its
	// item loop): only a per-item bound is given (docs/facts.md,
	// "Persistent kernels").
	Persistent *PersistentInput
}

// PersistentInput names a persistent kernel's item loops and handshake
// loops (positions, for the report).
type PersistentInput struct {
	Loops, Handshakes []string
}

// PersistentScope says what the per-item bound covers.
const PersistentScope = "one work item: from the host's release of the item (every result of the previous item ready, its completion written last) to every warp's arrival at its next handshake, the handshake loops counted 2 header executions (the poll that may miss the release and the one that sees it); every block of the grid resident, at most min(occupancy hi, blocks) on one SM; the kernel itself runs until the host stops it and has no bound"

// Result is the kernel-level bound of one kernel.
type Result struct {
	JSON JSON
}

// Error is a bad input of the kernel-level analysis (exit 1): launch
// beyond the architecture, registers or shared memory that cannot fit,
// conflicting register counts, dynamic shared memory not given.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Analyze computes the kernel-level bound: occupancy, the block figures,
// bound(k) and the lower bound for k = 1 … SMs, the overheads and the
// assumptions.
func Analyze(in Input) (*Result, error) {
	a := in.Arch
	if a == nil {
		return nil, errorf("no architecture: give --platform or --arch")
	}
	if err := a.CheckLaunch(in.Block, in.Grid); err != nil {
		return nil, errorf("%s: launch: %v", in.Func.Name, err)
	}
	blocks := int64(1)
	for _, d := range in.Grid {
		if d < 1 {
			return nil, errorf("%s: grid %v: give every grid dimension (--grid X, XxY or XxYxZ)", in.Func.Name, in.Grid)
		}
		blocks *= int64(d)
	}
	sms := in.SMs
	if in.Platform != nil {
		if sms == 0 {
			sms = in.Platform.SMs
		} else if sms > in.Platform.SMs {
			return nil, errorf("--sms %d: platform %s has %d SMs", sms, in.Platform.Name, in.Platform.SMs)
		}
	}
	if sms < 1 {
		return nil, errorf("no SM count: give --platform or --sms")
	}
	rep := in.Static
	if rep.Totals == nil {
		return nil, errorf("%s: the block's totals for the kernel-level bound could not be computed: %v", in.Func.Name, rep.TotalsErr)
	}
	kin, notes, err := OccupancyInput(in)
	if err != nil {
		return nil, err
	}
	occ, err := a.Occupancy(kin)
	if err != nil {
		return nil, errorf("%s: %v", in.Func.Name, err)
	}
	t := rep.Totals
	blk := Block{Bound: rep.Bound, Load: t.Load, Lower: t.Lower, Work: max(t.LowerIssued, t.LowerInit)}
	g := Grid{Blocks: blocks, OccLo: occ.Lo, OccHi: occ.Hi}
	j := JSON{Status: StatusBounded, Grid: in.Grid, Block: in.Block, Blocks: blocks, Arch: a.Name, SMs: sms, ClockMHz: in.ClockMHz,
		BlockBound: int64(blk.Bound), BlockLoad: int64(blk.Load), BlockLower: int64(blk.Lower), BlockWork: int64(blk.Work),
		LoopMinimum: t.LoopMinimum}
	j.Occupancy = OccupancyJSON{Lo: occ.Lo, Hi: occ.Hi, WarpsPerBlock: occ.Warps, Limiter: occ.Limiter,
		LimitsLo: limitsJSON(occ.LoLimits), LimitsHi: limitsJSON(occ.HiLimits),
		Regs: kin.Regs.String(), StaticSmem: kin.StaticSmem.String(), DynamicSmem: kin.DynamicSmem, Sources: notes,
		Assumed: useTexts(occ.Assumed), ArchSources: arch.Sources()}
	if in.Platform != nil {
		p := in.Platform
		j.Platform = &PlatformJSON{Name: p.Name, SMs: p.SMs, ClockMHz: p.ClockMHz, Source: p.Source}
		if lo := p.LaunchOverhead; lo != nil {
			j.Launch = &OverheadJSON{MaxNS: lo.MaxNS, MinNS: lo.MinNS, JitterNS: lo.JitterNS, Kind: lo.Kind, Source: lo.Source}
		}
		if d := p.DispatchLatency; d != nil {
			g.Dispatch = hwdesc.Cycles(d.MaxCycles)
			j.Dispatch = &DispatchJSON{MaxCycles: d.MaxCycles, Kind: d.Kind, Source: d.Source}
		}
		if h := p.Handshake; h != nil {
			j.Handshake = &OverheadJSON{MaxNS: h.MaxNS, MinNS: h.MinNS, JitterNS: h.JitterNS, Kind: h.Kind, Source: h.Source}
		}
	}
	for m := 1; m <= occ.Hi; m++ {
		c, err := CoResident(blk, m)
		if err != nil {
			return nil, errorf("%s: %v", in.Func.Name, err)
		}
		j.CoResident = append(j.CoResident, CoResidentJSON{Blocks: m, BoundCycles: int64(c)})
	}
	if pin := in.Persistent; pin != nil {
		// Every block must be resident: a block waiting for a slot
		// would never get one.
		if blocks > int64(sms)*int64(occ.Lo) {
			return nil, errorf("%s: a persistent kernel's blocks must all be resident: %d blocks, but %d SMs guarantee %d (occupancy %d per SM)", in.Func.Name, blocks, sms, int64(sms)*int64(occ.Lo), occ.Lo)
		}
		item, err := CoResident(blk, int(min(int64(occ.Hi), blocks)))
		if err != nil {
			return nil, errorf("%s: %v", in.Func.Name, err)
		}
		j.Status = StatusPersistent
		j.Bounds = []PointJSON{}
		j.Persistent = &PersistentJSON{Loop: strings.Join(pin.Loops, ", "), Handshakes: pin.Handshakes, ItemCycles: int64(item), Scope: PersistentScope}
		if in.ClockMHz > 0 {
			j.Persistent.ItemNS = CeilNS(item, in.ClockMHz)
		}
		if j.Handshake != nil {
			j.Persistent.HandshakeNS, j.Persistent.HandshakeKind = j.Handshake.MaxNS, j.Handshake.Kind
		}
		j.Uses, j.Exclusions = assumptions(in, occ, j)
		j.Assumptions = useTexts(j.Uses)
		j.Exclusions = append(j.Exclusions, "the whole kernel: a persistent kernel runs until the host stops it")
		return &Result{JSON: j}, nil
	}
	pts, err := Curve(blk, g, sms)
	if err != nil {
		return nil, errorf("%s: %v", in.Func.Name, err)
	}
	for _, p := range pts {
		pj := PointJSON{SMs: p.SMs, UpperCycles: int64(p.Upper), LowerCycles: int64(p.Lower), Waves: p.Waves, PerSM: p.PerSM,
			Slots: p.Slots, SingleWave: p.SingleWave, DispatchCoeff: p.DispatchCoeff, LowerBy: p.LowerBy,
			HeadCycles: int64(p.Head), TailCycles: int64(p.Tail)}
		if in.ClockMHz > 0 {
			pj.UpperNS = CeilNS(p.Upper, in.ClockMHz)
			pj.LowerNS = FloorNS(p.Lower, in.ClockMHz)
			if j.Launch != nil {
				pj.TotalUpperNS = pj.UpperNS + j.Launch.MaxNS
				pj.TotalLowerNS = pj.LowerNS + j.Launch.MinNS
			}
		}
		j.Bounds = append(j.Bounds, pj)
	}
	j.Uses, j.Exclusions = assumptions(in, occ, j)
	j.Assumptions = useTexts(j.Uses)
	j.Conditional = (j.Launch != nil && j.Launch.Kind != platform.KindBound) || (j.Dispatch != nil && j.Dispatch.Kind != platform.KindBound)
	return &Result{JSON: j}, nil
}

func limitsJSON(l arch.Limits) LimitsJSON {
	f := func(x int) int {
		if x == arch.Unlimited {
			return -1
		}
		return x
	}
	return LimitsJSON{Warps: f(l.Warps), Blocks: f(l.Blocks), Regs: f(l.Regs), Smem: f(l.Smem), Barriers: f(l.Barriers)}
}

// CeilNS converts cycles to nanoseconds at mhz, rounded up.
func CeilNS(c hwdesc.Cycles, mhz float64) int64 {
	if mhz == math.Trunc(mhz) && c < math.MaxInt64/1000 {
		m := int64(mhz)
		return (int64(c)*1000 + m - 1) / m
	}
	return int64(math.Ceil(float64(c) * 1000 / mhz))
}

// FloorNS converts cycles to nanoseconds at mhz, rounded down.
func FloorNS(c hwdesc.Cycles, mhz float64) int64 {
	if mhz == math.Trunc(mhz) && c < math.MaxInt64/1000 {
		return int64(c) * 1000 / int64(mhz)
	}
	return int64(math.Floor(float64(c) * 1000 / mhz))
}

func (in Input) dynamicHint() string {
	if in.DynamicHint != "" {
		return in.DynamicHint
	}
	return "--dynamic-smem BYTES (the launch's third parameter)"
}

// OccupancyInput derives the occupancy inputs of the kernel from the
// listing and the flags (in.File, Func, Arch, Block, Regs, DynamicSmem,
// DynamicSmemSet, DynamicHint), and says where each comes from.
func OccupancyInput(in Input) (arch.Kernel, []string, error) {
	fn, a := in.Func, in.Arch
	k := arch.Kernel{Block: in.Block}
	var notes []string
	// Registers per thread.
	switch {
	case in.Regs > 0 && fn.Res.Regs > 0 && in.Regs != fn.Res.Regs:
		return k, nil, errorf("%s: --regs %d, but the listing states %d registers per thread (%s): analyse the binary that runs", fn.Name, in.Regs, fn.Res.Regs, fn.Res.RegsFrom)
	case in.Regs > 0:
		k.Regs = arch.Exact(int64(in.Regs))
		notes = append(notes, fmt.Sprintf("registers per thread: %d (--regs)", in.Regs))
	case fn.Res.Regs > 0:
		k.Regs = arch.Exact(int64(fn.Res.Regs))
		notes = append(notes, fmt.Sprintf("registers per thread: %d (the listing: %s)", fn.Res.Regs, fn.Res.RegsFrom))
	case fn.MaxNReg > 0:
		k.Regs = arch.Range{Lo: 0, Hi: int64(min(fn.MaxNReg, a.MaxRegsPerThread))}
		notes = append(notes, fmt.Sprintf("registers per thread: not stated; at most %d (.maxnreg): guaranteed occupancy at %d, largest at 0 (give --regs N, from ptxas -v or cuobjdump -res-usage)", fn.MaxNReg, k.Regs.Hi))
	default:
		k.Regs = arch.Range{Lo: 0, Hi: int64(a.MaxRegsPerThread)}
		notes = append(notes, fmt.Sprintf("registers per thread: not stated by the listing: guaranteed occupancy at %d (the most a thread can have), largest at 0 (give --regs N, from ptxas -v or cuobjdump -res-usage)", a.MaxRegsPerThread))
	}
	// Static shared memory.
	usesExtern := []isa.SharedVar{}
	switch {
	case fn.Res.SharedStated:
		k.StaticSmem = arch.Exact(fn.Res.SharedBytes)
		notes = append(notes, fmt.Sprintf("static shared memory: %d bytes (stated by the listing)", fn.Res.SharedBytes))
	case in.File.Dialect == isa.DialectPTX:
		var lo, hi, pad, maxAlign int64
		unknown, aligned := false, true
		var vars []isa.SharedVar
		add := func(v isa.SharedVar, certain bool) {
			if v.Extern {
				if referenced(fn, v.Name) {
					usesExtern = append(usesExtern, v)
				}
				return
			}
			if v.Bytes < 0 {
				unknown = true
				return
			}
			if certain {
				lo += v.Bytes
			}
			hi += v.Bytes
			pad += max(v.Align, 1) - 1
			maxAlign = max(maxAlign, v.Align)
			vars = append(vars, v)
		}
		for _, v := range fn.Res.Shared {
			add(v, true)
		}
		for _, v := range in.File.Shared {
			add(v, referenced(fn, v.Name))
		}
		// Variables laid out in any order need no padding when every size
		// is a multiple of the largest alignment; otherwise each may be
		// preceded by at most its alignment − 1 bytes.
		for _, v := range vars {
			aligned = aligned && (maxAlign <= 1 || v.Bytes%maxAlign == 0)
		}
		if !aligned {
			hi += pad
		}
		if unknown {
			hi = a.SmemPerBlockOptin
		}
		k.StaticSmem = arch.Range{Lo: lo, Hi: max(hi, lo)}
		notes = append(notes, fmt.Sprintf("static shared memory: %s bytes (the PTX .shared declarations; the upper end adds the module-scope variables the kernel does not name, which a device function may use, and alignment padding when a size is not a multiple of the largest alignment)", k.StaticSmem))
	default:
		k.StaticSmem = arch.Range{Lo: 0, Hi: a.SmemPerBlockOptin}
		notes = append(notes, "static shared memory: not stated by the listing (cuobjdump -res-usage gives SHARED:N): guaranteed occupancy at the per-block maximum, largest at 0")
	}
	// Dynamic shared memory.
	switch {
	case in.DynamicSmemSet:
		k.DynamicSmem = in.DynamicSmem
		notes = append(notes, fmt.Sprintf("dynamic shared memory: %d bytes (--dynamic-smem)", in.DynamicSmem))
	case len(usesExtern) > 0:
		v := usesExtern[0]
		return k, nil, errorf("%s: the kernel uses dynamic shared memory (.extern .shared %s at %s): give its size with %s", fn.Name, v.Name, positionOf(in.File, v.Pos), in.dynamicHint())
	case in.File.Dialect == isa.DialectPTX:
		notes = append(notes, "dynamic shared memory: none (the kernel names no .extern .shared array)")
	default:
		notes = append(notes, "dynamic shared memory: none assumed (a SASS listing does not say; give --dynamic-smem BYTES when the launch passes some)")
	}
	// Named barriers (sm_90's limit).
	k.Barriers = barriers(fn)
	return k, notes, nil
}

func positionOf(f *isa.File, p token.Pos) string {
	if f == nil || f.Fset == nil || !p.IsValid() {
		return "?"
	}
	return f.Fset.Position(p).String()
}

// referenced reports whether an instruction of fn names sym as an operand
// or inside an address.
func referenced(fn *isa.Func, sym string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_$.])` + regexp.QuoteMeta(sym) + `($|[^A-Za-z0-9_$])`)
	for _, in := range fn.Instrs {
		if strings.Contains(in.Text, sym) && re.MatchString(in.Text) {
			return true
		}
	}
	return false
}

// barriers returns the named block barriers a block uses: max id + 1 of
// the bar.sync/bar.red ids that are immediates (0..15), up to 16 when an
// id is not an immediate.
func barriers(fn *isa.Func) arch.Range {
	var r arch.Range
	unknown := false
	for _, in := range fn.Instrs {
		if in.Kind != isa.KindBarrier || in.Barrier == isa.BarWarpSync || in.Barrier == isa.BarNone {
			continue
		}
		r.Lo = max(r.Lo, 1)
		if len(in.Srcs) == 0 {
			continue
		}
		o := in.Srcs[0]
		n, err := strconv.ParseInt(o.Text, 0, 64)
		if o.Kind != isa.OpImm || err != nil || n < 0 || n > 15 {
			unknown = true
			continue
		}
		r.Lo = max(r.Lo, n+1)
	}
	r.Hi = r.Lo
	if unknown {
		r.Hi = 16
	}
	return r
}
