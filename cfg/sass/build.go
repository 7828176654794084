package sass

import (
	"go/token"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// build classifies in and fills its operands from the operand texts.
func (p *parser) build(in *isa.Instr, ops []string, poss []token.Pos, notes []string, opPos token.Pos) {
	op := in.Opcode
	g := p.gen()
	cl := opClasses[op]
	known := cl.known
	if cl.pop != "" || op != "SSY" && in.HasMod("S") {
		p.cur.mayPop = true // see resolveReconv
	}
	parsed := p.operands(len(ops))
	for k, t := range ops {
		p.operand(&parsed[k], t)
	}
	// Notes: CuAssembler/nvdisasm "BRANCH_TARGETS a,b", "TARGET= a", "INDIRECT_CALL".
	var noteTargets []string
	indirectCall := false
	for _, n := range notes {
		switch {
		case strings.HasPrefix(n, "BRANCH_TARGETS"):
			for _, t := range strings.FieldsFunc(n[len("BRANCH_TARGETS"):], func(r rune) bool { return r == ',' || r == ' ' }) {
				noteTargets = append(noteTargets, t)
			}
		case strings.HasPrefix(n, "TARGET="):
			noteTargets = append(noteTargets, strings.Fields(n[len("TARGET="):])...)
		case n == "INDIRECT_CALL":
			indirectCall = true
		default:
			p.warnf(opPos, "annotation (*%q*) ignored", n)
		}
	}

	// Kind.
	targetOp := -1 // operand that names a code address
	condBeyondGuard := false
	switch {
	case cl.mem.kind != 0:
		in.Kind, in.Space = cl.mem.kind, cl.mem.space
	case op == "BRA":
		in.Kind = isa.KindBranch
		targetOp = lastTarget(parsed)
		condBeyondGuard = targetOp >= 0 && branchCondition(in, parsed, targetOp)
	case op == "BRX" || op == "BRXU" || op == "JMX" || op == "JMXU":
		in.Kind = isa.KindIndirectBranch
		if indirectCall {
			in.Kind = isa.KindIndirectCall
		}
	case op == "JMP":
		in.Kind = isa.KindBranch
		targetOp = lastTarget(parsed)
		if targetOp < 0 || readsAddress(parsed) {
			in.Kind, targetOp = isa.KindIndirectBranch, -1
		}
	case op == "CAL" || op == "CALL" || op == "JCAL":
		in.Kind = isa.KindCall
		targetOp = lastTarget(parsed)
		if targetOp < 0 || indirectCall || readsAddress(parsed) {
			// "CALL.REL.NOINC R6 0x0" (cuobjdump) or "CALL.REL.NOINC
			// R6 `(_Z4fptrPiii)" (nvdisasm) calls R6 plus an offset:
			// the immediate or label is not the callee.
			in.Kind, targetOp = isa.KindIndirectCall, -1
		}
	case op == "RET" || op == "RTT":
		in.Kind = isa.KindReturn
	case op == "EXIT" || op == "KIL" || op == "KILL":
		in.Kind = isa.KindExit
	case op == "BPT" && in.HasMod("TRAP"):
		in.Kind = isa.KindExit
	case op == "BAR":
		in.Kind = isa.KindBarrier
		in.Barrier = isa.BarSync
		switch {
		case in.HasMod("RED"):
			in.Barrier = isa.BarRed
		case in.HasMod("ARV"):
			in.Barrier = isa.BarArrive
		case in.HasMod("SYNC") || len(in.Mods) == 0:
		default:
			p.warnf(opPos, "%s: barrier mode not recognised, treated as BAR.SYNC", in.Op())
		}
	case op == "WARPSYNC":
		in.Kind = isa.KindBarrier
		in.Barrier = isa.BarWarpSync
	case cl.push:
		in.Kind = isa.KindReconverge
		targetOp = lastTarget(parsed)
		if targetOp < 0 {
			p.errorf(opPos, "%s needs a target", op)
			in.Opcode = ""
			return
		}
	case cl.pop != "" || cl.other:
		in.Kind = isa.KindReconverge
	case op == "NOP":
		in.Kind = isa.KindNop
	}
	if !known {
		in.Generic = true
		p.warnf(opPos, "unknown opcode %s: parsed with the generic rule (first operand written, the others read)", op)
	}

	// Targets.
	st := p.cur
	if condBeyondGuard {
		// Conditions beyond the guard: "@P0 BRA P1, L" is taken when
		// P0 and P1 hold, BRA.DIV/BRA.CONV when the warp is (not)
		// converged, "BRA CC.NEU, L" on the condition code. The IR's
		// branch condition is its guard alone, so every consumer would
		// read the wrong condition (per-warp resolution on P0 alone, a
		// loop's exit test on P0 alone, a uniform branch where P1
		// varies). It is an indirect branch to the label and, unless
		// guarded (then the guard's fall-through), to the next
		// instruction: a two-way branch whose condition reads every
		// register it uses (warp-uniform for BRA.DIV and BRA.CONV,
		// which read none).
		in.Kind = isa.KindIndirectBranch
	}
	if targetOp >= 0 {
		o := &parsed[targetOp]
		isTarget := in.Kind == isa.KindBranch || in.Kind == isa.KindCall || condBeyondGuard
		if o.Kind == isa.OpImm {
			v, err := strconv.ParseUint(strings.TrimPrefix(o.Text, "0x"), 16, 63)
			if err != nil || !strings.HasPrefix(o.Text, "0x") {
				p.errorf(poss[targetOp], "%s: bad target address %q", op, o.Text)
				in.Opcode = ""
				return
			}
			o.Kind = isa.OpLabel
			if v == 0 && in.Kind == isa.KindCall && (in.HasMod("ABS") || op == "JCAL") {
				// CALL.ABS.NOINC 0x0, JCAL 0x0: an absolute address
				// relocated at link time, which cuobjdump does not
				// print: the callee is unknown.
				o.Kind = isa.OpImm
			} else {
				st.refs = append(st.refs, ref{in: in, off: int64(v), pos: poss[targetOp], target: isTarget, opIdx: targetOp, opText: o.Text})
			}
		} else {
			st.refs = append(st.refs, ref{in: in, label: o.Text, pos: poss[targetOp], target: isTarget, opIdx: targetOp, opText: o.Text})
		}
	}
	if condBeyondGuard && in.Guard.Reg == "" {
		st.refs = append(st.refs, ref{in: in, next: true, pos: opPos, target: true, opIdx: -1})
	}
	if len(noteTargets) > 0 {
		switch {
		case in.Kind == isa.KindIndirectBranch || cl.pop != "":
			for _, t := range noteTargets {
				st.refs = append(st.refs, ref{in: in, label: t, pos: opPos, target: true, opIdx: -1})
			}
		default:
			p.warnf(opPos, "%s: branch-target annotation ignored", in.Op())
		}
	}
	// A negated-true guard never executes: keep it, but say so.
	if in.Guard.Reg == "PT" && in.Guard.Neg && in.Kind.IsTerminator() {
		p.warnf(in.Pos, "%s is guarded by @!PT and never executes", in.Op())
	}

	// Destinations and sources.
	nd := 1
	switch {
	case len(parsed) == 0:
		nd = 0
	case cl.noDst:
		nd = 0
	case cl.twoDst:
		nd = 2
	case cl.mem.space == isa.SpaceTexture && texTwoDst(g, parsed):
		nd = 2
	case cl.carryOut:
		nd = 1
		for nd < len(parsed) {
			o := parsed[nd]
			if isPredOperand(o, ops[nd]) && !o.Neg {
				nd++
				continue
			}
			if nd == 1 && isPredOperand(parsed[0], ops[0]) && o.Kind == isa.OpReg && !isPredOperand(o, ops[nd]) {
				nd++ // SHFL PT, R3, …; ATOM P0, RZ, …; LOP3 P1, RZ, …
				continue
			}
			break
		}
	}
	if in.Kind == isa.KindReconverge && op == "BSSY" {
		nd = 1
	}
	if nd > len(parsed) {
		nd = len(parsed)
	}
	if err := p.widen(in, parsed, nd); err != nil {
		p.errorf(opPos, "%v", err)
		in.Opcode = ""
		return
	}
	if g != genVolta && g != genUnknown {
		// Kepler–Pascal condition code: R2.CC writes CC, .X reads it.
		for k := 0; k < nd; k++ {
			if strings.HasSuffix(ops[k], ".CC") {
				parsed[k].Regs = p.appendReg(parsed[k].Regs, "CC")
			}
		}
	}
	for k := range parsed {
		if targetOp == k && parsed[k].Kind == isa.OpLabel {
			parsed[k].Regs = nil
		}
	}
	in.Dsts = parsed[:nd:nd]
	in.Srcs = parsed[nd:]
	if g != genVolta && g != genUnknown && in.HasMod("X") {
		in.Srcs = append(in.Srcs, isa.Operand{Kind: isa.OpSpecial, Text: "CC", Regs: p.regs1("CC")})
	}
	// A store's memory operand is a source; so is every memory operand.
	for k := 0; k < len(in.Dsts); k++ {
		if in.Dsts[k].Kind == isa.OpMem || in.Dsts[k].Kind == isa.OpImm || in.Dsts[k].Kind == isa.OpLabel {
			// Not a destination after all (e.g. a generic opcode's first operand).
			in.Srcs = append([]isa.Operand{in.Dsts[k]}, in.Srcs...)
			in.Dsts = append(in.Dsts[:k:k], in.Dsts[k+1:]...)
			k--
		}
	}
}

// branchCondition reports whether the BRA in (operands parsed, the target
// at index t) has a condition beyond its guard: a predicate or condition
// code operand other than PT (Volta and later: "BRA P1, L", "BRA !P2, L";
// Kepler to Pascal: "BRA CC.NEU, L"), or the .DIV and .CONV forms (taken
// when the warp is divergent, or converged, over the mask operand ~URZ).
func branchCondition(in *isa.Instr, ops []isa.Operand, t int) bool {
	if in.HasMod("DIV") || in.HasMod("CONV") {
		return true
	}
	for k, o := range ops {
		if k == t {
			continue
		}
		switch {
		case o.Kind == isa.OpSpecial && len(o.Regs) > 0: // CC.NEU
			return true
		case o.Kind == isa.OpReg && len(o.Regs) > 0: // P1, !UP0
			return true
		case o.Kind == isa.OpReg && o.Neg: // !PT: never taken
			return true
		}
	}
	return false
}

func isPredOperand(o isa.Operand, text string) bool {
	if o.Kind != isa.OpReg {
		return false
	}
	t := strings.TrimPrefix(text, "!")
	return isPredName(t) || t == "pt"
}

// lastTarget returns the index of the last operand that can name a code
// address (a label or a hex immediate), or -1.
func lastTarget(ops []isa.Operand) int {
	for k := len(ops) - 1; k >= 0; k-- {
		switch ops[k].Kind {
		case isa.OpLabel:
			return k
		case isa.OpImm:
			if strings.HasPrefix(ops[k].Text, "0x") {
				return k
			}
		case isa.OpSym:
			// maxas and hand-written labels: TARGET1.
			if isLabel(ops[k].Text) {
				ops[k].Kind = isa.OpLabel
				return k
			}
		}
	}
	return -1
}

// readsAddress reports whether a call or jump's operands read a register
// or memory: its target is computed (a function pointer), whatever
// immediate or label follows.
func readsAddress(ops []isa.Operand) bool {
	for _, o := range ops {
		if o.Kind == isa.OpMem || o.Kind == isa.OpReg && len(o.Regs) > 0 {
			return true
		}
	}
	return false
}

// operand classifies one operand text into o, which is zero.
func (p *parser) operand(o *isa.Operand, t string) {
	o.Text = t
	core := t
	for len(core) > 0 && (core[0] == '-' || core[0] == '!' || core[0] == '~' || core[0] == '|' || core[0] == '+') {
		if core[0] == '!' {
			o.Neg = true
		}
		if core[0] == '+' || core[0] == '-' {
			if len(core) > 1 && (core[1] >= '0' && core[1] <= '9' || core[1] == '.' || core[1] == 'I' || core[1] == 'Q' || core[1] == 'N') {
				break // a signed number, +INF, -QNAN
			}
		}
		core = core[1:]
	}
	core = strings.TrimSuffix(core, "|")
	switch {
	case strings.HasPrefix(core, "`(") && strings.HasSuffix(core, ")"):
		o.Kind = isa.OpLabel
		o.Text = core[2 : len(core)-1]
		return
	case strings.HasPrefix(core, "c[") || strings.HasPrefix(core, "cx[") || strings.HasPrefix(core, "desc[") || strings.HasPrefix(core, "["):
		o.Kind = isa.OpMem
		p.regs = memRegs(core, p.regs[:0])
		o.Regs = p.copyStrings(p.regs)
		return
	case isNumber(core):
		o.Kind = isa.OpImm
		return
	case strings.HasPrefix(core, "SR_") || core == "SRZ":
		o.Kind = isa.OpSpecial
		if core != "SRZ" {
			o.Regs = p.regs1(core)
		}
		return
	case strings.HasPrefix(core, "CC.") || core == "CC":
		o.Kind = isa.OpSpecial
		o.Regs = p.regs1("CC")
		return
	}
	name := core
	if d := strings.IndexByte(name, '.'); d >= 0 {
		name = name[:d]
	}
	if name == "pt" {
		name = "PT"
	}
	if isRegName(name) {
		o.Kind = isa.OpReg
		if !isZeroReg(name) {
			o.Regs = p.regs1(name)
		}
		return
	}
	if strings.HasPrefix(name, "SB") && len(name) == 3 && name[2] >= '0' && name[2] <= '5' {
		o.Kind = isa.OpSpecial // scoreboard of DEPBAR
		return
	}
	o.Kind = isa.OpSym
}

func isZeroReg(s string) bool { return s == "RZ" || s == "URZ" || s == "PT" || s == "UPT" }

// isRegName reports whether s names a register: R0–R255, RZ, UR0–UR63,
// URZ, P0–P6, PT, UP0–UP6, UPT, B0–B15 (convergence barriers), PR.
func isRegName(s string) bool {
	switch s {
	case "RZ", "URZ", "PT", "UPT", "PR", "UPR":
		return true
	}
	digits := func(d string, max int) bool {
		if d == "" || len(d) > 3 || len(d) > 1 && d[0] == '0' {
			return false
		}
		n := 0
		for k := 0; k < len(d); k++ {
			if d[k] < '0' || d[k] > '9' {
				return false
			}
			n = n*10 + int(d[k]-'0')
		}
		return n <= max
	}
	switch {
	case strings.HasPrefix(s, "UR"):
		return digits(s[2:], 63)
	case strings.HasPrefix(s, "UP"):
		return digits(s[2:], 6)
	case strings.HasPrefix(s, "R"):
		return digits(s[1:], 255)
	case strings.HasPrefix(s, "P"):
		return digits(s[1:], 6)
	case strings.HasPrefix(s, "B"):
		return digits(s[1:], 15)
	}
	return false
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	switch s {
	case "+INF", "-INF", "INF", "+QNAN", "-QNAN", "QNAN", "NAN", "+NAN", "-NAN":
		return true
	}
	if strings.Contains(s, "@lo(") || strings.Contains(s, "@hi(") {
		return true // relocation: 32@lo(sym)
	}
	k := 0
	if s[0] == '-' || s[0] == '+' {
		k = 1
	}
	if k >= len(s) || !(s[k] >= '0' && s[k] <= '9' || s[k] == '.') {
		return false
	}
	if strings.HasPrefix(s[k:], "0x") {
		for _, c := range []byte(s[k+2:]) {
			if !isHex(c) {
				return false
			}
		}
		return len(s) > k+2
	}
	if _, err := strconv.ParseFloat(s[k:], 64); err == nil {
		return true
	}
	return false
}

// memRegs appends to regs the registers inside a memory or constant-bank
// operand: [R2+0x4] → R2; [R2.64] → R2 R3; desc[UR4][R2.64] → UR4 UR5 R2 R3.
func memRegs(t string, regs []string) []string {
	desc := strings.HasPrefix(t, "desc[")
	for k := 0; k < len(t); {
		c := t[k]
		if c == 'R' || c == 'U' {
			e := k
			for e < len(t) && (t[e] >= 'A' && t[e] <= 'Z' || t[e] >= '0' && t[e] <= '9') {
				e++
			}
			name := t[k:e]
			if isRegName(name) && !isZeroReg(name) && (k == 0 || !isIdent(t[k-1])) {
				wide := strings.HasPrefix(t[e:], ".64") || desc && strings.HasPrefix(name, "UR") && strings.HasPrefix(t, "desc["+name+"]")
				regs = appendUniq(regs, name)
				if wide {
					regs = appendUniq(regs, nextReg(name, 1))
				}
			}
			k = e
			continue
		}
		k++
	}
	return regs
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

func appendUniq(s []string, r string) []string {
	for _, x := range s {
		if x == r {
			return s
		}
	}
	return append(s, r)
}

// nextReg returns the register n after r: R2+1 = R3, UR4+1 = UR5.
func nextReg(r string, n int) string {
	k := 0
	for k < len(r) && (r[k] < '0' || r[k] > '9') {
		k++
	}
	v, _ := strconv.Atoi(r[k:])
	if w := v + n; w >= 0 {
		switch {
		case r[:k] == "R" && w < len(rNames):
			return rNames[w]
		case r[:k] == "UR" && w < len(urNames):
			return urNames[w]
		}
	}
	return r[:k] + strconv.Itoa(v+n)
}

// appendReg returns regs plus r in a new slab slice.
func (p *parser) appendReg(regs []string, r string) []string {
	s := p.strSlice(len(regs) + 1)
	copy(s, regs)
	s[len(regs)] = r
	return s
}
