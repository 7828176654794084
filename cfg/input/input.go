// Package input bounds what the front ends accept before they decode it:
// the size of every file the tool reads (listings, traces, the modules
// beside a trace, hardware descriptions, facts files, schedules), and the
// nesting of TOML documents, on which the TOML decoder is quadratic.
//
// Every reader of a file given by the user goes through ReadFile, and
// every TOML decoder calls CheckTOML on its bytes first (hwdesc.Decode,
// loops.DecodeFacts, the PREM schedule decoder), so that a hostile input
// is refused in time and memory linear in its size, with a positioned
// error, instead of exhausting the machine.
package input

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"os"
)

// DefaultMaxBytes is the default limit on the size of a listing or a trace
// (gpuwcet's --max-input-size). Parsing costs about 30 bytes of memory per
// input byte (docs/performance.md, "Input size"), so the default keeps a
// run under about 2 GB; the largest listing of the shared corpus is 1 MB.
const DefaultMaxBytes = 64 << 20

// MaxTOMLBytes is the limit on the size of a TOML document (hardware
// description, facts file, schedule). No flag raises it: the largest
// description and facts files in use are a few KB.
const MaxTOMLBytes = 4 << 20

// MaxTOMLDepth is the limit on the nesting of a TOML document: tables,
// arrays and inline tables opened inside one another plus the parts of
// dotted keys and table names. The schemas need at most 4; the decoder
// takes time quadratic in the nesting (10,000 inline tables: 26 s, 5 GB).
const MaxTOMLDepth = 32

// TooLargeError reports a file above a size limit.
type TooLargeError struct {
	Path  string
	Size  int64 // the file's size, or -1 when it is not known (a pipe or device read past the limit)
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s: more than %d bytes, above the input size limit", e.Path, e.Limit)
	}
	return fmt.Sprintf("%s: %d bytes, above the input size limit of %d bytes", e.Path, e.Size, e.Limit)
}

// ReadFile reads the file at path, refusing it with a *TooLargeError when
// it holds more than limit bytes (limit ≤ 0 means DefaultMaxBytes). A
// regular file is refused from its size before anything is read; anything
// else (a pipe, /dev/stdin, a device) is read up to limit+1 bytes. Other
// errors are those of os.Open and Read (an *fs.PathError names the file).
func ReadFile(path string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil {
		if st.IsDir() {
			return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("is a directory")}
		}
		if st.Mode().IsRegular() {
			size = st.Size()
			if size > limit {
				return nil, &TooLargeError{Path: path, Size: size, Limit: limit}
			}
		}
	}
	n := limit + 1
	if size >= 0 {
		n = size + 1 // one more byte tells a file that grew
	}
	buf := make([]byte, 0, min(n, 1<<20))
	buf, err = readAll(io.LimitReader(f, limit+1), buf)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(buf)) > limit {
		return nil, &TooLargeError{Path: path, Size: -1, Limit: limit}
	}
	return buf, nil
}

// readAll is io.ReadAll into buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Error is a TOML document refused before decoding, at a position of the
// document (Filename is the name given to CheckTOML).
type Error struct {
	Pos token.Position
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// CheckTOML refuses a TOML document larger than MaxTOMLBytes or nested
// deeper than MaxTOMLDepth, in one pass over its bytes; name is the file
// name used in the error. It does not validate the syntax (the decoder
// does): it only bounds what the decoder is given.
//
// Nesting counts every '[' and '{' outside strings and comments that is
// not closed yet, plus, at each level, the dots of the key or table name
// being read (a dotted key "a.b.c = {…}" opens three tables). Dots in
// numbers (1.5) count too, which only makes the measure larger by one.
func CheckTOML(name string, data []byte) error {
	if len(data) > MaxTOMLBytes {
		return &Error{Pos: token.Position{Filename: name}, Msg: fmt.Sprintf("%d bytes, above the limit of %d bytes for a TOML document", len(data), MaxTOMLBytes)}
	}
	var stack []int // the depth to restore at each open bracket
	depth, run := 0, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			run = 0
		case '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			i = skipString(data, i)
		case '.':
			run++
			if depth+run > MaxTOMLDepth {
				return nestingError(name, data, i)
			}
		case ',':
			run = 0
		case '[', '{':
			stack = append(stack, depth)
			depth += run + 1
			run = 0
			if depth > MaxTOMLDepth {
				return nestingError(name, data, i)
			}
		case ']', '}':
			if n := len(stack); n > 0 {
				depth, stack = stack[n-1], stack[:n-1]
			}
			run = 0
		}
	}
	return nil
}

// skipString returns the index of the last byte of the string starting at
// data[i] (a quote): basic or literal, single- or multi-line. An
// unterminated single-line string ends before its newline (the decoder
// reports it).
func skipString(data []byte, i int) int {
	q := data[i]
	multi := i+2 < len(data) && data[i+1] == q && data[i+2] == q
	if multi {
		i += 2
	}
	for i++; i < len(data); i++ {
		switch d := data[i]; {
		case d == '\n' && !multi:
			return i - 1
		case d == '\\' && q == '"':
			i++ // the escaped byte
		case d == q && !multi:
			return i
		case d == q && i+2 < len(data) && data[i+1] == q && data[i+2] == q:
			i += 2
			// Up to two more quotes belong to the string ("""a""""").
			for k := 0; k < 2 && i+1 < len(data) && data[i+1] == q; k++ {
				i++
			}
			return i
		}
	}
	return len(data) - 1
}

// nestingError is the error for the byte at data[i], which nests too deep.
func nestingError(name string, data []byte, i int) error {
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	col := i + 1 - (bytes.LastIndexByte(data[:i], '\n') + 1)
	return &Error{Pos: token.Position{Filename: name, Line: line, Column: col},
		Msg: fmt.Sprintf("nesting deeper than %d (tables, arrays, inline tables and dotted keys inside one another): the TOML decoder's time is quadratic in it", MaxTOMLDepth)}
}
