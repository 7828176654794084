// Package divergence decides, for each conditional branch of a GPU
// function, whether the lanes of a warp may disagree on it, resolves
// branches per warp when the launch configuration is known, and builds the
// warp-level CFG on which a static timing analysis enumerates the paths a
// whole warp takes.
//
// # Uniformity
//
// A register is thread-varying when it may hold different values in the
// lanes of one warp. Seeds: thread and lane indices (%tid, %laneid,
// %lanemask_*), volatile per-warp counters (%clock, %globaltimer, %smid,
// %warpid: conservatively varying), unknown special registers, loads from
// per-thread or generic memory, loads of device-function parameters,
// atomics, warp-level operations (shfl, vote, match, redux, activemask),
// call results, unknown opcodes and registers never written in the
// function. Everything computed from a varying register (guard and address
// registers included) is varying, and so is every register written in the
// divergent region of a divergent branch (sync dependence: at
// reconvergence, lanes that ran different sides merge different values).
// Loads from global, shared, const, param (kernel) or texture memory at a
// warp-uniform address are uniform: one address, one value for every lane
// of the one instruction. The analysis is a flow-insensitive fixed point.
// PTX .uni is recorded, never trusted.
//
// # Per-warp resolution
//
// With the block dimensions, warp k holds linear thread ids 32k..32k+31
// (x fastest). Branch conditions built from thread indices, launch
// dimensions, kernel arguments (Launch.Args by .param name) and integer
// literals are evaluated lane by lane: always taken, never taken or
// divergent. Warps with the same outcomes form a Class.
//
// # Warp-level CFG
//
// Per class, a cfg.Graph (built with cfg.Derive) in which a divergent
// branch runs its sides one after the other, in both orders, until the
// reconvergence point (immediate post-dominator; SSY/BSSY/PBK target for
// SASS); resolved branches keep the edge taken; uniform unknown branches
// keep both edges. Loops with a divergent exit stay loops (they iterate for
// their slowest lane) and are listed in Class.DivergentLoops. See
// docs/divergence.md for the soundness argument and the DOT legend.
package divergence
