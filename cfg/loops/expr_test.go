package loops

import (
	"math"
	"math/rand"
	"strings"
	"testing"
)

type mapEnv map[string]int64

func (m mapEnv) Lookup(n string) (int64, bool) { v, ok := m[n]; return v, ok }

func TestExpr(t *testing.T) {
	env := mapEnv{"n": 10, "ntid.x": 256, "nctaid.x": 4}
	for _, tc := range []struct {
		src, str string
		val      int64
		err      string
	}{
		{src: "n", str: "n", val: 10},
		{src: "(n - 1) / 4 + 1", str: "(n - 1) / 4 + 1", val: 3},
		{src: "blockDim.x / 32", str: "ntid.x / 32", val: 8},
		{src: "%ntid.x * gridDim.x", str: "ntid.x * nctaid.x", val: 1024},
		{src: "-7 / 2", str: "(-7) / 2", val: -4},
		{src: "-7 % 2", str: "(-7) % 2", val: 1},
		{src: "n - (n - 3)", str: "n - (n - 3)", val: 3},
		{src: "max(0, n - 20) + min(1, 2, 3)", str: "max(0, n - 20) + min(1, 2, 3)", val: 1},
		{src: "log2(ntid.x)", str: "log2(ntid.x)", val: 8},
		{src: "log2(0)", str: "log2(0)", val: -1},
		{src: "0x10", str: "16", val: 16},
		{src: "n / 0", err: "division by zero"},
		{src: "9223372036854775807 + 1", err: "overflow"},
		{src: "m", err: "pass --arg m=VALUE"},
		{src: "nctaid.y", err: "launch configuration does not give nctaid.y: pass --grid X, XxY or XxYxZ"},
		{src: "ntid.z", err: "launch configuration does not give ntid.z: pass --block X, XxY or XxYxZ"},
		{src: "log2(-1)", err: "negative"},
		{src: "n +", err: "column 4: want a number"},
		{src: "n )", err: "column 3: unexpected"},
		{src: "foo(1)", err: "column 1: unknown function"},
		{src: "ntid.w", err: "unknown launch dimension"},
		{src: "1.5", err: "malformed number"},
		{src: "max(1)", err: "max takes 2 to 16 arguments"},
		{src: "n # 2", err: "column 3: unexpected character"},
		{src: "99999999999999999999", err: "does not fit in 64 bits"},
		{src: strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), err: "nested deeper"},
	} {
		e, err := ParseExpr(tc.src)
		if err == nil {
			var v int64
			v, err = e.Eval(env)
			if err == nil {
				if v != tc.val || e.String() != tc.str {
					t.Errorf("%q: %s = %d, want %s = %d", tc.src, e, v, tc.str, tc.val)
				}
			}
		}
		if (err != nil) != (tc.err != "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.err)
		}
	}
}

// TestExprRoundTrip: String parses back to the same value and text, on
// random expressions (fixed seed).
func TestExprRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	env := mapEnv{"n": 37, "ntid.x": 64}
	var gen func(d int) *Expr
	gen = func(d int) *Expr {
		if d == 0 || rng.Intn(3) == 0 {
			switch rng.Intn(3) {
			case 0:
				return Const(rng.Int63n(200) - 100)
			case 1:
				return Var("n")
			}
			return Var("ntid.x")
		}
		ops := []exprOp{opAdd, opSub, opMul, opDiv, opMod, opNeg, opMin, opMax}
		op := ops[rng.Intn(len(ops))]
		if op == opNeg {
			return &Expr{op: op, args: []*Expr{gen(d - 1)}}
		}
		return &Expr{op: op, args: []*Expr{gen(d - 1), gen(d - 1)}}
	}
	for i := 0; i < 2000; i++ {
		e := gen(4)
		p, err := ParseExpr(e.String())
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		v1, err1 := e.Eval(env)
		v2, err2 := p.Eval(env)
		q, err := ParseExpr(p.String())
		if err != nil || (err1 == nil) != (err2 == nil) || v1 != v2 || q.String() != p.String() {
			t.Fatalf("%s reparsed as %s: %d (%v) vs %d (%v)", e, p, v1, err1, v2, err2)
		}
	}
	if _, ok := arith(opMul, math.MinInt64, -1); ok {
		t.Error("MinInt64 * -1 does not overflow")
	}
}

func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{"n", "(n - 1) / 4 + 1", "max(0, log2(ntid.x / 2) + 1) + 1", "min(a,b,c)", "-(-n)", "0x7fffffffffffffff * 2", "%nctaid.z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExpr(s)
		if err != nil {
			var ee *ExprError
			if !errorsAs(err, &ee) || ee.Offset < 0 || ee.Offset > len(s) {
				t.Fatalf("%q: error %v without a valid offset", s, err)
			}
			return
		}
		p, err := ParseExpr(e.String())
		if err != nil {
			t.Fatalf("%q formats as %q, which does not parse: %v", s, e, err)
		}
		env := mapEnv{"ntid.x": 32}
		v1, err1 := e.Eval(env)
		v2, err2 := p.Eval(env)
		if (err1 == nil) != (err2 == nil) || v1 != v2 {
			t.Fatalf("%q and %q evaluate differently", s, e)
		}
	})
}
