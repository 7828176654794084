package prem

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound/kernel"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/assume"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/release"
	"github.com/gpuwcet/gpuwcet/cfg/values"
	"github.com/gpuwcet/gpuwcet/divergence"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/hwdesc/arch"
)

// Phase bounds from the analysis (docs/prem.md, "Phase bounds").
//
// A phase of a tile is a region of the kernel between two block-wide
// barriers: the block starts it when a barrier releases every warp, and it
// ends when the next barrier that closes it releases them. The regions are
// found in three ways, by the label a schedule names:
//
//  1. release points (cfg/release): the barrier that follows the first
//     release point opens the prefetch, which runs to the next barrier;
//     the compute runs from there to the barrier of the second release
//     point (phase mode) or to the tile's last barrier (whole-tile mode);
//     the write-back from there back to the first release barrier or the
//     kernel's end. Labels "prefetch", "compute", "writeback".
//  2. source markers that survive into the listing as comments,
//     asm volatile("// @prem NAME"): a marker opens region NAME at the
//     barrier that precedes it in its basic block; the region runs to the
//     next marker's barrier (the last one back to the first's, or the
//     end); "// @prem end" closes a region without opening one.
//  3. explicit line ranges: lines = [first, last] is widened to the
//     barrier sections it touches.
//
// Each region is bounded by the static analysis of gpuwcet analyze
// (bound/static, through the pass driver): the longest path over the
// barrier sections from its first barrier to its last
// (static.Result.Region), in cycles, converted to ns at clock_hz
// rounding up (N3).

// Listing is a parsed listing.
type Listing struct {
	Path   string
	File   *isa.File
	Src    []byte
	SHA256 string
}

// Analysis is what the listings give a schedule.
type Analysis struct {
	Bounds   []KernelBounds // by kernel of the schedule
	Releases []Release
	Regions  []Region
	Warnings []Warning
	// Uses are the assumptions of the ledger the phase bounds rest on
	// beyond every prem check's (a split timer read's retry bound).
	Uses []assume.Use
}

// Warning is a finding of the analysis of the listings.
type Warning struct {
	Rule, Message, Kernel string
	Pos                   token.Position
}

// ErrUnbounded marks an error that means "not bounded" (exit code 2).
var ErrUnbounded = errors.New("not bounded")

// markerRE finds a source marker in a listing's comment.
var markerRE = regexp.MustCompile(`//\s*@prem\s+([A-Za-z_][A-Za-z0-9_-]*)`)

// Analyze bounds the phase regions of every kernel of s that names them.
// byKernel gives a kernel's listing when the schedule names it; otherwise
// the listing that defines the kernel's function is used.
func Analyze(s *Schedule, hw *hwdesc.Desc, listings []*Listing, byKernel map[*Kernel]*Listing) (*Analysis, error) {
	an := &Analysis{Bounds: make([]KernelBounds, len(s.Kernels))}
	var errs isa.ErrorList
	for ki, k := range s.Kernels {
		if k.Phases == [numPhases]*RegionSpec{} {
			continue
		}
		at := fmt.Sprintf("kernel[%d]", ki)
		if s.Platform.ClockHz == 0 {
			errs.Addf(s.Pos("platform"), "kernel %s: the analysis bounds its phases in cycles: give platform.clock_hz to convert them to ns", k.ID)
			continue
		}
		l := byKernel[k]
		if l == nil {
			var names []string
			for _, c := range listings {
				names = append(names, c.Path)
				if fn := c.File.Func(k.Function); fn != nil && !fn.Decl {
					if l != nil {
						errs.Addf(s.Pos(at+".function"), "kernel %s: function %s is defined in %s and in %s: name the listing (listing = ...)", k.ID, k.Function, l.Path, c.Path)
					}
					l = c
				}
			}
			if l == nil {
				errs.Addf(s.Pos(at+".function"), "kernel %s: function %s is in no listing (given: %s)", k.ID, k.Function, orNone(strings.Join(names, ", ")))
				continue
			}
		}
		if k.SHA256 != "" && k.SHA256 != l.SHA256 {
			errs.Addf(s.Pos(at+".sha256"), "kernel %s: the schedule names listing %s with sha256 %s, the file has %s: the schedule was written for another listing", k.ID, l.Path, k.SHA256, l.SHA256)
			continue
		}
		fn := l.File.Func(k.Function)
		if fn == nil || fn.Decl || !fn.Entry {
			errs.Addf(s.Pos(at+".function"), "kernel %s: %s has no kernel %s", k.ID, l.Path, k.Function)
			continue
		}
		kb, err := analyzeKernel(s, ki, hw, l, fn, an)
		if err != nil {
			var el isa.ErrorList
			if errors.As(err, &el) {
				errs = append(errs, el...)
				continue
			}
			return nil, err
		}
		an.Bounds[ki] = kb
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return an, nil
}

// firstLine returns the first line of err's message.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// analyzeKernel runs the static analysis on one kernel and bounds its
// phase regions.
func analyzeKernel(s *Schedule, ki int, hw *hwdesc.Desc, l *Listing, fn *isa.Func, an *Analysis) (KernelBounds, error) {
	k := s.Kernels[ki]
	at := fmt.Sprintf("kernel[%d]", ki)
	var kb KernelBounds
	// C1's inputs from the listing: registers per thread where it states
	// them, the static shared memory of its .shared declarations, plus
	// dynamic_shared_bytes (bound/kernel.OccupancyInput, as analyze --grid).
	if a, err := arch.Lookup(s.Platform.Arch); s.Platform.Arch != "" && err == nil {
		in := kernel.Input{File: l.File, Func: fn, Arch: a, Block: k.Block, DynamicSmem: max(k.DynamicShared, 0),
			DynamicSmemSet: k.DynamicShared >= 0 || k.SharedBytes >= 0,
			DynamicHint:    "dynamic_shared_bytes = BYTES in its [[kernel]] table (the launch's third parameter), or shared_bytes for the whole"}
		ak, notes, err := kernel.OccupancyInput(in)
		if err != nil {
			return kb, isa.ErrorList{{Pos: s.Pos(at), Msg: fmt.Sprintf("kernel %s: %v", k.ID, err)}}
		}
		kb.Resources = &Resources{Regs: ak.Regs, StaticSmem: ak.StaticSmem, DynamicSmem: ak.DynamicSmem, Notes: notes}
	}
	launch := pass.Launch{Block: k.Block, Grid: [3]int{k.Blocks, 1, 1}, Args: k.Args}
	// The phase regions need only the bounds of the loops they cross: the
	// static pass keeps the sections when some other loop (an outer tile
	// loop) has no bound (static.RegionsInput).
	opts := pass.Options{HW: hw, Launch: launch, Check: true, Inputs: map[string]any{loops.ListingSHAInput: l.SHA256, static.RegionsInput: true},
		Funcs: regexp.MustCompile("^" + regexp.QuoteMeta(fn.Name) + "$")}
	if k.Facts != "" {
		p := k.Facts
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(s.File), p)
		}
		facts, err := loops.LoadFacts(p)
		if err != nil {
			return kb, isa.ErrorList{{Pos: s.Pos(at + ".facts"), Msg: fmt.Sprintf("kernel %s: %v", k.ID, err)}}
		}
		opts.Inputs[loops.FactsInput] = facts
	}
	res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, l.File, opts)
	if err != nil {
		return kb, err
	}
	act := res.Get(static.Analyzer, fn)
	if act == nil {
		return kb, fmt.Errorf("prem: kernel %s: %s was not analysed", k.ID, fn.Name)
	}
	if act.Err != nil {
		err := act.Err
		for _, a := range res.Actions() {
			if a.Func == fn && a.Err != nil && a != act && !strings.Contains(a.Err.Error(), "failed prerequisites") {
				err = a.Err
			}
		}
		if static.Unbounded(err) {
			return kb, fmt.Errorf("kernel %s (%s): %w: %v", k.ID, fn.Name, ErrUnbounded, err)
		}
		return kb, fmt.Errorf("kernel %s (%s): %v", k.ID, fn.Name, err)
	}
	rep := act.Result.(*static.Report)
	fset := rep.Graph.Fset
	if rep.Incomplete != nil {
		var se *static.Error
		pos := token.Position{}
		if errors.As(rep.Incomplete, &se) {
			pos = se.Pos
		}
		an.Warnings = append(an.Warnings, Warning{Rule: "block-unbounded", Kernel: k.ID, Pos: pos,
			Message: fmt.Sprintf("%s: the block is not bounded (%s): each phase region is bounded with the loops it crosses only", fn.Name, firstLine(rep.Incomplete))})
	}
	posOf := func(in *isa.Instr, none string) string {
		if in == nil {
			return none
		}
		return pass.Position(fset, in.Pos).String()
	}
	// Release points, in program order.
	var rps []*release.Point
	for _, lb := range rep.Loops.Loops {
		if lb.Release != nil {
			rps = append(rps, lb.Release)
		}
	}
	sort.SliceStable(rps, func(i, j int) bool { return rps[i].Loop.Header.Index < rps[j].Loop.Header.Index })
	for _, p := range rps {
		an.Releases = append(an.Releases, Release{Kernel: k.ID, Pos: p.Pos.String(), Trigger: p.String(), Barrier: posOf(p.Barrier, "none (paths meet different barriers)")})
		an.Warnings = append(an.Warnings, Warning{Rule: "release-point", Kernel: k.ID, Pos: p.Pos,
			Message: fmt.Sprintf("%s: release point: %s; bounded by %d executions of its header from the trigger (the wait is the schedule's)", fn.Name, p, release.HeaderBound)})
	}
	// Split timer reads (sm_5x, sm_6x): their retry bound is an assumption
	// (analysisUses states it).
	for _, lb := range rep.Loops.Loops {
		if lb.Bound != nil && lb.Bound.Source == loops.TimerRetry {
			an.Warnings = append(an.Warnings, Warning{Rule: "timer-split-read", Kernel: k.ID, Pos: lb.Pos,
				Message: fmt.Sprintf("%s: loop %s: %s (%s)", fn.Name, lb.Key, lb.Bound.Why, assume.TimerSplitRead)})
		}
	}
	an.Uses = append(an.Uses, analysisUses(l.File, hw, rep)...)
	if values.UsesFrames(res) {
		an.Uses = append(an.Uses, assume.U(assume.FramePrivate))
	}
	if values.UsesActiveMask(res) {
		an.Uses = append(an.Uses, assume.U(assume.ActiveMask))
	}
	if divergence.UsesNoTrap(res) {
		an.Uses = append(an.Uses, assume.U(assume.NoTrap))
	}
	if values.UsesDivisions(res) {
		an.Uses = append(an.Uses, assume.U(assume.RcpPrecision))
	}
	// N4: the tiles of a block against the bound of the loops around the
	// first release point (the tile loop and any loop around it).
	if len(rps) > 0 {
		prod, known := int64(1), true
		var where []string
		unboundedAt := ""
		for l := rps[0].Loop.Parent; l != nil; l = l.Parent {
			n, ok := rep.Loops.Max(l.Header)
			if !ok {
				known = false
				unboundedAt = pass.Position(fset, l.Header.Pos()).String()
				break
			}
			prod *= max(n, 1)
			where = append(where, pass.Position(fset, l.Header.Pos()).String())
			if prod > MaxTiles {
				known = false
				break
			}
		}
		var tiles int64
		for b := 0; b < k.Blocks; b++ {
			tiles = max(tiles, k.TilesOf(b))
		}
		switch {
		case unboundedAt != "":
			an.Warnings = append(an.Warnings, Warning{Rule: "tile-count", Kernel: k.ID, Pos: s.Pos(at + ".tiles_per_block"),
				Message: fmt.Sprintf("kernel %s: the tile loop of %s (%s) has no bound: tiles_per_block %d is the schedule's, not checked against the code (N4)", k.ID, fn.Name, unboundedAt, tiles)})
		case !known || len(where) == 0:
		case tiles > prod:
			return kb, isa.ErrorList{{Pos: s.Pos(at + ".tiles_per_block"), Msg: fmt.Sprintf("kernel %s: tiles_per_block %d, but the tile loop of %s (%s) runs at most %d times (N4)", k.ID, tiles, fn.Name, strings.Join(where, ", "), prod)}}
		case tiles < prod-1:
			an.Warnings = append(an.Warnings, Warning{Rule: "tile-count", Kernel: k.ID, Pos: s.Pos(at + ".tiles_per_block"),
				Message: fmt.Sprintf("kernel %s: tiles_per_block %d, but the tile loop of %s (%s) may run %d times (N4): the schedule checks the tiles it names", k.ID, tiles, fn.Name, strings.Join(where, ", "), prod)})
		}
	}
	labels := map[string]regionDef{}
	var problems []string
	if auto, why := autoRegions(rep, rps); auto != nil {
		for name, d := range auto {
			labels[name] = d
		}
	} else if why != "" {
		problems = append(problems, "release points: "+why)
	}
	marks, why := markerRegions(rep, fn, l)
	if why != "" {
		problems = append(problems, "markers: "+why)
	}
	for name, d := range marks {
		if old, ok := labels[name]; ok {
			if !old.same(d) {
				return kb, isa.ErrorList{{Pos: s.Pos(at + ".phases"), Msg: fmt.Sprintf("kernel %s: region %q is %s by the release points and %s by the markers: they disagree", k.ID, name, old.text(posOf), d.text(posOf))}}
			}
			d.how = "release points and markers"
		}
		labels[name] = d
	}
	var errs isa.ErrorList
	for ph, spec := range k.Phases {
		if spec == nil {
			continue
		}
		var d regionDef
		switch {
		case spec.Region != "":
			var ok bool
			if d, ok = labels[spec.Region]; !ok {
				var found []string
				for n := range labels {
					found = append(found, n)
				}
				sort.Strings(found)
				msg := fmt.Sprintf("kernel %s: no region %q in %s (found: %s)", k.ID, spec.Region, fn.Name, orNone(strings.Join(found, ", ")))
				if len(problems) > 0 {
					msg += "; " + strings.Join(problems, "; ")
				}
				errs.Addf(spec.Pos, "%s", msg)
				continue
			}
		default:
			var err error
			if d, err = lineRegion(rep, fn, spec.Lines); err != nil {
				errs.Addf(spec.Pos, "kernel %s: %s lines %d-%d: %v", k.ID, Phase(ph), spec.Lines[0], spec.Lines[1], err)
				continue
			}
		}
		reg, err := rep.Result.Region(d.from, d.to)
		if err != nil {
			if static.Unbounded(err) {
				return kb, fmt.Errorf("kernel %s (%s): %s region %s: %w: %v", k.ID, fn.Name, Phase(ph), d.text(posOf), ErrUnbounded, err)
			}
			errs.Addf(spec.Pos, "kernel %s: %s region %s: %v", k.ID, Phase(ph), d.text(posOf), err)
			continue
		}
		ns, ok := cyclesToNS(int64(reg.Bound), s.Platform.ClockHz, true)
		if !ok {
			errs.Addf(spec.Pos, "kernel %s: %s: %d cycles overflow", k.ID, Phase(ph), reg.Bound)
			continue
		}
		var to []string
		for _, t := range d.to {
			to = append(to, posOf(t, "end"))
		}
		var secs []string
		for _, sg := range reg.Path {
			secs = append(secs, fmt.Sprintf("%s -> %s: %d", posOf(sg.From, "entry"), posOf(sg.To, "end"), sg.Bound))
		}
		for _, c := range reg.Crossings {
			secs = append(secs, fmt.Sprintf("%s -> %s: %d x %d", posOf(c.Segment.From, "entry"), posOf(c.Segment.To, "end"), c.Segment.Bound, c.Count))
		}
		from := fmt.Sprintf("%s -> %s (%s of %s, %s)", posOf(d.from, "entry"), strings.Join(to, " or "), Phase(ph), fn.Name, d.how)
		lowNS, _ := cyclesToNS(int64(reg.Lower), s.Platform.ClockHz, false)
		kb.Steady[ph] = &Bound{WCET: ns, BCET: lowNS, Cycles: int64(reg.Bound), From: from, Pos: spec.Pos}
		an.Regions = append(an.Regions, Region{Kernel: k.ID, Phase: Phase(ph).String(), How: d.how, From: posOf(d.from, "entry"), To: to, Cycles: int64(reg.Bound), NS: ns,
			LowerCycles: int64(reg.Lower), LowerNS: lowNS, Sections: secs})
	}
	if len(errs) > 0 {
		return kb, errs
	}
	return kb, nil
}

// regionDef is a region: from a barrier to the first of to.
type regionDef struct {
	from *isa.Instr
	to   []*isa.Instr
	how  string
}

func (d regionDef) same(e regionDef) bool {
	if d.from != e.from || len(d.to) != len(e.to) {
		return false
	}
	for i := range d.to {
		if d.to[i] != e.to[i] {
			return false
		}
	}
	return true
}

func (d regionDef) text(pos func(*isa.Instr, string) string) string {
	var to []string
	for _, t := range d.to {
		to = append(to, pos(t, "end"))
	}
	return pos(d.from, "entry") + " -> " + strings.Join(to, " or ")
}

// successors returns the barrier-section successors of each barrier: the
// sections' ends, and for a barrier whose sections could not be bounded
// (a loop without bound) the barriers its paths meet first.
func successors(r *static.Result) map[*isa.Instr][]*isa.Instr {
	next := map[*isa.Instr][]*isa.Instr{}
	add := func(from, to *isa.Instr) {
		if !slices.Contains(next[from], to) {
			next[from] = append(next[from], to)
		}
	}
	for _, sg := range r.Segments {
		add(sg.From, sg.To)
	}
	for _, from := range slices.SortedFunc(maps.Keys(r.Failed), func(a, b *isa.Instr) int { return index(a) - index(b) }) {
		for _, to := range r.Failed[from].Next {
			add(from, to)
		}
	}
	return next
}

// index orders instructions, nil first.
func index(in *isa.Instr) int {
	if in == nil {
		return -1
	}
	return in.Index
}

// autoRegions derives prefetch, compute and write-back from the release
// points: nil and why when they do not give the three phases.
func autoRegions(rep *static.Report, rps []*release.Point) (map[string]regionDef, string) {
	if len(rps) == 0 {
		return nil, ""
	}
	var bars []*isa.Instr
	for _, p := range rps {
		if p.Barrier == nil {
			return nil, fmt.Sprintf("the paths after the release point at %s meet different barriers", p.Pos)
		}
		dup := false
		for _, b := range bars {
			dup = dup || b == p.Barrier
		}
		if !dup {
			bars = append(bars, p.Barrier)
		}
	}
	if len(bars) > 2 {
		return nil, fmt.Sprintf("%d release barriers: only the prefetch (and the write-back) are released", len(bars))
	}
	b0 := bars[0]
	next := successors(rep.Result)
	seq := []*isa.Instr{b0}
	for cur := b0; ; {
		var ns []*isa.Instr
		for _, n := range next[cur] {
			if n != nil && n != b0 {
				ns = append(ns, n)
			}
		}
		if len(ns) == 0 {
			break
		}
		if len(ns) > 1 {
			return nil, fmt.Sprintf("the tile's barriers branch after instruction %d: name the phases with markers or lines", cur.Index)
		}
		cur = ns[0]
		for _, x := range seq {
			if x == cur {
				return nil, "the tile's barriers loop without returning to the release barrier: name the phases with markers or lines"
			}
		}
		seq = append(seq, cur)
	}
	tileEnd := []*isa.Instr{b0, nil}
	how := "release points"
	switch len(bars) {
	case 1:
		if len(seq) < 3 {
			return nil, fmt.Sprintf("the tile has %d barriers after its release: prefetch, compute and write-back need 3", len(seq))
		}
		last := seq[len(seq)-1]
		return map[string]regionDef{
			"prefetch":  {b0, []*isa.Instr{seq[1], nil}, how},
			"compute":   {seq[1], []*isa.Instr{last, nil}, how},
			"writeback": {last, tileEnd, how},
		}, ""
	}
	bw := bars[1]
	w := -1
	for i, x := range seq {
		if x == bw {
			w = i
		}
	}
	if w < 2 {
		return nil, "the write-back's release barrier does not follow the prefetch and a compute barrier"
	}
	return map[string]regionDef{
		"prefetch":  {b0, []*isa.Instr{seq[1], nil}, how},
		"compute":   {seq[1], []*isa.Instr{bw, nil}, how},
		"writeback": {bw, tileEnd, how},
	}, ""
}

// markerRegions finds the regions named by source markers.
func markerRegions(rep *static.Report, fn *isa.Func, l *Listing) (map[string]regionDef, string) {
	fset := rep.Graph.Fset
	lineOf := func(in *isa.Instr) int { return pass.Position(fset, in.Pos).Line }
	first, last := 0, 0
	if len(fn.Instrs) > 0 {
		first, last = lineOf(fn.Instrs[0]), lineOf(fn.Instrs[len(fn.Instrs)-1])
	}
	type mark struct {
		name string
		line int
		bar  *isa.Instr
	}
	var ms []mark
	for i, text := range bytes.Split(l.Src, []byte("\n")) {
		line := i + 1
		if line < first || line > last {
			continue
		}
		m := markerRE.FindSubmatch(text)
		if m == nil {
			continue
		}
		ms = append(ms, mark{name: string(m[1]), line: line})
	}
	if len(ms) == 0 {
		return nil, ""
	}
	// The barrier that opens each marker's region: the last block-wide
	// barrier of every path that reaches the marker (nil: none, the
	// kernel's start).
	g := rep.Graph
	blockOf := map[*isa.Instr]*cfg.Block{}
	at := map[*isa.Instr]int{}
	for _, b := range g.Blocks {
		for i, in := range b.Instrs {
			blockOf[in], at[in] = b, i
		}
	}
	lastBar := lastBarriers(g)
	for i := range ms {
		var next *isa.Instr
		for _, in := range fn.Instrs {
			if lineOf(in) > ms[i].line {
				next = in
				break
			}
		}
		b := blockOf[next]
		if next == nil || b == nil || !b.Reachable {
			return nil, fmt.Sprintf("marker %q at line %d is not followed by reachable code", ms[i].name, ms[i].line)
		}
		// The marker's point is just before next: the last barrier of its
		// block before it, or the barriers that end the paths into the
		// block. A marker between a block's last instruction and the next
		// block's label is taken at the next block's start: that block's
		// paths include the previous block's, so a single barrier there
		// is a single barrier for the marker too.
		var bars []*isa.Instr
		found := false
		for j := at[next] - 1; j >= 0; j-- {
			if x := b.Instrs[j]; x.Kind == isa.KindBarrier && x.Barrier.WaitsForBlock() {
				bars, found = []*isa.Instr{x}, true
				break
			}
		}
		if !found {
			bars = lastBar[b]
		}
		if len(bars) != 1 {
			var where []string
			for _, x := range bars {
				if x == nil {
					where = append(where, "the kernel's start")
				} else {
					where = append(where, fmt.Sprintf("line %d", lineOf(x)))
				}
			}
			return nil, fmt.Sprintf("marker %q at line %d is reached after different barriers (%s): a phase starts when one barrier (__syncthreads) releases the block", ms[i].name, ms[i].line, strings.Join(where, ", "))
		}
		ms[i].bar = bars[0]
	}
	out := map[string]regionDef{}
	opens := ms
	for i, m := range opens {
		if m.name == "end" {
			continue
		}
		if _, dup := out[m.name]; dup {
			return nil, fmt.Sprintf("marker %q appears twice", m.name)
		}
		// To the next marker's barrier, or the kernel's end (the last
		// region: back to the first marker's barrier, the next tile).
		to := []*isa.Instr{opens[0].bar, nil}
		if i+1 < len(opens) {
			to = []*isa.Instr{opens[i+1].bar, nil}
		}
		out[m.name] = regionDef{m.bar, to, "markers"}
	}
	return out, ""
}

// lastBarriers returns, for each reachable block of g, the block-wide
// barriers (nil: the kernel's start) that are the last barrier crossed by
// some path from the entry to the block's start, in instruction order: a
// forward data-flow problem over sets, solved by iteration to the least
// fixpoint (each set only grows and holds at most the barriers plus nil).
func lastBarriers(g *cfg.Graph) map[*cfg.Block][]*isa.Instr {
	in := map[*cfg.Block]map[*isa.Instr]bool{}
	own := map[*cfg.Block]*isa.Instr{} // a block's last barrier
	has := map[*cfg.Block]bool{}
	for _, b := range g.Blocks {
		for _, x := range b.Instrs {
			if x.Kind == isa.KindBarrier && x.Barrier.WaitsForBlock() {
				own[b], has[b] = x, true
			}
		}
	}
	in[g.Entry()] = map[*isa.Instr]bool{nil: true}
	for changed := true; changed; {
		changed = false
		for _, b := range g.Blocks {
			src := in[b]
			if len(src) == 0 {
				continue
			}
			out := src
			if has[b] {
				out = map[*isa.Instr]bool{own[b]: true}
			}
			for _, e := range b.Succs {
				if e.To == g.Exit {
					continue
				}
				d := in[e.To]
				if d == nil {
					d = map[*isa.Instr]bool{}
					in[e.To] = d
				}
				for x := range out {
					if !d[x] {
						d[x], changed = true, true
					}
				}
			}
		}
	}
	res := map[*cfg.Block][]*isa.Instr{}
	for b, set := range in {
		res[b] = slices.SortedFunc(maps.Keys(set), func(x, y *isa.Instr) int { return index(x) - index(y) })
	}
	return res
}

// lineRegion widens a line range to the barrier sections it touches: from
// the last block-wide barrier at or before its first line (the kernel's
// start when none) until the block crosses a barrier outside the range, or
// the end.
func lineRegion(rep *static.Report, fn *isa.Func, lines [2]int) (regionDef, error) {
	fset := rep.Graph.Fset
	var from *isa.Instr
	var out []*isa.Instr
	found := false
	for _, in := range fn.Instrs {
		ln := pass.Position(fset, in.Pos).Line
		if ln >= lines[0] && ln <= lines[1] {
			found = true
		}
		if in.Kind != isa.KindBarrier || !in.Barrier.WaitsForBlock() {
			continue
		}
		if ln <= lines[0] {
			from = in
		}
		if ln < lines[0] || ln > lines[1] {
			out = append(out, in)
		}
	}
	if !found {
		return regionDef{}, fmt.Errorf("no instruction of %s is on these lines", fn.Name)
	}
	to := []*isa.Instr{nil}
	for _, b := range out {
		if b != from {
			to = append(to, b)
		}
	}
	return regionDef{from, to, "lines"}, nil
}

// analysisUses are the assumptions of the ledger the kernel's phase bounds
// rest on beyond every analysis's (cmd/gpuwcet adds those): as analyze
// states them for the same kernel, a loop bound's source (facts file,
// release point, split timer read), inlined calls, a PTX listing and
// opcodes timed on the description's default unit.
func analysisUses(f *isa.File, hw *hwdesc.Desc, rep *static.Report) []assume.Use {
	var uses []assume.Use
	for _, lb := range rep.Loops.Loops {
		if lb.Bound != nil {
			if id := lb.Bound.Source.Assumption(); id != "" {
				uses = append(uses, assume.U(id))
			}
		}
	}
	if rep.Inlined {
		uses = append(uses, assume.U(assume.InlinedCalls))
	}
	if f.Dialect == isa.DialectPTX {
		uses = append(uses, assume.U(assume.PTXAsExecuted))
	}
	if u, ok := static.DefaultUnitUse(hw, rep); ok {
		uses = append(uses, u)
	}
	return uses
}
