package values

import (
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// ptype is a PTX integer, bit or predicate type: u32, s64, b16, pred; f
// marks a float type (f32, f64, f16, bf16), bits only for moves.
type ptype struct {
	w      int
	signed bool
	bits   bool // .bN
	pred   bool
	float  bool
}

func readPType(m string) (ptype, bool) {
	if m == "pred" {
		return ptype{w: 1, pred: true}, true
	}
	if len(m) < 2 {
		return ptype{}, false
	}
	var t ptype
	switch m[0] {
	case 's':
		t.signed = true
	case 'u':
	case 'b':
		t.bits = true
	case 'f':
		t.float = true
	default:
		if strings.HasPrefix(m, "bf16") {
			return ptype{w: 16, float: true}, true
		}
		return ptype{}, false
	}
	n, err := strconv.Atoi(m[1:])
	if err != nil {
		return ptype{}, false
	}
	switch n {
	case 8, 16, 32, 64:
	default:
		if !(t.float && n == 16) {
			return ptype{}, false
		}
	}
	if m[0] == 'b' && m[1:] == "f16" {
		return ptype{w: 16, float: true}, true
	}
	t.w = n
	return t, true
}

// ptxTypes returns the type modifiers of in, in order.
func ptxTypes(in *isa.Instr) []ptype {
	var ts []ptype
	for _, m := range in.Mods {
		if t, ok := readPType(m); ok {
			ts = append(ts, t)
		}
	}
	return ts
}

// ptxDec decodes one PTX instruction.
type ptxDec struct {
	builder
	in *isa.Instr
}

// DecodePTX decodes a PTX instruction. Instructions without integer or
// predicate effect (floats, loads from memory other than parameters and
// the local frame, warp-level and atomic operations, unknown opcodes)
// write opaque values.
func DecodePTX(in *isa.Instr) *Sem {
	d := &ptxDec{builder: builder{s: &Sem{}}, in: in}
	d.decode()
	return d.finish()
}

// opaque makes every register the instruction writes opaque.
func (d *ptxDec) opaque(why string) {
	d.s.Ins, d.s.Nodes = nil, nil
	d.s.Outs = d.s.Outs[:0]
	for _, r := range d.in.Defs() {
		d.s.Outs = append(d.s.Outs, Out{Kind: OutReg, Name: r, Node: -1})
	}
	d.s.Opaque = why
}

// opnd reads a source operand at width w.
func (d *ptxDec) opnd(o isa.Operand, w int) int32 {
	switch o.Kind {
	case isa.OpReg:
		if len(o.Regs) != 1 {
			return d.fail("operand %s", o.Text)
		}
		if o.Neg { // !%p
			x := d.input(In{Kind: InReg, Name: o.Regs[0], W: 1})
			return d.resize(d.node(Not, 1, x), w, false)
		}
		return d.input(In{Kind: InReg, Name: o.Regs[0], W: uint8(w)})
	case isa.OpImm:
		t := o.Text
		if len(t) == 10 && (strings.HasPrefix(t, "0f") || strings.HasPrefix(t, "0F")) {
			v, err := strconv.ParseUint(t[2:], 16, 32)
			if err != nil {
				return d.fail("immediate %s", t)
			}
			return d.konst(w, v)
		}
		if len(t) == 18 && (strings.HasPrefix(t, "0d") || strings.HasPrefix(t, "0D")) {
			v, err := strconv.ParseUint(t[2:], 16, 64)
			if err != nil {
				return d.fail("immediate %s", t)
			}
			return d.konst(w, v)
		}
		v, ok := parseInt(t)
		if !ok {
			return d.fail("immediate %s is not an integer", t)
		}
		return d.konst(w, v)
	case isa.OpSpecial:
		if o.Text == "WARP_SZ" {
			return d.konst(w, 32)
		}
		info, ok := CanonSpecial(o.Text)
		if !ok {
			return d.fail("special register %s", o.Text)
		}
		x := d.input(In{Kind: InSpecial, Name: info.Name, W: uint8(info.W)})
		return d.resize(x, w, false)
	case isa.OpSym:
		if isDepot(o.Text) {
			x := d.input(In{Kind: InFrame, Name: o.Text, W: 64})
			return d.resize(x, w, false)
		}
		return d.fail("the address of symbol %s", o.Text)
	}
	return d.fail("operand %s", o.Text)
}

func isDepot(s string) bool { return strings.HasPrefix(s, "__local_depot") }

// mem parses a PTX memory operand [reg], [reg+imm], [sym], [sym+imm],
// [imm]: the base register or symbol and the offset.
func mem(o isa.Operand) (reg, sym string, off int64, ok bool) {
	t := strings.TrimSpace(o.Text)
	if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
		return "", "", 0, false
	}
	t = strings.TrimSpace(t[1 : len(t)-1])
	base, rest := t, ""
	if i := strings.IndexAny(t[1:], "+-"); i >= 0 {
		base, rest = strings.TrimSpace(t[:i+1]), strings.TrimSpace(t[i+1:])
	}
	if rest != "" {
		rest = strings.ReplaceAll(rest, " ", "")
		rest = strings.Replace(rest, "+-", "-", 1)
		v, ok := parseInt(rest)
		if !ok {
			return "", "", 0, false
		}
		off = int64(v)
	}
	switch {
	case len(o.Regs) == 1:
		return o.Regs[0], "", off, true
	case len(o.Regs) > 1:
		return "", "", 0, false
	}
	if v, ok := parseInt(base); ok {
		return "", "", int64(v) + off, true
	}
	return "", base, off, true
}

// memIn reads memory operand o in space sp at width w.
func (d *ptxDec) memIn(o isa.Operand, sp isa.Space, w int, elem int64) int32 {
	reg, sym, off, ok := mem(o)
	if !ok {
		return d.fail("address %s", o.Text)
	}
	in := In{Kind: InMem, Name: sym, W: uint8(w), Off: off + elem, Space: sp, Base: -1}
	if reg != "" {
		b := d.input(In{Kind: InReg, Name: reg, W: 64})
		if b < 0 {
			return -1
		}
		in.Base = int32(d.s.Nodes[b].Imm)
	} else if sp == isa.SpaceParam {
		in.Kind = InParam
	}
	return d.input(in)
}

func (d *ptxDec) dst(i int) (string, bool) {
	if i >= len(d.in.Dsts) {
		return "", false
	}
	o := d.in.Dsts[i]
	if o.Kind == isa.OpSink {
		return "", true
	}
	if o.Kind != isa.OpReg || len(o.Regs) != 1 {
		return "", false
	}
	return o.Regs[0], true
}

func (d *ptxDec) decode() {
	in := d.in
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
	ts := ptxTypes(in)
	if len(ts) == 0 {
		if len(in.Defs()) > 0 {
			d.opaque(in.Op() + " has no integer type")
		}
		return
	}
	t := ts[len(ts)-1]
	op := in.Opcode
	if t.float && !(op == "mov" || op == "selp" || op == "cvta") {
		d.opaque(in.Op() + " is a floating-point operation")
		return
	}
	if t.float && op == "cvt" {
		d.opaque(in.Op() + " converts floating point")
		return
	}
	w := t.w
	src := func(i int) int32 {
		if i >= len(in.Srcs) {
			return d.fail("missing operand")
		}
		return d.opnd(in.Srcs[i], w)
	}
	one := func(n int32) {
		r, ok := d.dst(0)
		if !ok || len(in.Dsts) != 1 {
			d.opaque(in.Op() + ": unexpected destinations")
			return
		}
		if r != "" {
			d.out(r, d.width(n), n)
		}
	}
	ext := func(a int32) int32 { return d.resize(a, 2*w, t.signed) }
	hasCC := false
	for _, o := range in.Dsts {
		if len(o.Regs) == 1 && o.Regs[0] == "%cc" {
			hasCC = true
		}
	}
	switch op {
	case "activemask":
		// The mask of the lanes executing it: one value per execution
		// of its block (ssa.go, activeMask; assume.ActiveMask).
		if in.Guard.Reg != "" || len(in.Srcs) != 0 {
			d.opaque(in.Op() + " under a guard")
			return
		}
		one(d.input(In{Kind: InSpecial, Name: ActiveMask, W: 32}))
	case "mov":
		d.mov(w)
	case "add", "sub", "addc", "subc":
		d.addSub(op, t, hasCC)
	case "mul", "mad":
		a, b := src(0), src(1)
		var c int32 = -1
		if op == "mad" {
			c = 0
		}
		switch {
		case in.HasMod("wide"):
			p := d.node(Mul, 2*w, ext(a), ext(b))
			if op == "mad" {
				p = d.node(Add, 2*w, p, d.opnd(in.Srcs[2], 2*w))
			}
			one(p)
		case in.HasMod("hi"):
			code := MulHiU
			if t.signed {
				code = MulHiS
			}
			p := d.node(code, w, a, b)
			if op == "mad" {
				p = d.node(Add, w, p, src(2))
			}
			if hasCC {
				d.opaque(in.Op() + " with carry")
				return
			}
			one(p)
		default: // .lo
			p := d.node(Mul, w, a, b)
			if op == "mad" {
				if hasCC {
					d.opaque(in.Op() + " with carry")
					return
				}
				p = d.node(Add, w, p, src(2))
			}
			_ = c
			one(p)
		}
	case "mul24", "mad24":
		if w != 32 || in.HasMod("sat") {
			d.opaque(in.Op())
			return
		}
		rd := func(x int32) int32 {
			x = d.node(Trunc, 24, x)
			return d.resize(x, 64, t.signed)
		}
		p := d.node(Mul, 64, rd(src(0)), rd(src(1)))
		if in.HasMod("hi") {
			p = d.node(Trunc, 32, d.node(LShr, 64, p, d.konst(32, 16)))
		} else {
			p = d.node(Trunc, 32, p)
		}
		if op == "mad24" {
			p = d.node(Add, 32, p, src(2))
		}
		one(p)
	case "div", "rem":
		code := map[bool]map[string]Code{false: {"div": UDiv, "rem": URem}, true: {"div": SDiv, "rem": SRem}}[t.signed][op]
		one(d.node(code, w, src(0), src(1)))
	case "abs":
		a := src(0)
		one(d.node(Select, w, d.node(SLt, 1, a, d.konst(w, 0)), d.node(Neg, w, a), a))
	case "neg":
		one(d.node(Neg, w, src(0)))
	case "min", "max":
		code := map[bool]map[string]Code{false: {"min": UMin, "max": UMax}, true: {"min": SMin, "max": SMax}}[t.signed][op]
		r := d.node(code, w, src(0), src(1))
		if in.HasMod("relu") {
			r = d.node(SMax, w, r, d.konst(w, 0))
		}
		one(r)
	case "and", "or", "xor":
		code := map[string]Code{"and": And, "or": Or, "xor": Xor}[op]
		one(d.node(code, w, src(0), src(1)))
	case "not":
		one(d.node(Not, w, src(0)))
	case "cnot":
		one(d.resize(d.node(Eq, 1, src(0), d.konst(w, 0)), w, false))
	case "shl", "shr":
		a := src(0)
		s := d.opnd(in.Srcs[1], 32)
		code := Shl
		if op == "shr" {
			code = LShr
			if t.signed {
				code = AShr
			}
		}
		one(d.node(code, w, a, s))
	case "shf":
		d.shf()
	case "bfe":
		d.bfe(t)
	case "bfi":
		d.bfi(w)
	case "popc", "clz":
		code := Popc
		if op == "clz" {
			code = Clz
		}
		one(d.node(code, 32, src(0)))
	case "brev":
		one(d.node(Brev, w, src(0)))
	case "lop3":
		if len(in.Srcs) != 4 || in.Srcs[3].Kind != isa.OpImm {
			d.opaque("lop3 with a non-immediate table")
			return
		}
		lut, ok := parseInt(in.Srcs[3].Text)
		if !ok {
			d.opaque("lop3 table")
			return
		}
		one(d.lop3(w, uint8(lut), src(0), src(1), src(2)))
	case "prmt":
		d.prmt()
	case "selp":
		one(d.node(Select, w, d.opnd(in.Srcs[2], 1), src(0), src(1)))
	case "slct":
		if len(ts) != 2 || ts[1].float {
			d.opaque(in.Op() + " compares floating point")
			return
		}
		c := d.opnd(in.Srcs[2], 32)
		one(d.node(Select, w, d.node(SLe, 1, d.konst(32, 0), c), src(0), src(1)))
	case "setp", "set":
		d.setp(ts)
	case "cvt":
		d.cvt(ts)
	case "cvta":
		if len(in.Srcs) != 1 || in.Srcs[0].Kind != isa.OpReg && !(in.Srcs[0].Kind == isa.OpSym && isDepot(in.Srcs[0].Text)) {
			d.opaque(in.Op() + " of a symbol")
			return
		}
		// A conversion between generic and space-specific addresses
		// keeps the address within its object: modelled as a copy.
		one(src(0))
	default:
		if len(in.Defs()) > 0 {
			d.opaque(in.Op() + " is not modelled")
		}
	}
}

// mov: d = a; vector pack {a, b} -> d and unpack d -> {a, b}.
func (d *ptxDec) mov(w int) {
	in := d.in
	if len(in.Dsts) != 1 || len(in.Srcs) != 1 {
		d.opaque("mov with unexpected operands")
		return
	}
	dst, s := in.Dsts[0], in.Srcs[0]
	switch {
	case dst.Kind == isa.OpVec && s.Kind != isa.OpVec:
		n := len(dst.Regs)
		if n == 0 || w%n != 0 {
			d.opaque("mov unpack")
			return
		}
		ew := w / n
		x := d.opnd(s, w)
		for i, r := range dst.Regs {
			part := d.node(Trunc, ew, d.node(LShr, w, x, d.konst(32, uint64(i*ew))))
			d.out(r, ew, part)
		}
	case s.Kind == isa.OpVec && dst.Kind == isa.OpReg:
		n := len(s.Regs)
		if n == 0 || w%n != 0 || len(dst.Regs) != 1 {
			d.opaque("mov pack")
			return
		}
		ew := w / n
		var acc int32 = -1
		for i, r := range s.Regs {
			p := d.node(ZExt, w, d.input(In{Kind: InReg, Name: r, W: uint8(ew)}))
			if i > 0 {
				p = d.node(Shl, w, p, d.konst(32, uint64(i*ew)))
				acc = d.node(Or, w, acc, p)
			} else {
				acc = p
			}
		}
		d.out(dst.Regs[0], w, acc)
	case dst.Kind == isa.OpReg && len(dst.Regs) == 1:
		d.out(dst.Regs[0], w, d.opnd(s, w))
	default:
		d.opaque("mov with unexpected operands")
	}
}

// addSub decodes add, sub, addc, subc with .cc carries and .sat.
func (d *ptxDec) addSub(op string, t ptype, hasCC bool) {
	in := d.in
	w := t.w
	if len(in.Srcs) < 2 {
		d.opaque(in.Op())
		return
	}
	a, b := d.opnd(in.Srcs[0], w), d.opnd(in.Srcs[1], w)
	r, ok := d.dst(0)
	if !ok {
		d.opaque(in.Op())
		return
	}
	if in.HasMod("sat") {
		if !t.signed || w != 32 || hasCC || op == "addc" || op == "subc" {
			d.opaque(in.Op())
			return
		}
		code := Add
		if op == "sub" {
			code = Sub
		}
		x := d.node(code, 64, d.resize(a, 64, true), d.resize(b, 64, true))
		x = d.node(SMax, 64, d.node(SMin, 64, x, d.konst(64, 1<<31-1)), d.konst(64, uint64(0xffffffff80000000)))
		d.out(r, 32, d.node(Trunc, 32, x))
		return
	}
	// The sum at w+1 bits gives the carry; borrow is a < b (+ borrow in).
	wide := func(x int32) int32 { return d.resize(x, w+1, false) }
	var res, carry int32
	switch op {
	case "add", "addc":
		s := d.node(Add, w+1, wide(a), wide(b))
		if op == "addc" {
			s = d.node(Add, w+1, s, d.resize(d.input(In{Kind: InReg, Name: "%cc", W: 1}), w+1, false))
		}
		res = d.node(Trunc, w, s)
		carry = d.node(Trunc, 1, d.node(LShr, w+1, s, d.konst(8, uint64(w))))
	default:
		s := d.node(Sub, w+1, wide(a), wide(b))
		if op == "subc" {
			s = d.node(Sub, w+1, s, d.resize(d.input(In{Kind: InReg, Name: "%cc", W: 1}), w+1, false))
		}
		res = d.node(Trunc, w, s)
		carry = d.node(Trunc, 1, d.node(LShr, w+1, s, d.konst(8, uint64(w)))) // the borrow
	}
	if r != "" {
		d.out(r, w, res)
	}
	if hasCC {
		d.out("%cc", 1, carry)
	}
}

// shf: funnel shift shf.{l,r}.{wrap,clamp}.b32 d, a, b, c of b:a.
func (d *ptxDec) shf() {
	in := d.in
	if len(in.Srcs) != 3 {
		d.opaque(in.Op())
		return
	}
	a, b, c := d.opnd(in.Srcs[0], 32), d.opnd(in.Srcs[1], 32), d.opnd(in.Srcs[2], 32)
	var n int32
	if in.HasMod("wrap") {
		n = d.node(And, 32, c, d.konst(32, 31))
	} else {
		n = d.node(UMin, 32, c, d.konst(32, 32))
	}
	pair := d.node(Or, 64, d.node(ZExt, 64, a), d.node(Shl, 64, d.node(ZExt, 64, b), d.konst(32, 32)))
	var r int32
	if in.HasMod("l") {
		r = d.node(Trunc, 32, d.node(LShr, 64, d.node(Shl, 64, pair, n), d.konst(32, 32)))
	} else {
		r = d.node(Trunc, 32, d.node(LShr, 64, pair, n))
	}
	if x, ok := d.dst(0); ok && x != "" {
		d.out(x, 32, r)
	}
}

// bfe with immediate position and length inside the value.
func (d *ptxDec) bfe(t ptype) {
	in := d.in
	if len(in.Srcs) != 3 || in.Srcs[1].Kind != isa.OpImm || in.Srcs[2].Kind != isa.OpImm {
		d.opaque("bfe with a register position or length")
		return
	}
	pos, ok1 := parseInt(in.Srcs[1].Text)
	n, ok2 := parseInt(in.Srcs[2].Text)
	pos, n = pos&0xff, n&0xff
	w := t.w
	if !ok1 || !ok2 || n == 0 || pos+n > uint64(w) {
		d.opaque("bfe outside the value")
		return
	}
	a := d.opnd(in.Srcs[0], w)
	x := d.node(Trunc, int(n), d.node(LShr, w, a, d.konst(32, pos)))
	r, ok := d.dst(0)
	if !ok {
		d.opaque("bfe")
		return
	}
	if r != "" {
		d.out(r, w, d.resize(x, w, t.signed))
	}
}

// bfi with immediate position and length inside the value.
func (d *ptxDec) bfi(w int) {
	in := d.in
	if len(in.Srcs) != 4 || in.Srcs[2].Kind != isa.OpImm || in.Srcs[3].Kind != isa.OpImm {
		d.opaque("bfi with a register position or length")
		return
	}
	pos, ok1 := parseInt(in.Srcs[2].Text)
	n, ok2 := parseInt(in.Srcs[3].Text)
	pos, n = pos&0xff, n&0xff
	if !ok1 || !ok2 || pos+n > uint64(w) {
		d.opaque("bfi outside the value")
		return
	}
	f, b := d.opnd(in.Srcs[0], w), d.opnd(in.Srcs[1], w)
	m := Mask(int(n)) << pos
	x := d.node(Or, w, d.node(And, w, b, d.konst(w, ^m)), d.node(And, w, d.node(Shl, w, f, d.konst(32, pos)), d.konst(w, m)))
	if r, ok := d.dst(0); ok && r != "" {
		d.out(r, w, x)
	}
}

// prmt.b32 d, a, b, c with an immediate selector, default mode: byte i of
// d is byte c[4i+2:4i] of b:a, replicated from its sign when c[4i+3].
func (d *ptxDec) prmt() {
	in := d.in
	if len(in.Mods) != 1 || len(in.Srcs) != 3 || in.Srcs[2].Kind != isa.OpImm {
		d.opaque("prmt with a mode or a register selector")
		return
	}
	c, ok := parseInt(in.Srcs[2].Text)
	if !ok {
		d.opaque("prmt selector")
		return
	}
	a, b := d.opnd(in.Srcs[0], 32), d.opnd(in.Srcs[1], 32)
	pair := d.node(Or, 64, d.node(ZExt, 64, a), d.node(Shl, 64, d.node(ZExt, 64, b), d.konst(32, 32)))
	var acc int32 = -1
	for i := 0; i < 4; i++ {
		sel := c >> (4 * i) & 0xf
		byt := d.node(Trunc, 8, d.node(LShr, 64, pair, d.konst(32, 8*(sel&7))))
		if sel&8 != 0 {
			byt = d.node(AShr, 8, byt, d.konst(32, 7))
		}
		x := d.node(Shl, 32, d.node(ZExt, 32, byt), d.konst(32, uint64(8*i)))
		if acc < 0 {
			acc = x
		} else {
			acc = d.node(Or, 32, acc, x)
		}
	}
	if r, ok := d.dst(0); ok && r != "" {
		d.out(r, 32, acc)
	}
}

// lop3 builds the three-input function with truth table lut (bit i is
// the result for a = i&4... as PTX: a = 0xF0, b = 0xCC, c = 0xAA) from
// and/or/xor/not, recognising the common tables.
func (b *builder) lop3(w int, lut uint8, x, y, z int32) int32 {
	const ta, tb, tc = 0xf0, 0xcc, 0xaa
	all := b.konst(w, Mask(w))
	switch lut {
	case 0:
		return b.konst(w, 0)
	case 0xff:
		return all
	case ta:
		return x
	case tb:
		return y
	case tc:
		return z
	case ta & tb:
		return b.node(And, w, x, y)
	case ta & tc:
		return b.node(And, w, x, z)
	case tb & tc:
		return b.node(And, w, y, z)
	case ta | tb:
		return b.node(Or, w, x, y)
	case ta | tc:
		return b.node(Or, w, x, z)
	case tb | tc:
		return b.node(Or, w, y, z)
	case ta ^ tb:
		return b.node(Xor, w, x, y)
	case ta ^ tc:
		return b.node(Xor, w, x, z)
	case tb ^ tc:
		return b.node(Xor, w, y, z)
	case ^uint8(ta):
		return b.node(Not, w, x)
	case ^uint8(tb):
		return b.node(Not, w, y)
	case ^uint8(tc):
		return b.node(Not, w, z)
	case ta & tb & tc:
		return b.node(And, w, b.node(And, w, x, y), z)
	case ta | tb | tc:
		return b.node(Or, w, b.node(Or, w, x, y), z)
	case ta ^ tb ^ tc:
		return b.node(Xor, w, b.node(Xor, w, x, y), z)
	case ta &^ tb:
		return b.node(And, w, x, b.node(Not, w, y))
	case ta &^ tc:
		return b.node(And, w, x, b.node(Not, w, z))
	case tb &^ ta:
		return b.node(And, w, y, b.node(Not, w, x))
	case tb &^ tc:
		return b.node(And, w, y, b.node(Not, w, z))
	case tc &^ ta:
		return b.node(And, w, z, b.node(Not, w, x))
	case tc &^ tb:
		return b.node(And, w, z, b.node(Not, w, y))
	}
	// Sum of minterms.
	var acc int32 = -1
	for i := 0; i < 8; i++ {
		if lut>>uint(i)&1 == 0 {
			continue
		}
		lit := func(v int32, bit int) int32 {
			if i>>uint(bit)&1 == 1 {
				return v
			}
			return b.node(Not, w, v)
		}
		t := b.node(And, w, b.node(And, w, lit(x, 2), lit(y, 1)), lit(z, 0))
		if acc < 0 {
			acc = t
		} else {
			acc = b.node(Or, w, acc, t)
		}
	}
	return acc
}

// setp.cmp[.bool].T p[|q], a, b[, c]; set.cmp[.bool].D.T d, a, b[, c].
func (d *ptxDec) setp(ts []ptype) {
	in := d.in
	t := ts[len(ts)-1]
	if t.float {
		d.opaque(in.Op() + " compares floating point")
		return
	}
	if len(in.Mods) == 0 || len(in.Srcs) < 2 {
		d.opaque(in.Op())
		return
	}
	w := t.w
	a, b := d.opnd(in.Srcs[0], w), d.opnd(in.Srcs[1], w)
	c := d.cmp(in.Mods[0], t.signed, a, b)
	if c < 0 && d.bad == "" {
		d.opaque(in.Op() + ": comparison " + in.Mods[0])
		return
	}
	nc := d.node(Not, 1, c)
	boolOp := ""
	if len(in.Srcs) == 3 {
		if len(in.Mods) < 3 {
			d.opaque(in.Op())
			return
		}
		boolOp = in.Mods[1]
		p := d.opnd(in.Srcs[2], 1)
		code := map[string]Code{"and": And, "or": Or, "xor": Xor}[boolOp]
		if code == Invalid {
			d.opaque(in.Op())
			return
		}
		c = d.node(code, 1, c, p)
		nc = d.node(code, 1, nc, p)
	}
	if in.Opcode == "set" {
		if len(ts) != 2 || len(in.Dsts) != 1 {
			d.opaque(in.Op())
			return
		}
		dt := ts[0]
		var tv uint64 = Mask(dt.w)
		if dt.float {
			if dt.w != 32 {
				d.opaque(in.Op())
				return
			}
			tv = 0x3f800000
		}
		if r, ok := d.dst(0); ok && r != "" {
			d.out(r, dt.w, d.node(Select, dt.w, c, d.konst(dt.w, tv), d.konst(dt.w, 0)))
		}
		return
	}
	for i := range in.Dsts {
		r, ok := d.dst(i)
		if !ok || i > 1 {
			d.opaque(in.Op())
			return
		}
		if r == "" {
			continue
		}
		if i == 0 {
			d.out(r, 1, c)
		} else {
			d.out(r, 1, nc)
		}
	}
}

// cmp builds the comparison named by a PTX or SASS comparison operator.
func (b *builder) cmp(op string, signed bool, x, y int32) int32 {
	lt, le := ULt, ULe
	if signed {
		lt, le = SLt, SLe
	}
	switch strings.ToLower(op) {
	case "eq":
		return b.node(Eq, 1, x, y)
	case "ne":
		return b.node(Ne, 1, x, y)
	case "lt":
		return b.node(lt, 1, x, y)
	case "le":
		return b.node(le, 1, x, y)
	case "gt":
		return b.node(lt, 1, y, x)
	case "ge":
		return b.node(le, 1, y, x)
	case "lo":
		return b.node(ULt, 1, x, y)
	case "ls":
		return b.node(ULe, 1, x, y)
	case "hi":
		return b.node(ULt, 1, y, x)
	case "hs":
		return b.node(ULe, 1, y, x)
	case "t":
		return b.konst(1, 1)
	case "f":
		return b.konst(1, 0)
	}
	return -1
}

// cvt between integer types (with .sat); float conversions are opaque.
func (d *ptxDec) cvt(ts []ptype) {
	in := d.in
	if len(ts) != 2 || len(in.Srcs) != 1 {
		d.opaque(in.Op())
		return
	}
	dt, st := ts[0], ts[1]
	if dt.float || st.float || dt.pred || st.pred {
		d.opaque(in.Op() + " converts floating point")
		return
	}
	r, ok := d.dst(0)
	if !ok {
		d.opaque(in.Op())
		return
	}
	x := d.opnd(in.Srcs[0], st.w)
	if in.HasMod("sat") {
		lo, hi := int64(0), int64(Mask(dt.w))
		if dt.signed {
			lo, hi = -1<<(dt.w-1), 1<<(dt.w-1)-1
		}
		if dt.w == 64 && !dt.signed {
			hi = 1<<63 - 1 // a signed source: at most the s64 maximum
		}
		x64 := d.resize(x, 64, st.signed)
		if st.signed {
			x64 = d.node(SMax, 64, d.node(SMin, 64, x64, d.konst(64, uint64(hi))), d.konst(64, uint64(lo)))
		} else if !(dt.w == 64 && !dt.signed) { // u64 to u64 needs no saturation
			x64 = d.node(UMin, 64, x64, d.konst(64, uint64(hi)))
		}
		if r != "" {
			d.out(r, dt.w, d.resize(x64, dt.w, false))
			d.s.Outs[len(d.s.Outs)-1].Signed = dt.signed
		}
		return
	}
	if r != "" {
		d.out(r, dt.w, d.resize(x, dt.w, st.signed))
		d.s.Outs[len(d.s.Outs)-1].Signed = dt.signed
	}
}

// load: ld/ldu from param, local, generic or another space.
func (d *ptxDec) load() {
	in := d.in
	ts := ptxTypes(in)
	if len(ts) == 0 || len(in.Srcs) < 1 || in.Srcs[0].Kind != isa.OpMem || len(in.Dsts) != 1 {
		d.opaque(in.Op())
		return
	}
	t := ts[len(ts)-1]
	switch in.Space {
	case isa.SpaceParam, isa.SpaceLocal, isa.SpaceGeneric, isa.SpaceNone:
	default:
		d.opaque("load from " + in.Space.String() + " memory")
		return
	}
	if in.Opcode != "ld" {
		d.opaque(in.Op())
		return
	}
	regs := in.Dsts[0].Regs
	if in.Dsts[0].Kind == isa.OpReg && len(regs) != 1 || in.Dsts[0].Kind != isa.OpReg && in.Dsts[0].Kind != isa.OpVec {
		d.opaque(in.Op())
		return
	}
	for i, r := range regs {
		v := d.memIn(in.Srcs[0], in.Space, t.w, int64(i*t.w/8))
		d.out(r, t.w, v)
		d.s.Outs[len(d.s.Outs)-1].Signed = t.signed
	}
}

// store: st to param, local, generic memory (other spaces write nothing
// the analysis follows).
func (d *ptxDec) store() {
	in := d.in
	ts := ptxTypes(in)
	if len(ts) == 0 || len(in.Srcs) != 2 || in.Srcs[0].Kind != isa.OpMem || in.Opcode != "st" {
		return
	}
	t := ts[len(ts)-1]
	reg, sym, off, ok := mem(in.Srcs[0])
	if !ok {
		d.s.Opaque = "address " + in.Srcs[0].Text
		d.s.Outs = append(d.s.Outs, Out{Kind: OutMem, Space: in.Space, Base: -1, Node: -1, Name: "?"})
		return
	}
	base := int32(-1)
	if reg != "" {
		bi := d.input(In{Kind: InReg, Name: reg, W: 64})
		if bi >= 0 {
			base = int32(d.s.Nodes[bi].Imm)
		}
	}
	v := in.Srcs[1]
	var vals []int32
	switch v.Kind {
	case isa.OpVec:
		for _, r := range v.Regs {
			vals = append(vals, d.input(In{Kind: InReg, Name: r, W: uint8(t.w)}))
		}
	default:
		vals = append(vals, d.opnd(v, t.w))
	}
	for i, x := range vals {
		d.s.Outs = append(d.s.Outs, Out{Kind: OutMem, Name: sym, W: uint8(t.w), Node: x, Space: in.Space, Base: base, Off: off + int64(i*t.w/8)})
	}
}
