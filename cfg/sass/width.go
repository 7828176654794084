package sass

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Register groups.
//
// A SASS operand names the first register of a group: "LDSM.16.M88.4 R16,
// [R0]" writes R16, R17, R18 and R19; "DADD R2, R4, R6" reads R4–R5 and
// R6–R7. The timing model waits for every register an instruction reads or
// writes (docs/model.md, "The reference model"), so an operand must list
// its whole group: a dependent read of R17 must wait for the LDSM. widen
// expands each register operand to the group its opcode and modifiers
// imply. Where the width cannot be told from the text, it assumes the
// widest group the instruction can have, or refuses the instruction (an
// MMA of unknown shape); it never assumes one register.
//
// The widths are checked against nvdisasm's register life ranges on the
// kernels of testdata/widths (TestWidthsAgainstLifeRanges). Summary:
//
//	memory (LD*, ST*, ATOM*, RED*)  data: .64 or a 64-bit type (U64, S64, F64) 2, .128 4;
//	                                LDSM/STSM .2 2, .4 4; an .E address without .64 is a pair
//	                                (before sm_80 nvdisasm omits .64)
//	global memory on sm_80+         also reads the memory descriptor that the listing
//	                                omits (see descriptorRegs)
//	textures (TEX, TLD, TLD4, …)    each destination up to 2 components (sm_70+: two
//	                                destinations; before: TEXS/TLDS/TLD4S two, others one
//	                                of all components); components from the mask (0xb:
//	                                3) or the letters (RGA: 3), 4 when absent; each
//	                                coordinate operand min(4, coordinates + LOD/bias/
//	                                depth/offset/array values); uniform handles are pairs
//	surfaces (SULD, SUST, SUATOM)   data as memory; coordinates from the dimension
//	HMMA, IMMA, BMMA, DMMA          D and C M·N/32 elements, A M·K/32, B K·N/32 of
//	                                their types' widths; sm_70 HMMA.884 steps 2 each;
//	                                an unknown shape or type is refused
//	DADD, DMUL, DFMA, DMNMX, DSETP  every register operand a pair (DSET's result is one)
//	conversions (F2F, F2I, I2F, …)  each side from its type: F64, S64, U64 2
//	IMAD.WIDE                       destination and addend pairs
//	CS2R                            a pair unless .32 (sm_70+)
//	RET                             the return address is a pair
//	any other opcode with .64/.128  every register operand a pair or a quad
func (p *parser) widen(in *isa.Instr, ops []isa.Operand, nd int) error {
	op := in.Opcode
	expand := func(o *isa.Operand, n int) {
		if o.Kind != isa.OpReg || n <= 1 || len(o.Regs) != 1 {
			return
		}
		r := o.Regs[0]
		if !(strings.HasPrefix(r, "R") || strings.HasPrefix(r, "UR")) || isPredOperand(*o, o.Text) {
			return
		}
		regs := p.strSlice(n)
		regs[0] = r
		for k := 1; k < n; k++ {
			regs[k] = nextReg(r, k)
		}
		o.Regs = regs
	}
	switch {
	case in.Space == isa.SpaceTexture:
		return p.widenTexture(in, ops, nd, expand)
	case in.Space == isa.SpaceSurface:
		w := dataWidth(in)
		switch {
		case w > 0:
		case in.HasMod("D"):
			w = 1 // raw access, 32 bits by default
		default:
			w = 4 // formatted access: up to four components
		}
		coords := coordCount(in, ops)
		for k := range ops {
			switch {
			case ops[k].Kind == isa.OpMem && len(ops[k].Regs) == 1 && strings.HasPrefix(ops[k].Regs[0], "R"):
				r := ops[k].Regs[0]
				regs := p.strSlice(coords)
				for j := range regs {
					regs[j] = nextReg(r, j)
				}
				ops[k].Regs = regs
			case ops[k].Kind == isa.OpReg && strings.HasPrefix(ops[k].Text, "R"):
				expand(&ops[k], w)
			}
		}
	case in.Kind == isa.KindLoad || in.Kind == isa.KindStore || in.Kind == isa.KindAtomic:
		w := dataWidth(in)
		if op == "LDSM" || op == "STSM" {
			w = 1
			for _, m := range in.Mods {
				switch m {
				case "2":
					w = 2
				case "4":
					w = 4
				}
			}
		}
		if w == 0 {
			w = 1
		}
		lastMem := -1
		for k := range ops {
			if ops[k].Kind == isa.OpMem {
				lastMem = k
			}
		}
		for k := range ops {
			if ops[k].Kind == isa.OpReg {
				expand(&ops[k], w)
			}
			// A 64-bit address (.E) written without ".64": every
			// generation before sm_80 in nvdisasm 11.8 (LDG.E R2, [R2] on
			// sm_70 reads R2 and R3). LDGSTS's first address is the
			// 32-bit shared one.
			if ops[k].Kind == isa.OpMem && in.HasMod("E") && (op != "LDGSTS" || k == lastMem) &&
				strings.HasPrefix(ops[k].Text, "[") && !strings.Contains(ops[k].Text, ".64") && !strings.Contains(ops[k].Text, ".U32") &&
				len(ops[k].Regs) == 1 && strings.HasPrefix(ops[k].Regs[0], "R") {
				ops[k].Regs = p.appendReg(ops[k].Regs, nextReg(ops[k].Regs[0], 1))
			}
		}
	case op == "HMMA" || op == "IMMA" || op == "BMMA" || op == "DMMA":
		ws, err := mmaWidths(in)
		if err != nil {
			return err
		}
		// Operands: D, A, B, C (then, on some forms, immediates).
		regs := 0
		for k := range ops {
			if ops[k].Kind != isa.OpReg || isPredOperand(ops[k], ops[k].Text) {
				continue
			}
			if regs < len(ws) {
				expand(&ops[k], ws[regs])
			}
			regs++
		}
	case strings.HasSuffix(op, "GMMA") || strings.HasPrefix(op, "UTC") && strings.HasSuffix(op, "MMA") || op == "OMMA" || op == "QMMA":
		return fmt.Errorf("%s: the register groups of this matrix instruction are not modelled", in.Op())
	case op == "DADD" || op == "DMUL" || op == "DFMA" || op == "DMNMX" || op == "DSETP" || op == "DSET":
		for k := range ops {
			if op == "DSET" && k < nd {
				continue // a 32-bit result
			}
			expand(&ops[k], 2)
		}
	case op == "F2F" || op == "F2I" || op == "I2F" || op == "I2I" || op == "F2IP" || op == "I2FP" || op == "FRND":
		dst, src := convWidths(in)
		for k := range ops {
			if k < nd {
				expand(&ops[k], dst)
			} else {
				expand(&ops[k], src)
			}
		}
	case (op == "IMAD" || op == "UIMAD") && in.HasMod("WIDE"):
		if nd > 0 {
			expand(&ops[0], 2)
		}
		if len(ops) > nd+2 {
			expand(&ops[nd+2], 2)
		}
	case op == "RET":
		// RET.REL.NODEC R14 `(kernel): the return address is a pair.
		for k := range ops {
			expand(&ops[k], 2)
		}
	case op == "CS2R" && !in.HasMod("32") && p.gen() != genMaxwell && p.gen() != genKepler:
		// sm_70+: a 64-bit special register (SR_CLOCKLO, SRZ) into a
		// pair; Maxwell's CS2R reads 32 bits.
		if nd > 0 {
			expand(&ops[0], 2)
		}
	default:
		// Any other opcode with a width modifier (IADD.64, MOV.64,
		// UIADD3.64, IMNMX.64, …): every register operand is a group.
		w := 0
		for _, m := range in.Mods {
			switch m {
			case "64":
				w = max(w, 2)
			case "128":
				w = max(w, 4)
			}
		}
		for k := range ops {
			expand(&ops[k], w)
		}
	}
	return nil
}

// dataWidth is the number of registers of a memory instruction's data from
// its modifiers (.64, .128, a 64-bit type), or 0 when none says.
func dataWidth(in *isa.Instr) int {
	w := 0
	for _, m := range in.Mods {
		switch m {
		case "64", "U64", "S64", "F64":
			w = max(w, 2)
		case "128":
			w = max(w, 4)
		case "32", "U32", "S32", "F32", "U8", "S8", "U16", "S16", "F16":
			w = max(w, 1)
		}
	}
	return w
}

// dimCoords gives the coordinates of each texture and surface dimension.
var dimCoords = map[string]int{
	"1D": 1, "2D": 2, "3D": 3, "CUBE": 3,
	"ARRAY_1D": 2, "ARRAY_2D": 3, "ARRAY_3D": 4, "ARRAY_CUBE": 4, "CUBE_ARRAY": 4,
	"1D_BUFFER": 1, "BUFFER_1D": 1, "1DBUFFER": 1,
}

// coordCount returns the values a texture or surface instruction reads
// from its coordinate registers: the dimension's coordinates plus one for
// each of an explicit LOD or bias, a depth comparison, an offset and an
// array index in the modifiers; 4 (the widest) when no dimension is given.
func coordCount(in *isa.Instr, ops []isa.Operand) int {
	n := 0
	for _, o := range ops {
		if c, ok := dimCoords[o.Text]; ok {
			n = c
		}
	}
	for _, m := range in.Mods {
		if c, ok := dimCoords[m]; ok {
			n = c
		}
	}
	if n == 0 {
		return 4
	}
	for _, m := range in.Mods {
		switch m {
		case "LL", "LB", "DC", "AOFFI", "PTP", "MS", "LBA", "LLA":
			n++
		}
	}
	return min(n, 4)
}

// components returns the components a texture instruction writes: the
// popcount of its write mask (an immediate after the dimension: 0xb is 3),
// the letters of its channel list (RGA is 3), 4 for gathers (TLD4) and
// when neither is written (the default mask 0xf).
func components(in *isa.Instr, ops []isa.Operand) int {
	if strings.HasPrefix(in.Opcode, "TLD4") {
		return 4
	}
	dim := -1
	for k, o := range ops {
		if _, ok := dimCoords[o.Text]; ok {
			dim = k
		}
	}
	if dim >= 0 && dim+1 < len(ops) {
		t := ops[dim+1].Text
		if h, ok := strings.CutPrefix(t, "0x"); ok {
			if v, err := strconv.ParseUint(h, 16, 8); err == nil && v > 0 && v < 16 {
				return bits.OnesCount64(v)
			}
		} else if t != "" && strings.Trim(t, "RGBA") == "" && len(t) <= 4 {
			return len(t)
		}
	}
	return 4
}

// widenTexture expands the operands of a texture instruction (see widen).
func (p *parser) widenTexture(in *isa.Instr, ops []isa.Operand, nd int, expand func(*isa.Operand, int)) error {
	n := components(in, ops)
	if nd >= 2 {
		// Two destinations (TEXS/TLDS/TLD4S; TEX, TLD, TLD4 on sm_70+):
		// the second holds the first two components, the first the
		// rest (RGA: R11 and R30–R31 in "TEXS.T R11, R30, …, RGA"); a
		// first destination of at most two components is taken as a
		// pair of them.
		expand(&ops[1], min(n, 2))
		if n > 2 {
			expand(&ops[0], n-2)
		} else {
			expand(&ops[0], n)
		}
	} else if nd == 1 {
		expand(&ops[0], n)
	}
	c := coordCount(in, ops)
	for k := nd; k < len(ops); k++ {
		switch {
		case ops[k].Kind != isa.OpReg:
		case strings.HasPrefix(ops[k].Text, "UR"):
			expand(&ops[k], 2) // a bindless texture handle
		default:
			expand(&ops[k], c)
		}
	}
	return nil
}

// texTwoDst reports whether a texture instruction writes its first two
// operands: always for TEXS, TLDS and TLD4S (twoDst), and for the other
// texture opcodes from sm_70 on ("TEX.SCR.LL R18, R20, R18, R20, 0x0,
// 0x5c, 2D" writes R18–R19 and R20–R21). When the architecture is unknown,
// a uniform-register operand or two immediates before the dimension mark
// the sm_70 form.
func texTwoDst(g gen, ops []isa.Operand) bool {
	if len(ops) < 3 || ops[1].Kind != isa.OpReg {
		return false
	}
	switch g {
	case genVolta:
		return true
	case genUnknown:
		imms := 0
		for _, o := range ops {
			if _, ok := dimCoords[o.Text]; ok {
				break
			}
			if o.Kind == isa.OpReg && strings.HasPrefix(o.Text, "UR") {
				return true
			}
			if o.Kind == isa.OpImm {
				imms++
			}
		}
		return imms >= 2
	}
	return false
}

// mmaWidths returns the registers of the D, A, B and C operands of a
// warp-level MMA (HMMA, IMMA, BMMA, DMMA) from its shape and types: for
// mMnNkK, D and C hold M·N/32 elements per thread, A M·K/32 and B K·N/32,
// each of its type's bits. The shape is written "16816" (M, then N = 8,
// then K) or "8x8x4". sm_70's HMMA.884 runs in four steps (.STEP0–3),
// each of which reads and writes pairs.
func mmaWidths(in *isa.Instr) ([]int, error) {
	var m, n, k int
	shape := ""
	for _, md := range in.Mods {
		if md != "" && md[0] >= '0' && md[0] <= '9' {
			shape = md
			break
		}
	}
	if a, b, ok := strings.Cut(shape, "x"); ok {
		c, d, ok2 := strings.Cut(b, "x")
		m, _ = strconv.Atoi(a)
		n, _ = strconv.Atoi(c)
		k, _ = strconv.Atoi(d)
		if !ok2 {
			m = 0
		}
	} else if len(shape) >= 3 {
		rest := shape
		switch {
		case strings.HasPrefix(rest, "16"):
			m, rest = 16, rest[2:]
		case strings.HasPrefix(rest, "8"):
			m, rest = 8, rest[1:]
		}
		if strings.HasPrefix(rest, "8") {
			n = 8
			k, _ = strconv.Atoi(rest[1:])
		}
	}
	if m == 0 || n == 0 || k == 0 {
		return nil, fmt.Errorf("%s: unknown matrix shape %q: cannot tell the registers it reads and writes", in.Op(), shape)
	}
	// Element widths in bits: A and B, then C and D.
	ab, cd := 0, 0
	var tb [4]int // the first type widths named, without allocating
	types := tb[:0]
	for _, md := range in.Mods {
		if w, ok := mmaTypeBits[md]; ok && len(types) < len(tb) {
			types = append(types, w)
		}
	}
	switch in.Opcode {
	case "HMMA":
		// .F32 or .F16: the accumulator; a second type names A and B
		// (.BF16, .TF32, .F16, .E4M3, …), f16 when absent. sm_70's
		// .884.F32.F32 names D and C.
		ab, cd = 16, 16
		if len(types) >= 1 {
			cd = types[0]
		}
		if len(types) >= 2 && !(m == 8 && n == 8 && k == 4) {
			ab = types[1]
		}
	case "IMMA":
		cd, ab = 32, 8
		if len(types) >= 1 {
			ab = types[0]
		}
	case "BMMA":
		cd, ab = 32, 1
	case "DMMA":
		cd, ab = 64, 64
	}
	if ab == 0 || cd == 0 {
		return nil, fmt.Errorf("%s: unknown element type: cannot tell the registers it reads and writes", in.Op())
	}
	if in.Opcode == "HMMA" && m == 8 && n == 8 && k == 4 {
		for _, md := range in.Mods {
			if strings.HasPrefix(md, "STEP") {
				return []int{2, 2, 2, 2}, nil
			}
		}
		// Without steps: the quad-pair form, eight f32 (four f16x2)
		// accumulators per thread.
		return []int{8 * cd / 32, 2, 2, 8 * cd / 32}, nil
	}
	regs := func(elems, bits int) int { return max(1, (elems*bits+31)/32) }
	d := regs(m*n/32, cd)
	return []int{d, regs(m*k/32, ab), regs(k*n/32, ab), d}, nil
}

// mmaTypeBits gives the width of each element type an MMA modifier can
// name.
var mmaTypeBits = map[string]int{
	"F64": 64, "F32": 32, "TF32": 32, "S32": 32, "F16": 16, "BF16": 16,
	"S8": 8, "U8": 8, "E4M3": 8, "E5M2": 8, "S4": 4, "U4": 4,
}

// convWidths returns the register widths of a conversion's destination and
// sources. Two type modifiers name the destination then the source
// (F2F.F64.F32); a single one names the side its kind belongs to (I2F.F64:
// the float destination; I2F.S64: the integer source; F2I.F64: the float
// source), and for F2F, I2I and FRND both sides. Absent types are 32-bit.
func convWidths(in *isa.Instr) (dst, src int) {
	var ts []string
	for _, m := range in.Mods {
		switch m {
		case "F64", "S64", "U64", "F32", "S32", "U32", "F16", "S16", "U16", "S8", "U8", "BF16", "E4M3", "E5M2", "TF32", "E2M1", "E3M2", "E2M3", "UE8M0":
			ts = append(ts, m)
		}
	}
	w := func(t string) int {
		if strings.HasSuffix(t, "64") {
			return 2
		}
		return 1
	}
	isFloat := func(t string) bool { return t[0] == 'F' || t[0] == 'B' || t[0] == 'E' || t[0] == 'T' }
	dst, src = 1, 1
	switch {
	case len(ts) >= 2:
		dst, src = w(ts[0]), w(ts[1])
	case len(ts) == 1:
		t := ts[0]
		switch in.Opcode {
		case "I2F", "I2FP":
			if isFloat(t) {
				dst = w(t)
			} else {
				src = w(t)
			}
		case "F2I", "F2IP":
			if isFloat(t) {
				src = w(t)
			} else {
				dst = w(t)
			}
		default:
			dst, src = w(t), w(t)
		}
	}
	return dst, src
}
