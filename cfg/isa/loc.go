package isa

import "strconv"

// SourceLoc is a location in the high-level source (a .cu file) that an
// instruction was compiled from, as stated by a PTX .loc directive with its
// .file index resolved. Instructions following one .loc share one *SourceLoc
// (a front end may also share it between identical .loc directives).
type SourceLoc struct {
	File string // file name from the .file table; "" when the index is unknown
	Line int
	Col  int
}

func (l *SourceLoc) String() string {
	if l == nil {
		return ""
	}
	return l.File + ":" + strconv.Itoa(l.Line) + ":" + strconv.Itoa(l.Col)
}
