package ptx

import (
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// ccReg is the hidden carry register written by add.cc, sub.cc, mad.cc and
// read by addc, subc, madc.
const ccReg = "%cc"

var ccRegs = []string{ccReg}

// Slab allocation: Instr, Operand and string slices of the result are
// carved out of chunks shared by a whole file, so that an instruction costs
// a handful of allocations amortised over many.
const (
	minChunk = 32
	maxChunk = 512
)

func (p *parser) grow() int {
	if p.chunk < minChunk {
		p.chunk = minChunk
	} else if p.chunk < maxChunk {
		p.chunk *= 2
	}
	return p.chunk
}

func (p *parser) newInstr() *isa.Instr {
	if len(p.instrs) == cap(p.instrs) {
		p.instrs = make([]isa.Instr, 0, p.grow())
	}
	p.instrs = p.instrs[:len(p.instrs)+1]
	return &p.instrs[len(p.instrs)-1]
}

func (p *parser) allocOpnds(n int) []isa.Operand {
	if n == 0 {
		return nil
	}
	if cap(p.opnds)-len(p.opnds) < n {
		p.opnds = make([]isa.Operand, 0, max(n, 2*p.grow()))
	}
	s := p.opnds[len(p.opnds) : len(p.opnds)+n : len(p.opnds)+n]
	p.opnds = p.opnds[:len(p.opnds)+n]
	return s
}

func (p *parser) allocStrs(n int) []string {
	if n == 0 {
		return nil
	}
	if cap(p.strs)-len(p.strs) < n {
		p.strs = make([]string, 0, max(n, 4*p.grow()))
	}
	s := p.strs[len(p.strs) : len(p.strs)+n : len(p.strs)+n]
	p.strs = p.strs[:len(p.strs)+n]
	return s
}

// isReg reports whether the identifier names a register (not a special
// register, variable, parameter, function or label).
func (p *parser) isReg(name string) bool {
	if name[0] == '%' {
		return !isSpecial(name)
	}
	return p.bareRegs[name]
}

// parseInstr parses one instruction statement, including its ';', and
// appends it to the current function.
func (p *parser) parseInstr() {
	start := p.pos
	p.tb = p.tb[:0]
	p.ops = p.ops[:0]
	p.regs = p.regs[:0]
	var guard isa.Guard
	if p.is('@') {
		p.next()
		p.tb = append(p.tb, '@')
		if p.is('!') {
			guard.Neg = true
			p.tb = append(p.tb, '!')
			p.next()
		}
		if p.tok != tIdent || !p.isReg(p.lit) {
			p.errorf(p.pos, "malformed guard: expected a predicate register, found %s", p.describe())
			p.skipStmt()
			return
		}
		guard.Reg = p.lit
		// GPGPU-Sim condition-code guards: @%p1.lt reads %p1.
		for i := len(p.lit) - 1; i > 0; i-- {
			if p.lit[i] == '.' {
				if ccSuffix(p.lit[i+1:]) {
					guard.Reg = p.lit[:i]
				}
				break
			}
		}
		p.tb = append(p.tb, p.lit...)
		p.tb = append(p.tb, ' ')
		p.next()
	}
	if p.tok != tIdent {
		p.errorf(p.pos, "expected instruction opcode, found %s", p.describe())
		p.skipStmt()
		return
	}
	opOff := p.pos
	full := p.lit
	p.tb = append(p.tb, full...)
	p.next()

	// Operands.
	srcEnd := opOff + len(full)
	if !p.is(';') && !p.is('}') && p.tok != tEOF {
		p.tb = append(p.tb, ' ')
		pipe := false
		for {
			if !p.parseOperand(full, pipe) {
				p.skipStmt()
				return
			}
			srcEnd = p.prevEnd
			if p.is(',') {
				p.tb = append(p.tb, ", "...)
				pipe = false
				p.next()
				continue
			}
			if p.is('|') {
				p.tb = append(p.tb, '|')
				pipe = true
				p.next()
				continue
			}
			break
		}
	}
	if !p.is(';') {
		if p.tok == tEOF || p.is('}') || p.nl {
			// The statement ends at the line break: keep the
			// instruction and go on with the next line.
			p.errorf(srcEnd, "missing ; after instruction %s", full)
			p.finishInstr(start, srcEnd, full, guard)
			return
		} else {
			p.errorf(p.pos, "malformed operand list: unexpected %s", p.describe())
		}
		p.skipStmt()
		return
	}
	p.next()
	p.finishInstr(start, srcEnd, full, guard)
}

// finishInstr classifies the parsed operands and appends the instruction.
func (p *parser) finishInstr(start, srcEnd int, full string, guard isa.Guard) {
	fn := p.fn
	in := p.newInstr()
	in.Pos = p.tf.Pos(start)
	in.Index = len(p.body)
	in.Offset = -1
	in.Guard = guard
	in.Loc = p.loc

	// Opcode and modifiers: substrings of the opcode token.
	nmods := 0
	dot := -1
	for i := 0; i < len(full); i++ {
		if full[i] == '.' {
			if dot < 0 {
				dot = i
			}
			nmods++
		}
	}
	if dot < 0 {
		in.Opcode = full
	} else {
		in.Opcode = full[:dot]
		in.Mods = p.modsOf(full, dot, nmods)
		for _, m := range in.Mods {
			if m == "" {
				p.errorf(start, "malformed opcode %s: empty modifier", full)
				break
			}
			if m == "uni" {
				in.Uni = true
			}
		}
	}

	// Text: the source itself when it is already in normal form.
	var text string
	if srcEnd-start == len(p.tb) && p.src[start:srcEnd] == string(p.tb) {
		text = p.src[start:srcEnd]
	} else {
		text = string(p.tb)
	}
	in.Text = text

	info, known := lookupOp(full, in.Opcode, in.Mods)
	if !known {
		in.Generic = true
		p.warnf(start, "unknown opcode %s: parsed with the generic rule (first operand written, others read)", full)
	}
	in.Kind = info.kind
	ndst := 1
	if info.flags&fNoDst != 0 {
		ndst = 0
	}

	// Memory space.
	if info.kind == isa.KindLoad || info.kind == isa.KindStore || info.kind == isa.KindAtomic {
		in.Space = info.space
		for _, m := range in.Mods {
			if s := spaceOf(m); s != isa.SpaceNone {
				in.Space = s
				if info.flags&fLastSpace == 0 {
					break
				}
			}
		}
	}

	switch in.Opcode {
	case "bar", "barrier":
		in.Barrier = isa.BarSync
		for _, m := range in.Mods {
			switch m {
			case "arrive":
				in.Barrier = isa.BarArrive
			case "red":
				in.Barrier = isa.BarRed
				ndst = 1
			case "warp":
				in.Barrier = isa.BarWarpSync
			}
		}
	case "call":
		p.classifyCall(in, text)
		return
	}

	// Count destination operands: the first operand and those joined to
	// it by '|'.
	nops := len(p.ops)
	nd := 0
	if ndst > 0 && nops > 0 {
		nd = 1
		for nd < nops && p.ops[nd].pipe {
			nd++
		}
	}
	carryOut := in.HasMod("cc")
	carryIn := info.flags&fCarryIn != 0
	extraD, extraS := 0, 0
	if carryOut {
		extraD = 1
	}
	if carryIn {
		extraS = 1
	}
	all := p.allocOpnds(nops + extraD + extraS)
	p.fillOperands(all, text)
	dsts := all[:nd]
	srcs := all[nd:nops]
	if carryOut {
		// Hidden carry destination after the written operands.
		copy(all[nd+1:nops+1], all[nd:nops])
		all[nd] = isa.Operand{Kind: isa.OpReg, Text: ccReg, Regs: ccRegs}
		dsts = all[:nd+1]
		srcs = all[nd+1 : nops+1]
	}
	if carryIn {
		all[len(all)-1] = isa.Operand{Kind: isa.OpReg, Text: ccReg, Regs: ccRegs}
		srcs = all[len(dsts):]
	}
	if len(dsts) > 0 {
		in.Dsts = dsts
	}
	if len(srcs) > 0 {
		in.Srcs = srcs
	}
	for i := range in.Dsts {
		switch in.Dsts[i].Kind {
		case isa.OpReg, isa.OpVec, isa.OpSink, isa.OpMem:
		default:
			p.errorf(start, "malformed operand: %s cannot be written by %s", in.Dsts[i].Text, full)
		}
	}

	switch in.Kind {
	case isa.KindBranch:
		if len(in.Srcs) != 1 || in.Srcs[0].Kind != isa.OpLabel {
			p.errorf(start, "malformed branch: expected one label operand")
			break
		}
		in.Targets = p.allocStrs(1)
		in.Targets[0] = in.Srcs[0].Text
		p.refs = append(p.refs, labelRef{in.Targets[0], p.ops[0].off})
	case isa.KindIndirectBranch:
		if len(in.Srcs) != 2 || in.Srcs[1].Kind != isa.OpSym {
			p.errorf(start, "malformed brx.idx: expected an index and a .branchtargets list")
			break
		}
		list, ok := fn.BranchTargets[in.Srcs[1].Text]
		if !ok {
			p.errorf(start, "undefined .branchtargets list %s", in.Srcs[1].Text)
			break
		}
		in.Targets = list
	}
	p.body = append(p.body, in)
}

// classifyCall fills a call: call{.uni} [(rets),] callee [, (args)] [, proto|targets].
func (p *parser) classifyCall(in *isa.Instr, text string) {
	fn := p.fn
	nops := len(p.ops)
	all := p.allocOpnds(nops)
	p.fillOperands(all, text)
	nd := 0
	if nops > 1 && all[0].Kind == isa.OpList {
		nd = 1
	}
	if nd > 0 {
		in.Dsts = all[:1]
	}
	in.Srcs = all[nd:]
	if len(in.Srcs) == 0 {
		p.errorf(p.tf.Offset(in.Pos), "malformed call: missing callee")
		p.body = append(p.body, in)
		return
	}
	callee := in.Srcs[0]
	switch callee.Kind {
	case isa.OpSym:
		in.Kind = isa.KindCall
		in.Targets = p.allocStrs(1)
		in.Targets[0] = callee.Text
	case isa.OpReg:
		in.Kind = isa.KindIndirectCall
		if last := in.Srcs[len(in.Srcs)-1]; len(in.Srcs) > 1 && last.Kind == isa.OpSym {
			if list, ok := fn.BranchTargets[last.Text]; ok {
				in.Targets = list
			}
		}
	default:
		p.errorf(p.tf.Offset(in.Pos), "malformed call: callee %s is neither a function nor a register", callee.Text)
	}
	p.body = append(p.body, in)
}

// parseOperand parses one operand at the current token, appending its
// normalised text to p.tb and its registers to p.regs. It reports false
// after an error.
func (p *parser) parseOperand(op string, pipe bool) bool {
	o := rawOp{start: len(p.tb), r0: len(p.regs), pipe: pipe, off: p.pos}
	isBra := len(op) >= 3 && op[:3] == "bra" && (len(op) == 3 || op[3] == '.')
	switch p.tok {
	case tIdent:
		name := p.lit
		p.tb = append(p.tb, name...)
		switch {
		case name == "_":
			o.kind = isa.OpSink
		case p.isReg(name):
			o.kind = isa.OpReg
			p.regs = append(p.regs, name)
		case name[0] == '%' || name == "WARP_SZ":
			o.kind = isa.OpSpecial
		case isBra:
			o.kind = isa.OpLabel
		default:
			o.kind = isa.OpSym
		}
		p.prevEnd = p.pos + len(p.lit)
		p.next()
		// symbol+offset (mov.u64 %rd1, smem+16)
		if o.kind == isa.OpSym && (p.is('+') || p.is('-')) {
			p.tb = append(p.tb, p.lit...)
			p.next()
			if p.is('-') {
				p.tb = append(p.tb, '-')
				p.next()
			}
			if p.tok != tNum {
				p.errorf(p.pos, "malformed operand: expected an offset after %s, found %s", name, p.describe())
				return false
			}
			p.tb = append(p.tb, p.lit...)
			p.prevEnd = p.pos + len(p.lit)
			p.next()
		}
	case tNum:
		o.kind = isa.OpImm
		p.tb = append(p.tb, p.lit...)
		p.prevEnd = p.pos + len(p.lit)
		p.next()
	case tPunct:
		switch p.lit[0] {
		case '!', '-':
			neg := p.lit[0]
			p.tb = append(p.tb, neg)
			p.next()
			switch {
			case p.tok == tIdent && p.lit != "_":
				o.kind = isa.OpReg
				if !p.isReg(p.lit) {
					if neg == '-' && (p.lit[0] == '%' || p.lit == "WARP_SZ") {
						o.kind = isa.OpSpecial
					} else {
						p.errorf(p.pos, "malformed operand: %c%s is not a register", neg, p.lit)
						return false
					}
				} else {
					p.regs = append(p.regs, p.lit)
				}
				o.neg = neg == '!'
			case p.tok == tNum && neg == '-':
				o.kind = isa.OpImm
			default:
				p.errorf(p.pos, "malformed operand: unexpected %s after %c", p.describe(), neg)
				return false
			}
			p.tb = append(p.tb, p.lit...)
			p.prevEnd = p.pos + len(p.lit)
			p.next()
		case '{':
			o.kind = isa.OpVec
			if !p.parseGroup('{', '}') {
				return false
			}
		case '[':
			o.kind = isa.OpMem
			if !p.parseGroup('[', ']') {
				return false
			}
		case '(':
			o.kind = isa.OpList
			if !p.parseGroup('(', ')') {
				return false
			}
		default:
			p.errorf(p.pos, "malformed operand: unexpected %s", p.describe())
			return false
		}
	default:
		p.errorf(p.pos, "malformed operand: unexpected %s", p.describe())
		return false
	}
	o.end = len(p.tb)
	o.r1 = len(p.regs)
	p.ops = append(p.ops, o)
	return true
}

// parseGroup parses a bracketed operand ({...}, [...], (...)) with nested
// groups, collecting the registers inside. Spacing is normalised: none
// except one space after each comma.
func (p *parser) parseGroup(open, close byte) bool {
	startOff := p.pos
	var stack [8]byte
	depth := 0
	for {
		switch p.tok {
		case tEOF:
			p.errorf(startOff, "malformed operand: %c not closed", open)
			return false
		case tIdent:
			if p.isReg(p.lit) {
				p.regs = append(p.regs, p.lit)
			}
			p.tb = append(p.tb, p.lit...)
		case tNum:
			p.tb = append(p.tb, p.lit...)
		case tPunct:
			c := p.lit[0]
			switch c {
			case '{', '[', '(':
				if depth == len(stack) {
					p.errorf(p.pos, "malformed operand: brackets nested too deeply")
					return false
				}
				stack[depth] = closer(c)
				depth++
			case '}', ']', ')':
				if depth == 0 || stack[depth-1] != c {
					p.errorf(p.pos, "malformed operand: unexpected %c", c)
					return false
				}
				depth--
			case ';':
				p.errorf(startOff, "malformed operand: %c not closed", open)
				return false
			}
			p.tb = append(p.tb, c)
			if c == ',' {
				p.tb = append(p.tb, ' ')
			}
			if depth == 0 {
				p.prevEnd = p.pos + 1
				p.next()
				return true
			}
		default:
			p.errorf(p.pos, "malformed operand: unexpected %s", p.describe())
			return false
		}
		p.next()
	}
}

func closer(c byte) byte {
	switch c {
	case '{':
		return '}'
	case '[':
		return ']'
	}
	return ')'
}

// modsOf returns the modifiers of the dotted opcode full (first dot at
// dot). Slices are shared by all instructions with the same opcode text and
// must not be modified.
func (p *parser) modsOf(full string, dot, n int) []string {
	if m, ok := p.modsCache[full]; ok {
		return m
	}
	mods := make([]string, n)
	k := 0
	j := dot + 1
	for i := j; i <= len(full); i++ {
		if i == len(full) || full[i] == '.' {
			mods[k] = full[j:i]
			k++
			j = i + 1
		}
	}
	if p.modsCache == nil {
		p.modsCache = make(map[string][]string)
	}
	p.modsCache[full] = mods
	return mods
}

// fillOperands converts the scratch operands into all[:len(p.ops)]. The
// Regs of a single-register operand are a one-element slice shared by every
// operand naming that register (read-only); longer lists are copied.
func (p *parser) fillOperands(all []isa.Operand, text string) {
	multi := 0
	for i := range p.ops {
		if n := p.ops[i].r1 - p.ops[i].r0; n > 1 {
			multi += n
		}
	}
	regs := p.allocStrs(multi)
	k := 0
	for i := range p.ops {
		o := &p.ops[i]
		all[i] = isa.Operand{Kind: o.kind, Text: text[o.start:o.end], Neg: o.neg}
		switch n := o.r1 - o.r0; {
		case n == 1:
			all[i].Regs = p.regSlice(p.regs[o.r0])
		case n > 1:
			r := regs[k : k+n : k+n]
			copy(r, p.regs[o.r0:o.r1])
			all[i].Regs = r
			k += n
		}
	}
}

// regSlice returns the shared one-element slice holding register r.
func (p *parser) regSlice(r string) []string {
	if s, ok := p.regCache[r]; ok {
		return s
	}
	if p.regCache == nil {
		p.regCache = make(map[string][]string)
	}
	s := p.allocStrs(1)
	s[0] = r
	p.regCache[r] = s
	return s
}
