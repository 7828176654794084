package static

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// treeCounts is the definition of witness.counts: the witness walked as a
// tree (exponential on shared prefixes; small witnesses only).
func treeCounts(w *witness, m int64, c map[blockRange]int64) {
	for n := w; n != nil; n = n.prev {
		if n.sub != nil {
			treeCounts(n.sub, satMul(m, n.mult), c)
			continue
		}
		c[n.r] = min(c[n.r]+m, countLimit)
	}
}

// TestWitnessCounts: counts on the DAG equals the tree walk, on random
// witnesses with shared prefixes and sub-paths, including multipliers
// that saturate.
func TestWitnessCounts(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for iter := 0; iter < 500; iter++ {
		var nodes []*witness
		for k := 0; k < 1+r.Intn(30); k++ {
			n := &witness{mult: 1}
			if len(nodes) > 0 && r.Intn(4) > 0 {
				n.prev = nodes[r.Intn(len(nodes))]
			}
			if len(nodes) > 0 && r.Intn(3) == 0 {
				n.sub = nodes[r.Intn(len(nodes))]
				n.mult = 1 + r.Int63n(5)
				if r.Intn(10) == 0 {
					n.mult = countLimit / 3
				}
			} else {
				n.r = blockRange{blk: r.Intn(5), lo: 0, hi: 1 + r.Intn(2)}
			}
			nodes = append(nodes, n)
		}
		w := nodes[len(nodes)-1]
		want := map[blockRange]int64{}
		treeCounts(w, 1, want)
		if d := cmp.Diff(want, w.counts(), cmp.AllowUnexported(blockRange{})); d != "" {
			t.Fatalf("iteration %d: counts (-tree +dag):\n%s", iter, d)
		}
	}
	if got := (*witness)(nil).counts(); len(got) != 0 {
		t.Errorf("nil witness: %v", got)
	}
}
