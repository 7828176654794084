package release

import (
	"fmt"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// RetryBound is the bound of a split read's retry loop (SplitRead):
// executions of its header per entry, under the assumption
// assume.TimerSplitRead.
const RetryBound = 2

// SplitRead is a 64-bit timer read split into its 32-bit words, as the
// code for architectures before Volta (sm_5x, sm_6x) reads %globaltimer
// and %clock64: the high word, the low word, the high word again, in a
// retry loop left when the two high words agree (then high:low is the
// counter at the low word's read; nvcc also leaves the loop after a retry
// count the driver sets, c[0x0][0x10c] on sm_62):
//
//	CS2R R0, SR_GLOBALTIMERHI
//	CS2R R5, SR_GLOBALTIMERLO
//	CS2R R3, SR_GLOBALTIMERHI
//	ISETP.NE.U32.AND P0, PT, R0, R3, PT
//	@!P0 BRA done
//	… retry count, back edge
//
// Every try that goes around the loop saw the high word change between
// its two reads. The high word changes once per 2^32 ticks of the counter
// (4.29 s of %globaltimer), so two consecutive tries, which take far less,
// cannot both see it change: the header runs at most RetryBound times
// per entry. That rests on assume.TimerSplitRead (the counter does not
// jump by 2^32 ticks within two tries), which the reports list.
type SplitRead struct {
	Loop  *cfg.Loop
	Timer string // "%globaltimer" or "%clock64"
	// HiA, Lo and HiB are the three reads, in program order; Check is the
	// branch that leaves the loop when HiA and HiB read the same word.
	HiA, Lo, HiB *isa.Instr
	Check        *isa.Instr
}

// String describes the split read for messages.
func (s *SplitRead) String() string {
	return fmt.Sprintf("reads %s as high, low, high words (%q, %q, %q) and retries while the high words differ: at most %d tries, assuming the high word does not change twice within two tries", s.Timer, s.HiA.Text, s.Lo.Text, s.HiB.Text, RetryBound)
}

// timerWord returns the 32-bit timer word in reads as the value analysis
// decodes it ("globaltimer_lo", "globaltimer_hi", "clock", "clock_hi"),
// or "".
func timerWord(vf *values.Func, in *isa.Instr) string {
	s := vf.Sem(in)
	if s == nil {
		return ""
	}
	for _, x := range s.Ins {
		if x.Kind != values.InSpecial || x.W != 32 {
			continue
		}
		switch x.Name {
		case "globaltimer_lo", "globaltimer_hi", "clock", "clock_hi":
			return x.Name
		}
	}
	return ""
}

// splitWords gives, for each 64-bit timer, its low and high word names.
var splitWords = map[string][2]string{
	"%globaltimer": {"globaltimer_lo", "globaltimer_hi"},
	"%clock64":     {"clock", "clock_hi"},
}

// SplitReadOf returns the split timer read whose retry loop is l, or nil
// and why l is not one (empty when l reads no 32-bit timer word). The
// loop must be innermost, only compute on registers and branch, read
// exactly three timer words, high, low, high of one counter, in one block
// that ends with the branch leaving the loop when the high words are
// equal, and every path from the header to a back edge must pass that
// branch (so that every retry saw the high word change).
func SplitReadOf(vf *values.Func, l *cfg.Loop) (*SplitRead, string) {
	if values.DialectOf(vf.Graph.Func) != isa.DialectSASS || !IsTimerLoop(l) {
		return nil, ""
	}
	var reads []*isa.Instr
	var words []string
	for _, b := range l.Blocks {
		for _, in := range b.Instrs {
			if timerOf(in) == "" {
				continue
			}
			w := timerWord(vf, in)
			if w == "" {
				return nil, ""
			}
			reads, words = append(reads, in), append(words, w)
		}
	}
	if len(reads) == 0 {
		return nil, ""
	}
	if len(l.Children) > 0 {
		return nil, "a split timer read's retry loop has no inner loop"
	}
	if why := pureSASS(l); why != "" {
		return nil, why
	}
	timer := ""
	for t, w := range splitWords {
		if len(words) == 3 && words[0] == w[1] && words[1] == w[0] && words[2] == w[1] {
			timer = t
		}
	}
	if timer == "" {
		return nil, fmt.Sprintf("it reads the timer words %s: a split 64-bit read is high, low, high of one counter", strings.Join(words, ", "))
	}
	b := vf.Block(reads[0])
	if b == nil || vf.Block(reads[2]) != b {
		return nil, "the words of its split timer read are not read in one block"
	}
	br := b.Last()
	if br == nil || br.Kind != isa.KindBranch || br.Guard.Reg == "" || b.Kind != cfg.BlockIf {
		return nil, "the block reading the timer words does not end with a conditional branch"
	}
	// The branch's taken or fall-through edge must leave the loop, when
	// the high words agree.
	c := vf.Guard(br)
	if c == nil {
		return nil, fmt.Sprintf("its branch %q is not analysed", br.Text)
	}
	neg := false
	if c.Kind == values.VOp && c.Code == values.Not {
		c, neg = c.Args[0], true
	}
	if c.Kind != values.VOp || c.Code != values.Eq && c.Code != values.Ne || !readPair(c.Args[0], c.Args[1], reads[0], reads[2]) {
		return nil, fmt.Sprintf("its branch %q does not compare the two high words", br.Text)
	}
	// The guard register's value (guard c, negated by neg) that means "the
	// high words agree".
	agree := (c.Code == values.Eq) != neg
	var leave, stay *cfg.Block
	for _, e := range b.Succs {
		var taken bool
		switch e.Kind {
		case cfg.EdgeTaken:
			taken = true
		case cfg.EdgeFallThrough:
		default:
			return nil, fmt.Sprintf("its branch %q has a %s edge", br.Text, e.Kind)
		}
		onAgree := taken != br.Guard.Neg == agree
		if onAgree {
			leave = e.To
		} else {
			stay = e.To
		}
	}
	if leave == nil || stay == nil || l.Contains(leave) {
		return nil, fmt.Sprintf("its branch %q does not leave the loop when the high words agree", br.Text)
	}
	// Every path from the header to a latch passes b: remove b and look
	// for a latch reachable from the header (b is the header: none is).
	if b != l.Header {
		seen := map[*cfg.Block]bool{b: true}
		stack := []*cfg.Block{l.Header}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[x] {
				continue
			}
			seen[x] = true
			for _, la := range l.Latches {
				if la == x {
					return nil, fmt.Sprintf("a retry can skip the comparison of the high words at %q", br.Text)
				}
			}
			for _, e := range x.Succs {
				if e.To != l.Header && l.Contains(e.To) {
					stack = append(stack, e.To)
				}
			}
		}
	}
	return &SplitRead{Loop: l, Timer: timer, HiA: reads[0], Lo: reads[1], HiB: reads[2], Check: br}, ""
}

// readPair reports whether x and y are the values read by a and b, in
// either order.
func readPair(x, y *values.Value, a, b *isa.Instr) bool {
	r := func(v *values.Value) *isa.Instr {
		if v.Kind == values.VOpaque {
			return v.Instr
		}
		return nil
	}
	return r(x) == a && r(y) == b || r(x) == b && r(y) == a
}

// splitIn returns the split read in l (a retry loop nested in l) that
// reads in, or nil.
func splitIn(vf *values.Func, l *cfg.Loop, in *isa.Instr) *SplitRead {
	b := vf.Block(in)
	if b == nil || b.Loop == nil || b.Loop == l || !l.Contains(b) {
		return nil
	}
	s, _ := SplitReadOf(vf, b.Loop)
	if s == nil || s.HiA != in && s.Lo != in && s.HiB != in {
		return nil
	}
	return s
}

// isSplitValue returns the timer when v is the 64-bit value high:low of a
// split read nested in l (the high word of its second read), or "".
func isSplitValue(vf *values.Func, l *cfg.Loop, v *values.Value) string {
	// Pair(lo, hi) = ZExt64(lo) | ZExt64(hi) << 32
	if v.Kind != values.VOp || v.Code != values.Or || v.W != 64 {
		return ""
	}
	for i := 0; i < 2; i++ {
		lo, h := v.Args[i], v.Args[1-i]
		if lo.Kind != values.VOp || lo.Code != values.ZExt || h.Kind != values.VOp || h.Code != values.Shl {
			continue
		}
		if k, ok := h.Args[1].IsConst(); !ok || k != 32 || h.Args[0].Kind != values.VOp || h.Args[0].Code != values.ZExt {
			continue
		}
		lw, hw := lo.Args[0], h.Args[0].Args[0]
		if lw.Kind != values.VOpaque || hw.Kind != values.VOpaque || lw.Instr == nil {
			continue
		}
		if s := splitIn(vf, l, lw.Instr); s != nil && s.Lo == lw.Instr && s.HiB == hw.Instr {
			return s.Timer
		}
	}
	return ""
}
