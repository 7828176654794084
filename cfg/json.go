package cfg

// JSON is the JSON form of a graph, documented in docs/cfg-json.md. Block
// numbers are indices into Blocks; the virtual exit is number
// len(Blocks) (also given as Exit); -1 means none. Every slice is in a
// fixed order, so encoding/json output is deterministic.
type JSON struct {
	Name        string       `json:"name"`
	Kernel      bool         `json:"kernel"`
	File        string       `json:"file,omitempty"`
	Line        int          `json:"line,omitempty"`
	Instrs      int          `json:"instrs"`
	Exit        int          `json:"exit"`
	ExitReached bool         `json:"exit_reached"`
	Blocks      []JSONBlock  `json:"blocks"`
	ExitPreds   []JSONEdge   `json:"exit_preds"`
	Loops       []JSONLoop   `json:"loops"`
	Irreducible []JSONRegion `json:"irreducible"`
	Unresolved  []JSONInstr  `json:"unresolved"`
}

// JSONBlock is one basic block.
type JSONBlock struct {
	Index      int         `json:"index"`
	Kind       string      `json:"kind"`
	Labels     []string    `json:"labels"`
	First      int         `json:"first"` // index of the first instruction in the function
	Count      int         `json:"count"` // number of instructions
	Line       int         `json:"line,omitempty"`
	Reachable  bool        `json:"reachable"`
	Succs      []JSONEdge  `json:"succs"`
	Preds      []JSONEdge  `json:"preds"`
	Idom       int         `json:"idom"`
	IPdom      int         `json:"ipdom"`
	Loop       int         `json:"loop"` // innermost loop index, -1 when none
	LoopDepth  int         `json:"loop_depth"`
	Reconverge []int       `json:"reconverge"` // instruction indices
	Instrs     []JSONInstr `json:"instrs,omitempty"`
}

// JSONEdge is an edge, naming the block at its far end.
type JSONEdge struct {
	Block int    `json:"block"`
	Kind  string `json:"kind"`
}

// JSONInstr is an instruction reference.
type JSONInstr struct {
	Index int    `json:"index"`
	Line  int    `json:"line,omitempty"`
	Text  string `json:"text"`
}

// JSONLoop is a natural loop.
type JSONLoop struct {
	Index       int            `json:"index"`
	Header      int            `json:"header"`
	HeaderLabel string         `json:"header_label,omitempty"`
	HeaderLine  int            `json:"header_line,omitempty"`
	Parent      int            `json:"parent"`
	Depth       int            `json:"depth"`
	Latches     []int          `json:"latches"`
	Blocks      []int          `json:"blocks"`
	Exits       []JSONLoopExit `json:"exits"`
}

// JSONLoopExit is an edge leaving a loop.
type JSONLoopExit struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Kind string `json:"kind"`
}

// JSONRegion is an irreducible region.
type JSONRegion struct {
	Entries []int `json:"entries"`
	Blocks  []int `json:"blocks"`
}

// NewJSON returns the JSON form of g; withInstrs includes every
// instruction of every block.
func NewJSON(g *Graph, withInstrs bool) *JSON {
	fn := g.Func
	j := &JSON{
		Name:        fn.Name,
		Kernel:      fn.Entry,
		Instrs:      len(fn.Instrs),
		Exit:        g.Exit.Index,
		ExitReached: g.Exit.Reachable,
		Blocks:      make([]JSONBlock, len(g.Blocks)),
		ExitPreds:   edgesJSON(g.Exit.Preds, false),
		Loops:       []JSONLoop{},
		Irreducible: []JSONRegion{},
		Unresolved:  []JSONInstr{},
	}
	if g.Fset != nil && fn.Pos.IsValid() {
		p := g.Fset.Position(fn.Pos)
		j.File, j.Line = p.Filename, p.Line
	}
	instr := func(i int) JSONInstr {
		in := fn.Instrs[i]
		return JSONInstr{Index: i, Line: g.line(in.Pos), Text: instrText(in)}
	}
	for i, b := range g.Blocks {
		jb := JSONBlock{
			Index:      i,
			Kind:       b.Kind.String(),
			Labels:     b.Labels,
			First:      b.First,
			Count:      len(b.Instrs),
			Line:       g.line(b.Pos()),
			Reachable:  b.Reachable,
			Succs:      edgesJSON(b.Succs, true),
			Preds:      edgesJSON(b.Preds, false),
			Idom:       index(b.idom),
			IPdom:      index(b.ipdom),
			Loop:       -1,
			LoopDepth:  b.LoopDepth(),
			Reconverge: []int{},
		}
		if jb.Labels == nil {
			jb.Labels = []string{}
		}
		if b.Loop != nil {
			jb.Loop = b.Loop.Index
		}
		for _, in := range b.Reconverge {
			jb.Reconverge = append(jb.Reconverge, in.Index)
		}
		if withInstrs {
			jb.Instrs = make([]JSONInstr, len(b.Instrs))
			for k := range b.Instrs {
				jb.Instrs[k] = instr(b.First + k)
			}
		}
		j.Blocks[i] = jb
	}
	for _, l := range g.Loops {
		jl := JSONLoop{
			Index:       l.Index,
			Header:      l.Header.Index,
			HeaderLabel: l.Label(),
			HeaderLine:  g.line(l.Header.Pos()),
			Parent:      -1,
			Depth:       l.Depth,
			Latches:     indices(l.Latches),
			Blocks:      indices(l.Blocks),
			Exits:       []JSONLoopExit{},
		}
		if l.Parent != nil {
			jl.Parent = l.Parent.Index
		}
		for _, e := range l.Exits {
			jl.Exits = append(jl.Exits, JSONLoopExit{From: e.From.Index, To: e.To.Index, Kind: e.Kind.String()})
		}
		j.Loops = append(j.Loops, jl)
	}
	for _, r := range g.Irreducible {
		j.Irreducible = append(j.Irreducible, JSONRegion{Entries: indices(r.Entries), Blocks: indices(r.Blocks)})
	}
	for _, in := range g.Unresolved {
		j.Unresolved = append(j.Unresolved, instr(in.Index))
	}
	return j
}

func index(b *Block) int {
	if b == nil {
		return -1
	}
	return b.Index
}

func indices(bs []*Block) []int {
	out := make([]int, len(bs))
	for i, b := range bs {
		out[i] = b.Index
	}
	return out
}

func edgesJSON(es []Edge, succ bool) []JSONEdge {
	out := make([]JSONEdge, len(es))
	for i, e := range es {
		b := e.From
		if succ {
			b = e.To
		}
		out[i] = JSONEdge{Block: b.Index, Kind: e.Kind.String()}
	}
	return out
}
