package cfgtest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTripExprEval(t *testing.T) {
	env := Env{"n": 1000, "neg": -7, "m": 4294967295, "big": 9223372036854775807, "blockDim.x": 256, "gridDim.x": 4, "threadIdx.x": 3}
	tests := []struct {
		expr string
		want int64
	}{
		{"42", 42},
		{"0x10", 16},
		{"n / 16", 62},
		// C99: / truncates toward zero, % takes the sign of the dividend.
		{"-7 / 2", -3},
		{"neg / 2", -3},
		{"neg % 2", -1},
		{"7 % -2", 1},
		{"neg / -2", 3},
		{"neg % -3", -1},
		{"-20 / 16", -1},
		{"-2147483648 / 16", -134217728},
		// >> is arithmetic: floor division by 2^k.
		{"neg >> 1", -4},
		{"-1 >> 31", -1},
		{"n & -4", 1000},
		{"1003 & -4", 1000},
		{"1003 & 3", 3},
		{"neg & -4", -8},
		{"1 << 10", 1024},
		{"~0", -1},
		{"!0 + !5", 1},
		// Precedence as in C.
		{"2 + 3 * 4", 14},
		{"(2 + 3) * 4", 20},
		{"1 + 2 << 3", 24},
		{"n > 0 ? n & 3 : 0", 0},
		{"neg > 0 ? 1 : neg < -5 ? 2 : 3", 2},
		{"1 || 1 / 0", 1},    // short circuit
		{"0 && 1 / 0", 0},    // short circuit
		{"0 ? 1 / 0 : 5", 5}, // only the chosen side is evaluated
		{"threadIdx.x % 32 & 3", 3},
		{"5 == 5 && 4 != 4", 0},
		{"3 <= 3", 1},
		{"-3 >= 3", 0},
		// Functions.
		{"min(n, 64)", 64},
		{"max(neg, 8)", 8},
		{"abs(neg)", 7},
		{"ceildiv(1000, 7)", 143},
		{"ceildiv(999, 3)", 333},
		{"ceildiv(-5, 4)", -1},
		{"ceildiv(-8, 4)", -2},
		{"ceildiv(5, -4)", -1},
		{"ceildiv(-5, -4)", 2},
		{"ceildiv(0, 9)", 0},
		{"log2(1)", 0},
		{"log2(1000)", 9},
		{"log2(1024)", 10},
		{"clog2(1)", 0},
		{"clog2(1000)", 10},
		{"clog2(1024)", 10},
		{"clog2(1025)", 11},
		{"u32(-1)", 4294967295},
		{"u32(4294967296 + 5)", 5},
		{"s32(m)", -1},
		{"s32(2147483648)", -2147483648},
		{"s32(8589934691)", 99},
		{"m / 7", 613566756},
		{"warpSize", 32},
		{"ceildiv(n - threadIdx.x, blockDim.x * gridDim.x)", 1},
		{"big - 1", 9223372036854775806},
	}
	for _, tt := range tests {
		e, err := ParseTripExpr(tt.expr)
		if err != nil {
			t.Errorf("ParseTripExpr(%q): %v", tt.expr, err)
			continue
		}
		got, err := e.Eval(env)
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.expr, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Eval(%q) = %d, want %d", tt.expr, got, tt.want)
		}
	}
}

func TestTripExprErrors(t *testing.T) {
	env := Env{"n": 10, "big": 9223372036854775807, "min64": -9223372036854775808}
	tests := []struct {
		expr, parseErr, evalErr string
	}{
		{expr: "", parseErr: "unexpected end"},
		{expr: "n +", parseErr: "unexpected end"},
		{expr: "(n", parseErr: "want ')'"},
		{expr: "n ? 1", parseErr: "want ':'"},
		{expr: "min(n)", parseErr: "min takes 2 arguments"},
		{expr: "min", parseErr: "min is a function"},
		{expr: "blockDim.w", parseErr: `unknown name "blockDim.w"`},
		{expr: "n n", parseErr: `unexpected "n"`},
		{expr: "n $ 2", parseErr: `unexpected "$"`},
		{expr: "99999999999999999999", parseErr: "bad integer"},
		{expr: "k + 1", evalErr: "no value for k"},
		{expr: "n / 0", evalErr: "division by zero"},
		{expr: "n % 0", evalErr: "division by zero"},
		{expr: "ceildiv(n, 0)", evalErr: "division by zero"},
		{expr: "big + 1", evalErr: "overflow"},
		{expr: "min64 - 1", evalErr: "overflow"},
		{expr: "big * 2", evalErr: "overflow"},
		{expr: "-min64", evalErr: "overflow"},
		{expr: "min64 / -1", evalErr: "overflow"},
		{expr: "1 << 63", evalErr: "overflow"},
		{expr: "-1 << 2", evalErr: "negative operand"},
		{expr: "1 >> 64", evalErr: "out of range"},
		{expr: "log2(0)", evalErr: "want an argument >= 1"},
		{expr: "clog2(-4)", evalErr: "want an argument >= 1"},
		{expr: "abs(min64)", evalErr: "overflow"},
	}
	for _, tt := range tests {
		e, err := ParseTripExpr(tt.expr)
		if tt.parseErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.parseErr) {
				t.Errorf("ParseTripExpr(%q) = %v, want error containing %q", tt.expr, err, tt.parseErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseTripExpr(%q): %v", tt.expr, err)
			continue
		}
		v, err := e.Eval(env)
		if err == nil || !strings.Contains(err.Error(), tt.evalErr) {
			t.Errorf("Eval(%q) = %d, %v; want error containing %q", tt.expr, v, err, tt.evalErr)
		}
	}
}

func TestTripExprNames(t *testing.T) {
	e, err := ParseTripExpr("max(0, ceildiv(n - (blockIdx.x * blockDim.x + threadIdx.x), blockDim.x * gridDim.x)) + n")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"blockDim.x", "blockIdx.x", "gridDim.x", "n", "threadIdx.x"}
	if diff := cmp.Diff(want, e.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	if !e.UsesThread() {
		t.Error("UsesThread = false")
	}
	e2, _ := ParseTripExpr("gridDim.y * n")
	if e2.UsesThread() {
		t.Error("UsesThread(gridDim.y * n) = true")
	}
}

// TestLaunchMax checks the maximum over the threads of a launch against a
// brute-force loop written out in Go.
func TestLaunchMax(t *testing.T) {
	l := Launch{Block: [3]int64{8, 4, 2}, Grid: [3]int64{3, 2, 1}, Args: map[string]int64{"n": 37, "h": 3}}
	tests := []struct {
		expr string
		want func(tx, ty, tz, bx, by int64) int64
	}{
		{"max(0, ceildiv(n - (blockIdx.x * blockDim.x + threadIdx.x), blockDim.x * gridDim.x))", func(tx, ty, tz, bx, by int64) int64 {
			g := bx*8 + tx
			c := int64(0)
			for i := g; i < 37; i += 24 {
				c++
			}
			return c
		}},
		{"h > threadIdx.y ? 5 + threadIdx.z + blockIdx.y : 0", func(tx, ty, tz, bx, by int64) int64 {
			if 3 > ty {
				return 5 + tz + by
			}
			return 0
		}},
		{"n", func(tx, ty, tz, bx, by int64) int64 { return 37 }},
	}
	for _, tt := range tests {
		e, err := ParseTripExpr(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(0)
		for bx := int64(0); bx < 3; bx++ {
			for by := int64(0); by < 2; by++ {
				for tx := int64(0); tx < 8; tx++ {
					for ty := int64(0); ty < 4; ty++ {
						for tz := int64(0); tz < 2; tz++ {
							want = max(want, tt.want(tx, ty, tz, bx, by))
						}
					}
				}
			}
		}
		got, err := l.Max(e)
		if err != nil || got != want {
			t.Errorf("Max(%s) = %d, %v; want %d", tt.expr, got, err, want)
		}
	}
	neg, _ := ParseTripExpr("n - 40")
	if v, err := l.Max(neg); err == nil {
		t.Errorf("Max(n - 40) = %d, want an error for a negative trip count", v)
	}
}
