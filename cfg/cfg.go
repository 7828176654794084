package cfg

import (
	"go/token"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// EdgeKind says why control flows along an edge.
type EdgeKind uint8

const (
	EdgeFallThrough EdgeKind = iota + 1 // to the next instruction in program order
	EdgeTaken                           // a guarded branch taken (to its target)
	EdgeJump                            // an unguarded branch (bra, bra.uni, BRA)
	EdgeIndirect                        // one target of an indirect branch (brx.idx, BRX)
	EdgeExit                            // to the virtual exit: ret, exit, trap, or the end of the body

	// EdgeResume appears only in derived (warp-level) graphs (see Derive):
	// the lanes running one side of a divergent branch reached the
	// reconvergence point, or exited, and the warp resumes the lanes of
	// the next pending side (or of the loop they left early). No
	// thread-level edge corresponds to it.
	EdgeResume
)

var edgeKindNames = [...]string{
	EdgeFallThrough: "fall",
	EdgeTaken:       "taken",
	EdgeJump:        "jump",
	EdgeIndirect:    "indirect",
	EdgeExit:        "exit",
	EdgeResume:      "resume",
}

func (k EdgeKind) String() string {
	if int(k) < len(edgeKindNames) && edgeKindNames[k] != "" {
		return edgeKindNames[k]
	}
	return "edge?"
}

// BlockKind classifies a block by the instruction that ends it.
type BlockKind uint8

const (
	BlockPlain       BlockKind = iota + 1 // no terminator: falls through (or off the end of the body)
	BlockIf                               // guarded branch: Succs = [taken, fall-through]
	BlockJump                             // unguarded branch: Succs = [jump]
	BlockIndirect                         // indirect branch: one EdgeIndirect per known target, then the fall-through when guarded
	BlockReturn                           // ret: Succs = [exit], then the fall-through when guarded
	BlockExit                             // exit, trap: Succs = [exit], then the fall-through when guarded
	BlockVirtualExit                      // the virtual exit node (Graph.Exit); no instructions, no successors
)

var blockKindNames = [...]string{
	BlockPlain:       "plain",
	BlockIf:          "if",
	BlockJump:        "jump",
	BlockIndirect:    "indirect",
	BlockReturn:      "return",
	BlockExit:        "exit",
	BlockVirtualExit: "virtual-exit",
}

func (k BlockKind) String() string {
	if int(k) < len(blockKindNames) && blockKindNames[k] != "" {
		return blockKindNames[k]
	}
	return "block?"
}

// Edge is a control-flow edge. The same value appears in From.Succs and
// To.Preds.
type Edge struct {
	From, To *Block
	Kind     EdgeKind
}

// Graph is the control-flow graph of one function.
type Graph struct {
	Func *isa.Func
	Fset *token.FileSet // may be nil; used to print source lines

	// Blocks are the basic blocks in program order; Blocks[0] is the
	// entry. Blocks[i].Index == i.
	Blocks []*Block

	// Exit is the virtual exit node: every ret, exit and trap, and the
	// end of the body, lead to it. Exit.Index == len(Blocks); it is not
	// in Blocks.
	Exit *Block

	// Unresolved lists the indirect branches whose targets are unknown,
	// in program order. Their blocks have no successor for those
	// targets: nothing is guessed.
	Unresolved []*isa.Instr

	// Loops are the natural loops, ordered by header block index; an
	// outer loop and its inner loops have different headers.
	Loops []*Loop

	// Irreducible lists the strongly connected regions entered at more
	// than one block, ordered by their smallest block index.
	Irreducible []*Region

	// Orig is nil for a graph built by Build. For a derived graph (see
	// Derive: the warp-level graphs of the divergence pass) it is the
	// thread-level graph whose blocks the derived blocks copy.
	Orig *Graph

	// Dominator trees, for O(1) Dominates and PostDominates.
	dom, pdom domTree
}

// Block is a basic block: a maximal run of instructions entered only at
// its first and left only after its last.
type Block struct {
	Index int
	Kind  BlockKind

	// Instrs is the block's instructions, a sub-slice of Func.Instrs
	// starting at Func.Instrs[First].
	Instrs []*isa.Instr
	First  int

	// Labels names the block's first instruction (sorted). Labels naming
	// instructions inside the block (debug labels such as tmp0 that no
	// branch targets) do not start blocks and are not listed.
	Labels []string

	// Succs lists the outgoing edges in a fixed order (see BlockKind);
	// Preds the incoming edges, ordered by source block index and then by
	// the edge's position in the source's Succs. Two edges may join the
	// same blocks (a guarded branch to the next instruction has a taken
	// and a fall-through edge).
	Succs []Edge
	Preds []Edge

	// Reconverge lists the block's KindReconverge instructions (SSY,
	// SYNC, BSSY, BSYNC, ...) in program order, for the divergence pass.
	Reconverge []*isa.Instr

	// Reachable reports whether the block is reachable from the entry.
	// Unreachable blocks (SASS padding after EXIT, a BRA to itself after
	// the last EXIT) are kept but are in neither dominator tree.
	Reachable bool

	// Loop is the innermost natural loop containing the block, or nil.
	Loop *Loop

	// Orig is nil in a graph built by Build. In a derived graph (see
	// Derive) it is the block of Graph.Orig this block copies; several
	// blocks may copy the same one.
	Orig *Block

	// dominator bookkeeping, indexed like the trees
	idom, ipdom *Block
}

// Last returns the block's last instruction, or nil for an empty block.
func (b *Block) Last() *isa.Instr {
	if len(b.Instrs) == 0 {
		return nil
	}
	return b.Instrs[len(b.Instrs)-1]
}

// LoopDepth returns the number of natural loops containing the block.
func (b *Block) LoopDepth() int {
	if b.Loop == nil {
		return 0
	}
	return b.Loop.Depth
}

// Pos returns the position of the block's first instruction, or NoPos.
func (b *Block) Pos() token.Pos {
	if len(b.Instrs) == 0 {
		return token.NoPos
	}
	return b.Instrs[0].Pos
}

// Name returns "b<index>", or "exit" for the virtual exit.
func (b *Block) Name() string {
	if b.Kind == BlockVirtualExit {
		return "exit"
	}
	return "b" + itoa(b.Index)
}

func (b *Block) String() string { return b.Name() }

// Entry returns the entry block.
func (g *Graph) Entry() *Block { return g.Blocks[0] }

// Loop is a natural loop: a header that dominates every block of the body,
// and back edges from the body to the header.
type Loop struct {
	Index  int    // position in Graph.Loops
	Header *Block // dominates every block of the loop
	// Latches are the sources of the back edges, by block index.
	Latches []*Block
	// Blocks is the body, header included, by block index.
	Blocks []*Block
	// Exits are the edges from the body to outside it, in body order
	// then successor order (an edge to the virtual exit counts).
	Exits []Edge

	Parent   *Loop   // the innermost enclosing loop, or nil
	Children []*Loop // directly nested loops, by header index
	Depth    int     // 1 for an outermost loop
}

// Contains reports whether b is in the loop's body, in O(loop depth).
func (l *Loop) Contains(b *Block) bool {
	if b == nil {
		return false
	}
	for x := b.Loop; x != nil; x = x.Parent {
		if x == l {
			return true
		}
		if x.Depth <= l.Depth {
			return false
		}
	}
	return false
}

// Label returns the first label of the loop header, or "" when it has none
// (a loop headed by the entry block of a function without label). Flow
// facts key loops by this label, or by Line.
func (l *Loop) Label() string {
	if len(l.Header.Labels) == 0 {
		return ""
	}
	return l.Header.Labels[0]
}

// Region is a strongly connected set of blocks entered at more than one
// block: an irreducible loop. It is not a natural loop and has no loop
// depth; a loop-bound analysis must refuse it.
type Region struct {
	Entries []*Block // blocks with a predecessor outside the region, by index
	Blocks  []*Block // by index
}

func itoa(i int) string {
	if i >= 0 && i < 10 {
		return string(rune('0' + i))
	}
	var buf [20]byte
	n := len(buf)
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		n--
		buf[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		buf[n] = '-'
	}
	return string(buf[n:])
}
