package simt

import (
	"math"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// The interpreter decodes each instruction once (operands resolved to
// register indices, immediates, special registers and address terms) and
// then executes it for the active lanes of a warp.

// typ is a PTX type: kind 'u', 's', 'b' (untyped bits), 'f' (float), 'p'
// (predicate), 'h' (half or other formats the interpreter does not
// compute); 0 when the instruction names none.
type typ struct {
	k byte
	w uint8
}

func parseType(m string) (typ, bool) {
	switch m {
	case "pred":
		return typ{'p', 1}, true
	case "f16", "f16x2", "bf16", "bf16x2", "tf32", "e4m3x2", "e5m2x2":
		return typ{'h', 32}, true
	}
	if len(m) < 2 {
		return typ{}, false
	}
	k := m[0]
	if k != 'u' && k != 's' && k != 'b' && k != 'f' {
		return typ{}, false
	}
	w, err := strconv.Atoi(m[1:])
	if err != nil || (w != 8 && w != 16 && w != 32 && w != 64 && w != 128) {
		return typ{}, false
	}
	if k == 'f' && w != 32 && w != 64 {
		if w == 16 {
			return typ{'h', 16}, true
		}
		return typ{}, false
	}
	return typ{k, uint8(w)}, true
}

func (t typ) signed() bool { return t.k == 's' }
func (t typ) float() bool  { return t.k == 'f' }

// operand kinds of the decoded form
const (
	oNone = iota
	oReg
	oImm
	oSpecial
	oSym  // a symbol's address
	oMem  // [base + sym + off]
	oVec  // {r1, r2, ...}
	oSink // "_"
	oList // (a, b): call arguments
	oLabel
)

type opnd struct {
	kind uint8
	reg  int  // register index; for oMem the base register or -1
	neg  bool // predicate negation (!%p)
	imm  uint64
	// immediate written as a float literal (0f.., 0d.., 1.5): bits of the
	// f32 in imm32, of the f64 in imm; an integer literal is converted
	// when a float operand reads it.
	fimm  bool
	imm32 uint64
	spec  special
	sym   string
	off   int64
	regs  []int    // oVec
	names []string // oList
}

// special registers
type special struct {
	name string // "%tid", "%laneid", ...
	dim  int    // 0, 1, 2 for .x .y .z; -1 none
	neg  bool
}

type dinstr struct {
	in    *isa.Instr
	op    string
	types []typ // type modifiers in order
	mods  map[string]bool
	guard int // register index, -1 none
	gneg  bool
	dst   []opnd
	src   []opnd
}

// ty returns the instruction's type: the last type modifier.
func (d *dinstr) ty() typ {
	if len(d.types) == 0 {
		return typ{}
	}
	return d.types[len(d.types)-1]
}

func (d *dinstr) has(m string) bool { return d.mods[m] }

// decoder interns the registers of one function.
type decoder struct {
	regs map[string]int
}

func (dc *decoder) reg(name string) int {
	if i, ok := dc.regs[name]; ok {
		return i
	}
	i := len(dc.regs)
	dc.regs[name] = i
	return i
}

func (dc *decoder) decode(in *isa.Instr) *dinstr {
	d := &dinstr{in: in, op: in.Opcode, mods: map[string]bool{}, guard: -1}
	for _, m := range in.Mods {
		if t, ok := parseType(m); ok {
			d.types = append(d.types, t)
			continue
		}
		d.mods[m] = true
	}
	if in.Guard.Reg != "" {
		d.guard, d.gneg = dc.reg(in.Guard.Reg), in.Guard.Neg
	}
	for _, o := range in.Dsts {
		d.dst = append(d.dst, dc.operand(o))
	}
	for _, o := range in.Srcs {
		d.src = append(d.src, dc.operand(o))
	}
	return d
}

func (dc *decoder) operand(o isa.Operand) opnd {
	switch o.Kind {
	case isa.OpReg:
		if len(o.Regs) == 1 {
			return opnd{kind: oReg, reg: dc.reg(o.Regs[0]), neg: o.Neg}
		}
	case isa.OpVec:
		v := opnd{kind: oVec}
		for _, r := range o.Regs {
			v.regs = append(v.regs, dc.reg(r))
		}
		// A vector may hold "_" sinks: keep positions from the text.
		if parts := splitList(o.Text, '{', '}'); len(parts) != len(o.Regs) {
			v.regs = v.regs[:0]
			for _, p := range parts {
				if p == "_" || !strings.HasPrefix(p, "%") {
					v.regs = append(v.regs, -1)
				} else {
					v.regs = append(v.regs, dc.reg(p))
				}
			}
		}
		return v
	case isa.OpImm:
		return parseImm(o.Text)
	case isa.OpSpecial:
		return opnd{kind: oSpecial, spec: parseSpecial(o.Text)}
	case isa.OpSym:
		return opnd{kind: oSym, sym: o.Text}
	case isa.OpLabel:
		return opnd{kind: oLabel, sym: o.Text}
	case isa.OpSink:
		return opnd{kind: oSink}
	case isa.OpList:
		return opnd{kind: oList, names: splitList(o.Text, '(', ')')}
	case isa.OpMem:
		return dc.mem(o)
	}
	return opnd{kind: oNone}
}

func splitList(s string, open, close byte) []string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == open && s[len(s)-1] == close {
		s = s[1 : len(s)-1]
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// mem decodes [base], [base+off], [sym], [sym+off], [base+-off]: one
// register, one symbol and integer offsets at most.
func (dc *decoder) mem(o isa.Operand) opnd {
	v := opnd{kind: oMem, reg: -1}
	s := strings.TrimSpace(o.Text)
	s = strings.TrimPrefix(s, "[")
	s = strings.TrimSuffix(s, "]")
	s = strings.ReplaceAll(s, " ", "")
	s = strings.ReplaceAll(s, "+-", "-")
	var terms []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == '+' || s[i] == '-' {
			terms = append(terms, s[start:i])
			start = i
		}
	}
	terms = append(terms, s[start:])
	for _, t := range terms {
		neg := false
		if strings.HasPrefix(t, "+") {
			t = t[1:]
		} else if strings.HasPrefix(t, "-") {
			neg, t = true, t[1:]
		}
		if t == "" {
			continue
		}
		if n, ok := parseInt(t); ok {
			if neg {
				n = -n
			}
			v.off += n
			continue
		}
		if slicesContains(o.Regs, t) && v.reg < 0 && !neg {
			v.reg = dc.reg(t)
			continue
		}
		if v.sym == "" && !neg {
			v.sym = t
			continue
		}
		v.kind = oNone // an address form the interpreter does not read
	}
	return v
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func parseInt(t string) (int64, bool) {
	t = strings.TrimSuffix(strings.TrimSuffix(t, "U"), "u")
	if v, err := strconv.ParseInt(t, 0, 64); err == nil {
		return v, true
	}
	if v, err := strconv.ParseUint(t, 0, 64); err == nil {
		return int64(v), true
	}
	return 0, false
}

// parseImm reads an integer literal (decimal, 0x, 0b, octal, with U) or a
// float literal (0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX, or decimal with a point
// or exponent).
func parseImm(text string) opnd {
	t := strings.TrimSpace(text)
	neg := false
	body := t
	if strings.HasPrefix(body, "-") {
		neg, body = true, body[1:]
	}
	lower := strings.ToLower(body)
	switch {
	case strings.HasPrefix(lower, "0f") && len(body) == 10:
		if b, err := strconv.ParseUint(body[2:], 16, 32); err == nil {
			f := math.Float32frombits(uint32(b))
			if neg {
				f = -f
			}
			return opnd{kind: oImm, fimm: true, imm32: uint64(math.Float32bits(f)), imm: math.Float64bits(float64(f))}
		}
	case strings.HasPrefix(lower, "0d") && len(body) == 18:
		if b, err := strconv.ParseUint(body[2:], 16, 64); err == nil {
			f := math.Float64frombits(b)
			if neg {
				f = -f
			}
			return opnd{kind: oImm, fimm: true, imm32: uint64(math.Float32bits(float32(f))), imm: math.Float64bits(f)}
		}
	}
	if n, ok := parseInt(t); ok {
		return opnd{kind: oImm, imm: uint64(n)}
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		return opnd{kind: oImm, fimm: true, imm32: uint64(math.Float32bits(float32(f))), imm: math.Float64bits(f)}
	}
	return opnd{kind: oNone}
}

func parseSpecial(text string) special {
	s := special{dim: -1}
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "-") {
		s.neg, t = true, t[1:]
	}
	base, dim, ok := strings.Cut(t, ".")
	s.name = base
	if ok {
		switch dim {
		case "x":
			s.dim = 0
		case "y":
			s.dim = 1
		case "z":
			s.dim = 2
		default:
			s.name = t
		}
	}
	return s
}
