package loops

import (
	"fmt"
	"strings"
	"testing"
)

// chainPTX is a kernel calling f1, f1 calling f2, … fn: each device
// function runs a counted loop on its parameter and returns the result
// plus its callee's.
func chainPTX(n int) string {
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_70\n.address_size 64\n")
	for i := n; i >= 1; i-- {
		fmt.Fprintf(&b, ".func (.param .b32 r) f%d(.param .b32 a)\n{ .reg .b32 %%r<8>; .reg .pred %%p<3>;\n", i)
		b.WriteString("ld.param.b32 %r1, [a];\nmov.b32 %r2, 0;\n")
		fmt.Fprintf(&b, "L%d: add.s32 %%r2, %%r2, 1; add.s32 %%r1, %%r1, 3; setp.lt.s32 %%p1, %%r2, 4; @%%p1 bra L%d;\n", i, i)
		if i < n {
			fmt.Fprintf(&b, "{ .param .b32 pa; .param .b32 pr; st.param.b32 [pa], %%r1;\ncall.uni (pr), f%d, (pa); ld.param.b32 %%r3, [pr]; }\nadd.s32 %%r1, %%r1, %%r3;\n", i+1)
		}
		b.WriteString("st.param.b32 [r], %r1; ret; }\n")
	}
	b.WriteString(".visible .entry k(.param .u32 p) { .reg .b32 %r<4>; ld.param.u32 %r1, [p];\n")
	b.WriteString("{ .param .b32 pa; .param .b32 pr; st.param.b32 [pa], %r1; call.uni (pr), f1, (pa); ld.param.b32 %r2, [pr]; }\nret; }\n")
	return b.String()
}

// chainEvaluators derives and evaluates every loop of the inlined chain
// of n calls, returning the evaluators made and the bounds.
func chainEvaluators(t *testing.T, n int) (int, []int64) {
	t.Helper()
	f, _ := graphs(t, "chain.ptx", []byte(chainPTX(n)))
	for _, vf := range valuesOf(t, f) {
		if vf.Graph.Func.Name != "k" {
			continue
		}
		ds := Derive(vf)
		if len(ds) != n {
			t.Fatalf("chain of %d: %d loops", n, len(ds))
		}
		var got []int64
		for _, d := range ds {
			v, err := d.Eval(LaunchEnv{})
			if err != nil {
				t.Fatalf("chain of %d: %v", n, err)
			}
			got = append(got, v)
		}
		return ds[0].a.evaluators, got
	}
	t.Fatal("kernel k not found")
	return 0, nil
}

// TestEvaluationPolynomial checks that evaluating the bounds of a chain
// of loops costs polynomially in its length. Each loop's evaluation
// reads the ranges of the earlier loops' phis; without evalMemo each
// re-evaluated every earlier bound from scratch (2.5 times the work per
// device function of the chain: 7 s for 10, over 2 minutes for 15).
func TestEvaluationPolynomial(t *testing.T) {
	n8, b8 := chainEvaluators(t, 8)
	n16, b16 := chainEvaluators(t, 16)
	for _, b := range [][]int64{b8, b16} {
		for i, v := range b {
			if v != 4 {
				t.Errorf("loop %d: bound %d, want 4", i, v)
			}
		}
	}
	t.Logf("evaluators: chain of 8: %d, of 16: %d", n8, n16)
	// Cubic growth doubles to 8×; exponential growth is 2.5^8 ≈ 1,500×.
	if n16 > 10*n8 {
		t.Errorf("evaluating a chain of 16 loops made %d evaluators, of 8: %d: more than polynomial growth", n16, n8)
	}
}

// BenchmarkChain derives and evaluates the loops of a chain of calls of
// each length (docs/performance.md, "Chains of calls").
func BenchmarkChain(b *testing.B) {
	for _, n := range []int{8, 16, 32} {
		src := []byte(chainPTX(n))
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			f, _ := graphs(b, "chain.ptx", src)
			vs := valuesOf(b, f)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, vf := range vs {
					if vf.Graph.Func.Name != "k" {
						continue
					}
					for _, d := range Derive(vf) {
						d.Eval(LaunchEnv{})
					}
				}
			}
		})
	}
}

// nestPTX is a triangular nest of n do-while loops: the outermost runs
// min(p, 5) times, each inner one one time less than its parent's
// counter (at least once).
func nestPTX(n int) string {
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u32 p) {\n")
	fmt.Fprintf(&b, ".reg .b32 %%r<%d>; .reg .pred %%p<%d>;\nld.param.u32 %%r0, [p];\nmin.u32 %%r0, %%r0, 5;\n", n+1, n+1)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "mov.u32 %%r%d, 0;\nH%d:\n", i, i)
	}
	for i := n; i >= 1; i-- {
		fmt.Fprintf(&b, "add.s32 %%r%d, %%r%d, 1; setp.lt.u32 %%p%d, %%r%d, %%r%d; @%%p%d bra H%d;\n", i, i, i, i, i-1, i, i)
	}
	b.WriteString("ret; }\n")
	return b.String()
}

// TestDeepTriangularNest bounds every loop of a 24-deep triangular nest:
// each inner bound reads the range of its parent's counter, through every
// enclosing loop (the recursion stopped at 8 enclosing loops before the
// evaluation memo made deeper recursion cheap).
func TestDeepTriangularNest(t *testing.T) {
	const n = 24
	f, _ := graphs(t, "nest.ptx", []byte(nestPTX(n)))
	env := LaunchEnv{Args: map[string]int64{"p": 7}}
	for _, vf := range valuesOf(t, f) {
		ds := Derive(vf)
		if len(ds) != n {
			t.Fatalf("%d loops, want %d", len(ds), n)
		}
		for i, d := range ds {
			got, err := d.Eval(env)
			if err != nil {
				t.Errorf("loop %d: %v", i, err)
				continue
			}
			// Loop i (0 outermost) sees its parent's counter up to
			// 5 - i + 1 (the outermost runs 5 times): at most 5 - i
			// iterations, at least one.
			if want := max(int64(5-i), 1); got < want {
				t.Errorf("loop %d: bound %d below its %d iterations", i, got, want)
			}
		}
	}
}

// seqPTX is a kernel of n loops in sequence, each stepping the previous
// loop's counter too (so each loop's values read the previous loop's).
func seqPTX(n int) string {
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u32 p) {\n")
	fmt.Fprintf(&b, ".reg .b32 %%r<%d>; .reg .pred %%p<%d>;\nld.param.u32 %%r0, [p];\nand.b32 %%r0, %%r0, 7;\n", 2*n+1, n+1)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "mov.u32 %%r%d, 0;\nH%d: add.s32 %%r%d, %%r%d, 1; add.s32 %%r%d, %%r%d, 1; setp.lt.u32 %%p%d, %%r%d, 3; @%%p%d bra H%d;\n",
			2*i, i, 2*i, 2*i, 2*i-2, 2*i-2, i, 2*i, i, i)
	}
	b.WriteString("ret; }\n")
	return b.String()
}

// seqEvaluators evaluates every loop of seqPTX(n) with one memo, as the
// loops pass does, returning the evaluators made.
func seqEvaluators(t *testing.T, n int) int {
	t.Helper()
	f, _ := graphs(t, "seq.ptx", []byte(seqPTX(n)))
	vs := valuesOf(t, f)
	ds := Derive(vs[0])
	memo := newEvalMemo()
	env := LaunchEnv{Args: map[string]int64{"p": 5}}
	for i, d := range ds {
		v, _, err := d.evalMemo(env, memo)
		if err != nil || v != 3 {
			t.Fatalf("seq of %d: loop %d: bound %d, %v; want 3", n, i, v, err)
		}
	}
	return ds[0].a.evaluators
}

// TestSharedMemo checks that the loops of a function evaluated at one
// launch share their memo: with a memo per loop, a kernel of n loops in
// sequence made O(n²) evaluators (300 loops: 101 s in analyze; 2.8 s
// shared).
func TestSharedMemo(t *testing.T) {
	n25, n50 := seqEvaluators(t, 25), seqEvaluators(t, 50)
	t.Logf("evaluators: 25 loops: %d, 50 loops: %d", n25, n50)
	if n50 > 3*n25 {
		t.Errorf("50 loops made %d evaluators, 25 loops %d: more than linear growth", n50, n25)
	}
}
