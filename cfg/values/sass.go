package values

import (
	"math"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// SASS decoding (docs/model.md, Values). Registers R and UR are 32 bits,
// predicates P and UP one bit; RZ/URZ read 0, PT/UPT read true. A 64-bit
// value lives in a register pair (Rn, Rn+1), low word first. Operand
// modifiers: -x (arithmetic negation; in a carry chain, ~x + 1), ~x
// (bitwise complement), !P (predicate negation), |x| (absolute value),
// .H0/.H1 (16-bit halves), .reuse (ignored). A constant-bank operand
// c[b][o] is an input (InConst) that the value analysis maps to launch
// dimensions and kernel arguments by the architecture's layout.

// sop is a decoded SASS operand.
type sop struct {
	kind            sopKind
	reg             string // register name
	neg, inv, abs   bool   // -x, ~x, |x|
	not             bool   // !P
	half            int    // 0 none, 1 .H0, 2 .H1
	imm             uint64
	float           bool // the immediate is a float
	f               float64
	bank            int
	off             int64
	pair            bool // a .64 register operand
	regs            []string
	text            string
	constBankRegIdx string // c[b][Rn]: not supported
}

type sopKind uint8

const (
	sBad sopKind = iota
	sReg
	sImm
	sConst
	sSpecial
)

func isPredName(r string) bool {
	return strings.HasPrefix(r, "P") || strings.HasPrefix(r, "UP")
}

// readSop parses an operand as the SASS parser left it.
func readSop(o isa.Operand) sop {
	t := strings.TrimSpace(o.Text)
	s := sop{text: t, regs: o.Regs}
	if o.Neg {
		s.not = true
	}
	for len(t) > 0 {
		switch t[0] {
		case '-':
			s.neg = !s.neg
			t = t[1:]
			continue
		case '~':
			s.inv = !s.inv
			t = t[1:]
			continue
		case '!':
			s.not = true
			t = t[1:]
			continue
		case '+':
			t = t[1:]
			continue
		}
		break
	}
	if strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|") && len(t) > 2 {
		s.abs = true
		t = t[1 : len(t)-1]
	}
	// Suffixes.
	for {
		switch {
		case strings.HasSuffix(t, ".reuse"):
			t = strings.TrimSuffix(t, ".reuse")
			continue
		case strings.HasSuffix(t, ".H0"):
			s.half, t = 1, strings.TrimSuffix(t, ".H0")
			continue
		case strings.HasSuffix(t, ".H1"):
			s.half, t = 2, strings.TrimSuffix(t, ".H1")
			continue
		case strings.HasSuffix(t, ".64"):
			s.pair, t = true, strings.TrimSuffix(t, ".64")
			continue
		}
		break
	}
	if strings.EqualFold(t, "SRZ") {
		// The zero special register (CS2R Rd, SRZ).
		s.kind, s.imm = sImm, 0
		return s
	}
	switch o.Kind {
	case isa.OpImm:
		if v, ok := parseInt(t); ok {
			s.kind, s.imm = sImm, v
			if s.neg {
				s.imm, s.neg = -s.imm, false
			}
			return s
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			s.kind, s.float, s.f = sImm, true, f
			if s.neg {
				s.f, s.neg = -s.f, false
			}
			return s
		}
		switch strings.ToUpper(t) {
		case "+INF", "INF":
			s.kind, s.float, s.f = sImm, true, math.Inf(1)
		case "-INF":
			s.kind, s.float, s.f = sImm, true, math.Inf(-1)
		}
		return s
	case isa.OpSpecial:
		s.kind, s.reg = sSpecial, strings.ToUpper(t)
		return s
	case isa.OpMem:
		if strings.HasPrefix(t, "c[") {
			// c[0x0][0x160], c[0x0] [0x8]
			parts := strings.SplitN(strings.ReplaceAll(t[1:], " ", ""), "][", 2)
			if len(parts) != 2 {
				return s
			}
			b, ok1 := parseInt(strings.TrimPrefix(parts[0], "["))
			offText := strings.TrimSuffix(parts[1], "]")
			if offText == "RZ" || offText == "URZ" {
				offText = "0"
			}
			off, ok2 := parseInt(offText)
			if !ok1 || !ok2 {
				s.constBankRegIdx = offText
				return s
			}
			s.kind, s.bank, s.off = sConst, int(b), int64(off)
		}
		return s
	case isa.OpReg:
		switch strings.ToUpper(t) {
		case "RZ", "URZ", "SRZ":
			s.kind, s.imm = sImm, 0
			return s
		case "PT", "UPT":
			s.kind, s.imm = sImm, 1
			if s.not {
				s.imm, s.not = 0, false
			}
			return s
		}
		if len(o.Regs) >= 1 {
			s.kind, s.reg = sReg, o.Regs[0]
			if strings.HasPrefix(strings.ToUpper(s.reg), "SR_") {
				s.kind = sSpecial
				s.reg = strings.ToUpper(s.reg)
			}
		}
	}
	return s
}

// sassDec decodes one SASS instruction.
type sassDec struct {
	builder
	in   *isa.Instr
	mods map[string]bool
	// pre70: the code is for an architecture before Volta (sm_5x,
	// sm_6x), whose CS2R writes one 32-bit register.
	pre70 bool
}

// DecodeSASS decodes a SASS instruction (Volta and later forms, and the
// common Maxwell/Pascal ones). Instructions it does not model write
// opaque values to every register they define.
func DecodeSASS(in *isa.Instr) *Sem {
	return DecodeSASSArch(in, 0)
}

// DecodeSASSArch is DecodeSASS for the architecture arch (70 for sm_70; 0
// when not known, read as Volta or later). Before Volta (Maxwell, Pascal)
// CS2R Rd, SR_GLOBALTIMERLO reads one 32-bit word into Rd, not the whole
// counter into the pair Rd:Rd+1.
func DecodeSASSArch(in *isa.Instr, arch int) *Sem {
	if n := len(in.Srcs); n > 0 && in.Srcs[n-1].Kind == isa.OpSpecial && in.Srcs[n-1].Text == "CC" {
		// Kepler–Pascal .X: the parser lists the condition code it reads
		// as a last source; the decoders read CC themselves.
		c := *in
		c.Srcs = in.Srcs[:n-1]
		in = &c
	}
	d := &sassDec{builder: builder{s: &Sem{}}, in: in, mods: map[string]bool{}, pre70: arch > 0 && arch < 70}
	for _, m := range in.Mods {
		d.mods[m] = true
	}
	d.decode()
	d.flags()
	return d.finish()
}

// flags makes the condition code an instruction writes without modelling
// it unknown: CC when it is a destination, and the zero and overflow flags
// whenever CC is written (so that ISETP.X never reads a zero flag, nor
// IADD3.X an overflow flag, older than CC).
func (d *sassDec) flags() {
	cc, z, of, ord := false, false, false, false
	for _, o := range d.s.Outs {
		cc = cc || o.Kind == OutReg && o.Name == "CC"
		z = z || o.Kind == OutReg && o.Name == zeroFlag
		of = of || o.Kind == OutReg && o.Name == overflowFlag
		ord = ord || o.Kind == OutReg && o.Name == orderFlag
	}
	defer func() {
		if cc && !ord {
			d.s.Outs = append(d.s.Outs, Out{Kind: OutReg, Name: orderFlag, W: 1, Node: -1})
		}
	}()
	if !cc {
		for _, r := range d.in.Defs() {
			if r == "CC" {
				d.s.Outs = append(d.s.Outs, Out{Kind: OutReg, Name: "CC", W: 1, Node: -1})
				cc = true
				if d.s.Opaque == "" {
					d.s.Opaque = "the condition code of " + d.in.Op()
				}
			}
		}
	}
	if cc && !z {
		d.s.Outs = append(d.s.Outs, Out{Kind: OutReg, Name: zeroFlag, W: 1, Node: -1})
		if d.s.Opaque == "" {
			d.s.Opaque = "the zero flag of " + d.in.Op()
		}
	}
	if cc && !of {
		d.s.Outs = append(d.s.Outs, Out{Kind: OutReg, Name: overflowFlag, W: 1, Node: -1})
		if d.s.Opaque == "" {
			d.s.Opaque = "the overflow flag of " + d.in.Op()
		}
	}
}

func (d *sassDec) opaque(why string) {
	d.s.Ins, d.s.Nodes = nil, nil
	d.s.Outs = d.s.Outs[:0]
	d.bad = ""
	for _, r := range d.in.Defs() {
		d.s.Outs = append(d.s.Outs, Out{Kind: OutReg, Name: r, W: regW(r), Node: -1})
	}
	d.s.Opaque = why
}

// isTruePred reports whether o is the true predicate (PT, UPT).
func isTruePred(o isa.Operand) bool {
	return o.Kind == isa.OpReg && !o.Neg && (o.Text == "PT" || o.Text == "UPT")
}

func regW(r string) uint8 {
	if isPredName(r) {
		return 1
	}
	return 32
}

// val reads operand o as a w-bit value (32 or 64; 1 for predicates),
// applying -x and ~x unless raw is set.
func (d *sassDec) val(o isa.Operand, w int) int32 {
	return d.sopVal(readSop(o), w, false)
}

func (d *sassDec) sopVal(s sop, w int, raw bool) int32 {
	var x int32
	switch s.kind {
	case sImm:
		if s.float {
			return d.fail("float immediate %s", s.text)
		}
		x = d.konst(w, s.imm)
	case sConst:
		x = d.input(In{Kind: InConst, Bank: s.bank, Off: s.off, W: uint8(w)})
	case sSpecial:
		info, ok := CanonSpecial(s.reg)
		if !ok {
			return d.fail("special register %s", s.reg)
		}
		x = d.resize(d.input(In{Kind: InSpecial, Name: info.Name, W: uint8(info.W)}), w, false)
	case sReg:
		if isPredName(s.reg) {
			x = d.input(In{Kind: InReg, Name: s.reg, W: 1})
			if s.not {
				x = d.node(Not, 1, x)
			}
			return d.resize(x, w, false)
		}
		if w == 64 {
			if len(s.regs) == 2 {
				lo := d.input(In{Kind: InReg, Name: s.regs[0], W: 32})
				hi := d.input(In{Kind: InReg, Name: s.regs[1], W: 32})
				x = d.pair(lo, hi)
			} else if nr, ok := nextReg(s.reg); ok {
				lo := d.input(In{Kind: InReg, Name: s.reg, W: 32})
				hi := d.input(In{Kind: InReg, Name: nr, W: 32})
				x = d.pair(lo, hi)
			} else {
				return d.fail("register pair %s", s.text)
			}
		} else {
			x = d.input(In{Kind: InReg, Name: s.reg, W: 32})
		}
	default:
		return d.fail("operand %s", s.text)
	}
	if s.half != 0 {
		if w != 32 {
			return d.fail("half of %s", s.text)
		}
		if s.half == 2 {
			x = d.node(LShr, 32, x, d.konst(32, 16))
		}
		x = d.node(ZExt, 32, d.node(Trunc, 16, x))
	}
	if raw {
		return x
	}
	if s.abs {
		x = d.node(Select, w, d.node(SLt, 1, x, d.konst(w, 0)), d.node(Neg, w, x), x)
	}
	if s.inv {
		x = d.node(Not, w, x)
	}
	if s.neg {
		x = d.node(Neg, w, x)
	}
	return x
}

// pair joins two 32-bit nodes into a 64-bit value.
func (b *builder) pair(lo, hi int32) int32 {
	return b.node(Or, 64, b.node(ZExt, 64, lo), b.node(Shl, 64, b.node(ZExt, 64, hi), b.konst(32, 32)))
}

// nextReg returns the register after r (R4 -> R5, UR6 -> UR7).
func nextReg(r string) (string, bool) {
	i := len(r)
	for i > 0 && r[i-1] >= '0' && r[i-1] <= '9' {
		i--
	}
	if i == len(r) || i == 0 {
		return "", false
	}
	n, err := strconv.Atoi(r[i:])
	if err != nil {
		return "", false
	}
	p := r[:i]
	if p != "R" && p != "UR" {
		return "", false
	}
	return p + strconv.Itoa(n+1), true
}

// dstReg returns the register written by destination i ("" for RZ, PT or
// a sink), and whether it is a register at all.
func (d *sassDec) dstReg(i int) (string, bool) {
	if i >= len(d.in.Dsts) {
		return "", false
	}
	o := d.in.Dsts[i]
	if o.Kind != isa.OpReg {
		return "", false
	}
	switch strings.ToUpper(strings.TrimSuffix(strings.TrimSpace(o.Text), ".CC")) {
	case "RZ", "URZ", "PT", "UPT":
		return "", true
	}
	if len(o.Regs) == 0 {
		return "", false
	}
	return o.Regs[0], true
}

// write writes a 32-bit (or 1-bit) value to destination i.
func (d *sassDec) write(i int, n int32) bool {
	r, ok := d.dstReg(i)
	if !ok {
		d.opaque(d.in.Op() + ": unexpected destination")
		return false
	}
	if r != "" {
		d.out(r, int(regW(r)), d.resize(n, int(regW(r)), false))
	}
	return true
}

// writePair writes a 64-bit value to the pair starting at destination i.
func (d *sassDec) writePair(i int, n int32) bool {
	r, ok := d.dstReg(i)
	if !ok {
		d.opaque(d.in.Op() + ": unexpected destination")
		return false
	}
	if r == "" {
		return true
	}
	hi, ok := nextReg(r)
	if !ok {
		d.opaque(d.in.Op() + ": no register pair")
		return false
	}
	d.out(r, 32, d.node(Trunc, 32, n))
	d.out(hi, 32, d.node(Trunc, 32, d.node(LShr, 64, n, d.konst(32, 32))))
	return true
}

func (d *sassDec) srcs() []isa.Operand { return d.in.Srcs }

func (d *sassDec) decode() {
	in := d.in
	op := strings.TrimPrefix(in.Opcode, "U") // UIADD3, UMOV, ULOP3... as their vector forms
	if in.Opcode == "UMOV" || in.Opcode == "ULDC" {
		op = in.Opcode
	}
	switch in.Kind {
	case isa.KindLoad:
		d.load()
		return
	case isa.KindStore:
		d.store()
		return
	case isa.KindAtomic:
		d.opaque("atomic " + in.Op())
		return
	case isa.KindOther:
	default:
		if len(in.Defs()) > 0 {
			d.opaque(in.Op() + " is not an integer operation")
		}
		return
	}
	if in.Generic {
		d.opaque("unknown opcode " + in.Op())
		return
	}
	ss := in.Srcs
	switch op {
	case "MOV", "MOV32I", "UMOV", "R2UR":
		if len(ss) < 1 || len(ss) > 2 {
			d.opaque(in.Op())
			return
		}
		d.write(0, d.val(ss[0], 32))
	case "S2R", "CS2R", "S2UR":
		if len(ss) != 1 {
			d.opaque(in.Op())
			return
		}
		s := readSop(ss[0])
		if op == "CS2R" && (d.mods["32"] || !d.mods["64"] && len(in.Mods) == 0) {
			// CS2R Rd, SRZ zeroes a pair; CS2R.32 reads 32 bits.
		}
		if op == "CS2R" && !d.mods["32"] && !d.pre70 {
			if s.kind == sImm {
				d.writePair(0, d.konst(64, 0))
				return
			}
			info, ok := CanonSpecial(s.reg)
			if !ok {
				d.opaque("special register " + s.reg)
				return
			}
			if info.W == 64 {
				d.writePair(0, d.input(In{Kind: InSpecial, Name: info.Name, W: 64}))
				return
			}
			// CS2R Rd, SR_CLOCKLO and SR_GLOBALTIMERLO read the whole
			// 64-bit counter into the pair (Volta and later).
			if info.Name == "clock" {
				d.writePair(0, d.input(In{Kind: InSpecial, Name: "clock64", W: 64}))
				return
			}
			if info.Name == "globaltimer_lo" {
				d.writePair(0, d.input(In{Kind: InSpecial, Name: "globaltimer", W: 64}))
				return
			}
			d.opaque(in.Op())
			return
		}
		d.write(0, d.sopVal(s, 32, false))
	case "VOTE", "VOTEU":
		// VOTE.ANY Rd, PT, PT: the ballot of true, the mask of the lanes
		// executing it: one value per execution of its block
		// (InSpecial "activemask", ssa.go; docs/model.md, "The active
		// mask"). Other votes (another predicate, a predicate result, a
		// guard: the ballot of the lanes it leaves) are not modelled.
		if len(in.Mods) != 1 || in.Mods[0] != "ANY" || len(in.Dsts) != 2 || len(ss) != 1 || in.Guard.Reg != "" ||
			!isTruePred(ss[0]) || !isTruePred(in.Dsts[1]) || in.Dsts[0].Kind != isa.OpReg {
			d.opaque(in.Op() + " other than the ballot of true (VOTE.ANY Rd, PT, PT)")
			return
		}
		d.write(0, d.input(In{Kind: InSpecial, Name: ActiveMask, W: 32}))
	case "IMAD":
		d.imad()
	case "IADD3":
		d.iadd3()
	case "VIADD":
		if len(ss) != 2 || len(in.Mods) > 0 {
			d.opaque(in.Op())
			return
		}
		d.write(0, d.node(Add, 32, d.val(ss[0], 32), d.val(ss[1], 32)))
	case "IADD32I":
		d.iaddOld()
	case "LEA":
		d.lea()
	case "LOP3":
		d.lop3i()
	case "SHF":
		d.shfSASS()
	case "ISETP":
		d.isetp()
	case "PSETP":
		d.psetp()
	case "I2I":
		d.i2i()
	case "PLOP3":
		d.plop3()
	case "SEL", "FSEL":
		if len(ss) != 3 {
			d.opaque(in.Op())
			return
		}
		for _, o := range ss[:2] {
			if s := readSop(o); op == "FSEL" && (s.neg || s.abs || s.float) {
				d.opaque("FSEL with a float operand modifier")
				return
			}
		}
		d.write(0, d.node(Select, 32, d.val(ss[2], 1), d.val(ss[0], 32), d.val(ss[1], 32)))
	case "IMNMX", "VIMNMX":
		d.imnmx()
	case "IABS":
		if len(ss) != 1 {
			d.opaque(in.Op())
			return
		}
		a := d.val(ss[0], 32)
		d.write(0, d.node(Select, 32, d.node(SLt, 1, a, d.konst(32, 0)), d.node(Neg, 32, a), a))
	case "POPC":
		if len(ss) != 1 {
			d.opaque(in.Op())
			return
		}
		d.write(0, d.node(Popc, 32, d.val(ss[0], 32)))
	case "BREV":
		if len(ss) != 1 {
			d.opaque(in.Op())
			return
		}
		d.write(0, d.node(Brev, 32, d.val(ss[0], 32)))
	case "FLO":
		if len(ss) != 1 || !d.mods["U32"] || len(in.Mods) != 1 {
			d.opaque(in.Op())
			return
		}
		// The index of the most significant one, 0xffffffff for 0.
		d.write(0, d.node(Sub, 32, d.konst(32, 31), d.node(Clz, 32, d.val(ss[0], 32))))
	case "PRMT":
		if len(ss) != 3 || len(in.Mods) != 0 || ss[1].Kind != isa.OpImm {
			d.opaque("PRMT with a mode or a register selector")
			return
		}
		sel, _ := parseInt(ss[1].Text)
		d.write(0, d.prmtSel(sel, d.val(ss[0], 32), d.val(ss[2], 32)))
	case "HFMA2":
		d.hfma2Const()
	case "R2P":
		d.r2p()
	case "P2R":
		d.p2r()
	case "SHL", "SHR":
		d.shiftOld(op)
	case "IADD":
		d.iaddOld()
	case "XMAD":
		d.xmad()
	case "IMUL", "IMUL32I":
		d.imulOld()
	case "LOP", "LOP32I":
		d.lopOld()
	case "BFE":
		d.bfeOld()
	case "ISCADD":
		if len(ss) != 3 || len(in.Mods) != 0 || len(in.Dsts) != 1 || ss[2].Kind != isa.OpImm {
			d.opaque(in.Op())
			return
		}
		k, _ := parseInt(ss[2].Text)
		sum := d.node(Add, 33, d.resize(d.node(Shl, 32, d.val(ss[0], 32), d.konst(32, k&31)), 33, false), d.resize(d.val(ss[1], 32), 33, false))
		d.write(0, d.node(Trunc, 32, sum))
		if strings.HasSuffix(strings.TrimSpace(in.Dsts[0].Text), ".CC") {
			d.out("CC", 1, d.node(Trunc, 1, d.node(LShr, 33, sum, d.konst(32, 32))))
		}
	case "ULDC":
		d.constLoad()
	case "I2F", "MUFU", "F2I":
		d.floatOperand()
	default:
		if len(in.Defs()) > 0 {
			d.opaque(in.Op() + " is not modelled")
		}
	}
}

// floatOperand leaves the result of a float conversion or a MUFU
// function not modelled but keeps its operand as the instruction's one
// input (Func.Inputs), for the recognition of ptxas's division by the
// reciprocal (divide.go), which checks the instructions' modifiers.
func (d *sassDec) floatOperand() {
	in, ss := d.in, d.in.Srcs
	why := in.Op() + " is not modelled"
	if len(ss) != 1 || len(in.Dsts) != 1 {
		d.opaque(why)
		return
	}
	s := readSop(ss[0])
	if s.kind != sReg && s.kind != sConst || s.neg || s.inv || s.abs || s.half != 0 || isPredName(s.reg) {
		d.opaque(why)
		return
	}
	r, ok := d.dstReg(0)
	if !ok || r == "" || isPredName(r) {
		d.opaque(why)
		return
	}
	d.val(ss[0], 32)
	d.s.Outs = append(d.s.Outs[:0], Out{Kind: OutReg, Name: r, W: 32, Node: -1})
	d.s.Opaque = why
}

// prmtSel is the byte permutation of b:a by an immediate selector.
func (b *builder) prmtSel(c uint64, x, y int32) int32 {
	pair := b.pair(x, y)
	var acc int32 = -1
	for i := 0; i < 4; i++ {
		sel := c >> (4 * i) & 0xf
		byt := b.node(Trunc, 8, b.node(LShr, 64, pair, b.konst(32, 8*(sel&7))))
		if sel&8 != 0 {
			byt = b.node(AShr, 8, byt, b.konst(32, 7))
		}
		v := b.node(Shl, 32, b.node(ZExt, 32, byt), b.konst(32, uint64(8*i)))
		if acc < 0 {
			acc = v
		} else {
			acc = b.node(Or, 32, acc, v)
		}
	}
	return acc
}

// imad: IMAD[.MOV|.IADD|.SHL][.U32] d, a, b, c = a*b + c;
// IMAD.HI[.U32] d, a, b, c = hi(a*b) + c; IMAD.WIDE[.U32] d:d+1 = a*b + c:c+1;
// IMAD.X d, a, b, c, P = a*b + c + P.
func (d *sassDec) imad() {
	in, ss := d.in, d.in.Srcs
	m := d.mods
	for k := range m {
		switch k {
		case "MOV", "IADD", "SHL", "U32", "HI", "WIDE", "X":
		default:
			d.opaque(in.Op())
			return
		}
	}
	nd := 1
	carryOut := ""
	if len(in.Dsts) == 2 {
		r, ok := d.dstReg(1)
		if !ok || r != "" && !isPredName(r) {
			d.opaque(in.Op())
			return
		}
		carryOut = r
		nd = 2
	}
	if len(in.Dsts) > nd {
		d.opaque(in.Op())
		return
	}
	signed := !m["U32"]
	switch {
	case m["WIDE"]:
		if len(ss) != 3 || m["HI"] || m["X"] || carryOut != "" && signed {
			d.opaque(in.Op())
			return
		}
		a := d.resize(d.val(ss[0], 32), 64, signed)
		b := d.resize(d.val(ss[1], 32), 64, signed)
		c := d.val(ss[2], 64)
		sum := d.node(Add, 64, d.node(Mul, 64, a, b), c)
		d.writePair(0, sum)
		if carryOut != "" {
			// IMAD.WIDE.U32 d, P, a, b, c: P the carry out of the 64-bit
			// sum (a·b < 2^64, so it carried exactly when sum <u c).
			d.out(carryOut, 1, d.node(ULt, 1, sum, c))
		}
	case m["HI"]:
		if len(ss) != 3 || m["X"] || carryOut != "" {
			d.opaque(in.Op())
			return
		}
		sc := readSop(ss[2])
		if sc.kind == sImm && sc.imm == 0 && !sc.float {
			code := MulHiS
			if !signed {
				code = MulHiU
			}
			d.write(0, d.node(code, 32, d.val(ss[0], 32), d.val(ss[1], 32)))
			return
		}
		// The addend of IMAD.HI is 64 bits wide: the register pair c,
		// c+1 (c the low word), added to the 64-bit product before its
		// high word is taken. ptxas writes the Newton step of its
		// division as IMAD.HI.U32 e', e, t, c with c = 0 and c+1 = e:
		// e + hi(e·t) (docs/model.md, "Division by the reciprocal").
		if sc.kind != sReg || sc.neg || sc.inv || sc.abs || sc.half != 0 || isPredName(sc.reg) {
			d.opaque(in.Op() + " with an addend that is not a register pair")
			return
		}
		a := d.resize(d.val(ss[0], 32), 64, signed)
		b := d.resize(d.val(ss[1], 32), 64, signed)
		sum := d.node(Add, 64, d.node(Mul, 64, a, b), d.val(ss[2], 64))
		d.write(0, d.node(Trunc, 32, d.node(LShr, 64, sum, d.konst(32, 32))))
	default:
		want := 3
		if m["X"] {
			want = 4
		}
		if len(ss) != want {
			d.opaque(in.Op())
			return
		}
		p := d.node(Mul, 33, d.resize(d.val(ss[0], 32), 33, false), d.resize(d.val(ss[1], 32), 33, false))
		// The carry out of a*b + c is that of the low 32 bits of the
		// product plus c.
		p = d.node(ZExt, 33, d.node(Trunc, 32, p))
		s := d.node(Add, 33, p, d.resize(d.val(ss[2], 32), 33, false))
		if m["X"] {
			s = d.node(Add, 33, s, d.resize(d.val(ss[3], 1), 33, false))
		}
		d.write(0, d.node(Trunc, 32, s))
		if carryOut != "" {
			d.out(carryOut, 1, d.node(Trunc, 1, d.node(LShr, 33, s, d.konst(32, 32))))
		}
	}
}

// iadd3: IADD3 d[, P0[, P1]], a, b, c: d = a + b + c;
// IADD3.X d[, P0], a, b, c, Pin0, Pin1: d = a + b + c + Pin0 + Pin1.
// Maxwell/Pascal write and read the two carries in the condition code:
// IADD3 d.CC, a, b, c writes CC (CC.CF) and CC.OF; IADD3.X d, a, b, c
// adds both ("both CF.OF & CF.CC are two separate carry inputs").
//
// In a non-.X sum, -x adds ~x + 1, so that the carries are those of the
// two's-complement subtraction (the ISA allows no negation of both a and
// b). In a Maxwell/Pascal .X sum -x adds ~x (the high word of a
// subtraction, as IADD.X: "Ra + ~Sb + Carry"); a negated operand of the
// Volta .X form is not modelled (ptxas prints ~x there).
//
// The two carries of a three-operand sum count how often it wraps: their
// sum is bit 33:32 of the 34-bit total, what IADD3.X adds back to the
// high words (a 64-bit a + b + c, a - b + c: TestIADD3PairsAgainstPTX).
// Individually they are read as the manual's order ((a + b) + c): the
// first is the carry of a + b, the second that of the low word of a + b
// plus c. A lone carry out of a three-operand sum is not modelled.
func (d *sassDec) iadd3() {
	in := d.in
	ss := in.Srcs
	if len(ss) == 5 && !d.mods["X"] && isTrue(ss[0]) && isTrue(ss[1]) {
		ss = ss[2:] // CUDA 13: IADD3 d, PT, PT, a, b, c
	}
	x := d.mods["X"]
	if d.mods["RS"] && len(in.Mods) == 1 {
		d.iadd3Shift()
		return
	}
	if len(in.Mods) > 1 || len(in.Mods) == 1 && !x {
		d.opaque(in.Op())
		return
	}
	// Maxwell/Pascal: the carries in the condition code.
	ccOut := len(in.Dsts) == 1 && strings.HasSuffix(strings.TrimSpace(in.Dsts[0].Text), ".CC")
	ccIn := x && len(ss) == 3
	want := 3
	if x && !ccIn {
		want = 5
	}
	if len(ss) != want {
		d.opaque(in.Op())
		return
	}
	// Carry-out predicates.
	var carries []string
	for i := 1; i < len(in.Dsts); i++ {
		r, ok := d.dstReg(i)
		if !ok || r != "" && !isPredName(r) {
			d.opaque(in.Op())
			return
		}
		carries = append(carries, r)
	}
	var terms [3]int32
	negs := 0
	for k, o := range ss[:3] {
		s := readSop(o)
		if d.pre70 && s.kind == sImm && !s.float && s.imm < 1<<20 && s.imm&(1<<19) != 0 {
			// Maxwell/Pascal IADD3 takes a 20-bit immediate, sign
			// extended; cuobjdump prints its field (0xffffe: -2).
			s.imm |= 0xfff00000
		}
		switch {
		case s.neg && x && !ccIn:
			d.opaque("IADD3.X with a negated operand")
			return
		case s.neg && x:
			s.neg, s.inv = false, !s.inv
			terms[k] = d.resize(d.sopVal(s, 32, false), 34, false)
		case s.neg:
			s.neg, s.inv = false, !s.inv
			terms[k] = d.node(Add, 34, d.resize(d.sopVal(s, 32, false), 34, false), d.konst(34, 1))
			if k < 2 {
				negs++
			}
		default:
			terms[k] = d.resize(d.sopVal(s, 32, false), 34, false)
		}
	}
	if x && !ccIn {
		for _, o := range ss[3:] {
			terms[2] = d.node(Add, 34, terms[2], d.resize(d.val(o, 1), 34, false))
		}
	}
	if ccIn {
		for _, f := range []string{"CC", overflowFlag} {
			terms[2] = d.node(Add, 34, terms[2], d.resize(d.input(In{Kind: InReg, Name: f, W: 1}), 34, false))
		}
	}
	two := !x && negs < 2 && (len(carries) == 2 || ccOut)
	if !two {
		sum := d.node(Add, 34, d.node(Add, 34, terms[0], terms[1]), terms[2])
		d.write(0, d.node(Trunc, 32, sum))
		for i, p := range carries {
			if p == "" {
				continue
			}
			if i > 0 {
				d.out(p, 1, -1) // the second carry of an .X sum: not modelled
				d.s.Opaque = "the second carry of IADD3"
				continue
			}
			// The carry out of the 32-bit sum (at most one when the third
			// operand is zero; two carries otherwise are not modelled).
			if s := readSop(ss[2]); !(s.kind == sImm && s.imm == 0 && !s.neg && !s.inv) {
				d.out(p, 1, -1)
				d.s.Opaque = "the carry of a three-operand IADD3"
				continue
			}
			d.out(p, 1, d.node(Trunc, 1, d.node(LShr, 34, sum, d.konst(32, 32))))
		}
		return
	}
	// Two carries: (a + b) + c, each step below 2^33.
	s1 := d.node(Add, 34, terms[0], terms[1])
	lo1 := d.node(Trunc, 32, s1)
	s2 := d.node(Add, 34, d.resize(lo1, 34, false), terms[2])
	d.write(0, d.node(Trunc, 32, s2))
	c0 := d.node(Trunc, 1, d.node(LShr, 34, s1, d.konst(32, 32)))
	c1 := d.node(Trunc, 1, d.node(LShr, 34, s2, d.konst(32, 32)))
	if ccOut {
		d.out("CC", 1, c0)
		d.out(overflowFlag, 1, c1)
		return
	}
	for i, p := range carries {
		if p != "" {
			d.out(p, 1, []int32{c0, c1}[i])
		}
	}
}

// iadd3Shift: Maxwell/Pascal IADD3.RS d, a, b, c = ((a + b) >> 16) + c, a + b
// without wrapping (the high word of ptxas's XMAD expansion of mul.hi.u32
// and of 64-bit products: TestIADD3ShiftMulHi checks the reading against
// mul.hi). Negated operands, carry outputs and .LS are not modelled.
func (d *sassDec) iadd3Shift() {
	in, ss := d.in, d.in.Srcs
	if len(ss) != 3 || len(in.Dsts) != 1 || strings.HasSuffix(strings.TrimSpace(in.Dsts[0].Text), ".CC") {
		d.opaque(in.Op())
		return
	}
	for _, o := range ss {
		if s := readSop(o); s.neg || s.inv {
			d.opaque(in.Op() + " with a negated operand")
			return
		}
	}
	sum := d.node(Add, 64, d.resize(d.val(ss[0], 32), 64, false), d.resize(d.val(ss[1], 32), 64, false))
	sum = d.node(LShr, 64, sum, d.konst(32, 16))
	d.write(0, d.node(Add, 32, d.node(Trunc, 32, sum), d.val(ss[2], 32)))
}

func isTrue(o isa.Operand) bool {
	s := readSop(o)
	return s.kind == sImm && s.imm == 1 && strings.Contains(strings.ToUpper(o.Text), "PT")
}

// lea: LEA d[, P], a, b, k = (a << k) + b (P the carry);
// LEA.HI d, a, b, c, k = b + hi32((c:a) << k); LEA.HI.X d, a, b, c, k, P
// adds the carry P; LEA.HI.X.SX32 d, a, b, k, P takes c = sign of a.
// Maxwell/Pascal forms: LEA d.CC, a, b[, k] writes the carry to CC; LEA.HI.X
// [Q,] d, a, b, c[, k] adds CC; a shift left out is 0; Q (which the
// generic loads and stores that follow read) is not modelled.
func (d *sassDec) lea() {
	in, ss, m := d.in, d.in.Srcs, d.mods
	for k := range m {
		switch k {
		case "HI", "X", "SX32":
		default:
			d.opaque(in.Op())
			return
		}
	}
	dst := 0
	carry := ""
	switch {
	case len(in.Dsts) == 2 && m["HI"] && m["X"] && !m["SX32"] && isPredOperand(in.Dsts[0]):
		// Maxwell/Pascal: LEA.HI.X Q, d, a, b, c.
		q, ok := d.dstReg(0)
		if !ok {
			d.opaque(in.Op())
			return
		}
		if q != "" {
			d.out(q, 1, -1)
			d.s.Opaque = "the predicate result of LEA.HI.X"
		}
		dst = 1
	case len(in.Dsts) == 2:
		r, ok := d.dstReg(1)
		if !ok || r != "" && !isPredName(r) {
			d.opaque(in.Op())
			return
		}
		carry = r
	case len(in.Dsts) != 1:
		d.opaque(in.Op())
		return
	}
	ccOut := strings.HasSuffix(strings.TrimSpace(in.Dsts[dst].Text), ".CC")
	if !m["HI"] {
		want := 3
		if m["X"] {
			want = 4
		}
		k := uint64(0)
		switch {
		case len(ss) == want && ss[2].Kind == isa.OpImm:
			k, _ = parseInt(ss[2].Text)
		case len(ss) == 2 && !m["X"]:
			// Maxwell/Pascal: the shift left out.
		default:
			d.opaque(in.Op())
			return
		}
		a := d.resize(d.node(Shl, 32, d.val(ss[0], 32), d.konst(32, k&31)), 33, false)
		s := d.node(Add, 33, a, d.resize(d.val(ss[1], 32), 33, false))
		if m["X"] {
			s = d.node(Add, 33, s, d.resize(d.val(ss[3], 1), 33, false))
		}
		d.write(dst, d.node(Trunc, 32, s))
		c := d.node(Trunc, 1, d.node(LShr, 33, s, d.konst(32, 32)))
		if carry != "" {
			d.out(carry, 1, c)
		}
		if ccOut {
			d.out("CC", 1, c)
		}
		return
	}
	if carry != "" || ccOut {
		d.opaque(in.Op() + " with a carry out")
		return
	}
	var a, b, c int32
	var kOp *isa.Operand
	var pin int32 = -1
	switch {
	case m["SX32"]:
		if len(ss) != 3 && len(ss) != 4 {
			d.opaque(in.Op())
			return
		}
		a, b = d.val(ss[0], 32), d.val(ss[1], 32)
		c = d.node(AShr, 32, a, d.konst(32, 31))
		kOp = &ss[2]
		if len(ss) == 4 {
			pin = d.val(ss[3], 1)
		}
	default:
		if len(ss) < 3 || len(ss) > 5 {
			d.opaque(in.Op())
			return
		}
		a, b, c = d.val(ss[0], 32), d.val(ss[1], 32), d.val(ss[2], 32)
		rest := ss[3:]
		if len(rest) > 0 && rest[0].Kind == isa.OpImm {
			kOp, rest = &rest[0], rest[1:]
		}
		switch {
		case len(rest) == 1:
			pin = d.val(rest[0], 1)
		case len(rest) > 1:
			d.opaque(in.Op())
			return
		case m["X"]:
			// Maxwell/Pascal: the carry in is CC.
			pin = d.input(In{Kind: InReg, Name: "CC", W: 1})
		}
		if kOp == nil && len(ss) != 3 {
			d.opaque(in.Op())
			return
		}
	}
	if m["X"] != (pin >= 0) && d.bad == "" {
		d.opaque(in.Op())
		return
	}
	k := uint64(0)
	if kOp != nil {
		if kOp.Kind != isa.OpImm {
			d.opaque(in.Op() + " with a register shift")
			return
		}
		k, _ = parseInt(kOp.Text)
	}
	if k > 31 {
		d.opaque(in.Op() + " shift")
		return
	}
	hi := d.node(Trunc, 32, d.node(LShr, 64, d.node(Shl, 64, d.pair(a, c), d.konst(32, k)), d.konst(32, 32)))
	r := d.node(Add, 32, b, hi)
	if pin >= 0 {
		r = d.node(Add, 32, r, d.resize(pin, 32, false))
	}
	d.write(dst, r)
}

// isPredOperand reports whether o names a predicate register (P0, PT).
func isPredOperand(o isa.Operand) bool {
	t := strings.ToUpper(strings.TrimPrefix(strings.TrimSpace(o.Text), "!"))
	return o.Kind == isa.OpReg && (t == "PT" || isPredName(t) && len(t) >= 2 && t[len(t)-1] >= '0' && t[len(t)-1] <= '9')
}

// lop3i: LOP3.LUT [P,] d, a, b, c, lut, Pq: d = lut(a, b, c); with Pq =
// !PT, P = d != 0 (ptxas 11.8 compiles and.b32/xor.b32 followed by
// setp.ne/setp.eq against 0 to it); a predicate result with another Pq is
// not modelled.
func (d *sassDec) lop3i() {
	in, ss := d.in, d.in.Srcs
	if !d.mods["LUT"] || len(in.Mods) != 1 || len(ss) != 5 || ss[3].Kind != isa.OpImm {
		d.opaque(in.Op())
		return
	}
	lut, _ := parseInt(ss[3].Text)
	r := d.lop3(32, uint8(lut), d.val(ss[0], 32), d.val(ss[1], 32), d.val(ss[2], 32))
	for i := range in.Dsts {
		reg, ok := d.dstReg(i)
		if !ok {
			d.opaque(in.Op())
			return
		}
		if reg == "" {
			continue
		}
		if isPredName(reg) {
			if q := readSop(ss[4]); q.kind == sImm && q.imm == 0 {
				// LOP3.LUT P, d, a, b, c, lut, !PT: P = lut(a, b, c) != 0
				// (ptxas's form of and/xor/or then setp.ne/eq 0).
				d.out(reg, 1, d.node(Ne, 1, r, d.konst(32, 0)))
				continue
			}
			d.out(reg, 1, -1)
			d.s.Opaque = "the predicate result of LOP3 with a predicate operand"
			continue
		}
		d.out(reg, 32, r)
	}
}

// shfSASS: SHF.{L,R}.{U32,S32,U64,S64}[.HI][.W] d, lo, k, hi: the funnel
// shift of hi:lo; .HI keeps the high word, else the low word.
func (d *sassDec) shfSASS() {
	in, ss, m := d.in, d.in.Srcs, d.mods
	if len(ss) != 3 {
		d.opaque(in.Op())
		return
	}
	left := m["L"]
	if left == m["R"] {
		d.opaque(in.Op())
		return
	}
	signed := m["S32"] || m["S64"]
	wide := m["U64"] || m["S64"]
	if !(m["U32"] || m["S32"] || wide) {
		d.opaque(in.Op())
		return
	}
	lo, hi := d.val(ss[0], 32), d.val(ss[2], 32)
	pair := d.pair(lo, hi)
	var n int32
	if ss[1].Kind == isa.OpImm {
		k, _ := parseInt(ss[1].Text)
		lim := uint64(32)
		if wide {
			lim = 64
		}
		if m["W"] {
			k &= lim - 1
		} else if k > lim {
			k = lim
		}
		n = d.konst(32, k)
	} else {
		// A register shift is defined here only below 32 (the clamp and
		// wrap modes differ above).
		k := d.val(ss[1], 32)
		n = k
		defer func() {
			if len(d.s.Outs) == 1 && d.s.Outs[0].Node >= 0 {
				o := &d.s.Outs[0]
				o.Node = d.node(Select, 32, d.node(ULt, 1, k, d.konst(32, 32)), o.Node, d.node(Unknown, 32))
			}
		}()
	}
	var r int32
	switch {
	case left:
		r = d.node(Shl, 64, pair, n)
	case signed:
		r = d.node(AShr, 64, pair, n)
	default:
		r = d.node(LShr, 64, pair, n)
	}
	if m["HI"] {
		r = d.node(LShr, 64, r, d.konst(32, 32))
	}
	d.write(0, d.node(Trunc, 32, r))
}

// isetp: ISETP.cmp[.U32].{AND,OR,XOR}[.EX] P, Q, a, b, c[, e].
func (d *sassDec) isetp() {
	in, ss := d.in, d.in.Srcs
	if len(in.Mods) < 2 {
		d.opaque(in.Op())
		return
	}
	cmpOp := in.Mods[0]
	signed, ex, xcc := true, false, false
	boolOp := ""
	for _, m := range in.Mods[1:] {
		switch m {
		case "U32":
			signed = false
		case "EX":
			ex = true
		case "X":
			xcc = true
		case "AND", "OR", "XOR":
			boolOp = m
		default:
			d.opaque(in.Op())
			return
		}
	}
	want := 3
	if ex {
		want = 4
	}
	if boolOp == "" || len(ss) != want || len(in.Dsts) != 2 {
		d.opaque(in.Op())
		return
	}
	a, b := d.val(ss[0], 32), d.val(ss[1], 32)
	c := d.val(ss[2], 1)
	var r, nr int32
	if xcc {
		// Maxwell/Pascal ISETP.X: the high words of a 64-bit comparison,
		// the low words' borrow in CC and their equality in the zero flag
		// (both set by IADD RZ.CC, lo_a, -lo_b): a - b - !CC >= 0 is a > b
		// or a == b and CC; a > b is a > b or a == b, CC and not Z; a != b
		// is a != b or not Z (TestISETPXAgainstPTX checks the readings
		// against ptxas's translation of setp on 64-bit values).
		if ex {
			d.opaque(in.Op())
			return
		}
		cc := d.input(In{Kind: InReg, Name: "CC", W: 1})
		eq := d.node(Eq, 1, a, b)
		ge := d.node(Or, 1, d.cmp("gt", signed, a, b), d.node(And, 1, eq, cc))
		switch strings.ToLower(cmpOp) {
		case "ge":
			r = ge
		case "lt":
			r = d.node(Not, 1, ge)
		case "gt", "le":
			z := d.input(In{Kind: InReg, Name: zeroFlag, W: 1})
			r = d.node(Or, 1, d.cmp("gt", signed, a, b), d.node(And, 1, eq, d.node(And, 1, cc, d.node(Not, 1, z))))
			if strings.ToLower(cmpOp) == "le" {
				r = d.node(Not, 1, r)
			}
		case "eq", "ne":
			z := d.input(In{Kind: InReg, Name: zeroFlag, W: 1})
			r = d.node(And, 1, eq, z)
			if strings.ToLower(cmpOp) == "ne" {
				r = d.node(Not, 1, r)
			}
		default:
			d.opaque(in.Op())
			return
		}
	} else if ex {
		e := d.val(ss[3], 1)
		eq := d.node(Eq, 1, a, b)
		var strict string
		switch strings.ToLower(cmpOp) {
		case "lt", "le":
			strict = "lt"
		case "gt", "ge":
			strict = "gt"
		}
		switch strings.ToLower(cmpOp) {
		case "eq":
			r = d.node(And, 1, eq, e)
		case "ne":
			r = d.node(Or, 1, d.node(Not, 1, eq), e)
		case "lt", "le", "gt", "ge":
			r = d.node(Or, 1, d.cmp(strict, signed, a, b), d.node(And, 1, eq, e))
		default:
			d.opaque(in.Op())
			return
		}
	} else {
		r = d.cmp(cmpOp, signed, a, b)
		if r < 0 && d.bad == "" {
			d.opaque(in.Op())
			return
		}
	}
	nr = d.node(Not, 1, r)
	code := map[string]Code{"AND": And, "OR": Or, "XOR": Xor}[boolOp]
	r, nr = d.node(code, 1, r, c), d.node(code, 1, nr, c)
	d.write(0, r)
	d.write(1, nr)
}

// psetp: Maxwell/Pascal PSETP.op1.op2 P, Q, a, b, c: P = (a op1 b) op2
// c, Q = !(a op1 b) op2 c.
func (d *sassDec) psetp() {
	in, ss := d.in, d.in.Srcs
	if len(in.Mods) != 2 || len(ss) != 3 || len(in.Dsts) != 2 {
		d.opaque(in.Op())
		return
	}
	codes := map[string]Code{"AND": And, "OR": Or, "XOR": Xor}
	op1, ok1 := codes[in.Mods[0]]
	op2, ok2 := codes[in.Mods[1]]
	if !ok1 || !ok2 {
		d.opaque(in.Op())
		return
	}
	a, b, c := d.val(ss[0], 1), d.val(ss[1], 1), d.val(ss[2], 1)
	x := d.node(op1, 1, a, b)
	d.write(0, d.node(op2, 1, x, c))
	d.write(1, d.node(op2, 1, d.node(Not, 1, x), c))
}

// i2i: I2I.dst.src d, a: an integer conversion between 32-bit types is
// the identity; to a narrower type, a truncation extended back (with
// .SAT, not modelled).
func (d *sassDec) i2i() {
	in, ss := d.in, d.in.Srcs
	if len(in.Mods) != 2 || len(ss) != 1 || len(in.Dsts) != 1 {
		d.opaque(in.Op())
		return
	}
	width := map[string]int{"U32": 32, "S32": 32, "U16": 16, "S16": 16, "U8": 8, "S8": 8}
	dw, ok1 := width[in.Mods[0]]
	sw, ok2 := width[in.Mods[1]]
	if !ok1 || !ok2 {
		d.opaque(in.Op())
		return
	}
	x := d.val(ss[0], 32)
	if sw < 32 {
		x = d.resize(d.node(Trunc, sw, x), 32, in.Mods[1][0] == 'S')
	}
	if dw < 32 {
		if dw < sw || dw == sw && in.Mods[0][0] != in.Mods[1][0] {
			// A narrowing or sign-changing conversion saturates.
			d.opaque(in.Op() + " (a saturating conversion)")
			return
		}
		x = d.resize(d.node(Trunc, dw, x), 32, in.Mods[0][0] == 'S')
	}
	if dw == 32 && sw == 32 && in.Mods[0] != in.Mods[1] {
		d.opaque(in.Op() + " (a saturating conversion)")
		return
	}
	d.write(0, x)
}

// plop3: PLOP3.LUT P, Q, a, b, c, lut, lut2.
func (d *sassDec) plop3() {
	in, ss := d.in, d.in.Srcs
	if !d.mods["LUT"] || len(ss) != 5 || len(in.Dsts) != 2 || ss[3].Kind != isa.OpImm || ss[4].Kind != isa.OpImm {
		d.opaque(in.Op())
		return
	}
	l1, _ := parseInt(ss[3].Text)
	l2, _ := parseInt(ss[4].Text)
	a, b, c := d.val(ss[0], 1), d.val(ss[1], 1), d.val(ss[2], 1)
	d.write(0, d.lop3(1, uint8(l1), a, b, c))
	d.write(1, d.lop3(1, uint8(l2), a, b, c))
}

// hfma2Const: HFMA2.MMA d, -RZ, RZ, h1, h0 (and HFMA2) is the constant
// whose halves are h1 (high) and h0 (low): -0 * 0 + h = h exactly.
func (d *sassDec) hfma2Const() {
	in, ss := d.in, d.in.Srcs
	if len(ss) != 4 || len(in.Dsts) != 1 {
		d.opaque(in.Op())
		return
	}
	s0, s1 := readSop(ss[0]), readSop(ss[1])
	if s0.kind != sImm || s0.imm != 0 || s0.float || s1.kind != sImm || s1.imm != 0 || s1.float {
		d.opaque(in.Op() + " is a floating-point operation")
		return
	}
	var halves [2]uint64
	for i, o := range ss[2:] {
		s := readSop(o)
		if s.kind != sImm {
			d.opaque(in.Op() + " is a floating-point operation")
			return
		}
		f := float64(s.imm)
		if s.float {
			f = s.f
		} else if s.imm != 0 {
			f = float64(int64(s.imm))
		}
		h, ok := toHalf(f)
		if !ok {
			d.opaque("HFMA2 constant " + o.Text)
			return
		}
		halves[i] = h
	}
	d.write(0, d.konst(32, halves[0]<<16|halves[1]))
}

// toHalf returns the IEEE binary16 bits of f when f is exactly a half
// value (or -0).
func toHalf(f float64) (uint64, bool) {
	if f == 0 {
		if math.Signbit(f) {
			return 0x8000, true
		}
		return 0, true
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	var sign uint64
	if f < 0 {
		sign, f = 0x8000, -f
	}
	// Subnormals: multiples of 2^-24 below 2^-14.
	if f < math.Ldexp(1, -14) {
		m := f / math.Ldexp(1, -24)
		if m != math.Trunc(m) || m >= 1024 {
			return 0, false
		}
		return sign | uint64(m), true
	}
	fr, e := math.Frexp(f) // f = fr * 2^e, fr in [0.5, 1)
	e--                    // f = (2 fr) * 2^e
	if e > 15 {
		return 0, false
	}
	m := (2*fr - 1) * 1024
	if m != math.Trunc(m) {
		return 0, false
	}
	return sign | uint64(e+15)<<10 | uint64(m), true
}

// r2p: R2P PR, a, mask writes P_i = bit i of a (of byte k with .Bk) for
// the bits of mask.
func (d *sassDec) r2p() {
	in, ss := d.in, d.in.Srcs
	if len(ss) != 2 || ss[1].Kind != isa.OpImm || len(in.Dsts) != 1 {
		d.opaque(in.Op())
		return
	}
	shift := uint64(0)
	for _, m := range in.Mods {
		switch m {
		case "B1":
			shift = 8
		case "B2":
			shift = 16
		case "B3":
			shift = 24
		default:
			d.opaque(in.Op())
			return
		}
	}
	pfx := "P"
	if strings.HasPrefix(strings.ToUpper(in.Dsts[0].Text), "UPR") {
		pfx = "UP"
	}
	mask, _ := parseInt(ss[1].Text)
	a := d.val(ss[0], 32)
	for i := 0; i < 7; i++ {
		if mask>>uint(i)&1 == 0 {
			continue
		}
		bit := d.node(Trunc, 1, d.node(LShr, 32, a, d.konst(32, shift+uint64(i))))
		d.out(pfx+strconv.Itoa(i), 1, bit)
	}
}

// p2r: P2R d, PR, a, mask = (a & ~m) | (packed predicates & m), m = mask
// shifted to byte k with .Bk.
func (d *sassDec) p2r() {
	in, ss := d.in, d.in.Srcs
	if len(ss) != 3 || ss[2].Kind != isa.OpImm || len(in.Dsts) != 1 {
		d.opaque(in.Op())
		return
	}
	shift := uint64(0)
	for _, m := range in.Mods {
		switch m {
		case "B1":
			shift = 8
		case "B2":
			shift = 16
		case "B3":
			shift = 24
		default:
			d.opaque(in.Op())
			return
		}
	}
	pfx := "P"
	if strings.HasPrefix(strings.ToUpper(ss[0].Text), "UPR") {
		pfx = "UP"
	}
	mask, _ := parseInt(ss[2].Text)
	mask &= 0x7f
	var packed int32 = d.konst(32, 0)
	for i := 0; i < 7; i++ {
		if mask>>uint(i)&1 == 0 {
			continue
		}
		p := d.node(ZExt, 32, d.input(In{Kind: InReg, Name: pfx + strconv.Itoa(i), W: 1}))
		packed = d.node(Or, 32, packed, d.node(Shl, 32, p, d.konst(32, uint64(i)+shift)))
	}
	m := mask << shift
	a := d.val(ss[1], 32)
	d.write(0, d.node(Or, 32, d.node(And, 32, a, d.konst(32, ^m)), packed))
}

// shiftOld: Maxwell SHL d, a, k and SHR[.U32] d, a, k (clamped at 32).
func (d *sassDec) shiftOld(op string) {
	in, ss := d.in, d.in.Srcs
	if len(ss) != 2 || len(in.Dsts) != 1 {
		d.opaque(in.Op())
		return
	}
	code := Shl
	switch {
	case op == "SHR" && d.mods["U32"]:
		code = LShr
	case op == "SHR":
		code = AShr
	}
	for m := range d.mods {
		if m != "U32" {
			d.opaque(in.Op())
			return
		}
	}
	d.write(0, d.node(code, 32, d.val(ss[0], 32), d.val(ss[1], 32)))
}

// iaddOld: Maxwell IADD[.X] d[.CC], a, b: d = a + b (+ CC with .X); a
// .CC destination also writes the carry CC. IADD32I likewise. The manual
// reads a negated operand as ~x + 1, with .X as ~x (plus the carry), and
// allows no negation of both operands.
func (d *sassDec) iaddOld() {
	in, ss := d.in, d.in.Srcs
	x := d.mods["X"]
	if len(ss) != 2 || len(in.Mods) > 1 || len(in.Mods) == 1 && !x || len(in.Dsts) != 1 {
		d.opaque(in.Op())
		return
	}
	negs := 0
	for _, o := range ss {
		if s := readSop(o); s.neg {
			negs++
		}
	}
	if negs > 1 && x {
		d.opaque(in.Op() + " with two negated operands")
		return
	}
	// -x adds ~x + 1, so that the carry is that of the subtraction; with
	// .X it adds ~x and the carry ("Ra + ~Sb + Carry": the high word of a
	// 64-bit subtraction).
	var sum int32 = -1
	for _, o := range ss {
		s := readSop(o)
		var v int32
		if s.neg && x {
			s.neg, s.inv = false, !s.inv
			v = d.resize(d.sopVal(s, 32, false), 34, false)
		} else if s.neg {
			s.neg, s.inv = false, !s.inv
			v = d.node(Add, 34, d.resize(d.sopVal(s, 32, false), 34, false), d.konst(34, 1))
		} else {
			v = d.resize(d.sopVal(s, 32, false), 34, false)
		}
		if sum < 0 {
			sum = v
		} else {
			sum = d.node(Add, 34, sum, v)
		}
	}
	if x {
		sum = d.node(Add, 34, sum, d.resize(d.input(In{Kind: InReg, Name: "CC", W: 1}), 34, false))
	}
	d.write(0, d.node(Trunc, 32, sum))
	if strings.HasSuffix(strings.TrimSpace(in.Dsts[0].Text), ".CC") {
		d.out("CC", 1, d.node(Trunc, 1, d.node(LShr, 34, sum, d.konst(32, 32))))
		if !x {
			// The zero flag (ZF): the 32-bit result is 0 (IADD RZ.CC,
			// a, -b: a == b). After .X it is not modelled.
			d.out(zeroFlag, 1, d.node(Eq, 1, d.node(Trunc, 32, sum), d.konst(32, 0)))
		}
	}
}

// orderFlag names the order IMNMX.XHI leaves for IMNMX.XLO: a is the
// word selected. The hardware keeps it in the overflow flag, with a
// polarity the ISA description does not give; the decoder keeps it apart
// (the overflow flag CC.OF is left unknown by IMNMX.XHI), and every other
// writer of CC leaves it unknown.
const orderFlag = "CC.ORD"

// imnmx: IMNMX[.U32|.S32][.XHI|.XLO] d[.CC], a, b, p: min(a, b) when p,
// max(a, b) otherwise. The extended-precision modes (docs/sass.md) take a
// 64-bit minimum or maximum one word at a time from the high word:
// .XHI writes the high words' result, the carry CC = the order is
// determined (the high words differ), the order (orderFlag: a is the one
// selected), the zero flag = the result is 0; .XLO selects by the flags
// when the order is determined, else compares the low words, then
// clears CC and the overflow flag and accumulates the zero flag. .XMED
// (words in the middle of wider values) is not modelled.
func (d *sassDec) imnmx() {
	in, ss := d.in, d.in.Srcs
	if len(ss) != 3 {
		d.opaque(in.Op())
		return
	}
	signed, xhi, xlo := true, false, false
	for _, m := range in.Mods {
		switch m {
		case "U32":
			signed = false
		case "S32":
		case "XHI":
			xhi = true
		case "XLO":
			xlo = true
		default:
			d.opaque(in.Op())
			return
		}
	}
	ccOut := len(in.Dsts) == 1 && strings.HasSuffix(strings.TrimSpace(in.Dsts[0].Text), ".CC")
	if xhi && xlo || len(in.Dsts) != 1 || ccOut && !xhi && !xlo {
		d.opaque(in.Op())
		return
	}
	code := map[bool][2]Code{true: {SMin, SMax}, false: {UMin, UMax}}[signed]
	a, b, p := d.val(ss[0], 32), d.val(ss[1], 32), d.val(ss[2], 1)
	r := d.node(Select, 32, p, d.node(code[0], 32, a, b), d.node(code[1], 32, a, b))
	zero := d.konst(32, 0)
	switch {
	case xhi:
		d.write(0, r)
		if ccOut {
			// a is selected when it is the smaller (p) or the larger.
			less := d.node(map[bool]Code{true: SLt, false: ULt}[signed], 1, a, b)
			more := d.node(map[bool]Code{true: SLt, false: ULt}[signed], 1, b, a)
			d.out("CC", 1, d.node(Ne, 1, a, b))
			d.out(orderFlag, 1, d.node(Select, 1, p, less, more))
			d.out(zeroFlag, 1, d.node(Eq, 1, r, zero))
		}
	case xlo:
		cf := d.input(In{Kind: InReg, Name: "CC", W: 1})
		of := d.input(In{Kind: InReg, Name: orderFlag, W: 1})
		r = d.node(Select, 32, cf, d.node(Select, 32, of, a, b), r)
		d.write(0, r)
		if ccOut {
			z := d.input(In{Kind: InReg, Name: zeroFlag, W: 1})
			d.out("CC", 1, d.konst(1, 0))
			d.out(overflowFlag, 1, d.konst(1, 0))
			d.out(orderFlag, 1, d.konst(1, 0))
			d.out(zeroFlag, 1, d.node(And, 1, z, d.node(Eq, 1, r, zero)))
		}
	default:
		d.write(0, r)
	}
}

// zeroFlag names the zero flag of Kepler–Pascal's condition code, which
// ISETP.X reads beside CC's carry. Every instruction that writes CC writes
// it (unknown where not modelled: DecodeSASS).
const zeroFlag = "CC.Z"

// overflowFlag names the condition code's second carry, CC.OF: the
// overflow flag, which IADD3 .CC sets to the second carry of a
// three-operand sum and IADD3.X adds beside CC (Maxwell's IADD3 manual
// entry). Every instruction that writes CC writes it (unknown where not
// modelled: DecodeSASS), so that IADD3.X never reads a stale one.
const overflowFlag = "CC.OF"

// imulOld: Maxwell/Pascal IMUL[32I][.ta.tb][.HI] d, a, b: the low 32
// bits of a * b (the same for every signedness), or with .HI the high 32
// bits of the 64-bit product, signed unless both types are U32 (the types
// default to S32). Mixed signedness with .HI, and .CC/.X, are not
// modelled.
func (d *sassDec) imulOld() {
	in, ss := d.in, d.in.Srcs
	if len(ss) != 2 || len(in.Dsts) != 1 || strings.HasSuffix(strings.TrimSpace(in.Dsts[0].Text), ".CC") {
		d.opaque(in.Op())
		return
	}
	var types []string
	hi := false
	for _, m := range in.Mods {
		switch m {
		case "U32", "S32":
			types = append(types, m)
		case "HI":
			hi = true
		default:
			d.opaque(in.Op())
			return
		}
	}
	a, b := d.val(ss[0], 32), d.val(ss[1], 32)
	if !hi {
		d.write(0, d.node(Mul, 32, a, b))
		return
	}
	switch {
	case len(types) == 0, len(types) == 2 && types[0] == "S32" && types[1] == "S32":
		d.write(0, d.node(MulHiS, 32, a, b))
	case len(types) == 2 && types[0] == "U32" && types[1] == "U32":
		d.write(0, d.node(MulHiU, 32, a, b))
	default:
		d.opaque(in.Op() + " (mixed signedness)")
	}
}

// xmad: Maxwell/Pascal XMAD{.sa.sb}{.PSL}{.cop}{.MRG} d, a[.H1], b[.H1], c
// (docs/sass.md, "XMAD"): the product of the selected 16-bit halves of a
// and b (H0 unless .H1; an immediate b is its 16 bits), each zero- or
// sign-extended by its signedness modifier (.U16, the default, or .S16;
// printed as a pair, a's first), shifted left 16 with .PSL, plus the
// c input selected by .cop: all of c (.C32, the default), its low half
// zero-extended (.CLO), its high half zero-extended (.CHI), c + (b[15:0]
// << 16) (.CBCC), or c plus the signed fix-ups (.CSFU, below); .MRG
// replaces the high half of the 32-bit result by b[15:0]. b[15:0] is the
// low half of the whole b register or constant word, whatever half the
// product selects.
//
// .CSFU is modelled in the one form ptxas emits, XMAD.S16.S16.CSFU d,
// a.H1, b.H1, c of its signed mul.hi/mad.hi.s32 expansion: the fix-ups
// subtract 2^16 once for a negative a.H1 when b's low half is not zero
// and once for a negative b.H1 when a's low half is not zero. The ISA
// document names the fix-ups without their formula; this one is forced
// by that expansion (with IADD3.RS adding its operands as unsigned
// 32-bit values, as the unsigned expansion needs): it is the only value
// for which the expansion yields mul.hi.s32 for every a and b
// (TestXMADChains). Any other .CSFU form, .X (carries in), a .CC
// destination (carries out), .CBCC/.MRG/.CSFU with an immediate b and
// negated operands are not modelled.
func (d *sassDec) xmad() {
	in, ss := d.in, d.in.Srcs
	if len(ss) != 3 || len(in.Dsts) != 1 || strings.HasSuffix(strings.TrimSpace(in.Dsts[0].Text), ".CC") {
		d.opaque(in.Op())
		return
	}
	var signs []bool // .S16 / .U16 in order: a's, then b's
	var psl, mrg bool
	cop := ""
	for _, k := range in.Mods {
		switch k {
		case "S16", "U16":
			signs = append(signs, k == "S16")
		case "PSL":
			psl = true
		case "MRG":
			mrg = true
		case "C32", "CLO", "CHI", "CBCC", "CSFU":
			if cop != "" {
				d.opaque(in.Op())
				return
			}
			cop = k
		default: // .X and anything else
			d.opaque(in.Op())
			return
		}
	}
	if len(signs) != 0 && len(signs) != 2 {
		d.opaque(in.Op())
		return
	}
	sa, sb, sc := readSop(ss[0]), readSop(ss[1]), readSop(ss[2])
	if sa.neg || sb.neg || sc.neg || sa.inv || sb.inv || sc.inv || sa.abs || sb.abs || sc.abs || sc.half != 0 ||
		sa.kind != sReg && !(sa.kind == sImm && sa.imm == 0) {
		d.opaque(in.Op())
		return
	}
	immB := sb.kind == sImm
	if immB && (sb.half != 0 || sb.imm > 0xffff || mrg || cop == "CBCC" || cop == "CSFU") {
		d.opaque(in.Op())
		return
	}
	signedA, signedB := len(signs) == 2 && signs[0], len(signs) == 2 && signs[1]
	// The whole registers (or constant word) and their halves.
	ra, rb := sa, sb
	ra.half, rb.half = 0, 0
	wa, wb := d.sopVal(ra, 32, true), d.sopVal(rb, 32, true)
	lo := func(x int32) int32 { return d.node(Trunc, 16, x) }
	hi := func(x int32) int32 { return d.node(Trunc, 16, d.node(LShr, 32, x, d.konst(32, 16))) }
	half := func(x int32, h int) int32 {
		if h == 2 {
			return hi(x)
		}
		return lo(x)
	}
	ha, hb := half(wa, sa.half), half(wb, sb.half)
	p := d.node(Mul, 32, d.resize(ha, 32, signedA), d.resize(hb, 32, signedB))
	if psl {
		p = d.node(Shl, 32, p, d.konst(32, 16))
	}
	c := d.sopVal(sc, 32, false)
	switch cop {
	case "CLO":
		c = d.node(ZExt, 32, lo(c))
	case "CHI":
		c = d.node(LShr, 32, c, d.konst(32, 16))
	case "CBCC":
		c = d.node(Add, 32, c, d.node(Shl, 32, wb, d.konst(32, 16)))
	case "CSFU":
		if !signedA || !signedB || sa.half != 2 || sb.half != 2 || psl || mrg {
			d.opaque(in.Op() + " (a .CSFU form other than .S16.S16 on both high halves)")
			return
		}
		zero16 := d.konst(16, 0)
		fix := func(h, other int32) int32 {
			// 2^16 when h < 0 and the other operand's low half is not 0.
			cond := d.node(And, 1, d.node(SLt, 1, h, zero16), d.node(Ne, 1, lo(other), zero16))
			return d.node(Shl, 32, d.node(ZExt, 32, cond), d.konst(32, 16))
		}
		c = d.node(Sub, 32, d.node(Sub, 32, c, fix(ha, wb)), fix(hb, wa))
	}
	r := d.node(Add, 32, p, c)
	if mrg {
		r = d.node(Or, 32, d.node(And, 32, r, d.konst(32, 0xffff)), d.node(Shl, 32, wb, d.konst(32, 16)))
	}
	d.write(0, r)
}

// lopOld: LOP.{AND,OR,XOR,PASS_B} d, a, b and LOP32I.{AND,OR,XOR} d, a, imm
// (~ operands complemented); LOP.op.pop P, d, a, b also writes the
// predicate operation pop of the result to P: .F false, .T true, .Z the
// result is 0, .NZ it is not (LOP.AND.NZ P1, RZ, R3, 0x1: P1 = R3 is odd).
func (d *sassDec) lopOld() {
	in, ss := d.in, d.in.Srcs
	pop := ""
	if len(in.Mods) == 2 && len(in.Dsts) == 2 && isPredOperand(in.Dsts[0]) {
		pop = in.Mods[1]
	} else if len(in.Mods) != 1 || len(in.Dsts) != 1 {
		d.opaque(in.Op())
		return
	}
	if len(ss) != 2 {
		d.opaque(in.Op())
		return
	}
	a, b := d.val(ss[0], 32), d.val(ss[1], 32)
	var r int32
	switch in.Mods[0] {
	case "AND":
		r = d.node(And, 32, a, b)
	case "OR":
		r = d.node(Or, 32, a, b)
	case "XOR":
		r = d.node(Xor, 32, a, b)
	case "PASS_B":
		r = b
	default:
		d.opaque(in.Op())
		return
	}
	if pop == "" {
		d.write(0, r)
		return
	}
	var p int32
	switch pop {
	case "F":
		p = d.konst(1, 0)
	case "T":
		p = d.konst(1, 1)
	case "Z":
		p = d.node(Eq, 1, r, d.konst(32, 0))
	case "NZ":
		p = d.node(Ne, 1, r, d.konst(32, 0))
	default:
		d.opaque(in.Op())
		return
	}
	if d.write(0, p) {
		d.write(1, r)
	}
}

// bfeOld: BFE[.U32] d, a, b with an immediate b = pos | len << 8 inside
// the value.
func (d *sassDec) bfeOld() {
	in, ss := d.in, d.in.Srcs
	if len(ss) != 2 || ss[1].Kind != isa.OpImm || len(in.Dsts) != 1 {
		d.opaque(in.Op())
		return
	}
	signed := true
	for k := range d.mods {
		if k != "U32" {
			d.opaque(in.Op())
			return
		}
		signed = false
	}
	v, _ := parseInt(ss[1].Text)
	pos, n := v&0xff, v>>8&0xff
	if n == 0 || pos+n > 32 {
		d.opaque("BFE outside the value")
		return
	}
	x := d.node(Trunc, int(n), d.node(LShr, 32, d.val(ss[0], 32), d.konst(32, pos)))
	d.write(0, d.resize(x, 32, signed))
}

// constLoad: ULDC[.64] d, c[b][o]; LDC[.64] d, c[b][o].
func (d *sassDec) constLoad() {
	in, ss := d.in, d.in.Srcs
	if len(ss) != 1 {
		d.opaque(in.Op())
		return
	}
	s := readSop(ss[0])
	var idx int32
	if s.kind != sConst {
		// c[b][Rn+off]: the register's value is added to the offset.
		bank, reg, off, ok := constRegIndex(ss[0])
		if !ok {
			d.opaque(in.Op() + " with a register index")
			return
		}
		r := d.input(In{Kind: InReg, Name: reg, W: 32})
		s.kind, s.bank, s.off = sConst, bank, off
		idx = int32(d.s.Nodes[r].Imm) + 1
	}
	switch {
	case d.mods["64"] && len(in.Mods) == 1:
		x := d.input(In{Kind: InConst, Bank: s.bank, Off: s.off, W: 64, Idx: idx})
		d.writePair(0, x)
	case len(in.Mods) == 0:
		d.write(0, d.input(In{Kind: InConst, Bank: s.bank, Off: s.off, W: 32, Idx: idx}))
	default:
		d.opaque(in.Op())
	}
}

// constRegIndex parses c[b][Rn+off] (off may be absent or negative).
func constRegIndex(o isa.Operand) (bank int, reg string, off int64, ok bool) {
	t := strings.ReplaceAll(strings.TrimSpace(o.Text), " ", "")
	if !strings.HasPrefix(t, "c[") || len(o.Regs) != 1 {
		return 0, "", 0, false
	}
	parts := strings.SplitN(t[1:], "][", 2)
	if len(parts) != 2 {
		return 0, "", 0, false
	}
	b, ok1 := parseInt(strings.TrimPrefix(parts[0], "["))
	e := strings.TrimSuffix(parts[1], "]")
	reg = o.Regs[0]
	if !strings.HasPrefix(e, reg) {
		return 0, "", 0, false
	}
	e = e[len(reg):]
	if e != "" {
		v, ok := parseInt(e)
		if !ok {
			return 0, "", 0, false
		}
		off = int64(v)
	}
	return int(b), reg, off, ok1
}

// load: LDC from the constant bank, LDL from the local frame, LD from a
// generic address; other loads write opaque values.
func (d *sassDec) load() {
	in := d.in
	switch {
	case in.Opcode == "LDC" || in.Opcode == "ULDC":
		d.constLoad()
		return
	case in.Opcode == "LDL" || in.Opcode == "LD":
	default:
		d.opaque("load from " + in.Space.String() + " memory")
		return
	}
	w := 32
	signed := false
	for _, m := range in.Mods {
		switch m {
		case "64":
			w = 64
		case "U8", "S8":
			w, signed = 8, m == "S8"
		case "U16", "S16":
			w, signed = 16, m == "S16"
		case "E", "EL", "LU", "EF", "STRONG", "GPU", "SYS", "CTA", "U32", "S32":
		default:
			d.opaque(in.Op())
			return
		}
	}
	srcs := in.Srcs
	if in.Opcode == "LD" && len(srcs) == 2 && isPredOperand(srcs[1]) {
		// Maxwell/Pascal LD.E d, [a], Q: Q comes from the LEA.HI.X that
		// formed the address; the instruction is ptxas's translation of
		// an unconditional generic load (ld [a]): it reads memory at a.
		srcs = srcs[:1]
	}
	if len(srcs) != 1 || srcs[0].Kind != isa.OpMem || len(in.Dsts) != 1 {
		d.opaque(in.Op())
		return
	}
	sp := isa.SpaceLocal
	if in.Opcode == "LD" {
		sp = isa.SpaceGeneric
	}
	bi, off, ok := d.address(in.Srcs[0], sp)
	if !ok {
		d.opaque("address " + in.Srcs[0].Text)
		return
	}
	v := d.input(In{Kind: InMem, Space: sp, Base: bi, Off: off, W: uint8(w)})
	if w == 64 {
		d.writePair(0, v)
	} else {
		// .U8/.S8/.U16/.S16: zero- or sign-extended to the register.
		d.write(0, d.resize(v, 32, signed))
	}
}

// address reads a memory operand [R1+0x10], [R4.64+0x8], [0x10]: the input
// holding its base (a register, or a register pair read as one 64-bit
// value for a 64-bit generic address; -1 for none) and the offset.
func (d *sassDec) address(o isa.Operand, sp isa.Space) (base int32, off int64, ok bool) {
	reg, hi, off, ok := sassAddr(o)
	if !ok {
		return -1, 0, false
	}
	switch {
	case reg == "":
		return -1, off, true
	case hi != "":
		if sp != isa.SpaceGeneric {
			return -1, 0, false
		}
		b := d.input(In{Kind: InReg, Name: reg, Hi: hi, W: 64})
		return int32(d.s.Nodes[b].Imm), off, true
	}
	b := d.input(In{Kind: InReg, Name: reg, W: 32})
	return int32(d.s.Nodes[b].Imm), off, true
}

// store: STL to the local frame, ST to a generic address (one into the
// frame writes its cell; other stores write nothing the analysis follows).
func (d *sassDec) store() {
	in := d.in
	if in.Opcode != "STL" && in.Opcode != "ST" {
		return
	}
	sp := isa.SpaceLocal
	if in.Opcode == "ST" {
		sp = isa.SpaceGeneric
	}
	unknown := func() {
		d.s.Outs = append(d.s.Outs, Out{Kind: OutMem, Space: sp, Base: -1, Name: "?", Node: -1})
		d.s.Opaque = "a store to an unknown local address"
	}
	w := 32
	for _, m := range in.Mods {
		switch m {
		case "64":
			w = 64
		case "U8", "S8":
			w = 8
		case "U16", "S16":
			w = 16
		case "E", "EL", "STRONG", "GPU", "SYS", "CTA", "U32", "S32":
		default:
			unknown()
			return
		}
	}
	srcs := in.Srcs
	if in.Opcode == "ST" && len(srcs) == 3 && isPredOperand(srcs[2]) {
		// Maxwell/Pascal ST.E [a], v, Q: as LD.E, an unconditional
		// generic store at a.
		srcs = srcs[:2]
	}
	if len(srcs) != 2 || srcs[0].Kind != isa.OpMem {
		unknown()
		return
	}
	bi, off, ok := d.address(in.Srcs[0], sp)
	if !ok {
		unknown()
		return
	}
	var v int32
	if w < 32 {
		// .U8/.U16/...: the register's low bits.
		v = d.resize(d.val(srcs[1], 32), w, false)
	} else {
		v = d.val(srcs[1], w)
	}
	d.s.Outs = append(d.s.Outs, Out{Kind: OutMem, Space: sp, Base: bi, Off: off, W: uint8(w), Node: v})
}

// sassAddr parses [R1+0x10], [R1], [R4.64+0x8] (a pair: hi names its high
// register), [0x10].
func sassAddr(o isa.Operand) (base, hi string, off int64, ok bool) {
	t := strings.TrimSpace(o.Text)
	if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
		return "", "", 0, false
	}
	t = strings.ReplaceAll(t[1:len(t)-1], " ", "")
	// The parser also lists the registers an instruction reads without
	// naming them (a memory descriptor's uniform registers): the address
	// is the first register, and its pair's high register when the next
	// one follows it (R4, R5: a 64-bit address).
	regs := o.Regs
	if len(regs) == 0 || !strings.HasPrefix(t, regs[0]) {
		if strings.ContainsAny(t, "RU") {
			return "", "", 0, false
		}
		v, ok := parseInt(t)
		return "", "", int64(v), ok
	}
	base = regs[0]
	if n, ok := nextReg(base); ok && len(regs) >= 2 && regs[1] == n {
		hi = regs[1]
	}
	if !strings.HasPrefix(t, base) {
		return "", "", 0, false
	}
	t = strings.TrimPrefix(strings.TrimPrefix(t[len(base):], ".64"), ".X4")
	if t == "" {
		return base, hi, 0, true
	}
	v, ok := parseInt(t)
	return base, hi, int64(v), ok
}
