package sass

import (
	"fmt"
	"go/token"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Mode controls the parser (isa.Mode, shared with the other front ends).
type Mode = isa.Mode

// AllErrors reports every error instead of stopping after isa.MaxErrors.
const AllErrors = isa.AllErrors

// ParseFile parses a SASS listing (cuobjdump -sass, nvdisasm, CuAssembler
// .cuasm, maxas -e) and returns one isa.Func per function. The result is
// non-nil even when err is not: it holds what was parsed. err is an
// isa.ErrorList sorted by position.
func ParseFile(fset *token.FileSet, filename string, src []byte, mode Mode) (f *isa.File, err error) {
	p := &parser{
		fset:  fset,
		file:  fset.AddFile(filename, -1, len(src)),
		src:   src,
		text:  string(src),
		errs:  isa.Errors{Mode: mode},
		out:   &isa.File{Fset: fset, Name: filename, Dialect: isa.DialectSASS},
		syms:  map[string]symInfo{},
		first: true,
	}
	p.lines = isa.LineStarts(src)
	p.file.SetLines(p.lines)
	defer func() {
		isa.Recover(recover())
		p.errs.List.Sort()
		p.out.Warnings.Sort()
		f, err = p.out, p.errs.List.Err()
	}()
	p.parse()
	return
}

type symInfo struct {
	function bool // .type X,@function
	entry    bool // .other X,@"STO_CUDA_ENTRY …"
}

// fnState is the per-function parsing state.
type fnState struct {
	fn       *isa.Func
	byOff    []offIndex // instruction addresses, strictly increasing
	refs     []ref      // targets to resolve at the end of the function
	pending  []string   // labels waiting for the next instruction
	pendPos  []token.Pos
	lastOff  int64
	haveOff  bool
	noOffset bool // instructions without addresses (maxas)
	mayPop   bool // an instruction that may pop the SIMT stack (SYNC, BRK, CONT, Fermi .S)
	header   bool // started by cuobjdump's "Function :" line
}

// offIndex maps an instruction address to its index.
type offIndex struct {
	off int64
	idx int
}

// lookup returns the index of the instruction at address off.
func (st *fnState) lookup(off int64) (int, bool) {
	lo, hi := 0, len(st.byOff)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if st.byOff[m].off < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(st.byOff) && st.byOff[lo].off == off {
		return st.byOff[lo].idx, true
	}
	return 0, false
}

// ref is a branch or reconvergence target to resolve.
type ref struct {
	in     *isa.Instr
	label  string // symbolic label, or "" for an address
	off    int64
	pos    token.Pos
	target bool // add to in.Targets (otherwise only resolve the operand)
	next   bool // the instruction after in (label and off unused)
	opIdx  int  // index of the OpLabel operand, -1 if none
	opText string
}

type parser struct {
	fset  *token.FileSet
	file  *token.File
	src   []byte
	text  string // src as one string, scanned line by line (the result keeps copies: see keep)
	lines []int  // line starts
	errs  isa.Errors
	out   *isa.File

	sm    int // numeric architecture, 0 while unknown
	smPos token.Pos
	first bool

	cur *fnState

	// Sections (nvdisasm, CuAssembler).
	sectioned  bool   // a .section directive was seen
	inText     bool   // inside a .text.<kernel> section
	sectKernel string // kernel of the current text section
	syms       map[string]symInfo
	inResource bool                // inside a cuobjdump "Resource usage:" block
	resFunc    string              // function of the resource line being read
	res        map[string]*resInfo // stated resources by function (resources.go)
	maxasName  string
	maxasPos   token.Pos

	// Control words (Kepler, Maxwell/Pascal).
	ctrlWord  uint64
	ctrlLeft  int   // instructions still covered by ctrlWord
	ctrlN     int   // group size of the current word
	ctrlBase  int64 // address of the control word, -1 until the first instruction
	ctrlPos   token.Pos
	ctrlValid bool

	// The previous instruction line, for encodings on the next line.
	last       *isa.Instr
	lastNeedLo bool // dual-issue second member: its encoding follows alone
	lastNeedHi bool // Volta+: the high word follows alone
	lastLo     uint64
	lastAnn    string // CUDA 12.8 annotations of the previous instruction
	lastAnnPos token.Pos
	inPair     bool

	elf elfState // cuobjdump -elf tables (elf.go)

	alloc // slabs and scratch buffers
}

func (p *parser) pos(off int) token.Pos { return p.file.Pos(off) }

func (p *parser) errorf(pos token.Pos, format string, args ...any) {
	p.errs.Add(p.fset.Position(pos), fmt.Sprintf(format, args...))
}

func (p *parser) warnf(pos token.Pos, format string, args ...any) {
	p.out.Warnings.Add(p.fset.Position(pos), fmt.Sprintf(format, args...))
}

func (p *parser) gen() gen { return genOf(p.sm) }

func (p *parser) parse() {
	src := p.src
	for k, start := range p.lines {
		end := len(src)
		if k+1 < len(p.lines) {
			end = p.lines[k+1] - 1
		} else if src[end-1] == '\n' {
			end--
		}
		p.line(start, end)
	}
	p.endFunc(p.pos(len(src)))
	p.checkPendingEncoding(p.pos(len(src)))
	p.applyResources()
}

// line handles the line src[start:end].
func (p *parser) line(start, end int) {
	// Trim blanks and a carriage return.
	start = skipBlanks(p.text, start, end)
	for end > start && (isSpace(p.src[end-1]) || p.src[end-1] == '\r') {
		end = trimBlanks(p.text, start, end)
		if end > start && p.src[end-1] == '\r' {
			end--
		}
	}
	// A trailing "//" comment after a blank: nvdisasm's register life-range
	// columns (--print-life-ranges: "// |  8 v:  ^ |"), CuAssembler's
	// comments. SASS operands never hold "//".
	if k := trailingComment(p.text[start:end]); k > 0 {
		end = trimBlanks(p.text, start, start+k)
	}
	s := p.text[start:end]
	pos := p.pos(start)
	if p.inResource {
		if s == "" {
			p.inResource = false
		}
		p.resourceLine(s)
		return
	}
	if (p.elf.on || elfHeader(s)) && p.elfLine(pos, s) {
		return // cuobjdump -elf: elf.go
	}
	if s == "" {
		return
	}
	// Encoding-only lines come first: they follow instructions.
	if w, ok := loneEncoding(s); ok {
		p.encodingLine(pos, w)
		return
	}
	p.checkPendingEncoding(pos)
	if len(s) >= 2 && s[0] == '/' && s[1] == '*' && (!p.sectioned || p.inText) {
		// An instruction with an address: no header line starts so.
		p.instrLine(start, end, s, pos)
		return
	}
	switch {
	case strings.HasPrefix(s, "//"):
		if i := strings.Index(s, ".headerflags"); i >= 0 {
			p.headerflags(pos, s[i:])
		}
		return
	case s[0] == '#':
		if rest, ok := strings.CutPrefix(s, "# Kernel:"); ok {
			p.maxasName = strings.TrimSpace(rest)
			p.maxasPos = pos
		}
		p.maxasHeader(s)
		return
	}
	if p.sectioned && !p.inText && !strings.HasPrefix(s, ".section") {
		return
	}
	switch {
	case strings.HasPrefix(s, "Fatbin "), strings.HasPrefix(s, "===="),
		strings.HasPrefix(s, "host ="), strings.HasPrefix(s, "producer ="),
		strings.HasPrefix(s, "identifier ="), strings.HasPrefix(s, "ptxasOptions ="),
		s == "compressed", strings.Trim(s, ".") == "":
		return
	case strings.HasPrefix(s, "Resource usage:"):
		p.inResource = true
		return
	case strings.HasPrefix(s, "arch ="):
		p.setArch(pos, strings.TrimSpace(s[len("arch ="):]))
		return
	case strings.HasPrefix(s, "code for "):
		p.setArch(pos, strings.TrimSpace(s[len("code for "):]))
		return
	case strings.HasPrefix(s, "code version ="):
		v := strings.Trim(strings.TrimSpace(s[len("code version ="):]), "[]")
		p.out.Version = strings.Clone(strings.ReplaceAll(v, ",", "."))
		return
	case strings.HasPrefix(s, "compile_size ="):
		switch strings.TrimSpace(s[len("compile_size ="):]) {
		case "64bit":
			p.out.AddressSize = 64
		case "32bit":
			p.out.AddressSize = 32
		}
		return
	case strings.HasPrefix(s, "Function :"):
		name := strings.TrimSpace(s[len("Function :"):])
		if name == "" {
			p.errorf(pos, "Function : without a name")
		}
		p.startFunc(pos, name, true)
		p.cur.header = true
		return
	case s[0] == '.' && !strings.HasSuffix(s, ":"):
		p.directive(pos, s)
		return
	case strings.HasSuffix(s, ":") && isLabel(s[:len(s)-1]):
		p.label(pos, s[:len(s)-1])
		return
	}
	p.instrLine(start, end, s, pos)
}

func isSpace(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\v' || c == '\f') }

const eightBlanks = "        "

// skipBlanks returns the index of the first non-blank (isSpace) byte of
// s[i:j], or j; runs of spaces go eight at a time.
func skipBlanks(s string, i, j int) int {
	for i+8 <= j && s[i:i+8] == eightBlanks {
		i += 8
	}
	for i < j && isSpace(s[i]) {
		i++
	}
	return i
}

// trimBlanks returns the end of s[i:j] without its trailing blanks.
func trimBlanks(s string, i, j int) int {
	for j-8 >= i && s[j-8:j] == eightBlanks {
		j -= 8
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return j
}

func isLabel(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '.' || c == '$' || c == '#' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// loneEncoding recognises "/* 0x001c5800fe0007f6 */".
func loneEncoding(s string) (uint64, bool) {
	if len(s) < 4 || !strings.HasPrefix(s, "/*") || !strings.HasSuffix(s, "*/") {
		return 0, false
	}
	in := strings.TrimSpace(s[2 : len(s)-2])
	if !strings.HasPrefix(in, "0x") || len(in) < 3 || len(in) > 18 {
		return 0, false
	}
	return parseHex(in[2:], 64)
}

// hexVal is the value of each hex digit; 0xff for other bytes.
var hexVal = func() (t [256]byte) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = byte(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			t[c] = byte(c - 'A' + 10)
		default:
			t[c] = 0xff
		}
	}
	return t
}()

// parseHex is strconv.ParseUint(s, 16, bits) without the error value.
func parseHex(s string, bits uint) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	if len(s) <= int(bits)/4 { // cannot overflow
		var v uint64
		for i := 0; i < len(s); i++ {
			d := hexVal[s[i]]
			if d > 15 {
				return 0, false
			}
			v = v<<4 | uint64(d)
		}
		return v, true
	}
	max := uint64(1)<<bits - 1
	if bits == 64 {
		max = ^uint64(0)
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		var d byte
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		if v > max>>4 {
			return 0, false
		}
		v = v<<4 | uint64(d)
		if v > max {
			return 0, false
		}
	}
	return v, true
}

func (p *parser) setArch(pos token.Pos, arch string) {
	arch = strings.TrimSpace(arch)
	n, ok := smNumber(arch)
	if !ok {
		p.errorf(pos, "unknown architecture %q (want sm_NN)", arch)
		return
	}
	p.setSM(pos, n)
}

func smNumber(arch string) (int, bool) {
	s, ok := strings.CutPrefix(strings.ToLower(arch), "sm_")
	if !ok {
		return 0, false
	}
	s = strings.TrimRight(s, "af") // sm_90a, sm_100f
	n, err := strconv.Atoi(s)
	if err != nil || n < 10 || n > 999 {
		return 0, false
	}
	return n, true
}

func (p *parser) setSM(pos token.Pos, n int) {
	if p.sm == 0 {
		p.sm, p.smPos = n, pos
		p.out.Target = "sm_" + strconv.Itoa(n)
		return
	}
	if p.sm != n {
		p.errorf(pos, "listing mixes architectures: sm_%d here, sm_%d at %s; split it into one listing per architecture",
			n, p.sm, p.fset.Position(p.smPos))
	}
}

// headerflags reads the architecture from `.headerflags @"EF_CUDA_SM52 …"`.
func (p *parser) headerflags(pos token.Pos, s string) {
	i := strings.Index(s, "EF_CUDA_SM")
	if i < 0 {
		return
	}
	j := i + len("EF_CUDA_SM")
	k := j
	for k < len(s) && '0' <= s[k] && s[k] <= '9' {
		k++
	}
	if n, err := strconv.Atoi(s[j:k]); err == nil {
		p.setSM(pos, n)
	}
}

// directive handles a line starting with '.'.
func (p *parser) directive(pos token.Pos, s string) {
	name, rest, _ := strings.Cut(s, " ")
	if i := strings.IndexByte(name, '\t'); i >= 0 {
		name, rest = s[:i], s[i+1:]
	}
	rest = strings.TrimSpace(rest)
	switch name {
	case ".headerflags":
		p.headerflags(pos, rest)
	case ".target":
		p.setArch(pos, rest)
	case ".section":
		p.endFunc(pos)
		p.sectioned = true
		sec, _, _ := strings.Cut(rest, ",")
		sec = strings.Trim(strings.TrimSpace(sec), `"`)
		if k, ok := strings.CutPrefix(sec, ".text."); ok {
			p.inText, p.sectKernel = true, k
		} else {
			p.inText, p.sectKernel = false, ""
		}
	case ".type":
		sym, typ, _ := strings.Cut(rest, ",")
		sym = strings.TrimSpace(sym)
		if strings.TrimSpace(typ) == "@function" {
			si := p.syms[sym]
			si.function = true
			p.syms[sym] = si
		}
	case ".other":
		sym, attr, _ := strings.Cut(rest, ",")
		sym = strings.TrimSpace(sym)
		if strings.Contains(attr, "STO_CUDA_ENTRY") {
			si := p.syms[sym]
			si.entry = true
			p.syms[sym] = si
			if p.cur != nil && p.cur.fn.Name == sym {
				p.cur.fn.Entry = true
			}
		}
	case ".sectioninfo":
		p.sectionInfo(rest)
	case ".global", ".weak", ".size", ".sectionflags", ".align",
		".zero", ".byte", ".short", ".word", ".dword", ".sectionentsize", ".elftype",
		".nv.info", ".set":
	default:
		if strings.HasPrefix(name, ".__") {
			return
		}
		p.warnf(pos, "unknown directive %s ignored", name)
	}
}

// label handles "name:".
func (p *parser) label(pos token.Pos, name string) {
	if p.sectioned {
		if name == ".text."+p.sectKernel {
			if p.cur == nil || p.cur.fn.Name != p.sectKernel {
				p.startFunc(pos, p.sectKernel, p.syms[p.sectKernel].entry)
			}
			return
		}
		if si, ok := p.syms[name]; ok && si.function || name == p.sectKernel {
			p.startFunc(pos, name, si.entry)
			return
		}
	}
	if p.cur == nil {
		p.implicitFunc(pos)
	}
	p.cur.pending = append(p.cur.pending, strings.Clone(name))
	p.cur.pendPos = append(p.cur.pendPos, pos)
}

// implicitFunc starts a function where code appears without a header: a
// text section's kernel, a maxas kernel, or "main".
func (p *parser) implicitFunc(pos token.Pos) {
	switch {
	case p.sectKernel != "":
		p.startFunc(pos, p.sectKernel, p.syms[p.sectKernel].entry)
	case p.maxasName != "":
		p.startFunc(p.maxasPos, p.maxasName, true)
	default:
		p.startFunc(pos, "main", true)
		p.warnf(pos, "code before any function header: named it \"main\"")
	}
}

func (p *parser) startFunc(pos token.Pos, name string, entry bool) {
	p.endFunc(pos)
	name = strings.Clone(name) // not a substring of the listing: see keep
	fn := &isa.Func{Name: name, Pos: pos, Entry: entry, Labels: map[string]int{}}
	// A SASS listing declares no parameters: they are read from the
	// mangled name (pointers 8 bytes), named as in the PTX of the same
	// build, so that --arg means the same for both (docs/sass.md).
	if ps, ok := isa.MangledParams(name); ok {
		fn.Params = ps
	}
	p.out.Funcs = append(p.out.Funcs, fn)
	p.cur = &fnState{fn: fn, byOff: p.offBuf[:0]}
	p.ctrlValid, p.ctrlLeft, p.ctrlBase = false, 0, -1
	p.last = nil
}

// endFunc resolves the targets of the current function.
func (p *parser) endFunc(pos token.Pos) {
	st := p.cur
	if st == nil {
		return
	}
	p.checkPendingEncoding(pos)
	if p.ctrlValid && p.ctrlLeft > 0 && p.ctrlLeft < p.ctrlN && len(st.fn.Instrs) > 0 {
		p.errorf(p.ctrlPos, "control word covers %d instructions but the function ends after %d", p.ctrlN, p.ctrlN-p.ctrlLeft)
	}
	p.ctrlValid = false
	fn := st.fn
	for i, l := range st.pending {
		p.defLabel(st.pendPos[i], l, len(fn.Instrs))
	}
	st.pending, st.pendPos = nil, nil
	fn.End = pos
	p.resolveReconv(st)
	p.descriptorRegs(fn)
	for _, r := range st.refs {
		name := r.label
		if r.next {
			// The fall-through of a branch whose condition the IR
			// cannot state (build.go, "Conditions beyond the guard").
			idx := r.in.Index + 1
			name = fmt.Sprintf(".L_next_%d", idx)
			if idx < len(fn.Instrs) && fn.Instrs[idx].Offset >= 0 {
				name = offLabel(fn.Instrs[idx].Offset)
			}
			if old, dup := fn.Labels[name]; dup && old != idx {
				p.errorf(r.pos, "label %s names two instructions", name)
			}
			fn.Labels[name] = idx
		} else if name == "" {
			idx, ok := p.indexOf(st, r.off)
			if !ok {
				p.errorf(r.pos, "%s: target 0x%x is not the address of an instruction of %s", r.in.Opcode, r.off, fn.Name)
				continue
			}
			name = offLabel(r.off)
			if old, dup := fn.Labels[name]; dup && old != idx {
				p.errorf(r.pos, "label %s names two instructions", name)
			}
			fn.Labels[name] = idx
		} else if _, ok := fn.Labels[name]; !ok {
			if r.in.Kind == isa.KindCall {
				// A callee: another function or an external symbol.
				r.in.Targets = append(r.in.Targets, name)
				continue
			}
			p.errorf(r.pos, "%s: undefined label %s", r.in.Opcode, name)
			continue
		}
		if r.opIdx >= 0 {
			for k := range r.in.Srcs {
				if o := &r.in.Srcs[k]; o.Kind == isa.OpLabel && o.Text == r.opText {
					o.Text = name
				}
			}
		}
		if r.target {
			r.in.Targets = append(r.in.Targets, name)
		}
	}
	p.splitCalls(st)
	p.offBuf = st.byOff[:0] // reused by the next function
	p.cur = nil
}

// offLabel is the synthesized label of address off: L_0x1b0.
func offLabel(off int64) string { return "L_0x" + strconv.FormatInt(off, 16) }

// indexOf returns the index of the instruction at address off. A
// Kepler–Pascal branch may name the address of a control word: execution
// continues at the first instruction of its group. The address just after
// the last instruction names the end of the function.
func (p *parser) indexOf(st *fnState, off int64) (int, bool) {
	idx, ok := st.lookup(off)
	if !ok && (p.gen() == genMaxwell || p.gen() == genKepler) && off%groupBytes(p.gen()) == 0 {
		idx, ok = st.lookup(off + 8)
	}
	if !ok && len(st.fn.Instrs) > 0 && off == st.lastOff+instrSize(p.gen()) {
		idx, ok = len(st.fn.Instrs), true
	}
	return idx, ok
}

// groupBytes is the size of a control-word group: the word and the
// instructions it covers.
func groupBytes(g gen) int64 {
	if g == genKepler {
		return 64
	}
	return 32
}

func instrSize(g gen) int64 {
	if g == genVolta {
		return 16
	}
	return 8
}

func (p *parser) defLabel(pos token.Pos, name string, idx int) {
	fn := p.cur.fn
	if _, dup := fn.Labels[name]; dup {
		p.errorf(pos, "label %s defined twice in %s", name, fn.Name)
		return
	}
	fn.Labels[name] = idx
}

// resolveReconv gives each SYNC, BRK and CONT without a stated target the
// target of the innermost SSY, PBK or PCNT whose region [push, target)
// encloses it in program order, and Fermi's ".S" pops the target of the
// innermost SSY.
func (p *parser) resolveReconv(st *fnState) {
	if !st.mayPop {
		return // nothing below would change
	}
	fn := st.fn
	type push struct {
		op      string
		idx     int
		target  string
		tIdx    int
		tOffset int64
	}
	var pushes []push
	stated := map[*isa.Instr]bool{}
	for _, r := range st.refs {
		if r.target {
			stated[r.in] = true
		}
	}
	// Target index of each push: from its ref.
	for _, r := range st.refs {
		if r.in.Kind != isa.KindReconverge || !reconvPush[r.in.Opcode] {
			continue
		}
		t := -1
		name := r.label
		if name == "" {
			if i, ok := p.indexOf(st, r.off); ok {
				t = i
			}
			name = offLabel(r.off)
		} else if i, ok := fn.Labels[name]; ok {
			t = i
		}
		if t >= 0 {
			pushes = append(pushes, push{op: r.in.Opcode, idx: r.in.Index, target: name, tIdx: t, tOffset: r.off})
		}
	}
	for _, in := range fn.Instrs {
		want, isPop := reconvPop[in.Opcode]
		fermiPop := !isPop && p.gen() <= genKepler && p.gen() != genUnknown && in.HasMod("S") && in.Opcode != "SSY"
		if fermiPop {
			want = "SSY"
		}
		if !isPop && !fermiPop {
			continue
		}
		if stated[in] || hasLabelOperand(in) {
			continue // stated by an annotation
		}
		best := -1
		for j, ps := range pushes {
			if ps.op == want && ps.idx < in.Index && in.Index < ps.tIdx && (best < 0 || ps.idx > pushes[best].idx) {
				best = j
			}
		}
		if best < 0 {
			p.warnf(in.Pos, "%s at %s: no enclosing %s; its target is unknown", in.Op(), offStr(in), want)
			continue
		}
		ps := pushes[best]
		if fermiPop && in.Kind != isa.KindNop {
			if in.Index+1 != ps.tIdx {
				p.warnf(in.Pos, "%s pops to %s, which is not its successor; the pop edge is not modelled", in.Op(), ps.target)
			}
			continue
		}
		if ps.tOffset >= 0 && strings.HasPrefix(ps.target, "L_0x") {
			st.refs = append(st.refs, ref{in: in, off: ps.tOffset, pos: in.Pos, target: true, opIdx: -1})
		} else {
			st.refs = append(st.refs, ref{in: in, label: ps.target, pos: in.Pos, target: true, opIdx: -1})
		}
		if fermiPop {
			in.Kind = isa.KindReconverge
		}
	}
}

func hasLabelOperand(in *isa.Instr) bool {
	for _, o := range in.Srcs {
		if o.Kind == isa.OpLabel {
			return true
		}
	}
	return false
}

func offStr(in *isa.Instr) string {
	if in.Offset < 0 {
		return fmt.Sprintf("instruction %d", in.Index)
	}
	return fmt.Sprintf("0x%04x", in.Offset)
}

// encodingLine handles a line holding only an encoding word.
func (p *parser) encodingLine(pos token.Pos, w uint64) {
	switch {
	case p.last != nil && p.lastNeedLo:
		// Dual-issue second member: its encoding comes alone.
		p.lastNeedLo = false
		p.lastLo = w
		if p.gen() == genVolta {
			p.lastNeedHi = true
		}
	case p.last != nil && p.lastNeedHi:
		p.lastNeedHi = false
		c, err := voltaCtrl(w)
		if err != nil {
			p.errorf(pos, "%v", err)
			return
		}
		p.last.Ctrl = p.newCtrl(c)
		p.checkAnnotations(p.last, p.last.Ctrl)
	case p.gen() == genVolta:
		p.errorf(pos, "encoding word without an instruction: on %s each instruction line is followed by exactly one high word", p.out.Target)
	case p.gen() == genFermi:
		p.errorf(pos, "lone encoding word: Fermi (%s) listings have no control words", p.out.Target)
	default:
		// A control word for the next group.
		if p.ctrlValid && p.ctrlLeft > 0 {
			p.errorf(pos, "control word: the previous one at %s covers %d instructions but only %d followed",
				p.fset.Position(p.ctrlPos), p.ctrlN, p.ctrlN-p.ctrlLeft)
		}
		n := 3
		if p.gen() == genKepler {
			n = 7
		}
		if p.gen() == genUnknown && p.cur != nil {
			p.warnf(pos, "control word before any architecture line: assuming Maxwell/Pascal groups of 3")
		}
		p.ctrlWord, p.ctrlN, p.ctrlLeft, p.ctrlValid, p.ctrlPos, p.ctrlBase = w, n, n, true, pos, -1
	}
}

// checkPendingEncoding reports an instruction still waiting for a word.
func (p *parser) checkPendingEncoding(pos token.Pos) {
	if p.last == nil {
		return
	}
	if p.lastNeedLo && p.gen() != genUnknown && (p.ctrlValid || p.gen() == genVolta) {
		// Only listings with encodings print the second member's word.
		p.errorf(pos, "missing encoding of %s at %s (dual-issue second member)", p.last.Op(), offStr(p.last))
	} else if p.lastNeedHi {
		p.errorf(pos, "missing high encoding word of %s at %s", p.last.Op(), offStr(p.last))
	}
	p.lastNeedLo, p.lastNeedHi = false, false
	p.last = nil
}

// checkAnnotations compares CUDA 12.8 annotations with the decoded field.
func (p *parser) checkAnnotations(in *isa.Instr, c *isa.Ctrl) {
	if p.lastAnn == "" || in != p.last {
		return
	}
	a, ok, err := annotCtrl(p.lastAnn)
	if err != nil || !ok {
		return
	}
	const mask = 0x1ffff // all but reuse
	if a.Raw&mask != c.Raw&mask {
		p.warnf(p.lastAnnPos, "annotations %s disagree with the encoded control field %s", strings.Join(strings.Fields(p.lastAnn), " "), FormatCtrl(c))
	}
}

// sortedLabels returns the labels of fn in index order, then by name.
func sortedLabels(fn *isa.Func) []string {
	ls := make([]string, 0, len(fn.Labels))
	for l := range fn.Labels {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool {
		a, b := fn.Labels[ls[i]], fn.Labels[ls[j]]
		if a != b {
			return a < b
		}
		return ls[i] < ls[j]
	})
	return ls
}

// trailingComment returns the index of the first "//" of s that follows a
// blank, or -1. A line that starts with "//" is a whole-line comment, not a
// trailing one.
func trailingComment(s string) int {
	for from := 0; ; {
		k := strings.Index(s[from:], "//")
		if k < 0 {
			return -1
		}
		k += from
		if k > 0 && isSpace(s[k-1]) {
			return k
		}
		from = k + 2
	}
}

// descriptorRegs adds the memory descriptor to the global and generic
// accesses of fn. From sm_80 on, such an access also reads a uniform
// register pair that holds the memory descriptor, loaded by "ULDC.64 UR4,
// c[0x0][0x118]" (sm_90: c[0x0][0x208]); CUDA 12 listings write it
// ("desc[UR4][R2.64]"), CUDA 11's nvdisasm does not ("[R2.64]"), although
// its register life ranges show the read. An access whose address is a
// ".64" pair without "desc[" is taken to read every uniform pair that a
// ULDC.64 from constant bank 0 writes in the function: a superset of its
// descriptor.
func (p *parser) descriptorRegs(fn *isa.Func) {
	if p.sm != 0 && p.sm < 80 {
		return
	}
	var desc []string
	for _, in := range fn.Instrs {
		if in.Opcode == "ULDC" && in.HasMod("64") && len(in.Dsts) == 1 && len(in.Srcs) == 1 && strings.HasPrefix(in.Srcs[0].Text, "c[0x0]") {
			for _, r := range in.Dsts[0].Regs {
				desc = appendUniq(desc, r)
			}
		}
	}
	if len(desc) == 0 {
		return
	}
	for _, in := range fn.Instrs {
		if in.Space != isa.SpaceGlobal && in.Space != isa.SpaceGeneric {
			continue
		}
		for k := range in.Srcs {
			o := &in.Srcs[k]
			if o.Kind == isa.OpMem && strings.HasPrefix(o.Text, "[") && strings.Contains(o.Text, ".64") {
				regs := p.strSlice(len(o.Regs) + len(desc))
				copy(regs, o.Regs)
				copy(regs[len(o.Regs):], desc)
				o.Regs = regs
			}
		}
	}
}
