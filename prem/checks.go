package prem

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/hwdesc/arch"
)

// Bounds returns the bounds of every kernel: the analysis's (analysis[k],
// may be nil or hold nil entries) overridden by the schedule's [[bound]]
// entries, which are assumed. A whole-tile bound (phase = "tile") stands
// for the prefetch, with compute and write-back 0.
func Bounds(s *Schedule, analysis []KernelBounds) []KernelBounds {
	out := make([]KernelBounds, len(s.Kernels))
	for i := range s.Kernels {
		if i < len(analysis) {
			out[i] = analysis[i]
		}
	}
	for _, mb := range s.Bounds {
		ki := -1
		for i, k := range s.Kernels {
			if k.ID == mb.Kernel {
				ki = i
			}
		}
		if ki < 0 {
			continue
		}
		b := &Bound{WCET: mb.WCETNS, BCET: mb.BCETNS, Assumed: true, Participant: mb.Participant,
			From: fmt.Sprintf("%s:%d", mb.Pos.Filename, mb.Pos.Line), Pos: mb.Pos}
		set := &out[ki].Steady
		if mb.Warmup {
			set = &out[ki].Warmup
		}
		if mb.Phase == "tile" {
			zero := &Bound{Assumed: true, Participant: mb.Participant, From: b.From + " (whole tile)", Pos: mb.Pos}
			set[Prefetch], set[Compute], set[Writeback] = b, zero, zero
			continue
		}
		ph, _ := parsePhase(mb.Phase)
		set[ph] = b
	}
	return out
}

// missingBounds lists the phases without a steady bound.
func missingBounds(s *Schedule, bounds []KernelBounds) []string {
	var out []string
	for i, k := range s.Kernels {
		for _, ph := range phaseOrder {
			if bounds[i].Steady[ph] == nil {
				why := "no [[bound]] and no code region"
				if k.Phases[ph] != nil {
					why = "its region was not bounded"
				}
				out = append(out, fmt.Sprintf("%s %s (%s)", k.ID, ph, why))
			}
		}
	}
	return out
}

// Evaluate checks a schedule with the given bounds per kernel (Bounds) and
// returns the result and the window table.
func Evaluate(s *Schedule, bounds []KernelBounds) (*Result, *Model, error) {
	res := &Result{Schedule: s.File, Name: s.Name, Mode: s.Mode.String(), Granularity: s.Granularity.String(),
		WarmupNS: s.WarmupNS, WarmupTiles: s.WarmupTiles, ClockHz: s.Platform.ClockHz,
		ResolutionNS: s.Platform.ResolutionNS, JitterNS: s.Platform.JitterNS,
		Checks: []Check{}, Participants: []Participant{}, Slack: []SlackRow{}, MemorySlack: []MemSlack{},
		Overlaps: Overlaps{Pairs: []OverlapPair{}}, Releases: []Release{}, Regions: []Region{}}
	if miss := missingBounds(s, bounds); len(miss) > 0 {
		// C2 fails: no model can be built. Report what can be said.
		res.N = len(s.participantIDs())
		res.Checks = append(res.Checks, Check{ID: "C2", Name: checkNames["C2"], Status: StatusFail,
			Reason: "no bound for " + sample(miss) + ": give the phase's code region ([kernel.phases]) or a [[bound]]"})
		res.Verdict = "fail"
		return res, nil, nil
	}
	m, err := BuildModel(s, bounds)
	if err != nil {
		return nil, nil, err
	}
	c := &checker{s: s, m: m, res: res, bounds: bounds}
	c.run()
	return res, m, nil
}

// MaxListedPairs caps the overlapping participant pairs a result lists.
const MaxListedPairs = 1000

var checkNames = map[string]string{
	"C1": "co-residency", "C2": "bound provenance", "C3": "period consistency", "C4": "slot fit",
	"C5": "memory exclusion", "C6": "compute before the write-back trigger", "C7": "warm-up",
	"C8": "makespan", "C9": "timer quantisation", "C10": "utilisation", "C11": "sensitivity", "C12": "bandwidth",
}

type checker struct {
	s      *Schedule
	m      *Model
	res    *Result
	cs     []*chain
	sw     *sweepResult
	bounds []KernelBounds // the analysis's, with the listings' resources (C1)
}

func (c *checker) add(id, status, reason string, ce *Counterexample) *Check {
	c.res.Checks = append(c.res.Checks, Check{ID: id, Name: checkNames[id], Status: status, Reason: reason, Counterexample: ce})
	return &c.res.Checks[len(c.res.Checks)-1]
}

func (c *checker) run() {
	m, res := c.m, c.res
	res.N = len(m.Parts)
	res.HyperperiodNS = m.T
	if m.WBBase >= 0 {
		wb := m.WBBase
		res.WBBaseOffsetNS = &wb
	}
	for _, p := range m.Parts {
		c.cs = append(c.cs, newChain(m, p))
	}
	c.sw = sweep(m, c.cs)
	c.participants()
	c.c1()
	c.c2()
	c.c3()
	c4 := c.c4()
	c5 := c.c5()
	c.c6()
	c.c7()
	c8 := c.c8()
	c.c9()
	c.c10()
	c.c11()
	c.c12()
	if c5.Status == StatusFail {
		// The phase bounds are bounds in isolation: under overlapping
		// memory phases they are not valid (prem-schedules.md §5).
		for _, ch := range []*Check{&res.Checks[c4], &res.Checks[c8]} {
			holds := ch.Status != StatusFail
			ch.FormulaHolds = &holds
			ch.Unsound = true
			if holds {
				ch.Status = StatusWarn
			}
			ch.Reason += "; unsound: the bounds assume isolation and C5 fails"
		}
		res.Makespan.Unsound = true
	}
	sort.SliceStable(res.Checks, func(i, j int) bool { return checkNum(res.Checks[i].ID) < checkNum(res.Checks[j].ID) })
	res.Verdict = "pass"
	for _, ch := range res.Checks {
		if ch.Status == StatusFail {
			res.Verdict = "fail"
		}
	}
}

func checkNum(id string) int {
	n := 0
	fmt.Sscanf(id, "C%d", &n)
	return n
}

// absTile converts a synchronised tile index m to the absolute index n.
func (c *checker) absTile(m int64) int64 { return m + int64(c.m.K) }

func (c *checker) ref(i int, m int64, ph Phase, s, e int64) *WindowRef {
	return &WindowRef{Participant: c.m.Parts[i].ID, Tile: c.absTile(m), Phase: ph.String(), StartNS: s, EndNS: e}
}

func provenance(b *Bound) string {
	if b.Assumed {
		return "assumed"
	}
	return "proven"
}

func scope(b *Bound) string {
	if b.Participant {
		return "participant"
	}
	return "block"
}

func (c *checker) participants() {
	for i, p := range c.m.Parts {
		ch := c.cs[i]
		row := Participant{ID: p.ID, Blocks: p.Blocks, Tiles: p.Tiles, EndNS: ch.end(), Periodic: ch.per, Drift: ch.per < 0, TileBytes: p.TileBytes}
		if p.Kernel != nil {
			row.Kernel = p.Kernel.ID
		}
		for _, ph := range phaseOrder {
			ps := p.Ph[ph]
			b := ps.Bound
			pb := PhaseBound{Phase: ph.String(), WCETNS: ps.WCET, BCETNS: ps.BCET, Cycles: b.Cycles, Provenance: provenance(b), Scope: scope(b), From: b.From}
			row.Bounds = append(row.Bounds, pb)
			row.Triggers = append(row.Triggers, ps.Trig)
			j := int64(0)
			if ps.Trig >= 0 {
				j = ps.J
			}
			row.Jitter = append(row.Jitter, j)
		}
		c.res.Participants = append(c.res.Participants, row)
	}
}

// C1: co-residency of every block: each kernel's occupancy on the
// platform's architecture (hwdesc/arch, as the CUDA occupancy calculator);
// kernels of different kinds are given SMs of their own for the sufficient
// condition, and share them fractionally for the necessary one.
func (c *checker) c1() {
	s := c.s
	if s.Platform.SMs == 0 {
		c.add("C1", StatusWarn, "not checked: platform.sms is not given (every block of every participant must be resident at once: a spinning block holds its SM)", nil)
		return
	}
	a, err := arch.Lookup(s.Platform.Arch)
	if err != nil {
		c.add("C1", StatusWarn, fmt.Sprintf("not checked: platform.arch: %v", err), nil)
		return
	}
	var sure int64   // SMs that surely hold every block: sum of ceil(blocks / Lo)
	var need float64 // SMs the blocks need at least: sum of blocks / Hi
	var parts, unknown, mismatch []string
	for ki, k := range s.Kernels {
		var res *Resources
		if ki < len(c.bounds) {
			res = c.bounds[ki].Resources
		}
		kk := arch.Kernel{Block: k.Block, Regs: arch.Range{Lo: 1, Hi: int64(a.MaxRegsPerThread)}, StaticSmem: arch.Range{Lo: 0, Hi: a.SmemPerBlock}}
		regsFrom, smemFrom := "", ""
		switch {
		case k.Registers > 0:
			kk.Regs = arch.Exact(k.Registers)
			regsFrom = "registers_per_thread, assumed"
			if res != nil && res.Regs.Lo == res.Regs.Hi && res.Regs.Lo != k.Registers {
				mismatch = append(mismatch, fmt.Sprintf("%s: registers_per_thread %d, the listing states %d", k.ID, k.Registers, res.Regs.Lo))
			}
		case res != nil:
			kk.Regs = res.Regs
			regsFrom = "listing"
		}
		if kk.Regs.Lo != kk.Regs.Hi {
			unknown = append(unknown, k.ID+" registers_per_thread")
		}
		switch {
		case k.SharedBytes >= 0:
			kk.StaticSmem = arch.Exact(k.SharedBytes)
			smemFrom = "shared_bytes, assumed"
			if res != nil && k.SharedBytes < res.StaticSmem.Lo+res.DynamicSmem {
				mismatch = append(mismatch, fmt.Sprintf("%s: shared_bytes %d, below the %d bytes of the listing's .shared declarations", k.ID, k.SharedBytes, res.StaticSmem.Lo+res.DynamicSmem))
			}
		case res != nil:
			kk.StaticSmem, kk.DynamicSmem = res.StaticSmem, res.DynamicSmem
			smemFrom = "listing"
			if k.DynamicShared > 0 {
				smemFrom = "listing + dynamic_shared_bytes"
			}
		}
		if kk.StaticSmem.Lo != kk.StaticSmem.Hi {
			unknown = append(unknown, k.ID+" shared memory")
		}
		if smemFrom != "" {
			smem := kk.StaticSmem
			smem.Lo += kk.DynamicSmem
			smem.Hi += kk.DynamicSmem
			smemFrom = fmt.Sprintf("; shared memory %s B (%s)", smem, smemFrom)
		}
		if regsFrom != "" {
			regsFrom = fmt.Sprintf("; %s registers (%s)", kk.Regs, regsFrom)
		}
		occ, err := a.Occupancy(kk)
		if err != nil {
			c.add("C1", StatusFail, fmt.Sprintf("kernel %s cannot run on %s: %v", k.ID, a.Name, err), &Counterexample{Text: err.Error()})
			return
		}
		blocks := int64(k.Instances) * int64(k.Blocks)
		if occ.Hi == 0 {
			c.add("C1", StatusFail, fmt.Sprintf("no block of kernel %s fits an SM of %s", k.ID, a.Name), &Counterexample{Text: "occupancy 0"})
			return
		}
		need += float64(blocks) / float64(occ.Hi)
		if occ.Lo == 0 {
			sure = math.MaxInt32
		} else {
			sure += (blocks + int64(occ.Lo) - 1) / int64(occ.Lo)
		}
		occText := fmt.Sprint(occ.Hi)
		if occ.Lo != occ.Hi {
			occText = fmt.Sprintf("%d to %d", occ.Lo, occ.Hi)
		}
		parts = append(parts, fmt.Sprintf("%s: %d blocks, %s per SM (limited by %s%s%s)", k.ID, blocks, occText, strings.Join(occ.Limiter, ", "), regsFrom, smemFrom))
	}
	sms := int64(s.Platform.SMs)
	use := fmt.Sprintf("%s on %d SMs of %s", strings.Join(parts, "; "), sms, a.Name)
	if len(mismatch) > 0 {
		use += "; the schedule's figures disagree with the listing: " + strings.Join(mismatch, "; ")
	}
	switch {
	case need > float64(sms)+1e-9:
		c.add("C1", StatusFail, "the blocks cannot all be resident: "+use, &Counterexample{Text: use})
	case sure > sms:
		why := "the kernels share SMs"
		if len(unknown) > 0 {
			why = "not known: " + sample(unknown)
		}
		c.add("C1", StatusWarn, fmt.Sprintf("may not fit (%s): %s", why, use), nil)
	case len(mismatch) > 0:
		c.add("C1", StatusWarn, "every block is resident at once with the schedule's figures: "+use, nil)
	default:
		c.add("C1", StatusPass, "every block is resident at once: "+use, nil)
	}
}

// C2: every phase has a bound; assumed bounds are listed; a block-scope
// bound of a participant of several blocks is unsound for its memory
// phases (N2).
func (c *checker) c2() {
	var assumed, scopeWarn []string
	seen := map[*Bound]bool{}
	for _, p := range c.m.Parts {
		for _, ph := range phaseOrder {
			b := p.Ph[ph].Bound
			if seen[b] {
				continue
			}
			seen[b] = true
			if b.Assumed && b.From != "" && !strings.HasSuffix(b.From, "(whole tile)") {
				assumed = append(assumed, fmt.Sprintf("%s %s %s ns (%s)", p.Kernel.ID, ph, group(b.WCET), b.From))
			}
			if p.Blocks > 1 && !b.Participant && ph.Memory() {
				what := "the [[bound]] has scope = \"block\""
				if !b.Assumed {
					what = "the analysis bounds one block in isolation"
				}
				scopeWarn = append(scopeWarn, fmt.Sprintf("%s %s (%s)", p.Kernel.ID, ph, what))
			}
		}
	}
	var parts []string
	status := StatusPass
	if len(scopeWarn) > 0 {
		status = StatusWarn
		parts = append(parts, fmt.Sprintf("participants of %d blocks run their memory phases concurrently, so a single-block bound does not cover them (N2): %s; give a [[bound]] with scope = \"participant\" or use granularity = \"block\"", c.m.Parts[0].Blocks, sample(scopeWarn)))
	}
	if len(assumed) > 0 {
		status = StatusWarn
		parts = append(parts, "assumed bounds (given in the schedule, not proven): "+strings.Join(assumed, "; "))
	}
	if status == StatusPass {
		parts = append(parts, "every phase bound is proven by the static analysis")
	}
	c.add("C2", status, strings.Join(parts, "; "), nil)
}

// C3: declared period values equal the derived ones.
func (c *checker) c3() {
	s, m := c.s, c.m
	var bad []string
	var ok []string
	if s.Mode != Table && s.HyperperiodNS >= 0 {
		if s.HyperperiodNS != m.T {
			bad = append(bad, fmt.Sprintf("hyperperiod_ns %s declared (line %d), derived T_hyper %s", group(s.HyperperiodNS), s.Pos("schedule.hyperperiod_ns").Line, group(m.T)))
		} else {
			ok = append(ok, "hyperperiod_ns = T_hyper")
		}
	}
	if s.Mode == PhaseMode && s.WBBaseOffsetNS >= 0 {
		if s.WBBaseOffsetNS != m.WBBase {
			bad = append(bad, fmt.Sprintf("wb_base_offset_ns %s declared (line %d), derived T_WB_off %s = (N-1)*PF_off + T_PF + T_C", group(s.WBBaseOffsetNS), s.Pos("schedule.wb_base_offset_ns").Line, group(m.WBBase)))
		} else {
			ok = append(ok, "wb_base_offset_ns = T_WB_off")
		}
	}
	switch {
	case len(bad) > 0:
		c.add("C3", StatusFail, strings.Join(bad, "; "), &Counterexample{Text: bad[0], Source: fmt.Sprintf("%s:%d", s.File, s.Pos("schedule.hyperperiod_ns").Line)})
	case s.Mode == Table:
		c.add("C3", StatusPass, fmt.Sprintf("%d windows inside [0, %s), each participant's in the order prefetch < compute < writeback, no memory windows overlapping", len(s.Windows), group(m.T)), nil)
	case len(ok) > 0:
		c.add("C3", StatusPass, strings.Join(ok, ", "), nil)
	default:
		c.add("C3", StatusPass, "nothing declared; derived "+derivedText(s, m), nil)
	}
}

func derivedText(s *Schedule, m *Model) string {
	if s.Mode == PhaseMode {
		return fmt.Sprintf("T_WB_off %s, T_hyper %s", group(m.WBBase), group(m.T))
	}
	return "T_hyper " + group(m.T)
}

// slotCheck is the worst tile of one participant's slot.
type slotCheck struct {
	part     int
	ph       Phase
	slack    int64
	tile     int64
	firstBad int64 // -1 when none
	badSpan  span
	badBase  int64
}

func (c *checker) slotChecks() []slotCheck {
	var out []slotCheck
	for i, p := range c.m.Parts {
		ch := c.cs[i]
		for _, ph := range phaseOrder {
			ps := p.Ph[ph]
			if ps.Slot < 0 || ch.M <= 0 {
				continue
			}
			slackAt := func(m int64) int64 {
				sp := ch.at(m)
				return c.m.WU + m*c.m.T + ps.Slot - sp[ph].eL
			}
			sc := slotCheck{part: i, ph: ph, slack: math.MaxInt64, firstBad: -1}
			for _, t := range ch.worstTiles() {
				if x := slackAt(t); x < sc.slack {
					sc.slack, sc.tile = x, t
				}
			}
			sc.firstBad = ch.firstWhere(func(m int64) bool { return slackAt(m) < 0 })
			if sc.firstBad >= 0 {
				sc.badSpan = ch.at(sc.firstBad)[ph]
				sc.badBase = c.m.WU + sc.firstBad*c.m.T
			}
			out = append(out, sc)
		}
	}
	return out
}

// slotBounds returns the bounds a slot holds: from the phase whose
// trigger opens the slot to ph.
func (c *checker) slotBounds(p *Part, ph Phase) (sum int64, prov string) {
	prov = "proven"
	start := ph
	for start > 0 && p.Ph[start].Trig < 0 {
		start--
	}
	for x := start; x <= ph; x++ {
		sum += p.Ph[x].WCET
		if p.Ph[x].Bound.Assumed {
			prov = "assumed"
		}
	}
	return sum, prov
}

// C4: every phase ends within its slot, on every tile.
func (c *checker) c4() int {
	m := c.m
	var fail, warn *slotCheck
	var minPass *slotCheck
	scs := c.slotChecks()
	for k := range scs {
		sc := &scs[k]
		p := m.Parts[sc.part]
		ps := p.Ph[sc.ph]
		sum, prov := c.slotBounds(p, sc.ph)
		start := sc.ph
		for start > 0 && p.Ph[start].Trig < 0 {
			start--
		}
		best := c.m.WU + sc.tile*c.m.T + ps.Slot - c.cs[sc.part].at(sc.tile)[sc.ph].eE
		c.res.Slack = append(c.res.Slack, SlackRow{Participant: p.ID, Slot: ps.SlotName, SlotNS: ps.Slot - ps.SlotStart, BoundNS: sum,
			Provenance: prov, JitterNS: p.Ph[start].J, MinSlackNS: sc.slack, AtTile: c.absTile(sc.tile), BestSlackNS: best, WarnOnly: ps.SlotWarn})
		switch {
		case sc.firstBad >= 0 && !ps.SlotWarn:
			if fail == nil {
				fail = sc
			}
		case sc.firstBad >= 0:
			if warn == nil {
				warn = sc
			}
		default:
			if !ps.SlotWarn && (minPass == nil || sc.slack < minPass.slack) {
				minPass = sc
			}
		}
	}
	idx := len(c.res.Checks)
	switch {
	case len(scs) == 0:
		c.add("C4", StatusInfo, "no slot to check", nil)
	case fail != nil:
		p := m.Parts[fail.part]
		ps := p.Ph[fail.ph]
		slotEnd := fail.badBase + ps.Slot
		by := fail.badSpan.eL - slotEnd
		txt := fmt.Sprintf("%s tile %d: %s ends at %s ns, after its %s slot [%s, %s) by %s ns", p.ID, c.absTile(fail.firstBad), fail.ph, group(fail.badSpan.eL), ps.SlotName, group(fail.badBase+ps.SlotStart), group(slotEnd), group(by))
		reason := c.slotFormula(fail, false) + "; " + txt
		if c.m.Mode == WholeTile {
			reason += " (the schedule drifts into self-timed execution)"
		}
		c.add("C4", StatusFail, reason, &Counterexample{Text: txt, A: c.ref(fail.part, fail.firstBad, fail.ph, fail.badSpan.sE, fail.badSpan.eL), ByNS: by})
	default:
		reason := "every phase fits its slot on every tile"
		if minPass != nil {
			reason = c.slotFormula(minPass, true)
		}
		st := StatusPass
		if warn != nil {
			st = StatusWarn
			p := m.Parts[warn.part]
			reason += fmt.Sprintf("; %s tile %d: %s alone overruns its budget slot by %s ns (allowed: the compute slot absorbs it)", p.ID, c.absTile(warn.firstBad), warn.ph, group(warn.badSpan.eL-(warn.badBase+p.Ph[warn.ph].Slot)))
		}
		c.add("C4", st, reason, nil)
	}
	return idx
}

// slotFormula states a slot check in the notes' terms.
func (c *checker) slotFormula(sc *slotCheck, pass bool) string {
	p := c.m.Parts[sc.part]
	ps := p.Ph[sc.ph]
	sum, _ := c.slotBounds(p, sc.ph)
	start := sc.ph
	for start > 0 && p.Ph[start].Trig < 0 {
		start--
	}
	j := p.Ph[start].J
	slot := ps.Slot - ps.SlotStart
	var terms string
	switch c.m.Mode {
	case WholeTile:
		terms = fmt.Sprintf("P+C+W+J %s %s T_hyper %s", group(sum+j), cmpWord(pass), group(slot))
	case PhaseMode:
		if sc.ph == Writeback {
			terms = fmt.Sprintf("W+J %s %s T_WB %s", group(sum+j), cmpWord(pass), group(slot))
		} else {
			terms = fmt.Sprintf("P+C+J %s %s T_PF+T_C %s", group(sum+j), cmpWord(pass), group(slot))
		}
	default:
		terms = fmt.Sprintf("bound+J %s %s window length %s", group(sum+j), cmpWord(pass), group(slot))
	}
	if pass {
		return fmt.Sprintf("%s (smallest slack %s ns: %s %s, tile %d)", terms, group(sc.slack), p.ID, ps.SlotName, c.absTile(sc.tile))
	}
	return terms
}

func cmpWord(pass bool) string {
	if pass {
		return "<="
	}
	return ">"
}

// C5: no two participants' memory windows intersect.
func (c *checker) c5() *Check {
	sw, m := c.sw, c.m
	res := c.res
	res.Overlaps.TilesSwept = sw.tiles
	res.Overlaps.PeriodicFrom = sw.periodic
	if sw.periodic >= 0 {
		res.Overlaps.PeriodicFrom = c.absTile(sw.periodic)
	}
	res.Overlaps.WindowPairs = sw.overlaps
	res.Overlaps.TotalNS = sw.totalNS
	keys := sw.sortedPairs()
	res.Overlaps.ParticipantPairs = len(keys)
	if len(keys) > MaxListedPairs {
		// The pairs with the most overlap, in participant order.
		sort.SliceStable(keys, func(i, j int) bool { return sw.pairs[keys[i]].totalNS > sw.pairs[keys[j]].totalNS })
		keys = keys[:MaxListedPairs]
		sort.Slice(keys, func(i, j int) bool {
			if keys[i][0] != keys[j][0] {
				return keys[i][0] < keys[j][0]
			}
			return keys[i][1] < keys[j][1]
		})
	}
	for _, k := range keys {
		ps := sw.pairs[k]
		f := ps.first
		res.Overlaps.Pairs = append(res.Overlaps.Pairs, OverlapPair{A: m.Parts[k[0]].ID, B: m.Parts[k[1]].ID, Count: ps.count, TotalNS: ps.totalNS, MaxNS: ps.maxNS,
			First: [2]WindowRef{*c.ref(f.A.part, f.A.tile, f.A.phase, f.A.s, f.A.e), *c.ref(f.B.part, f.B.tile, f.B.phase, f.B.s, f.B.e)}})
	}
	// Memory slack per participant and phase.
	var minSlack *MemSlack
	for i, p := range m.Parts {
		for _, ph := range phaseOrder {
			if !ph.Memory() || !sw.slackOK[i][ph] {
				continue
			}
			at := sw.slackAt[i][ph]
			nx := sw.slackNext[i][ph]
			ms := MemSlack{Participant: p.ID, Phase: ph.String(), SlackNS: sw.slack[i][ph], AtTile: c.absTile(at.tile),
				Next: fmt.Sprintf("%s %s at %s", m.Parts[nx.part].ID, nx.phase, group(nx.s))}
			res.MemorySlack = append(res.MemorySlack, ms)
			if minSlack == nil || ms.SlackNS < minSlack.SlackNS {
				x := ms
				minSlack = &x
			}
		}
	}
	if f := sw.first; f != nil {
		a := c.ref(f.A.part, f.A.tile, f.A.phase, f.A.s, f.A.e)
		b := c.ref(f.B.part, f.B.tile, f.B.phase, f.B.s, f.B.e)
		txt := fmt.Sprintf("%s tile %d %s [%s, %s] ∩ %s tile %d %s [%s, %s] = %s ns", a.Participant, a.Tile, a.Phase, group(a.StartNS), group(a.EndNS),
			b.Participant, b.Tile, b.Phase, group(b.StartNS), group(b.EndNS), group(f.NS))
		var bigK [2]int
		var bigNS int64 = -1
		for _, k := range sw.sortedPairs() {
			if ps := sw.pairs[k]; ps.maxNS > bigNS {
				bigK, bigNS = k, ps.maxNS
			}
		}
		big := &OverlapPair{A: m.Parts[bigK[0]].ID, B: m.Parts[bigK[1]].ID, MaxNS: bigNS}
		over := "over the run"
		if sw.partial {
			over = fmt.Sprintf("in the first %s tiles (the schedule drifts; later tiles are not swept)", group(sw.tiles))
		}
		reason := fmt.Sprintf("%s overlapping window pairs %s (%d participant pairs, %s ns in all, at most %s ns: %s and %s); %s",
			group(sw.overlaps), over, len(sw.pairs), group(sw.totalNS), group(big.MaxNS), big.A, big.B, c.c5Formula())
		ch := c.add("C5", StatusFail, reason, &Counterexample{Text: txt, A: a, B: b, ByNS: f.NS})
		return ch
	}
	if sw.partial {
		reason := fmt.Sprintf("undecided: the first %s tiles of each participant have no overlapping memory windows, and the schedule has no periodic regime within them (it drifts: see C4, C7); later tiles are not swept", group(sw.tiles))
		return c.add("C5", StatusWarn, reason, nil)
	}
	reason := "no two participants' memory windows intersect"
	if minSlack != nil {
		reason += fmt.Sprintf(" (smallest gap %s ns: %s %s, then %s)", group(minSlack.SlackNS), minSlack.Participant, minSlack.Phase, minSlack.Next)
	}
	return c.add("C5", StatusPass, reason, nil)
}

// c5Formula states the closed form of the mode (prem-schedules.md §5).
func (c *checker) c5Formula() string {
	m := c.m
	switch m.Mode {
	case WholeTile:
		var need int64
		for _, p := range m.Parts {
			need = max(need, p.Ph[Prefetch].WCET+p.Ph[Compute].WCET+p.Ph[Writeback].WCET+p.Ph[Prefetch].J)
		}
		return fmt.Sprintf("exclusion needs PF_off >= max(P+C+W)+J = %s ns, PF_off is %s", group(need), group(c.s.PFOffsetNS))
	case PhaseMode:
		var pf, wb int64
		for _, p := range m.Parts {
			pf = max(pf, p.Ph[Prefetch].WCET+p.Ph[Prefetch].J)
			wb = max(wb, p.Ph[Writeback].WCET+p.Ph[Writeback].J)
		}
		return fmt.Sprintf("exclusion needs PF_off >= P+J = %s ns (PF_off %s) and WB_off >= W+J = %s ns (WB_off %s)", group(pf), group(c.s.PFOffsetNS), group(wb), group(c.s.WBOffsetNS))
	}
	return "the memory windows of the table, at their bounds and jitter, must not intersect"
}

// C6: compute ends before the write-back trigger (phase and table modes).
func (c *checker) c6() {
	m := c.m
	any := false
	type bad struct {
		part int
		tile int64
		by   int64
		cEnd int64
		trig int64
	}
	var first *bad
	minSlack := int64(math.MaxInt64)
	var minAt string
	for i, p := range m.Parts {
		if p.Ph[Writeback].Trig < 0 || c.cs[i].M <= 0 {
			continue
		}
		any = true
		ch := c.cs[i]
		slackAt := func(t int64) int64 {
			sp := ch.at(t)
			return sp[Writeback].trig - sp[Compute].eL
		}
		for _, t := range ch.worstTiles() {
			if x := slackAt(t); x < minSlack {
				minSlack, minAt = x, fmt.Sprintf("%s tile %d", p.ID, c.absTile(t))
			}
		}
		if t := ch.firstWhere(func(t int64) bool { return slackAt(t) < 0 }); t >= 0 && first == nil {
			sp := ch.at(t)
			first = &bad{part: i, tile: t, by: sp[Compute].eL - sp[Writeback].trig, cEnd: sp[Compute].eL, trig: sp[Writeback].trig}
		}
	}
	switch {
	case !any:
		c.add("C6", StatusInfo, "not applicable: the write-back is not triggered (it follows the compute)", nil)
	case first != nil:
		p := m.Parts[first.part]
		txt := fmt.Sprintf("%s tile %d: compute ends at %s ns, after the write-back trigger at %s by %s ns: the write-back starts late (its window is shifted in C5)", p.ID, c.absTile(first.tile), group(first.cEnd), group(first.trig), group(first.by))
		sp := c.cs[first.part].at(first.tile)
		c.add("C6", StatusFail, "J+P+C <= T_WB_off + i*(WB_off-PF_off) fails: "+txt, &Counterexample{Text: txt, A: c.ref(first.part, first.tile, Compute, sp[Compute].sE, sp[Compute].eL), ByNS: first.by})
	default:
		c.add("C6", StatusPass, fmt.Sprintf("every compute ends before its write-back trigger (smallest slack %s ns: %s)", group(minSlack), minAt), nil)
	}
}

// C7: the warm-up tiles fit WU.
func (c *checker) c7() {
	m := c.m
	var worst *Part
	for _, p := range m.Parts {
		if p.HasWarmup && (worst == nil || p.WarmupL > worst.WarmupL) {
			worst = p
		}
	}
	overlap := fmt.Sprintf("all %d participants run their %d warm-up tile(s) at once from the start: their memory phases overlap by design (outside the PREM guarantee)", len(m.Parts), m.K)
	if m.K == 0 {
		c.add("C7", StatusInfo, "no warm-up tile: the first tile is synchronised", nil)
		return
	}
	if worst == nil {
		c.add("C7", StatusWarn, "unverified: no warm-up bound ([[bound]] with tile = \"warmup\", under N-way contention); the engine assumes the warm-up ends by WU; "+overlap, nil)
		return
	}
	txt := fmt.Sprintf("%s: J + %d x (Pw+Cw+Ww) = %s ns", worst.ID, m.K, group(worst.WarmupL))
	if worst.WarmupL > m.WU {
		c.add("C7", StatusFail, fmt.Sprintf("%s > WU %s by %s ns: the first synchronised tile starts late", txt, group(m.WU), group(worst.WarmupL-m.WU)), &Counterexample{Text: txt, ByNS: worst.WarmupL - m.WU})
		return
	}
	missing := ""
	for _, p := range m.Parts {
		if !p.HasWarmup {
			missing = "; no warm-up bound for " + p.ID + " (assumed to end by WU)"
			break
		}
	}
	c.add("C7", StatusInfo, fmt.Sprintf("%s <= WU %s (slack %s ns) with assumed warm-up bounds, which must hold under %d-way contention%s; %s", txt, group(m.WU), group(m.WU-worst.WarmupL), len(m.Parts), missing, overlap), nil)
}

// C8: the makespan bound against the deadline.
func (c *checker) c8() int {
	m := c.m
	var M int64 = -1
	last := -1
	for i, ch := range c.cs {
		if e := ch.end(); e > M {
			M, last = e, i
		}
	}
	mk := &c.res.Makespan
	mk.NS = M
	mk.Last = m.Parts[last].ID
	ch := c.cs[last]
	p := m.Parts[last]
	lt := ch.M - 1
	sp := ch.at(lt)
	// The last triggered phase of the last tile.
	lastOff := int64(-1)
	for _, ph := range phaseOrder {
		if p.Ph[ph].Trig >= 0 {
			lastOff = p.Ph[ph].Trig
		}
	}
	tail := M - (m.WU + lt*m.T + lastOff)
	mk.Formula = fmt.Sprintf("M = WU + (T_i-1-K)*T_hyper + last_off + tail = %s + %d*%s + %s + %s = %s ns (%s, its tile %d)",
		group(m.WU), lt, group(m.T), group(lastOff), group(tail), group(M), p.ID, c.absTile(lt))
	_ = sp
	idx := len(c.res.Checks)
	if m.Deadline < 0 {
		c.add("C8", StatusInfo, mk.Formula+"; no deadline given", nil)
		return idx
	}
	d := m.Deadline
	slack := d - M
	mk.DeadlineNS, mk.SlackNS = &d, &slack
	if M > d {
		txt := fmt.Sprintf("makespan %s ns exceeds the deadline %s ns by %s ns", group(M), group(d), group(-slack))
		c.add("C8", StatusFail, mk.Formula+"; "+txt, &Counterexample{Text: txt, ByNS: -slack})
		return idx
	}
	c.add("C8", StatusPass, fmt.Sprintf("%s <= deadline %s (slack %s ns)", mk.Formula, group(d), group(slack)), nil)
	return idx
}

// C9: triggers on the timer's grid, offsets well above its resolution.
func (c *checker) c9() {
	s, m := c.s, c.m
	r := s.Platform.ResolutionNS
	type val struct {
		name string
		v    int64
	}
	var vals []val
	switch s.Mode {
	case WholeTile:
		vals = []val{{"pf_offset_ns", s.PFOffsetNS}}
	case PhaseMode:
		vals = []val{{"pf_offset_ns", s.PFOffsetNS}, {"wb_offset_ns", s.WBOffsetNS}, {"budget_pf_ns", s.BudgetPFNS}, {"budget_c_ns", s.BudgetCNS}, {"budget_wb_ns", s.BudgetWBNS}}
	case Table:
		for _, w := range s.Windows {
			vals = append(vals, val{fmt.Sprintf("%s %s offset_ns", w.Participant, w.Phase), w.OffsetNS})
		}
	}
	if s.Mode != Table && s.PFOffsetNS < r && len(m.Parts) > 1 {
		c.add("C9", StatusFail, fmt.Sprintf("pf_offset_ns %s < timer resolution %s: consecutive participants cannot be told apart by the timer", group(s.PFOffsetNS), group(r)),
			&Counterexample{Text: "pf_offset_ns below the timer resolution", ByNS: r - s.PFOffsetNS})
		return
	}
	var small, off []string
	for _, v := range vals {
		if v.v > 0 && v.v < 4*r {
			small = append(small, fmt.Sprintf("%s %s", v.name, group(v.v)))
		}
	}
	var widened []string
	for _, p := range m.Parts {
		for _, ph := range phaseOrder {
			if ps := p.Ph[ph]; ps.Trig >= 0 && ps.J != s.Platform.JitterNS {
				widened = append(widened, fmt.Sprintf("%s %s", p.ID, ph))
			}
		}
	}
	if m.T%r != 0 {
		off = append(off, "T_hyper "+group(m.T))
	}
	if s.WarmupNS%r != 0 {
		off = append(off, "warmup_ns "+group(s.WarmupNS))
	}
	var parts []string
	if len(small) > 0 {
		parts = append(parts, fmt.Sprintf("below 4 x the resolution %s ns: %s", group(r), strings.Join(small, ", ")))
	}
	if len(widened) > 0 {
		parts = append(parts, fmt.Sprintf("triggers off the %s ns grid, released up to r later (J' = J + r = %s ns used): %s", group(r), group(s.Platform.JitterNS+r), sample(widened)))
	}
	if len(off) > 0 {
		parts = append(parts, "not multiples of the resolution: "+strings.Join(off, ", "))
	}
	if len(parts) == 0 {
		c.add("C9", StatusPass, fmt.Sprintf("every trigger is a multiple of the timer resolution %s ns and every offset at least 4 x it", group(r)), nil)
		return
	}
	c.add("C9", StatusWarn, strings.Join(parts, "; "), nil)
}

// C10: utilisation of the memory channel and of each participant.
func (c *checker) c10() {
	m := c.m
	var mem int64
	u := &c.res.Utilisation
	u.Participants = map[string]float64{}
	for _, p := range m.Parts {
		mem += p.Ph[Prefetch].WCET + p.Ph[Writeback].WCET
		u.Participants[p.ID] = round2(100 * float64(p.Ph[Prefetch].WCET+p.Ph[Compute].WCET+p.Ph[Writeback].WCET) / float64(m.T))
	}
	u.MemoryPct = round2(100 * float64(mem) / float64(m.T))
	u.IdleMemoryPct = round2(max(0, 100-u.MemoryPct))
	txt := fmt.Sprintf("U_mem = sum(P_i+W_i)/T_hyper = %s/%s = %s %%", group(mem), group(m.T), pct(u.MemoryPct))
	if mem > m.T {
		c.add("C10", StatusFail, txt+" > 100 %: the memory phases cannot be exclusive (necessary condition)", &Counterexample{Text: txt, ByNS: mem - m.T})
		return
	}
	c.add("C10", StatusInfo, fmt.Sprintf("%s, idle memory %s %%", txt, pct(u.IdleMemoryPct)), nil)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func pct(x float64) string {
	s := fmt.Sprintf("%.2f", x)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// C11: the largest factor all WCETs may be multiplied by while the slot,
// exclusion and compute-before-write-back constraints of the periodic
// regime hold: min over the constraints J + α·B <= available.
func (c *checker) c11() {
	m := c.m
	alpha := math.Inf(1)
	binding := ""
	consider := func(avail, j, b int64, what string) {
		if b <= 0 {
			return
		}
		a := float64(avail-j) / float64(b)
		if a < alpha {
			alpha, binding = a, fmt.Sprintf("%s: (%s - %s) / %s", what, group(avail), group(j), group(b))
		}
	}
	// Steady-state windows of one period (tile 0 shapes, triggers only).
	type trig struct {
		part int
		ph   Phase
		off  int64
	}
	var mem []trig
	for i, p := range m.Parts {
		for _, ph := range phaseOrder {
			if p.Ph[ph].Trig >= 0 {
				mem = append(mem, trig{i, ph, p.Ph[ph].Trig})
			}
		}
	}
	sort.SliceStable(mem, func(a, b int) bool { return mem[a].off < mem[b].off })
	for i, p := range m.Parts {
		for _, ph := range phaseOrder {
			ps := p.Ph[ph]
			// The anchor: the trigger opening the chain that ends at ph.
			a := ph
			for a > 0 && p.Ph[a].Trig < 0 {
				a--
			}
			var b int64
			for x := a; x <= ph; x++ {
				b += p.Ph[x].WCET
			}
			t0, j := p.Ph[a].Trig, p.Ph[a].J
			if ps.Slot >= 0 && !ps.SlotWarn {
				consider(ps.Slot-t0, j, b, fmt.Sprintf("C4 %s %s", p.ID, ps.SlotName))
			}
			if ph == Compute && p.Ph[Writeback].Trig >= 0 {
				consider(p.Ph[Writeback].Trig-t0, j, b, fmt.Sprintf("C6 %s", p.ID))
			}
			if !ph.Memory() {
				continue
			}
			// The memory window runs to the end of ph unless a later
			// memory phase follows untriggered (whole tile: PF..WB).
			if ph == Prefetch && p.Ph[Writeback].Trig < 0 {
				continue // covered by the write-back's chain
			}
			// Next trigger of another participant after t0 (cyclic).
			next := int64(-1)
			for _, x := range mem {
				if x.part != i && x.off > t0 {
					next = x.off
					break
				}
			}
			if next < 0 {
				for _, x := range mem {
					if x.part != i {
						next = x.off + m.T
						break
					}
				}
			}
			if next >= 0 {
				consider(next-t0, j, b, fmt.Sprintf("C5 %s %s", p.ID, ph))
			}
		}
	}
	if math.IsInf(alpha, 1) {
		c.add("C11", StatusInfo, "no constraint bounds the WCETs", nil)
		return
	}
	c.res.Sensitivity = Sensitivity{Alpha: math.Round(alpha*10000) / 10000, Binding: binding}
	verb := "may grow by"
	if alpha < 1 {
		verb = "must shrink by"
	}
	c.add("C11", StatusInfo, fmt.Sprintf("alpha = %.3f: all WCETs %s %.1f %% (binding %s)", alpha, verb, math.Abs(alpha-1)*100, binding), nil)
}

// C12: the bandwidth a prefetch slot implies.
func (c *checker) c12() {
	var parts []string
	for _, p := range c.m.Parts {
		if p.TileBytes <= 0 || p.Ph[Prefetch].WCET <= 0 {
			continue
		}
		gbs := float64(p.TileBytes) / float64(p.Ph[Prefetch].WCET) // bytes per ns = GB/s
		parts = append(parts, fmt.Sprintf("%s %s B in %s ns = %.2f GB/s", p.ID, group(p.TileBytes), group(p.Ph[Prefetch].WCET), gbs))
	}
	if len(parts) == 0 {
		c.add("C12", StatusInfo, "no tile_bytes given: no bandwidth to report", nil)
		return
	}
	c.add("C12", StatusInfo, "prefetch bandwidth at the bound: "+sample(dedupe(parts)), nil)
}

func dedupe(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		k := x[strings.IndexByte(x, ' ')+1:]
		if !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}
