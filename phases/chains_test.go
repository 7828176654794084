package phases

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// dagPath is one path of a section's dependence graph ending at a result:
// its weight and the resources of its S nodes.
type dagPath struct {
	w   hwdesc.Cycles
	res []int
}

// enumPaths lists every path from the first issue node to a ready node of
// the dependence graph of ops (one section), built independently of the
// chain builder from the recurrences of docs/model.md: T_{k-1} -> T_k
// (1), R_j -> T_k for the last writer j of a register k reads or writes
// (0), R_b -> T_k when the warp waits after b (0), T_k -> S_k (0), S_p ->
// S_k for k's previous instruction p on its resource (init_p), S_k -> R_k
// (init_k + lat_k).
func enumPaths(ops []Op, waits []bool) []dagPath {
	type edge struct {
		to int
		w  hwdesc.Cycles
	}
	var iss []int // issuing op indices
	for i := range ops {
		if ops[i].Unit != NoUnit {
			iss = append(iss, i)
		}
	}
	n := len(iss)
	// node ids: T_k = 3k, S_k = 3k+1, R_k = 3k+2 (k: index in iss)
	adj := make([][]edge, 3*n)
	lastWriter := map[RegID]int{}
	lastOnRes := map[int]int{}
	waitFrom := -1
	for k, i := range iss {
		op := &ops[i]
		if k > 0 {
			adj[3*(k-1)] = append(adj[3*(k-1)], edge{3 * k, 1})
		}
		for _, r := range append(slices.Clone(op.Uses), op.Defs...) {
			if j, ok := lastWriter[r]; ok {
				adj[3*j+2] = append(adj[3*j+2], edge{3 * k, 0})
			}
		}
		if waitFrom >= 0 {
			adj[3*waitFrom+2] = append(adj[3*waitFrom+2], edge{3 * k, 0})
			waitFrom = -1
		}
		adj[3*k] = append(adj[3*k], edge{3*k + 1, 0})
		if p, ok := lastOnRes[op.Resource()]; ok {
			adj[3*p+1] = append(adj[3*p+1], edge{3*k + 1, ops[iss[p]].Init})
		}
		lastOnRes[op.Resource()] = k
		adj[3*k+1] = append(adj[3*k+1], edge{3*k + 2, op.Init + op.Lat})
		for _, d := range op.Defs {
			lastWriter[d] = k
		}
		if waits[i] {
			waitFrom = k
		}
	}
	var out []dagPath
	var dfs func(v int, w hwdesc.Cycles, res []int)
	dfs = func(v int, w hwdesc.Cycles, res []int) {
		if v%3 == 1 {
			r := ops[iss[v/3]].Resource()
			if !slices.Contains(res, r) {
				res = append(slices.Clone(res), r)
			}
		}
		if v%3 == 2 {
			out = append(out, dagPath{w, slices.Sorted(slices.Values(res))})
		}
		for _, e := range adj[v] {
			dfs(e.to, w+e.w, res)
		}
	}
	if n > 0 {
		dfs(0, 0, nil)
	}
	return out
}

func subset(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// TestChainsCoverPaths: on random single-section paths (shared FIFOs,
// overhead, branch waits, instructions that issue nothing), every path of
// the dependence graph ending at a result is covered by a chain (length at
// least its weight, resources a superset of its own), every chain is the
// weight of a path on exactly its resources (fewer than MaxChainBits
// resources: the chains are exact), and the longest chain is the
// duration.
func TestChainsCoverPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for iter := 0; iter < 3000; iter++ {
		nu := 1 + r.IntN(4)
		hw := &hwdesc.Desc{Name: "rand"}
		for u := 0; u < nu; u++ {
			un := hwdesc.Unit{Name: string(rune('a' + u)), Init: hwdesc.Cycles(1 + r.IntN(4)), Lat: hwdesc.Cycles(r.IntN(6))}
			if r.IntN(3) == 0 {
				un.Group = "g"
			}
			hw.Units = append(hw.Units, un)
		}
		hw.Pipeline.Overhead = hwdesc.Cycles(r.IntN(3))
		e, err := NewEngine(hw)
		if err != nil {
			t.Fatal(err)
		}
		n := 1 + r.IntN(6)
		ops := make([]Op, n)
		waits := make([]bool, n)
		for i := range ops {
			in := &isa.Instr{Index: i, Opcode: "x", Kind: isa.KindOther}
			if r.IntN(8) == 0 {
				ops[i] = Op{Instr: in, Unit: NoUnit} // issues nothing (ret)
				continue
			}
			u := r.IntN(nu)
			op := Op{Instr: in, Unit: u, Res: e.Resource(u) + 1, Init: hw.Units[u].Init, Lat: hw.Units[u].Lat + hw.Pipeline.Overhead}
			if r.IntN(4) > 0 {
				op.Defs = []RegID{RegID(r.IntN(3))}
			}
			for k := 0; k < 3; k++ {
				if r.IntN(3) == 0 {
					op.Uses = append(op.Uses, RegID(k))
				}
			}
			if r.IntN(4) == 0 { // a branch waiting on the fall-through edge
				in.Kind = isa.KindBranch
				op.WaitFallThrough = true
				waits[i] = i+1 < n
			}
			ops[i] = op
		}
		c := BuildClass(e, ops, false)
		sec := c.Sections[0]
		paths := enumPaths(ops, waits)
		var longest hwdesc.Cycles
		for _, p := range paths {
			longest = max(longest, p.w)
			covered := false
			for _, ch := range sec.Chains {
				if ch.Len >= p.w && subset(p.res, ch.Res) {
					covered = true
				}
			}
			if !covered {
				t.Fatalf("iter %d: path of %d cycles on %v not covered by chains %+v", iter, p.w, p.res, sec.Chains)
			}
		}
		if longest != sec.Duration {
			t.Fatalf("iter %d: longest path %d, duration %d", iter, longest, sec.Duration)
		}
		for _, ch := range sec.Chains {
			found := false
			for _, p := range paths {
				if p.w == ch.Len && slices.Equal(p.res, ch.Res) {
					found = true
				}
			}
			if !found {
				t.Fatalf("iter %d: chain %+v is no path's weight on exactly its resources", iter, ch)
			}
		}
	}
}
