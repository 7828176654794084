package report

import "sort"

// Rule is one kind of diagnostic: a SARIF reportingDescriptor.
type Rule struct {
	ID    string
	Level string // default level
	Short string
	Full  string
}

// Rules is the catalogue of diagnostic kinds, in id order. A diagnostic
// whose rule is not listed gets a generic descriptor (ruleFor).
var Rules = []Rule{
	{"analysis-error", LevelError, "The kernel could not be analysed.", "The analysis of the kernel failed on bad input (exit code 1); the message says why. No bound is given for the kernel."},
	{"annotation-below-derived", LevelWarning, "A loop bound from the facts file is below the derived bound.", "The annotated bound is used (annotations are trusted), but it is lower than the bound the analysis derived from the code: check the annotation."},
	{"arch-mismatch", LevelWarning, "The listing was compiled for another architecture than the hardware description's.", "The listing targets an architecture the description does not model (a newer one, or another major version): it is timed as if it ran on the described hardware. The report lists this as assumption A-ARCH-MISMATCH."},
	{"barrier-divergence", LevelError, "Warps may reach different barrier sequences.", "A block-wide barrier is under divergent control, or warps can reach different sequences of barriers: undefined behaviour in CUDA, and no section bound applies (exit code 2)."},
	{"default-unit", LevelWarning, "An opcode is timed on the hardware description's default unit.", "No rule of the hardware description routes the opcode: its instructions are timed on the description's default_unit. The report lists them as assumption A-DEFAULT-UNIT; --strict makes them errors."},
	{"input-error", LevelError, "The run stopped before any kernel was analysed.", "An input could not be read or decoded (a listing that does not parse, a bad hardware description or facts file, a file above the size limit), or the command line is wrong; no bound is given (exit code 1). The message says why, at the input's position when there is one."},
	{"irreducible-loop", LevelError, "Irreducible loop.", "A cycle of the control-flow graph is entered at several blocks: no loop bound applies to it; restructure the code (exit code 2)."},
	{"missing-argument", LevelError, "A derived loop bound needs a kernel argument.", "A loop bound is an expression of a kernel argument that was not given: pass --arg NAME=VALUE (exit code 1)."},
	{"no-exit", LevelError, "No path reaches the end of the kernel.", "The kernel has no path to its end (an infinite loop): it cannot be bounded (exit code 2)."},
	{"not-bounded", LevelError, "The kernel is not bounded.", "The analysis could not bound the kernel (exit code 2); the message says why."},
	{"open-loop-fact", LevelError, "A loop bound of the facts file is still \"?\".", "The facts file leaves the maximum of a loop open: fill it in (docs/facts.md; exit code 2)."},
	{"over-deadline", LevelError, "The bound exceeds the deadline.", "The kernel's bound is above --deadline (exit code 3): the block bound in cycles, or with --deadline-level kernel the kernel-level bound in ns (docs/kernel.md)."},
	{"prem-c1", LevelError, "PREM C1: the blocks of the schedule are not all co-resident.", "Every block of every participant must be resident at once (a spinning block holds its SM): the occupancy of each kernel on the platform's SMs (docs/prem.md; exit code 3)."},
	{"prem-c10", LevelError, "PREM C10: the memory phases need more than the whole period.", "The sum of the prefetch and write-back bounds exceeds T_hyper: the memory phases cannot be exclusive (docs/prem.md; exit code 3)."},
	{"prem-c2", LevelWarning, "PREM C2: a phase bound is missing, assumed, or covers one block of several.", "Every phase needs a bound; bounds given in the schedule are assumed, not proven; a single-block bound does not cover a participant whose blocks run their memory phases concurrently (N2; docs/prem.md)."},
	{"prem-c3", LevelError, "PREM C3: a declared period value differs from the derived one.", "hyperperiod_ns or wb_base_offset_ns as declared differ from the values derived from the offsets and budgets (docs/prem.md; exit code 3)."},
	{"prem-c4", LevelError, "PREM C4: a phase does not fit its slot.", "A phase's bound plus the release jitter exceeds its slot on some tile (whole tile: the period; phase mode: the budgets; table: the window): the schedule drifts (docs/prem.md; exit code 3)."},
	{"prem-c5", LevelError, "PREM C5: memory phases of two participants overlap.", "Two participants' prefetch or write-back windows intersect, so the phase bounds, computed in isolation, do not hold under the schedule (docs/prem.md; exit code 3)."},
	{"prem-c6", LevelError, "PREM C6: a compute ends after its write-back trigger.", "The write-back starts late and its window is shifted (docs/prem.md; exit code 3)."},
	{"prem-c7", LevelWarning, "PREM C7: the warm-up is unverified or does not fit.", "The warm-up tiles run at once, outside the PREM guarantee; their bound under contention must fit WU (docs/prem.md)."},
	{"prem-c8", LevelError, "PREM C8: the makespan exceeds the deadline.", "The makespan bound of the schedule exceeds deadline_ns (docs/prem.md; exit code 3)."},
	{"prem-c9", LevelWarning, "PREM C9: a trigger is off the timer's grid or close to its resolution.", "Offsets below 4 timer steps, or triggers that are not multiples of the timer resolution (released up to one step late: J + r is used; docs/prem.md)."},
	{"release-point", LevelWarning, "A timer spin loop is a release point.", "The loop spins on a timer until a trigger computed before it (a time-triggered release, docs/prem.md): it is bounded by 2 executions of its header from the trigger; the wait before the trigger is decided by the schedule and is not in the bound."},
	{"stale-facts", LevelError, "The facts file was written for another listing.", "The SHA-256 recorded in the facts file does not match the listing: regenerate the template and carry the bounds over (exit code 1)."},
	{"tile-count", LevelWarning, "A schedule names fewer tiles than the tile loop may run.", "tiles_per_block is below the bound of the loop around the kernel's release point (N4): the schedule checks only the tiles it names (docs/prem.md)."},
	{"unbounded-loop", LevelError, "Loop without a bound.", "No bound could be derived for the loop and the facts file gives none: add one with --facts (gpuwcet facts template; exit code 2)."},
	{"uni-not-trusted", LevelWarning, "A .uni branch was not trusted.", "A branch marked .uni by the compiler could not be shown uniform; it is treated as possibly divergent (sound)."},
	{"unknown-opcode", LevelWarning, "Opcode parsed with the generic rule.", "The front end does not know the opcode: it is parsed with the generic rule (first operand written, the others read)."},
	{"unresolved-call", LevelError, "A call could not be inlined.", "A call whose callee's code is unknown (indirect, external or recursive) cannot be bounded (exit code 2)."},
	{"unresolved-indirect-branch", LevelError, "Indirect branch without known targets.", "An indirect branch has no .branchtargets list: its successors are unknown (exit code 2)."},
	{"unsupported-opcode", LevelError, "No rule of the hardware description matches an opcode.", "The hardware description has no rule for the opcode and no default_unit (or --strict refuses it): the instruction cannot be timed (exit code 1)."},
}

// ruleFor returns the catalogue entry of id, or a generic one.
func ruleFor(id string) Rule {
	i := sort.Search(len(Rules), func(i int) bool { return Rules[i].ID >= id })
	if i < len(Rules) && Rules[i].ID == id {
		return Rules[i]
	}
	return Rule{ID: id, Level: LevelWarning, Short: id, Full: "Diagnostic " + id + " of the analysis."}
}
