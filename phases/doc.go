// Package phases is the timing model of gpuwcet and the per-warp phase
// profiles built with it (ECRTS 2025, "Bounding the WCET of a GPU thread
// block with a multi-phase representation of warps execution", Algorithm 1).
// docs/model.md states the model and its proofs.
//
// # The engine
//
// An Engine applies one hardware description (package hwdesc) to the
// instructions of one warp running alone on the SM. Its state is an explicit,
// copyable value:
//
//	e, err := phases.NewEngine(hw)      // checks init ≥ 1, lat ≥ 0
//	op, err := e.Prepare(fset, instr)   // unit (hw.Lookup), interned Uses/Defs; positioned error
//	s := e.NewState()                   // cycle 0, every unit free, every register ready
//	t := phases.Step(s, &op)            // Timing{Issue, Start, Ready}; s advances
//
// Step implements, for one instruction of unit u with initiation interval
// Init and latency Lat:
//
//	Issue = max(s.Next, s.RegReady[r] for every r read or written)   scoreboard, RAW and WAW
//	Start = max(Issue, s.UnitFree[r])                               resource FIFO (r = op.Resource(): the unit's hwdesc group); issue does not wait
//	s.UnitFree[r] = Start + Init
//	s.RegReady[d] = Ready = Start + Init + Lat                      for every destination d (Lat includes [pipeline] overhead)
//	s.Next = Issue + 1                                              one issue per cycle
//
// By default (the ECRTS 2025 model) ret, exit and block-wide barriers
// (bar.sync, bar.red) issue nothing and leave the state unchanged; the
// description's [pipeline] table can make them issue (ret_issues,
// barrier_issues) and make the warp wait for a branch's result on the
// edges out of it (branch_wait; WaitAfter, applied by BuildClass on a known
// path when the next instruction is not the fall-through). A guarded instruction is timed as if its guard
// were true whatever its value: it reads the guard, issues, occupies its unit
// and holds its destinations (GPGPU-Sim issues predicated-off instructions).
//
// Step is monotone: making any entry of the input state later never makes
// any output earlier. Hence State.Join (the latest time per entry) is a sound
// join for a static analysis over a CFG, State.Leq orders states, and a
// block simulator running one warp must reproduce Step instruction by
// instruction (phases_test.go has the reference cases).
//
// # Profiles
//
// A Builder turns the timings of a warp's instructions into phases (Exec:
// at least one initiation in progress; Idle: the gaps, up to the last
// result). BuildClass runs a whole path, split into sections at block-wide
// barriers, each section starting from NewState. The Analyzer (Name
// "phases", result *Profile) does this for the function's trace or
// straight-line body, once per class of identical warps.
package phases
