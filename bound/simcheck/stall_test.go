package simcheck

import (
	"fmt"
	"os"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simtest"
)

// TestStallAccounting checks the steps of the proof of Lemma 5
// (docs/model.md, "No issue term on the path's resources") on recorded
// schedules, not only its conclusion: the bound has slack that can hide a
// wrong step. For every warp w of a barrier-free block and every schedule
// of several policies, it unfolds w's last result along the path of the
// proof — T nodes from their latest predecessor, an S node from w's
// previous initiation on its resource when every cycle since that one
// ended is an initiation of another warp there, from its own issue
// otherwise — and checks that
//
//   - the path's weight plus its stalls is the last result's real time
//     (Lemma 1's unfolding), every T-stall cycle is the issue cycle of
//     another warp, every U-stall cycle an initiation of another warp on
//     the node's resource;
//   - for every resource r the path initiates on, the U-stall cycles on r
//     plus the T-stall cycles at which another warp issues on r are at
//     most the other warps' initiation cycles on r (the lemma);
//   - the stalls are at most the charge PR0 of the path's resources.
//
// The path and the counts are computed here from the simulator's
// timeline and compiled instructions, independently of packages phases
// and bound. GPUWCET_LONG=1 runs 20,000 blocks.
func TestStallAccounting(t *testing.T) {
	n := 1500
	if *long || os.Getenv("GPUWCET_LONG") == "1" {
		n = 20000
	}
	cfgs := []simtest.Config{
		{MaxWarps: 6, MaxInstrs: 30, MaxUnits: 4, MaxInit: 6, MaxLat: 20},
		{MaxWarps: 16, MaxInstrs: 60, MaxUnits: 6, MaxInit: 12, MaxLat: 100},
	}
	checked := 0
	for seed := int64(1); seed <= int64(n); seed++ {
		c := simtest.Generate(cfgs[seed%2], seed)
		if seed%3 == 0 {
			c = simtest.GenerateMixed(seed)
		}
		if hasBarrier(c) {
			continue
		}
		p, err := sim.Compile(c.HW, c.Warps, sim.BarrierReach)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, pol := range simtest.Policies(seed, 8) {
			r, err := p.Run(pol, sim.Options{Timeline: true})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			for w := 0; w < p.Warps(); w++ {
				if err := checkStalls(p, r, w); err != nil {
					t.Fatalf("seed %d, %s, warp %d: %v\n%s", seed, pol, w, err, c.Format())
				}
			}
			checked++
		}
	}
	t.Logf("%d schedules checked", checked)
}

func hasBarrier(c *simtest.Case) bool {
	for _, p := range c.Warps {
		for _, in := range p {
			if in.Kind == isa.KindBarrier {
				return true
			}
		}
	}
	return false
}

// checkStalls unfolds warp w's last result in schedule r (see
// TestStallAccounting).
func checkStalls(p *sim.Program, r *sim.Result, w int) error {
	code := p.Instrs(w)
	tl := r.Timeline[w]
	if len(code) == 0 {
		return nil
	}
	type who struct{ w, k int }
	issuer := map[int64]who{}
	initiator := make([]map[int64]who, p.Resources())
	for i := range initiator {
		initiator[i] = map[int64]who{}
	}
	// Per resource, the other warps' instructions and initiation cycles.
	others := make([]int64, p.Resources())
	for v := 0; v < p.Warps(); v++ {
		cv := p.Instrs(v)
		for k, in := range cv {
			e := r.Timeline[v][k]
			issuer[int64(e.Issue)] = who{v, k}
			for x := e.Start; x < e.Start+in.Init; x++ {
				initiator[in.Res][int64(x)] = who{v, k}
			}
			if v != w {
				others[in.Res] += int64(in.Init)
			}
		}
	}
	T := func(k int) int64 { return int64(tl[k].Issue) }
	S := func(k int) int64 { return int64(tl[k].Start) }
	R := func(k int) int64 { return int64(tl[k].Ready) }
	prevOnRes := make([]int, len(code))
	lastOn := map[int]int{}
	for k, in := range code {
		prevOnRes[k] = -1
		if j, ok := lastOn[in.Res]; ok {
			prevOnRes[k] = j
		}
		lastOn[in.Res] = k
	}
	otherInit := func(res int, x int64) bool {
		h, ok := initiator[res][x]
		return ok && h.w != w
	}
	end := 0
	for k := range code {
		if R(k) > R(end) {
			end = k
		}
	}
	const (
		nodeT = iota
		nodeS
		nodeR
	)
	kind, k := nodeR, end
	var weight int64
	var tStall []int64
	uStall := map[int]int64{}
	onPath := map[int]bool{}
	for {
		switch kind {
		case nodeR:
			if R(k) != S(k)+int64(code[k].InitLat) {
				return fmt.Errorf("R_%d = %d, S + init + lat = %d", k, R(k), S(k)+int64(code[k].InitLat))
			}
			weight += int64(code[k].InitLat)
			kind = nodeS
			continue
		case nodeS:
			onPath[code[k].Res] = true
			res := code[k].Res
			if j := prevOnRes[k]; j >= 0 {
				a := S(j) + int64(code[j].Init)
				if a > S(k) {
					return fmt.Errorf("S_%d = %d before its FIFO predecessor %d ends at %d", k, S(k), j, a)
				}
				fifo := true
				for x := a; x < S(k); x++ {
					if !otherInit(res, x) {
						fifo = false
						break
					}
				}
				if fifo {
					uStall[res] += S(k) - a
					weight += int64(code[j].Init)
					k = j
					continue
				}
				if T(k) <= a {
					return fmt.Errorf("S_%d entered from its issue %d, not after its FIFO predecessor's end %d", k, T(k), a)
				}
			}
			for x := T(k); x < S(k); x++ {
				if !otherInit(res, x) {
					return fmt.Errorf("S_%d: cycle %d of its wait is no initiation of another warp on resource %d", k, x, res)
				}
			}
			uStall[res] += S(k) - T(k)
			kind = nodeT
			continue
		}
		// nodeT: the latest predecessor.
		e, pk, pkind, pw := int64(0), -1, nodeT, int64(0)
		if k > 0 {
			e, pk, pkind, pw = T(k-1)+1, k-1, nodeT, 1
			if code[k-1].Wait && R(k-1) > e {
				e, pk, pkind, pw = R(k-1), k-1, nodeR, 0
			}
		}
		for _, reg := range code[k].Check {
			for j := k - 1; j >= 0; j-- {
				if contains(code[j].Defs, reg) {
					if R(j) > e {
						e, pk, pkind, pw = R(j), j, nodeR, 0
					}
					break
				}
			}
		}
		if T(k) < e {
			return fmt.Errorf("T_%d = %d before its eligibility %d", k, T(k), e)
		}
		for x := e; x < T(k); x++ {
			if h, ok := issuer[x]; !ok || h.w == w {
				return fmt.Errorf("T_%d: cycle %d of its stall is no issue of another warp", k, x)
			}
			tStall = append(tStall, x)
		}
		if pk < 0 {
			weight += e // the origin, cycle 0
			break
		}
		weight += pw
		kind, k = pkind, pk
	}
	var stalls int64 = int64(len(tStall))
	for _, u := range uStall {
		stalls += u
	}
	if weight+stalls != R(end) {
		return fmt.Errorf("path weight %d + stalls %d != last result %d", weight, stalls, R(end))
	}
	// The lemma, per resource the path initiates on, and the charge.
	issuesOn := map[int]int64{}
	for _, x := range tStall {
		h := issuer[x]
		issuesOn[p.Instrs(h.w)[h.k].Res]++
	}
	var charge int64
	for res := 0; res < p.Resources(); res++ {
		if onPath[res] {
			if uStall[res]+issuesOn[res] > others[res] {
				return fmt.Errorf("resource %d: %d U-stall cycles + %d T-stall issues > %d initiation cycles of the other warps", res, uStall[res], issuesOn[res], others[res])
			}
			charge += others[res]
			continue
		}
		for v := 0; v < p.Warps(); v++ {
			if v == w {
				continue
			}
			for _, in := range p.Instrs(v) {
				if in.Res == res {
					charge++
				}
			}
		}
	}
	if stalls > charge {
		return fmt.Errorf("stalls %d > charge %d", stalls, charge)
	}
	return nil
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
