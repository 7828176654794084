package values

import (
	"flag"
	"fmt"
	"go/token"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
)

var long = flag.Bool("long", os.Getenv("GPUWCET_LONG") != "", "run the long property tests (also GPUWCET_LONG=1)")

// randNum draws a set of w-bit values and some of its members: a
// constant, an unsigned or a signed interval, or a set with known bits.
func randNum(r *rand.Rand, w int) (Num, []uint64) {
	m := Mask(w)
	edge := func() uint64 {
		switch r.Intn(6) {
		case 0:
			return 0
		case 1:
			return m
		case 2:
			return m >> 1
		case 3:
			return (m >> 1) + 1
		case 4:
			return uint64(r.Intn(64))
		}
		return r.Uint64() & m
	}
	var n Num
	switch r.Intn(4) {
	case 0:
		x := edge()
		n = ConstNum(w, x)
	case 1:
		a, b := edge(), edge()
		if a > b {
			a, b = b, a
		}
		n = URange(w, a, b)
	case 2:
		a, b := Signed(edge(), w), Signed(edge(), w)
		if a > b {
			a, b = b, a
		}
		n = SRange(w, a, b)
	default:
		n = TopNum(w)
		known := r.Uint64() & m
		val := r.Uint64() & m
		n.Zero, n.One = known&^val, known&val
		n = n.norm()
	}
	var xs []uint64
	for i := 0; i < 200 && len(xs) < 8; i++ {
		var x uint64
		switch r.Intn(3) {
		case 0:
			x = n.Lo
		case 1:
			x = n.Hi
		default:
			if span := n.Hi - n.Lo + 1; span == 0 {
				x = r.Uint64() & m
			} else {
				x = n.Lo + r.Uint64()%span
			}
		}
		x = x&^n.Zero | n.One
		if n.Contains(x) {
			xs = append(xs, x)
		}
	}
	return n, xs
}

// TestNumSound: for every operation, every member of the operand sets
// gives (by Apply, the reference semantics) a result inside NumApply's
// set.
func TestNumSound(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	n := 20000
	if *long {
		n = 2000000
	}
	codes := []Code{Add, Sub, Mul, MulHiU, MulHiS, UDiv, SDiv, URem, SRem, And, Or, Xor, Not, Neg, Shl, LShr, AShr,
		Eq, Ne, ULt, ULe, SLt, SLe, Select, Trunc, ZExt, SExt, UMin, UMax, SMin, SMax, Popc, Clz, Brev}
	widths := []int{8, 16, 32, 64}
	for i := 0; i < n; i++ {
		c := codes[r.Intn(len(codes))]
		w := widths[r.Intn(len(widths))]
		argW := make([]int, c.Arity())
		resW := w
		for k := range argW {
			argW[k] = w
		}
		switch c {
		case Eq, Ne, ULt, ULe, SLt, SLe:
			resW = 1
		case Select:
			argW[0] = 1
		case Trunc:
			if w == 8 {
				continue
			}
			resW = widths[r.Intn(len(widths))]
			if resW >= w {
				resW = w / 2
			}
		case ZExt, SExt:
			resW = w
			argW[0] = widths[r.Intn(len(widths))]
			if argW[0] > w {
				argW[0] = w
			}
		case Shl, LShr, AShr:
			argW[1] = 32
		}
		args := make([]Num, len(argW))
		members := make([][]uint64, len(argW))
		for k, aw := range argW {
			args[k], members[k] = randNum(r, aw)
			if k == 1 && (c == Shl || c == LShr || c == AShr) && r.Intn(2) == 0 {
				s := uint64(r.Intn(w + 2))
				args[k], members[k] = ConstNum(32, s), []uint64{s}
			}
			if len(members[k]) == 0 {
				continue
			}
		}
		got := NumApply(c, resW, args, argW)
		for trial := 0; trial < 8; trial++ {
			xs := make([]uint64, len(args))
			ok := true
			for k := range args {
				if len(members[k]) == 0 {
					ok = false
					break
				}
				xs[k] = members[k][r.Intn(len(members[k]))]
			}
			if !ok {
				break
			}
			want, def := Apply(c, resW, xs, argW)
			if def && !got.Contains(want) {
				t.Fatalf("%s.%d on %v (members %#x) = %#x, not in %s", c, resW, args, xs, want, got)
			}
		}
	}
}

// TestDomainsAgree is the differential test of the two domains on random
// straight-line integer code, PTX and SASS (sm_80 and sm_52: register
// pairs with carries, .EX and .X chains): for random launches (block
// size, kernel arguments given or not), each value's concrete per-lane
// value (LaneDomain) lies in its range over the launch (RangeDomain).
func TestDomainsAgree(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	n := 450
	if *long {
		n = 45000
	}
	var compared [3]int
	for i := 0; i < n; i++ {
		var src string
		nargs := 0
		opts := Options{}
		kind := load.PTX
		switch i % 3 {
		case 0:
			src, nargs = randomPTX(r, 30)
		case 1:
			src, kind, opts = string(randomSASS(r, 30)), load.SASS, Options{Dialect: isa.DialectSASS, Arch: "sm_80"}
		default:
			src, kind, opts = string(randomSASS52(r, 30)), load.SASS, Options{Dialect: isa.DialectSASS, Arch: "sm_52"}
		}
		fset := token.NewFileSet()
		file, err := load.File(fset, "r", []byte(src), kind)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		g, err := cfg.Build(fset, file.Funcs[0])
		if err != nil {
			t.Fatal(err)
		}
		f, err := Build(g, opts)
		if err != nil {
			t.Fatal(err)
		}
		block := uint64(1 + r.Intn(256))
		args := map[string]int64{}
		given := map[string]int64{}
		for k := 0; k < nargs; k++ {
			name := fmt.Sprintf("r_param_%d", k)
			v := int64(r.Uint32())
			if r.Intn(3) == 0 {
				v = int64(r.Intn(20)) - 10
			}
			args[name] = v
			if r.Intn(4) != 0 {
				given[name] = v
			}
		}
		// Ranges: the given arguments only; concrete: all of them.
		rng := NewEvaluator[Num](RangeDomain{Env: &RangeEnv{Ntid: [3]uint64{block, 1, 1}, Nctaid: [3]uint64{4, 1, 1}, Args: given}})
		w0 := uint64(r.Intn(int((block + 31) / 32)))
		env := &LaneEnv{Ntid: [3]uint64{block, 1, 1}, Nctaid: [3]uint64{4, 1, 1}, Args: args}
		for l := uint64(0); l < 32 && 32*w0+l < block; l++ {
			env.Tid = append(env.Tid, [3]uint64{32*w0 + l, 0, 0})
		}
		c3 := [3]uint64{uint64(r.Intn(4)), 0, 0}
		env.Ctaid = &c3
		lanes := NewEvaluator[Lanes](LaneDomain{Env: env})
		for _, v := range f.Values() {
			if v.Kind == VPhi {
				continue
			}
			lv := lanes.Eval(v)
			if lv == nil {
				continue
			}
			nv := rng.Eval(v)
			compared[i%3]++
			for l, x := range lv {
				if !nv.Contains(x) {
					t.Fatalf("case %d: value %s = %#x in lane %d, outside its range %s\n%s", i, v, x, l, nv, src)
				}
			}
		}
	}
	t.Logf("values compared (PTX, SASS sm_80, SASS sm_52): %v", compared)
	for k, c := range compared {
		if c == 0 {
			t.Fatalf("listing kind %d compared nothing", k)
		}
	}
}

// randomPTX writes a kernel of straight-line integer code over its
// parameters and thread indices.
func randomPTX(r *rand.Rand, n int) (string, int) {
	nargs := 1 + r.Intn(3)
	var b strings.Builder
	b.WriteString(".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry r(")
	for k := 0; k < nargs; k++ {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, ".param .u32 r_param_%d", k)
	}
	b.WriteString(")\n{\n\t.reg .pred %p<64>;\n\t.reg .b16 %rs<64>;\n\t.reg .b32 %r<256>;\n\t.reg .b64 %rd<64>;\n")
	r32 := []string{}
	next := 1
	reg := func() string {
		s := fmt.Sprintf("%%r%d", next)
		next++
		return s
	}
	for k := 0; k < nargs; k++ {
		d := reg()
		fmt.Fprintf(&b, "\tld.param.u32 %s, [r_param_%d];\n", d, k)
		r32 = append(r32, d)
	}
	for _, s := range []string{"%tid.x", "%ntid.x", "%ctaid.x", "%laneid"} {
		d := reg()
		fmt.Fprintf(&b, "\tmov.u32 %s, %s;\n", d, s)
		r32 = append(r32, d)
	}
	pick := func() string {
		if r.Intn(4) == 0 {
			return fmt.Sprint([]int64{0, 1, -1, 7, 31, 32, 1 << 20, -4, 0x7fffffff, -2147483648}[r.Intn(10)])
		}
		return r32[len(r32)-1-r.Intn(min(len(r32), 6))]
	}
	pickReg := func() string { return r32[len(r32)-1-r.Intn(min(len(r32), 6))] }
	types := []string{"s32", "u32", "b32"}
	np := 1
	for i := 0; i < n; i++ {
		d := reg()
		ty := types[r.Intn(3)]
		switch r.Intn(16) {
		case 0:
			fmt.Fprintf(&b, "\tadd.%s %s, %s, %s;\n", ty[:1]+"32", d, pickReg(), pick())
		case 1:
			fmt.Fprintf(&b, "\tsub.s32 %s, %s, %s;\n", d, pickReg(), pick())
		case 2:
			fmt.Fprintf(&b, "\tmul.lo.s32 %s, %s, %s;\n", d, pickReg(), pick())
		case 3:
			fmt.Fprintf(&b, "\tmul.hi.%s %s, %s, %s;\n", []string{"u32", "s32"}[r.Intn(2)], d, pickReg(), pick())
		case 4:
			fmt.Fprintf(&b, "\t%s.%s %s, %s, %s;\n", []string{"div", "rem"}[r.Intn(2)], []string{"u32", "s32"}[r.Intn(2)], d, pickReg(), []string{"3", "16", "-5", "7"}[r.Intn(4)])
		case 5:
			fmt.Fprintf(&b, "\t%s.b32 %s, %s, %s;\n", []string{"and", "or", "xor"}[r.Intn(3)], d, pickReg(), pick())
		case 6:
			fmt.Fprintf(&b, "\t%s.%s %s, %s, %d;\n", []string{"shl", "shr", "shr"}[r.Intn(3)], []string{"b32", "s32", "u32"}[r.Intn(3)], d, pickReg(), r.Intn(36))
		case 7:
			fmt.Fprintf(&b, "\t%s.%s %s, %s, %s;\n", []string{"min", "max"}[r.Intn(2)], []string{"u32", "s32"}[r.Intn(2)], d, pickReg(), pick())
		case 8:
			p := fmt.Sprintf("%%p%d", np)
			np++
			fmt.Fprintf(&b, "\tsetp.%s.%s %s, %s, %s;\n", []string{"lt", "le", "gt", "ge", "eq", "ne"}[r.Intn(6)], []string{"u32", "s32"}[r.Intn(2)], p, pickReg(), pick())
			fmt.Fprintf(&b, "\tselp.b32 %s, %s, %s, %s;\n", d, pickReg(), pick(), p)
		case 9:
			rd := fmt.Sprintf("%%rd%d", next)
			fmt.Fprintf(&b, "\tcvt.%s64.%s32 %s, %s;\n", []string{"u", "s"}[r.Intn(2)], []string{"u", "s"}[r.Intn(2)], rd, pickReg())
			fmt.Fprintf(&b, "\tshr.%s64 %s, %s, %d;\n", []string{"u", "s"}[r.Intn(2)], rd, rd, r.Intn(40))
			fmt.Fprintf(&b, "\tcvt.u32.u64 %s, %s;\n", d, rd)
		case 10:
			fmt.Fprintf(&b, "\tmad.lo.s32 %s, %s, %s, %s;\n", d, pickReg(), pick(), pick())
		case 11:
			fmt.Fprintf(&b, "\tcvt.%s32.%s16 %s, %s;\n", []string{"u", "s"}[r.Intn(2)], []string{"u", "s"}[r.Intn(2)], d, pickReg())
		case 12:
			fmt.Fprintf(&b, "\t%s.b32 %s, %s;\n", []string{"not", "popc", "clz", "brev"}[r.Intn(4)], d, pickReg())
		case 13:
			fmt.Fprintf(&b, "\tneg.s32 %s, %s;\n", d, pickReg())
		case 14:
			fmt.Fprintf(&b, "\tabs.s32 %s, %s;\n", d, pickReg())
		default:
			fmt.Fprintf(&b, "\tbfe.%s32 %s, %s, %d, %d;\n", []string{"u", "s"}[r.Intn(2)], d, pickReg(), r.Intn(16), 1+r.Intn(16))
		}
		r32 = append(r32, d)
	}
	b.WriteString("\tret;\n}\n")
	return b.String(), nargs
}

// TestNumCommonHighBits: every value of an unsigned interval shares the
// high bits its ends share, at every width. The 32-bit case lost them (the
// bits above the width were counted as differing), so [10, 13] & ~7 was
// [0, 13], not 8, and a loop guarded by it at such a launch (lane_trip,
// clang -O2: m & ~7 != 8) got a bound of 2^29 iterations.
func TestNumCommonHighBits(t *testing.T) {
	for _, tc := range []struct {
		w        int
		lo, hi   uint64
		and, out uint64
	}{
		{32, 10, 13, 0x7ffffff8, 8},
		{16, 0x1234, 0x1237, 0xfff0, 0x1230},
		{64, 10, 13, ^uint64(7), 8},
		{8, 200, 207, 0xf8, 200},
	} {
		n := URange(tc.w, tc.lo, tc.hi)
		got := NumApply(And, tc.w, []Num{n, ConstNum(tc.w, tc.and)}, []int{tc.w, tc.w})
		if x, ok := got.Exact(); !ok || x != tc.out {
			t.Errorf("w=%d: [%d, %d] & %#x = %v, want %d", tc.w, tc.lo, tc.hi, tc.and, got, tc.out)
		}
	}
}

// TestWidenDropsRangeBits: widening moves a growing bound to its extreme;
// the high bits the old interval fixed (Num.norm: the common high bits of
// its ends) must go with it, or they bound the widened interval again and
// the interval iteration of a loop phi (spans.go) needs a round per bit.
// The low known bits (the congruence) stay.
func TestWidenDropsRangeBits(t *testing.T) {
	old := ConstNum(32, 4)
	next := Join(old, URange(32, 8, 8)) // 4, 8: low two bits 0
	got := widen(old, next)
	if got.Hi < 1<<30 {
		t.Errorf("widen(%v, %v) = %v, want the upper bound moved to its extreme", old, next, got)
	}
	if got.Zero&3 != 3 {
		t.Errorf("widen(%v, %v) = %v, want the low two bits known 0", old, next, got)
	}
}
