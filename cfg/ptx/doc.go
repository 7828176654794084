// Package ptx is gpuwcet's PTX front end: it reads a PTX module (PTX ISA 1.4
// to 9.x, as written by nvcc's Open64 and NVVM back ends, clang/LLVM NVPTX,
// Triton and hand-written tests) into the instruction model of package isa.
//
// ParseFile is the entry point. It never panics; bad input yields an
// isa.ErrorList of "file:line:col: msg" entries. Unknown opcodes are parsed
// by the generic rule (first operand written, the others read), marked
// isa.Instr.Generic and reported in isa.File.Warnings.
//
// # What is modelled
//
//   - Header: .version, .target (first target and options), .address_size.
//   - Functions: .entry and .func with linkage, return and formal
//     parameters, performance directives (.maxntid, .reqntid, .minnctapersm,
//     .maxnreg), declarations without a body (Decl).
//   - Bodies: nested { } scopes (ignored by the model), labels of every
//     compiler era, .branchtargets/.calltargets lists, .callprototype,
//     .loc/.file source mapping (isa.Instr.Loc).
//   - Skipped: variable declarations and initialisers, .pragma, .section
//     (DWARF) bodies, Open64 @@DWARF lines.
//
// # Operands
//
// The first operand (and any operand joined to it by '|', as in setp p|q)
// is written, except for instructions without a register destination (st,
// red, bar, bra, ...). Vectors are expanded into Regs; the registers of a
// memory operand are its address registers and are read. A store's memory
// operand is a source. add.cc/sub.cc/mad.cc write the hidden register %cc,
// addc/subc/madc read it. Special registers (%tid.x, %clock) are OpSpecial
// operands with no Regs. Registers are %-names and names declared by .reg
// without '%'.
//
// cp.async and the other memory-to-memory copies are classified as loads
// (KindLoad) whose Space is the source space (the last space modifier); both
// memory operands are sources and there is no destination. This models what
// the issuing warp sees: a read request, with the write done asynchronously.
//
// barrier.cluster.wait counts as BarSync and barrier.cluster.arrive as
// BarArrive.
//
// # Memory
//
// Strings in the result are substrings of one copy of the source; Instr,
// Operand and string slices are carved out of shared slabs.
package ptx
