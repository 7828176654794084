package assume

// Statuses of a channel.
const (
	// AssumedAway: the bound is valid only if the channel is absent or
	// bounded by the user (the assumptions named discharge it).
	AssumedAway = "assumed away"
	// AccountedFor: the bound covers the channel.
	AccountedFor = "accounted for"
	// Excluded: outside what the bound covers (the report's scope lists
	// it among the exclusions).
	Excluded = "excluded"
)

// Channel is a known source of unsoundness: something that can make a
// real execution take longer than the timing model says, and how the tool
// treats it.
type Channel struct {
	Name   string
	Status string   // AssumedAway, AccountedFor or Excluded
	IDs    []string // the assumptions that state it (AssumedAway)
	Text   string   // what happens, and what covers it
	GPU    bool     // an interference channel on the GPU side
}

// Channels returns the known sources of unsoundness, the GPU-side
// interference channels first.
func Channels() []Channel { return append([]Channel(nil), channels...) }

var channels = []Channel{
	{Name: "Other warps of the block", Status: AccountedFor, GPU: true,
		Text: "the interference term I of every class charges the other warps' issue and unit occupancy, per resource (docs/model.md, \"The bound and its proof\")"},
	{Name: "Other blocks of the same kernel on the SM", Status: AccountedFor, GPU: true, IDs: []string{BlockAlone, CoResident},
		Text: "the block bound assumes them away (A-BLOCK-ALONE); with --grid the kernel-level bound charges the co-resident blocks of the occupancy (Lemma K1, A-CORESIDENT-SHARING)"},
	{Name: "Other kernels and processes (concurrent kernels, streams, MPS clients, graphics, other contexts)", Status: AssumedAway, GPU: true, IDs: []string{BlockAlone, GridAlone},
		Text: "nothing in the model shares the SM or the GPU with another kernel"},
	{Name: "Preemption and time-slicing (compute preemption, context switches between processes, a debugger)", Status: AssumedAway, GPU: true, IDs: []string{BlockAlone, GridAlone},
		Text: "a preempted block is suspended for an unbounded time; the bound is for an execution that is not preempted"},
	{Name: "Memory contention (other SMs, copy engines, the CPU and other masters on shared DRAM, e.g. Jetson)", Status: AssumedAway, GPU: true, IDs: []string{MemFixedLatency, GridAlone},
		Text: "memory is a fixed-latency unit per SM; the description's latency must bound the contended access (or a PREM schedule must keep memory phases apart: gpuwcet prem check, C5)"},
	{Name: "Data caches (L1, L2, texture, constant) and TLBs", Status: AssumedAway, GPU: true, IDs: []string{MemFixedLatency},
		Text: "no cache state is modelled: a latency below the worst miss is unsound, one at the worst miss is sound but pessimistic for hits"},
	{Name: "Instruction cache", Status: AssumedAway, GPU: true, IDs: []string{NoICacheMiss},
		Text: "instruction fetch is not timed"},
	{Name: "Clocks: DVFS, boost, thermal and power throttling", Status: AssumedAway, GPU: true, IDs: []string{ClockFixed, GridClock, PremClock},
		Text: "bounds in cycles do not depend on the clock; bounds in ns hold at the stated clock only"},
	{Name: "Several warp schedulers per SM (sub-cores), dual issue", Status: AssumedAway, GPU: true, IDs: []string{OneScheduler},
		Text: "the model has one scheduler issuing one instruction per cycle; a description must bound the partitions' behaviour"},
	{Name: "ECC replays, page faults, unified-memory migration", Status: AssumedAway, GPU: true, IDs: []string{NoMemoryEvents},
		Text: "memory events beyond the fixed latencies are not modelled"},
	{Name: "Launch overhead and block dispatch", Status: Excluded, GPU: true, IDs: []string{LaunchOverhead, DispatchLatency},
		Text: "outside the block bound (scope exclusions); with --grid and a platform file, included as measured or assumed figures (conditional totals)"},
	{Name: "Host code, host-device copies, stream synchronisation", Status: Excluded,
		Text: "outside every bound (scope exclusions)"},
	{Name: "Divergence and reconvergence (SIMT serialisation)", Status: AccountedFor,
		Text: "the warp-level CFG of each class runs both sides of a divergent branch, in every order the model allows (docs/model.md, \"Divergence and the warp-level CFG\")"},
	{Name: "Unknown loop bounds, irreducible loops, indirect branches, recursion", Status: AccountedFor,
		Text: "refused: the kernel is not bounded (exit code 2), never guessed"},
	{Name: "Loop bounds given by the user", Status: AssumedAway, IDs: []string{LoopAnnotated},
		Text: "an annotated bound is trusted; the report lists each for review"},
	{Name: "Launch configuration and arguments other than those analysed", Status: AssumedAway, IDs: []string{LaunchConfig, BinaryMatches},
		Text: "derived bounds and branch outcomes hold for the given values only"},
	{Name: "Timings of the hardware description", Status: AssumedAway, IDs: []string{UnitTimings, Pipeline, UnitFIFO, DefaultUnit, HWOverride},
		Text: "every number comes from the description; the tool checks its consistency, not its truth"},
	{Name: "PTX instead of the machine code that runs", Status: AssumedAway, IDs: []string{PTXAsExecuted},
		Text: "a PTX listing is timed as written; ptxas schedules and rewrites it"},
	{Name: "A listing for another architecture than the description's", Status: AssumedAway, IDs: []string{ArchMismatch},
		Text: "a diagnostic and an assumption of the report; an instruction-set mismatch is an error"},
	{Name: "Barriers reached differently by the warps of a block", Status: AccountedFor, IDs: []string{BarrierUniform},
		Text: "refused (barrier-divergence, exit code 2), except a barrier decided by a warp-uniform load, which is trusted"},
}
