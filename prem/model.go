package prem

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/gpuwcet/gpuwcet/hwdesc/arch"
)

// Bound is the bound of one phase of one tile of a participant, in ns.
type Bound struct {
	WCET, BCET int64
	// Assumed is set for a bound given in the schedule ([[bound]]); an
	// analysis bound is proven.
	Assumed bool
	// Participant is set when the bound covers all blocks of a
	// participant running concurrently (N2); an analysis bound covers one
	// block in isolation.
	Participant bool
	Cycles      int64  // the analysis's bound in cycles, 0 for an assumed one
	From        string // where it comes from: "kernel.ptx:86 -> kernel.ptx:127 (static analysis)" or "schedule.toml:40"
	Pos         token.Position
}

// KernelBounds are the bounds of a kernel's phases: Steady for the
// synchronised tiles, Warmup for the warm-up tiles (nil when not given).
type KernelBounds struct {
	Steady [numPhases]*Bound
	Warmup [numPhases]*Bound
	// Resources are what the kernel's listing says of its registers and
	// shared memory per block (C1), when the listing was analysed on the
	// schedule's platform.arch; nil otherwise.
	Resources *Resources
}

// Resources are a kernel's registers per thread and shared memory per
// block as its listing gives them (bound/kernel.OccupancyInput): ranges
// when the listing does not state them; the static shared memory from the
// PTX .shared declarations, the dynamic one from dynamic_shared_bytes.
type Resources struct {
	Regs        arch.Range
	StaticSmem  arch.Range
	DynamicSmem int64
	Notes       []string // where each comes from
}

// Model is a schedule expanded into its window table: every mode becomes
// participants whose tiles have three phases, each with an optional
// trigger and an optional slot, repeating every period. The engine
// (engine.go) checks a Model; it knows nothing of modes.
type Model struct {
	Mode   Mode
	WU     int64 // the first synchronised tile's period starts at WU
	K      int   // warm-up tiles
	T      int64 // the period (T_hyper)
	WBBase int64 // T_WB_off (phase mode), -1 otherwise
	// Deadline of the makespan, -1 when none.
	Deadline int64
	Parts    []*Part
}

// Part is a participant of a Model.
type Part struct {
	ID    string
	Tiles int64 // T_i, warm-up tiles included
	Ph    [numPhases]PhaseSlot
	// WarmupL and WarmupE bound the end of the warm-up tiles (latest and
	// earliest, from the start); HasWarmup says whether warm-up bounds
	// were given (otherwise the warm-up is assumed to end by WU: C7).
	WarmupL, WarmupE int64
	HasWarmup        bool
	TileBytes        int64
	Kernel           *Kernel // nil in tests
	Blocks           int     // blocks of the participant running concurrently
}

// PhaseSlot is one phase of a participant's tile in the window table.
// Offsets are relative to the start of the tile's period.
type PhaseSlot struct {
	Trig int64 // trigger offset; -1: not triggered (starts when its predecessor ends)
	J    int64 // release jitter of the trigger (J, or J + r for an off-grid trigger: C9)
	// Slot is the offset by which the phase must end (C4), -1 for none;
	// SlotStart is where the slot begins (for reports) and SlotWarn says
	// a miss is only a warning (phase mode's prefetch slot alone).
	Slot, SlotStart int64
	SlotWarn        bool
	SlotName        string // "tile", "prefetch", "prefetch+compute", "writeback", ...
	WCET, BCET      int64
	Bound           *Bound
}

// negInf stands for "no predecessor": far below every time, and far
// enough above math.MinInt64 that adding a bound cannot overflow.
const negInf = -(int64(1) << 62)

// BuildModel expands a schedule into its window table with the given
// bounds per kernel (bounds[k] for s.Kernels[k]). Every phase must have a
// steady bound (C2 reports a missing one: the model is not built).
func BuildModel(s *Schedule, bounds []KernelBounds) (*Model, error) {
	ids := s.participantIDs()
	n := len(ids)
	m := &Model{Mode: s.Mode, WU: s.WarmupNS, K: s.WarmupTiles, WBBase: -1, Deadline: s.DeadlineNS}
	switch s.Mode {
	case WholeTile:
		m.T = int64(n) * s.PFOffsetNS
	case PhaseMode:
		m.T, m.WBBase = s.derivedPhase(n)
	case Table:
		m.T = s.HyperperiodNS
	}
	// Participants in release order.
	type src struct {
		k     *Kernel
		ki    int
		block int // -1: the whole instance
	}
	byID := map[string]src{}
	for ki, k := range s.Kernels {
		for inst := 0; inst < k.Instances; inst++ {
			if s.Granularity == BlockWise {
				for b := 0; b < k.Blocks; b++ {
					byID[fmt.Sprintf("%s.%d/b%d", k.ID, inst, b)] = src{k, ki, b}
				}
			} else {
				byID[fmt.Sprintf("%s.%d", k.ID, inst)] = src{k, ki, -1}
			}
		}
	}
	order := ids
	if s.Order != nil {
		order = s.Order
	}
	table := map[string]map[Phase]*Window{}
	for _, w := range s.Windows {
		if table[w.Participant] == nil {
			table[w.Participant] = map[Phase]*Window{}
		}
		table[w.Participant][w.Phase] = w
	}
	J, r := s.Platform.JitterNS, s.Platform.ResolutionNS
	jitter := func(offset int64) int64 {
		// A trigger off the timer's grid is released up to r late (C9).
		if r > 0 && ((s.WarmupNS+offset)%r != 0 || m.T%r != 0) {
			return J + r
		}
		return J
	}
	for i, id := range order {
		sr := byID[id]
		k := sr.k
		p := &Part{ID: id, Kernel: k, TileBytes: k.TileBytes, Blocks: k.Blocks}
		if sr.block >= 0 {
			p.Tiles = k.TilesOf(sr.block)
			p.Blocks = 1
		} else {
			for b := 0; b < k.Blocks; b++ {
				p.Tiles = max(p.Tiles, k.TilesOf(b))
			}
		}
		kb := bounds[sr.ki]
		for ph := Phase(0); ph < numPhases; ph++ {
			b := kb.Steady[ph]
			if b == nil {
				return nil, fmt.Errorf("prem: %s: no bound for %s", id, ph)
			}
			p.Ph[ph] = PhaseSlot{Trig: -1, Slot: -1, SlotStart: -1, WCET: b.WCET, BCET: b.BCET, Bound: b}
		}
		if kb.Warmup[Prefetch] != nil || kb.Warmup[Compute] != nil || kb.Warmup[Writeback] != nil {
			p.HasWarmup = true
			var l, e int64
			for ph := Phase(0); ph < numPhases; ph++ {
				if b := kb.Warmup[ph]; b != nil {
					l += b.WCET
					e += b.BCET
				} else {
					// A missing warm-up phase takes the steady bound.
					l += kb.Steady[ph].WCET
					e += kb.Steady[ph].BCET
				}
			}
			wl, ok := mulAdd(J, int64(s.WarmupTiles), l)
			we, ok2 := mulAdd(0, int64(s.WarmupTiles), e)
			if !ok || !ok2 {
				return nil, fmt.Errorf("prem: %s: warm-up bounds overflow", id)
			}
			p.WarmupL, p.WarmupE = wl, we
		}
		ii := int64(i)
		switch s.Mode {
		case WholeTile:
			off := ii * s.PFOffsetNS
			p.Ph[Prefetch].Trig, p.Ph[Prefetch].J = off, jitter(off)
			p.Ph[Writeback].Slot, p.Ph[Writeback].SlotStart, p.Ph[Writeback].SlotName = off+m.T, off, "tile"
		case PhaseMode:
			off := ii * s.PFOffsetNS
			p.Ph[Prefetch].Trig, p.Ph[Prefetch].J = off, jitter(off)
			p.Ph[Prefetch].Slot, p.Ph[Prefetch].SlotStart, p.Ph[Prefetch].SlotWarn, p.Ph[Prefetch].SlotName = off+s.BudgetPFNS, off, true, "prefetch"
			p.Ph[Compute].Slot, p.Ph[Compute].SlotStart, p.Ph[Compute].SlotName = off+s.BudgetPFNS+s.BudgetCNS, off, "prefetch+compute"
			wb := m.WBBase + ii*s.WBOffsetNS
			p.Ph[Writeback].Trig, p.Ph[Writeback].J = wb, jitter(wb)
			p.Ph[Writeback].Slot, p.Ph[Writeback].SlotStart, p.Ph[Writeback].SlotName = wb+s.BudgetWBNS, wb, "writeback"
		case Table:
			for ph, w := range table[id] {
				ps := &p.Ph[ph]
				if ph.Memory() {
					ps.Trig, ps.J = w.OffsetNS, jitter(w.OffsetNS)
				}
				ps.Slot, ps.SlotStart, ps.SlotName = w.OffsetNS+w.LengthNS, w.OffsetNS, ph.String()
			}
		}
		// Every later instant fits: x_m <= x_0 + m·max(D, T) + A.
		d := p.dL()
		if _, ok := mulAdd(m.WU+p.WarmupL+int64(len(p.Ph))*MaxTimeNS*2, p.Tiles+2, max(d, m.T)); !ok {
			return nil, fmt.Errorf("prem: %s: %d tiles of up to %d ns overflow 64-bit nanoseconds", id, p.Tiles, max(d, m.T))
		}
		m.Parts = append(m.Parts, p)
	}
	return m, nil
}

// Phases in order of a tile.
var phaseOrder = [numPhases]Phase{Prefetch, Compute, Writeback}

// dL is D of the latest chain: the growth of a tile's end per unit of its
// predecessor's end when nothing waits for a trigger.
func (p *Part) dL() int64 {
	var d int64
	for _, ph := range phaseOrder {
		s := &p.Ph[ph]
		d += s.WCET
		if s.Trig >= 0 {
			d += s.J
		}
	}
	return d
}

func (p *Part) dE() int64 {
	var d int64
	for _, ph := range phaseOrder {
		d += p.Ph[ph].BCET
	}
	return d
}

func (m *Model) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %s WU=%d K=%d T=%d WBBase=%d deadline=%d\n", m.Mode, m.WU, m.K, m.T, m.WBBase, m.Deadline)
	for _, p := range m.Parts {
		fmt.Fprintf(&b, "  %s tiles=%d warmup=%v(%d,%d)", p.ID, p.Tiles, p.HasWarmup, p.WarmupL, p.WarmupE)
		for _, ph := range phaseOrder {
			s := p.Ph[ph]
			fmt.Fprintf(&b, " %s[trig=%d J=%d slot=%d W=%d B=%d]", ph.Short(), s.Trig, s.J, s.Slot, s.WCET, s.BCET)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
