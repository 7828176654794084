package sass

import (
	"go/token"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// instrLine parses one instruction line: optional control prefix
// (CuAssembler "[B------:R-:W-:Y:S01]", maxas "--:-:1:-:1"), optional
// address "/*0010*/", optional Fermi encoding "/*0x…*/", optional "{",
// guards, opcode, operands, optional annotations, ";" or "}", optional
// trailing encoding "/* 0x… */".
func (p *parser) instrLine(start, end int, s string, pos token.Pos) {
	i, j := 0, len(s)
	at := func(k int) token.Pos { return p.pos(start + k) }
	skip := func() { i = skipBlanks(s, i, j) }
	var ctrl *isa.Ctrl
	// Control prefixes.
	if s[0] == '[' {
		k := strings.IndexByte(s, ']')
		if k < 0 {
			p.errorf(pos, "unterminated control prefix")
			return
		}
		c, err := parseCuasmCtrl(s[1:k])
		if err != nil {
			p.errorf(pos, "%v", err)
			return
		}
		ctrl = p.newCtrl(c)
		i = k + 1
		skip()
	} else if k := maxasEnd(s); k > 0 && isMaxasCtrl(s[:k]) {
		c, err := parseMaxasCtrl(s[:k])
		if err != nil {
			p.errorf(pos, "%v", err)
			return
		}
		ctrl = p.newCtrl(c)
		i = k
		skip()
		if p.cur == nil && p.maxasName != "" {
			p.implicitFunc(pos)
		}
		if p.cur != nil {
			p.cur.noOffset = true
		}
	}
	// Address and Fermi encoding comments.
	off := int64(-1)
	var lo uint64
	hasLo := false
	for i+1 < j && s[i] == '/' && s[i+1] == '*' {
		k := strings.Index(s[i+2:j], "*/")
		if k < 0 {
			p.errorf(at(i), "unterminated comment")
			return
		}
		k += 2
		inner := strings.TrimSpace(s[i+2 : i+k])
		if h, ok := strings.CutPrefix(inner, "0x"); ok {
			v, ok := parseHex(h, 64)
			if !ok {
				p.errorf(at(i), "bad encoding %q", inner)
				return
			}
			lo, hasLo = v, true
		} else {
			v, ok := parseHex(inner, 63)
			if !ok || off >= 0 {
				p.errorf(at(i), "bad address %q", inner)
				return
			}
			off = int64(v)
		}
		i += k + 2
		skip()
	}
	pairOpen := false
	if i < j && s[i] == '{' {
		pairOpen = true
		i++
		skip()
	}
	// Trailing encoding.
	if strings.HasSuffix(s[i:j], "*/") {
		k := lastComment(s[i:j])
		if k < 0 || i+k+2 > j-2 {
			p.errorf(at(j-2), "unmatched */")
			return
		}
		inner := strings.TrimSpace(s[i+k+2 : j-2])
		h, ok := strings.CutPrefix(inner, "0x")
		v, okv := parseHex(h, 64)
		if !ok || !okv || hasLo {
			p.errorf(at(i+k), "bad encoding comment %q", inner)
			return
		}
		lo, hasLo = v, true
		j = i + k
		j = trimBlanks(s, i, j)
	}
	// Terminator.
	pairClose := false
	if j > i && s[j-1] == '}' {
		pairClose = true
		j--
		j = trimBlanks(s, i, j)
	}
	if j > i && s[j-1] == ';' {
		j--
		j = trimBlanks(s, i, j)
	} else if !pairClose {
		p.errorf(at(j), "expected ';' at end of instruction")
		return
	}
	// nvdisasm marks some Maxwell dual-issue pairs "… RZ   SLOT 0;" and
	// "… [R7]   SLOT 1        }".
	if j-i > 7 && (s[j-1] == '0' || s[j-1] == '1') && s[j-6:j-1] == "SLOT " && isSpace(s[j-7]) {
		j = trimBlanks(s, i, j-6)
	}
	if pairOpen && pairClose {
		p.errorf(pos, "dual-issue pair opened and closed on one line")
		return
	}
	if pairOpen && p.inPair || pairClose && !p.inPair {
		p.errorf(pos, "unbalanced dual-issue braces")
		p.inPair = false
		return
	}
	p.inPair = pairOpen
	// Notes "(*"…"*)".
	var notes []string
	for {
		k := strings.Index(s[i:j], "(*")
		if k < 0 {
			break
		}
		e := strings.Index(s[i+k+2:j], "*)")
		if e >= 0 {
			e += 2 // offset of "*)" from "(*"
		}
		if e < 0 {
			p.errorf(at(i+k), "unterminated (* annotation")
			return
		}
		notes = append(notes, strings.Clone(strings.Trim(strings.TrimSpace(s[i+k+2:i+k+e]), `"`)))
		// Only trailing notes are expected; cut from the first one.
		rest := strings.TrimSpace(s[i+k+e+2 : j])
		if rest != "" {
			if !strings.HasPrefix(rest, "(*") {
				p.errorf(at(i+k+e+2), "unexpected %q after annotation", rest)
				return
			}
		}
		s2 := s[:i+k] + strings.Repeat(" ", e+2) + s[i+k+e+2:]
		s = s2
		j = trimBlanks(s, i, j)
	}
	// CUDA 12.8 scheduling annotations: " &wr=0x0", " ?trans1".
	var anns string
	annPos := token.NoPos
	if k := annStart(s[i:j]); k >= 0 {
		annPos = at(i + k)
		anns = s[i+k : j]
		j = i + k
		j = trimBlanks(s, i, j)
	}
	if i >= j {
		p.errorf(at(i), "expected instruction")
		return
	}
	// From here on, s is the arena copy of the instruction text (guard to
	// last operand), start its offset in the listing.
	s, start, i, j = p.keep(s[i:j]), start+i, 0, j-i
	// Guards.
	var g isa.Guard
	hasGuard := false
	ipos := at(i)
	textStart := i
	for i < j && s[i] == '@' {
		k := i
		for k < j && !isSpace(s[k]) {
			k++
		}
		gg, ok := parseGuard(s[i+1 : k])
		if !ok {
			p.errorf(at(i), "bad guard %q", s[i:k])
			return
		}
		if hasGuard && gg != g {
			p.errorf(at(i), "second guard %s differs from %s", s[i:k], g)
			return
		}
		g, hasGuard = gg, true
		i = k
		skip()
	}
	if g.Reg == "PT" && !g.Neg {
		g = isa.Guard{}
	}
	// Opcode.
	k := i
	for k < j && !isSpace(s[k]) {
		k++
	}
	opText := s[i:k]
	if !validOpcode(opText) {
		p.errorf(at(i), "expected opcode, found %q", opText)
		return
	}
	opPos := at(i)
	i = k
	skip()
	if p.cur == nil {
		p.implicitFunc(pos)
	}
	st := p.cur
	fn := st.fn
	in := p.newInstr() // zeroed: set the fields one by one (no whole-struct copy)
	in.Pos, in.Index, in.Guard, in.Offset, in.Ctrl = ipos, len(fn.Instrs), g, off, ctrl
	if dot := strings.IndexByte(opText, '.'); dot >= 0 {
		in.Opcode = opText[:dot]
		mods := opText[dot+1:]
		in.Mods = p.strSlice(1 + strings.Count(mods, "."))
		for k := range in.Mods {
			m, rest, _ := strings.Cut(mods, ".")
			if m == "" {
				p.errorf(opPos, "empty modifier in %q", opText)
				return
			}
			in.Mods[k], mods = m, rest
		}
	} else {
		in.Opcode = opText
	}
	// Operands.
	ops, opPoss, ok := p.splitOperands(s, i, j, start)
	if !ok {
		return
	}
	// Offsets.
	if off >= 0 {
		if st.haveOff && off <= st.lastOff {
			p.errorf(pos, "address 0x%x does not increase (previous 0x%x)", off, st.lastOff)
			return
		}
		if _, dup := st.lookup(off); dup {
			p.errorf(pos, "address 0x%x repeated", off)
			return
		}
		st.byOff = append(st.byOff, offIndex{off, in.Index})
		st.lastOff, st.haveOff = off, true
	} else if st.haveOff {
		p.errorf(pos, "instruction without an address after addressed ones")
		return
	}
	// Control words (Kepler, Maxwell/Pascal).
	if p.ctrlValid {
		if p.ctrlLeft == 0 {
			p.errorf(pos, "no control word before %s at %s: a %s listing has one before every %d instructions", in.Op(), offStr(in), p.out.Target, p.ctrlN)
			p.ctrlValid = false
		} else {
			slot := p.ctrlN - p.ctrlLeft
			p.ctrlLeft--
			if off >= 0 {
				group := int64(8 * (p.ctrlN + 1))
				if p.ctrlBase < 0 {
					p.ctrlBase = off - 8*int64(slot+1)
					if p.ctrlBase%group != 0 {
						p.errorf(pos, "instruction at 0x%x: control-word groups must start at multiples of 0x%x (this group starts at 0x%x)", off, group, p.ctrlBase)
					}
				} else if want := p.ctrlBase + 8*int64(slot+1); off != want {
					p.errorf(pos, "instruction at 0x%x: expected 0x%x, slot %d of the control word at %s", off, want, slot, p.fset.Position(p.ctrlPos))
				}
			}
			if p.gen() == genMaxwell || p.gen() == genUnknown {
				c, err := decodeCtrl(maxwellSlot(p.ctrlWord, slot))
				if err != nil {
					p.errorf(p.ctrlPos, "control word 0x%016x slot %d: %v", p.ctrlWord, slot, err)
				} else if in.Ctrl == nil {
					in.Ctrl = p.newCtrl(c)
				}
			}
		}
	}
	// Annotations.
	if anns != "" {
		c, ok, err := annotCtrl(anns)
		if err != nil {
			p.errorf(annPos, "%v", err)
			return
		}
		if ok && in.Ctrl == nil {
			in.Ctrl = p.newCtrl(c)
		}
	}
	p.build(in, ops, opPoss, notes, opPos)
	if in.Opcode == "" {
		return
	}
	in.Text = p.instrText(in, opText, ops, s[textStart:j])
	for k, l := range st.pending {
		p.defLabel(st.pendPos[k], l, in.Index)
	}
	st.pending, st.pendPos = st.pending[:0], st.pendPos[:0]
	fn.Instrs = append(fn.Instrs, in)

	p.last = in
	p.lastAnn, p.lastAnnPos = anns, annPos
	p.lastNeedLo = pairClose && !hasLo
	p.lastNeedHi = hasLo && p.gen() == genVolta
	if hasLo {
		p.lastLo = lo
	}
}

// annStart returns the index of the first CUDA 12.8 annotation (" &x" or
// " ?x" at bracket depth 0), or -1.
// maxasEnd returns the index of the first blank or tab of s when s may
// start with a maxas control prefix (see isMaxasCtrl), else -1.
func maxasEnd(s string) int {
	if s == "" || !(s[0] == ':' || s[0] == '-' || s[0] == 'Y' || isHex(s[0])) {
		return -1
	}
	for k := 1; k < len(s); k++ {
		if s[k] == ' ' || s[k] == '\t' {
			return k
		}
	}
	return -1
}

func annStart(s string) int {
	if strings.IndexByte(s, '&') < 0 && strings.IndexByte(s, '?') < 0 {
		return -1
	}
	depth := 0
	for k := 0; k < len(s); k++ {
		switch c := s[k]; c {
		case '[', '{', '(':
			depth++
		case ']', '}', ')':
			depth--
		case '&', '?':
			if depth == 0 && k > 0 && isSpace(s[k-1]) && k+1 < len(s) && (s[k+1] >= 'a' && s[k+1] <= 'z' || s[k+1] >= 'A' && s[k+1] <= 'Z') {
				return k
			}
		}
	}
	return -1
}

func parseGuard(s string) (isa.Guard, bool) {
	g := isa.Guard{}
	if strings.HasPrefix(s, "!") {
		g.Neg = true
		s = s[1:]
	}
	if s == "pt" {
		s = "PT"
	}
	if !isPredName(s) {
		return g, false
	}
	g.Reg = s
	if s == "UPT" && !g.Neg {
		return isa.Guard{}, true
	}
	return g, true
}

func isPredName(s string) bool {
	switch {
	case s == "PT" || s == "UPT":
		return true
	case len(s) == 2 && s[0] == 'P' && s[1] >= '0' && s[1] <= '6':
		return true
	case len(s) == 3 && s[0] == 'U' && s[1] == 'P' && s[2] >= '0' && s[2] <= '6':
		return true
	}
	return false
}

func validOpcode(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '.' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// splitOperands splits s[i:j] at commas of bracket depth 0; an operand
// made of several blank-separated words ("R2 -0x110", "R20 0x0") becomes
// several operands. Constant-bank spacing "c [0x1] [0x100]" is normalised.
//
// The slices returned are the parser's scratch buffers, valid until the
// next call.
func (p *parser) splitOperands(s string, i, j, base int) (ops []string, poss []token.Pos, ok bool) {
	if i >= j {
		return nil, nil, true
	}
	ops, poss = p.ops[:0], p.poss[:0]
	defer func() { p.ops, p.poss = ops[:0], poss[:0] }()
	depth := 0
	tick := false
	from := i
	flush := func(to int) bool {
		t := strings.TrimSpace(s[from:to])
		if t == "" {
			p.errorf(p.pos(base+from), "empty operand")
			return false
		}
		lead := from
		for lead < to && isSpace(s[lead]) {
			lead++
		}
		blank := hasBlank(t)
		if blank {
			t = normBank(t)
			blank = hasBlank(t)
		}
		if q := strings.IndexByte(t, '`'); blank && q > 0 && isSpace(t[q-1]) && strings.IndexByte(t[:q], '[') < 0 && strings.IndexByte(t[:q], '(') < 0 {
			// "R14 `(kernel)": RET.REL.NODEC's return-address pair,
			// then its label.
			ops = fields(strings.TrimSpace(t[:q]), ops)
			ops = append(ops, t[q:])
			for len(poss) < len(ops) {
				poss = append(poss, p.pos(base+lead))
			}
			return true
		}
		if blank && strings.IndexByte(t, '[') < 0 && strings.IndexByte(t, '`') < 0 && strings.IndexByte(t, '(') < 0 {
			ops = fields(t, ops)
			for len(poss) < len(ops) {
				poss = append(poss, p.pos(base+lead))
			}
			return true
		}
		ops = append(ops, t)
		poss = append(poss, p.pos(base+lead))
		return true
	}
	for k := i; k < j; k++ {
		switch c := s[k]; c {
		case '`':
			tick = !tick
		case '[', '{', '(':
			depth++
		case ']', '}', ')':
			depth--
			if depth < 0 {
				p.errorf(p.pos(base+k), "unbalanced %q", c)
				return nil, nil, false
			}
		case ',':
			if depth == 0 && !tick {
				if !flush(k) {
					return nil, nil, false
				}
				from = k + 1
			}
		}
	}
	if depth != 0 {
		p.errorf(p.pos(base+j), "unbalanced brackets in operands")
		return nil, nil, false
	}
	if !flush(j) {
		return nil, nil, false
	}
	return ops, poss, true
}

// lastComment is strings.LastIndex(s, "/*").
func lastComment(s string) int {
	for k := len(s) - 2; k >= 0; k-- {
		if s[k] == '/' && s[k+1] == '*' {
			return k
		}
	}
	return -1
}

// hasBlank reports whether t holds a blank or a tab.
func hasBlank(t string) bool {
	for k := 0; k < len(t); k++ {
		if t[k] == ' ' || t[k] == '\t' {
			return true
		}
	}
	return false
}

// normBank removes blanks inside constant-bank and memory operands:
// "c [0x1] [0x100]" → "c[0x1][0x100]", "c[0x0] [0x14].H1" → "c[0x0][0x14].H1".
func normBank(t string) string {
	if !hasBlank(t) || !strings.Contains(t, "[") {
		return t
	}
	var b strings.Builder
	for k := 0; k < len(t); k++ {
		c := t[k]
		if isSpace(c) {
			// Drop blanks next to brackets.
			prev := byte(0)
			if b.Len() > 0 {
				prev = b.String()[b.Len()-1]
			}
			n := k
			for n < len(t) && isSpace(t[n]) {
				n++
			}
			next := byte(0)
			if n < len(t) {
				next = t[n]
			}
			if next == '[' || prev == '[' || next == ']' || prev == ']' || next == '+' || prev == '+' {
				k = n - 1
				continue
			}
			b.WriteByte(' ')
			k = n - 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// instrText is the normalised text of in: guard, opcode, operands joined
// by ", ". When the source text src already reads so (the usual case), it
// is returned itself, a substring of the listing, instead of a copy.
func (p *parser) instrText(in *isa.Instr, opText string, ops []string, src string) string {
	b := p.textBuf[:0]
	if in.Guard.Reg != "" {
		b = append(b, '@')
		if in.Guard.Neg {
			b = append(b, '!')
		}
		b = append(b, in.Guard.Reg...)
		b = append(b, ' ')
	}
	b = append(b, opText...)
	for k, o := range ops {
		if k == 0 {
			b = append(b, ' ')
		} else {
			b = append(b, ", "...)
		}
		b = append(b, o...)
	}
	p.textBuf = b
	if string(b) == src {
		return src
	}
	return string(b)
}
