package isa

import (
	"bytes"
	"go/token"
)

// Mode is a set of bit flags that control a front end's ParseFile
// (ptx.Mode and sass.Mode are this type).
type Mode uint

const (
	// AllErrors reports all errors instead of stopping after MaxErrors.
	AllErrors Mode = 1 << iota
)

// Errors collects the errors of one parse. Add stops the parse, by a panic
// that Recover ends, once MaxErrors errors are collected, unless Mode has
// AllErrors.
type Errors struct {
	List ErrorList
	Mode Mode
}

// bailout is the panic value of Errors.Add.
type bailout struct{}

// Add appends an error at pos and stops the parse after MaxErrors.
func (e *Errors) Add(pos token.Position, msg string) {
	e.List.Add(pos, msg)
	if e.Mode&AllErrors == 0 && len(e.List) >= MaxErrors {
		panic(bailout{})
	}
}

// Recover ends the panic by which Errors.Add stops a parse. Call it in the
// function the parse defers, with the value of recover(): any other panic
// goes on.
func Recover(r any) {
	if r == nil {
		return
	}
	if _, ok := r.(bailout); !ok {
		panic(r)
	}
}

// LineStarts returns the offsets of the line starts of src, as
// token.File.SetLinesForContent computes them (none for an empty src, no
// entry for the empty line after a final newline), with one exactly sized
// allocation.
func LineStarts(src []byte) []int {
	if len(src) == 0 {
		return nil
	}
	n := 1 + bytes.Count(src, newline)
	if src[len(src)-1] == '\n' {
		n--
	}
	lines := make([]int, 1, n)
	for off := 0; ; {
		k := bytes.IndexByte(src[off:], '\n')
		if k < 0 || off+k+1 >= len(src) {
			break
		}
		off += k + 1
		lines = append(lines, off)
	}
	return lines
}

var newline = []byte{'\n'}
