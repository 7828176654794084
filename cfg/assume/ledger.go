package assume

// IDs of the ledger, for the code that names them.
const (
	BlockAlone        = "A-BLOCK-ALONE"
	WorkConserving    = "A-WORK-CONSERVING"
	UnitTimings       = "A-UNIT-TIMINGS"
	MemFixedLatency   = "A-MEM-FIXED-LATENCY"
	NoICacheMiss      = "A-NO-ICACHE-MISS"
	GuardedTimed      = "A-GUARDED-TIMED"
	BarrierUniform    = "A-BARRIER-UNIFORM"
	LaunchConfig      = "A-LAUNCH-CONFIG"
	LoopAnnotated     = "A-LOOP-ANNOTATED"
	ReleaseTrigger    = "A-RELEASE-TRIGGER"
	TimerSplitRead    = "A-TIMER-SPLIT-READ"
	InlinedCalls      = "A-INLINED-CALLS"
	FramePrivate      = "A-FRAME-PRIVATE"
	ActiveMask        = "A-ACTIVE-MASK"
	NoTrap            = "A-NO-TRAP"
	RcpPrecision      = "A-RCP-PRECISION"
	NoGUB             = "A-NO-GUB"
	Pipeline          = "A-PIPELINE"
	PTXAsExecuted     = "A-PTX-AS-EXECUTED"
	ArchMismatch      = "A-ARCH-MISMATCH"
	DefaultUnit       = "A-DEFAULT-UNIT"
	HWOverride        = "A-HW-OVERRIDE"
	OneScheduler      = "A-ONE-SCHEDULER"
	InOrderScoreboard = "A-IN-ORDER-SCOREBOARD"
	UnitFIFO          = "A-UNIT-FIFO"
	SameReady         = "A-SAME-READY"
	WarpEnd           = "A-WARP-END"
	OtherBarriers     = "A-OTHER-BARRIERS"
	UnroutedOpcode    = "A-UNROUTED-OPCODE"
	ClockFixed        = "A-CLOCK-FIXED"
	NoMemoryEvents    = "A-NO-MEMORY-EVENTS"
	BinaryMatches     = "A-BINARY-MATCHES"

	GridDispatch     = "A-GRID-DISPATCH"
	GridAlone        = "A-GRID-ALONE"
	CoResident       = "A-CORESIDENT-SHARING"
	OccPartitionedGC = "A-OCC-PARTITIONED-GC"
	OccLaunches      = "A-OCC-LAUNCH-SUCCEEDS"
	OccSmemOptIn     = "A-OCC-SMEM-OPT-IN"
	OccCarveout      = "A-OCC-CARVEOUT"
	GridClock        = "A-GRID-CLOCK"
	LaunchOverhead   = "A-LAUNCH-OVERHEAD"
	DispatchLatency  = "A-DISPATCH-LATENCY"
	PremIsolation    = "A-PREM-ISOLATION"
	PremRelease      = "A-PREM-RELEASE"
	PremJitter       = "A-PREM-JITTER"
	PremGivenBounds  = "A-PREM-GIVEN-BOUNDS"
	PremClock        = "A-PREM-CLOCK"
	PremWarmup       = "A-PREM-WARMUP"
	PremPlacement    = "A-PREM-PLACEMENT"
	PremResources    = "A-PREM-RESOURCES"
)

// When and Basis phrases shared by several entries.
const (
	everyAnalyze      = "every analyze report"
	everyPREM         = "every prem check report"
	withGrid          = "analyze with --grid (kernel-level bound)"
	notChecked        = "not checked by the tool"
	modelRef          = "docs/model.md, \"The reference model\""
	staticGapsRef     = "docs/model.md, \"Known gaps of the static analysis\""
	kernelRef         = "docs/model.md, \"Kernel-level bound\"; docs/kernel.md"
	premSemanticsRef  = "docs/prem.md, \"Semantics\""
	hwdescChoosingRef = "docs/hwdesc.md, \"Choosing a description for real hardware\""
)

// ledger is the list of assumptions, in report order: the analysis's,
// the hardware's and the inputs', the model's, the environment's, then
// the kernel level's and PREM's.
var ledger = []Entry{
	// The analysis.
	{ID: BlockAlone, Origin: OriginAnalysis, When: everyAnalyze,
		Statement: "the thread block runs alone on one SM (no other block, no preemption, no MPS co-tenancy)",
		Reason:    "the block bound (ECRTS 2025) charges the interference of the block's own warps only; other blocks, kernels or contexts on the SM are not modelled",
		Discharge: "run the kernel with one resident block per SM and an exclusive GPU (exclusive-process compute mode, no MPS, no concurrent kernels or graphics, no debugger); for the blocks of one kernel sharing SMs use the kernel-level bound (--grid)",
		Basis:     notChecked + ": the integrator ensures an exclusive SM (docs/model.md, \"The reference model\")"},
	{ID: WorkConserving, Origin: OriginAnalysis, When: everyAnalyze,
		Statement: "one instruction issued per cycle per SM by a work-conserving scheduler (GTO, LRR or any other)",
		Reason:    "the bound is proved for every work-conserving policy, so the scheduler's policy need not be known",
		Discharge: "nothing for a work-conserving warp scheduler; a scheduler that idles while a warp is eligible (throttling, a debugger) invalidates the bound",
		Basis:     "docs/model.md, \"The bound and its proof\": the bound holds for every work-conserving policy"},
	{ID: UnitTimings, Origin: OriginHardware, When: everyAnalyze,
		Statement: "the hardware description's units: FIFO, initiation interval >= 1, fixed latency per opcode as the description routes it",
		Reason:    "the timing model is parameterised by the description; its numbers come from a simulator configuration or published figures, not from the silicon",
		Discharge: "show that each unit's initiation interval and latency bound the hardware's (microbenchmarks of the deployed GPU at the deployed clocks), or use a description validated that way; gpuwcet hw check validates the file's consistency only",
		Basis:     "the hardware description (its SHA-256 in item 1), validated by gpuwcet hw check (docs/hwdesc.md)"},
	{ID: MemFixedLatency, Origin: OriginHardware, When: everyAnalyze,
		Statement: "memory is a unit with a fixed latency: no cache hit or miss, no contention with other SMs, copy engines or the CPU, no DRAM refresh",
		Reason:    "the model has no cache and no memory system beyond the description's latencies (the ECRTS 2025 model)",
		Discharge: "choose memory latencies that bound the worst access of the deployed system under its contention (a description for the worst miss and the worst contention, docs/hwdesc.md), or guarantee the memory is not contended (PREM schedules: gpuwcet prem check)",
		Basis:     notChecked + ": " + hwdescChoosingRef},
	{ID: NoICacheMiss, Origin: OriginHardware, When: everyAnalyze,
		Statement: "no instruction-cache misses",
		Reason:    "instruction fetch is not modelled (assumption 4 of ECRTS 2025)",
		Discharge: "show that the kernel's code fits the instruction cache and is warm (a warm-up launch), or add the fetch cost to the description's latencies",
		Basis:     notChecked + ": assumption 4 of ECRTS 2025 (docs/model.md, \"The bound and its proof\")"},
	{ID: GuardedTimed, Origin: OriginAnalysis, When: everyAnalyze,
		Statement: "predicated-off instructions are issued and timed like executed ones",
		Reason:    "GPGPU-Sim issues a predicated-off instruction through the pipeline; no guard is evaluated, so no predicate value can make the model optimistic",
		Discharge: "nothing for hardware that issues predicated-off instructions; for hardware that skips them the bound is pessimistic, not unsound",
		Basis:     "docs/model.md, \"Guards\"; docs/decisions.md, \"Guarded instructions are timed as if their guard held\""},
	{ID: BarrierUniform, Origin: OriginAnalysis, When: everyAnalyze,
		Statement: "bar.sync/bar.red end a section; every warp of the block reaches the same sequence of barriers, and a uniform branch that decides a barrier evaluates identically across the block (CUDA's rule for __syncthreads)",
		Reason:    "sections are bounded one after the other; the barrier-uniformity analysis proves the rule except for warp-uniform loads (shared memory at a uniform address), which it trusts",
		Discharge: "the barrier-divergence diagnostics are errors; for a barrier decided by a loaded value, show that every warp loads the same value (CUDA requires it of a correct program)",
		Basis:     "checked by the barrier-uniformity analysis (barrier-divergence diagnostics); warp-uniform loads are trusted (" + staticGapsRef + ")"},
	{ID: LaunchConfig, Origin: OriginAnalysis, When: everyAnalyze,
		Statement: "loop bounds and branch outcomes hold for the launch configuration and kernel arguments of item 2",
		Reason:    "derived loop bounds and the per-warp resolution of branches evaluate the code at the given --block, --grid and --arg values",
		Discharge: "launch with exactly those values (the report's launch member), or analyse every configuration used",
		Basis:     "derived bounds: the loops pass (item 6; docs/facts.md, \"What is derived\")"},
	{ID: LoopAnnotated, Origin: OriginInput, When: "an annotated loop bound (facts file) is used",
		Statement: "the loop bounds annotated in the facts file hold: no execution runs a loop's header more often than its annotation",
		Reason:    "the tool could not derive these bounds from the code; an annotation is trusted as given",
		Discharge: "review each annotated bound (item 8 lists them with their rationale) against the code and its inputs, or make the loop derivable",
		Basis:     "item 8 of the report (annotated loop bounds, with their facts line and rationale); docs/facts.md"},
	{ID: ReleaseTrigger, Origin: OriginAnalysis, When: "a time-triggered release point (a loop spinning on a timer) is bounded",
		Statement: "a release point's loop runs at most 2 executions of its header once the timer reaches its trigger; the wait before the trigger is the schedule's and not in the bound",
		Reason:    "a loop that spins until a timer reaches a trigger has no iteration bound: the schedule decides how long it waits",
		Discharge: "bound the wait by the schedule (gpuwcet prem check checks the release times), or exclude the spin from the timed interval",
		Basis:     "cfg/release; docs/prem.md, \"Release points\"; the release-point warnings (item 7)"},
	{ID: InlinedCalls, Origin: OriginAnalysis, When: "the kernel calls device functions",
		Statement: "device calls inlined per call context; an inlined ret is timed as the ret it replaces",
		Reason:    "each call context gets its own state, classes and loop bounds; the call instruction stays and ret issues nothing, as in the model",
		Discharge: "nothing for direct calls; a call the hardware implements differently (a real call/return with stack traffic) must be covered by the description's timing of call and ret",
		Basis:     "docs/model.md, \"Device calls\""},
	{ID: FramePrivate, Origin: OriginAnalysis, When: "values are followed through local frame slots (unoptimised code keeps its variables there)",
		Statement: "an address not derived from a local frame's own address does not point into that frame: no out-of-bounds pointer arithmetic from another object into it, no forged local address (not even from the bytes of a local address); a frame whose address is passed on only into slots and inlined calls' parameters the analysis follows is written only through addresses derived from it",
		Reason:    "loop counters and branch conditions of -O0 code live in frame slots; the value analysis reads a slot back as the last value stored into it, follows a frame address stored into a slot or handed to an inlined device function back to its uses, and takes a store through an address derived from no frame not to reach a frame whose address never escaped",
		Discharge: "show the kernel free of out-of-bounds and forged accesses (compute-sanitizer memcheck over its tests, or a memory-safety checker), or compile with -O1 or above, where these values live in registers",
		Basis:     "cfg/values (frame.go, spans.go: stores through a computed frame address are bounded by their derived index range; frame addresses kept in cells are followed to a fixed point); docs/model.md, \"Loop bounds\", \"Frame addresses kept in cells\""},
	{ID: ActiveMask, Origin: OriginAnalysis, When: "a SASS block reads the active mask twice (VOTE.ANY Rd, PT, PT: ptxas's convergence loop, sm_70 and later)",
		Statement: "the lanes of a warp that start a straight-line block execute all of it together: two reads of the active mask in one execution of the block give the same mask",
		Reason:    "the execution model of the analysis (a SIMT reconvergence stack, reconvergence at the immediate post-dominator) runs a block with one active mask; ptxas's loop VOTE.ANY; YIELD; VOTE.ANY; repeat while lanes arrived between the votes then runs once per entry",
		Discharge: "Volta and later schedule the diverged paths of a warp independently and may let lanes arrive between the two votes (at the YIELD), repeating the loop: show that the warp is converged where the loop runs (the code before it is not divergent, or ends in a warp-wide synchronisation), or bound the loop by a facts file (--facts) instead of the derived bound",
		Basis:     "cfg/values (ssa.go, activeMask); docs/model.md, \"The active mask\""},
	{ID: NoTrap, Origin: OriginAnalysis, When: "a branch one side of which can only trap is taken as uniform (the stack-overflow check ptxas adds to code with a local frame: S2R SR_LMEMHIOFF, @P BRA over BPT.TRAP; a guarded __trap())",
		Statement: "no thread of the launch executes a trap (PTX trap, SASS BPT.TRAP): a launch in which one does is aborted with an error, and its time is not bounded",
		Reason:    "ptxas guards the frame of unoptimised code with a comparison of the stack pointer against SR_LMEMHIOFF, a special register the analysis does not know to be uniform; under the premise no lane takes the trap side, so the branch neither splits a warp nor makes the values after it vary, and the barriers after it are reached by every warp",
		Discharge: "show that the launch never traps: the driver reserves the local memory the kernel's frame needs (cuobjdump --dump-resource-usage: STACK) when the kernel has no recursion or indirect calls, so the stack check does not fire; an explicit __trap() must be shown unreachable; a trapping launch is reported as an error (cudaErrorLaunchFailure)",
		Basis:     "divergence (uniform.go: trapBranch; Branch.Trap); docs/divergence.md, \"Traps\""},
	{ID: RcpPrecision, Origin: OriginHardware, When: "a value is read as a division that ptxas expanded into its float-reciprocal sequence (SASS)",
		Statement: "MUFU.RCP returns the reciprocal within 1 ulp (the PTX ISA's bound for rcp.approx.f32), I2F.RP rounds towards +infinity, F2I.U32.TRUNC truncates and saturates to [0, 2^32-1], and IMAD.HI adds the 64-bit register pair c, c+1 to the product",
		Reason:    "ptxas writes a 32-bit integer division by a value it does not know (at -O0 by every divisor) as a reciprocal estimate, a Newton step and two corrections; the quotient is exact for every estimate within that bound, so the analysis reads the sequence as the division",
		Discharge: "nothing beyond the ISA's documented precision; the exactness is checked in software with every float within 2 ulps for all divisors up to 2^16 (cfg/values TestReciprocalDivisionExact); compile with constant divisors at -O1 or above to avoid the sequence",
		Basis:     "cfg/values (divide.go); docs/model.md, \"Division by the reciprocal\""},
	{ID: NoGUB, Origin: OriginAnalysis, When: everyAnalyze,
		Statement: "the paper's GUB (ECRTS 2025, reported by gpuwcet bound) is not given: it is defined for one known path per warp, not for a maximum over paths",
		Reason:    "the static bound maximises over paths; the GUB's proof needs one fixed path per warp",
		Discharge: "nothing: the reported bound is the proved WUB-based one; for a traced path gpuwcet bound also reports the GUB",
		Basis:     staticGapsRef + "; docs/decisions.md, \"The reported bound is not the paper's GUB\""},
	{ID: Pipeline, Origin: OriginHardware, When: everyAnalyze,
		Statement: "the description's [pipeline] options (overhead, branch_wait, ret_issues, barrier_issues) are applied on every path as the model defines them",
		Reason:    "control hazards and pipeline overheads are modelled by the description's [pipeline] table, not by the tool",
		Discharge: "show that the options bound the hardware's branch and pipeline behaviour (the same evidence as A-UNIT-TIMINGS)",
		Basis:     "the hardware description's [pipeline] table; docs/model.md, \"Pipeline options on every path\""},
	{ID: PTXAsExecuted, Origin: OriginInput, When: "the listing is PTX",
		Statement: "the PTX listing is timed instruction by instruction, as GPGPU-Sim's PTX mode executes it; the machine code ptxas or the driver makes of it is not analysed",
		Reason:    "PTX is a virtual instruction set: ptxas schedules, allocates registers and may unroll or rewrite it",
		Discharge: "analyse the SASS of the deployed binary (cuobjdump -sass) with a SASS description, or show that the PTX description's timings bound the SASS ptxas produces",
		Basis:     notChecked + ": " + hwdescChoosingRef},
	{ID: ArchMismatch, Origin: OriginInput, When: "the listing's target is not the description's arch (nor an older architecture of its major version)",
		Statement: "the listing, compiled for another architecture than the hardware description's, is timed as if it ran on the described hardware",
		Reason:    "the description models one architecture; the listing states another (an arch-mismatch diagnostic)",
		Discharge: "analyse the listing built for the description's architecture, or use a description of the listing's",
		Basis:     notChecked + ": " + hwdescChoosingRef},
	{ID: DefaultUnit, Origin: OriginHardware, When: "instructions are timed on the description's default_unit",
		Statement: "instructions whose opcode no rule of the hardware description routes are timed on its default unit",
		Reason:    "the description has a default_unit, and no rule matches these opcodes (each is a default-unit diagnostic)",
		Discharge: "confirm each opcode's timing or add a rule for it (an extending description, docs/hwdesc.md); analyse with --strict to refuse defaults",
		Basis:     "the description's default_unit (docs/hwdesc.md); docs/decisions.md, \"Default units\""},
	{ID: HWOverride, Origin: OriginHardware, When: "the description extends a built-in one (extends)",
		Statement: "the hardware description extends a built-in one and overrides some of its units, rules or timing keys",
		Reason:    "an extension changes numbers the built-in description's provenance does not cover",
		Discharge: "check each overridden number and route against the source the extending description states",
		Basis:     notChecked + ": docs/hwdesc.md, \"Extending a description\""},

	// The reference model.
	{ID: OneScheduler, Origin: OriginModel, When: everyAnalyze,
		Statement: "one SM with one warp scheduler: no sub-cores, no dual issue",
		Reason:    "the ECRTS 2025 model; several schedulers per SM issue more than one instruction per cycle, which the bound does not charge",
		Discharge: "a description whose units and issue model bound the real SM partitions (docs/hwdesc.md, \"Choosing a description for real hardware\"); real GPUs since Maxwell have 4 sub-cores",
		Basis:     modelRef + " (Issue)"},
	{ID: InOrderScoreboard, Origin: OriginModel, When: everyAnalyze,
		Statement: "a warp issues in program order; an instruction waits for the pending writes of every register and predicate it reads or writes (scoreboard, RAW and WAW); registers are per warp",
		Reason:    "the reference model's issue rule",
		Discharge: "nothing for in-order GPUs; hardware with compiler-managed dependencies (SASS control codes) is covered by the scoreboard rule only when the code's stall counts are no shorter",
		Basis:     modelRef + " (Issue)"},
	{ID: UnitFIFO, Origin: OriginModel, When: everyAnalyze,
		Statement: "issue does not wait for the unit: the instruction joins its resource's FIFO, starts at max(issue, resource free), and its destinations are ready at start + init + lat + overhead (latency fully pipelined after the initiation)",
		Reason:    "the reference model's unit rule",
		Discharge: "the same evidence as A-UNIT-TIMINGS: units that stall issue or are not pipelined need a description whose init covers them",
		Basis:     modelRef + " (Units and resources)"},
	{ID: SameReady, Origin: OriginModel, When: everyAnalyze,
		Statement: "every destination of an instruction is written with the same ready time",
		Reason:    "the reference model's rule for instructions with several destinations",
		Discharge: "a description whose latency is that of the last destination written",
		Basis:     modelRef + " (Multiple destinations)"},
	{ID: WarpEnd, Origin: OriginModel, When: everyAnalyze,
		Statement: "a warp ends when its last result is ready; ret and exit issue nothing unless ret_issues is set",
		Reason:    "the reference model's end rule",
		Discharge: "nothing: a block's end is the readiness of its last result; set ret_issues when ret costs an issue slot",
		Basis:     modelRef + " (End)"},
	{ID: OtherBarriers, Origin: OriginModel, When: everyAnalyze,
		Statement: "barrier flavours other than bar.sync/bar.red (bar.arrive, bar.warp.sync) are ordinary instructions routed by the description",
		Reason:    "only block-wide barriers that wait end a section",
		Discharge: "nothing for bar.arrive (it does not wait); a named barrier that waits for a subset of warps must be a bar.sync",
		Basis:     modelRef + " (Barriers)"},
	{ID: UnroutedOpcode, Origin: OriginModel, When: everyAnalyze,
		Statement: "an opcode that no rule of the description matches is an error unless the description has a default_unit; the instructions timed on a default unit are listed (A-DEFAULT-UNIT), and --strict makes them errors",
		Reason:    "an opcode the description does not time is never given a silent default",
		Discharge: "nothing when A-DEFAULT-UNIT is absent from the report",
		Basis:     modelRef + "; unsupported-opcode and default-unit diagnostics"},

	// The environment.
	{ID: TimerSplitRead, Origin: OriginEnvironment, When: "a 64-bit timer read split into words (sm_5x, sm_6x: high, low, high with a retry loop) is bounded",
		Statement: "the high word of %globaltimer (or of the SM clock) changes at most once during two consecutive tries of a split timer read, so its retry loop runs at most 2 tries",
		Reason:    "before Volta the 64-bit timers are read as high, low, high words, retried while the high words differ; a retry means the high word changed, which happens once per 2^32 ticks (4.29 s of %globaltimer), and two tries take a few cycles unless the timer jumps",
		Discharge: "nothing for a free-running timer; a driver or host that sets %globaltimer (a jump of 2^32 ticks or more between two reads) invalidates the retry bound; compiling for sm_70 or later reads the counter at once and removes this assumption",
		Basis:     "cfg/release (SplitReadOf); docs/prem.md, \"SASS release points\""},
	{ID: ClockFixed, Origin: OriginEnvironment, When: everyAnalyze,
		Statement: "the SM clock is fixed at the stated clock (no DVFS, no thermal throttling); the clock only converts cycles to ns",
		Reason:    "bounds are in cycles; a time in ns holds only at the clock it was converted with",
		Discharge: "lock the clocks (nvidia-smi --lock-gpu-clocks, nvpmodel/jetson_clocks on Jetson) at or above the stated clock and keep the GPU below its throttling temperature, or use the bound in cycles",
		Basis:     notChecked + ": the integrator fixes the clocks"},
	{ID: NoMemoryEvents, Origin: OriginEnvironment, When: everyAnalyze,
		Statement: "no ECC replay, page fault, unified-memory migration or other memory event beyond the description's fixed latencies",
		Reason:    "such events are outside the timing model",
		Discharge: "use pinned, resident device memory (no unified-memory migration or oversubscription) and monitor ECC events",
		Basis:     notChecked + ": the integrator's configuration (pinned, resident memory)"},
	{ID: BinaryMatches, Origin: OriginEnvironment, When: everyAnalyze,
		Statement: "the kernel runs with the launch configuration of item 2 and the listing of item 2 (the binary built from it)",
		Reason:    "the report's hashes identify the analysed listing, not the deployed binary",
		Discharge: "show that the deployed binary is built from the listing's hash (a reproducible build, or the listing extracted from the deployed binary with cuobjdump)",
		Basis:     "the SHA-256 of item 2; not checked against the deployed binary"},

	// The kernel level.
	{ID: GridDispatch, Origin: OriginKernel, When: withGrid,
		Statement: "blocks of the grid are dispatched in grid order to free block slots: while a block of the grid waits, each of the occupancy's guaranteed slots of an SM that is free receives a block within the dispatch latency (work-conserving dispatch); at most occupancy-hi blocks are co-resident on one SM",
		Reason:    "the kernel-level bound is a list-scheduling bound over the SMs' block slots",
		Discharge: "nothing for NVIDIA's block dispatcher on an otherwise idle GPU; a partitioned GPU (MIG, green contexts) must give the kernel the stated SMs",
		Basis:     kernelRef},
	{ID: GridAlone, Origin: OriginKernel, When: withGrid,
		Statement: "the kernel runs alone on its SMs (no other kernel, no MPS co-tenancy, no preemption); the SMs share nothing the model times (memory is each SM's fixed-latency unit: no contention between SMs)",
		Reason:    "other kernels and the memory traffic of the other SMs are not modelled",
		Discharge: "the same evidence as A-BLOCK-ALONE and A-MEM-FIXED-LATENCY for the whole GPU",
		Basis:     kernelRef},
	{ID: CoResident, Origin: OriginKernel, When: withGrid,
		Statement: "co-resident blocks of one SM share its issue slot and units exactly as the warps of one block do (the block model, docs/model.md); a block's own warps follow its own barriers",
		Reason:    "Lemma K1 bounds a block among others with the block model",
		Discharge: "nothing beyond the block model's assumptions",
		Basis:     kernelRef},
	{ID: OccPartitionedGC, Origin: OriginKernel, When: withGrid + ", on an SM with partitioned global caching",
		Statement: "the SM has partitioned global caching (global loads cached in L1, -Xptxas -dlcm=ca), which gives a block half the SM's warps and registers: the guaranteed occupancy assumes it on, the largest off",
		Reason:    "whether the kernel caches global loads in L1 is a compiler flag the listing does not state",
		Discharge: "nothing: both ends are taken where each is safe; state the flag to narrow the range",
		Basis:     "docs/kernel.md, \"Occupancy\""},
	{ID: OccLaunches, Origin: OriginKernel, When: withGrid + ", when the largest resources would fit no block",
		Statement: "the launch succeeds, so at least one block fits on an SM",
		Reason:    "unknown registers or shared memory at their largest would fit no block; a kernel that launches has at least one",
		Discharge: "give --regs and --dynamic-smem (or a SASS listing that states them) so that the occupancy is computed, not assumed",
		Basis:     "docs/kernel.md, \"Occupancy\""},
	{ID: OccSmemOptIn, Origin: OriginKernel, When: withGrid + ", when a block needs more than the default shared memory per block",
		Statement: "the kernel opts in to more shared memory per block than the default (cudaFuncAttributeMaxDynamicSharedMemorySize)",
		Reason:    "without the opt-in the launch fails; the bound assumes the launch succeeds",
		Discharge: "show the cudaFuncSetAttribute call in the host code",
		Basis:     "docs/kernel.md, \"Occupancy\""},
	{ID: OccCarveout, Origin: OriginKernel, When: withGrid + ", on sm_70 and later when the kernel uses shared memory",
		Statement: "the L1/shared-memory carve-out gives the SM its largest shared memory; a smaller carve-out can lower the occupancy",
		Reason:    "the driver chooses the carve-out unless the kernel sets a preference",
		Discharge: "set cudaFuncAttributePreferredSharedMemoryCarveout to cudaSharedmemCarveoutMaxShared for the kernel",
		Basis:     "docs/kernel.md, \"Occupancy\""},
	{ID: GridClock, Origin: OriginKernel, When: withGrid,
		Statement: "the SM clock is fixed at the clock of the platform (or of the hardware description when no platform is given)",
		Reason:    "the kernel-level bounds are converted to ns at that clock",
		Discharge: "the same evidence as A-CLOCK-FIXED",
		Basis:     kernelRef},
	{ID: LaunchOverhead, Origin: OriginKernel, When: withGrid + ", when the platform gives a launch overhead",
		Statement: "the launch overhead (host launch call to synchronisation return) is at most the platform's figure, which is measured or assumed, not bounded",
		Reason:    "launch overheads come from the driver and the host, which no listing describes",
		Discharge: "measure the overhead on the deployed system under its worst load with a margin, or use a platform figure of kind bound",
		Basis:     "the platform file (docs/kernel.md, \"Platforms\"); docs/decisions.md, \"Platform overheads are data with a kind, never defaults\""},
	{ID: DispatchLatency, Origin: OriginKernel, When: withGrid + ", when the platform gives a dispatch latency",
		Statement: "a free block slot stays empty at most the platform's dispatch latency while blocks wait",
		Reason:    "the block dispatcher's latency is not documented by NVIDIA",
		Discharge: "measure the latency on the deployed GPU, or use a platform figure of kind bound",
		Basis:     "the platform file (docs/kernel.md, \"Platforms\")"},

	// PREM.
	{ID: PremIsolation, Origin: OriginPREM, When: everyPREM,
		Statement: "the phase bounds hold in isolation: they are valid under the schedule only if no two participants' memory phases overlap (C5)",
		Reason:    "PREM makes memory phases exclusive so that isolated bounds apply",
		Discharge: "check C5 passes (it is reported; C4 and C8 are unsound when it fails)",
		Basis:     "C5; " + premSemanticsRef},
	{ID: PremRelease, Origin: OriginPREM, When: everyPREM,
		Statement: "not-before release: a triggered phase starts at max(trigger, end of its predecessor) + J (J + r for a trigger off the timer's grid); an untriggered phase starts when its predecessor ends",
		Reason:    "the schedule semantics of time-triggered PREM (tt-gpu)",
		Discharge: "show that the kernels release their phases as the schedule states (the release points of the code, docs/prem.md)",
		Basis:     premSemanticsRef + "; C9"},
	{ID: PremJitter, Origin: OriginPREM, When: everyPREM,
		Statement: "release_jitter_ns bounds the delay from a trigger to the phase start (the spin's exit and the barrier); a release point's loop is bounded by 2 iterations from its trigger",
		Reason:    "the delay of a time-triggered release is a platform property",
		Discharge: "measure the release jitter on the deployed system with a margin",
		Basis:     "the schedule's platform table; docs/prem.md, \"Release points\""},
	{ID: PremGivenBounds, Origin: OriginPREM, When: everyPREM,
		Statement: "bounds given in the schedule ([[bound]]) are trusted as given; analysis bounds are one block in isolation, in cycles converted at clock_hz rounding up (N3)",
		Reason:    "a phase the analysis cannot bound may be given a bound by the user",
		Discharge: "review each assumed bound (C2 and the participant table list them), or let the analysis bound the phase",
		Basis:     "C2; item 8"},
	{ID: PremClock, Origin: OriginPREM, When: everyPREM,
		Statement: "clock_hz is the lowest SM clock during the run (clocks pinned)",
		Reason:    "cycle bounds are converted to ns at clock_hz",
		Discharge: "the same evidence as A-CLOCK-FIXED",
		Basis:     notChecked},
	{ID: PremWarmup, Origin: OriginPREM, When: everyPREM,
		Statement: "the warm-up tiles are outside the PREM guarantee; their bound under contention is assumed when given",
		Reason:    "the first tiles run before the pipeline of phases is established",
		Discharge: "give a warm-up bound measured or analysed under N-way contention (C7)",
		Basis:     "C7"},
	{ID: PremPlacement, Origin: OriginPREM, When: everyPREM,
		Statement: "the blocks are placed on the SMs by the hardware; C1 shows that they can all be resident, not where",
		Reason:    "block placement is the hardware's",
		Discharge: "nothing when C1 passes: every participant's blocks are resident at once",
		Basis:     "C1"},
	{ID: PremResources, Origin: OriginPREM, When: "prem check when a schedule gives shared_bytes or registers_per_thread",
		Statement: "the registers per thread (registers_per_thread) and the shared memory per block (shared_bytes) the schedule gives are the deployed kernel's",
		Reason:    "a PTX listing does not state its registers, and shared_bytes overrides the listing's .shared declarations",
		Discharge: "check them against ptxas -v or cuobjdump -res-usage of the deployed binary; drop shared_bytes to take the listing's .shared declarations (plus dynamic_shared_bytes); C1 warns when the schedule's figures are below the listing's",
		Basis:     "C1; docs/prem.md, \"Checks\""},
}
