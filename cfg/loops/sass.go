package loops

import (
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// SASS instructions are read through PTX-shaped views: a SASS instruction
// whose effect is exactly that of a PTX integer mov, add, sub or setp is
// given a synthetic PTX instruction with the same text, guard and
// position, which the derivation reads instead. Every other SASS
// instruction has no view and is not understood (its destinations become
// unknown), so a loop that depends on it stays unbounded.
//
// The views (docs/model.md, Loop bounds, SASS):
//
//   - IADD3 d, a, b, c (no modifier, carry-outs PT; at most two operands
//     other than RZ), VIADD d, a, b, IADD32I / IADD d, a, b (no modifier),
//     IMAD.IADD d, a, 0x1, c: add.s32 (sub.s32 for one negated register);
//   - MOV / MOV32I / UMOV d, x, IMAD.MOV(.U32) d, RZ, RZ, x: mov.b32;
//     S2R / S2UR d, SR_TID.X... : mov.u32 d, %tid.x;
//   - ISETP.cmp[.U32].AND p, PT, a, b, PT (and UISETP with UPT): setp.cmp.s32
//     (u32). Any other combining predicate, second destination or modifier
//     (.EX, .X, OR, XOR) is no plain comparison: a view with three
//     modifiers, which is not understood.
//
// RZ / URZ read as the immediate 0. 32-bit immediates of an addition are
// read modulo 2^32 as signed values, those of an unsigned comparison as
// unsigned ones, of a signed comparison as signed ones. A constant-bank
// operand c[..][..] has no known value (its mapping to a kernel argument
// is not certain): a limit read from it leaves the loop unbounded.

// sassViews builds the views of the SASS instructions of the analysis.
func (a *analysis) sassViews() {
	a.views = map[*isa.Instr]*isa.Instr{}
	for in, l := range a.where {
		if v := sassView(in); v != nil {
			a.views[in] = v
			a.where[v] = l
		}
	}
}

// viewOf is the PTX-shaped view of in, or in itself.
func (a *analysis) viewOf(in *isa.Instr) *isa.Instr {
	if v := a.views[in]; v != nil {
		return v
	}
	return in
}

// isZeroOp reports whether o is RZ or URZ.
func isZeroOp(o isa.Operand) bool {
	return o.Kind == isa.OpReg && len(o.Regs) == 0 && (o.Text == "RZ" || o.Text == "URZ")
}

// isTrueOp reports whether o is PT or UPT, not negated.
func isTrueOp(o isa.Operand) bool {
	t := strings.ToUpper(o.Text)
	return o.Kind == isa.OpReg && len(o.Regs) == 0 && (t == "PT" || t == "UPT")
}

// plainReg reports whether o is a single register without negation,
// absolute value or inversion (a .reuse flag is allowed).
func plainReg(o isa.Operand) bool {
	return o.Kind == isa.OpReg && len(o.Regs) == 1 && !o.Neg && !strings.ContainsAny(o.Text[:1], "-~|!")
}

// imm32 reads a 32-bit immediate; signed: as an s32 value, else as a u32
// value (both the same bits).
func imm32(o isa.Operand, signed bool) (isa.Operand, bool) {
	v, err := strconv.ParseInt(o.Text, 0, 64)
	if err != nil || v < -(1<<31) || v > 1<<32-1 {
		return o, false
	}
	if signed && v >= 1<<31 {
		v -= 1 << 32
	}
	if !signed && v < 0 {
		v += 1 << 32
	}
	return isa.Operand{Kind: isa.OpImm, Text: strconv.FormatInt(v, 10)}, true
}

// sassSpecial maps S2R's special registers to PTX names.
var sassSpecial = map[string]string{
	"SR_TID.X": "%tid.x", "SR_TID.Y": "%tid.y", "SR_TID.Z": "%tid.z",
	"SR_CTAID.X": "%ctaid.x", "SR_CTAID.Y": "%ctaid.y", "SR_CTAID.Z": "%ctaid.z",
	"SR_LANEID": "%laneid",
}

// addend is one operand of an addition with its sign.
type addend struct {
	o   isa.Operand
	neg bool
}

// readAddend reads an operand of a 32-bit addition: an immediate (signed
// modulo 2^32), RZ (omitted), a register, or a negated register.
func readAddend(o isa.Operand) (addend, bool, bool) {
	switch {
	case isZeroOp(o):
		return addend{}, false, true
	case o.Kind == isa.OpImm:
		v, ok := imm32(o, true)
		return addend{o: v}, true, ok
	case plainReg(o):
		return addend{o: o}, true, true
	case o.Kind == isa.OpReg && len(o.Regs) == 1 && !o.Neg && strings.HasPrefix(o.Text, "-") && !strings.HasPrefix(o.Text, "--"):
		r := o
		r.Text = strings.TrimPrefix(o.Text, "-")
		if strings.ContainsAny(r.Text[:1], "-~|!") {
			return addend{}, false, false
		}
		return addend{o: r, neg: true}, true, true
	}
	return addend{}, false, false
}

// sassView returns the PTX-shaped view of a SASS instruction, or nil.
func sassView(in *isa.Instr) *isa.Instr {
	if in.Opcode == "" || strings.ToUpper(in.Opcode) != in.Opcode || len(in.Dsts) == 0 {
		return nil // PTX opcodes are lower case
	}
	d := in.Dsts[0]
	if !plainReg(d) {
		return nil
	}
	defs := in.Defs()
	if len(defs) != 1 || defs[0] != d.Regs[0] {
		return nil // a wide or second destination
	}
	// Every other destination must be PT (an unused carry-out).
	for _, o := range in.Dsts[1:] {
		if !isTrueOp(o) {
			return nil
		}
	}
	mk := func(op string, mods []string, srcs ...isa.Operand) *isa.Instr {
		return &isa.Instr{Opcode: op, Mods: mods, Dsts: []isa.Operand{d}, Srcs: srcs,
			Guard: in.Guard, Kind: in.Kind, Text: in.Text, Pos: in.Pos}
	}
	add := func(ops []isa.Operand) *isa.Instr {
		var ads []addend
		for _, o := range ops {
			ad, some, ok := readAddend(o)
			if !ok {
				return nil
			}
			if some {
				ads = append(ads, ad)
			}
		}
		switch len(ads) {
		case 0:
			return mk("mov", []string{"b32"}, isa.Operand{Kind: isa.OpImm, Text: "0"})
		case 1:
			if ads[0].neg {
				return mk("sub", []string{"s32"}, isa.Operand{Kind: isa.OpImm, Text: "0"}, ads[0].o)
			}
			return mk("mov", []string{"b32"}, ads[0].o)
		case 2:
			x, y := ads[0], ads[1]
			if x.neg && y.neg {
				return nil
			}
			if x.neg {
				x, y = y, x
			}
			if y.neg {
				return mk("sub", []string{"s32"}, x.o, y.o)
			}
			return mk("add", []string{"s32"}, x.o, y.o)
		}
		return nil
	}
	mods := strings.Join(in.Mods, ".")
	switch in.Opcode {
	case "IADD3", "UIADD3":
		// IADD3 d, a, b, c; since CUDA 13 also IADD3 d, PT, PT, a, b, c.
		srcs := in.Srcs
		if len(srcs) == 5 && isTrueOp(srcs[0]) && isTrueOp(srcs[1]) {
			srcs = srcs[2:]
		}
		if mods != "" || len(srcs) != 3 {
			return nil
		}
		return add(srcs)
	case "VIADD", "IADD32I", "IADD":
		if mods != "" || len(in.Srcs) != 2 {
			return nil
		}
		return add(in.Srcs)
	case "IMAD":
		switch {
		case mods == "IADD" && len(in.Srcs) == 3:
			if v, err := strconv.ParseInt(in.Srcs[1].Text, 0, 64); err != nil || in.Srcs[1].Kind != isa.OpImm || v != 1 {
				return nil
			}
			return add([]isa.Operand{in.Srcs[0], in.Srcs[2]})
		case (mods == "MOV" || mods == "MOV.U32") && len(in.Srcs) == 3 && isZeroOp(in.Srcs[0]) && isZeroOp(in.Srcs[1]):
			return add(in.Srcs[2:])
		}
		return nil
	case "MOV", "MOV32I", "UMOV":
		if mods != "" || len(in.Srcs) != 1 {
			return nil
		}
		return add(in.Srcs)
	case "S2R", "S2UR":
		if mods != "" || len(in.Srcs) != 1 || in.Srcs[0].Kind != isa.OpSpecial {
			return nil
		}
		if n, ok := sassSpecial[in.Srcs[0].Text]; ok {
			return mk("mov", []string{"u32"}, isa.Operand{Kind: isa.OpSpecial, Text: n})
		}
		return nil
	case "ISETP", "UISETP":
		return isetpView(in, d, mk)
	}
	return nil
}

// isetpView reads ISETP.cmp[.U32].AND p, PT, a, b, PT.
func isetpView(in *isa.Instr, d isa.Operand, mk func(string, []string, ...isa.Operand) *isa.Instr) *isa.Instr {
	// Three modifiers with a type: step and unknownWhy read it as a
	// comparison that is not plain; guardAt does not use it.
	notPlain := mk("setp", []string{"not", "plain", "s32"})
	if len(in.Mods) < 2 || len(in.Mods) > 3 || in.Mods[len(in.Mods)-1] != "AND" {
		return notPlain
	}
	cmp := strings.ToLower(in.Mods[0])
	if _, ok := notCmp[cmp]; !ok {
		return notPlain
	}
	ty := "s32"
	if len(in.Mods) == 3 {
		if in.Mods[1] != "U32" {
			return notPlain
		}
		ty = "u32"
	}
	if len(in.Dsts) != 2 || len(in.Srcs) != 3 || !isTrueOp(in.Srcs[2]) {
		return notPlain // a combining predicate, or a second result
	}
	var ops []isa.Operand
	for _, o := range in.Srcs[:2] {
		switch {
		case isZeroOp(o):
			ops = append(ops, isa.Operand{Kind: isa.OpImm, Text: "0"})
		case o.Kind == isa.OpImm:
			v, ok := imm32(o, ty == "s32")
			if !ok {
				return notPlain
			}
			ops = append(ops, v)
		case plainReg(o), o.Kind == isa.OpMem:
			// A constant-bank operand has no known value (see above).
			ops = append(ops, o)
		default:
			return notPlain
		}
	}
	return mk("setp", []string{cmp, ty}, ops...)
}

// predClobber reports whether in writes the predicate register r through
// the whole predicate file (R2P PR, ...).
func predClobber(in *isa.Instr, r string) bool {
	for _, d := range in.Defs() {
		if d == "PR" && strings.HasPrefix(r, "P") || d == "UPR" && strings.HasPrefix(r, "UP") {
			return true
		}
	}
	return false
}

// expandPR marks every predicate register set in m when PR (UPR) is.
func expandPR(m map[string]bool) {
	for _, f := range []string{"PR", "UPR"} {
		if !m[f] {
			continue
		}
		p := strings.TrimSuffix(f, "R")
		for i := 0; i <= 6; i++ {
			m[p+strconv.Itoa(i)] = true
		}
	}
}
