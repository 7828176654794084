package values

import (
	"bytes"
	"compress/gzip"
	"go/token"
	"io"
	"math"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/load"
)

// The evidence for the division by the reciprocal (divide.go,
// docs/model.md): the instruction sequence ptxas writes, executed in
// software from the ISA's definitions, with MUFU.RCP replaced by every
// float within the PTX ISA's bound for rcp.approx.f32 (1 ulp of 1/x) —
// and, for a margin, within 2 ulps. None of this shares code with the
// recognition.

// i2fRP is I2F.F32.U32.RP (I2F.F32.S32.RP when signed): the integer
// rounded towards +infinity to a float.
func i2fRP(d uint32, signed bool) float32 {
	x := float64(d)
	if signed {
		x = float64(int32(d))
	}
	f := float32(x) // round to nearest
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// f2iU32 is F2I.U32.TRUNC: towards zero, saturated to [0, 2^32-1], NaN 0.
func f2iU32(t float32) uint32 {
	switch x := float64(t); {
	case math.IsNaN(x) || x <= 0:
		return 0
	case x >= 1<<32:
		return math.MaxUint32
	default:
		return uint32(x)
	}
}

// rcpWithin returns every float32 r with |r - 1/f| <= k·ulp(1/f), exact.
func rcpWithin(f float32, k int) []float32 {
	q := new(big.Float).SetPrec(256).Quo(big.NewFloat(1).SetPrec(256), new(big.Float).SetPrec(256).SetFloat64(float64(f)))
	exp := q.MantExp(nil) // q = m·2^exp, 0.5 <= |m| < 1
	ulp := new(big.Float).SetPrec(256).SetMantExp(big.NewFloat(1), exp-1-23)
	bound := new(big.Float).SetPrec(256).Mul(ulp, big.NewFloat(float64(k)))
	r0, _ := q.Float32()
	lo := r0
	for i := 0; i < 4*k+4; i++ {
		lo = math.Nextafter32(lo, 0)
	}
	var out []float32
	for r, i := lo, 0; i < 8*k+9; r, i = math.Nextafter32(r, float32(math.Inf(1))), i+1 {
		diff := new(big.Float).SetPrec(256).Sub(new(big.Float).SetPrec(256).SetFloat64(float64(r)), q)
		if diff.Abs(diff).Cmp(bound) <= 0 {
			out = append(out, r)
		}
	}
	return out
}

// ptxasDivmod runs ptxas's unsigned division of n by d with rcp as the
// MUFU.RCP result.
func ptxasDivmod(n, d uint32, rcp float32) (q, r uint32) {
	t := math.Float32frombits(math.Float32bits(rcp) + 0x0ffffffe)
	e := f2iU32(t)
	e2 := e + uint32(uint64(e)*uint64(-(d*e))>>32) // one Newton step
	q = uint32(uint64(e2) * uint64(n) >> 32)
	r = n - d*q
	if r >= d {
		q, r = q+1, r-d
	}
	if r >= d {
		q, r = q+1, r-d
	}
	return q, r
}

func TestReciprocalDivisionExact(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	check := func(ns []uint32, d uint32, signedI2F bool, k int) {
		t.Helper()
		for _, r := range rcpWithin(i2fRP(d, signedI2F), k) {
			if signedI2F && int32(d) < 0 {
				// A negative float: the estimate saturates to 0.
				r = -r
				if i2fRP(d, true) >= 0 {
					t.Fatalf("I2F.S32.RP(%#x) not negative", d)
				}
			}
			for _, n := range ns {
				q, m := ptxasDivmod(n, d, r)
				if q != n/d || m != n%d {
					t.Fatalf("%d / %d with MUFU.RCP = %g (%#x): q %d r %d, want %d %d", n, d, r, math.Float32bits(r), q, m, n/d, n%d)
				}
			}
		}
	}
	ns := func(d uint32) []uint32 {
		out := []uint32{0, 1, d - 1, d, d + 1, 2*d - 1, 2 * d, math.MaxUint32, math.MaxUint32 - d, math.MaxUint32 / d * d, math.MaxUint32/d*d - 1}
		for i := 0; i < 4; i++ {
			out = append(out, rng.Uint32())
		}
		return out
	}
	rounds := 0
	// Every divisor up to 2^16, with MUFU.RCP at every float within 2 ulps
	// (the documented bound is 1 ulp).
	for d := uint32(1); d <= 1<<16; d++ {
		check(ns(d), d, false, 2)
		rounds++
	}
	// Divisors near the powers of two and near 2^32, read unsigned and
	// (as I2F.RP of |d| does in the signed forms) signed.
	for s := 16; s < 32; s++ {
		for dd := -3; dd <= 3; dd++ {
			d := uint32(int64(1)<<s + int64(dd))
			check(ns(d), d, false, 2)
			check(ns(d), d, true, 2)
		}
	}
	for d := uint32(math.MaxUint32); d > math.MaxUint32-2000; d-- {
		check(ns(d), d, false, 2)
		check(ns(d), d, true, 2)
	}
	// Random pairs.
	cases := 100000
	if testing.Short() {
		cases = 10000
	}
	for i := 0; i < cases; i++ {
		d := rng.Uint32() >> uint(rng.Intn(32))
		if d == 0 {
			continue
		}
		check([]uint32{rng.Uint32()}, d, i%2 == 0, 1)
		rounds++
	}
	t.Logf("%d divisors checked", rounds)
}

// TestReciprocalDivisionSigned checks the sign fix-ups ptxas writes after
// the unsigned division of |n| by |d| against C's (Go's) signed division.
func TestReciprocalDivisionSigned(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	abs := func(x int32) uint32 {
		if x < 0 {
			return uint32(-x)
		}
		return uint32(x)
	}
	for i := 0; i < 100000; i++ {
		n, d := int32(rng.Uint32()), int32(rng.Uint32()>>uint(rng.Intn(32)))
		if i%3 == 0 {
			d = -d
		}
		if d == 0 || n == math.MinInt32 && d == -1 {
			continue
		}
		for _, r := range rcpWithin(i2fRP(abs(d), true), 1) {
			if int32(abs(d)) < 0 {
				r = -r
			}
			q, m := ptxasDivmod(abs(n), abs(d), r)
			if n^d < 0 {
				q = -q
			}
			if n < 0 {
				m = -m
			}
			if int32(q) != n/d || int32(m) != n%d {
				t.Fatalf("%d / %d: q %d r %d, want %d %d", n, d, int32(q), int32(m), n/d, n%d)
			}
		}
	}
}

// emuDomain is the per-lane domain with the float steps of the division
// executed in software: I2F.RP, MUFU.RCP (the float pick ulps from the
// correctly rounded reciprocal) and F2I.U32.TRUNC.
type emuDomain struct {
	LaneDomain
	f    *Func
	ev   *Evaluator[Lanes]
	pick int
}

func (d *emuDomain) Leaf(v *Value) Lanes {
	if v.Kind != VOpaque || v.Instr == nil {
		return d.LaneDomain.Leaf(v)
	}
	ins := d.f.Inputs(v.Instr)
	if len(ins) != 1 {
		return nil
	}
	x := d.ev.Eval(ins[0])
	if x == nil {
		return nil
	}
	out := make(Lanes, len(x))
	for i, a := range x {
		switch v.Instr.Opcode {
		case "I2F":
			signed := true
			for _, m := range v.Instr.Mods {
				signed = signed && m != "U32"
			}
			out[i] = uint64(math.Float32bits(i2fRP(uint32(a), signed)))
		case "MUFU":
			f := math.Float32frombits(uint32(a))
			neg := f < 0
			if neg {
				f = -f
			}
			if f == 0 || math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
				return nil
			}
			c := rcpWithin(f, 1)
			r := c[[]int{0, len(c) / 2, len(c) - 1}[d.pick]]
			if neg {
				r = -r
			}
			out[i] = uint64(math.Float32bits(r))
		case "F2I":
			out[i] = uint64(f2iU32(math.Float32frombits(uint32(a))))
		default:
			return nil
		}
	}
	return out
}

// TestDivideListings is the differential test of the recognition on the
// real listings of the kernel corpus: every value recognised as a
// division (UDiv, URem, SDiv, SRem) equals, on random arguments, the
// same instruction's value in the graph built without the recognition,
// with the float steps executed in software (MUFU.RCP at the lowest, the
// correctly rounded and the highest float the ISA allows).
func TestDivideListings(t *testing.T) {
	root := "../../testdata/kernels/listings"
	var files []string
	dirs, _ := filepath.Glob(filepath.Join(root, "*"))
	for _, dir := range dirs {
		stems := []string{"loops", "traps", "divide"}
		if strings.HasPrefix(filepath.Base(dir), "nvcc-") {
			stems = append(stems, "gemm", "reduce", "tensor")
		}
		for _, stem := range stems {
			p := filepath.Join(dir, stem+".sass.gz")
			if _, err := os.Stat(p); err == nil {
				files = append(files, p)
			}
		}
	}
	if len(files) == 0 {
		t.Skip("no kernel corpus")
	}
	rng := rand.New(rand.NewSource(12))
	recognised := 0
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		src, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		file, err := load.File(fset, p, src, load.Auto)
		if err != nil {
			t.Logf("%s skipped: %v", p, err)
			continue
		}
		for _, fn := range file.Funcs {
			if fn.Decl {
				continue
			}
			ifn, inl, err := cfg.Inline(file, fn)
			if err != nil {
				t.Fatal(err)
			}
			g, err := cfg.Build(fset, ifn)
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Dialect: file.Dialect, Inlined: inl, Arch: file.Target}
			with, err := Build(g, opts)
			if err != nil {
				t.Fatal(err)
			}
			noDivide = true
			without, err := Build(g, opts)
			noDivide = false
			if err != nil {
				t.Fatal(err)
			}
			type pair struct{ a, b *Value }
			var pairs []pair
			for _, b := range g.Blocks {
				for _, in := range b.Instrs {
					wo, wi := without.Outputs(in), with.Outputs(in)
					for k := range wi {
						if wi[k] == nil || k >= len(wo) || wo[k] == nil {
							continue
						}
						if v := wi[k]; v.Kind == VOp && (v.Code == UDiv || v.Code == URem || v.Code == SDiv || v.Code == SRem) {
							pairs = append(pairs, pair{v, wo[k]})
						}
					}
				}
			}
			if len(pairs) == 0 {
				continue
			}
			recognised += len(pairs)
			var params []string
			for _, v := range with.Values() {
				if v.Kind == VParam {
					params = append(params, v.Name)
				}
			}
			for round := 0; round < 60; round++ {
				env := &LaneEnv{Tid: [][3]uint64{{0, 0, 0}, {1, 0, 0}, {5, 0, 0}}, Ntid: [3]uint64{64, 1, 1}, Nctaid: [3]uint64{2, 1, 1}, Ctaid: &[3]uint64{1, 0, 0}, Args: map[string]int64{}}
				for _, name := range params {
					x := int64(int32(rng.Uint32() >> uint(rng.Intn(32))))
					if rng.Intn(3) == 0 {
						x = -x
					}
					env.Args[name] = x
				}
				plain := NewEvaluator[Lanes](LaneDomain{Env: env})
				for pick := 0; pick < 3; pick++ {
					ed := &emuDomain{LaneDomain: LaneDomain{Env: env}, f: without, pick: pick}
					ed.ev = NewEvaluator[Lanes](ed)
					for _, pr := range pairs {
						got, want := plain.Eval(pr.a), ed.ev.Eval(pr.b)
						if got == nil {
							continue // undefined (a zero divisor): any value
						}
						if want == nil {
							t.Fatalf("%s %s: %s known (%v) where the executed sequence is not", p, fn.Name, pr.a, got)
						}
						for l := range got {
							if got[l] != want[l] {
								t.Fatalf("%s %s: %s = %#x in lane %d, the executed sequence %#x (args %v)", p, fn.Name, pr.a, got[l], l, want[l], env.Args)
							}
						}
					}
				}
			}
		}
	}
	if recognised == 0 {
		t.Fatal("no division recognised in the nvcc listings")
	}
	t.Logf("%d recognised divisions checked", recognised)
}
