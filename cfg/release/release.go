// Package release recognises time-triggered release points: loops that
// spin on a hardware timer until it reaches a trigger computed before the
// loop (../shared/notes/prem-schedules.md §8). tt-gpu's PREM tiles start
// this way: thread 0 spins on %globaltimer, then a block barrier releases
// the block.
//
// Such a loop has no iteration bound: how long it waits is decided by the
// schedule, not by the code. What the code does decide is how long the loop
// runs once the timer has reached the trigger: the iteration in progress,
// then one iteration that reads a value past the trigger and leaves. A
// recognised release point is therefore bounded by HeaderBound executions
// of its header, counted from the trigger; the wait before the trigger is
// the schedule's (docs/prem.md, "Release points").
//
// The idiom, checked on the loop's instructions:
//
//   - the body only reads a timer, computes on registers and branches: no
//     memory access, barrier, call, sleep or other side effect;
//   - every exit is decided by a comparison of a value derived from a
//     64-bit timer read in the loop (%globaltimer, %clock64, or
//     %globaltimer_lo and %globaltimer_hi combined) with loop-invariant
//     operands, and the loop is left when the timer is at or past the
//     trigger (the timer only grows, so the exit comes);
//   - the timer value may be offset by loop-invariant operands (add, sub).
//
// A lone 32-bit timer word (%globaltimer_lo, %clock) wraps, so a loop
// comparing it may never leave: it is not a release point. A timer loop
// that does not match keeps the loop pass's "not bounded" diagnostic, with
// the reason it is not a release point (Of).
//
// SASS timer loops (CS2R of SR_GLOBALTIMERLO or SR_CLOCKLO, 64-bit
// comparisons as ISETP .EX chains) are recognised on the value graph of
// cfg/values, which decodes SASS (OfValues, sass.go).
package release

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// HeaderBound is the bound of a release point's loop: executions of its
// header from the instant the timer reaches the trigger (the iteration in
// progress and the one that leaves).
const HeaderBound = 2

// Point is a recognised release point.
type Point struct {
	Loop   *cfg.Loop
	Pos    token.Position // the loop header's first instruction
	Timer  string         // the timer read, as written: "%globaltimer", "%clock64", "%globaltimer_lo+%globaltimer_hi"
	Read   *isa.Instr     // the (first) timer read in the loop
	Exit   *isa.Instr     // the comparison deciding the exit
	ExitOp string         // the exit condition: "timer >= trigger" or "timer > trigger"
	// Trigger is the loop-invariant operand the timer is compared with,
	// as written (a register or an immediate), and TriggerDef the
	// instruction outside the loop defining it when there is exactly one
	// (nil for a parameter, an immediate, or several definitions).
	Trigger    string
	TriggerDef *isa.Instr
	// Offset lists loop-invariant operands subtracted from (or added to)
	// the timer before the comparison, as "- %rd3" or "+ %rd3".
	Offset []string
	// Barrier is the block-wide barrier that every path from the loop's
	// exits meets first (nil when paths meet different barriers or the
	// end first): the barrier that releases the block.
	Barrier *isa.Instr
}

// String describes the release point for messages.
func (p *Point) String() string {
	s := fmt.Sprintf("spins until %s %s %s", p.timerExpr(), strings.TrimPrefix(strings.TrimSuffix(p.ExitOp, " trigger"), "timer "), p.Trigger)
	if p.TriggerDef != nil {
		s += fmt.Sprintf(" (%s = %q)", p.Trigger, p.TriggerDef.Text)
	}
	return s
}

func (p *Point) timerExpr() string {
	if len(p.Offset) == 0 {
		return p.Timer
	}
	return "(" + p.Timer + " " + strings.Join(p.Offset, " ") + ")"
}

// Find returns the release points of g, in loop order.
func Find(g *cfg.Graph) []*Point {
	var ps []*Point
	for _, l := range g.Loops {
		if p, _ := Of(g, l); p != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// IsTimerLoop reports whether a loop reads a timer (a special register
// %globaltimer*, %clock*, or the SASS SR_GLOBALTIMER*/SR_CLOCK*).
func IsTimerLoop(l *cfg.Loop) bool {
	for _, b := range l.Blocks {
		for _, in := range b.Instrs {
			if timerOf(in) != "" {
				return true
			}
		}
	}
	return false
}

// timerOf returns the timer special register an instruction reads, or "".
func timerOf(in *isa.Instr) string {
	for _, o := range in.Srcs {
		if o.Kind != isa.OpSpecial {
			continue
		}
		t := strings.ToLower(o.Text)
		if strings.HasPrefix(t, "%globaltimer") || strings.HasPrefix(t, "%clock") ||
			strings.HasPrefix(t, "sr_globaltimer") || strings.HasPrefix(t, "sr_clock") {
			return o.Text
		}
	}
	return ""
}

// value is what the loop knows of a register defined in it.
type value struct {
	timer  bool   // derived from a timer read
	full   bool   // from a 64-bit timer (or both words of %globaltimer)
	words  string // "lo", "hi": a single word of %globaltimer
	name   string // the timer, as written
	read   *isa.Instr
	offset []string // invariant operands added/subtracted
}

// Of returns the release point of loop l, or nil and why it is not one
// (empty when the loop reads no timer).
func Of(g *cfg.Graph, l *cfg.Loop) (*Point, string) {
	if !IsTimerLoop(l) {
		return nil, ""
	}
	if g.Func != nil && len(g.Func.Instrs) > 0 && g.Func.Instrs[0].Offset >= 0 {
		return nil, "a SASS timer loop is recognised on the value graph (OfValues)"
	}
	defined := map[string]bool{}
	for _, b := range l.Blocks {
		for _, in := range b.Instrs {
			for _, r := range in.Defs() {
				defined[r] = true
			}
		}
	}
	invariant := func(o isa.Operand) bool {
		switch o.Kind {
		case isa.OpImm, isa.OpSym:
			return true
		case isa.OpReg:
			return !defined[o.Text]
		}
		return false
	}
	vals := map[string]*value{}
	var read *isa.Instr
	// Blocks in index order; a value flowing around the back edge into a
	// timer computation is refused below (its definition is not seen
	// before its use in the same iteration unless defined earlier).
	for _, b := range l.Blocks {
		for _, in := range b.Instrs {
			switch in.Kind {
			case isa.KindOther, isa.KindBranch, isa.KindNop:
			default:
				return nil, fmt.Sprintf("its body has a %s instruction (%q): not a pure spin on the timer", in.Kind, in.Text)
			}
			if in.Guard.Reg != "" && in.Kind != isa.KindBranch {
				return nil, fmt.Sprintf("guarded instruction %q in its body", in.Text)
			}
			op := in.Opcode
			if op == "nanosleep" || op == "trap" || op == "brkpt" || op == "pmevent" || op == "membar" || op == "fence" {
				return nil, fmt.Sprintf("its body has %q", in.Text)
			}
			if in.Kind == isa.KindBranch {
				continue
			}
			if t := timerOf(in); t != "" {
				if op != "mov" || len(in.Dsts) != 1 || len(in.Srcs) != 1 {
					return nil, fmt.Sprintf("the timer is read by %q, not by a plain mov", in.Text)
				}
				v := &value{timer: true, name: t, read: in}
				switch strings.ToLower(t) {
				case "%globaltimer", "%clock64":
					v.full = true
				case "%globaltimer_lo":
					v.words = "lo"
				case "%globaltimer_hi":
					v.words = "hi"
				default: // %clock, %clock_hi: 32-bit words of the SM clock
					v.words = "clock"
				}
				if read == nil {
					read = in
				}
				vals[in.Dsts[0].Text] = v
				continue
			}
			// Other instructions: propagate timer-derived values.
			var tv []*value
			for _, o := range in.Srcs {
				for _, r := range o.Regs {
					if v := vals[r]; v != nil && v.timer {
						tv = append(tv, v)
					}
				}
			}
			if op == "setp" {
				continue // decided below, per exit
			}
			if len(tv) == 0 {
				for _, r := range in.Defs() {
					vals[r] = &value{}
				}
				continue
			}
			nv, why := combine(in, tv, vals, invariant)
			if nv == nil {
				return nil, why
			}
			for _, r := range in.Defs() {
				vals[r] = nv
			}
		}
	}
	if read == nil {
		return nil, "the timer read is not a register move"
	}
	// Every exit must be decided by a timer comparison.
	pt, why := exitsPoint(g, l, read, func(br *isa.Instr, exitWhen bool) (*Point, string) {
		cmp := defIn(l, br.Guard.Reg, br)
		if cmp == nil || cmp.Opcode != "setp" || len(cmp.Srcs) != 2 || len(cmp.Dsts) != 1 {
			return nil, fmt.Sprintf("its exit at %q is not decided by a comparison in the loop", br.Text)
		}
		return exitPoint(cmp, exitWhen, vals, invariant)
	})
	if pt == nil {
		return nil, why
	}
	if pt.Trigger != "" && strings.HasPrefix(pt.Trigger, "%") {
		pt.TriggerDef = uniqueDefOutside(g, l, pt.Trigger)
	}
	return pt, ""
}

// exitsPoint checks that every exit of l is decided by the same release
// condition (exit interprets the branch of one exit, whose guard register
// leaves the loop when it equals exitWhen) and completes the point.
func exitsPoint(g *cfg.Graph, l *cfg.Loop, read *isa.Instr, exit func(br *isa.Instr, exitWhen bool) (*Point, string)) (*Point, string) {
	var pt *Point
	for _, e := range l.Exits {
		br, exitWhen, why := exitBranch(e)
		if br == nil {
			return nil, why
		}
		p, why := exit(br, exitWhen)
		if p == nil {
			return nil, why
		}
		if pt != nil && (pt.Exit != p.Exit || pt.ExitOp != p.ExitOp) {
			return nil, "its exits are decided by different comparisons"
		}
		pt = p
	}
	if pt == nil {
		return nil, "it has no exit"
	}
	pt.Loop = l
	if g.Fset != nil {
		pt.Pos = g.Fset.Position(l.Header.Pos())
	}
	pt.Read = read
	pt.Barrier = nextBarrier(g, l)
	return pt, ""
}

// exitBranch returns the conditional branch of exit edge e and the value
// of its guard register that leaves the loop, or nil and why the exit is
// not decided by a branch.
func exitBranch(e cfg.Edge) (br *isa.Instr, exitWhen bool, why string) {
	br = e.From.Last()
	if br == nil || br.Kind != isa.KindBranch || br.Guard.Reg == "" {
		return nil, false, fmt.Sprintf("it is left by an edge from %s that no timer comparison decides", e.From)
	}
	// A taken edge leaves when the guard holds (a negated guard: when its
	// register is false); a fall-through edge when it does not.
	var taken bool
	switch {
	case e.Kind == cfg.EdgeTaken && e.From.Kind == cfg.BlockIf:
		taken = true
	case e.Kind == cfg.EdgeFallThrough && e.From.Kind == cfg.BlockIf:
		taken = false
	default:
		return nil, false, fmt.Sprintf("it is left by a %s edge at %q, not by a conditional branch", e.Kind, br.Text)
	}
	return br, taken != br.Guard.Neg, ""
}

func containsStr(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// combine returns the value of an instruction with timer-derived sources
// tv, or nil and why the timer computation is not understood.
func combine(in *isa.Instr, tv []*value, vals map[string]*value, invariant func(isa.Operand) bool) (*value, string) {
	op := in.Opcode
	switch op {
	case "mov":
		if len(in.Srcs) == 1 && in.Srcs[0].Kind == isa.OpVec {
			// mov.b64 %rd, {%lo, %hi}: both words of %globaltimer.
			regs := in.Srcs[0].Regs
			if len(regs) == 2 && len(tv) == 2 && vals[regs[0]] != nil && vals[regs[0]].words == "lo" && vals[regs[1]] != nil && vals[regs[1]].words == "hi" {
				return &value{timer: true, full: true, name: "%globaltimer_lo+%globaltimer_hi", read: tv[0].read}, ""
			}
			return nil, fmt.Sprintf("the timer words are combined by %q in an unknown way", in.Text)
		}
		if len(tv) == 1 && len(in.Srcs) == 1 {
			return tv[0], ""
		}
	case "cvt":
		if len(tv) == 1 && len(in.Srcs) == 1 {
			v := *tv[0]
			if v.full && (len(in.Mods) == 0 || !strings.HasSuffix(typeMod(in), "64")) {
				return nil, fmt.Sprintf("%q narrows the 64-bit timer", in.Text)
			}
			return &v, ""
		}
	case "add", "sub":
		if len(tv) == 1 && len(in.Srcs) == 2 {
			t := tv[0]
			ti := 0
			if regValue(in.Srcs[0], vals) != t {
				ti = 1
			}
			other := in.Srcs[1-ti]
			if !invariant(other) {
				return nil, fmt.Sprintf("%q adds a value that changes in the loop to the timer", in.Text)
			}
			if op == "sub" && ti == 1 {
				return nil, fmt.Sprintf("%q subtracts the timer (the result decreases)", in.Text)
			}
			v := *t
			sign := "+"
			if op == "sub" {
				sign = "-"
			}
			v.offset = append(append([]string(nil), t.offset...), sign+" "+other.Text)
			return &v, ""
		}
	}
	return nil, fmt.Sprintf("the timer value goes through %q, which is not a move, a widening or an invariant offset", in.Text)
}

// typeMod returns the first type modifier of an instruction (the
// destination type of cvt), or "".
func typeMod(in *isa.Instr) string {
	for _, m := range in.Mods {
		if len(m) >= 2 && strings.ContainsRune("usbf", rune(m[0])) && m[1] >= '0' && m[1] <= '9' {
			return m
		}
	}
	return ""
}

// exitPoint interprets the comparison deciding an exit: the loop is left
// when the comparison's result equals exitWhen.
func exitPoint(cmp *isa.Instr, exitWhen bool, vals map[string]*value, invariant func(isa.Operand) bool) (*Point, string) {
	if len(cmp.Mods) == 0 {
		return nil, fmt.Sprintf("comparison %q has no condition", cmp.Text)
	}
	cond := cmp.Mods[0]
	a, b := cmp.Srcs[0], cmp.Srcs[1]
	va, vb := regValue(a, vals), regValue(b, vals)
	var t *value
	var trig isa.Operand
	switch {
	case va != nil && va.timer && invariant(b):
		t, trig = va, b
	case vb != nil && vb.timer && invariant(a):
		t, trig = vb, a
		cond = swap(cond)
	default:
		return nil, fmt.Sprintf("comparison %q does not compare a timer value with a loop-invariant value", cmp.Text)
	}
	if !t.full {
		return nil, fmt.Sprintf("comparison %q uses a 32-bit timer word (%s), which wraps: the loop may never be left", cmp.Text, t.name)
	}
	if !exitWhen {
		cond = negate(cond)
	}
	// cond now holds when the loop is left: timer cond trigger.
	var op string
	switch cond {
	case "ge", "hs":
		op = "timer >= trigger"
	case "gt", "hi":
		op = "timer > trigger"
	default:
		return nil, fmt.Sprintf("the loop is left when the timer %s the trigger (%q): not when it reaches it", condWord(cond), cmp.Text)
	}
	return &Point{Timer: t.name, Exit: cmp, ExitOp: op, Trigger: trig.Text, Offset: t.offset}, ""
}

func regValue(o isa.Operand, vals map[string]*value) *value {
	if o.Kind != isa.OpReg {
		return nil
	}
	return vals[o.Text]
}

// swap exchanges the operands of a comparison: a cond b == b swap(cond) a.
func swap(c string) string {
	switch c {
	case "lt":
		return "gt"
	case "gt":
		return "lt"
	case "le":
		return "ge"
	case "ge":
		return "le"
	case "lo":
		return "hi"
	case "hi":
		return "lo"
	case "ls":
		return "hs"
	case "hs":
		return "ls"
	}
	return c
}

// negate returns the condition that holds when c does not (integers).
func negate(c string) string {
	switch c {
	case "lt":
		return "ge"
	case "ge":
		return "lt"
	case "le":
		return "gt"
	case "gt":
		return "le"
	case "lo":
		return "hs"
	case "hs":
		return "lo"
	case "ls":
		return "hi"
	case "hi":
		return "ls"
	case "eq":
		return "ne"
	case "ne":
		return "eq"
	}
	return "?" + c
}

func condWord(c string) string {
	switch c {
	case "lt", "lo":
		return "is below"
	case "le", "ls":
		return "is at most"
	case "eq":
		return "equals"
	case "ne":
		return "differs from"
	}
	return "compares (" + c + ") with"
}

// defIn returns the last definition of reg in the loop before instruction
// at (in its block), or elsewhere in the loop, or nil.
func defIn(l *cfg.Loop, reg string, at *isa.Instr) *isa.Instr {
	var found *isa.Instr
	for _, b := range l.Blocks {
		for _, in := range b.Instrs {
			if in == at {
				if found != nil {
					return found
				}
				continue
			}
			for _, r := range in.Defs() {
				if r == reg {
					found = in
				}
			}
		}
	}
	return found
}

// uniqueDefOutside returns the only instruction of the function outside l
// that defines reg, or nil.
func uniqueDefOutside(g *cfg.Graph, l *cfg.Loop, reg string) *isa.Instr {
	var def *isa.Instr
	for _, b := range g.Blocks {
		if l.Contains(b) {
			continue
		}
		for _, in := range b.Instrs {
			for _, r := range in.Defs() {
				if r == reg {
					if def != nil {
						return nil
					}
					def = in
				}
			}
		}
	}
	return def
}

// nextBarrier returns the block-wide barrier every path from the exits of
// l meets first, or nil.
func nextBarrier(g *cfg.Graph, l *cfg.Loop) *isa.Instr {
	var found *isa.Instr
	seen := map[*cfg.Block]bool{}
	var visit func(b *cfg.Block) bool
	visit = func(b *cfg.Block) bool {
		if b.Kind == cfg.BlockVirtualExit {
			return false
		}
		if seen[b] {
			return true
		}
		seen[b] = true
		for _, in := range b.Instrs {
			if in.Kind == isa.KindBarrier && in.Barrier.WaitsForBlock() {
				if found != nil && found != in {
					return false
				}
				found = in
				return true
			}
		}
		for _, e := range b.Succs {
			if l.Contains(e.To) || !visit(e.To) {
				return false // back into the spin, or another barrier or the end first
			}
		}
		return len(b.Succs) > 0
	}
	for _, e := range l.Exits {
		if !visit(e.To) {
			return nil
		}
	}
	return found
}
