package simt

import (
	"math"
	"math/bits"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// The semantics of PTX instructions, lane by lane, after the PTX ISA
// manual: integers are computed modulo 2^w at the instruction's width w,
// signedness is the instruction's type (never the producer's), shifts by w
// or more give 0 (or the sign), division truncates towards zero, the
// remainder has the dividend's sign; f32 arithmetic rounds to f32 (Go's
// float32 operations round to nearest even, PTX's .rn); f16 and formats
// the interpreter does not compute, texture and surface reads, and
// instructions it does not know give a drawn value, as memory does.

func mask(v uint64, w uint8) uint64 {
	if w >= 64 {
		return v
	}
	return v & (1<<w - 1)
}

func sext(v uint64, w uint8) int64 {
	if w >= 64 {
		return int64(v)
	}
	s := 64 - w
	return int64(v<<s) >> s
}

// store is the register value of a w-bit result of type t: sign-extended
// for signed types (a narrower signed load fills the register with its
// sign), zero-extended otherwise.
func store(v uint64, t typ) uint64 {
	w := t.w
	if t.k == 'p' {
		return v & 1
	}
	if w == 0 || w >= 64 {
		return v
	}
	if t.k == 's' {
		return uint64(sext(v, w))
	}
	return mask(v, w)
}

// f reads the bits v of type t as a float64.
func toF(v uint64, w uint8) float64 {
	if w == 32 {
		return float64(math.Float32frombits(uint32(v)))
	}
	return math.Float64frombits(v)
}

func fromF(f float64, w uint8) uint64 {
	if w == 32 {
		return uint64(math.Float32bits(float32(f)))
	}
	return math.Float64bits(f)
}

// lane is the context of one lane executing one instruction.
type laneCtx struct {
	x     *run
	w     *warp
	fr    *frame
	d     *dinstr
	l     int
	drawn bool // a source read was drawn
}

// read returns operand o of the instruction as type t (integer bits
// masked to t's width; a float immediate as t's float bits).
func (c *laneCtx) read(o *opnd, t typ) uint64 {
	switch o.kind {
	case oReg:
		v, dr := c.fr.get(c.x, o.reg, c.l)
		c.drawn = c.drawn || dr
		if o.neg {
			v = ^v & 1
		}
		if t.w > 0 && t.k != 'f' {
			return mask(v, t.w)
		}
		return v
	case oImm:
		if t.k == 'f' {
			if o.fimm {
				if t.w == 32 {
					return o.imm32
				}
				return o.imm
			}
			return fromF(float64(int64(o.imm)), t.w)
		}
		if o.fimm { // a float literal read as bits
			if t.w == 32 {
				return o.imm32
			}
			return o.imm
		}
		return mask(o.imm, max(t.w, 1))
	case oSpecial:
		v, dr := c.x.special(c.w, c.l, o.spec)
		c.drawn = c.drawn || dr
		return mask(v, max(t.w, 1))
	case oSym:
		return symAddr(o.sym)
	}
	c.drawn = true
	return c.x.src.value(int(max(t.w, 1)), t.k == 'f')
}

// write sets destination i to v (of type t), marked drawn when a source
// read was.
func (c *laneCtx) write(i int, v uint64, t typ) {
	if i >= len(c.d.dst) {
		return
	}
	o := &c.d.dst[i]
	if o.kind == oReg {
		c.fr.set(o.reg, c.l, store(v, t), c.drawn)
	}
}

// drawAll gives every destination register a drawn value: the
// interpreter does not compute the instruction.
func (c *laneCtx) drawAll() {
	t := c.d.ty()
	w := int(t.w)
	if w == 0 || w > 64 {
		w = 32
	}
	c.drawn = true
	for _, o := range c.d.dst {
		switch o.kind {
		case oReg:
			c.fr.set(o.reg, c.l, c.x.src.value(w, t.k == 'f'), true)
		case oVec:
			for _, r := range o.regs {
				if r >= 0 {
					c.fr.set(r, c.l, c.x.src.value(w, t.k == 'f'), true)
				}
			}
		}
	}
	c.x.drawnOps++
}

var u32 = typ{'u', 32}

// exec runs an ordinary (non-control, non-warp-level) instruction for one
// lane.
func (c *laneCtx) exec() error {
	d := c.d
	t := d.ty()
	if t.k == 'h' || t.w == 128 {
		c.drawAll()
		return nil
	}
	src := func(i int) uint64 {
		if i >= len(d.src) {
			c.drawn = true
			return 0
		}
		return c.read(&d.src[i], t)
	}
	switch d.op {
	case "mov":
		return c.mov()
	case "cvta":
		// cvta.local / cvta.shared: into the space's generic window;
		// cvta.to.local / cvta.to.shared: back (mem.go). Global (and
		// 32-bit) addresses are the same in both.
		v := src(0)
		if t.w == 64 {
			sp := isa.SpaceNone
			switch {
			case d.has("local"):
				sp = isa.SpaceLocal
			case d.has("shared"):
				sp = isa.SpaceShared
			}
			if d.has("to") {
				v = toSpace(sp, v)
			} else {
				v = toGeneric(sp, v)
			}
		}
		c.write(0, v, t)
	case "cvt":
		c.cvt()
	case "ld", "ldu":
		return c.load()
	case "st":
		return c.storeMem()
	case "atom", "red":
		return c.atomic()
	case "selp":
		a, b := src(0), src(1)
		if c.read(&d.src[2], typ{'p', 1}) != 0 {
			c.write(0, a, t)
		} else {
			c.write(0, b, t)
		}
	case "slct":
		// slct.dtype.ctype d, a, b, c: d = c >= 0 ? a : b.
		if len(d.types) != 2 {
			c.drawAll()
			return nil
		}
		dt, ct := d.types[0], d.types[1]
		a, b := c.read(&d.src[0], dt), c.read(&d.src[1], dt)
		cv := c.read(&d.src[2], ct)
		ge := false
		if ct.k == 'f' {
			ge = toF(cv, ct.w) >= 0
		} else {
			ge = sext(cv, ct.w) >= 0
		}
		if ge {
			c.write(0, a, dt)
		} else {
			c.write(0, b, dt)
		}
	case "setp", "set":
		c.setp()
	case "and", "or", "xor", "not", "cnot":
		c.logic()
	case "lop3":
		a, b, cc := src(0), src(1), src(2)
		lut := c.read(&d.src[3], u32) & 0xff
		var r uint64
		for i := uint8(0); i < t.w; i++ {
			k := (a>>i&1)<<2 | (b>>i&1)<<1 | (cc >> i & 1)
			r |= (lut >> k & 1) << i
		}
		c.write(0, r, t)
	case "shl", "shr":
		a := src(0)
		n := c.read(&d.src[1], u32)
		var r uint64
		switch {
		case d.op == "shl":
			if n < uint64(t.w) {
				r = a << n
			}
		case t.signed():
			s := sext(a, t.w)
			if n >= uint64(t.w) {
				n = uint64(t.w) - 1
			}
			r = uint64(s >> n)
		default:
			if n < uint64(t.w) {
				r = a >> n
			}
		}
		c.write(0, mask(r, t.w), t)
	case "shf":
		c.shf()
	case "bfe":
		c.bfe()
	case "bfi":
		c.bfi()
	case "popc":
		c.write(0, uint64(bits.OnesCount64(src(0))), u32)
	case "clz":
		a := src(0)
		c.write(0, uint64(bits.LeadingZeros64(a)-(64-int(t.w))), u32)
	case "brev":
		a := src(0)
		c.write(0, bits.Reverse64(a)>>(64-uint(t.w)), t)
	case "bfind":
		c.bfind()
	case "prmt":
		c.prmt()
	default:
		if t.k == 'f' {
			return c.float()
		}
		return c.integer()
	}
	return nil
}

func (c *laneCtx) mov() error {
	d := c.d
	t := d.ty()
	if len(d.dst) != 1 || len(d.src) != 1 {
		c.drawAll()
		return nil
	}
	dst, s := &d.dst[0], &d.src[0]
	switch {
	case dst.kind == oVec && s.kind != oVec:
		// Unpack: mov.b64 {lo, hi}, a.
		v := c.read(s, t)
		ew := t.w / uint8(len(dst.regs))
		for i, r := range dst.regs {
			if r >= 0 {
				c.fr.set(r, c.l, mask(v>>(uint(i)*uint(ew)), ew), c.drawn)
			}
		}
	case s.kind == oVec && dst.kind != oVec:
		// Pack: mov.b64 d, {lo, hi}.
		ew := t.w / uint8(len(s.regs))
		var v uint64
		for i, r := range s.regs {
			if r >= 0 {
				x, dr := c.fr.get(c.x, r, c.l)
				c.drawn = c.drawn || dr
				v |= mask(x, ew) << (uint(i) * uint(ew))
			}
		}
		c.write(0, v, t)
	default:
		c.write(0, c.read(s, t), t)
	}
	return nil
}

func (c *laneCtx) integer() error {
	d := c.d
	t := d.ty()
	if t.k == 0 || t.k == 'p' {
		c.drawAll()
		return nil
	}
	if d.has("cc") || d.op == "addc" || d.op == "subc" || d.op == "madc" {
		c.drawAll() // carry chains: not computed
		return nil
	}
	w := t.w
	src := func(i int) uint64 {
		if i >= len(d.src) {
			c.drawn = true
			return 0
		}
		return c.read(&d.src[i], t)
	}
	less := func(a, b uint64) bool {
		if t.signed() {
			return sext(a, w) < sext(b, w)
		}
		return a < b
	}
	switch d.op {
	case "add", "sub":
		a, b := src(0), src(1)
		r := a + b
		if d.op == "sub" {
			r = a - b
		}
		if d.has("sat") && t.signed() {
			x, y := sext(a, w), sext(b, w)
			s := x + y
			if d.op == "sub" {
				s = x - y
			}
			lo, hi := int64(-1)<<(w-1), int64(1)<<(w-1)-1
			if w < 64 {
				r = uint64(min(max(s, lo), hi))
			}
		}
		c.write(0, mask(r, w), t)
	case "mul", "mad":
		a, b := src(0), src(1)
		var r uint64
		outT := t
		switch {
		case d.has("wide"):
			outT = typ{t.k, 2 * w}
			if t.signed() {
				r = uint64(sext(a, w) * sext(b, w))
			} else {
				r = a * b
			}
			r = mask(r, 2*w)
		case d.has("hi"):
			r = mulHi(a, b, t)
		default:
			r = mask(a*b, w)
		}
		if d.op == "mad" {
			cv := c.read(&d.src[2], outT)
			r = mask(r+cv, outT.w)
			if d.has("sat") && t.signed() && d.has("hi") {
				// mad.hi.sat.s32: saturate the 32-bit sum.
				s := sext(mulHi(a, b, t), w) + sext(cv, w)
				r = mask(uint64(min(max(s, math.MinInt32), math.MaxInt32)), w)
			}
		}
		c.write(0, r, outT)
	case "mul24", "mad24":
		a, b := src(0), src(1)
		var x, y int64
		if t.signed() {
			x, y = sext(a, 24), sext(b, 24)
		} else {
			x, y = int64(mask(a, 24)), int64(mask(b, 24))
		}
		p := uint64(x * y)
		var r uint64
		if d.has("hi") {
			r = mask(p>>16, 32)
		} else {
			r = mask(p, 32)
		}
		if d.op == "mad24" {
			r = mask(r+src(2), 32)
		}
		c.write(0, r, t)
	case "sad":
		a, b, cv := src(0), src(1), src(2)
		var diff uint64
		if less(a, b) {
			diff = b - a
		} else {
			diff = a - b
		}
		c.write(0, mask(mask(diff, w)+cv, w), t)
	case "div", "rem":
		a, b := src(0), src(1)
		if b == 0 {
			// Undefined by the manual: any value.
			c.drawAll()
			return nil
		}
		var r uint64
		if t.signed() {
			x, y := sext(a, w), sext(b, w)
			if d.op == "div" {
				r = uint64(x / y)
			} else {
				r = uint64(x % y)
			}
		} else if d.op == "div" {
			r = a / b
		} else {
			r = a % b
		}
		c.write(0, mask(r, w), t)
	case "abs":
		a := src(0)
		if t.signed() && sext(a, w) < 0 {
			a = -a
		}
		c.write(0, mask(a, w), t)
	case "neg":
		c.write(0, mask(-src(0), w), t)
	case "min", "max":
		a, b := src(0), src(1)
		r := a
		if (d.op == "min") == less(b, a) {
			r = b
		}
		if d.has("relu") && t.signed() && sext(r, w) < 0 {
			r = 0
		}
		c.write(0, r, t)
	default:
		c.drawAll()
	}
	return nil
}

// mulHi returns the high w bits of the 2w-bit product of a and b.
func mulHi(a, b uint64, t typ) uint64 {
	w := t.w
	if w < 64 {
		var p uint64
		if t.signed() {
			p = uint64(sext(a, w) * sext(b, w))
		} else {
			p = a * b
		}
		return mask(p>>w, w)
	}
	hi, _ := bits.Mul64(a, b)
	if t.signed() {
		if int64(a) < 0 {
			hi -= b
		}
		if int64(b) < 0 {
			hi -= a
		}
	}
	return hi
}

func (c *laneCtx) float() error {
	d := c.d
	t := d.ty()
	if t.w != 32 && t.w != 64 {
		c.drawAll()
		return nil
	}
	src := func(i int) float64 {
		if i >= len(d.src) {
			c.drawn = true
			return 0
		}
		return toF(c.read(&d.src[i], t), t.w)
	}
	r32 := func(f float64) float64 { // round to the instruction's precision
		if t.w == 32 {
			return float64(float32(f))
		}
		return f
	}
	var r float64
	switch d.op {
	case "add":
		if t.w == 32 {
			r = float64(float32(src(0)) + float32(src(1)))
		} else {
			r = src(0) + src(1)
		}
	case "sub":
		if t.w == 32 {
			r = float64(float32(src(0)) - float32(src(1)))
		} else {
			r = src(0) - src(1)
		}
	case "mul":
		if t.w == 32 {
			r = float64(float32(src(0)) * float32(src(1)))
		} else {
			r = src(0) * src(1)
		}
	case "fma", "mad":
		r = r32(math.FMA(src(0), src(1), src(2)))
	case "div":
		if t.w == 32 {
			r = float64(float32(src(0)) / float32(src(1)))
		} else {
			r = src(0) / src(1)
		}
	case "abs":
		r = math.Abs(src(0))
	case "neg":
		r = -src(0)
	case "min", "max":
		a, b := src(0), src(1)
		switch {
		case math.IsNaN(a):
			r = b
		case math.IsNaN(b):
			r = a
		case d.op == "min":
			r = math.Min(a, b)
		default:
			r = math.Max(a, b)
		}
	case "sqrt":
		r = r32(math.Sqrt(src(0)))
	case "rsqrt":
		r = r32(1 / math.Sqrt(src(0)))
	case "rcp":
		r = r32(1 / src(0))
	case "sin":
		r = r32(math.Sin(src(0)))
	case "cos":
		r = r32(math.Cos(src(0)))
	case "lg2":
		r = r32(math.Log2(src(0)))
	case "ex2":
		r = r32(math.Exp2(src(0)))
	case "tanh":
		r = r32(math.Tanh(src(0)))
	case "copysign":
		r = math.Copysign(src(1), src(0))
	case "testp":
		a := src(0)
		var p bool
		switch {
		case d.has("finite"):
			p = !math.IsInf(a, 0) && !math.IsNaN(a)
		case d.has("infinite"):
			p = math.IsInf(a, 0)
		case d.has("number"):
			p = !math.IsNaN(a)
		case d.has("notanumber"):
			p = math.IsNaN(a)
		case d.has("normal"):
			p = a != 0 && !math.IsInf(a, 0) && !math.IsNaN(a) && math.Abs(a) >= smallestNormal(t.w)
		case d.has("subnormal"):
			p = a != 0 && math.Abs(a) < smallestNormal(t.w)
		default:
			c.drawAll()
			return nil
		}
		c.write(0, b2u(p), typ{'p', 1})
		return nil
	default:
		c.drawAll()
		return nil
	}
	if d.has("sat") {
		if math.IsNaN(r) {
			r = 0
		}
		r = math.Min(math.Max(r, 0), 1)
	}
	c.write(0, fromF(r, t.w), t)
	return nil
}

func smallestNormal(w uint8) float64 {
	if w == 32 {
		return 0x1p-126
	}
	return 0x1p-1022
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// compare evaluates the comparison cmp of a and b of type t.
func compare(cmp string, a, b uint64, t typ) (bool, bool) {
	if t.k == 'f' {
		x, y := toF(a, t.w), toF(b, t.w)
		nan := math.IsNaN(x) || math.IsNaN(y)
		switch cmp {
		case "eq":
			return !nan && x == y, true
		case "ne":
			return !nan && x != y, true
		case "lt":
			return !nan && x < y, true
		case "le":
			return !nan && x <= y, true
		case "gt":
			return !nan && x > y, true
		case "ge":
			return !nan && x >= y, true
		case "equ":
			return nan || x == y, true
		case "neu":
			return nan || x != y, true
		case "ltu":
			return nan || x < y, true
		case "leu":
			return nan || x <= y, true
		case "gtu":
			return nan || x > y, true
		case "geu":
			return nan || x >= y, true
		case "num":
			return !nan, true
		case "nan":
			return nan, true
		}
		return false, false
	}
	switch cmp {
	case "eq":
		return a == b, true
	case "ne":
		return a != b, true
	case "lo":
		return a < b, true
	case "ls":
		return a <= b, true
	case "hi":
		return a > b, true
	case "hs":
		return a >= b, true
	}
	var lt, eq bool
	if t.signed() {
		lt, eq = sext(a, t.w) < sext(b, t.w), a == b
	} else {
		lt, eq = a < b, a == b
	}
	switch cmp {
	case "lt":
		return lt, true
	case "le":
		return lt || eq, true
	case "gt":
		return !lt && !eq, true
	case "ge":
		return !lt, true
	}
	return false, false
}

var cmpOps = []string{"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}

// setp: setp.cmp[.bop].t p[|q], a, b[, c]; set.cmp[.bop].dt.st d, a, b[, c].
func (c *laneCtx) setp() {
	d := c.d
	var cmp, bop string
	for _, m := range cmpOps {
		if d.has(m) {
			cmp = m
		}
	}
	for _, m := range []string{"and", "or", "xor"} {
		if d.has(m) {
			bop = m
		}
	}
	st := d.ty()
	var dt typ
	if d.op == "set" {
		if len(d.types) != 2 {
			c.drawAll()
			return
		}
		dt, st = d.types[0], d.types[1]
	}
	if cmp == "" || len(d.src) < 2 || st.k == 'h' {
		c.drawAll()
		return
	}
	a, b := c.read(&d.src[0], st), c.read(&d.src[1], st)
	r, ok := compare(cmp, a, b, st)
	if !ok {
		c.drawAll()
		return
	}
	comb := func(x bool) bool {
		if bop == "" || len(d.src) < 3 {
			return x
		}
		y := c.read(&d.src[2], typ{'p', 1}) != 0
		switch bop {
		case "and":
			return x && y
		case "or":
			return x || y
		}
		return x != y
	}
	if d.op == "set" {
		v := comb(r)
		var out uint64
		if v {
			if dt.k == 'f' {
				out = fromF(1, dt.w)
			} else {
				out = mask(math.MaxUint64, dt.w)
			}
		}
		c.write(0, out, dt)
		return
	}
	p := typ{'p', 1}
	c.write(0, b2u(comb(r)), p)
	if len(d.dst) > 1 {
		c.write(1, b2u(comb(!r)), p)
	}
}

func (c *laneCtx) logic() {
	d := c.d
	t := d.ty()
	if t.k == 0 {
		c.drawAll()
		return
	}
	w := t.w
	a := c.read(&d.src[0], t)
	var r uint64
	switch d.op {
	case "not":
		r = ^a
	case "cnot":
		r = b2u(a == 0)
	default:
		b := c.read(&d.src[1], t)
		switch d.op {
		case "and":
			r = a & b
		case "or":
			r = a | b
		default:
			r = a ^ b
		}
	}
	c.write(0, mask(r, w), t)
}

// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of b:a by c.
func (c *laneCtx) shf() {
	d := c.d
	t := typ{'b', 32}
	a, b := c.read(&d.src[0], t), c.read(&d.src[1], t)
	n := c.read(&d.src[2], u32)
	if d.has("clamp") {
		n = min(n, 32)
	} else {
		n &= 31
	}
	x := b<<32 | a
	var r uint64
	if d.has("l") {
		r = x << n >> 32
	} else {
		r = x >> n
	}
	c.write(0, mask(r, 32), t)
}

// bfe.t d, a, b (pos), c (len).
func (c *laneCtx) bfe() {
	d := c.d
	t := d.ty()
	a := c.read(&d.src[0], t)
	pos := int(c.read(&d.src[1], u32) & 0xff)
	ln := int(c.read(&d.src[2], u32) & 0xff)
	msb := int(t.w) - 1
	var sbit uint64
	if t.signed() && ln > 0 {
		sbit = a >> uint(min(pos+ln-1, msb)) & 1
	}
	var r uint64
	for i := 0; i <= msb; i++ {
		bit := sbit
		if i < ln && pos+i <= msb {
			bit = a >> uint(pos+i) & 1
		}
		r |= bit << uint(i)
	}
	c.write(0, r, t)
}

// bfi.t d, a (field), b (base), c (pos), d (len).
func (c *laneCtx) bfi() {
	d := c.d
	t := d.ty()
	a, b := c.read(&d.src[0], t), c.read(&d.src[1], t)
	pos := int(c.read(&d.src[2], u32) & 0xff)
	ln := int(c.read(&d.src[3], u32) & 0xff)
	msb := int(t.w) - 1
	r := b
	for i := 0; i < ln && pos+i <= msb; i++ {
		bit := a >> uint(i) & 1
		r = r&^(1<<uint(pos+i)) | bit<<uint(pos+i)
	}
	c.write(0, r, t)
}

func (c *laneCtx) bfind() {
	d := c.d
	t := d.ty()
	a := c.read(&d.src[0], t)
	if t.signed() && sext(a, t.w) < 0 {
		a = mask(^a, t.w)
	}
	r := uint64(0xffffffff)
	if a != 0 {
		r = uint64(63 - bits.LeadingZeros64(a))
		if d.has("shiftamt") {
			r = uint64(t.w) - 1 - r
		}
	}
	c.write(0, r, u32)
}

// prmt.b32 d, a, b, c: the default mode only.
func (c *laneCtx) prmt() {
	d := c.d
	for _, m := range []string{"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"} {
		if d.has(m) {
			c.drawAll()
			return
		}
	}
	t := typ{'b', 32}
	a, b := c.read(&d.src[0], t), c.read(&d.src[1], t)
	sel := c.read(&d.src[2], u32)
	x := b<<32 | a
	var r uint64
	for i := 0; i < 4; i++ {
		s := sel >> (4 * i) & 0xf
		byt := x >> (8 * (s & 7)) & 0xff
		if s&8 != 0 {
			if byt&0x80 != 0 {
				byt = 0xff
			} else {
				byt = 0
			}
		}
		r |= byt << (8 * i)
	}
	c.write(0, r, t)
}

// cvt.dtype.stype d, a.
func (c *laneCtx) cvt() {
	d := c.d
	if len(d.types) != 2 {
		c.drawAll()
		return
	}
	dt, st := d.types[0], d.types[1]
	if dt.k == 'h' || st.k == 'h' || dt.w == 0 || st.w == 0 {
		c.drawAll()
		return
	}
	a := c.read(&d.src[0], st)
	sat := d.has("sat")
	switch {
	case st.k != 'f' && dt.k != 'f':
		var v int64
		var uv uint64
		if st.signed() {
			v = sext(a, st.w)
			uv = uint64(v)
		} else {
			uv = a
		}
		r := uv
		if sat {
			r = satInt(st.signed(), v, uv, dt)
		}
		c.write(0, mask(r, dt.w), dt)
	case st.k != 'f' && dt.k == 'f':
		var f float64
		if st.signed() {
			v := sext(a, st.w)
			if dt.w == 32 {
				f = float64(float32(v))
			} else {
				f = float64(v)
			}
		} else if dt.w == 32 {
			f = float64(float32(a))
		} else {
			f = float64(a)
		}
		c.write(0, fromF(f, dt.w), dt)
	case st.k == 'f' && dt.k != 'f':
		f := roundi(d, toF(a, st.w), true)
		c.write(0, mask(floatToInt(f, dt), dt.w), dt)
	default:
		f := roundi(d, toF(a, st.w), false)
		if sat {
			if math.IsNaN(f) {
				f = 0
			}
			f = math.Min(math.Max(f, 0), 1)
		}
		c.write(0, fromF(f, dt.w), dt)
	}
}

// roundi applies cvt's integer rounding modifier (.rni, .rzi, .rmi, .rpi)
// to f; without one, f is truncated when trunc is set (a float to integer
// conversion) and kept otherwise.
func roundi(d *dinstr, f float64, trunc bool) float64 {
	switch {
	case d.has("rni"):
		return math.RoundToEven(f)
	case d.has("rmi"):
		return math.Floor(f)
	case d.has("rpi"):
		return math.Ceil(f)
	case d.has("rzi"), trunc:
		return math.Trunc(f)
	}
	return f
}

// satInt clamps an integer (v if signed, uv otherwise) to the range of dt.
func satInt(signed bool, v int64, uv uint64, dt typ) uint64 {
	w := dt.w
	if dt.signed() {
		lo, hi := int64(-1)<<(w-1), int64(1)<<(w-1)-1
		if w == 64 {
			lo, hi = math.MinInt64, math.MaxInt64
		}
		if signed {
			return uint64(min(max(v, lo), hi))
		}
		if uv > uint64(hi) {
			return uint64(hi)
		}
		return uv
	}
	hi := mask(math.MaxUint64, w)
	if signed {
		if v < 0 {
			return 0
		}
		uv = uint64(v)
	}
	return min(uv, hi)
}

// floatToInt converts an integral float to dt, saturating (NaN gives 0).
func floatToInt(f float64, dt typ) uint64 {
	if math.IsNaN(f) {
		return 0
	}
	w := dt.w
	if dt.signed() {
		lo, hi := -math.Ldexp(1, int(w)-1), math.Ldexp(1, int(w)-1)
		switch {
		case f < lo:
			return uint64(int64(-1) << (w - 1))
		case f >= hi:
			if w == 64 {
				return math.MaxInt64
			}
			return uint64(int64(1)<<(w-1) - 1)
		}
		return uint64(int64(f))
	}
	hi := math.Ldexp(1, int(w))
	switch {
	case f <= 0:
		return 0
	case f >= hi:
		return mask(math.MaxUint64, w)
	}
	return uint64(f)
}

// address returns the address of a memory operand for this lane.
func (c *laneCtx) address(o *opnd) (uint64, bool) {
	if o.kind != oMem {
		return 0, false
	}
	var a uint64
	if o.reg >= 0 {
		v, dr := c.fr.get(c.x, o.reg, c.l)
		c.drawn = c.drawn || dr
		a = v
	}
	if o.sym != "" {
		a += symAddr(o.sym)
	}
	return a + uint64(o.off), true
}

// vector count of a load or store (.v2, .v4, .v8)
func (d *dinstr) vec() int {
	switch {
	case d.has("v2"):
		return 2
	case d.has("v4"):
		return 4
	case d.has("v8"):
		return 8
	}
	return 1
}

func (c *laneCtx) load() error {
	d := c.d
	t := d.ty()
	if t.w == 0 || len(d.src) == 0 || len(d.dst) == 0 {
		c.drawAll()
		return nil
	}
	sp := d.in.Space
	if sp == isa.SpaceTexture || sp == isa.SpaceSurface {
		c.drawAll()
		return nil
	}
	size := int(t.w) / 8
	if t.k == 'p' {
		c.drawAll()
		return nil
	}
	n := d.vec()
	var regs []int
	switch o := &d.dst[0]; o.kind {
	case oReg:
		regs = []int{o.reg}
	case oVec:
		regs = o.regs
	default:
		c.drawAll()
		return nil
	}
	if len(regs) != n {
		n = len(regs)
	}
	src := &d.src[0]
	if sp == isa.SpaceParam {
		for i, r := range regs {
			v, dr, ok := c.x.paramRead(c.w, c.fr, c.l, src, i*size, size, t)
			if !ok {
				c.drawAll()
				return nil
			}
			if r >= 0 {
				c.fr.set(r, c.l, store(v, t), dr || c.drawn)
			}
		}
		return nil
	}
	addr, ok := c.address(src)
	if !ok {
		c.drawAll()
		return nil
	}
	for i, r := range regs {
		v, dr := c.x.mem.read(sp, c.w.thread(c.l), addr+uint64(i*size), size, t.k == 'f')
		if r >= 0 {
			c.fr.set(r, c.l, store(v, t), dr || c.drawn)
		}
	}
	return nil
}

func (c *laneCtx) storeMem() error {
	d := c.d
	t := d.ty()
	if t.w == 0 || len(d.src) < 2 {
		return nil
	}
	size := int(t.w) / 8
	sp := d.in.Space
	if sp == isa.SpaceTexture || sp == isa.SpaceSurface || t.k == 'p' {
		return nil
	}
	val := &d.src[1]
	var vals []uint64
	switch val.kind {
	case oVec:
		for _, r := range val.regs {
			if r < 0 {
				vals = append(vals, 0)
				continue
			}
			v, dr := c.fr.get(c.x, r, c.l)
			c.drawn = c.drawn || dr
			vals = append(vals, mask(v, t.w))
		}
	default:
		vals = []uint64{c.read(val, t)}
	}
	if sp == isa.SpaceParam {
		for i, v := range vals {
			c.x.paramWrite(c.fr, c.l, &d.src[0], i*size, size, v, c.drawn)
		}
		return nil
	}
	addr, ok := c.address(&d.src[0])
	if !ok {
		return nil
	}
	for i, v := range vals {
		c.x.mem.write(sp, c.w.thread(c.l), addr+uint64(i*size), size, v, c.drawn)
	}
	return nil
}

// atomic: atom.space.op.t d, [a], b[, c] and red.space.op.t [a], b.
func (c *laneCtx) atomic() error {
	d := c.d
	t := d.ty()
	if t.w == 0 || t.w > 64 || t.k == 'h' {
		c.drawAll()
		return nil
	}
	s := d.src
	if len(s) < 2 {
		c.drawAll()
		return nil
	}
	addr, ok := c.address(&s[0])
	if !ok {
		c.drawAll()
		return nil
	}
	size := int(t.w) / 8
	b := c.read(&s[1], t)
	old, dr := c.x.mem.read(d.in.Space, c.w.thread(c.l), addr, size, t.k == 'f')
	c.drawn = c.drawn || dr
	var nv uint64
	switch {
	case d.has("add") && t.k == 'f':
		nv = fromF(toF(old, t.w)+toF(b, t.w), t.w)
	case d.has("add"):
		nv = mask(old+b, t.w)
	case d.has("exch"):
		nv = b
	case d.has("and"):
		nv = old & b
	case d.has("or"):
		nv = old | b
	case d.has("xor"):
		nv = old ^ b
	case d.has("min"), d.has("max"):
		less := old < b
		if t.signed() {
			less = sext(old, t.w) < sext(b, t.w)
		}
		nv = old
		if d.has("min") != less {
			nv = b
		}
	case d.has("inc"):
		nv = 0
		if old < b {
			nv = old + 1
		}
	case d.has("dec"):
		nv = b
		if old != 0 && old <= b {
			nv = old - 1
		}
	case d.has("cas"):
		nv = old
		if len(s) > 2 && old == b {
			nv = c.read(&s[2], t)
		}
	default:
		c.drawAll()
		return nil
	}
	c.x.mem.write(d.in.Space, c.w.thread(c.l), addr, size, nv, c.drawn)
	if d.op == "atom" {
		c.write(0, old, t)
	}
	return nil
}
