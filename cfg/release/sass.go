package release

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// OfValues returns the release point of loop l of the value graph vf's
// function, or nil and why it is not one (empty when the loop reads no
// timer). PTX loops are recognised on their instructions (Of); SASS loops
// on the value graph (cfg/values decodes SASS), with the same idiom:
//
//   - the body only reads a timer, computes on registers and branches;
//   - the timer is read as 64 bits (CS2R Rd, SR_GLOBALTIMERLO or
//     SR_CLOCKLO: the whole counter into a register pair, Volta and later;
//     before Volta, a split read in an inner retry loop, SplitReadOf);
//   - every exit is decided by a 64-bit comparison of that value with a
//     loop-invariant one (an ISETP … .EX chain, values.Func.Compare64),
//     and the loop is left when the timer is at or past the trigger.
//
// A comparison of one 32-bit word of the timer (it wraps) is not
// recognised: the loop stays unbounded, which is sound.
func OfValues(vf *values.Func, l *cfg.Loop) (*Point, string) {
	g := vf.Graph
	if values.DialectOf(g.Func) != isa.DialectSASS {
		return Of(g, l)
	}
	if !IsTimerLoop(l) {
		return nil, ""
	}
	return ofSASS(vf, l)
}

// sassSideEffects are SASS opcodes that are not a pure spin: sleeps,
// barriers and fences, traps, performance events.
var sassSideEffects = map[string]bool{
	"NANOSLEEP": true, "MEMBAR": true, "ERRBAR": true, "FENCE": true, "CCTL": true, "CCTLL": true, "CCTLT": true,
	"BPT": true, "PMTRIG": true, "BAR": true, "WARPSYNC": true, "EXIT": true, "KILL": true, "RET": true,
}

// pureSASS returns why the body of l is not a pure spin (an instruction
// other than register computation and branches, a side effect, a guarded
// computation), or "".
func pureSASS(l *cfg.Loop) string {
	for _, b := range l.Blocks {
		for _, in := range b.Instrs {
			if strings.EqualFold(in.Guard.Reg, "PT") && in.Guard.Neg {
				continue // @!PT: never executed (Volta's @!PT SHFL.IDX convergence hint)
			}
			switch in.Kind {
			case isa.KindOther, isa.KindBranch, isa.KindNop:
			default:
				return fmt.Sprintf("its body has a %s instruction (%q): not a pure spin on the timer", in.Kind, in.Text)
			}
			if sassSideEffects[in.Opcode] {
				return fmt.Sprintf("its body has %q", in.Text)
			}
			if in.Guard.Reg != "" && in.Kind != isa.KindBranch {
				return fmt.Sprintf("guarded instruction %q in its body", in.Text)
			}
		}
	}
	return ""
}

func ofSASS(vf *values.Func, l *cfg.Loop) (*Point, string) {
	g := vf.Graph
	if why := pureSASS(l); why != "" {
		return nil, why
	}
	var read *isa.Instr
	for _, b := range l.Blocks {
		for _, in := range b.Instrs {
			if strings.EqualFold(in.Guard.Reg, "PT") && in.Guard.Neg || timerOf(in) == "" {
				continue
			}
			if timer64(vf, in) == "" && splitIn(vf, l, in) == nil {
				if s, _ := SplitReadOf(vf, l); s != nil {
					return nil, "it is the retry loop of a split timer read: " + s.String()
				}
				if b.Loop != l {
					if _, why := SplitReadOf(vf, b.Loop); why != "" {
						return nil, fmt.Sprintf("%q reads a 32-bit word of the timer (it wraps) in an inner loop that is not a split 64-bit read: %s", in.Text, why)
					}
				}
				return nil, fmt.Sprintf("%q reads a 32-bit word of the timer (it wraps): a release point reads the 64-bit counter (CS2R Rd, SR_GLOBALTIMERLO or SR_CLOCKLO; before Volta, high, low, high words with a retry loop)", in.Text)
			}
			if read == nil {
				read = in
			}
		}
	}
	if read == nil {
		return nil, "the timer is not read in the loop"
	}
	return exitsPoint(g, l, read, func(br *isa.Instr, exitWhen bool) (*Point, string) {
		c := vf.Guard(br)
		if c == nil {
			return nil, fmt.Sprintf("its exit at %q is not analysed", br.Text)
		}
		return sassExit(vf, l, c, exitWhen)
	})
}

// timer64 returns the 64-bit timer in reads ("%globaltimer", "%clock64"),
// as the value analysis decodes it, or "".
func timer64(vf *values.Func, in *isa.Instr) string {
	s := vf.Sem(in)
	if s == nil {
		return ""
	}
	for _, x := range s.Ins {
		if x.Kind == values.InSpecial && x.W == 64 && (x.Name == "globaltimer" || x.Name == "clock64") {
			return "%" + x.Name
		}
	}
	return ""
}

// sassExit interprets the predicate c deciding an exit (the loop is left
// when c equals exitWhen) as a release condition.
func sassExit(vf *values.Func, l *cfg.Loop, c *values.Value, exitWhen bool) (*Point, string) {
	neg := false
	if c.Kind == values.VOp && c.Code == values.Not {
		c, neg = c.Args[0], true
	}
	code, x, y, ok := vf.Compare64(c)
	if !ok {
		if c.Kind == values.VOp && c.Code.IsCompare() && (dependsOnTimer(c.Args[0]) || dependsOnTimer(c.Args[1])) {
			return nil, fmt.Sprintf("its exit compares %s with %s at %d bits: a release point compares the 64-bit timer (a 32-bit word wraps)", values.Pretty(c.Args[0]), values.Pretty(c.Args[1]), c.Args[0].W)
		}
		return nil, fmt.Sprintf("its exit is not decided by a 64-bit comparison of the timer (%s)", values.Pretty(c))
	}
	if neg {
		exitWhen = !exitWhen
	}
	if code == values.Eq || code == values.Ne {
		return nil, "its exit tests the timer for equality with a value: the timer can step past it, so the loop may never be left"
	}
	// cond(x, y) holds when the loop is left; put the timer on the left.
	var t, trig *values.Value
	var timerLeft bool
	switch {
	case isTimerValue(vf, l, x) != "" && invariant(vf, l, y):
		t, trig, timerLeft = x, y, true
	case isTimerValue(vf, l, y) != "" && invariant(vf, l, x):
		t, trig = y, x
	default:
		return nil, fmt.Sprintf("its exit compares %s with %s: not the timer with a loop-invariant value", values.Pretty(x), values.Pretty(y))
	}
	// The exit condition as "timer OP trigger".
	var op string
	switch {
	case (code == values.ULt || code == values.SLt) && timerLeft == !exitWhen:
		// left when !(t < X), i.e. t >= X; or when X < t.
		op = map[bool]string{true: "timer >= trigger", false: "timer > trigger"}[timerLeft]
	case (code == values.ULe || code == values.SLe) && timerLeft == !exitWhen:
		// left when !(t <= X), i.e. t > X; or when X <= t.
		op = map[bool]string{true: "timer > trigger", false: "timer >= trigger"}[timerLeft]
	default:
		return nil, fmt.Sprintf("the loop is left when %s %s %s is %v: not when the timer reaches the trigger", values.Pretty(x), code, values.Pretty(y), exitWhen)
	}
	return &Point{Timer: isTimerValue(vf, l, t), Exit: exitInstr(c), ExitOp: op, Trigger: describe(trig)}, ""
}

// isTimerValue returns the timer when v is the 64-bit timer read in the
// loop, or "".
func isTimerValue(vf *values.Func, l *cfg.Loop, v *values.Value) string {
	if t := isSplitValue(vf, l, v); t != "" {
		return t
	}
	if v.Kind != values.VOpaque || v.W != 64 || v.Instr == nil {
		return ""
	}
	if b := vf.Block(v.Instr); b == nil || !l.Contains(b) {
		return ""
	}
	return timer64(vf, v.Instr)
}

// invariant reports whether v is the same at every iteration of l: it
// depends on no phi of the loop and no value an instruction of the loop
// computes without following (an opaque value of the loop; an opaque
// constant-bank word is fixed during the launch, wherever it is read).
func invariant(vf *values.Func, l *cfg.Loop, v *values.Value) bool {
	return !reaches(v, func(v *values.Value) (bool, bool) {
		switch v.Kind {
		case values.VPhi:
			return v.Block != nil && l.Contains(v.Block), false
		case values.VOpaque:
			if v.ConstantBank() || v.Instr == nil {
				return false, true
			}
			b := vf.Block(v.Instr)
			return b != nil && l.Contains(b), true // computed outside the loop: fixed during it
		}
		return false, false
	})
}

// dependsOnTimer reports whether v depends on a timer read.
func dependsOnTimer(v *values.Value) bool {
	return reaches(v, func(v *values.Value) (bool, bool) {
		return v.Kind == values.VOpaque && v.Instr != nil && timerOf(v.Instr) != "", false
	})
}

// reaches reports whether hit holds for v or a value v depends on (its
// Args, transitively); hit's second result stops the search below a value.
func reaches(v *values.Value, hit func(*values.Value) (found, stop bool)) bool {
	seen := map[*values.Value]bool{}
	var walk func(v *values.Value) bool
	walk = func(v *values.Value) bool {
		if seen[v] {
			return false
		}
		seen[v] = true
		found, stop := hit(v)
		if found {
			return true
		}
		if stop {
			return false
		}
		for _, a := range v.Args {
			if walk(a) {
				return true
			}
		}
		return false
	}
	return walk(v)
}

var bankWord = regexp.MustCompile(`c\[0x[0-9a-fA-F]+\]\[0x[0-9a-fA-F]+\]`)

// describe writes a trigger value: a constant-bank word (or a pair of
// them, a 64-bit kernel argument) as c[bank][offset], else as
// values.Pretty does.
func describe(v *values.Value) string {
	word := func(x *values.Value) string {
		if x.ConstantBank() {
			return bankWord.FindString(x.Why)
		}
		return ""
	}
	if w := word(v); w != "" {
		return w
	}
	// ZExt64(lo) | ZExt64(hi) << 32
	if v.Kind == values.VOp && v.Code == values.Or && v.W == 64 {
		for i := 0; i < 2; i++ {
			l, h := v.Args[i], v.Args[1-i]
			if l.Kind == values.VOp && l.Code == values.ZExt && h.Kind == values.VOp && h.Code == values.Shl && h.Args[0].Kind == values.VOp && h.Args[0].Code == values.ZExt {
				if lo, hi := word(l.Args[0]), word(h.Args[0].Args[0]); lo != "" && hi != "" {
					return fmt.Sprintf("%s:%s (64 bits)", lo, hi)
				}
			}
		}
	}
	p := values.Pretty(v)
	if r := []rune(p); len(r) > 160 {
		p = string(r[:160]) + "…"
	}
	return p
}

// exitInstr is the instruction that computes the exit predicate.
func exitInstr(c *values.Value) *isa.Instr {
	return c.Instr
}
