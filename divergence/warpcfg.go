package divergence

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
)

// The warp-level CFG of a class is built by exploring states (thread-level
// block, stack of frames). A frame is pushed when the warp enters one side
// of a divergent branch: it names the reconvergence point R, the sides
// still to run (pending) and, for a lane group that leaves a loop early,
// the loop side to resume instead of R. When the active lanes reach R (or
// exit), the warp runs the next pending side (an EdgeResume edge), and
// after the last one pops the frame and continues at R with the lanes of
// the enclosing frame. Each distinct state becomes one block copying its
// thread-level block, so the graph is a cfg.Graph on which dominators,
// loops, Check, Format and cfgdot work unchanged.
//
// Orders: a divergent branch keeps its thread-level edges (the active
// lanes may all agree), and gets one more successor per order of its
// non-empty sides when there are several (taken first, as measured on
// Pascal, and fall-through first, as other SIMT-stack implementations may
// do); the timing analysis takes the worst. A side equal to R is empty and
// is not run: with one non-empty side, the lanes of the other wait at R.
//
// Loops: a divergent branch one of whose sides comes back to it before R
// (a loop exit, or a branch in a loop whose reconvergence is outside the
// loop) does not push a frame on its looping sides: the warp stays in the
// loop as long as one lane does, so the branch keeps its thread-level
// edges as alternatives and the loop stays a loop. For each exiting side
// S (S != R) there is one more alternative: the lanes leaving now run S
// up to R, then the warp resumes the looping side (frame with resume).

const exitIdx = -1

type frame struct {
	r       int   // reconvergence block index, or exitIdx
	pending []int // sides still to run
	resume  int   // block to resume after R (loop exits), or -2

	// A drain frame (sides != nil) runs lane groups that left a loop and
	// waited for the looping lanes to reach r, each through one of sides
	// (the exit sides of the branches reconverging at r, and the sides of
	// branches that split a drained group again with reconvergence r, in
	// whichever order the stack runs them): left is how many more groups
	// may follow the running one, wait whether lanes wait at r (the
	// looping lanes, or a group that reached it) rather than having all
	// exited.
	sides []int
	left  int
	wait  bool
}

const noResume = -2

type state struct {
	b   int // thread-level block index, or exitIdx
	ctx []frame
}

func (s state) key() string {
	var sb strings.Builder
	sb.WriteString(strconv.Itoa(s.b))
	for _, f := range s.ctx {
		sb.WriteString("|")
		sb.WriteString(strconv.Itoa(f.r))
		sb.WriteString(":")
		for _, p := range f.pending {
			sb.WriteString(strconv.Itoa(p))
			sb.WriteString(",")
		}
		sb.WriteString(":")
		sb.WriteString(strconv.Itoa(f.resume))
		if f.sides != nil {
			sb.WriteString(":d")
			for _, d := range f.sides {
				sb.WriteString(strconv.Itoa(d))
				sb.WriteString(",")
			}
			sb.WriteString(strconv.Itoa(f.left))
			if f.wait {
				sb.WriteString("w")
			}
		}
	}
	return sb.String()
}

func push(ctx []frame, f frame) []frame {
	out := make([]frame, len(ctx), len(ctx)+1)
	copy(out, ctx)
	return append(out, f)
}

// dest is a normalised target: a thread block (or exitIdx) and the frames
// it runs under.
type dest struct {
	t   int
	ctx []frame
}

// normalize applies reconvergence: while the target is the top frame's R
// (or the exit), run the next pending side, or pop the frame. At the end
// of a drain frame's group the warp may run one more waiting group (any of
// the frame's sides) while left > 0, or end the drain: so normalize
// returns every alternative.
func (w *warpBuilder) normalize(t int, ctx []frame) []dest {
	for len(ctx) > 0 {
		top := ctx[len(ctx)-1]
		if t != top.r && t != exitIdx {
			break
		}
		rest := ctx[: len(ctx)-1 : len(ctx)-1]
		if top.sides != nil {
			wait := top.wait || t == top.r
			var out []dest
			if top.left > 0 {
				for _, d := range top.sides {
					out = append(out, dest{t: d, ctx: push(rest, frame{r: top.r, resume: noResume, sides: top.sides, left: top.left - 1, wait: wait})})
				}
			}
			nt := t
			if wait {
				nt = top.r
			}
			return append(out, w.normalize(nt, rest)...)
		}
		if len(top.pending) > 0 {
			t = top.pending[0]
			ctx = push(rest, frame{r: top.r, pending: top.pending[1:], resume: top.resume})
			continue
		}
		ctx = rest
		if top.resume != noResume {
			t = top.resume
			continue
		}
		if t == exitIdx && top.r != exitIdx {
			// The active lanes exited; the lanes waiting at R go on.
			t = top.r
		}
	}
	return []dest{{t: t, ctx: ctx}}
}

// drainSpec is a divergent branch of the class that lane groups may leave
// a loop by, through exit sides that run code before R: those groups may
// wait for the looping lanes (leavers last) and run after them.
type drainSpec struct {
	b      *cfg.Block // the branch's block
	r      int        // reconvergence point (block index or exitIdx)
	sides  []int      // exit sides other than R and the exit
	region []bool     // by thread block: reached from the branch before R
}

// drains returns the drain alternatives of an edge from thread block x to
// t (before normalisation) under ctx: for each reconvergence point R the
// looping lanes may be arriving at (t is R, or the exit) from the region
// of a branch reconverging there, one destination per exit side of the
// branches reconverging at R, under a new drain frame. None when the edge
// is a side group's own arrival (the top frame is a resume or drain frame
// of R: a running drain takes every later group of R, see expand) or
// lanes of an enclosing side inside the region are still to run (the top
// frame reconverges in the region).
func (w *warpBuilder) drains(x, t int, ctx []frame) []dest {
	if w.drainMax <= 0 || len(w.specs) == 0 {
		return nil
	}
	var rs []int
	for _, sp := range w.specs {
		if !sp.region[x] || t != sp.r && t != exitIdx || slices.Contains(rs, sp.r) {
			continue
		}
		if len(ctx) > 0 {
			top := ctx[len(ctx)-1]
			if top.r == sp.r && (top.resume != noResume || top.sides != nil) {
				continue
			}
			if top.r != sp.r && top.r != exitIdx && sp.region[top.r] {
				continue
			}
		}
		rs = append(rs, sp.r)
	}
	slices.Sort(rs)
	var out []dest
	for _, r := range rs {
		if w.drainLen[r] <= 0 {
			continue
		}
		ds := w.sides[r]
		for _, d := range ds {
			out = append(out, dest{t: d, ctx: push(ctx, frame{r: r, resume: noResume, sides: ds, left: w.drainLen[r] - 1, wait: t == r})})
		}
	}
	return out
}

type warpBuilder struct {
	g        *cfg.Graph
	branches map[*cfg.Block]int // thread block -> index in Branches
	brs      []*Branch
	out      []Outcome
	max      int // copies of blocks beyond the thread-level CFG's
	maxSides int
	launch   bool // the launch configuration is known
	fn       string
	class    string
	drainMax int // most lane groups that may wait to leave a loop (lanes-1)
	// loopBound gives thread-level loop bounds (nil: unknown);
	// drainLen, by reconvergence point, the most groups a drain runs.
	loopBound func(*cfg.Loop) (int64, bool)
	drainLen  map[int]int
	specs     []drainSpec
	sides     map[int][]int // by reconvergence point: the exit sides of its specs, sorted

	states []state
	index  map[string]int
	queue  []int
	edges  [][]wedge
}

type wedge struct {
	to   int // state index, or exitIdx
	kind cfg.EdgeKind
}

func (w *warpBuilder) blockIdx(b *cfg.Block) int {
	if b == w.g.Exit {
		return exitIdx
	}
	return b.Index
}

func (w *warpBuilder) node(t int, ctx []frame) (int, error) {
	if t == exitIdx {
		return exitIdx, nil
	}
	s := state{b: t, ctx: ctx}
	k := s.key()
	if i, ok := w.index[k]; ok {
		return i, nil
	}
	if len(w.states) >= len(w.g.Blocks)+w.max {
		return 0, &LimitError{Func: w.fn, Class: w.class, Limit: w.max, Thread: len(w.g.Blocks), Launch: w.launch}
	}
	i := len(w.states)
	w.states = append(w.states, s)
	w.edges = append(w.edges, nil)
	w.index[k] = i
	w.queue = append(w.queue, i)
	return i, nil
}

// add adds edges from state i towards thread block t (in context ctx)
// taken along a thread-level edge of kind k: to t after reconvergence, and
// to every drain alternative.
func (w *warpBuilder) add(i int, t int, ctx []frame, k cfg.EdgeKind) error {
	ds := w.normalize(t, ctx)
	for _, d := range w.drains(w.states[i].b, t, ctx) {
		ds = append(ds, w.normalize(d.t, d.ctx)...)
	}
	for _, d := range ds {
		kind := k
		if d.t != t {
			kind = cfg.EdgeResume
		}
		if err := w.edge(i, d.t, d.ctx, kind); err != nil {
			return err
		}
	}
	return nil
}

func (w *warpBuilder) edge(i, nt int, nctx []frame, k cfg.EdgeKind) error {
	j, err := w.node(nt, nctx)
	if err != nil {
		return err
	}
	for _, e := range w.edges[i] {
		if e.to == j {
			return nil
		}
	}
	w.edges[i] = append(w.edges[i], wedge{to: j, kind: k})
	return nil
}

func (w *warpBuilder) build() (*cfg.Graph, map[*cfg.Block]int, map[*cfg.Block]bool, error) {
	w.index = map[string]int{}
	w.specs = w.drainSpecs()
	w.sides = map[int][]int{}
	for _, sp := range w.specs {
		for _, d := range sp.sides {
			if !slices.Contains(w.sides[sp.r], d) {
				w.sides[sp.r] = append(w.sides[sp.r], d)
			}
		}
	}
	for _, ds := range w.sides {
		slices.Sort(ds)
	}
	w.drainLen = w.drainLengths()
	if _, err := w.node(0, nil); err != nil {
		return nil, nil, nil, err
	}
	for len(w.queue) > 0 {
		i := w.queue[0]
		w.queue = w.queue[1:]
		if err := w.expand(i); err != nil {
			return nil, nil, nil, err
		}
	}
	// Number blocks by thread-level block, then discovery order; the
	// entry state stays first.
	order := make([]int, len(w.states))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		if order[a] == 0 || order[b] == 0 {
			return order[a] == 0 && order[b] != 0
		}
		return w.states[order[a]].b < w.states[order[b]].b
	})
	pos := make([]int, len(w.states))
	origins := make([]*cfg.Block, len(w.states))
	for p, i := range order {
		pos[i] = p
		origins[p] = w.g.Blocks[w.states[i].b]
	}
	wg, err := cfg.Derive(w.g, origins)
	if err != nil {
		return nil, nil, nil, err
	}
	depth := map[*cfg.Block]int{}
	reconv := map[*cfg.Block]bool{}
	for p, i := range order {
		from := wg.Blocks[p]
		depth[from] = len(w.states[i].ctx)
		for _, e := range w.edges[i] {
			to := wg.Exit
			if e.to != exitIdx {
				to = wg.Blocks[pos[e.to]]
				if len(w.states[e.to].ctx) < len(w.states[i].ctx) {
					reconv[to] = true
				}
			}
			wg.AddEdge(from, to, e.kind)
		}
	}
	wg.Recompute()
	return wg, depth, reconv, nil
}

// drainLengths bounds, per reconvergence point R, the lane groups that may
// wait at R: lanes-1 (each group holds a lane, the looping lanes keep
// one), and, when every loop bound is known, the executions of the
// branches reconverging at R in one episode (a group splits off at most
// once per execution of a branch; a branch runs at most the product of
// the bounds of the loops holding it per entry into the outermost, and an
// episode from the branch to R lies within one such entry: leaving that
// loop and entering it again would need a cycle around it, a loop holding
// it).
func (w *warpBuilder) drainLengths() map[int]int {
	out := map[int]int{}
	known := map[int]bool{}
	sum := map[int]int64{}
	for _, sp := range w.specs {
		if _, ok := known[sp.r]; !ok {
			known[sp.r] = w.loopBound != nil
		}
		n := int64(1)
		for l := sp.b.Loop; l != nil && known[sp.r]; l = l.Parent {
			b, ok := w.loopBound(l)
			if !ok {
				known[sp.r] = false
				break
			}
			if b > int64(w.drainMax) {
				n = int64(w.drainMax) + 1
			} else {
				n = min(n*max(b, 1), int64(w.drainMax)+1)
			}
		}
		sum[sp.r] = min(sum[sp.r]+n, int64(w.drainMax)+1)
	}
	for r := range known {
		out[r] = w.drainMax
		if known[r] {
			out[r] = min(w.drainMax, int(sum[r]))
		}
	}
	return out
}

// drainSpecs lists the divergent branches of the class that leave a loop
// with a lane group that runs code before reconverging.
func (w *warpBuilder) drainSpecs() []drainSpec {
	var out []drainSpec
	for k, br := range w.brs {
		if w.out[k] != Divergent || br.Exit {
			continue
		}
		b := br.Block
		r := w.blockIdx(br.Reconv)
		loops, sp := false, drainSpec{b: b, r: r}
		for _, e := range b.Succs {
			t := w.blockIdx(e.To)
			switch {
			case t == r || t == exitIdx:
			case w.g.Reaches(e.To, b, br.Reconv):
				loops = true
			case !slices.Contains(sp.sides, t):
				sp.sides = append(sp.sides, t)
			}
		}
		if !loops || len(sp.sides) == 0 {
			continue
		}
		// The region: blocks reached from the branch before R.
		sp.region = make([]bool, len(w.g.Blocks))
		sp.region[b.Index] = true
		stack := []*cfg.Block{b}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, e := range x.Succs {
				y := e.To
				if y == w.g.Exit || y == br.Reconv || sp.region[y.Index] {
					continue
				}
				sp.region[y.Index] = true
				stack = append(stack, y)
			}
		}
		out = append(out, sp)
	}
	return out
}

func (w *warpBuilder) expand(i int) error {
	s := w.states[i]
	b := w.g.Blocks[s.b]
	all := func() error {
		for _, e := range b.Succs {
			if err := w.add(i, w.blockIdx(e.To), s.ctx, e.Kind); err != nil {
				return err
			}
		}
		return nil
	}
	k, ok := w.branches[b]
	if !ok {
		return all()
	}
	br := w.brs[k]
	switch w.out[k] {
	case Taken:
		if b.Kind == cfg.BlockIndirect {
			return all()
		}
		e := b.Succs[0]
		return w.add(i, w.blockIdx(e.To), s.ctx, e.Kind)
	case NotTaken:
		if b.Kind == cfg.BlockIndirect {
			return all()
		}
		e := b.Succs[len(b.Succs)-1]
		return w.add(i, w.blockIdx(e.To), s.ctx, e.Kind)
	case Unknown:
		return all()
	}
	// Divergent.
	if br.Exit {
		return all() // leaving lanes never come back
	}
	r := w.blockIdx(br.Reconv)
	type side struct {
		b    int
		kind cfg.EdgeKind
		loop bool
	}
	var ss []side
	for _, e := range b.Succs {
		t := w.blockIdx(e.To)
		dup := false
		for _, x := range ss {
			dup = dup || x.b == t
		}
		if dup || t == r {
			continue
		}
		ss = append(ss, side{b: t, kind: e.Kind, loop: t != exitIdx && w.g.Reaches(e.To, b, br.Reconv)})
	}
	var loopSides, exitSides []side
	for _, x := range ss {
		if x.loop {
			loopSides = append(loopSides, x)
		} else {
			exitSides = append(exitSides, x)
		}
	}
	if len(loopSides) > 0 {
		if err := all(); err != nil {
			return err
		}
		for _, x := range exitSides {
			for _, c := range loopSides {
				f := frame{r: r, resume: c.b}
				if err := w.add(i, x.b, push(s.ctx, f), x.kind); err != nil {
					return err
				}
			}
		}
		return nil
	}
	// The lanes active here may also all agree: each side alone is a
	// path too (a side with no active lane is skipped by the hardware).
	if err := all(); err != nil {
		return err
	}
	if len(ss) < 2 {
		return nil
	}
	if n := len(s.ctx); n > 0 && s.ctx[n-1].sides != nil && s.ctx[n-1].r == r {
		// A drained group splits again with the same reconvergence
		// point: its groups wait at the drain's level (no new stack
		// entry), so they join the drain's groups, in any order.
		top := s.ctx[n-1]
		left := top.left - (len(ss) - 1)
		if left < 0 {
			return nil // more groups than lanes
		}
		sides := slices.Clone(top.sides)
		for _, x := range ss {
			if !slices.Contains(sides, x.b) {
				sides = append(sides, x.b)
			}
		}
		slices.Sort(sides)
		rest := s.ctx[: n-1 : n-1]
		for _, x := range ss {
			f := frame{r: r, resume: noResume, sides: sides, left: left, wait: top.wait}
			if err := w.add(i, x.b, push(rest, f), x.kind); err != nil {
				return err
			}
		}
		return nil
	}
	if len(ss) > w.maxSides {
		return &LimitError{Func: w.fn, Class: w.class, Limit: w.max, Thread: len(w.g.Blocks),
			What: fmt.Sprintf("divergent branch %q has %d sides (at most %d orders enumerated)", br.Instr.Text, len(ss), w.maxSides)}
	}
	for _, p := range perms(len(ss)) {
		pend := make([]int, 0, len(p)-1)
		for _, j := range p[1:] {
			pend = append(pend, ss[j].b)
		}
		first := ss[p[0]]
		if err := w.add(i, first.b, push(s.ctx, frame{r: r, pending: pend, resume: noResume}), first.kind); err != nil {
			return err
		}
	}
	return nil
}

// perms returns the permutations of 0..n-1 in lexicographic order (the
// identity, taken side first, comes first).
func perms(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	used := make([]bool, n)
	cur := make([]int, 0, n)
	var rec func()
	rec = func() {
		if len(cur) == n {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for i := 0; i < n; i++ {
			if !used[i] {
				used[i] = true
				cur = append(cur, i)
				rec()
				cur = cur[:len(cur)-1]
				used[i] = false
			}
		}
	}
	rec()
	return out
}
