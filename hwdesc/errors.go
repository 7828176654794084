package hwdesc

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// Error is a problem at a position of a description file.
type Error struct {
	File string // file name as given to Decode or Load; may be ""
	Line int    // 1-based; 0 if unknown
	Col  int    // 1-based; 0 if unknown
	Msg  string
}

// Error returns "file:line:col: msg", leaving out the unknown parts.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is a list of positioned errors, sorted by position. Its Error
// method prints one error per line.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns nil for an empty list and the sorted list otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].File != l[j].File {
			return l[i].File < l[j].File
		}
		return l[i].Line < l[j].Line
	})
	return l
}

func (l *ErrorList) add(file string, line int, format string, args ...any) {
	*l = append(*l, &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// UnknownKeysError reports keys that are not part of the schema.
type UnknownKeysError struct {
	File string
	Keys []UnknownKey // in file order
}

// UnknownKey is one key not in the schema.
type UnknownKey struct {
	Key  string // dotted path: "unit.latency"
	Line int    // 0 if unknown
	Hint string // a schema key it may be a misspelling of, or ""
}

func (e *UnknownKeysError) Error() string {
	var b strings.Builder
	for i, k := range e.Keys {
		if i > 0 {
			b.WriteByte('\n')
		}
		msg := fmt.Sprintf("unknown key %q", k.Key)
		if k.Hint != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", k.Hint)
		}
		b.WriteString((&Error{File: e.File, Line: k.Line, Msg: msg}).Error())
	}
	return b.String()
}

// SyntaxError is a TOML syntax or type error.
type SyntaxError struct {
	File string
	Line int
	Col  int
	Msg  string
	// Err is the parser's error; ErrorWithPosition shows its source excerpt.
	Err error
}

func (e *SyntaxError) Error() string {
	return (&Error{File: e.File, Line: e.Line, Col: e.Col, Msg: e.Msg}).Error()
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// ErrorWithPosition returns the error followed by the offending source
// lines with a caret under the fault, when the parser provided them.
func (e *SyntaxError) ErrorWithPosition() string {
	var pe toml.ParseError
	if p, ok := e.Err.(toml.ParseError); ok {
		pe = p
	} else {
		return e.Error()
	}
	s := pe.ErrorWithPosition()
	// Drop the library's own first line, which repeats the message.
	if _, rest, ok := strings.Cut(s, "\n\n"); ok {
		s = rest
	}
	// An excerpt of a binary file would write its bytes to the terminal.
	if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
		return e.Error()
	}
	return e.Error() + "\n\n" + strings.TrimRight(s, "\n")
}
