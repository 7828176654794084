package report

// Keys of the assumptions a report states because of its inputs: stable
// identifiers, the same in every report, that reviewers and tools may refer
// to (the numbered IDs A1, A2, … follow the order of the list and change
// with it). docs/report.md, "Assumptions", says what each means.
const (
	// KeyArchMismatch: the listing was compiled for another architecture
	// than the one the hardware description models.
	KeyArchMismatch = "A-ARCH-MISMATCH"
	// KeyDefaultUnit: instructions timed on the description's default
	// unit, since no rule routes their opcodes.
	KeyDefaultUnit = "A-DEFAULT-UNIT"
	// KeyHWOverride: the description extends a built-in one and changes
	// some of its units or rules.
	KeyHWOverride = "A-HW-OVERRIDE"
)
