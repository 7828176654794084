package divergence

import (
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// The per-warp resolution evaluates branch conditions exactly, lane by
// lane, for the values it understands: thread and lane indices, launch
// dimensions, kernel arguments (ld.param of a named parameter given in
// Launch.Args), integer literals, and integer arithmetic, comparisons and
// predicate logic on them. A register is evaluated only when it has a
// single, unguarded definition whose block dominates the use (earlier in
// the same block, or a dominating block): its value is then the same at
// every use, in every iteration. Anything else is unknown, and a branch
// with an unknown condition stays Divergent when the condition is
// thread-varying and Unknown (whole warp, either side) when it is uniform.
// Only PTX is evaluated; SASS branches are classified but not resolved.

// warp is one warp of the thread block: the thread ids of its lanes.
type warp struct {
	index int
	tid   [][3]int64 // per lane: tid.x, tid.y, tid.z (nil when unknown)
	lanes int
}

// warpsOf returns the warps of a block of the given dimensions, or nil
// when they are unknown.
func warpsOf(l pass.Launch) []warp {
	if l.Block[0] <= 0 {
		return nil
	}
	d := l.Block
	for i := 1; i < 3; i++ {
		if d[i] <= 0 {
			d[i] = 1
		}
	}
	n := d[0] * d[1] * d[2]
	var ws []warp
	for k := 0; k*32 < n; k++ {
		w := warp{index: k}
		for t := 32 * k; t < 32*k+32 && t < n; t++ {
			x := t % d[0]
			y := (t / d[0]) % d[1]
			z := t / (d[0] * d[1])
			w.tid = append(w.tid, [3]int64{int64(x), int64(y), int64(z)})
		}
		w.lanes = len(w.tid)
		ws = append(ws, w)
	}
	return ws
}

// lanes holds a value per lane, or is nil when unknown.
type lanes []int64

type evaluator struct {
	g       *cfg.Graph
	blockOf map[*isa.Instr]*cfg.Block
	defs    map[string][]*isa.Instr
	launch  pass.Launch
	w       warp // w.tid nil: thread indices unknown (one pseudo-lane)
	memo    map[string]lanes
	busy    map[string]bool
}

func (e *evaluator) n() int {
	if e.w.tid == nil {
		return 1
	}
	return len(e.w.tid)
}

func (e *evaluator) uniform(v int64) lanes {
	out := make(lanes, e.n())
	for i := range out {
		out[i] = v
	}
	return out
}

// reg evaluates register r as read by instruction at.
func (e *evaluator) reg(r string, at *isa.Instr) lanes {
	ds := e.defs[r]
	if len(ds) != 1 {
		return nil
	}
	d := ds[0]
	if d.Guard.Reg != "" || !e.dominates(d, at) {
		return nil
	}
	if v, ok := e.memo[r]; ok {
		return v
	}
	if e.busy[r] {
		return nil
	}
	e.busy[r] = true
	v := e.instr(d, r)
	delete(e.busy, r)
	e.memo[r] = v
	return v
}

func (e *evaluator) dominates(d, at *isa.Instr) bool {
	bd, bu := e.blockOf[d], e.blockOf[at]
	if bd == nil || bu == nil {
		return false
	}
	if bd == bu {
		return d.Index < at.Index
	}
	return e.g.Dominates(bd, bu)
}

// operand evaluates a source operand of in.
func (e *evaluator) operand(o isa.Operand, in *isa.Instr) lanes {
	switch o.Kind {
	case isa.OpReg:
		if len(o.Regs) != 1 {
			return nil
		}
		v := e.reg(o.Regs[0], in)
		if v != nil && o.Neg {
			out := make(lanes, len(v))
			for i, x := range v {
				out[i] = b2i(x == 0)
			}
			return out
		}
		return v
	case isa.OpImm:
		t := strings.TrimSuffix(strings.TrimSuffix(o.Text, "U"), "u")
		if v, err := strconv.ParseInt(t, 0, 64); err == nil {
			return e.uniform(v)
		}
		if v, err := strconv.ParseUint(t, 0, 64); err == nil {
			return e.uniform(int64(v))
		}
		return nil
	case isa.OpSpecial:
		return e.special(o.Text)
	}
	return nil
}

func (e *evaluator) special(name string) lanes {
	neg := strings.HasPrefix(name, "-")
	name = strings.TrimPrefix(name, "-")
	v := e.special1(name)
	if v != nil && neg {
		for i := range v {
			v[i] = -v[i]
		}
	}
	return v
}

func (e *evaluator) special1(name string) lanes {
	base, dim, _ := strings.Cut(name, ".")
	k := map[string]int{"x": 0, "y": 1, "z": 2}
	i, hasDim := k[dim]
	blk := e.launch.Block
	if blk[0] > 0 {
		for j := 1; j < 3; j++ {
			if blk[j] <= 0 {
				blk[j] = 1
			}
		}
	}
	switch base {
	case "WARP_SZ":
		return e.uniform(32)
	case "%tid":
		if !hasDim || e.w.tid == nil {
			return nil
		}
		out := make(lanes, e.n())
		for l, t := range e.w.tid {
			out[l] = t[i]
		}
		return out
	case "%laneid":
		if e.w.tid == nil {
			return nil
		}
		out := make(lanes, e.n())
		for l := range out {
			out[l] = int64(l) // warps start at multiples of 32
		}
		return out
	case "%ntid":
		if hasDim && blk[i] > 0 {
			return e.uniform(int64(blk[i]))
		}
	case "%nctaid":
		if hasDim && e.launch.Grid[i] > 0 {
			return e.uniform(int64(e.launch.Grid[i]))
		}
	}
	return nil
}

// typeOf returns the width and signedness of an instruction's type
// modifier (the last of u8..u64, s8..s64, b8..b64, pred).
func typeOf(in *isa.Instr) (bits int, signed, pred, ok bool) {
	for i := len(in.Mods) - 1; i >= 0; i-- {
		m := in.Mods[i]
		if m == "pred" {
			return 1, false, true, true
		}
		if len(m) >= 2 && (m[0] == 'u' || m[0] == 's' || m[0] == 'b') {
			if n, err := strconv.Atoi(m[1:]); err == nil && (n == 8 || n == 16 || n == 32 || n == 64) {
				return n, m[0] == 's', false, true
			}
		}
	}
	return 0, false, false, false
}

func wrap(v int64, bits int, signed bool) int64 {
	if bits >= 64 {
		return v
	}
	m := int64(1)<<bits - 1
	v &= m
	if signed && v>>(bits-1)&1 == 1 {
		v |= ^m
	}
	return v
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// instr evaluates the value in writes to register r.
func (e *evaluator) instr(in *isa.Instr, r string) lanes {
	op := in.Opcode
	if in.Kind == isa.KindLoad {
		if in.Space == isa.SpaceParam && e.g.Func.Entry && len(in.Srcs) == 1 && in.Srcs[0].Kind == isa.OpMem && len(in.Srcs[0].Regs) == 0 {
			name := strings.Trim(in.Srcs[0].Text, "[] ")
			if v, ok := e.launch.Args[name]; ok {
				if bits, signed, _, ok := typeOf(in); ok {
					v = wrap(v, bits, signed)
				}
				return e.uniform(v)
			}
		}
		return nil
	}
	if in.Kind != isa.KindOther || in.Generic || len(in.Dsts) == 0 {
		return nil
	}
	bits, signed, pred, ok := typeOf(in)
	if !ok {
		return nil
	}
	src := func(i int) lanes {
		if i >= len(in.Srcs) {
			return nil
		}
		return e.operand(in.Srcs[i], in)
	}
	n := e.n()
	out := make(lanes, n)
	bin := func(f func(a, b int64) (int64, bool)) lanes {
		a, b := src(0), src(1)
		if a == nil || b == nil || len(in.Srcs) != 2 {
			return nil
		}
		for l := 0; l < n; l++ {
			v, ok := f(a[l], b[l])
			if !ok {
				return nil
			}
			out[l] = v
		}
		return out
	}
	resBits := bits
	if in.HasMod("wide") {
		resBits = 2 * bits
	}
	fin := func(v lanes) lanes {
		if v == nil {
			return nil
		}
		if pred {
			for l := range v {
				v[l] = b2i(v[l] != 0)
			}
			return v
		}
		for l := range v {
			v[l] = wrap(v[l], resBits, signed)
		}
		return v
	}
	u := func(x int64) uint64 { return uint64(wrap(x, bits, false)) }
	switch op {
	case "mov":
		if len(in.Srcs) != 1 {
			return nil
		}
		return fin(append(lanes(nil), src(0)...))
	case "add":
		return fin(bin(func(a, b int64) (int64, bool) { return a + b, true }))
	case "sub":
		return fin(bin(func(a, b int64) (int64, bool) { return a - b, true }))
	case "mul":
		if in.HasMod("hi") {
			return nil
		}
		return fin(bin(func(a, b int64) (int64, bool) { return a * b, true }))
	case "mad":
		if in.HasMod("hi") || len(in.Srcs) != 3 {
			return nil
		}
		a, b, c := src(0), src(1), src(2)
		if a == nil || b == nil || c == nil {
			return nil
		}
		for l := 0; l < n; l++ {
			out[l] = a[l]*b[l] + c[l]
		}
		return fin(out)
	case "div", "rem":
		return fin(bin(func(a, b int64) (int64, bool) {
			if b == 0 {
				return 0, false
			}
			if !signed {
				if op == "div" {
					return int64(u(a) / u(b)), true
				}
				return int64(u(a) % u(b)), true
			}
			if op == "div" {
				return a / b, true
			}
			return a % b, true
		}))
	case "and":
		return fin(bin(func(a, b int64) (int64, bool) { return a & b, true }))
	case "or":
		return fin(bin(func(a, b int64) (int64, bool) { return a | b, true }))
	case "xor":
		return fin(bin(func(a, b int64) (int64, bool) { return a ^ b, true }))
	case "not":
		a := src(0)
		if a == nil || len(in.Srcs) != 1 {
			return nil
		}
		for l := 0; l < n; l++ {
			if pred {
				out[l] = b2i(a[l] == 0)
			} else {
				out[l] = ^a[l]
			}
		}
		return fin(out)
	case "neg":
		a := src(0)
		if a == nil || len(in.Srcs) != 1 || pred {
			return nil
		}
		for l := 0; l < n; l++ {
			out[l] = -a[l]
		}
		return fin(out)
	case "min", "max":
		return fin(bin(func(a, b int64) (int64, bool) {
			less := a < b
			if !signed {
				less = u(a) < u(b)
			}
			if less == (op == "min") {
				return a, true
			}
			return b, true
		}))
	case "shl", "shr":
		return fin(bin(func(a, b int64) (int64, bool) {
			s := u(b)
			if op == "shl" {
				if s >= uint64(bits) {
					return 0, true
				}
				return a << s, true
			}
			if s >= uint64(bits) {
				s = uint64(bits) - 1
				if !signed {
					return 0, true
				}
			}
			if signed {
				return a >> s, true
			}
			return int64(u(a) >> s), true
		}))
	case "cvt":
		// cvt.dst.src: the value is read with the source type (already
		// extended when computed) and wrapped to the destination type.
		if len(in.Srcs) != 1 || len(in.Mods) < 2 {
			return nil
		}
		var tys []string
		for _, m := range in.Mods {
			if len(m) >= 2 && (m[0] == 'u' || m[0] == 's' || m[0] == 'b') {
				if _, err := strconv.Atoi(m[1:]); err == nil {
					tys = append(tys, m)
				}
			}
		}
		if len(tys) != 2 {
			return nil
		}
		a := src(0)
		if a == nil {
			return nil
		}
		sb, _ := strconv.Atoi(tys[1][1:])
		db, _ := strconv.Atoi(tys[0][1:])
		for l := 0; l < n; l++ {
			out[l] = wrap(wrap(a[l], sb, tys[1][0] == 's'), db, tys[0][0] == 's')
		}
		return out
	case "selp":
		a, b, c := src(0), src(1), src(2)
		if a == nil || b == nil || c == nil || len(in.Srcs) != 3 {
			return nil
		}
		for l := 0; l < n; l++ {
			if c[l] != 0 {
				out[l] = a[l]
			} else {
				out[l] = b[l]
			}
		}
		return fin(out)
	case "setp":
		return e.setp(in, r, bits, signed)
	}
	return nil
}

// setp evaluates setp.CMP[.BOOL].TYPE p[|q], a, b[, c].
func (e *evaluator) setp(in *isa.Instr, r string, bits int, signed bool) lanes {
	if len(in.Mods) == 0 || len(in.Srcs) < 2 || len(in.Srcs) > 3 {
		return nil
	}
	cmp := in.Mods[0]
	boolOp := ""
	if len(in.Srcs) == 3 {
		if len(in.Mods) < 3 {
			return nil
		}
		boolOp = in.Mods[1]
	}
	second := false
	defs := in.Defs()
	switch {
	case len(defs) >= 1 && defs[0] == r:
	case len(defs) == 2 && defs[1] == r:
		second = true
	default:
		return nil
	}
	a, b := e.operand(in.Srcs[0], in), e.operand(in.Srcs[1], in)
	if a == nil || b == nil {
		return nil
	}
	var c lanes
	if boolOp != "" {
		if c = e.operand(in.Srcs[2], in); c == nil {
			return nil
		}
	}
	n := e.n()
	out := make(lanes, n)
	for l := 0; l < n; l++ {
		x, y := a[l], b[l]
		ux, uy := uint64(wrap(x, bits, false)), uint64(wrap(y, bits, false))
		sx, sy := wrap(x, bits, true), wrap(y, bits, true)
		var t bool
		switch cmp {
		case "eq":
			t = ux == uy
		case "ne":
			t = ux != uy
		case "lt":
			t = sx < sy
			if !signed {
				t = ux < uy
			}
		case "le":
			t = sx <= sy
			if !signed {
				t = ux <= uy
			}
		case "gt":
			t = sx > sy
			if !signed {
				t = ux > uy
			}
		case "ge":
			t = sx >= sy
			if !signed {
				t = ux >= uy
			}
		case "lo":
			t = ux < uy
		case "ls":
			t = ux <= uy
		case "hi":
			t = ux > uy
		case "hs":
			t = ux >= uy
		default:
			return nil
		}
		if second {
			t = !t
		}
		if boolOp != "" {
			switch boolOp {
			case "and":
				t = t && c[l] != 0
			case "or":
				t = t || c[l] != 0
			case "xor":
				t = t != (c[l] != 0)
			default:
				return nil
			}
		}
		out[l] = b2i(t)
	}
	return out
}

// outcome resolves br for the warp of e.
func (e *evaluator) outcome(br *Branch) Outcome {
	in := br.Instr
	if in.Kind == isa.KindIndirectBranch || in.Guard.Reg == "" {
		if br.Divergent {
			return Divergent
		}
		return Unknown
	}
	v := e.reg(in.Guard.Reg, in)
	if v == nil {
		if br.Divergent {
			return Divergent
		}
		return Unknown
	}
	taken, not := 0, 0
	for _, x := range v {
		if (x != 0) != in.Guard.Neg {
			taken++
		} else {
			not++
		}
	}
	switch {
	case not == 0:
		return Taken
	case taken == 0:
		return NotTaken
	}
	return Divergent
}
