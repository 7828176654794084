package sass

import (
	"go/token"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// alloc holds the parser's slabs and scratch buffers. Instructions,
// operands, register and modifier lists and control fields are carved out
// of slabs instead of being allocated one by one; every slice handed out
// has its capacity cut to its length, so an append by a later user copies
// instead of overwriting the next instruction's data. Slabs start small
// (short listings, fuzzing) and double up to slabMax elements.
type alloc struct {
	instrs []isa.Instr
	opnds  []isa.Operand
	strs   []string
	ctrls  []isa.Ctrl
	arena  strings.Builder // instruction texts; see keep

	// Scratch buffers, reused from line to line.
	ops     []string
	poss    []token.Pos
	regs    []string
	textBuf []byte
	offBuf  []offIndex
}

const (
	slabMin = 32
	slabMax = 4096
)

// slabSize is the size of the slab after one of size n, for a request of
// want elements.
func slabSize(n, want int) int {
	n *= 2
	if n < slabMin {
		n = slabMin
	}
	if n > slabMax {
		n = slabMax
	}
	if n < want {
		n = want
	}
	return n
}

func (a *alloc) newInstr() *isa.Instr {
	if len(a.instrs) == 0 {
		a.instrs = make([]isa.Instr, slabSize(cap(a.instrs), 1))
	}
	in := &a.instrs[0]
	a.instrs = a.instrs[1:]
	return in
}

func (a *alloc) newCtrl(c isa.Ctrl) *isa.Ctrl {
	if len(a.ctrls) == 0 {
		a.ctrls = make([]isa.Ctrl, slabSize(cap(a.ctrls), 1))
	}
	p := &a.ctrls[0]
	*p = c
	a.ctrls = a.ctrls[1:]
	return p
}

// operands returns n zeroed operands (non-nil, like make, also for n = 0).
func (a *alloc) operands(n int) []isa.Operand {
	if len(a.opnds) < n || a.opnds == nil {
		a.opnds = make([]isa.Operand, slabSize(cap(a.opnds), n))
	}
	s := a.opnds[:n:n]
	a.opnds = a.opnds[n:]
	return s
}

// strSlice returns a string slice of length n.
func (a *alloc) strSlice(n int) []string {
	if len(a.strs) < n || a.strs == nil {
		a.strs = make([]string, slabSize(cap(a.strs), n))
	}
	s := a.strs[:n:n]
	a.strs = a.strs[n:]
	return s
}

// regs1 returns []string{r}.
func (a *alloc) regs1(r string) []string {
	s := a.strSlice(1)
	s[0] = r
	return s
}

// copyStrings returns a slab copy of s, nil when s is empty.
func (a *alloc) copyStrings(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	c := a.strSlice(len(s))
	copy(c, s)
	return c
}

// keep returns a copy of t, the text of an instruction from its guard to
// its last operand, in the text arena: a strings.Builder that is never
// grown past its capacity (a full one is replaced), so the strings it
// returned stay valid. Every string of an instruction (opcode, modifiers,
// operands, registers, Text) is a substring of its copy, and the listing
// itself (encoding words, addresses, blanks) is not kept alive by the
// result.
func (a *alloc) keep(t string) string {
	if a.arena.Cap()-a.arena.Len() < len(t) {
		n := slabSize(a.arena.Cap()/64, 0) * 64 // 2 KiB doubling to 256 KiB
		if n < len(t) {
			n = len(t)
		}
		a.arena = strings.Builder{}
		a.arena.Grow(n)
	}
	n := a.arena.Len()
	a.arena.WriteString(t)
	return a.arena.String()[n:]
}

// Register names R0…R259 and UR0…UR66, so that the pairs and quads of
// widened operands need no allocation.
var rNames, urNames = regNames("R", 260), regNames("UR", 67)

func regNames(prefix string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = prefix + strconv.Itoa(i)
	}
	return s
}
