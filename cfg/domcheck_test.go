package cfg

import (
	"math/rand"
	"slices"
	"testing"
)

// TestLTDomRandom: Lengauer and Tarjan's algorithm (ltDom, Check's
// near-linear cross-check) gives the naive fixpoint's idoms, and so does
// chk, on random graphs with fixed seeds: sparse and dense, with
// unreachable nodes, self loops, parallel edges and irreducible cycles,
// from both ends (the post-dominator direction on the reversed graph).
func TestLTDomRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	for iter := 0; iter < 400; iter++ {
		n := 1 + rng.Intn(60)
		m := rng.Intn(3*n + 1)
		succs := make([][]int32, n)
		preds := make([][]int32, n)
		for k := 0; k < m; k++ {
			a, b := int32(rng.Intn(n)), int32(rng.Intn(n))
			succs[a] = append(succs[a], b)
			preds[b] = append(preds[b], a)
		}
		fwd, back := toCSR(succs), toCSR(preds)
		for _, dir := range []struct {
			root      int32
			fwd, back csr
		}{{0, fwd, back}, {int32(n - 1), back, fwd}} {
			want := naiveDom(n, dir.root, dir.fwd, dir.back)
			if got := ltDom(n, dir.root, dir.fwd, dir.back); !slices.Equal(got, want) {
				t.Fatalf("graph %d (n %d, edges %v), root %d: ltDom %v, naive %v", iter, n, succs, dir.root, got, want)
			}
			if got := chk(n, dir.root, dir.fwd, dir.back).idom; !slices.Equal(got, want) {
				t.Fatalf("graph %d (n %d, edges %v), root %d: chk %v, naive %v", iter, n, succs, dir.root, got, want)
			}
		}
	}
}

func toCSR(adj [][]int32) csr {
	c := csr{off: make([]int32, len(adj)+1)}
	for i, a := range adj {
		c.to = append(c.to, a...)
		c.off[i+1] = int32(len(c.to))
	}
	return c
}
