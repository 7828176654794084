package static

import (
	"errors"
	"fmt"
	"go/token"
	"maps"
	"slices"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// Error is a positioned error of the static analysis. Unbounded marks the
// errors that mean "not bounded" (exit code 2): a loop without bound, an
// irreducible region, an unresolved indirect branch or call, recursion,
// barriers the section analysis cannot order.
type Error struct {
	Pos       token.Position
	Msg       string
	Unbounded bool
	// sections marks the refusals of the barrier-section structure
	// (barriers under divergent control, classes meeting different barrier
	// pairs, a barrier loop whose cycles do not all pass a barrier): they
	// concern multi-warp blocks only (analyzeOneWarp).
	sections bool
}

func (e *Error) Error() string {
	if e.Pos.IsValid() {
		return e.Pos.String() + ": " + e.Msg
	}
	return e.Msg
}

// LoopBound returns the maximum number of executions of the loop's header
// per entry into the loop (a loop entered once and left after n iterations
// executes its header n times). An error means the loop is not bounded; it
// should be an *Error with Unbounded set.
type LoopBound func(l *cfg.Loop) (int64, error)

// Class is a class of warps with identical branch behaviour, with the graph
// its warps follow: the warp-level graph of the divergence pass (a
// divergent branch executes both sides in turn), or the thread-level graph
// for warps that cannot diverge.
type Class struct {
	Warps []int
	Graph *cfg.Graph
}

// Input is what Analyze needs of one kernel.
type Input struct {
	Engine *phases.Engine
	// Graph is the thread-level graph of the kernel (device calls
	// inlined): the barrier path is bounded over it.
	Graph   *cfg.Graph
	Classes []Class
	Bound   LoopBound
	// Uniform reports whether every thread of the block takes the same
	// direction at the branch ending block b of Graph. A branch that can
	// lead threads to different barrier sequences must be uniform. nil
	// means no branch is known to be uniform.
	Uniform func(b *cfg.Block) bool
	// Inlined describes the device calls inlined into Graph (nil: none).
	Inlined *cfg.Inlined
	// Partial asks for the sections even when the block is not bounded
	// (a loop without bound): a section walk or the barrier path that
	// needs an unbounded loop is recorded instead of failing, and the
	// Result has Incomplete set. Its Region still bounds the regions whose
	// stretches need no unknown bound (docs/prem.md, "Phase bounds").
	Partial bool
}

// Result is the static bound of one kernel.
type Result struct {
	Func     string
	HW       *hwdesc.Desc
	NumWarps int
	// Bound is the sound bound of the block, in cycles: the longest path
	// over the barriers of the kernel under the loop bounds, crossing
	// barrier b after barrier a (or the entry, or reaching the end) costing
	// the bound of the segment (a,b).
	Bound hwdesc.Cycles
	// Segments are the edges of the section graph: the pairs of
	// consecutive barriers (From nil: the kernel entry; To nil: the end)
	// some execution can meet, in discovery order, with their bounds.
	Segments []*Segment
	// Loops lists the loop bounds used, by header position.
	Loops []LoopUse
	// CountsExact reports that the Count of every segment is known and
	// Σ Count × Bound over the segments equals Bound. When false, a loop
	// crossing barriers was summarised arithmetically (walkBound's
	// cycle-mean bound, which is not a whole number of crossings) or the
	// worst paths tie with different counts: Count is then the largest
	// number of crossings of the segment on a worst path, or -1 when it
	// could not be computed.
	CountsExact bool
	// OneWarp reports that the block is one warp whose barriers the
	// section analysis could not order: the kernel was bounded as a single
	// section, each block-wide barrier draining the warp
	// (docs/model.md, "One-warp blocks").
	OneWarp bool
	// Incomplete, with Input.Partial, says why the block is not bounded
	// (Bound is then 0 and Loops, Count and CountsExact are not computed):
	// only Region is meaningful, for regions that do not need what is
	// unknown. Failed lists the barriers (nil: the entry) whose sections
	// could not be bounded.
	Incomplete error
	Failed     map[*isa.Instr]*Failure

	// rg is what Region needs to walk a region (nil for a one-warp
	// block bounded as one section).
	rg *regionInput
}

// Failure is a barrier whose sections could not be bounded (Input.Partial).
type Failure struct {
	Err error
	// Next lists the barriers (nil: the end) that the paths from the
	// barrier meet first, found without timing, in block order.
	Next []*isa.Instr
}

// regionInput is the thread-level walk's context, kept for Region.
type regionInput struct {
	g     *cfg.Graph
	ops   map[*isa.Instr]*phases.Op
	d     dims
	bound func(l *cfg.Loop) (int64, error)
	sg    *sectionGraph
	// classes and eng give the region's lower bound (regionLower).
	classes []Class
	eng     *phases.Engine
}

// countScale is M in sectionCounts; a worst path crossing segments more
// than M−1 times in all gives no counts.
const countScale = 1 << 20

// maxCountWalks bounds the extra walks of sectionCounts (one per segment).
const maxCountWalks = 64

// sectionCounts sets each segment's Count, the number of times the worst
// barrier path crosses it. The path is walked again with the weights
// S'(p) = M·S(p) + [p = e] for each pair e: the heaviest path under S' is a
// heaviest one under S (M exceeds the crossings) and crosses e most among
// those, so its weight is M·total + count(e). path walks the barrier path
// over a section graph.
func (r *Result) sectionCounts(sg *sectionGraph, total int64, path func(*sectionGraph) (int64, bool, error)) {
	for _, s := range r.Segments {
		s.Count = -1
	}
	pairs := slices.SortedFunc(maps.Keys(sg.s), func(x, y [2]int) int {
		if x[0] != y[0] {
			return x[0] - y[0]
		}
		return x[1] - y[1]
	})
	if len(pairs) > maxCountWalks {
		return
	}
	count := map[[2]int]int64{}
	for _, e := range pairs {
		sc := &sectionGraph{id: sg.id, end: sg.end, s: map[[2]int]int64{}, iter: map[[2]int]*outcome{}}
		for p, x := range sg.s {
			y, fits := mulAdd(0, countScale, x)
			if !fits {
				return
			}
			if p == e {
				y++
			}
			sc.s[p] = y
		}
		t, ok, err := path(sc)
		base, fits := mulAdd(0, countScale, total)
		if err != nil || !ok || !fits || t < base || t-base >= countScale {
			return
		}
		count[e] = t - base
	}
	var sum int64
	seen := map[[2]int]bool{}
	for _, s := range r.Segments {
		p := sg.pair(s)
		if int64(s.Bound) != sg.s[p] || seen[p] {
			s.Count = 0 // a pair's weight is its largest segment's bound
			continue
		}
		seen[p] = true
		s.Count = count[p]
		sum += s.Count * int64(s.Bound)
	}
	r.CountsExact = sum == total
}

// Segment is one barrier section between two consecutive barriers.
type Segment struct {
	From, To *isa.Instr
	Bound    hwdesc.Cycles // max over classes of WUB
	Classes  []*SegClass   // in the order of Input.Classes
	// Count is the number of times the worst barrier path crosses the
	// segment (Result.CountsExact says whether Σ Count × Bound = the
	// bound); -1 when unknown.
	Count int64
}

// SegClass is the bound of one class of warps over a segment: maxima over
// every path of the class's graph from From to To.
type SegClass struct {
	Warps    []int
	Duration hwdesc.Cycles // D: isolated duration
	Load     hwdesc.Cycles // L: InitSum + Issued of one warp
	// Loads are the per-resource maxima of Issued and InitSum (indexed
	// by resource), each over every path separately.
	Loads []phases.Load
	// Charge holds WUB = D + Interference, the interference charged to
	// one warp of the class by the other warps of the block
	// (bound.SectionBound), and its per-resource breakdown.
	bound.Charge
	// Blocks is the per-block contribution table of the segment: the
	// block ranges on the worst path for L, in block order.
	Blocks []BlockUse

	wit *witness
}

// LoopUse is a loop bound the analysis used.
type LoopUse struct {
	Header *isa.Instr // first instruction of the header block
	Block  *cfg.Block // the header block, in the first graph the loop was met
	Max    int64      // the largest bound the callback returned for it
}

type segKey struct{ from, to *isa.Instr }

// Analyze computes the static bound of a kernel. A block of one warp whose
// barriers the section analysis refuses to order is bounded as a single
// section instead (analyzeOneWarp).
func Analyze(in *Input) (*Result, error) {
	res, err := analyzeSections(in)
	var se *Error
	if err != nil && errors.As(err, &se) && se.sections && oneWarp(in) {
		return analyzeOneWarp(in)
	}
	return res, err
}

// oneWarp reports whether the block is a single warp.
func oneWarp(in *Input) bool {
	n := 0
	for _, c := range in.Classes {
		n += len(c.Warps)
	}
	return n == 1 && len(in.Classes) == 1
}

// loopRecorder wraps the loop bound callback, recording the bounds used.
type loopRecorder struct {
	in      *Input
	fset    *token.FileSet
	used    map[*isa.Instr]int64
	blockOf map[*isa.Instr]*cfg.Block
	order   []*isa.Instr
}

func newLoopRecorder(in *Input, fset *token.FileSet) *loopRecorder {
	return &loopRecorder{in: in, fset: fset, used: map[*isa.Instr]int64{}, blockOf: map[*isa.Instr]*cfg.Block{}}
}

func (r *loopRecorder) bound(l *cfg.Loop) (int64, error) {
	n, err := r.in.Bound(l)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, &Error{Pos: position(r.fset, l.Header.Pos()), Msg: fmt.Sprintf("negative loop bound %d", n)}
	}
	h := l.Header.Instrs[0]
	if _, ok := r.used[h]; !ok {
		r.order = append(r.order, h)
		r.blockOf[h] = l.Header
	}
	r.used[h] = max(r.used[h], n)
	return n, nil
}

// loops returns the loop bounds used, by header position.
func (r *loopRecorder) loops() []LoopUse {
	var out []LoopUse
	for _, h := range r.order {
		out = append(out, LoopUse{Header: h, Block: r.blockOf[h], Max: r.used[h]})
	}
	slices.SortStableFunc(out, func(a, b LoopUse) int { return int(a.Header.Pos - b.Header.Pos) })
	return out
}

// analyzeOneWarp bounds a block of one warp as a single section
// (docs/model.md, "One-warp blocks"): one walk of the class's graph from
// the entry to the end, every loop summarised, each block-wide barrier
// stepped like an ordinary instruction (issuing under
// Pipeline.BarrierIssues) and then draining the warp, which is where the
// engine starts the next section. No other warp waits at a barrier or
// interferes, so the barrier structure needs no check.
func analyzeOneWarp(in *Input) (*Result, error) {
	g := in.Graph
	fset := g.Fset
	c := in.Classes[0]
	if err := refuse(c.Graph); err != nil {
		return nil, err
	}
	ops, err := prepare(in, fset)
	if err != nil {
		return nil, err
	}
	d := dims{units: len(in.Engine.HW().Units), regs: in.Engine.NumRegs()}
	lr := newLoopRecorder(in, fset)
	cg := c.Graph
	w := &walker{g: cg, ops: ops, d: d, timed: true, drain: true, bound: lr.bound,
		hasBar: loopBarriers(cg), cache: map[string][]exitVal{}, weight: interference, loads: true,
		pipe: in.Engine.HW().Pipeline, track: true, delay: map[blockRange]hwdesc.Cycles{}}
	o, err := w.walk(nil, cg.Entry(), 0, val{s: in.Engine.NewState(), ok: true})
	if err != nil {
		return nil, err
	}
	if !o.end.ok {
		return nil, &Error{Pos: position(fset, g.Func.Pos), Unbounded: true, Msg: fmt.Sprintf("%s: no path reaches the end of the kernel", g.Func.Name)}
	}
	v := o.end
	sc := &SegClass{Warps: c.Warps, Duration: v.s.End, Load: hwdesc.Cycles(v.i), Loads: v.l}
	sc.Blocks = w.blockUses(v.wit)
	b, cs, err := bound.SectionBound([]bound.Terms{{Warps: len(c.Warps), Duration: sc.Duration, Load: sc.Load, Loads: sc.Loads}})
	if err != nil {
		return nil, &Error{Pos: position(fset, g.Func.Pos), Msg: err.Error(), Unbounded: overflows(err)}
	}
	sc.Charge = cs[0]
	res := &Result{Func: g.Func.Name, HW: in.Engine.HW(), NumWarps: 1, Bound: b, CountsExact: true, OneWarp: true,
		Segments: []*Segment{{Bound: b, Classes: []*SegClass{sc}, Count: 1}}, Loops: lr.loops()}
	return res, nil
}

// analyzeSections computes the static bound of a kernel by barrier sections.
func analyzeSections(in *Input) (*Result, error) {
	if in.Engine == nil || in.Graph == nil || len(in.Classes) == 0 || in.Bound == nil {
		return nil, fmt.Errorf("static: incomplete input (engine, graph, classes and loop bounds are required)")
	}
	g := in.Graph
	fset := g.Fset
	if err := refuse(g); err != nil {
		return nil, err
	}
	for _, c := range in.Classes {
		if c.Graph != g {
			if err := refuse(c.Graph); err != nil {
				return nil, err
			}
		}
	}
	ops, err := prepare(in, fset)
	if err != nil {
		return nil, err
	}
	d := dims{units: len(in.Engine.HW().Units), regs: in.Engine.NumRegs()}
	res := &Result{Func: g.Func.Name, HW: in.Engine.HW()}
	failed := map[*isa.Instr]error{} // Partial: walks that needed an unknown bound
	used := map[*isa.Instr]int64{}
	blockOf := map[*isa.Instr]*cfg.Block{}
	var order []*isa.Instr
	loopBound := func(l *cfg.Loop) (int64, error) {
		n, err := in.Bound(l)
		if err != nil {
			return 0, err
		}
		if n < 0 {
			return 0, &Error{Pos: position(fset, l.Header.Pos()), Msg: fmt.Sprintf("negative loop bound %d", n)}
		}
		h := l.Header.Instrs[0]
		if _, ok := used[h]; !ok {
			order = append(order, h)
			blockOf[h] = l.Header
		}
		used[h] = max(used[h], n)
		return n, nil
	}

	// Per class: the section graph and the D/I of every segment.
	segs := make([]map[segKey]*SegClass, len(in.Classes))
	var keys []segKey
	seen := map[segKey]bool{}
	for ci, c := range in.Classes {
		res.NumWarps += len(c.Warps)
		cg := c.Graph
		where, err := barrierSites(cg, fset)
		if err != nil {
			return nil, err
		}
		hasBar := loopBarriers(cg)
		w := &walker{g: cg, ops: ops, d: d, timed: true, stop: true, bound: loopBound,
			hasBar: hasBar, freeBar: freeBarrierCycles(cg, hasBar), cache: map[string][]exitVal{}, weight: interference, loads: true,
			pipe: in.Engine.HW().Pipeline, track: true, delay: map[blockRange]hwdesc.Cycles{}}
		segs[ci] = map[segKey]*SegClass{}
		todo := []*isa.Instr{nil}
		done := map[*isa.Instr]bool{nil: true}
		var sites []*isa.Instr // the class's barriers, in block order (Partial)
		for _, blk := range cg.Blocks {
			for _, x := range blk.Instrs {
				if _, ok := where[x]; ok && phases.IsSync(x) && !slices.Contains(sites, x) {
					sites = append(sites, x)
				}
			}
		}
		for len(todo) > 0 {
			from := todo[0]
			todo = todo[1:]
			if len(todo) == 0 && len(failed) > 0 {
				for _, bar := range sites {
					if !done[bar] {
						done[bar] = true
						todo = append(todo, bar)
					}
				}
			}
			b, k := cg.Entry(), 0
			if from != nil {
				site := where[from]
				b, k = site.b, site.k+1
			}
			o, err := w.walk(nil, b, k, val{s: in.Engine.NewState(), ok: true})
			if err != nil {
				if !in.Partial || !Unbounded(err) {
					return nil, err
				}
				if _, ok := failed[from]; !ok {
					failed[from] = err
				}
				if len(todo) == 0 {
					// The barriers after it may be reached by paths the
					// walk could not follow: walk from every barrier.
					for _, bar := range sites {
						if !done[bar] {
							done[bar] = true
							todo = append(todo, bar)
						}
					}
				}
				continue
			}
			add := func(to *isa.Instr, v *val) {
				sk := segKey{from, to}
				segs[ci][sk] = &SegClass{Warps: c.Warps, Duration: v.s.End, Load: hwdesc.Cycles(v.i), Loads: v.l, wit: v.wit}
				if !seen[sk] {
					seen[sk] = true
					keys = append(keys, sk)
				}
			}
			for _, to := range o.barOrder {
				add(to, o.arrivals[to])
				if !done[to] {
					done[to] = true
					todo = append(todo, to)
				}
			}
			if o.end.ok {
				add(nil, &o.end)
			}
		}
		for _, sc := range segs[ci] {
			sc.Blocks, sc.wit = w.blockUses(sc.wit), nil
		}
	}
	if len(failed) > 0 {
		// The sections from a barrier whose walk failed in some class are
		// unknown in every class.
		keys = slices.DeleteFunc(keys, func(sk segKey) bool { _, f := failed[sk.from]; return f })
	}
	// Every class must meet the same barrier pairs.
	for ci := range in.Classes {
		for _, sk := range keys {
			if segs[ci][sk] == nil {
				other := 0
				for cj := range in.Classes {
					if segs[cj][sk] != nil {
						other = cj
						break
					}
				}
				return nil, &Error{Pos: segPos(fset, g, sk), Unbounded: true, sections: true, Msg: fmt.Sprintf(
					"warps %v can go from %s to %s but warps %v cannot: warps may reach different barrier sequences (barrier divergence is undefined behaviour in CUDA)",
					in.Classes[other].Warps, barName(fset, sk.from, "the kernel entry"), barName(fset, sk.to, "the end"), in.Classes[ci].Warps)}
			}
		}
	}
	if err := checkUniform(g, in.Uniform, fset); err != nil {
		return nil, err
	}

	// Segment bounds: the edge weights of the section graph.
	for _, sk := range keys {
		s := &Segment{From: sk.from, To: sk.to}
		ts := make([]bound.Terms, len(in.Classes))
		for ci := range in.Classes {
			sc := segs[ci][sk]
			s.Classes = append(s.Classes, sc)
			ts[ci] = bound.Terms{Warps: len(sc.Warps), Duration: sc.Duration, Load: sc.Load, Loads: sc.Loads}
		}
		b, cs, err := bound.SectionBound(ts)
		if err != nil {
			return nil, &Error{Pos: segPos(fset, g, sk), Msg: err.Error(), Unbounded: overflows(err)}
		}
		for ci, x := range cs {
			s.Classes[ci].Charge = x
		}
		s.Bound = b
		res.Segments = append(res.Segments, s)
	}

	// The barrier path: longest path over the thread-level graph under the
	// loop bounds, crossing barrier b after barrier a costing S(a,b)
	// (docs/model.md, "Edge-weighted barrier path").
	sg := newSectionGraph(res.Segments)
	if len(failed) > 0 {
		res.Failed = map[*isa.Instr]*Failure{}
		for bar, err := range failed {
			res.Failed[bar] = &Failure{Err: err, Next: nextBarriers(g, bar)}
		}
		sg.failed = map[int]error{}
		for _, bar := range slices.SortedFunc(maps.Keys(failed), func(a, b *isa.Instr) int { return instrIndex(a) - instrIndex(b) }) {
			if bar != nil && sg.id[bar] == 0 {
				sg.id[bar] = len(sg.id) + 1
			}
		}
		// Renumber the end after the failed barriers.
		end := len(sg.id) + 1
		for p, x := range sg.s {
			if p[1] == sg.end {
				delete(sg.s, p)
				sg.s[[2]int{p[0], end}] = x
			}
		}
		sg.end = end
		for bar, err := range failed {
			sg.failed[sg.id[bar]] = err
		}
	}
	res.rg = &regionInput{g: g, ops: ops, d: d, bound: in.Bound, sg: sg, classes: in.Classes, eng: in.Engine}
	path := func(sg *sectionGraph) (total int64, ok bool, err error) {
		pw := &walker{g: g, ops: ops, d: d, stop: false, bound: loopBound, hasBar: loopBarriers(g),
			cache: map[string][]exitVal{}, sect: sg}
		o, err := pw.walk(nil, g.Entry(), 0, val{ok: true, c: ctxVec{0: 0}})
		if err != nil {
			return 0, false, err
		}
		if o.end.ok {
			if total, ok, err = sg.cross(o.end.c, sg.end); err != nil {
				var se *Error
				if errors.As(err, &se) {
					return 0, false, err
				}
				return 0, false, &Error{Pos: position(fset, g.Func.Pos), Msg: err.Error(), Unbounded: overflows(err)}
			}
		}
		return total, ok, nil
	}
	total, ok, err := path(sg)
	if err == nil && !ok {
		err = &Error{Pos: position(fset, g.Func.Pos), Unbounded: true, Msg: fmt.Sprintf("%s: no path reaches the end of the kernel", g.Func.Name)}
	}
	if err != nil {
		if !in.Partial || !Unbounded(err) {
			return nil, err
		}
		res.Incomplete = err
		return res, nil
	}
	if len(failed) > 0 {
		// Cannot happen: a path in a failed context fails the walk.
		return nil, fmt.Errorf("static: internal error: the block is bounded but the sections from %d barriers are not", len(failed))
	}
	res.Bound = hwdesc.Cycles(total)
	res.sectionCounts(sg, total, path)
	for _, h := range order {
		res.Loops = append(res.Loops, LoopUse{Header: h, Block: blockOf[h], Max: used[h]})
	}
	slices.SortStableFunc(res.Loops, func(a, b LoopUse) int { return int(a.Header.Pos - b.Header.Pos) })
	return res, nil
}

// nextBarriers returns the block-wide barriers (nil: the end) that the
// paths of g from barrier from (nil: the entry) meet first, in block order.
func nextBarriers(g *cfg.Graph, from *isa.Instr) []*isa.Instr {
	type pt struct {
		b *cfg.Block
		k int
	}
	var todo []pt
	if from == nil {
		todo = append(todo, pt{g.Entry(), 0})
	}
	for _, b := range g.Blocks {
		for i, x := range b.Instrs {
			if x == from {
				todo = append(todo, pt{b, i + 1})
			}
		}
	}
	found := map[*isa.Instr]bool{}
	end := false
	seen := map[*cfg.Block]bool{}
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if p.b == g.Exit {
			end = true
			continue
		}
		stopped := false
		for _, x := range p.b.Instrs[p.k:] {
			if phases.IsSync(x) {
				found[x], stopped = true, true
				break
			}
		}
		if stopped {
			continue
		}
		for _, e := range p.b.Succs {
			if !seen[e.To] {
				seen[e.To] = true
				todo = append(todo, pt{e.To, 0})
			}
		}
	}
	var out []*isa.Instr
	for _, b := range g.Blocks {
		for _, x := range b.Instrs {
			if found[x] {
				out = append(out, x)
				delete(found, x)
			}
		}
	}
	if end {
		out = append(out, nil)
	}
	return out
}

// instrIndex orders barriers, nil (the entry) first.
func instrIndex(in *isa.Instr) int {
	if in == nil {
		return -1
	}
	return in.Index
}

// overflows reports whether err is a bound beyond 64-bit cycles: the
// kernel is valid but not bounded (exit code 2), like the walks' own
// overflow errors.
func overflows(err error) bool {
	return errors.Is(err, errOverflow) || strings.Contains(err.Error(), "overflows 64-bit cycles")
}

// interference is the weight of an instruction in L = InitSum + Issued.
func interference(op *phases.Op) int64 {
	if !op.Issues() {
		return 0
	}
	return int64(op.Init) + 1
}

func position(fset *token.FileSet, pos token.Pos) token.Position {
	if fset == nil || !pos.IsValid() {
		return token.Position{}
	}
	return fset.Position(pos)
}

func (w *walker) pos(p token.Pos) token.Position { return position(w.g.Fset, p) }

func (w *walker) posString(p token.Pos) string {
	if q := w.pos(p); q.IsValid() {
		return q.String()
	}
	return "?"
}

func barName(fset *token.FileSet, in *isa.Instr, none string) string {
	if in == nil {
		return none
	}
	if p := position(fset, in.Pos); p.IsValid() {
		return fmt.Sprintf("%q at line %d", in.Text, p.Line)
	}
	return fmt.Sprintf("%q", in.Text)
}

func segPos(fset *token.FileSet, g *cfg.Graph, sk segKey) token.Position {
	switch {
	case sk.to != nil:
		return position(fset, sk.to.Pos)
	case sk.from != nil:
		return position(fset, sk.from.Pos)
	}
	return position(fset, g.Func.Pos)
}

// refuse rejects what no structural analysis can bound: irreducible
// regions and unresolved indirect branches.
func refuse(g *cfg.Graph) error {
	if len(g.Unresolved) > 0 {
		in := g.Unresolved[0]
		return &Error{Pos: position(g.Fset, in.Pos), Unbounded: true, Msg: fmt.Sprintf("indirect branch %q has no known targets (add a .branchtargets list)", in.Text)}
	}
	if len(g.Irreducible) > 0 {
		r := g.Irreducible[0]
		return &Error{Pos: position(g.Fset, r.Entries[0].Pos()), Unbounded: true, Msg: fmt.Sprintf("irreducible loop entered at %d blocks: no loop bound applies", len(r.Entries))}
	}
	return nil
}

// prepare prepares every instruction of every graph once.
func prepare(in *Input, fset *token.FileSet) (map[*isa.Instr]*phases.Op, error) {
	ops := map[*isa.Instr]*phases.Op{}
	graphs := []*cfg.Graph{in.Graph}
	for _, c := range in.Classes {
		graphs = append(graphs, c.Graph)
	}
	for _, g := range graphs {
		for _, b := range g.Blocks {
			for _, x := range b.Instrs {
				if ops[x] != nil {
					continue
				}
				if in.Inlined != nil && in.Inlined.NoIssue[x] {
					// An inlined return: timed as the ret it replaces
					// (issuing under Pipeline.RetIssues), without the
					// branch's control hazard (the engine gives ret none).
					ret := in.Inlined.Returns[x]
					if ret == nil {
						ops[x] = &phases.Op{Instr: x, Unit: phases.NoUnit}
						continue
					}
					op, err := in.Engine.Prepare(fset, ret)
					if err != nil {
						return nil, err
					}
					op.Instr = x
					ops[x] = &op
					continue
				}
				if (x.Kind == isa.KindIndirectCall || x.Kind == isa.KindCall) && (in.Inlined == nil || !in.Inlined.Calls[x]) {
					return nil, &Error{Pos: position(fset, x.Pos), Unbounded: true, Msg: fmt.Sprintf("call %q was not inlined: its callee's code is unknown", x.Text)}
				}
				op, err := in.Engine.Prepare(fset, x)
				if err != nil {
					return nil, err
				}
				ops[x] = &op
			}
		}
	}
	return ops, nil
}

type site struct {
	b *cfg.Block
	k int
}

// barrierSites maps every block-wide barrier of g to its block and index;
// a barrier copied into several blocks (under divergent control in a
// warp-level graph) is an error.
func barrierSites(g *cfg.Graph, fset *token.FileSet) (map[*isa.Instr]site, error) {
	m := map[*isa.Instr]site{}
	for _, b := range g.Blocks {
		if !b.Reachable {
			continue
		}
		for k, x := range b.Instrs {
			if !phases.IsSync(x) {
				continue
			}
			if _, dup := m[x]; dup {
				return nil, &Error{Pos: position(fset, x.Pos), Unbounded: true, sections: true, Msg: fmt.Sprintf("barrier %q is under divergent control: warps may reach different barrier sequences (barrier divergence is undefined behaviour in CUDA)", x.Text)}
			}
			m[x] = site{b, k}
		}
	}
	return m, nil
}

// loopBarriers reports, by loop index, whether a loop's body holds a
// block-wide barrier.
func loopBarriers(g *cfg.Graph) []bool {
	has := make([]bool, len(g.Loops))
	for _, l := range g.Loops {
		for _, b := range l.Blocks {
			if slices.ContainsFunc(b.Instrs, phases.IsSync) {
				has[l.Index] = true
				break
			}
		}
	}
	return has
}

// freeBarrierCycles returns, by loop index, whether loop l holds a
// block-wide barrier and l or a loop nested in it (holding one too) has a
// cycle through its header that passes no barrier: an iteration that
// crosses no barrier, which a segment walk must summarise instead of
// walking (docs/model.md, "Barrier loops with barrier-free iterations").
// A cycle passes every instruction of its blocks, so it passes no barrier
// exactly when none of its blocks holds one; every cycle of a reducible
// graph passes the header of the innermost loop containing it.
func freeBarrierCycles(g *cfg.Graph, hasBar []bool) []bool {
	free := make([]bool, len(g.Loops))
	noBar := func(b *cfg.Block) bool { return !slices.ContainsFunc(b.Instrs, phases.IsSync) }
	loops := slices.Clone(g.Loops)
	slices.SortStableFunc(loops, func(a, b *cfg.Loop) int { return b.Depth - a.Depth }) // innermost first
	for _, l := range loops {
		if !hasBar[l.Index] {
			continue
		}
		for _, c := range l.Children {
			free[l.Index] = free[l.Index] || free[c.Index]
		}
		if free[l.Index] || !noBar(l.Header) {
			continue
		}
		// Is the header reachable from itself through barrier-free
		// blocks of l?
		seen := map[*cfg.Block]bool{}
		stack := []*cfg.Block{l.Header}
		for len(stack) > 0 && !free[l.Index] {
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, e := range b.Succs {
				switch {
				case e.To == l.Header:
					free[l.Index] = true
				case e.To != g.Exit && l.Contains(e.To) && !seen[e.To] && noBar(e.To):
					seen[e.To] = true
					stack = append(stack, e.To)
				}
			}
		}
	}
	return free
}

// checkUniform rejects a non-uniform branch whose successors lead to
// different next barriers: warps (or threads) could then reach different
// barrier sequences. NB(b), the set of barriers (and the end) reachable
// from the start of b before any barrier, is a least fixpoint over sets.
func checkUniform(g *cfg.Graph, uniform func(*cfg.Block) bool, fset *token.FileSet) error {
	idx := map[*isa.Instr]int{}
	first := make([]int, len(g.Blocks)) // index of the block's first barrier, -1 if none
	for _, b := range g.Blocks {
		first[b.Index] = -1
		for _, x := range b.Instrs {
			if phases.IsSync(x) {
				if _, ok := idx[x]; !ok {
					idx[x] = len(idx) + 1 // 0 is the end
				}
				if first[b.Index] < 0 {
					first[b.Index] = idx[x]
				}
			}
		}
	}
	if len(idx) == 0 {
		return nil
	}
	words := (len(idx) + 1 + 63) / 64
	nb := make([][]uint64, len(g.Blocks)+1)
	for i := range nb {
		nb[i] = make([]uint64, words)
	}
	nb[g.Exit.Index][0] = 1
	for _, b := range g.Blocks {
		if first[b.Index] >= 0 {
			x := first[b.Index]
			nb[b.Index][x/64] |= 1 << (x % 64)
		}
	}
	for changed := true; changed; {
		changed = false
		for i := len(g.Blocks) - 1; i >= 0; i-- {
			b := g.Blocks[i]
			if first[i] >= 0 || !b.Reachable {
				continue
			}
			for _, e := range b.Succs {
				for k, v := range nb[e.To.Index] {
					if nb[i][k]|v != nb[i][k] {
						nb[i][k] |= v
						changed = true
					}
				}
			}
		}
	}
	for _, b := range g.Blocks {
		if !b.Reachable || len(b.Succs) < 2 {
			continue
		}
		s0 := nb[b.Succs[0].To.Index]
		for _, e := range b.Succs[1:] {
			if slices.Equal(s0, nb[e.To.Index]) {
				continue
			}
			if uniform != nil && uniform(b) {
				break
			}
			last := b.Last()
			return &Error{Pos: position(fset, last.Pos), Unbounded: true, sections: true, Msg: fmt.Sprintf("branch %q is not known to be uniform across the block and its sides reach different barriers: warps may reach different barrier sequences (barrier divergence is undefined behaviour in CUDA)", last.Text)}
		}
	}
	return nil
}
