package cfg

import (
	"fmt"
	"go/token"
	"sort"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Build constructs the control-flow graph of fn, with its dominator and
// post-dominator trees, natural loops and irreducible regions.
//
// fset, which may be nil, resolves positions in errors and in Format.
// Branch targets come only from Instr.Targets resolved through fn.Labels
// (an indirect branch may also name a list of fn.BranchTargets), so every
// front end that fills those works unchanged.
//
// Build fails, with an isa.ErrorList of positioned errors, for a
// declaration without body, a direct branch without target or to an
// undefined label, and an indirect branch naming an undefined label. An
// indirect branch without targets is not an error: it is recorded in
// Graph.Unresolved.
func Build(fset *token.FileSet, fn *isa.Func) (*Graph, error) {
	if fn == nil {
		return nil, fmt.Errorf("cfg: nil function")
	}
	if fn.Decl {
		return nil, fmt.Errorf("cfg: %s: declaration has no body", fn.Name)
	}
	b := builder{fset: fset, fn: fn}
	g := b.build()
	if err := b.errs.Err(); err != nil {
		return nil, err
	}
	g.analyze()
	return g, nil
}

type builder struct {
	fset *token.FileSet
	fn   *isa.Func
	errs isa.ErrorList
	// targets[i] holds the resolved target instruction indices of
	// terminator i, in Targets order, without duplicates for indirect
	// branches; len(Instrs) stands for the end of the body.
	targets map[int][]int
}

func (b *builder) errorf(in *isa.Instr, format string, args ...any) {
	var pos token.Position
	if b.fset != nil && in.Pos.IsValid() {
		pos = b.fset.Position(in.Pos)
	}
	msg := fmt.Sprintf(format, args...)
	if !pos.IsValid() {
		msg = fmt.Sprintf("%s: instruction %d (%s): %s", b.fn.Name, in.Index, in.Text, msg)
	} else {
		msg = fmt.Sprintf("%s: %s", b.fn.Name, msg)
	}
	b.errs.Add(pos, msg)
}

// resolve returns the instruction index a label names.
func (b *builder) resolve(in *isa.Instr, label string) (int, bool) {
	t, ok := b.fn.Labels[label]
	if !ok {
		return 0, false
	}
	if t < 0 || t > len(b.fn.Instrs) {
		b.errorf(in, "label %q names instruction %d, outside the body", label, t)
		return 0, false
	}
	return t, true
}

func (b *builder) build() *Graph {
	fn := b.fn
	n := len(fn.Instrs)
	leader := make([]bool, n+1)
	leader[0] = true
	b.targets = map[int][]int{}
	for i, in := range fn.Instrs {
		if in.Index != i {
			b.errorf(in, "instruction has Index %d, want %d", in.Index, i)
		}
		if !FlowKind(in).IsTerminator() {
			continue
		}
		leader[i+1] = true
		switch FlowKind(in) {
		case isa.KindBranch:
			if len(in.Targets) == 0 {
				b.errorf(in, "branch without target")
				continue
			}
			if len(in.Targets) > 1 {
				b.errorf(in, "direct branch with %d targets", len(in.Targets))
				continue
			}
			t, ok := b.resolve(in, in.Targets[0])
			if !ok {
				b.errorf(in, "branch to undefined label %q", in.Targets[0])
				continue
			}
			leader[t] = true
			b.targets[i] = []int{t}
		case isa.KindIndirectBranch:
			var ts []int
			seen := map[int]bool{}
			add := func(t int) {
				if !seen[t] {
					seen[t] = true
					ts = append(ts, t)
					leader[t] = true
				}
			}
			for _, name := range in.Targets {
				if t, ok := b.resolve(in, name); ok {
					add(t)
					continue
				}
				list, ok := fn.BranchTargets[name]
				if !ok {
					b.errorf(in, "indirect branch to undefined label %q", name)
					continue
				}
				for _, l := range list {
					t, ok := b.resolve(in, l)
					if !ok {
						b.errorf(in, "branch target list %s names undefined label %q", name, l)
						continue
					}
					add(t)
				}
			}
			b.targets[i] = ts
		}
	}

	// labels by instruction index
	labelsAt := map[int][]string{}
	for l, i := range fn.Labels {
		if i >= 0 && i < n && leader[i] {
			labelsAt[i] = append(labelsAt[i], l)
		}
	}

	g := &Graph{Func: fn, Fset: b.fset}
	nb := 0
	for i := 0; i < n; i++ {
		if leader[i] {
			nb++
		}
	}
	if n == 0 {
		nb = 1 // an empty body still has an entry block
	}
	store := make([]Block, nb+1)
	g.Blocks = make([]*Block, nb)
	blockAt := make([]int32, n+1) // instruction index -> block index at leaders
	for i := range store[:nb] {
		g.Blocks[i] = &store[i]
	}
	g.Exit = &store[nb]
	g.Exit.Index = nb
	g.Exit.Kind = BlockVirtualExit
	blockAt[n] = int32(nb)

	bi := 0
	for i := 0; i < n; i++ {
		if !leader[i] {
			continue
		}
		j := i + 1
		for j < n && !leader[j] {
			j++
		}
		blk := g.Blocks[bi]
		blk.Index = bi
		blk.First = i
		blk.Instrs = fn.Instrs[i:j:j]
		if ls := labelsAt[i]; len(ls) > 0 {
			sort.Strings(ls)
			blk.Labels = ls
		}
		blockAt[i] = int32(bi)
		bi++
	}
	if n == 0 {
		g.Blocks[0].Index = 0
		g.Blocks[0].Instrs = fn.Instrs[:0:0]
	}

	// Edges.
	edge := func(from *Block, to int, k EdgeKind) {
		tb := g.Exit
		if to < n {
			tb = g.Blocks[blockAt[to]]
		}
		if k == EdgeFallThrough && tb == g.Exit {
			k = EdgeExit // falling off the end of the body
		}
		e := Edge{From: from, To: tb, Kind: k}
		from.Succs = append(from.Succs, e)
		tb.Preds = append(tb.Preds, e)
	}
	for _, blk := range g.Blocks {
		for _, in := range blk.Instrs {
			if in.Kind == isa.KindReconverge {
				blk.Reconverge = append(blk.Reconverge, in)
			}
		}
		last := blk.Last()
		end := blk.First + len(blk.Instrs)
		if last == nil || !FlowKind(last).IsTerminator() {
			blk.Kind = BlockPlain
			edge(blk, end, EdgeFallThrough)
			continue
		}
		guarded := last.Guard.Reg != ""
		ts, resolved := b.targets[last.Index]
		switch FlowKind(last) {
		case isa.KindBranch:
			if !resolved {
				continue // error reported
			}
			if guarded {
				blk.Kind = BlockIf
				edge(blk, ts[0], EdgeTaken)
			} else {
				blk.Kind = BlockJump
				edge(blk, ts[0], EdgeJump)
			}
		case isa.KindIndirectBranch:
			blk.Kind = BlockIndirect
			if len(ts) == 0 {
				g.Unresolved = append(g.Unresolved, last)
			}
			for _, t := range ts {
				edge(blk, t, EdgeIndirect)
			}
		case isa.KindReturn:
			blk.Kind = BlockReturn
			edge(blk, n, EdgeExit)
		case isa.KindExit:
			blk.Kind = BlockExit
			edge(blk, n, EdgeExit)
		}
		if guarded && (FlowKind(last) != isa.KindBranch || resolved) {
			edge(blk, end, EdgeFallThrough)
		}
	}
	return g
}

// analyze computes reachability, dominators, loops and irreducible
// regions.
func (g *Graph) analyze() {
	g.reach()
	g.buildDom()
	g.findLoops()
	g.findIrreducible()
}

// reach marks the blocks reachable from the entry.
func (g *Graph) reach() {
	stack := []*Block{g.Blocks[0]}
	g.Blocks[0].Reachable = true
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range b.Succs {
			if !e.To.Reachable {
				e.To.Reachable = true
				stack = append(stack, e.To)
			}
		}
	}
}

// Reaches reports whether a path of g leads from from to to without going
// through avoid (nil: no block to avoid) or the virtual exit; from == to
// counts, and so does reaching to when it is avoid or the exit.
func (g *Graph) Reaches(from, to, avoid *Block) bool {
	seen := make([]bool, len(g.Blocks)+1)
	stack := []*Block{from}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == to {
			return true
		}
		if x == avoid || x == g.Exit || seen[x.Index] {
			continue
		}
		seen[x.Index] = true
		for _, e := range x.Succs {
			stack = append(stack, e.To)
		}
	}
	return false
}

// FlowKind is the kind that decides an instruction's control flow: its
// Kind, except that a SASS reconvergence instruction with targets (SYNC,
// BRK, CONT and Fermi's NOP.S, whose targets the front end resolves from
// the enclosing SSY, PBK or PCNT) transfers control like a branch, as in
// nvdisasm's own CFGs. It is still listed in Block.Reconverge.
func FlowKind(in *isa.Instr) isa.Kind {
	if in.Kind == isa.KindReconverge && len(in.Targets) > 0 {
		return isa.KindBranch
	}
	return in.Kind
}
