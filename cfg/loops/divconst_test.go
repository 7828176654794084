package loops

import (
	"go/token"
	"math/big"
	"math/rand"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// TestGMDivisor checks the condition divByConst relies on against
// division itself: whenever gmDivisor accepts (m, k, n) with divisor d,
// floor(v·m / 2^k) = floor(v / d) for every v < 2^n: exhaustively for
// n = 12 (every m near 2^k/d, for d < 200 and every post-shift), and on
// the values where a multiplier that is too large first fails (the
// largest ones, and those just below multiples of d) for n = 31 and 32.
// It also checks that the compilers' constants are accepted (mul.hi.u32
// by 0xaaaaaaab >> 1 for /3, mul.hi.s32 by 0x55555556 for signed /3).
func TestGMDivisor(t *testing.T) {
	quo := func(v, m uint64, k int) uint64 {
		p := new(big.Int).Mul(new(big.Int).SetUint64(v), new(big.Int).SetUint64(m))
		return p.Rsh(p, uint(k)).Uint64()
	}
	accepted, rejected := 0, 0
	try := func(m uint64, k, n int, values func(d uint64) []uint64) {
		d, ok := gmDivisor(m, k, n)
		if !ok {
			rejected++
			return
		}
		accepted++
		for _, v := range values(d) {
			if v >= 1<<uint(n) {
				continue
			}
			if q := quo(v, m, k); q != v/d {
				t.Fatalf("gmDivisor(%d, %d, %d) = %d, but floor(%d·%d/2^%d) = %d, %d/%d = %d", m, k, n, d, v, m, k, q, v, d, v/d)
			}
		}
	}
	// Exhaustive, 12-bit values.
	const n12 = 12
	all := make([]uint64, 1<<n12)
	for v := range all {
		all[v] = uint64(v)
	}
	for d := uint64(2); d < 200; d++ {
		for s := 0; s < 12; s++ {
			k := n12 + s
			m0 := (uint64(1)<<uint(k) + d - 1) / d
			for delta := -3; delta <= 3; delta++ {
				if m := int64(m0) + int64(delta); m > 0 {
					try(uint64(m), k, n12, func(uint64) []uint64 { return all })
				}
			}
		}
	}
	// 31 and 32 bits: the values where an error shows first.
	r := rand.New(rand.NewSource(3))
	edge := func(n int) func(d uint64) []uint64 {
		return func(d uint64) []uint64 {
			top := uint64(1)<<uint(n) - 1
			vs := []uint64{0, 1, d - 1, d, top, top - 1, top - top%d, top - top%d - 1}
			for i := 0; i < 64; i++ {
				q := uint64(r.Int63n(int64(top/d))) + 1
				vs = append(vs, q*d-1, q*d, r.Uint64()&top)
			}
			return vs
		}
	}
	for _, n := range []int{31, 32} {
		for i := 0; i < 3000; i++ {
			d := uint64(2 + r.Intn(1<<uint(r.Intn(30)+1)))
			for s := 0; s < 32; s++ {
				k := 32 + s
				m0 := (uint64(1)<<uint(k) + d - 1) / d
				if m0 >= 1<<32 {
					continue
				}
				for delta := -2; delta <= 2; delta++ {
					try(uint64(int64(m0)+int64(delta)), k, n, edge(n))
				}
			}
		}
	}
	if d, ok := gmDivisor(0xaaaaaaab, 33, 32); !ok || d != 3 {
		t.Errorf("mul.hi.u32 by 0xaaaaaaab >> 1: %d, %v; want 3", d, ok)
	}
	if d, ok := gmDivisor(0x55555556, 32, 31); !ok || d != 3 {
		t.Errorf("mul.hi.s32 by 0x55555556: %d, %v; want 3", d, ok)
	}
	if d, ok := gmDivisor(0xcccccccd, 35, 32); !ok || d != 10 {
		t.Errorf("mul.hi.u32 by 0xcccccccd >> 3: %d, %v; want 10", d, ok)
	}
	t.Logf("%d multipliers accepted (checked against division), %d rejected", accepted, rejected)
	if accepted == 0 || rejected == 0 {
		t.Fatal("the cases exercise one side only")
	}
}

// TestDivByConstForms: the forms divByConst accepts as v / d, and near
// misses it must refuse (a truncation before the high half is reached, a
// sign term of another quotient, a negative signed multiplier, a shift of
// another value).
func TestDivByConstForms(t *testing.T) {
	for _, tc := range []struct {
		name, step string // the step of %r11
		d          uint64
		signed, ok bool
	}{
		{"udiv", "div.u32 %r11, %r11, 7;", 7, false, true},
		{"sdiv", "div.s32 %r11, %r11, 10;", 10, true, true},
		{"mulhi_u", "mul.hi.u32 %r13, %r11, -1431655765;\n\tshr.u32 %r11, %r13, 1;", 3, false, true},
		{"mulhi_u_10", "mul.hi.u32 %r13, %r11, -858993459;\n\tshr.u32 %r11, %r13, 3;", 10, false, true},
		{"wide_u", "mul.wide.u32 %rd13, %r11, -1431655765;\n\tshr.u64 %rd13, %rd13, 33;\n\tcvt.u32.u64 %r11, %rd13;", 3, false, true},
		{"mulhi_s", "mul.hi.s32 %r13, %r11, 1431655766;\n\tshr.u32 %r14, %r13, 31;\n\tadd.s32 %r11, %r13, %r14;", 3, true, true},
		{"mulhi_s_shift", "mul.hi.s32 %r13, %r11, 1717986919;\n\tshr.s32 %r13, %r13, 2;\n\tshr.u32 %r14, %r13, 31;\n\tadd.s32 %r11, %r13, %r14;", 10, true, true},
		{"wide_s", "mul.wide.s32 %rd13, %r11, 1431655766;\n\tshr.u64 %rd13, %rd13, 32;\n\tcvt.u32.u64 %r13, %rd13;\n\tshr.u32 %r14, %r13, 31;\n\tadd.s32 %r11, %r13, %r14;", 3, true, true},
		// Truncated after 16 bits of shift: the high bits are lost.
		{"trunc_too_early", "mul.wide.u32 %rd13, %r11, -1431655765;\n\tshr.u64 %rd13, %rd13, 16;\n\tcvt.u32.u64 %r13, %rd13;\n\tshr.u32 %r11, %r13, 17;", 0, false, false},
		// 0xaaaaaaaa: one below the magic number, not exact.
		{"mulhi_u_off", "mul.hi.u32 %r13, %r11, -1431655766;\n\tshr.u32 %r11, %r13, 1;", 0, false, false},
		// The sign term of another quotient.
		{"sign_of_other", "mul.hi.s32 %r13, %r11, 1431655766;\n\tmul.hi.s32 %r15, %r11, 1431655765;\n\tshr.u32 %r14, %r15, 31;\n\tadd.s32 %r11, %r13, %r14;", 0, false, false},
		// A negative signed multiplier (its form needs + v).
		{"mulhi_s_negative", "mul.hi.s32 %r13, %r11, -1840700269;\n\tshr.u32 %r14, %r13, 31;\n\tadd.s32 %r11, %r13, %r14;", 0, false, false},
		{"udiv_by_one", "div.u32 %r11, %r11, 1;", 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u32 k_param_0)\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<32>;\n" +
				"\tld.param.u32 %r11, [k_param_0];\n$L_head:\n\tsetp.gt.u32 %p1, %r11, 0;\n\t@!%p1 bra $L_exit;\n\t" + tc.step + "\n\tbra.uni $L_head;\n$L_exit:\n\tret;\n}\n"
			fset := token.NewFileSet()
			file, err := ptx.ParseFile(fset, "k.ptx", []byte(src), 0)
			if err != nil {
				t.Fatal(err)
			}
			g, err := cfg.Build(fset, file.Funcs[0])
			if err != nil {
				t.Fatal(err)
			}
			vf, err := values.Build(g, values.Options{Dialect: isa.DialectPTX})
			if err != nil {
				t.Fatal(err)
			}
			l := g.Loops[0]
			var phi, step *values.Value
			for _, v := range vf.Values() {
				if v.Kind == values.VPhi && v.Block == l.Header && v.W == 32 {
					for i, a := range v.Args {
						if l.Contains(v.Preds[i]) && a != v {
							phi, step = v, a
						}
					}
				}
			}
			if phi == nil {
				t.Fatal("no stepped phi")
			}
			d, signed, ok := divByConst(step, phi)
			if ok != tc.ok || ok && (d != tc.d || signed != tc.signed) {
				t.Errorf("divByConst(%s) = %d, %v, %v; want %d, %v, %v", values.Pretty(step), d, signed, ok, tc.d, tc.signed, tc.ok)
			}
		})
	}
}
