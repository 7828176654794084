package trace

import (
	"bytes"
	"go/token"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// record is one instruction line of a GPGPU-Sim trace.
type record struct {
	line    int    // 1-based line number in the trace
	warp    int    // warp slot
	pc      uint64 // PTX instruction-memory address
	module  string // module base name
	mline   int    // 1-based line in the module
	text    string // instruction text, as in the trace (with its ';')
	textOff int    // byte offset of text in the trace
	pcCol   int    // 1-based column of the "0x" of the PC, for messages
}

// scan is the result of reading the lines of a trace.
type scan struct {
	header      bool // "File start..." seen
	recs        []record
	cycles      int64
	hasCycles   bool
	trailerLine int
}

const (
	headerLine    = "File start..."
	trailerPrefix = "kernel_execution_time"
)

// maxWarp bounds warp numbers: far above any SM's warp slots, low enough
// that a corrupt number cannot make a consumer allocate per-warp tables
// without limit.
const maxWarp = 1 << 16

// scanLines splits src into records. Errors are positioned in tf.
func scanLines(tf *token.File, src []byte, errs *isa.ErrorList) *scan {
	s := &scan{}
	first := true // no non-blank line seen yet
	off := 0
	for lineNo := 1; off < len(src); lineNo++ {
		end := bytes.IndexByte(src[off:], '\n')
		var raw []byte
		next := len(src)
		if end >= 0 {
			raw = src[off : off+end]
			next = off + end + 1
		} else {
			raw = src[off:]
		}
		line := strings.TrimRight(string(raw), " \t\r")
		base := off
		off = next
		if len(*errs) >= isa.MaxErrors {
			break
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		posAt := func(col int) token.Position {
			return tf.Position(tf.Pos(base + col))
		}
		if s.hasCycles {
			errs.Addf(posAt(0), "line after the %s trailer (line %d)", trailerPrefix, s.trailerLine)
			continue
		}
		if line == headerLine {
			if !first {
				errs.Addf(posAt(0), "%q header is only allowed on the first line", headerLine)
			}
			s.header = true
			first = false
			continue
		}
		first = false
		if strings.HasPrefix(line, trailerPrefix) {
			c := cursor{s: line, i: len(trailerPrefix)}
			c.spaces()
			if !c.lit(":") {
				errs.Addf(posAt(c.i), "expected ':' after %s", trailerPrefix)
				continue
			}
			c.spaces()
			start := c.i
			n, ok := c.decimal()
			if !ok || c.i != len(line) {
				errs.Addf(posAt(start), "expected a cycle count after \"%s :\", found %q", trailerPrefix, line[start:])
				continue
			}
			s.cycles, s.hasCycles, s.trailerLine = n, true, lineNo
			continue
		}
		r, col, msg := parseRecord(line)
		if msg != "" {
			errs.Add(posAt(col), msg)
			continue
		}
		r.line = lineNo
		r.textOff += base
		s.recs = append(s.recs, r)
	}
	return s
}

// parseRecord parses one instruction line. On failure it returns the 0-based
// column of the fault and a message.
func parseRecord(line string) (r record, col int, msg string) {
	c := cursor{s: line}
	if !c.lit("warp") || c.spaces() == 0 {
		return r, 0, `expected "warp N :  PC=0x... (module:line) instruction;", "` + trailerPrefix + ` : N" or "` + headerLine + `"`
	}
	start := c.i
	w, ok := c.decimal()
	if !ok {
		return r, start, "expected a warp number after \"warp\""
	}
	if w >= maxWarp {
		return r, start, "warp number " + strconv.FormatInt(w, 10) + " out of range (max " + strconv.Itoa(maxWarp-1) + ")"
	}
	r.warp = int(w)
	c.spaces()
	if !c.lit(":") {
		return r, c.i, "expected ':' after the warp number"
	}
	c.spaces()
	if !c.lit("PC=") {
		return r, c.i, "expected \"PC=0x\" after \"warp N :\""
	}
	r.pcCol = c.i + 1
	if !c.lit("0x") {
		return r, c.i, "expected a hexadecimal PC (\"0x...\") after \"PC=\""
	}
	start = c.i
	for c.i < len(c.s) && isHex(c.s[c.i]) {
		c.i++
	}
	if c.i == start {
		return r, start, "expected hexadecimal digits after \"PC=0x\""
	}
	pc, err := strconv.ParseUint(c.s[start:c.i], 16, 64)
	if err != nil {
		return r, start, "PC " + c.s[start:c.i] + " out of range"
	}
	r.pc = pc
	if c.spaces() == 0 || !c.lit("(") {
		return r, c.i, "expected \" (module:line)\" after the PC"
	}
	start = c.i
	closing := strings.IndexByte(c.s[c.i:], ')')
	if closing < 0 {
		return r, start, "missing ')' after \"(module:line\""
	}
	inside := c.s[start : start+closing]
	colon := strings.LastIndexByte(inside, ':')
	if colon <= 0 {
		return r, start, "expected \"module:line\" inside the parentheses, found " + strconv.Quote(inside)
	}
	r.module = inside[:colon]
	if strings.ContainsAny(r.module, " \t") {
		return r, start, "module name " + strconv.Quote(r.module) + " contains blanks"
	}
	lc := cursor{s: inside, i: colon + 1}
	ml, ok := lc.decimal()
	if !ok || lc.i != len(inside) || ml < 1 || ml > 1<<30 {
		return r, start + colon + 1, "expected a positive module line number after ':', found " + strconv.Quote(inside[colon+1:])
	}
	r.mline = int(ml)
	c.i = start + closing + 1
	if c.spaces() == 0 {
		return r, c.i, "expected a blank after \"(module:line)\""
	}
	r.text = c.s[c.i:]
	r.textOff = c.i
	if r.text == "" {
		return r, c.i, "missing instruction after \"(module:line)\""
	}
	if !strings.HasSuffix(r.text, ";") {
		return r, len(line), "instruction text does not end with ';'"
	}
	return r, 0, ""
}

// cursor is a position in a line.
type cursor struct {
	s string
	i int
}

// lit consumes p if the line continues with it.
func (c *cursor) lit(p string) bool {
	if strings.HasPrefix(c.s[c.i:], p) {
		c.i += len(p)
		return true
	}
	return false
}

// spaces consumes blanks and returns how many.
func (c *cursor) spaces() int {
	n := 0
	for c.i < len(c.s) && (c.s[c.i] == ' ' || c.s[c.i] == '\t') {
		c.i++
		n++
	}
	return n
}

// decimal consumes a non-negative decimal integer that fits in an int64.
func (c *cursor) decimal() (int64, bool) {
	start := c.i
	for c.i < len(c.s) && c.s[c.i] >= '0' && c.s[c.i] <= '9' {
		c.i++
	}
	if c.i == start {
		return 0, false
	}
	n, err := strconv.ParseInt(c.s[start:c.i], 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// LooksLikeGPGPUSim reports whether src starts like a GPGPU-Sim PTX issue
// trace: its first non-blank line is the "File start..." header, an
// instruction line ("warp N :  PC=0x...") or the cycle trailer.
func LooksLikeGPGPUSim(src []byte) bool {
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		l := strings.TrimSpace(string(line))
		if l == "" {
			continue
		}
		if l == headerLine || strings.HasPrefix(l, trailerPrefix+" :") {
			return true
		}
		_, _, msg := parseRecord(l)
		return msg == ""
	}
	return false
}
