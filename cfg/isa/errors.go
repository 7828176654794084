package isa

import (
	"fmt"
	"go/token"
	"sort"
)

// MaxErrors is how many errors a front end reports before it stops.
const MaxErrors = 10

// Error is a positioned message: "file:line:col: msg".
type Error struct {
	Pos token.Position
	Msg string
}

func (e *Error) Error() string {
	if e.Pos.Filename != "" || e.Pos.IsValid() {
		return e.Pos.String() + ": " + e.Msg
	}
	return e.Msg
}

// ErrorList is a list of positioned errors, as in go/scanner.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos token.Position, msg string) {
	*l = append(*l, &Error{Pos: pos, Msg: msg})
}

// Addf appends a formatted error at pos.
func (l *ErrorList) Addf(pos token.Position, format string, args ...any) {
	l.Add(pos, fmt.Sprintf(format, args...))
}

func (l ErrorList) Len() int      { return len(l) }
func (l ErrorList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }
func (l ErrorList) Less(i, j int) bool {
	e, f := l[i].Pos, l[j].Pos
	if e.Filename != f.Filename {
		return e.Filename < f.Filename
	}
	if e.Line != f.Line {
		return e.Line < f.Line
	}
	if e.Column != f.Column {
		return e.Column < f.Column
	}
	return l[i].Msg < l[j].Msg
}

// Sort sorts the list by file, line, column and message.
func (l ErrorList) Sort() { sort.Sort(l) }

// RemoveMultiples sorts the list and keeps the first error of each line.
func (l *ErrorList) RemoveMultiples() {
	l.Sort()
	var last token.Position
	i := 0
	for _, e := range *l {
		if e.Pos.Filename != last.Filename || e.Pos.Line != last.Line {
			last = e.Pos
			(*l)[i] = e
			i++
		}
	}
	*l = (*l)[:i]
}

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Err returns nil for an empty list and the list otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
