package bound

import (
	"flag"
	"fmt"
	"math/rand"
	"testing"

	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

func randDesc(r *rand.Rand) *hwdesc.Desc {
	d := &hwdesc.Desc{Name: "rand"}
	n := 1 + r.Intn(3)
	for i := 0; i < n; i++ {
		d.Units = append(d.Units, hwdesc.Unit{Name: fmt.Sprintf("U%d", i), Init: hwdesc.Cycles(1 + r.Intn(4)), Lat: hwdesc.Cycles(r.Intn(6))})
	}
	return d
}

func randPath(r *rand.Rand, d *hwdesc.Desc, n int) []phases.Op {
	var ops []phases.Op
	for i := 0; i < n; i++ {
		u := r.Intn(len(d.Units))
		op := phases.Op{Unit: u, Init: d.Units[u].Init, Lat: d.Units[u].Lat}
		if r.Intn(4) > 0 {
			op.Defs = []phases.RegID{phases.RegID(r.Intn(3))}
		}
		for k := 0; k < 3; k++ {
			if r.Intn(3) == 0 {
				op.Uses = append(op.Uses, phases.RegID(k))
			}
		}
		ops = append(ops, op)
	}
	return ops
}

func TestExplorePaperGUB(t *testing.T) {
	r := rand.New(rand.NewSource(*exploreSeed))
	e, _ := phases.NewEngine(&hwdesc.Desc{})
	_ = e
	bad := 0
	for iter := 0; iter < *exploreN && bad < 5; iter++ {
		d := randDesc(r)
		eng, err := phases.NewEngine(d)
		if err != nil {
			t.Fatal(err)
		}
		nw := 2 + r.Intn(*exploreWarps)
		var paths [][]phases.Op
		var dur, exec []hwdesc.Cycles
		for w := 0; w < nw; w++ {
			p := randPath(r, d, 1+r.Intn(*exploreLen))
			paths = append(paths, p)
			c := phases.BuildClass(eng, p, false)
			dur = append(dur, c.Duration)
			exec = append(exec, c.Exec)
		}
		var gub hwdesc.Cycles
		for w := range paths {
			wub := dur[w]
			for v := range paths {
				if v != w {
					wub += exec[v]
				}
			}
			gub = max(gub, wub)
		}
		worst, ok := worstMakespan(len(d.Units), paths, 200000)
		if !ok {
			continue
		}
		if worst > gub {
			bad++
			t.Errorf("iter %d: worst %d > paper GUB %d; units %+v", iter, worst, gub, d.Units)
			for w, p := range paths {
				t.Logf("  warp %d dur %d exec %d", w, dur[w], exec[w])
				for _, op := range p {
					t.Logf("    U%d defs %v uses %v", op.Unit, op.Defs, op.Uses)
				}
			}
		}
	}
}

var (
	exploreN     = flag.Int("explore.n", 3000, "random blocks explored by TestExplorePaperGUB")
	exploreLen   = flag.Int("explore.len", 4, "max path length")
	exploreWarps = flag.Int("explore.warps", 2, "extra warps (2 + rand)")
	exploreSeed  = flag.Int64("explore.seed", 1, "seed")
)
