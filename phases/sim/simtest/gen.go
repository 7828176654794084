package simtest

import (
	"math/rand/v2"
	"strconv"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Config bounds the generated blocks; zero fields take the defaults of the
// issue (1–6 units, init 1–12, lat 0–400, 1–32 warps, 1–200 instructions
// per warp).
type Config struct {
	MaxUnits  int
	MaxInit   int
	MaxLat    int
	MaxWarps  int
	MaxInstrs int
}

func (c Config) withDefaults() Config {
	if c.MaxUnits <= 0 {
		c.MaxUnits = 6
	}
	if c.MaxInit <= 0 {
		c.MaxInit = 12
	}
	if c.MaxLat <= 0 {
		c.MaxLat = 400
	}
	if c.MaxWarps <= 0 {
		c.MaxWarps = 32
	}
	if c.MaxInstrs <= 0 {
		c.MaxInstrs = 200
	}
	return c
}

// skewed returns a number in [1, n], small numbers more likely (the
// maximum of a uniform draw of a uniform bound).
func skewed(r *rand.Rand, n int) int {
	return 1 + r.IntN(1+r.IntN(n))
}

// Generate returns the random block of the given seed: a random hardware
// description, 1 to MaxWarps warps running identical (half of the cases)
// or different straight-line paths with random dependencies, guards,
// multi-destination instructions and block barriers (the same number in
// every warp).
func Generate(cfg Config, seed int64) *Case {
	cfg = cfg.withDefaults()
	r := rand.New(rand.NewPCG(uint64(seed), 0x51a7e57))
	nu := 1 + r.IntN(cfg.MaxUnits)
	init := make([]hwdesc.Cycles, nu)
	lat := make([]hwdesc.Cycles, nu)
	for i := range init {
		init[i] = hwdesc.Cycles(1 + r.IntN(cfg.MaxInit))
		switch r.IntN(10) {
		case 0, 1, 2, 3, 4:
			lat[i] = hwdesc.Cycles(r.IntN(min(11, cfg.MaxLat+1)))
		case 5, 6, 7:
			lat[i] = hwdesc.Cycles(r.IntN(min(51, cfg.MaxLat+1)))
		default:
			lat[i] = hwdesc.Cycles(r.IntN(cfg.MaxLat + 1))
		}
	}
	c := &Case{Comment: "seed " + strconv.FormatInt(seed, 10) + "\n", HW: NewHW(nil, init, lat)}
	if r.IntN(2) == 0 { // a [pipeline] table and shared FIFOs
		pp := &c.HW.Pipeline
		pp.Overhead = hwdesc.Cycles(r.IntN(6))
		pp.BranchWait = []string{"", hwdesc.BranchWaitNone, hwdesc.BranchWaitTaken, hwdesc.BranchWaitAll}[r.IntN(4)]
		pp.RetIssues = r.IntN(2) == 0
		pp.BarrierIssues = r.IntN(3) == 0
		if nu >= 2 && r.IntN(2) == 0 {
			for u := range c.HW.Units {
				if r.IntN(2) == 0 {
					c.HW.Units[u].Group = "g" + strconv.Itoa(r.IntN(2))
				}
			}
		}
	}
	nw := skewed(r, cfg.MaxWarps)
	if r.IntN(4) == 0 {
		nw = cfg.MaxWarps - r.IntN(1+cfg.MaxWarps/4)
	}
	bars := 0
	if r.IntN(10) < 3 {
		bars = 1 + r.IntN(3)
	}
	g := &pathGen{r: r, units: nu, regs: 2 + r.IntN(23), preds: 1 + r.IntN(3),
		guardP: r.IntN(4), multiP: r.IntN(4), depP: 3 + r.IntN(6), branchP: r.IntN(3)}
	n := skewed(r, cfg.MaxInstrs)
	if r.IntN(2) == 0 {
		p := g.path(n, bars)
		for w := 0; w < nw; w++ {
			c.Warps = append(c.Warps, p)
		}
	} else {
		for w := 0; w < nw; w++ {
			c.Warps = append(c.Warps, g.path(1+r.IntN(n), bars))
		}
	}
	return c
}

type pathGen struct {
	r                    *rand.Rand
	units, regs, preds   int
	guardP, multiP, depP int // in tenths
	branchP              int // in twentieths
}

func (g *pathGen) reg() string  { return "r" + strconv.Itoa(g.r.IntN(g.regs)) }
func (g *pathGen) pred() string { return "p" + strconv.Itoa(g.r.IntN(g.preds)) }

// path returns n instructions (barriers included), ending in ret or exit
// half of the time.
func (g *pathGen) path(n, bars int) []*isa.Instr {
	r := g.r
	barAt := map[int]int{}
	for b := 0; b < bars; b++ {
		barAt[r.IntN(n+1)]++
	}
	var p []*isa.Instr
	var recent []string // recently written registers, for dependencies
	add := func(in *isa.Instr) {
		in.Index = len(p)
		p = append(p, in)
	}
	for i := 0; i <= n; i++ {
		for k := 0; k < barAt[i]; k++ {
			add(Instr("bar.sync", "", nil, nil))
		}
		if i == n {
			break
		}
		if r.IntN(20) < g.branchP { // a branch, falling through or taken
			op := "bra"
			if r.IntN(2) == 0 {
				op = "bra.taken"
			}
			guard := ""
			if r.IntN(2) == 0 {
				guard = g.pred()
			}
			add(Instr(op, guard, nil, nil))
			continue
		}
		op := "u" + strconv.Itoa(r.IntN(g.units))
		var dsts, srcs []string
		switch x := r.IntN(20); {
		case x == 0: // no destination (a store)
		case x < 3: // a predicate (setp)
			dsts = []string{g.pred()}
		case x < 3+g.multiP: // several destinations (vector load, wide ops)
			for k := 2 + r.IntN(3); k > 0; k-- {
				if d := g.reg(); !contains(dsts, d) {
					dsts = append(dsts, d)
				}
			}
		default:
			dsts = []string{g.reg()}
		}
		for k := r.IntN(4); k > 0; k-- {
			var s string
			if len(recent) > 0 && r.IntN(10) < g.depP {
				s = recent[len(recent)-1-r.IntN(min(len(recent), 4))]
			} else {
				s = g.reg()
			}
			if !contains(srcs, s) {
				srcs = append(srcs, s)
			}
		}
		guard := ""
		if r.IntN(10) < g.guardP && r.IntN(2) == 0 {
			guard = g.pred()
			if r.IntN(3) == 0 {
				guard = "!" + guard
			}
		}
		add(Instr(op, guard, dsts, srcs))
		recent = append(recent, dsts...)
	}
	switch r.IntN(4) {
	case 0, 1:
		add(Instr("ret", "", nil, nil))
	case 2:
		add(Instr("exit", "", nil, nil))
	}
	return Reindex(p)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// GenerateMixed returns the random block of the given seed built to stress
// shared FIFOs whose units have different initiation intervals (the ECRTS
// presets' int group: alu init 1, int 2, int24 3): 2–4 units in one group,
// the first of init 1 (where block barriers are routed), the second of
// init 2–4, the others 1–4, plus 0–2 ungrouped units; lat 0–9; two thirds
// of the instructions on the group; issuing barriers (two thirds of the
// cases), ret_issues, overhead 0–2, every branch_wait; 2–4 warps running
// one path or different paths of 1–7 instructions with up to one barrier.
func GenerateMixed(seed int64) *Case {
	r := rand.New(rand.NewPCG(uint64(seed), 77))
	ng := 2 + r.IntN(3) // grouped units
	no := r.IntN(3)     // other units
	var names []string
	var init, lat []hwdesc.Cycles
	for i := 0; i < ng+no; i++ {
		names = append(names, "u"+strconv.Itoa(i))
		in := 1 + r.IntN(4)
		switch i {
		case 0:
			in = 1
		case 1:
			in = 2 + r.IntN(3)
		}
		init = append(init, hwdesc.Cycles(in))
		lat = append(lat, hwdesc.Cycles(r.IntN(10)))
	}
	hw := NewHW(names, init, lat)
	for i := 0; i < ng; i++ {
		hw.Units[i].Group = "g"
	}
	hw.Pipeline.Overhead = hwdesc.Cycles(r.IntN(3))
	hw.Pipeline.BranchWait = []string{"", hwdesc.BranchWaitNone, hwdesc.BranchWaitTaken, hwdesc.BranchWaitAll}[r.IntN(4)]
	hw.Pipeline.BarrierIssues = r.IntN(3) != 0
	hw.Pipeline.RetIssues = r.IntN(2) == 0
	c := &Case{Comment: "mixed seed " + strconv.FormatInt(seed, 10) + "\n", HW: hw}
	nw := 2 + r.IntN(3)
	bars := r.IntN(2)
	nregs := 2 + r.IntN(5)
	path := func(n int) []*isa.Instr {
		var p []*isa.Instr
		barAt := -1
		if bars > 0 {
			barAt = r.IntN(n + 1)
		}
		for i := 0; i <= n; i++ {
			if i == barAt {
				p = append(p, Instr("bar.sync", "", nil, nil))
			}
			if i == n {
				break
			}
			u := r.IntN(ng + no)
			if r.IntN(3) != 0 {
				u = r.IntN(ng)
			}
			var d, s []string
			if r.IntN(4) != 0 {
				d = []string{"r" + strconv.Itoa(r.IntN(nregs))}
			}
			for k := r.IntN(3); k > 0; k-- {
				s = append(s, "r"+strconv.Itoa(r.IntN(nregs)))
			}
			p = append(p, Instr(names[u], "", d, s))
		}
		if r.IntN(3) == 0 {
			p = append(p, Instr("ret", "", nil, nil))
		}
		return Reindex(p)
	}
	n := 2 + r.IntN(6)
	if r.IntN(2) == 0 {
		p := path(n)
		for w := 0; w < nw; w++ {
			c.Warps = append(c.Warps, p)
		}
	} else {
		for w := 0; w < nw; w++ {
			c.Warps = append(c.Warps, path(1+r.IntN(n)))
		}
	}
	return c
}
