package evidence

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Kernel is a generated PTX kernel, with the inputs of its case.
type Kernel struct {
	Src      string
	Name     string
	Barriers int // bar.sync instructions in the listing
	Calls    int // call instructions
	// Args are the kernel arguments of the case: the pointers always,
	// the integer parameters k_param_0 (.u32) and k_param_2 (.s32, maybe
	// negative) in three cases of four (otherwise unknown to the
	// analysis, drawn by the judge).
	Args map[string]int64
	// Facts are the loops whose trip count depends on the lanes, the
	// arguments or memory, with a bound on their header executions per
	// entry: the user's flow facts of the case (FactsTOML).
	Facts []Fact
	// Shapes counts the constructs generated, by name (for the test's
	// summary: lane-arith, signed-arith, call-result, leave-code, ...).
	Shapes map[string]int
}

// Fact bounds the header executions of the loop whose header carries
// Label.
type Fact struct {
	Label string
	Max   int
	Why   string
}

// FactsTOML renders the facts of k as a facts file (docs/facts.md) for the
// listing of checksum sha.
func (k *Kernel) FactsTOML(sha string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "version = 1\nlisting = \"k.ptx\"\nsha256 = %q\n\n[[kernel]]\nname = %q\n", sha, k.Name)
	for _, f := range k.Facts {
		fmt.Fprintf(&sb, "\n[[kernel.loop]]\nlabel = %q\nmax = %d\nwhy = %q\nby = \"bound/evidence generator\"\n", f.Label, f.Max, f.Why)
	}
	return sb.String()
}

// GenConfig bounds the generated kernels.
type GenConfig struct {
	Size     int // statements (default 14)
	MaxDepth int // nesting (default 3)
	MaxBound int // loop trip counts 1..MaxBound (default 3)
}

// Condition kinds: what a branch condition is computed from.
const (
	kLane     = iota // thread indices (divergent unless the lanes agree)
	kWarp            // the warp index (resolved per warp: classes)
	kArg             // kernel arguments, literals (uniform; resolved when given)
	kData            // a load at a uniform address (uniform, unknown)
	kLaneData        // a load at a per-lane address (divergent, unknown)
	kCall            // the return value of a device function
	nKinds
)

// uniformKind: the condition has one value for the whole block.
func uniformKind(k int) bool { return k == kArg || k == kData }

// loopCtx is the innermost enclosing loop of a statement.
type loopCtx struct {
	ctr   string // its counter
	exit  string // the label after the loop (the reconvergence point)
	leave string // a label before code the leaving lanes run, or ""
}

type kgen struct {
	r       *rand.Rand
	cfg     GenConfig
	sb      *strings.Builder
	size    int
	labels  int
	nr, nrd int // registers used: %r, %rd
	np      int
	bars    int
	calls   int
	helper  bool     // the parameterless helper is called
	funcs   []string // device functions with parameters, rendered
	nfn     int
	facts   []Fact
	shapes  map[string]int
	leaves  []string // code of the leave labels, emitted after their loop
}

func (g *kgen) label(p string) string { g.labels++; return fmt.Sprintf("%s_%d", p, g.labels) }
func (g *kgen) newR() string          { g.nr++; return fmt.Sprintf("%%r%d", g.nr) }
func (g *kgen) newRD() string         { g.nrd++; return fmt.Sprintf("%%rd%d", g.nrd) }
func (g *kgen) newP() string          { g.np++; return fmt.Sprintf("%%p%d", g.np) }

// f and rr return random data registers, old ones included (dependencies).
func (g *kgen) f() string  { return fmt.Sprintf("%%f%d", 1+g.r.IntN(6)) }
func (g *kgen) rr() string { return fmt.Sprintf("%%r%d", 10+g.r.IntN(6)) }

func (g *kgen) emit(format string, args ...any) {
	g.sb.WriteByte('\t')
	fmt.Fprintf(g.sb, format, args...)
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

// konst draws an integer operand: small, negative, or a boundary of the
// signed and unsigned ranges.
func (g *kgen) konst() int64 {
	switch g.r.IntN(6) {
	case 0, 1:
		return int64(g.r.IntN(41))
	case 2:
		return -int64(1 + g.r.IntN(40))
	case 3:
		return []int64{0x7fffffff, -0x80000000, 0xffff, 31, 32, 33}[g.r.IntN(6)]
	}
	return int64(1 + g.r.IntN(8))
}

// divisor draws a non-zero divisor (negative ones too).
func (g *kgen) divisor() int64 {
	d := int64(2 + g.r.IntN(40))
	if g.r.IntN(3) == 0 {
		d = -d
	}
	return d
}

// regs is a register namespace (the kernel's %r, a device function's
// own).
type regs struct {
	new     func() string
	uniform []string // registers holding block-uniform values, to mix in
}

// op emits one arithmetic step on x and returns its result: integer
// instructions whose signed and unsigned readings differ on negative
// values (rem, div, shr, min, max with .s32 and .u32), wrap-around, logic.
func (g *kgen) op(x string, rs regs, mix bool) string {
	d := rs.new()
	other := fmt.Sprint(g.konst())
	if mix && len(rs.uniform) > 0 && g.r.IntN(3) == 0 {
		other = rs.uniform[g.r.IntN(len(rs.uniform))]
	}
	switch g.r.IntN(18) {
	case 0:
		g.emit("add.s32 %s, %s, %s", d, x, other)
	case 1:
		g.emit("sub.s32 %s, %s, %s", d, x, other)
	case 2:
		g.emit("mul.lo.s32 %s, %s, %d", d, x, 1+g.r.IntN(7)-3)
	case 3:
		g.emit("and.b32 %s, %s, %s", d, x, other)
	case 4:
		g.emit("or.b32 %s, %s, %s", d, x, []string{"0x80000000", other}[g.r.IntN(2)])
	case 5:
		g.emit("xor.b32 %s, %s, %s", d, x, []string{"-1", other}[g.r.IntN(2)])
	case 6:
		g.emit("not.b32 %s, %s", d, x)
	case 7:
		g.emit("neg.s32 %s, %s", d, x)
	case 8:
		g.emit("shl.b32 %s, %s, %d", d, x, g.r.IntN(36))
	case 9:
		g.emit("shr.%s32 %s, %s, %d", []string{"s", "u"}[g.r.IntN(2)], d, x, g.r.IntN(36))
	case 10, 11:
		g.emit("rem.%s32 %s, %s, %d", []string{"s", "u", "s"}[g.r.IntN(3)], d, x, g.divisor())
	case 12, 13:
		g.emit("div.%s32 %s, %s, %d", []string{"s", "u", "s"}[g.r.IntN(3)], d, x, g.divisor())
	case 14, 15:
		g.emit("%s.%s32 %s, %s, %s", []string{"min", "max"}[g.r.IntN(2)], []string{"s", "u", "s"}[g.r.IntN(3)], d, x, other)
	case 16:
		g.emit("mul.hi.%s32 %s, %s, %s", []string{"s", "u"}[g.r.IntN(2)], d, x, other)
	default:
		g.emit("mad.lo.s32 %s, %s, %d, %s", d, x, g.r.IntN(5)-2, other)
	}
	return d
}

// kernelRegs is the kernel's namespace: uniform sources are the integer
// arguments and a negative literal.
func (g *kgen) kernelRegs() regs {
	return regs{new: g.newR, uniform: []string{"%r3", "%r6", "%r7"}}
}

// expr emits a value of the given kind through 0-3 arithmetic steps.
func (g *kgen) expr(kind int) string {
	var x string
	switch kind {
	case kLane:
		x = []string{"%r1", "%r2"}[g.r.IntN(2)]
	case kWarp:
		x = "%r5"
	case kArg:
		x = []string{"%r3", "%r6", "%r7"}[g.r.IntN(3)]
	case kData:
		x = "%r8"
	case kLaneData:
		x = "%r9"
	case kCall:
		return g.call()
	}
	n := g.r.IntN(4)
	if n > 0 {
		g.shapes["arith"]++
	}
	for range n {
		// A warp-kind value stays per warp: mixing in uniform values keeps
		// the kind; lane and data kinds too.
		x = g.op(x, g.kernelRegs(), true)
	}
	return x
}

// cond emits a predicate of the given kind.
func (g *kgen) cond(kind int) string {
	x := g.expr(kind)
	p := g.newP()
	ty := []string{"s32", "u32", "s32"}[g.r.IntN(3)]
	cmp := []string{"lt", "le", "gt", "ge", "eq", "ne"}[g.r.IntN(6)]
	rhs := fmt.Sprint(g.konst())
	if g.r.IntN(4) == 0 {
		rhs = []string{"%r3", "%r6", "%r7"}[g.r.IntN(3)]
	}
	g.emit("setp.%s.%s %s, %s, %s", cmp, ty, p, x, rhs)
	if ty == "s32" {
		g.shapes["signed-compare"]++
	}
	g.shapes["cond-"+kindNames[kind]]++
	return p
}

var kindNames = [...]string{kLane: "lane", kWarp: "warp", kArg: "arg", kData: "data", kLaneData: "lane-data", kCall: "call"}

// kind draws a condition kind.
func (g *kgen) kind() int {
	return []int{kLane, kLane, kLane, kWarp, kArg, kArg, kData, kLaneData, kLaneData, kCall}[g.r.IntN(10)]
}

// call emits a call to a new device function with one or two parameters
// (lane or argument values) and returns the register holding its return
// value: parameters and return values are as varying as what the caller
// passes (issue 9, item 1).
func (g *kgen) call() string {
	g.nfn++
	name := fmt.Sprintf("f%d", g.nfn)
	nargs := 1 + g.r.IntN(2)
	var args []string
	for range nargs {
		x := []string{"%r1", "%r2", "%r1", "%r3", "%r5", "%r6"}[g.r.IntN(6)]
		if g.r.IntN(2) == 0 {
			x = g.op(x, g.kernelRegs(), true)
		}
		args = append(args, x)
	}
	g.funcs = append(g.funcs, g.function(name, nargs))
	g.sb.WriteString("\t{\n")
	var pnames []string
	for i, a := range args {
		pn := fmt.Sprintf("param%d", i)
		pnames = append(pnames, pn)
		g.emit(".param .b32 %s", pn)
		g.emit("st.param.b32 [%s+0], %s", pn, a)
	}
	g.emit(".param .b32 retval0")
	g.emit("call.uni (retval0), %s, (%s)", name, strings.Join(pnames, ", "))
	d := g.newR()
	g.emit("ld.param.b32 %s, [retval0+0]", d)
	g.sb.WriteString("\t}\n")
	g.calls++
	g.shapes["call-result"]++
	return d
}

// function renders device function name with nargs .b32 parameters: an
// arithmetic chain on them, maybe an if/else on one, the result returned.
func (g *kgen) function(name string, nargs int) string {
	outer := g.sb
	var sb strings.Builder
	g.sb = &sb
	defer func() { g.sb = outer }()
	n := 0
	rs := regs{new: func() string { n++; return fmt.Sprintf("%%s%d", 10+n) }}
	var ps []string
	for i := range nargs {
		x := fmt.Sprintf("%%s%d", i+1)
		g.emit("ld.param.u32 %s, [%s_param_%d]", x, name, i)
		ps = append(ps, x)
	}
	x := ps[g.r.IntN(len(ps))]
	for range 1 + g.r.IntN(3) {
		x = g.op(x, rs, false)
		if len(ps) > 1 && g.r.IntN(2) == 0 {
			y := rs.new()
			g.emit("add.s32 %s, %s, %s", y, x, ps[g.r.IntN(len(ps))])
			x = y
		}
	}
	res := x
	if g.r.IntN(2) == 0 {
		// An if/else in the callee, on a parameter.
		res = rs.new()
		c := g.op(ps[0], rs, false)
		lbl := fmt.Sprintf("%s_ELSE", name)
		end := fmt.Sprintf("%s_END", name)
		g.emit("setp.lt.s32 %%q1, %s, %d", c, g.konst())
		g.emit("@%%q1 bra %s", lbl)
		g.emit("mul.lo.s32 %s, %s, 3", res, x)
		g.emit("bra.uni %s", end)
		sb.WriteString(lbl + ":\n")
		g.emit("xor.b32 %s, %s, 5", res, x)
		sb.WriteString(end + ":\n")
	}
	g.emit("st.param.b32 [func_retval0+0], %s", res)
	g.emit("ret")
	var params []string
	for i := range nargs {
		params = append(params, fmt.Sprintf("\t.param .b32 %s_param_%d", name, i))
	}
	return fmt.Sprintf(".func (.param .b32 func_retval0) %s(\n%s\n)\n{\n\t.reg .pred %%q<4>;\n\t.reg .b32 %%s<%d>;\n%s}\n\n",
		name, strings.Join(params, ",\n"), 12+n, sb.String())
}

// leaveCode emits the code lanes leaving a loop run before reaching its
// exit (a store, maybe long-latency work).
func (g *kgen) leaveCode() string {
	outer := g.sb
	var sb strings.Builder
	g.sb = &sb
	for range 1 + g.r.IntN(2) {
		g.emit("fma.rn.f32 %s, %s, %s, %s", g.f(), g.f(), g.f(), g.f())
	}
	g.emit("st.global.f32 [%%rd1], %s", g.f())
	g.sb = outer
	return sb.String()
}

// block generates statements. barOK: block barriers allowed here (not
// under divergent or warp-dependent control, not in a loop lanes leave
// divergently); lp: the innermost loop, or nil.
func (g *kgen) block(depth int, barOK bool, lp *loopCtx) {
	k := 1 + g.r.IntN(3)
	for i := 0; i < k && g.size > 0; i++ {
		g.size--
		c := g.r.IntN(14)
		if depth >= g.cfg.MaxDepth && c < 11 {
			c = 11 + g.r.IntN(3)
		}
		switch c {
		case 0, 1: // if
			kind := g.kind()
			p := g.cond(kind)
			end := g.label("END")
			g.emit("@%s bra %s", p, end)
			g.block(depth+1, barOK && uniformKind(kind), lp)
			g.sb.WriteString(end + ":\n")
		case 2, 3: // if/else
			kind := g.kind()
			p := g.cond(kind)
			els, end := g.label("ELSE"), g.label("END")
			g.emit("@%s bra %s", p, els)
			g.block(depth+1, barOK && uniformKind(kind), lp)
			g.emit("bra.uni %s", end)
			g.sb.WriteString(els + ":\n")
			g.block(depth+1, barOK && uniformKind(kind), lp)
			g.sb.WriteString(end + ":\n")
		case 4, 5, 6: // a do-while loop
			g.doWhile(depth, barOK)
		case 7: // counted while loop (test at the top)
			n := 1 + g.r.IntN(g.cfg.MaxBound)
			ctr := g.newR()
			head, out := g.label("WHILE"), g.label("WEXIT")
			g.emit("mov.u32 %s, 0", ctr)
			g.sb.WriteString(head + ":\n")
			p := g.newP()
			g.emit("setp.ge.s32 %s, %s, %d", p, ctr, n)
			g.emit("@%s bra %s", p, out)
			g.block(depth+1, barOK, &loopCtx{ctr: ctr, exit: out})
			g.emit("add.s32 %s, %s, 1", ctr, ctr)
			g.emit("bra.uni %s", head)
			g.sb.WriteString(out + ":\n")
		case 8, 9: // divergent break: to the exit, or through code first
			if lp == nil {
				g.instr()
				break
			}
			var p string
			if g.r.IntN(2) == 0 {
				// Lanes leave at an iteration of their own.
				x := g.expr(kLane)
				m := g.newR()
				g.emit("and.b32 %s, %s, %d", m, x, g.r.IntN(4))
				p = g.newP()
				g.emit("setp.eq.s32 %s, %s, %s", p, lp.ctr, m)
				g.shapes["lane-trip"]++
			} else {
				p = g.cond([]int{kLane, kLaneData, kCall}[g.r.IntN(3)])
			}
			target := lp.exit
			if lp.leave != "" && g.r.IntN(3) != 0 {
				target = lp.leave
				g.shapes["leave-code"]++
			}
			g.emit("@%s bra %s", p, target)
		case 10: // barrier or device call
			if barOK && g.r.IntN(2) == 0 {
				g.emit("bar.sync 0")
				g.bars++
			} else if g.r.IntN(2) == 0 {
				g.emit("call.uni helper, ()")
				g.calls++
				g.helper = true
			} else {
				g.instr()
			}
		default:
			g.instr()
		}
	}
}

// doWhile emits a do-while loop: counted (a constant trip count), with a
// lane- or argument-dependent trip count, or ended by memory data; lanes
// may break out of it, to its exit or through code before it.
func (g *kgen) doWhile(depth int, barOK bool) {
	ctr := g.newR()
	top, out := g.label("LOOP"), g.label("LEXIT")
	lp := &loopCtx{ctr: ctr, exit: out}
	if g.r.IntN(2) == 0 {
		lp.leave = g.label("LEAVE")
	}
	mode := g.r.IntN(4) // 0, 1: counted; 2: lane or argument trip count; 3: data
	var lim string
	n := 1 + g.r.IntN(g.cfg.MaxBound)
	switch mode {
	case 2:
		kind := []int{kLane, kLane, kArg, kWarp}[g.r.IntN(4)]
		x := g.expr(kind)
		t := g.newR()
		g.emit("and.b32 %s, %s, %d", t, x, n-1)
		lim = g.newR()
		g.emit("add.s32 %s, %s, 1", lim, t)
		g.facts = append(g.facts, Fact{Label: top, Max: n, Why: fmt.Sprintf("trip count (x & %d) + 1", n-1)})
		g.shapes["loop-"+kindNames[kind]+"-trip"]++
	case 3:
		g.facts = append(g.facts, Fact{Label: top, Max: n, Why: "data-dependent exit, at most " + fmt.Sprint(n)})
		g.shapes["loop-data"]++
	}
	g.emit("mov.u32 %s, 0", ctr)
	g.sb.WriteString(top + ":\n")
	// Barriers only in a loop every lane runs to the same count.
	g.block(depth+1, barOK && lp.leave == "" && mode < 2, lp)
	g.emit("add.s32 %s, %s, 1", ctr, ctr)
	p := g.newP()
	switch mode {
	case 2:
		g.emit("setp.lt.s32 %s, %s, %s", p, ctr, lim)
	case 3:
		a, o := g.newRD(), g.newRD()
		v := g.newR()
		g.emit("mul.wide.u32 %s, %s, 1024", o, ctr)
		g.emit("add.s64 %s, %%rd4, %s", a, o)
		g.emit("ld.global.u32 %s, [%s+4096]", v, a)
		g.emit("setp.ne.s32 %s, %s, 0", p, v)
	default:
		g.emit("setp.lt.s32 %s, %s, %d", p, ctr, n)
	}
	g.emit("@%s bra %s", p, top)
	if lp.leave != "" {
		g.emit("bra.uni %s", out)
		g.sb.WriteString(lp.leave + ":\n")
		g.sb.WriteString(g.leaveCode())
	}
	g.sb.WriteString(out + ":\n")
}

// argValues are the values integer arguments are drawn from: negative
// ones and the boundaries where signed and unsigned readings differ.
var argValues = []int64{-1, -2, -7, -33, -0x80000000, 0, 1, 3, 7, 8, 31, 33, 100, 0x7fffffff}

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
	var body strings.Builder
	g := &kgen{r: r, cfg: cfg, sb: &body, size: cfg.Size, nr: 20, nrd: 8, shapes: map[string]int{}}
	g.block(0, true, nil)
	neg := -1 - r.IntN(40)
	var sb strings.Builder
	sb.WriteString(".version 7.0\n.target sm_80\n.address_size 64\n\n")
	if g.helper {
		sb.WriteString(".func helper()\n{\n\t.reg .b32 %hr<4>;\n\tmov.u32 %hr1, %tid.x;\n\tmul.lo.s32 %hr2, %hr1, %hr1;\n\tadd.s32 %hr3, %hr2, 7;\n\tret;\n}\n\n")
	}
	for _, f := range g.funcs {
		sb.WriteString(f)
	}
	sb.WriteString(".visible .entry k(\n\t.param .u32 k_param_0,\n\t.param .u64 k_param_1,\n\t.param .s32 k_param_2,\n\t.param .u64 k_param_3\n)\n{\n")
	fmt.Fprintf(&sb, "\t.reg .pred %%p<%d>;\n\t.reg .b32 %%r<%d>;\n\t.reg .f32 %%f<8>;\n\t.reg .b64 %%rd<%d>;\n\n", g.np+1, g.nr+1, g.nrd+1)
	// Sources: %r1 tid.x, %r2 its lane, %r3 and %r6 the integer
	// arguments, %r5 the warp, %r7 a negative literal through logic,
	// %r8 a load at a uniform address, %r9 one at a per-lane address
	// (of the read-only region at k_param_3; stores go to k_param_1).
	sb.WriteString("\tmov.u32 %r1, %tid.x;\n\tand.b32 %r2, %r1, 31;\n\tld.param.u32 %r3, [k_param_0];\n\tld.param.u64 %rd1, [k_param_1];\n\tmov.u32 %r4, 0;\n\tshr.u32 %r5, %r1, 5;\n\tld.param.u32 %r6, [k_param_2];\n")
	fmt.Fprintf(&sb, "\tmov.u32 %%r7, %d;\n\txor.b32 %%r7, %%r7, 0;\n", neg)
	sb.WriteString("\tld.param.u64 %rd2, [k_param_3];\n\tcvta.to.global.u64 %rd3, %rd2;\n\tld.global.u32 %r8, [%rd3];\n\tmul.wide.u32 %rd5, %r1, 4;\n\tadd.s64 %rd4, %rd3, %rd5;\n\tld.global.u32 %r9, [%rd4+256];\n")
	for i := 10; i < 16; i++ {
		fmt.Fprintf(&sb, "\tmov.u32 %%r%d, %d;\n", i, i)
	}
	sb.WriteString(body.String())
	sb.WriteString("\tret;\n}\n")
	k := &Kernel{Src: sb.String(), Name: "k", Barriers: g.bars, Calls: g.calls, Facts: g.facts, Shapes: g.shapes,
		Args: map[string]int64{"k_param_1": 0x10000000, "k_param_3": 0x20000000}}
	if r.IntN(4) != 0 {
		a, b := argValues[r.IntN(len(argValues))], argValues[r.IntN(len(argValues))]
		k.Args["k_param_0"] = int64(uint32(a)) // .u32: its unsigned value
		k.Args["k_param_2"] = b
	}
	return k
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
