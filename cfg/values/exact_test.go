package values

import (
	"fmt"
	"go/token"
	"math/rand"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/sass"
)

// TestSimplifyExact is the differential test of the value graph's
// construction (SSA, register pairs, the rewriting rules of simplify) on
// random straight-line PTX and SASS integer code: every register an
// instruction writes, computed instruction by instruction from its decoded
// semantics (Apply on the nodes of DecodePTX/DecodeSASS, no graph, no
// rules), equals the per-lane value of the graph's output value.
func TestSimplifyExact(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	n := 400
	if *long {
		n = 40000
	}
	compared := map[string]int{}
	for i := 0; i < n; i++ {
		var src []byte
		var dialect isa.Dialect
		nargs := 0
		arch := "sm_80"
		switch i % 3 {
		case 0:
			s, k := randomPTX(r, 30)
			src, dialect, nargs = []byte(s), isa.DialectPTX, k
		case 1:
			src, dialect = randomSASS(r, 30), isa.DialectSASS
		default:
			src, dialect, arch = randomSASS52(r, 30), isa.DialectSASS, "sm_52"
		}
		fset := token.NewFileSet()
		file, err := load.File(fset, "r", src, load.Auto)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		fn := file.Funcs[0]
		g, err := cfg.Build(fset, fn)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Build(g, Options{Dialect: dialect, Arch: arch})
		if err != nil {
			t.Fatal(err)
		}
		block := uint64(1 + r.Intn(256))
		args := map[string]int64{}
		for k := 0; k < nargs; k++ {
			args[fmt.Sprintf("r_param_%d", k)] = int64(r.Uint32())
		}
		tid := uint64(r.Intn(int(block)))
		env := &LaneEnv{Ntid: [3]uint64{block, 1, 1}, Nctaid: [3]uint64{4, 1, 1}, Args: args}
		for l := tid / 32 * 32; l < tid/32*32+32 && l < block; l++ {
			env.Tid = append(env.Tid, [3]uint64{l, 0, 0})
		}
		lane := tid % 32
		c3 := [3]uint64{2, 0, 0}
		env.Ctaid = &c3
		lanes := NewEvaluator[Lanes](LaneDomain{Env: env})
		special := map[string]uint64{"tid.x": tid, "ntid.x": block, "ctaid.x": 2, "laneid": tid % 32, "nctaid.x": 4}
		regs := map[string]uint64{}
		for _, in := range fn.Instrs {
			if in.Kind == isa.KindReturn || in.Kind == isa.KindExit {
				break
			}
			var s *Sem
			if dialect == isa.DialectPTX {
				s = DecodePTX(in)
			} else if arch == "sm_52" {
				s = DecodeSASSArch(in, 52)
			} else {
				s = DecodeSASS(in)
			}
			ins := make([]uint64, len(s.Ins))
			known := true
			for k, x := range s.Ins {
				switch x.Kind {
				case InReg:
					v, ok := regs[x.Name]
					if !ok && x.Name != "RZ" && x.Name != "PT" {
						known = false
					}
					ins[k] = v & Mask(int(x.W))
				case InSpecial:
					ins[k] = special[x.Name]
				case InParam:
					ins[k] = uint64(args[x.Name]) >> (8 * uint(x.Off)) & Mask(int(x.W))
				case InConst:
					// ntid.x: c[0x0][0x0] on sm_80, c[0x0][0x8] on sm_52.
					if arch == "sm_80" && x.Off != 0 || arch == "sm_52" && x.Off != 8 {
						known = false
					}
					ins[k] = block
				default:
					known = false
				}
			}
			vals := make([]uint64, len(s.Nodes))
			def := make([]bool, len(s.Nodes))
			for k, nd := range s.Nodes {
				switch nd.Code {
				case Const:
					vals[k], def[k] = nd.Imm, true
				case Input:
					vals[k], def[k] = ins[nd.Imm]&Mask(int(nd.W)), known
				default:
					a := make([]uint64, nd.Code.Arity())
					w := make([]int, len(a))
					def[k] = true
					for j := range a {
						a[j], w[j] = vals[nd.Args[j]], int(s.Nodes[nd.Args[j]].W)
						def[k] = def[k] && def[nd.Args[j]]
					}
					var ok bool
					vals[k], ok = Apply(nd.Code, int(nd.W), a, w)
					def[k] = def[k] && ok
				}
			}
			outs := f.Outputs(in)
			for k, o := range s.Outs {
				if o.Kind != OutReg {
					continue
				}
				if o.Node < 0 || !def[o.Node] || in.Guard.Reg != "" {
					delete(regs, o.Name)
					continue
				}
				x := vals[o.Node] & Mask(int(o.W))
				if o.Signed {
					x = uint64(Signed(x, int(o.W)))
				}
				regs[o.Name] = x
				if k >= len(outs) || outs[k] == nil {
					continue
				}
				lv := lanes.Eval(outs[k])
				if lv == nil {
					continue
				}
				want := x & Mask(outs[k].W)
				compared[arch+dialect.String()]++
				if lv[lane] != want {
					t.Fatalf("case %d: %q writes %s = %#x, the graph's value %s is %#x\n%s", i, in.Text, o.Name, want, Pretty(outs[k]), lv[lane], src)
				}
			}
		}
	}
	t.Logf("values compared: %v", compared)
	if len(compared) != 3 {
		t.Fatal("a kind of listing compared nothing")
	}
}

// randomSASS52 writes an sm_52 kernel of straight-line integer code:
// Maxwell's IADD with CC, the extended comparison ISETP.X, XMAD, LOP,
// SHL/SHR, BFE, ISCADD, IADD32I.
func randomSASS52(r *rand.Rand, n int) []byte {
	var lines []string
	regs := []string{"R2", "R3"}
	lines = append(lines, "S2R R2, SR_TID.X", "MOV R3, c[0x0][0x8]")
	next := 4
	pick := func() string { return regs[len(regs)-1-r.Intn(min(len(regs), 5))] }
	opnd := func() string {
		if r.Intn(3) == 0 {
			return fmt.Sprintf("0x%x", []uint32{0, 1, 2, 31, 32, 0x7ffff, 7, 0xff}[r.Intn(8)])
		}
		return pick()
	}
	for i := 0; i < n; i++ {
		d := fmt.Sprintf("R%d", next)
		next += 2
		switch r.Intn(16) {
		case 13, 14:
			// A 64-bit three-operand sum: both carries in CC (CC.CF,
			// CC.OF), a negated .X operand its complement, a 20-bit
			// immediate sign extended.
			neg := func() string { return []string{"", "-"}[r.Intn(2)] }
			n0, n2 := neg(), neg()
			imm := fmt.Sprintf("0x%x", []uint32{0xffffe, 0xfffff, 0x7ffff, 3, 0x80000}[r.Intn(5)])
			b, bh := pick(), pick()
			if r.Intn(2) == 0 {
				b, bh = imm, "0xfffff"
			}
			lines = append(lines, fmt.Sprintf("IADD3 %s.CC, %s%s, %s, %s%s", d, n0, pick(), b, n2, pick()))
			d2 := fmt.Sprintf("R%d", next-1)
			lines = append(lines, fmt.Sprintf("IADD3.X %s, %s%s, %s, %s%s", d2, n0, pick(), bh, n2, pick()))
			regs = append(regs, d2)
		case 15:
			// The high word of a 64-bit subtraction: IADD.X adds ~x.
			lines = append(lines, fmt.Sprintf("IADD %s.CC, %s, -%s", d, pick(), pick()))
			d2 := fmt.Sprintf("R%d", next-1)
			lines = append(lines, fmt.Sprintf("IADD.X %s, %s, -%s", d2, pick(), pick()))
			regs = append(regs, d2)
		case 9:
			// A 64-bit address copied through LEA .CC / LEA.HI.X P.
			lines = append(lines, fmt.Sprintf("LEA %s.CC, %s, %s", d, pick(), pick()))
			d2 := fmt.Sprintf("R%d", next-1)
			lines = append(lines, fmt.Sprintf("LEA.HI.X P0, %s, %s, RZ, %s", d2, pick(), pick()))
			regs = append(regs, d2)
		case 10:
			lines = append(lines, fmt.Sprintf("%s %s, %s, %s", []string{"IMUL", "IMUL.U32.U32", "IMUL.U32.U32.HI", "IMUL.HI"}[r.Intn(4)], d, pick(), pick()))
		case 11:
			lines = append(lines, fmt.Sprintf("IADD3.RS %s, %s, %s, %s", d, pick(), pick(), pick()))
		case 12:
			// A swap through xor.
			a, b := pick(), pick()
			d2 := fmt.Sprintf("R%d", next-1)
			lines = append(lines, fmt.Sprintf("LOP.XOR %s, %s, %s", d, a, b))
			lines = append(lines, fmt.Sprintf("LOP.XOR %s, %s, %s", d2, b, d))
			regs = append(regs, d2)
		case 0:
			// A 64-bit comparison: the low words' borrow in CC.
			lines = append(lines, fmt.Sprintf("IADD RZ.CC, %s, -%s", pick(), pick()))
			lines = append(lines, fmt.Sprintf("ISETP.%s.X.AND P1, PT, %s, %s, PT", []string{"GE", "LT", "NE", "EQ", "GT", "LE"}[r.Intn(6)], pick(), pick()))
			lines = append(lines, fmt.Sprintf("SEL %s, %s, %s, P1", d, pick(), opnd()))
		case 1:
			lines = append(lines, fmt.Sprintf("IADD %s.CC, %s, %s", d, pick(), pick()))
			d2 := fmt.Sprintf("R%d", next-1)
			lines = append(lines, fmt.Sprintf("IADD.X %s, %s, %s", d2, pick(), pick()))
			regs = append(regs, d2)
		case 2:
			lines = append(lines, fmt.Sprintf("XMAD %s, %s, %s, %s", d, pick(), opnd(), pick()))
		case 3:
			lines = append(lines, fmt.Sprintf("XMAD.MRG %s, %s, %s.H1, RZ", d, pick(), pick()))
		case 4:
			lines = append(lines, fmt.Sprintf("%s %s, %s, 0x%x", []string{"SHL", "SHR.U32", "SHR"}[r.Intn(3)], d, pick(), r.Intn(32)))
		case 5:
			lines = append(lines, fmt.Sprintf("LOP.%s %s, %s, %s", []string{"AND", "OR", "XOR"}[r.Intn(3)], d, pick(), opnd()))
		case 6:
			lines = append(lines, fmt.Sprintf("BFE.U32 %s, %s, 0x%x", d, pick(), r.Intn(16)|(1+r.Intn(15))<<8))
		case 7:
			lines = append(lines, fmt.Sprintf("ISCADD %s, %s, %s, 0x%x", d, pick(), pick(), r.Intn(8)))
		default:
			lines = append(lines, fmt.Sprintf("IADD32I %s, %s, 0x%x", d, pick(), r.Intn(1000)))
		}
		regs = append(regs, d)
	}
	lines = append(lines, "EXIT")
	var b strings.Builder
	b.WriteString("\n\tcode for sm_52\n\t\tFunction : _Z1rv\n\t.headerflags    @\"EF_CUDA_SM52 EF_CUDA_PTX_SM(EF_CUDA_SM52)\"\n")
	for k, line := range lines {
		fmt.Fprintf(&b, "        /*%04x*/                   %s ;   /* 0x0000000000007802 */\n", 8+8*k+8*(k/3), line)
	}
	b.WriteString("\t\t..........\n")
	return []byte(b.String())
}

// randomSASS writes an sm_80 kernel of straight-line integer code over the
// thread index and ntid.x: 32- and 64-bit sums with carries, funnel
// shifts, LEA, LOP3, IMAD forms, min/max, comparisons and selects.
func randomSASS(r *rand.Rand, n int) []byte {
	var lines []string
	regs := []string{"R2", "R3"}
	lines = append(lines, "S2R R2, SR_TID.X", "MOV R3, c[0x0][0x0]")
	next := 4
	pick := func() string { return regs[len(regs)-1-r.Intn(min(len(regs), 5))] }
	opnd := func() string {
		if r.Intn(3) == 0 {
			return fmt.Sprintf("0x%x", []uint32{0, 1, 2, 31, 32, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff8, 7}[r.Intn(10)])
		}
		return pick()
	}
	for i := 0; i < n; i++ {
		d := fmt.Sprintf("R%d", next)
		next += 2 // keep pairs apart
		switch r.Intn(18) {
		case 13, 14:
			// A 64-bit three-operand sum: two carry predicates, both
			// added by IADD3.X (negated low operands, complemented high
			// ones: a - b + c).
			n0, n2 := []string{"", "-"}[r.Intn(2)], []string{"", "-"}[r.Intn(2)]
			c0, c2 := strings.Replace(n0, "-", "~", 1), strings.Replace(n2, "-", "~", 1)
			lines = append(lines, fmt.Sprintf("IADD3 %s, P0, P1, %s%s, %s, %s%s", d, n0, pick(), opnd(), n2, pick()))
			d2 := fmt.Sprintf("R%d", next-1)
			lines = append(lines, fmt.Sprintf("IADD3.X %s, %s%s, %s, %s%s, P0, P1", d2, c0, pick(), opnd(), c2, pick()))
			if r.Intn(2) == 0 {
				// A carry read on its own.
				lines = append(lines, fmt.Sprintf("SEL %s, %s, %s, P%d", d, pick(), opnd(), r.Intn(2)))
			}
			regs = append(regs, d2)
		case 15, 16, 17:
			// A register pair read as one 64-bit addend: a 64-bit select
			// (two SEL under one predicate), a sign-extended word (SHF.R.S32.HI
			// or LEA.HI.X.SX32 for the high word), a sum with a negative
			// constant (IADD3 / IADD3.X with the constant's words).
			d2 := fmt.Sprintf("R%d", next-1)
			x, y := pick(), pick()
			switch r.Intn(4) {
			case 0:
				lines = append(lines, fmt.Sprintf("ISETP.%s.U32.AND P1, PT, %s, %s, PT", []string{"LT", "GE"}[r.Intn(2)], pick(), opnd()))
				lines = append(lines, fmt.Sprintf("SEL %s, %s, %s, P1", d, x, opnd()))
				lines = append(lines, fmt.Sprintf("SEL %s, %s, %s, P1", d2, y, opnd()))
			case 1:
				lines = append(lines, fmt.Sprintf("IADD3 %s, %s, RZ, RZ", d, x))
				lines = append(lines, fmt.Sprintf("SHF.R.S32.HI %s, RZ, 0x1f, %s", d2, x))
			case 2:
				lines = append(lines, fmt.Sprintf("IADD3 %s, P0, %s, %s, RZ", d, x, y))
				lines = append(lines, fmt.Sprintf("LEA.HI.X.SX32 %s, %s, %s, 0x%x, P0", d2, y, pick(), r.Intn(3)))
			default:
				k := []uint64{0xc, 0x1, 0x10, 0x80000000}[r.Intn(4)]
				lines = append(lines, fmt.Sprintf("IADD3 %s, P0, %s, -0x%x, RZ", d, x, k))
				lines = append(lines, fmt.Sprintf("IADD3.X %s, %s, -0x1, RZ, P0, !PT", d2, y))
			}
			d3 := fmt.Sprintf("R%d", next)
			next += 2
			lines = append(lines, fmt.Sprintf("IMAD.WIDE.U32 %s, %s, %s, %s", d3, pick(), opnd(), d))
			regs = append(regs, d, d2, fmt.Sprintf("R%d", next-1))
			d = d3
		case 12:
			// The carry of a step: x + c <u x.
			x := pick()
			lines = append(lines, fmt.Sprintf("IADD3 %s, %s, 0x%x, RZ", d, x, []uint32{1, 32, 0xfffffff0}[r.Intn(3)]))
			lines = append(lines, fmt.Sprintf("ISETP.%s.U32.AND P1, PT, %s, %s, PT", []string{"LT", "GE"}[r.Intn(2)], d, x))
			d2 := fmt.Sprintf("R%d", next)
			next += 2
			lines = append(lines, fmt.Sprintf("SEL %s, %s, %s, P1", d2, pick(), opnd()))
			regs = append(regs, d)
			d = d2
		case 0:
			lines = append(lines, fmt.Sprintf("IADD3 %s, %s, %s, RZ", d, pick(), opnd()))
		case 1:
			// A 64-bit sum of pairs with the carry.
			lo, hi := pick(), pick()
			lines = append(lines, fmt.Sprintf("IADD3 %s, P0, %s, %s, RZ", d, lo, opnd()))
			d2 := fmt.Sprintf("R%d", next-1)
			lines = append(lines, fmt.Sprintf("IADD3.X %s, %s, %s, RZ, P0, !PT", d2, hi, opnd()))
			regs = append(regs, d2)
		case 2:
			lines = append(lines, fmt.Sprintf("SHF.R.%s.HI %s, RZ, 0x%x, %s", []string{"U32", "S32"}[r.Intn(2)], d, r.Intn(32), pick()))
		case 3:
			lines = append(lines, fmt.Sprintf("SHF.%s.U32%s %s, %s, 0x%x, %s", []string{"L", "R"}[r.Intn(2)], []string{"", ".HI"}[r.Intn(2)], d, pick(), r.Intn(33), pick()))
		case 4:
			lines = append(lines, fmt.Sprintf("LEA.HI %s, %s, %s, RZ, 0x%x", d, pick(), pick(), 1+r.Intn(31)))
		case 5:
			lines = append(lines, fmt.Sprintf("LEA %s, %s, %s, 0x%x", d, pick(), opnd(), r.Intn(8)))
		case 6:
			lines = append(lines, fmt.Sprintf("LOP3.LUT %s, %s, %s, RZ, 0x%x, !PT", d, pick(), opnd(), []int{0xc0, 0xfc, 0x3c, 0x30}[r.Intn(4)]))
		case 7:
			lines = append(lines, fmt.Sprintf("IMAD %s, %s, %s, %s", d, pick(), opnd(), pick()))
		case 8:
			lines = append(lines, fmt.Sprintf("IMAD.HI.U32 %s, %s, %s, RZ", d, pick(), opnd()))
		case 9:
			lines = append(lines, fmt.Sprintf("IMNMX%s %s, %s, %s, %s", []string{"", ".U32"}[r.Intn(2)], d, pick(), opnd(), []string{"PT", "!PT"}[r.Intn(2)]))
		case 10:
			lines = append(lines, fmt.Sprintf("ISETP.%s.%sAND P1, PT, %s, %s, PT", []string{"GE", "LT", "NE", "GT"}[r.Intn(4)], []string{"", "U32."}[r.Intn(2)], pick(), opnd()))
			lines = append(lines, fmt.Sprintf("SEL %s, %s, %s, P1", d, pick(), opnd()))
		default:
			lines = append(lines, fmt.Sprintf("IMAD.WIDE.U32 %s, %s, %s, RZ", d, pick(), opnd()))
			regs = append(regs, fmt.Sprintf("R%d", next-1))
		}
		regs = append(regs, d)
	}
	lines = append(lines, "EXIT")
	var b strings.Builder
	b.WriteString("\n\tcode for sm_80\n\t\tFunction : _Z1rv\n\t.headerflags    @\"EF_CUDA_SM80 EF_CUDA_PTX_SM(EF_CUDA_SM80)\"\n")
	for k, line := range lines {
		fmt.Fprintf(&b, "        /*%04x*/                   %s ;   /* 0x0000000000007802 */\n", 16*k, line)
		b.WriteString("                                                          /* 0x000fe20000000f00 */\n")
	}
	b.WriteString("\t\t..........\n")
	_ = sass.ParseFile
	return []byte(b.String())
}
