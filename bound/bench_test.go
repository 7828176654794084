package bound

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

func benchHW() *hwdesc.Desc {
	return &hwdesc.Desc{Name: "bench", ClockMHz: 930,
		Units: []hwdesc.Unit{{Name: "int", Init: 2, Lat: 2}, {Name: "sp", Init: 1, Lat: 3}, {Name: "sfu", Init: 8, Lat: 13}, {Name: "mem", Init: 1, Lat: 199}},
		Map:   []hwdesc.Rule{{Match: "add.s32", Unit: "int"}, {Match: "fma.*", Unit: "sp"}, {Match: "sin.*", Unit: "sfu"}, {Match: "ld.*", Unit: "mem"}},
	}
}

func reg(kind isa.OperandKind, r string) isa.Operand {
	return isa.Operand{Kind: kind, Text: r, Regs: []string{r}}
}

// benchFunc returns a function whose single traced path has n instructions
// cycling over a 16-instruction body with dependences (as a loop trace
// would), and a bar.sync every 4096 instructions.
func benchFunc(n int) *isa.Func {
	var body []*isa.Instr
	for i := 0; i < 16; i++ {
		d, s := fmt.Sprintf("%%r%d", i), fmt.Sprintf("%%r%d", (i+15)%16)
		var in *isa.Instr
		switch i % 4 {
		case 0:
			in = &isa.Instr{Opcode: "ld", Mods: []string{"global", "f32"}, Kind: isa.KindLoad}
		case 1:
			in = &isa.Instr{Opcode: "fma", Mods: []string{"rn", "f32"}}
		case 2:
			in = &isa.Instr{Opcode: "add", Mods: []string{"s32"}}
		default:
			in = &isa.Instr{Opcode: "sin", Mods: []string{"approx", "f32"}}
		}
		in.Dsts = []isa.Operand{reg(isa.OpReg, d)}
		in.Srcs = []isa.Operand{reg(isa.OpReg, s)}
		body = append(body, in)
	}
	bar := &isa.Instr{Opcode: "bar", Mods: []string{"sync"}, Kind: isa.KindBarrier, Barrier: isa.BarSync}
	path := make([]*isa.Instr, n)
	for i := range path {
		if i%4096 == 4095 {
			path[i] = bar
		} else {
			path[i] = body[i%16]
		}
	}
	return &isa.Func{Name: "bench", Entry: true, Trace: &isa.Trace{Warps: []isa.WarpPath{{Warp: 0, Instrs: path}}}}
}

// BenchmarkBound1M: phases and bound of a 1,000,000-instruction path
// replicated to 32 warps (analysed once).
func BenchmarkBound1M(b *testing.B) {
	fn := benchFunc(1_000_000)
	hw := benchHW()
	b.ReportAllocs()
	var ms runtime.MemStats
	var peak uint64
	for b.Loop() {
		p, err := phases.Build(nil, fn, hw, 32, false)
		if err != nil {
			b.Fatal(err)
		}
		r, err := Compute(p)
		if err != nil {
			b.Fatal(err)
		}
		if r.Bound <= 0 {
			b.Fatal("no bound")
		}
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-MB")
}

// BenchmarkPhases1MExplain: the same path with per-instruction timings kept
// (gpuwcet phases --explain).
func BenchmarkPhases1MExplain(b *testing.B) {
	fn := benchFunc(1_000_000)
	hw := benchHW()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := phases.Build(nil, fn, hw, 32, true); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBenchFuncBound(t *testing.T) {
	p, err := phases.Build(nil, benchFunc(10_000), benchHW(), 32, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	r, err := Compute(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	if len(p.Classes) != 1 || p.NumWarps != 32 || len(r.Sections) != 3 {
		t.Errorf("classes %d warps %d sections %d", len(p.Classes), p.NumWarps, len(r.Sections))
	}
}
