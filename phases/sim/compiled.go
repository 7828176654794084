package sim

import "github.com/gpuwcet/gpuwcet/hwdesc"

// Instr is one instruction of a compiled warp path as the simulator times
// it: a read-only view for the other judges of the package's family (the
// exhaustive schedule explorer, package explore), so that every judge
// reads the description, the [pipeline] table and the barrier semantics
// through one compilation.
type Instr struct {
	Index   int  // index in the warp's path
	Barrier bool // a block-wide barrier: ends a section
	// Issues: the instruction takes an issue slot and initiates on Res.
	// False only for a barrier that issues nothing (BarrierReach or
	// BarrierDrain without Pipeline.BarrierIssues); ret and exit that
	// issue nothing are not compiled at all.
	Issues  bool
	Res     int           // resource (initiation FIFO), 0 ≤ Res < Program.Resources()
	Init    hwdesc.Cycles // initiation interval of the instruction's unit
	InitLat hwdesc.Cycles // Init + Lat + pipeline overhead: ready = start + InitLat
	// Wait: after this instruction (a branch) the warp issues nothing
	// before its result is ready (Pipeline.BranchWait on this edge).
	Wait bool
	// Check are the warp's registers (dense, 0 ≤ r < Program.Regs(w))
	// that must be ready for the instruction to issue: its uses and its
	// definitions (RAW and WAW); Defs are the ones it writes.
	Check, Defs []int
}

// Instrs returns the compiled instructions of warp w, in path order.
func (p *Program) Instrs(w int) []Instr {
	pr := p.warps[w]
	out := make([]Instr, len(pr.ins))
	for i, in := range pr.ins {
		x := Instr{Index: int(in.index), Barrier: in.op == opBarrier, Issues: in.unit >= 0, Wait: in.wait}
		if x.Issues {
			x.Res, x.Init, x.InitLat = int(in.res), hwdesc.Cycles(in.init), hwdesc.Cycles(in.initLt)
		}
		for _, r := range pr.pool[in.chk:in.end] {
			x.Check = append(x.Check, int(r))
		}
		for _, r := range pr.pool[in.def:in.end] {
			x.Defs = append(x.Defs, int(r))
		}
		out[i] = x
	}
	return out
}

// Regs returns the number of registers of warp w's compiled path.
func (p *Program) Regs(w int) int { return p.warps[w].nregs }

// Resources returns the number of resources (initiation FIFOs).
func (p *Program) Resources() int { return p.units }

// SamePath reports whether warps v and w run the same compiled path (the
// same instructions, so that exchanging them changes no timing).
func (p *Program) SamePath(v, w int) bool { return p.warps[v] == p.warps[w] }
