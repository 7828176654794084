// Package trace reads simulator issue traces into the instruction model
// (package isa): one *isa.File of dialect isa.DialectTrace holding one kernel
// whose Func.Trace gives, per warp, the instructions that warp issued, in
// issue order, and the cycle count the simulator observed.
//
// # GPGPU-Sim PTX issue traces
//
// The authors' fork of GPGPU-Sim used for the ECRTS 2025 work writes one line
// per issued warp instruction (../shared/notes/reference-data.md §3):
//
//	File start...                                  (optional, first line only)
//	warp 0 :  PC=0xf60 (backprop-rodinia-2.4.sm_75.ptx:47) setp.ne.s32%p2, %r4, 0;
//	warp 0 :  PC=0xf68 (backprop-rodinia-2.4.sm_75.ptx:48) @%p2 bra BB0_2;
//	kernel_execution_time : 1035                   (optional trailer)
//
// ParseFile reads this format. The instruction text is PTX and is parsed by
// the PTX front end (package ptx), after the trace's quirks are undone:
//
//   - glued operands: the simulator drops the tab between the mnemonic and
//     the first operand of setp, selp and cvt ("setp.ne.s32%p2, ..."); the
//     mnemonic is split at the first character that cannot belong to it;
//   - negated guards (@!%p1) are kept;
//   - the "File start..." header of early fork versions is skipped;
//   - duplicate lines: early fork versions printed an instruction blocked on
//     a busy pipeline register once per cycle. With Options.Dedupe a line
//     whose PC equals the previous PC of the same warp is dropped and the
//     count is reported in Trace.Deduplicated; without it the first such
//     line gives a warning (a genuine one-instruction self-loop would look
//     the same, which is why the rule is an option);
//   - a missing kernel_execution_time trailer gives a warning and a trace
//     without an observed cycle count.
//
// # Instruction identity
//
// A trace line names its static instruction by (module:line); the PC is
// module-global and only used for consistency checks. Func.Instrs holds the
// distinct static instructions the trace executed, in PC (program) order,
// and every WarpPath instruction is a copy of one of them whose Index is its
// index in Func.Instrs and whose Pos is the trace line. When Options.Module
// can supply the PTX module the trace names, each line is resolved to the
// module's instruction at that line: the trace text must equal the module
// line modulo whitespace, and the module's instruction (its operands, branch
// targets, labels and the kernel's name and parameters) is used. A module
// that does not match the trace (the vecadd case of reference-data.md §3.4)
// is not used, with a warning; the trace text is then parsed on its own.
//
// Not modelled: branch outcomes are implicit in each warp's path; the trace
// carries no per-line timestamps.
package trace
