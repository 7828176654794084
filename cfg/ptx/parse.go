package ptx

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Mode is a set of bit flags that control ParseFile (isa.Mode, shared
// with the other front ends).
type Mode = isa.Mode

// AllErrors reports all errors instead of stopping after isa.MaxErrors.
const AllErrors = isa.AllErrors

// ParseFile parses the PTX module src, read from filename, and returns its
// functions. Positions are recorded in fset. The error, if not nil, is an
// isa.ErrorList sorted by position, of at most isa.MaxErrors entries unless
// mode has AllErrors; the returned file is then partial but never nil.
//
// The strings of the result (opcodes, modifiers, register names, texts) are
// substrings of src, which is not copied: the caller must not modify src
// after the call while the result is in use.
func ParseFile(fset *token.FileSet, filename string, src []byte, mode Mode) (f *isa.File, err error) {
	p := &parser{errs: isa.Errors{Mode: mode}}
	p.tf = fset.AddFile(filename, -1, len(src))
	p.out = &isa.File{Fset: fset, Name: filename, Dialect: isa.DialectPTX}
	defer func() {
		isa.Recover(recover())
		errs := p.errs.List
		if mode&AllErrors == 0 {
			errs.RemoveMultiples()
			if len(errs) > isa.MaxErrors {
				errs = errs[:isa.MaxErrors]
			}
		} else {
			errs.Sort()
		}
		p.out.Warnings.Sort()
		f, err = p.out, errs.Err()
	}()
	if !p.tf.SetLines(isa.LineStarts(src)) {
		p.tf.SetLinesForContent(src)
	}
	if off, what := firstBinary(src); off >= 0 {
		p.errorf(off, "not a PTX text file: %s at byte offset %d", what, off)
		return
	}
	// The result's strings alias src: no copy of the input is made.
	p.src = unsafe.String(unsafe.SliceData(src), len(src))
	p.parseModule()
	return
}

// firstBinary returns the offset of the first NUL byte or invalid UTF-8
// sequence in src, or -1.
func firstBinary(src []byte) (int, string) {
	for i := 0; i < len(src); {
		c := src[i]
		if c == 0 {
			return i, "NUL byte"
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n <= 1 {
			return i, "invalid UTF-8"
		}
		i += n
	}
	return -1, ""
}

type labelRef struct {
	name string
	off  int
}

// rawOp is an operand being parsed: its text is p.tb[start:end] and its
// registers p.regs[r0:r1].
type rawOp struct {
	kind       isa.OperandKind
	start, end int
	r0, r1     int
	neg        bool
	pipe       bool // joined to the previous operand by '|'
	off        int  // source offset of the operand
}

type parser struct {
	src  string
	tf   *token.File
	errs isa.Errors
	out  *isa.File

	// scanner state
	off     int     // next read offset
	pos     int     // offset of the current token
	tok     tokKind // current token
	lit     string  // its text
	nl      bool    // a newline precedes the current token
	prevEnd int     // end offset of the last operand token

	fileNames map[int]string            // .file table
	locs      map[locKey]*isa.SourceLoc // file names resolved at the end
	funcIdx   map[string]int            // index in out.Funcs by name
	loc       *isa.SourceLoc            // last .loc

	// per function
	fn        *isa.Func
	bareRegs  map[string]bool     // registers declared without '%'
	refs      []labelRef          // branch targets to check at the end of the body
	body      []*isa.Instr        // instructions of the body (scratch)
	labels    map[string]int      // labels of the body (scratch)
	modsCache map[string][]string // modifier slices by opcode text
	regCache  map[string][]string // one-register slices by name
	labelOff  []labelRef          // where labels were defined

	// per instruction scratch
	tb   []byte
	ops  []rawOp
	regs []string

	// slabs
	instrs []isa.Instr
	opnds  []isa.Operand
	strs   []string
	chunk  int
}

func (p *parser) position(off int) token.Position {
	if off > p.tf.Size() {
		off = p.tf.Size()
	}
	pos := p.tf.Position(p.tf.Pos(off))
	if pos.Line == 0 { // empty file
		pos.Line, pos.Column = 1, 1
	}
	return pos
}

func (p *parser) errorAt(off int, msg string) {
	p.errs.Add(p.position(off), msg)
}

func (p *parser) errorf(off int, format string, args ...any) {
	p.errorAt(off, fmt.Sprintf(format, args...))
}

func (p *parser) warnf(off int, format string, args ...any) {
	p.out.Warnings.Addf(p.position(off), format, args...)
}

// describe names the current token for error messages.
func (p *parser) describe() string {
	switch p.tok {
	case tEOF:
		return "end of file"
	case tStr:
		return "string " + p.lit
	}
	lit := p.lit
	if len(lit) > 40 {
		lit = lit[:40] + "..."
	}
	return strconv.Quote(lit)
}

// skipStmt skips to the end of the current statement: past the next ';'
// at brace depth 0, or up to (not past) an unmatched '}'.
func (p *parser) skipStmt() {
	depth := 0
	for p.tok != tEOF {
		if p.tok == tPunct {
			switch p.lit[0] {
			case '{':
				depth++
			case '}':
				if depth == 0 {
					return
				}
				depth--
			case ';':
				if depth == 0 {
					p.next()
					return
				}
			}
		}
		p.next()
	}
}

// skipLine skips the rest of the current line (for line-oriented
// directives such as @@DWARF), starting at the current token.
func (p *parser) skipLine() {
	p.off = p.pos
	p.restOfLine()
	p.next()
}

// ---- module level ----

func (p *parser) parseModule() {
	p.next()
	if p.tok == tEOF {
		p.errorAt(0, "empty file: expected .version directive")
		return
	}
	if !(p.tok == tDir && p.lit == ".version") {
		p.errorf(p.pos, "expected .version directive at start of module, found %s", p.describe())
	}
	for p.tok != tEOF {
		p.parseTopStmt()
	}
	for k, loc := range p.locs {
		loc.File = p.fileNames[k.file] // "" when the index is unknown
	}
}

// locKey identifies a .loc directive.
type locKey struct{ file, line, col int }

func (p *parser) parseTopStmt() {
	switch p.tok {
	case tDir:
		p.parseTopDirective()
	case tPunct:
		if p.lit == "@" && strings.HasPrefix(p.src[p.pos:], "@@DWARF") {
			p.skipLine()
			return
		}
		if p.lit == ";" {
			p.next()
			return
		}
		p.errorf(p.pos, "unexpected %s outside a function", p.describe())
		if p.lit == "}" || p.lit == "{" {
			p.next()
			return
		}
		p.skipStmt()
	case tIdent:
		if p.labelFollows() {
			p.errorf(p.pos, "label %s outside a function", p.lit)
			p.next()
			p.next()
			return
		}
		p.errorf(p.pos, "instruction %s outside a function", p.describe())
		p.skipStmt()
	default:
		p.errorf(p.pos, "unexpected %s outside a function", p.describe())
		p.skipStmt()
	}
}

func (p *parser) parseTopDirective() {
	off := p.pos
	switch p.lit {
	case ".version":
		p.next()
		if p.tok != tNum || !validVersion(p.lit) {
			p.errorf(p.pos, "malformed .version: expected MAJOR.MINOR, found %s", p.describe())
			p.skipLine()
			return
		}
		if p.out.Version != "" {
			p.errorf(off, "duplicate .version directive")
		}
		p.out.Version = p.lit
		p.next()
	case ".target":
		p.next()
		first := true
		for {
			if p.tok != tIdent {
				p.errorf(p.pos, "malformed .target: expected a target name, found %s", p.describe())
				p.skipLine()
				return
			}
			if first {
				p.out.Target = p.lit
				first = false
			} else {
				p.out.TargetOpts = append(p.out.TargetOpts, p.lit)
			}
			p.next()
			if !p.is(',') {
				break
			}
			p.next()
		}
	case ".address_size":
		p.next()
		n, err := strconv.Atoi(p.lit)
		if p.tok != tNum || err != nil || (n != 32 && n != 64) {
			p.errorf(p.pos, "malformed .address_size: expected 32 or 64, found %s", p.describe())
			p.skipLine()
			return
		}
		p.out.AddressSize = n
		p.next()
	case ".file":
		p.parseFileDirective()
	case ".loc":
		p.restOfLine()
		p.next()
	case ".section":
		p.skipSection()
	case ".pragma":
		p.parsePragma()
	case ".alias":
		p.next()
		p.skipStmt()
	case ".visible", ".extern", ".weak", ".common":
		linkage := p.lit[1:]
		extern := p.lit == ".extern"
		p.next()
		for p.tok == tDir && (p.lit == ".visible" || p.lit == ".extern" || p.lit == ".weak" || p.lit == ".common") {
			extern = extern || p.lit == ".extern"
			p.next()
		}
		if p.tok == tDir && (p.lit == ".entry" || p.lit == ".func") {
			p.parseFunc(linkage)
			return
		}
		if p.tok == tDir && (p.lit == ".shared" || p.lit == ".shared::cta") {
			p.out.Shared = append(p.out.Shared, p.parseShared(extern)...)
			return
		}
		p.skipStmt() // a variable declaration
	case ".entry", ".func":
		p.parseFunc("")
	case ".shared", ".shared::cta":
		p.out.Shared = append(p.out.Shared, p.parseShared(false)...)
	case ".global", ".const", ".local", ".tex", ".texref", ".samplerref", ".surfref", ".reg", ".param":
		p.next()
		p.skipStmt()
	default:
		p.errorf(off, "unknown directive %s", p.lit)
		p.next()
		p.skipStmt()
	}
}

func validVersion(s string) bool {
	dot := strings.IndexByte(s, '.')
	if dot <= 0 || dot == len(s)-1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i != dot && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// parseFileDirective reads `.file N "name" [, mtime, size]` (line-oriented).
func (p *parser) parseFileDirective() {
	off := p.pos
	line := strings.TrimSpace(p.restOfLine())
	line = strings.TrimSuffix(line, ";")
	i := 0
	for i < len(line) && isDigit(line[i]) {
		i++
	}
	n, err := strconv.Atoi(line[:i])
	rest := strings.TrimSpace(line[i:])
	if err != nil || len(rest) < 2 || rest[0] != '"' {
		p.errorf(off, "malformed .file directive: expected index and quoted name")
		p.next()
		return
	}
	end := strings.IndexByte(rest[1:], '"')
	if end < 0 {
		p.errorf(off, "malformed .file directive: string literal not terminated")
		p.next()
		return
	}
	if p.fileNames == nil {
		p.fileNames = make(map[int]string)
	}
	p.fileNames[n] = rest[1 : 1+end]
	p.next()
}

// parseLoc reads `.loc F L C [, function_name ..., inlined_at ...]`.
func (p *parser) parseLoc() {
	off := p.pos
	line := p.restOfLine()
	var nums [3]int
	k := 0
	i := 0
	for k < 3 {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
			i++
		}
		j := i
		for j < len(line) && isDigit(line[j]) {
			j++
		}
		if j == i {
			break
		}
		nums[k], _ = strconv.Atoi(line[i:j])
		k++
		i = j
	}
	if k < 2 {
		p.errorf(off, "malformed .loc directive: expected file, line and column numbers")
		p.next()
		return
	}
	// NVVM writes the .file table after the functions: names are filled
	// in at the end of the module.
	// Identical .loc directives share one *SourceLoc (debug builds repeat
	// a few hundred locations thousands of times).
	key := locKey{nums[0], nums[1], nums[2]}
	loc, ok := p.locs[key]
	if !ok {
		if p.locs == nil {
			p.locs = make(map[locKey]*isa.SourceLoc)
		}
		loc = &isa.SourceLoc{Line: nums[1], Col: nums[2]}
		p.locs[key] = loc
	}
	p.loc = loc
	p.next()
}

// skipSection skips `.section NAME { ... }` (DWARF data) by brace matching.
func (p *parser) skipSection() {
	off := p.pos
	p.next()
	for p.tok != tEOF && !p.is('{') {
		if p.is(';') || p.is('}') {
			p.errorf(off, "malformed .section: expected {")
			p.next()
			return
		}
		p.next()
	}
	depth := 0
	for p.tok != tEOF {
		if p.is('{') {
			depth++
		} else if p.is('}') {
			depth--
			if depth == 0 {
				p.next()
				return
			}
		}
		p.next()
	}
	p.errorf(len(p.src), "unexpected end of file: .section body opened at %s not terminated", p.lineOf(off))
}

func (p *parser) lineOf(off int) string {
	return "line " + strconv.Itoa(p.position(off).Line)
}

// ---- functions ----

func (p *parser) parseFunc(linkage string) {
	fn := &isa.Func{
		Pos:     p.tf.Pos(p.pos),
		Entry:   p.lit == ".entry",
		Linkage: linkage,
	}
	p.next()
	if !fn.Entry && p.is('(') {
		fn.RetParams = p.parseParams()
	}
	if p.tok != tIdent {
		p.errorf(p.pos, "expected function name, found %s", p.describe())
		p.skipStmt()
		return
	}
	fn.Name = p.lit
	p.next()
	if p.is('(') {
		fn.Params = p.parseParams()
	}
	// Performance tuning directives and attributes before the body.
	for p.tok == tDir {
		off := p.pos
		switch p.lit {
		case ".maxntid", ".reqntid", ".reqnctapercluster":
			d := p.lit
			p.next()
			v := p.intList(off, d)
			switch d {
			case ".maxntid":
				fn.MaxNTid = v
			case ".reqntid":
				fn.ReqNTid = v
			}
		case ".minnctapersm", ".maxnreg", ".maxclusterrank":
			d := p.lit
			p.next()
			v := p.intList(off, d)
			switch d {
			case ".minnctapersm":
				fn.MinNCTAPerSM = v[0]
			case ".maxnreg":
				fn.MaxNReg = v[0]
			}
		case ".noreturn", ".explicitcluster":
			p.next()
		case ".file":
			p.parseFileDirective()
		case ".loc":
			p.restOfLine()
			p.next()
		case ".pragma":
			p.parsePragma()
		default:
			if p.nl {
				// Open64 (PTX 2.x) writes prototypes without ';':
				// the header ends at the line break.
				goto done
			}
			p.errorf(off, "unknown directive %s in function header", p.lit)
			p.next()
		}
	}
done:
	p.addFunc(fn)
	switch {
	case p.is(';'):
		fn.Decl = true
		fn.End = p.tf.Pos(p.pos)
		p.next()
	case p.is('{'):
		p.parseBody(fn)
		p.defineFunc(fn)
	case p.tok == tDir && p.nl:
		fn.Decl = true // Open64 prototype without ';'
		fn.End = fn.Pos
	default:
		p.errorf(p.pos, "expected { or ; after function header of %s, found %s", fn.Name, p.describe())
		p.skipStmt()
	}
}

// intList reads 1 to 3 comma-separated integers.
func (p *parser) intList(off int, dir string) [3]int {
	v := [3]int{1, 1, 1} // omitted dimensions are 1
	for i := 0; i < 3; i++ {
		n, err := strconv.Atoi(p.lit)
		if p.tok != tNum || err != nil || n < 0 {
			p.errorf(p.pos, "malformed %s: expected an integer, found %s", dir, p.describe())
			return [3]int{}
		}
		v[i] = n
		p.next()
		if !p.is(',') {
			break
		}
		p.next()
	}
	return v
}

// parseParams reads a parenthesised parameter list.
func (p *parser) parseParams() []isa.Param {
	p.next() // (
	var ps []isa.Param
	for !p.is(')') {
		if p.tok == tEOF {
			p.errorAt(p.pos, "unexpected end of file in parameter list")
			return ps
		}
		prm, ok := p.parseParam()
		if !ok {
			// skip to , or )
			for p.tok != tEOF && !p.is(')') && !p.is(',') && !p.is('{') && !p.is(';') {
				p.next()
			}
			if p.is('{') || p.is(';') {
				return ps
			}
		} else {
			ps = append(ps, prm)
		}
		if p.is(',') {
			p.next()
			continue
		}
		if !p.is(')') {
			p.errorf(p.pos, "expected , or ) in parameter list, found %s", p.describe())
			for p.tok != tEOF && !p.is(')') && !p.is('{') && !p.is(';') {
				p.next()
			}
			if !p.is(')') {
				return ps
			}
		}
	}
	p.next()
	return ps
}

func (p *parser) parseParam() (isa.Param, bool) {
	var prm isa.Param
	if p.tok != tDir {
		p.errorf(p.pos, "expected parameter state space (.param or .reg), found %s", p.describe())
		return prm, false
	}
	p.next() // state space
	start, end := -1, -1
	var parts []string
	elem := 0
	for p.tok == tDir || p.tok == tNum {
		if start < 0 {
			start = p.pos
		}
		end = p.pos + len(p.lit)
		parts = append(parts, p.lit)
		if p.tok == tDir {
			if w := typeWidth(p.lit); w > 0 {
				elem = w
			}
		}
		p.next()
	}
	if start < 0 {
		p.errorf(p.pos, "expected parameter type, found %s", p.describe())
		return prm, false
	}
	if t := p.src[start:end]; t == strings.Join(parts, " ") {
		prm.Type = t
	} else {
		prm.Type = strings.Join(parts, " ")
	}
	if p.tok != tIdent {
		p.errorf(p.pos, "expected parameter name, found %s", p.describe())
		return prm, false
	}
	prm.Name = p.lit
	prm.Size = elem
	p.next()
	if p.is('[') {
		p.next()
		if p.tok == tNum {
			n, err := strconv.Atoi(p.lit)
			if err != nil || n < 0 {
				p.errorf(p.pos, "malformed array size %s", p.lit)
				return prm, false
			}
			prm.Array = n
			prm.Size = elem * n
			p.next()
		} else {
			prm.Size = 0 // unsized array
		}
		if !p.is(']') {
			p.errorf(p.pos, "expected ] in parameter %s, found %s", prm.Name, p.describe())
			return prm, false
		}
		p.next()
	}
	return prm, true
}

// typeWidth returns the size in bytes of a fundamental type directive.
func typeWidth(t string) int {
	if len(t) < 3 {
		return 0
	}
	switch t[1] {
	case 'b', 'u', 's', 'f':
	default:
		if t == ".pred" {
			return 1
		}
		return 0
	}
	n, err := strconv.Atoi(t[2:])
	if err != nil || n%8 != 0 || n <= 0 || n > 128 {
		return 0
	}
	return n / 8
}

// labelFollows reports whether the identifier token is followed by a
// single ':' (a label definition).
func (p *parser) labelFollows() bool {
	i := p.off
	for i < len(p.src) && (p.src[i] == ' ' || p.src[i] == '\t' || p.src[i] == '\r') {
		i++
	}
	if i < len(p.src) && p.src[i] == ':' && (i+1 >= len(p.src) || p.src[i+1] != ':') {
		p.off = i + 1 // consume the colon
		return true
	}
	return false
}

func (p *parser) parseBody(fn *isa.Func) {
	open := p.pos
	p.fn = fn
	p.loc = nil
	p.bareRegs = nil
	p.refs = p.refs[:0]
	p.labelOff = p.labelOff[:0]
	p.body = p.body[:0]
	clear(p.labels)
	if p.labels == nil {
		p.labels = make(map[string]int)
	}
	depth := 1
	p.next()
	for {
		switch p.tok {
		case tEOF:
			p.errorf(len(p.src), "unexpected end of file: body of %s opened at %s not terminated (missing })", fn.Name, p.lineOf(open))
			p.finishBody(fn)
			return
		case tPunct:
			switch p.lit[0] {
			case '{':
				depth++
				p.next()
			case '}':
				depth--
				if depth == 0 {
					fn.End = p.tf.Pos(p.pos)
					p.next()
					p.finishBody(fn)
					return
				}
				p.next()
			case ';':
				p.next()
			case '@':
				if strings.HasPrefix(p.src[p.pos:], "@@DWARF") {
					p.skipLine()
					continue
				}
				p.parseInstr()
			default:
				p.errorf(p.pos, "unexpected %s", p.describe())
				p.next()
				p.skipStmt()
			}
		case tDir:
			p.parseBodyDirective()
		case tIdent:
			if p.labelFollows() {
				p.parseLabel()
				continue
			}
			p.parseInstr()
		default:
			p.errorf(p.pos, "unexpected %s", p.describe())
			p.skipStmt()
		}
	}
}

func (p *parser) finishBody(fn *isa.Func) {
	// Exact-size copies of the scratch slice and map.
	fn.Instrs = make([]*isa.Instr, len(p.body))
	copy(fn.Instrs, p.body)
	fn.Labels = make(map[string]int, len(p.labels))
	for l, i := range p.labels {
		fn.Labels[l] = i
	}
	for _, r := range p.refs {
		if _, ok := fn.Labels[r.name]; !ok {
			p.errorf(r.off, "undefined label %s", r.name)
		}
	}
	p.fn = nil
}

func (p *parser) parseLabel() {
	fn := p.fn
	name, off := p.lit, p.pos
	p.next()
	if p.tok == tDir {
		switch p.lit {
		case ".branchtargets", ".calltargets":
			isBranch := p.lit == ".branchtargets"
			p.next()
			var list []string
			for {
				if p.tok != tIdent {
					p.errorf(p.pos, "expected a label in target list %s, found %s", name, p.describe())
					p.skipStmt()
					return
				}
				list = append(list, p.lit)
				if isBranch {
					p.refs = append(p.refs, labelRef{p.lit, p.pos})
				}
				p.next()
				if !p.is(',') {
					break
				}
				p.next()
			}
			if !p.is(';') {
				p.errorf(p.pos, "expected ; after target list %s, found %s", name, p.describe())
				p.skipStmt()
			} else {
				p.next()
			}
			if fn.BranchTargets == nil {
				fn.BranchTargets = make(map[string][]string)
			}
			if _, dup := fn.BranchTargets[name]; dup {
				p.errorf(off, "target list %s redefined", name)
			}
			fn.BranchTargets[name] = list
			return
		case ".callprototype":
			p.next()
			p.skipStmt()
			return
		}
	}
	if _, dup := p.labels[name]; dup {
		prev := ""
		for _, l := range p.labelOff {
			if l.name == name {
				prev = " (previous definition at " + p.lineOf(l.off) + ")"
				break
			}
		}
		p.errorf(off, "label %s redefined%s", name, prev)
		return
	}
	p.labels[name] = len(p.body)
	p.labelOff = append(p.labelOff, labelRef{name, off})
}

func (p *parser) parseBodyDirective() {
	off := p.pos
	switch p.lit {
	case ".loc":
		p.parseLoc()
	case ".file":
		p.parseFileDirective()
	case ".reg":
		p.next()
		for p.tok != tEOF && !p.is(';') && !p.is('}') {
			if p.tok == tIdent && p.lit[0] != '%' {
				if p.bareRegs == nil {
					p.bareRegs = make(map[string]bool)
				}
				p.bareRegs[p.lit] = true
			}
			p.next()
		}
		if !p.is(';') {
			p.errorf(off, "missing ; after .reg declaration")
			return
		}
		p.next()
	case ".pragma":
		p.parsePragma()
	case ".shared", ".shared::cta":
		p.fn.Res.Shared = append(p.fn.Res.Shared, p.parseShared(false)...)
	case ".local", ".param", ".const", ".global", ".tex", ".texref", ".samplerref", ".surfref":
		p.next()
		p.skipStmt()
	case ".section":
		p.skipSection()
	default:
		p.errorf(off, "unknown directive %s", p.lit)
		p.next()
		p.skipStmt()
	}
}

// parsePragma reads `.pragma "string"[, "string"...];`.
func (p *parser) parsePragma() {
	off := p.pos
	p.next()
	for p.tok == tStr {
		p.next()
		if !p.is(',') {
			break
		}
		p.next()
	}
	if !p.is(';') {
		p.errorf(off, "malformed .pragma: expected quoted strings and ;")
		if p.nl || p.tok == tEOF {
			return // the statement ended at the line break
		}
		p.skipStmt()
		return
	}
	p.next()
}

// addFunc appends fn to the module.
func (p *parser) addFunc(fn *isa.Func) {
	if p.funcIdx == nil {
		p.funcIdx = make(map[string]int)
	}
	if _, ok := p.funcIdx[fn.Name]; !ok {
		p.funcIdx[fn.Name] = len(p.out.Funcs)
	}
	p.out.Funcs = append(p.out.Funcs, fn)
}

// defineFunc records that fn has a body: an earlier declaration of the
// same name (a prototype) is dropped, so that File.Func finds the
// definition; a second definition is an error.
func (p *parser) defineFunc(fn *isa.Func) {
	i := p.funcIdx[fn.Name]
	prev := p.out.Funcs[i]
	if prev == fn {
		return
	}
	if !prev.Decl {
		p.errorf(p.tf.Offset(fn.Pos), "function %s redefined (previous definition at %s)", fn.Name, p.lineOf(p.tf.Offset(prev.Pos)))
		return
	}
	copy(p.out.Funcs[i:], p.out.Funcs[i+1:])
	p.out.Funcs = p.out.Funcs[:len(p.out.Funcs)-1]
	for name, j := range p.funcIdx {
		if j > i {
			p.funcIdx[name] = j - 1
		}
	}
	p.funcIdx[fn.Name] = len(p.out.Funcs) - 1
}
