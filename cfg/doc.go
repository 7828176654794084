// Package cfg builds the warp-level control-flow graph of one kernel or
// device function, with its dominator and post-dominator trees, natural
// loops and irreducible regions, and the call graph of a file.
//
// # Blocks and edges
//
// Build splits fn.Instrs into basic blocks. Leaders are the first
// instruction, every branch target (resolved from Instr.Targets through
// fn.Labels, or a .branchtargets list), and the instruction after a
// terminator (bra, brx, ret, exit, trap, guarded or not). A guard alone
// does not end a block, and neither do calls, barriers or reconvergence
// instructions (SSY, BSSY, ...), which are listed per block in
// Block.Reconverge for the divergence pass. Labels that no branch targets
// (debug labels such as tmp0) start no block.
//
// Successors come in a fixed order:
//
//	plain     [fall]                   no terminator
//	if        [taken, fall]            guarded branch
//	jump      [jump]                   unguarded branch, bra.uni
//	indirect  [indirect..., (fall)]    one edge per distinct known target
//	return    [exit, (fall)]           ret; fall only when guarded
//	exit      [exit, (fall)]           exit, trap; fall only when guarded
//
// Falling off the end of the body is an exit edge to the virtual exit
// node Graph.Exit, which is not in Graph.Blocks and has index
// len(Blocks). A branch to a label at the end of the body goes to the
// exit with its own edge kind. A guarded branch to the next instruction has
// two edges to the same block. An indirect branch with no known target has
// no indirect edge and is listed in Graph.Unresolved: it is reported, not
// guessed.
//
// # Unreachable code
//
// Blocks that cannot be reached from the entry (SASS padding after EXIT, a
// BRA to itself after the last EXIT) are kept with Reachable false. They
// are in neither dominator tree, belong to no loop and no irreducible
// region.
//
// # Dominators
//
// See dom.go: Cooper–Harvey–Kennedy, cross-checked by Check against the
// naive fixpoint. Post-dominators are relative to the virtual exit; blocks
// from which the exit cannot be reached (infinite loops) have no
// immediate post-dominator.
//
// # Loops
//
// Natural loops (a back edge t→h with h dominating t) with the same header
// are merged; Loops are ordered by header index, nested by Parent and
// Children, and each block knows its innermost Loop. A cycle entered at
// several blocks is no natural loop: it is reported in Graph.Irreducible.
// Flow facts key a loop by Loop.Label (the header's first label) or by the
// source line of the header's first instruction.
//
// # Output
//
// Format writes a stable text form (see its documentation), NewJSON a
// JSON form documented in docs/cfg-json.md, and package cfgdot a
// Graphviz drawing.
package cfg
