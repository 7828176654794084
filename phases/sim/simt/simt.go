// Package simt draws concrete executions of a thread block through a
// kernel with control flow, for the reference simulator (package sim):
// each warp's lanes run through the THREAD-level CFG on a SIMT
// reconvergence stack, with random per-lane branch outcomes, and the
// instructions the warp issues form its path.
//
// # What is drawn, what is fixed
//
//   - Branches the divergence pass resolves for the warp's class
//     (always-taken, never-taken) take that edge in every lane.
//   - Warp-uniform branches of unknown outcome take one random edge for the
//     whole warp; when the sides of such a branch lead to different next
//     barriers (a barrier-deciding branch) the k-th execution of it takes
//     the same edge in every warp of the block (CUDA's rule for
//     __syncthreads in conditional code, which the static analysis assumes).
//   - Possibly divergent branches draw an edge per lane (each execution
//     draws a bias first, so that "all lanes agree" and "all lanes disagree"
//     are both frequent). Lanes leaving by a guarded ret/exit finish.
//   - Loop bounds (the maximum number of executions of a header per entry
//     into its loop) hold per lane: an edge is offered to a lane only when,
//     after it, the lane can still reach the exit without exceeding a bound.
//     The warp iterates while one lane does, so the warp's header count is
//     the maximum over its lanes: the bound the static analysis uses.
//     Options.MaxLoops makes every lane stay in its innermost loop while the
//     bounds allow (the longest iteration counts: the concrete execution of
//     a counted loop whose trip count equals its bound, as SGEMM's).
//
// # The stack
//
// An entry is (pc, reconvergence pc, active mask). At a branch on which the
// active lanes disagree, the entry's pc becomes the reconvergence point of
// the branch (divergence.Branch.Reconv: the immediate post-dominator for
// PTX, the SSY/BSSY/PBK target for SASS) and one entry per distinct target
// is pushed, each with that reconvergence pc; an entry whose pc reaches its
// reconvergence pc is popped, and the lanes continue in the entry below
// (IPDOM reconvergence, as GPGPU-Sim's simt_stack). The order of the sides
// (Options.Order): TakenFirst runs the lanes that take the branch first (as
// measured on Pascal, docs/divergence.md), FallThroughFirst the others
// first, RandomOrder draws it at every divergence. Lane groups that leave a
// loop (or do not come back to the branch before reconverging) run before
// the groups that iterate again; Options.LeaversLast reverses it (the
// order of GPGPU-Sim when the leavers hold the highest lane; docs/model.md,
// "Divergence and the warp-level CFG", item 4).
//
// The path of a warp is the concatenation of the thread-level blocks the
// top entry runs; consecutive instructions that are not fall-throughs
// (a taken branch, or the jump from one side to the next at a resume)
// redirect the warp for the description's branch_wait, by the predicate of
// phases.PathRedirects / sim.Redirects, which the simulator applies.
//
// The divergence package's property test runs a similar stack over
// cfgtest functions; this package is the exported, launch-aware version
// (per-class outcomes, loop bounds, block-wide uniform decisions).
package simt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/divergence"
)

// Order is the order in which the sides of a divergent branch run.
type Order uint8

const (
	// TakenFirst runs the lanes taking the branch first (Pascal).
	TakenFirst Order = iota
	// FallThroughFirst runs the lanes falling through first.
	FallThroughFirst
	// RandomOrder draws the order at every divergence.
	RandomOrder
)

func (o Order) String() string {
	switch o {
	case TakenFirst:
		return "taken-first"
	case FallThroughFirst:
		return "fallthrough-first"
	case RandomOrder:
		return "random"
	}
	return "order?"
}

// ParseOrder parses "taken-first" (or ""), "fallthrough-first" or "random".
func ParseOrder(s string) (Order, error) {
	switch s {
	case "", "taken-first":
		return TakenFirst, nil
	case "fallthrough-first":
		return FallThroughFirst, nil
	case "random":
		return RandomOrder, nil
	}
	return 0, fmt.Errorf("unknown side order %q (want taken-first, fallthrough-first or random)", s)
}

// Options tune the drawing.
type Options struct {
	Order Order
	// LeaversLast runs lane groups that iterate again before those that
	// leave the loop (see the package documentation).
	LeaversLast bool
	// MaxLoops makes every lane stay in its innermost loop whenever the
	// bounds allow it.
	MaxLoops bool
	// MaxInstrs bounds the path of one warp (0: 1<<22).
	MaxInstrs int
}

// LoopBound returns the bound of a thread-level loop (maximum executions of
// its header per entry); false when it has none.
type LoopBound func(l *cfg.Loop) (int64, bool)

// FromLoops returns the bounds of a loops-pass result.
func FromLoops(lr *loops.Result) LoopBound {
	return func(l *cfg.Loop) (int64, bool) { return lr.Max(l.Header) }
}

// Generator draws executions of one kernel.
type Generator struct {
	g      *cfg.Graph
	info   *divergence.Info
	bound  []int64 // per loop index, ≥ 1
	decide map[*cfg.Block]bool
	feas   map[string]bool
	ci     []int // class of each warp of the block, by warp number
	lanes  []int
	subst  map[*isa.Instr]*isa.Instr
}

// Returns makes the paths carry, in place of each jump that
// static.Inline made of a callee's ret (the keys of returns, from
// static.Inlined.Returns), a copy of that ret at the jump's index: the
// hardware returns, it does not jump, so the simulator must time a ret
// there (issuing nothing, or as the description's ret_issues says, and
// with no branch hazard after it). It returns gen.
func (gen *Generator) Returns(returns map[*isa.Instr]*isa.Instr) *Generator {
	gen.subst = map[*isa.Instr]*isa.Instr{}
	for j, r := range returns {
		c := *r
		c.Index = j.Index
		c.Pos = j.Pos
		gen.subst[j] = &c
	}
	return gen
}

// New prepares a generator for the thread-level graph g (the graph the
// divergence pass analysed, device calls inlined if the static analysis
// inlined them), the divergence result with a known launch configuration,
// and the loop bounds.
func New(g *cfg.Graph, info *divergence.Info, lb LoopBound) (*Generator, error) {
	if g.Orig != nil {
		return nil, fmt.Errorf("simt: want the thread-level graph, got a derived one")
	}
	if len(g.Irreducible) > 0 {
		return nil, fmt.Errorf("simt: %s: irreducible control flow", g.Func.Name)
	}
	gen := &Generator{g: g, info: info, feas: map[string]bool{}}
	for _, l := range g.Loops {
		n, ok := lb(l)
		if !ok {
			return nil, fmt.Errorf("simt: %s: loop headed by %s has no bound", g.Func.Name, l.Header)
		}
		gen.bound = append(gen.bound, max(n, 1))
	}
	nw := 0
	for _, c := range info.Classes {
		if c.Warps == nil {
			return nil, fmt.Errorf("simt: %s: launch configuration unknown (the classes list no warps)", g.Func.Name)
		}
		for _, w := range c.Warps {
			nw = max(nw, w+1)
		}
	}
	gen.ci = make([]int, nw)
	gen.lanes = make([]int, nw)
	for i := range gen.ci {
		gen.ci[i] = -1
	}
	for k, c := range info.Classes {
		for j, w := range c.Warps {
			gen.ci[w] = k
			gen.lanes[w] = 32
			if j < len(c.Lanes) && c.Lanes[j] > 0 {
				gen.lanes[w] = c.Lanes[j]
			}
		}
	}
	for w, k := range gen.ci {
		if k < 0 {
			return nil, fmt.Errorf("simt: %s: warp %d belongs to no class", g.Func.Name, w)
		}
	}
	gen.decide = barrierDeciding(g)
	return gen, nil
}

// Warps returns the number of warps of the block.
func (gen *Generator) Warps() int { return len(gen.ci) }

// Class returns the class index (in divergence.Info.Classes) of warp w.
func (gen *Generator) Class(w int) int { return gen.ci[w] }

// Block is one drawn execution of the block.
type Block struct {
	Paths  [][]*isa.Instr // per warp: the instructions it issues, in order
	Blocks [][]int        // per warp: the thread-level blocks it runs, in order
}

// Draw draws one execution of the whole block from seed.
func (gen *Generator) Draw(seed uint64, opt Options) (*Block, error) {
	r := rand.New(rand.NewPCG(seed, 0x51a7c0de))
	shared := map[*cfg.Block][]int{}
	b := &Block{}
	for w := range gen.ci {
		seq, err := gen.warp(w, r, shared, opt)
		if err != nil {
			return nil, fmt.Errorf("warp %d: %w", w, err)
		}
		var path []*isa.Instr
		for _, k := range seq {
			for _, in := range gen.g.Blocks[k].Instrs {
				if x := gen.subst[in]; x != nil {
					in = x
				}
				path = append(path, in)
			}
		}
		b.Paths = append(b.Paths, path)
		b.Blocks = append(b.Blocks, seq)
	}
	return b, nil
}

// barrierDeciding marks the blocks with several successors whose sides
// reach different sets of next block barriers (or the end).
func barrierDeciding(g *cfg.Graph) map[*cfg.Block]bool {
	isBar := func(in *isa.Instr) bool { return in.Kind == isa.KindBarrier && in.Barrier.WaitsForBlock() }
	// next[b]: the next barriers (instruction index; -1 for the end)
	// reachable from the start of b, a least fixed point.
	next := make([]map[int]bool, len(g.Blocks)+1)
	for i := range next {
		next[i] = map[int]bool{}
	}
	next[g.Exit.Index][-1] = true
	for _, b := range g.Blocks {
		if k := firstBar(b, isBar); k >= 0 {
			next[b.Index][k] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for i := len(g.Blocks) - 1; i >= 0; i-- {
			b := g.Blocks[i]
			if firstBar(b, isBar) >= 0 {
				continue
			}
			m := next[b.Index]
			for _, e := range b.Succs {
				for k := range next[e.To.Index] {
					if !m[k] {
						m[k] = true
						changed = true
					}
				}
			}
		}
	}
	out := map[*cfg.Block]bool{}
	for _, b := range g.Blocks {
		for _, e := range b.Succs[min(1, len(b.Succs)):] {
			if setKey(next[e.To.Index]) != setKey(next[b.Succs[0].To.Index]) {
				out[b] = true
			}
		}
	}
	return out
}

func firstBar(b *cfg.Block, isBar func(*isa.Instr) bool) int {
	for _, in := range b.Instrs {
		if isBar(in) {
			return in.Index
		}
	}
	return -2
}

func setKey(m map[int]bool) string {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	var sb strings.Builder
	for _, k := range ks {
		sb.WriteString(strconv.Itoa(k))
		sb.WriteByte(',')
	}
	return sb.String()
}

// NewKernel builds the generator of fn's executions on the graph the static
// pass (bound/static, gpuwcet analyze) analyses: device calls inlined
// (static.Inline), the divergence classes of launch, the loop bounds of the
// loops pass (derived, or from facts bound to the listing's checksum sha),
// and the inlined returns timed as the rets they replace (Returns). It
// returns the inlined function the paths come from, to give
// sim.CompileFunc (fn itself when it has no calls).
func NewKernel(file *isa.File, fn *isa.Func, launch pass.Launch, facts *loops.Facts, sha string) (*Generator, *isa.Func, error) {
	ifn, inl, err := cfg.Inline(file, fn)
	if err != nil {
		return nil, nil, err
	}
	g, err := cfg.Build(file.Fset, ifn)
	if err != nil {
		return nil, nil, err
	}
	info, err := divergence.Analyze(g, launch, divergence.Options{})
	if err != nil {
		return nil, nil, err
	}
	lr, err := loops.Compute(g, launch, facts, sha)
	if err != nil {
		return nil, nil, err
	}
	if err := lr.Err(); err != nil {
		return nil, nil, err
	}
	gen, err := New(g, info, FromLoops(lr))
	if err != nil {
		return nil, nil, err
	}
	if inl != nil {
		gen.Returns(inl.Returns)
	}
	return gen, ifn, nil
}
