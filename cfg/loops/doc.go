// Package loops bounds the iterations of the loops of a kernel.
//
// # Definition
//
// The bound of a loop is the maximum number of times its header executes
// per entry into the loop from outside. For a warp, a header executes when
// at least one of its threads executes it, so the bound of a warp is the
// largest bound of its threads.
//
// A C loop `for (i = 0; i < n; i++)` has n body executions; its header
// executions depend on the shape the compiler gave it:
//
//   - rotated (clang, nvcc at -O3): a guard `if (n > 0)` before the loop,
//     the test at the bottom; the header is the first body block, it
//     executes n times, and the bound is n;
//   - test at the top (unoptimised code, while loops): the header holds the
//     test and executes once more than the body; the bound is n + 1.
//
// The timing analysis multiplies by this count, so it never misses the
// last test.
//
// # Derived bounds
//
// Derive recognises counted loops: an exit test executed in every
// iteration (a block of the loop, outside inner loops, that dominates every
// latch) that compares a register stepped once per iteration by a constant
// or launch dimension (add, sub, through mov chains), or shifted right by
// a constant, with a constant, a kernel argument, a launch dimension or a
// loop-invariant register computed from them (mov, add, sub, mul.lo,
// mad.lo, shl of the compared width). The initial value may depend on the
// thread (%tid, %ctaid, %laneid): its range over the launch is used, so
// the bound holds for every thread. The bound is an expression (Expr)
// with conditions that make it exact machine arithmetic: the compared
// values must fit the comparison's type and the register must not wrap
// around before leaving; evaluation fails, naming the condition, when they
// do not hold.
//
// Also derived: registers truncated or extended by cvt between the
// induction register and the comparison, geometric loops counting up (shl,
// mul.lo by a power of two), initial values and limits through cvt,
// mul.wide, selp, and with a constant and rem, triangular loops (a value that
// is the induction register of an enclosing loop ranges over that loop's
// iterations), and guards before the loop (a launch-invariant test that
// skips the loop gives bound 1; a test on the initial value or the limit
// narrows its range to the threads that enter). docs/model.md (Loop bounds)
// sketches the proofs. SASS listings are read through exact PTX readings
// of their integer moves, sums and ISETP comparisons (sass.go); a limit in
// the constant bank is not mapped to an argument. A loop that is not
// understood is unbounded: nothing is guessed.
//
// # Annotated bounds
//
// A facts file (docs/facts.md, DecodeFacts) gives bounds by kernel and
// loop (header label, line, or SASS offset), bound to the listing by its
// SHA-256. An annotated bound replaces the derived one; when it is below
// the derived bound, a warning (annotation-below-derived) says so. Facts
// with max = "?" (written by WriteTemplate) leave the loop unbounded.
//
// # Use
//
// Compute (or the pass Analyzer) returns a Result: per loop the Bound
// used, addressable by header block (also a copy of it in a warp-level
// graph, through the shared first instruction), label, line or offset, and
// the Problems that leave the kernel unbounded, each naming its position
// and the command `gpuwcet facts template FILE`.
package loops
