package isa

import "go/token"

// Resources are what a listing states about a kernel's use of the SM's
// registers and shared memory (occupancy, package hwdesc/arch). A zero
// field is "not stated".
type Resources struct {
	// Regs is the number of registers per thread: SASS "REG:N"
	// (cuobjdump -res-usage), .sectioninfo @"SHI_REGISTERS=N" (nvdisasm),
	// "# RegCnt: N" (maxas); RegsFrom names the source.
	Regs     int
	RegsFrom string
	// SharedBytes is the static shared memory per block when the listing
	// states it as a number: SASS "SHARED:N", "# SharedSize: N"
	// (SharedStated is then set, also for 0).
	SharedBytes  int64
	SharedStated bool
	// Shared are the PTX .shared declarations in the function's body.
	Shared []SharedVar
}

// SharedVar is a PTX .shared variable declaration.
type SharedVar struct {
	Name   string
	Bytes  int64 // size in bytes; 0 for an .extern array (dynamic shared memory)
	Align  int64 // .align, 0 when not given
	Extern bool  // .extern: sized at launch (dynamic shared memory)
	Pos    token.Pos
}
