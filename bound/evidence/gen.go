// Package evidence holds the soundness evidence of the static multi-path
// bound (gpuwcet analyze): random structured PTX kernels go through the
// real front end and the static analysis (package bound/static, as
// analyze runs it), concrete executions are drawn on a SIMT reconvergence
// stack (package phases/sim/simt) and simulated under every scheduling
// policy (package phases/sim); the makespan must never exceed the bound.
// The tests also produce the SGEMM table of docs/validation.md.
//
//	go test ./bound/evidence                       # 5,000 cases
//	GPUWCET_LONG=1 go test -timeout 0 ./bound/evidence -run TestStaticBoundAgainstSimulation
//	go test ./bound/evidence -run TestSGEMM -table # the Table 4 comparison
package evidence

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Kernel is a generated PTX kernel.
type Kernel struct {
	Src      string
	Name     string
	Barriers int // bar.sync instructions in the listing
	Calls    int // call instructions
}

// GenConfig bounds the generated kernels.
type GenConfig struct {
	Size     int // statements (default 14)
	MaxDepth int // nesting (default 3)
	MaxBound int // loop trip counts 1..MaxBound (default 3)
}

type kgen struct {
	r        *rand.Rand
	cfg      GenConfig
	sb       strings.Builder
	size     int
	labels   int
	nr, nf   int // registers used: %r, %f
	np       int
	bars     int
	calls    int
	needFunc bool
}

func (g *kgen) label(p string) string { g.labels++; return fmt.Sprintf("%s_%d", p, g.labels) }
func (g *kgen) newR() string          { g.nr++; return fmt.Sprintf("%%r%d", g.nr) }
func (g *kgen) newP() string          { g.np++; return fmt.Sprintf("%%p%d", g.np) }

// reg returns a random data register, old ones included (dependencies).
func (g *kgen) f() string { return fmt.Sprintf("%%f%d", 1+g.r.IntN(6)) }
func (g *kgen) rr() string {
	return fmt.Sprintf("%%r%d", 10+g.r.IntN(6))
}

func (g *kgen) emit(format string, args ...any) {
	g.sb.WriteByte('\t')
	fmt.Fprintf(&g.sb, format, args...)
	g.sb.WriteString(";\n")
}

func (g *kgen) instr() {
	switch g.r.IntN(9) {
	case 0:
		g.emit("add.s32 %s, %s, %s", g.rr(), g.rr(), g.rr())
	case 1:
		g.emit("mul.lo.s32 %s, %s, %s", g.rr(), g.rr(), g.rr())
	case 2:
		g.emit("fma.rn.f32 %s, %s, %s, %s", g.f(), g.f(), g.f(), g.f())
	case 3:
		g.emit("add.f32 %s, %s, %s", g.f(), g.f(), g.f())
	case 4:
		g.emit("ld.global.f32 %s, [%%rd1]", g.f())
	case 5:
		g.emit("ld.shared.f32 %s, [%%r4]", g.f())
	case 6:
		g.emit("st.shared.f32 [%%r4], %s", g.f())
	case 7:
		g.emit("st.global.f32 [%%rd1], %s", g.f())
	default:
		g.emit("xor.b32 %s, %s, %s", g.rr(), g.rr(), g.rr())
	}
}

// cond returns a predicate and its setp: kind 0 lane-dependent
// (divergent unless the warp's lanes agree), 1 warp-dependent (resolved per
// warp: classes), 2 argument-dependent (uniform, unknown).
func (g *kgen) cond(kind int) string {
	p := g.newP()
	switch kind {
	case 0:
		g.emit("setp.lt.u32 %s, %%r2, %d", p, g.r.IntN(33))
	case 1:
		g.emit("setp.eq.u32 %s, %%r5, %d", p, g.r.IntN(3))
	default:
		g.emit("setp.lt.s32 %s, %%r3, %d", p, g.r.IntN(8))
	}
	return p
}

// block generates statements. barOK: block barriers allowed here (not
// under divergent or warp-dependent control, not in a loop with a
// divergent exit); brk: the label a divergent break may jump to.
func (g *kgen) block(depth int, barOK bool, brk string) {
	k := 1 + g.r.IntN(3)
	for i := 0; i < k && g.size > 0; i++ {
		g.size--
		c := g.r.IntN(12)
		if depth >= g.cfg.MaxDepth && c < 9 {
			c = 9 + g.r.IntN(3)
		}
		switch c {
		case 0, 1: // if (any kind of condition)
			kind := g.r.IntN(3)
			p := g.cond(kind)
			end := g.label("END")
			g.emit("@%s bra %s", p, end)
			g.block(depth+1, barOK && kind == 2, brk)
			g.sb.WriteString(end + ":\n")
		case 2, 3: // if/else
			kind := g.r.IntN(3)
			p := g.cond(kind)
			els, end := g.label("ELSE"), g.label("END")
			g.emit("@%s bra %s", p, els)
			g.block(depth+1, barOK && kind == 2, brk)
			g.emit("bra.uni %s", end)
			g.sb.WriteString(els + ":\n")
			g.block(depth+1, barOK && kind == 2, brk)
			g.sb.WriteString(end + ":\n")
		case 4, 5: // counted do-while loop, maybe with a divergent break
			n := 1 + g.r.IntN(g.cfg.MaxBound)
			ctr := g.newR()
			top, out := g.label("LOOP"), g.label("LEXIT")
			hasBreak := g.r.IntN(3) == 0
			g.emit("mov.u32 %s, 0", ctr)
			g.sb.WriteString(top + ":\n")
			inner := ""
			if hasBreak {
				inner = out
			}
			g.block(depth+1, barOK && !hasBreak, inner)
			g.emit("add.s32 %s, %s, 1", ctr, ctr)
			p := g.newP()
			g.emit("setp.lt.s32 %s, %s, %d", p, ctr, n)
			g.emit("@%s bra %s", p, top)
			g.sb.WriteString(out + ":\n")
		case 6: // counted while loop (test at the top)
			n := 1 + g.r.IntN(g.cfg.MaxBound)
			ctr := g.newR()
			head, out := g.label("WHILE"), g.label("WEXIT")
			g.emit("mov.u32 %s, 0", ctr)
			g.sb.WriteString(head + ":\n")
			p := g.newP()
			g.emit("setp.ge.s32 %s, %s, %d", p, ctr, n)
			g.emit("@%s bra %s", p, out)
			g.block(depth+1, barOK, "")
			g.emit("add.s32 %s, %s, 1", ctr, ctr)
			g.emit("bra.uni %s", head)
			g.sb.WriteString(out + ":\n")
		case 7: // divergent break
			if brk != "" {
				p := g.cond(0)
				g.emit("@%s bra %s", p, brk)
			} else {
				g.instr()
			}
		case 8: // barrier or device call
			if barOK && g.r.IntN(2) == 0 {
				g.emit("bar.sync 0")
				g.bars++
			} else if g.r.IntN(2) == 0 {
				g.emit("call.uni helper, ()")
				g.calls++
				g.needFunc = true
			} else {
				g.instr()
			}
		default:
			g.instr()
		}
	}
}

// Generate returns the random kernel of seed r.
func Generate(r *rand.Rand, cfg GenConfig) *Kernel {
	if cfg.Size <= 0 {
		cfg.Size = 14
	}
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = 3
	}
	if cfg.MaxBound <= 0 {
		cfg.MaxBound = 3
	}
	g := &kgen{r: r, cfg: cfg, size: cfg.Size, nr: 20}
	g.block(0, true, "")
	body := g.sb.String()
	var sb strings.Builder
	sb.WriteString(".version 7.0\n.target sm_80\n.address_size 64\n\n")
	if g.needFunc {
		sb.WriteString(".func helper()\n{\n\t.reg .b32 %hr<4>;\n\tmov.u32 %hr1, %tid.x;\n\tmul.lo.s32 %hr2, %hr1, %hr1;\n\tadd.s32 %hr3, %hr2, 7;\n\tret;\n}\n\n")
	}
	fmt.Fprintf(&sb, ".visible .entry k(\n\t.param .u32 k_param_0,\n\t.param .u64 k_param_1\n)\n{\n")
	fmt.Fprintf(&sb, "\t.reg .pred %%p<%d>;\n\t.reg .b32 %%r<%d>;\n\t.reg .f32 %%f<8>;\n\t.reg .b64 %%rd<2>;\n\n", g.np+1, g.nr+1)
	sb.WriteString("\tmov.u32 %r1, %tid.x;\n\tand.b32 %r2, %r1, 31;\n\tld.param.u32 %r3, [k_param_0];\n\tld.param.u64 %rd1, [k_param_1];\n\tmov.u32 %r4, 0;\n\tshr.u32 %r5, %r1, 5;\n")
	for i := 10; i < 16; i++ {
		fmt.Fprintf(&sb, "\tmov.u32 %%r%d, %d;\n", i, i)
	}
	sb.WriteString(body)
	sb.WriteString("\tret;\n}\n")
	return &Kernel{Src: sb.String(), Name: "k", Barriers: g.bars, Calls: g.calls}
}

// RandomHW draws a hardware description: four units (alu, mul, mem, br)
// with random timings, each alone or in one of two shared groups; bra,
// ret, bar and call routed to random units; a random [pipeline] table
// (overhead, branch_wait, ret_issues, barrier_issues).
func RandomHW(r *rand.Rand) *hwdesc.Desc {
	hw := &hwdesc.Desc{Name: "random", ClockMHz: 1000, DefaultUnit: "alu"}
	for _, n := range []string{"alu", "mul", "mem", "br"} {
		u := hwdesc.Unit{Name: n, Init: hwdesc.Cycles(1 + r.IntN(4)), Lat: hwdesc.Cycles(r.IntN(12))}
		if n == "mem" {
			u.Lat = hwdesc.Cycles(r.IntN(40))
		}
		if g := r.IntN(3); g > 0 {
			u.Group = fmt.Sprintf("g%d", g)
		}
		hw.Units = append(hw.Units, u)
	}
	unit := func() string { return hw.Units[r.IntN(len(hw.Units))].Name }
	hw.Map = []hwdesc.Rule{{Match: "mul*", Unit: "mul"}, {Match: "fma*", Unit: "mul"}, {Match: "ld*", Unit: "mem"}, {Match: "st*", Unit: "mem"},
		{Match: "bra*", Unit: unit()}, {Match: "ret", Unit: unit()}, {Match: "bar*", Unit: unit()}, {Match: "call*", Unit: unit()}}
	hw.Pipeline = hwdesc.Pipeline{
		Overhead:      hwdesc.Cycles(r.IntN(5)),
		BranchWait:    []string{"", hwdesc.BranchWaitNone, hwdesc.BranchWaitTaken, hwdesc.BranchWaitAll}[r.IntN(4)],
		RetIssues:     r.IntN(2) == 0,
		BarrierIssues: r.IntN(2) == 0,
	}
	return hw
}
