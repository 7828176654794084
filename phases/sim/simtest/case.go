// Package simtest generates random thread blocks for the simulator's
// soundness property tests, shrinks failing ones, and reads and writes them
// in a small text format (a txtar archive) so that a counterexample can be
// kept as a regression test.
//
// Format: the archive's comment is free text; the section "hw" lists one
// functional unit per line, "NAME INIT LAT [GROUP]" (units of one group
// share one initiation FIFO), and optionally a line "pipeline KEY=VALUE..."
// with keys overhead, branch_wait (none, taken, all), ret_issues and
// barrier_issues (true/false); each section "warp N" (or "warps N-M" for
// identical paths) lists one instruction per line:
//
//	[@[!]PRED] OP [DST{,DST}] [= SRC{,SRC}]
//
// where OP is a unit name (the instruction runs on that unit), "bar.sync",
// "ret", "exit", "bra" (a branch that falls through, on the first unit) or
// "bra.taken" (a branch to the next instruction of the path through a
// label: a taken edge). Registers are names without '%'. Sections
// "want..." are ignored by Parse (they hold expected outputs).
package simtest

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Case is a thread block on a hardware description.
type Case struct {
	Comment string
	HW      *hwdesc.Desc
	Warps   [][]*isa.Instr // identical paths share the slice
}

// NewHW returns a description with the given units (names u0, u1, ... when
// names is nil); each unit's name routes the opcode of the same name to it,
// bar.sync goes to the first unit.
func NewHW(names []string, init, lat []hwdesc.Cycles) *hwdesc.Desc {
	d := &hwdesc.Desc{Name: "simtest", ClockMHz: 1000}
	for i := range init {
		n := "u" + strconv.Itoa(i)
		if names != nil {
			n = names[i]
		}
		d.Units = append(d.Units, hwdesc.Unit{Name: n, Init: init[i], Lat: lat[i]})
		d.Map = append(d.Map, hwdesc.Rule{Match: n, Unit: n})
	}
	if len(d.Units) > 0 {
		d.Map = append(d.Map, hwdesc.Rule{Match: "bar.sync", Unit: d.Units[0].Name})
		d.DefaultUnit = d.Units[0].Name
	}
	return d
}

// Taken is the branch target label of a "bra.taken" instruction. The
// edge after it redirects the warp because the next instruction's Index
// skips one (the instructions a taken branch jumps over): see Reindex.
const Taken = "next"

// IsTaken reports whether in is a "bra.taken".
func IsTaken(in *isa.Instr) bool { return in.Kind == isa.KindBranch && in.HasMod("taken") }

// Reindex returns copies of the instructions of p with consecutive Index
// values, except that the instruction after a "bra.taken" skips one.
func Reindex(p []*isa.Instr) []*isa.Instr {
	out := make([]*isa.Instr, len(p))
	idx := 0
	for i, in := range p {
		x := *in
		x.Index = idx
		idx++
		if IsTaken(in) {
			idx++
		}
		out[i] = &x
	}
	return out
}

// Instr builds an instruction on the unit named op (or "bar.sync", "ret",
// "exit"), writing dsts and reading srcs; guard, when not empty, is the
// guard predicate ("p0" or "!p0").
func Instr(op string, guard string, dsts, srcs []string) *isa.Instr {
	in := &isa.Instr{Opcode: op, Kind: isa.KindOther}
	switch op {
	case "bar.sync":
		in.Opcode, in.Mods = "bar", []string{"sync"}
		in.Kind, in.Barrier = isa.KindBarrier, isa.BarSync
	case "ret":
		in.Kind = isa.KindReturn
	case "exit":
		in.Kind = isa.KindExit
	case "bra":
		in.Kind = isa.KindBranch
	case "bra.taken":
		in.Opcode, in.Mods = "bra", []string{"taken"}
		in.Kind, in.Targets = isa.KindBranch, []string{Taken}
	}
	if guard != "" {
		in.Guard = isa.Guard{Reg: strings.TrimPrefix(guard, "!"), Neg: strings.HasPrefix(guard, "!")}
	}
	if len(dsts) == 1 {
		in.Dsts = []isa.Operand{{Kind: isa.OpReg, Text: dsts[0], Regs: []string{dsts[0]}}}
	} else if len(dsts) > 1 {
		in.Dsts = []isa.Operand{{Kind: isa.OpVec, Text: "{" + strings.Join(dsts, ",") + "}", Regs: append([]string(nil), dsts...)}}
	}
	for _, s := range srcs {
		in.Srcs = append(in.Srcs, isa.Operand{Kind: isa.OpReg, Text: s, Regs: []string{s}})
	}
	in.Text = formatInstr(in)
	return in
}

func formatInstr(in *isa.Instr) string {
	var b strings.Builder
	if g := in.Guard; g.Reg != "" {
		b.WriteString("@")
		if g.Neg {
			b.WriteString("!")
		}
		b.WriteString(g.Reg + " ")
	}
	b.WriteString(in.Op())
	if d := in.Defs(); len(d) > 0 {
		b.WriteString(" " + strings.Join(d, ","))
	}
	var srcs []string
	for _, o := range in.Srcs {
		srcs = append(srcs, o.Regs...)
	}
	if len(srcs) > 0 {
		b.WriteString(" = " + strings.Join(srcs, ","))
	}
	return b.String()
}

// Parse reads a case.
func Parse(data []byte) (*Case, error) {
	a := txtar.Parse(data)
	c := &Case{Comment: string(a.Comment)}
	hw, ok := a.Get("hw")
	if !ok {
		return nil, fmt.Errorf("case has no hw section")
	}
	var names, groups []string
	var init, lat []hwdesc.Cycles
	var pipe hwdesc.Pipeline
	for i, line := range strings.Split(string(hw), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if f[0] == "pipeline" {
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, "=")
				var err error
				switch k {
				case "overhead":
					var n int64
					n, err = strconv.ParseInt(v, 10, 64)
					pipe.Overhead = hwdesc.Cycles(n)
				case "branch_wait":
					pipe.BranchWait = v
				case "ret_issues":
					pipe.RetIssues, err = strconv.ParseBool(v)
				case "barrier_issues":
					pipe.BarrierIssues, err = strconv.ParseBool(v)
				default:
					err = fmt.Errorf("unknown key")
				}
				if err != nil {
					return nil, fmt.Errorf("hw:%d: pipeline %q: %v", i+1, kv, err)
				}
			}
			continue
		}
		if len(f) == 4 {
			groups = append(groups, f[3])
			f = f[:3]
		} else {
			groups = append(groups, "")
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("hw:%d: want NAME INIT LAT [GROUP], got %q", i+1, line)
		}
		in, err1 := strconv.ParseInt(f[1], 10, 64)
		lt, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("hw:%d: bad number in %q", i+1, line)
		}
		names = append(names, f[0])
		init = append(init, hwdesc.Cycles(in))
		lat = append(lat, hwdesc.Cycles(lt))
	}
	c.HW = NewHW(names, init, lat)
	c.HW.Pipeline = pipe
	for u := range c.HW.Units {
		c.HW.Units[u].Group = groups[u]
	}
	for _, f := range a.Files {
		lo, hi, ok := warpRange(f.Name)
		if !ok {
			if f.Name == "hw" || strings.HasPrefix(f.Name, "want") {
				continue
			}
			return nil, fmt.Errorf("unknown section %q", f.Name)
		}
		var path []*isa.Instr
		for i, line := range strings.Split(string(f.Data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			in, err := parseInstr(line)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", f.Name, i+1, err)
			}
			path = append(path, in)
		}
		path = Reindex(path)
		for w := lo; w <= hi; w++ {
			if w != len(c.Warps) {
				return nil, fmt.Errorf("section %q: warp %d out of order (want warp %d)", f.Name, w, len(c.Warps))
			}
			c.Warps = append(c.Warps, path)
		}
	}
	if len(c.Warps) == 0 {
		return nil, fmt.Errorf("case has no warps")
	}
	return c, nil
}

func warpRange(name string) (lo, hi int, ok bool) {
	var rest string
	if r, found := strings.CutPrefix(name, "warps "); found {
		rest = r
	} else if r, found := strings.CutPrefix(name, "warp "); found {
		rest = r
	} else {
		return 0, 0, false
	}
	a, b, isRange := strings.Cut(rest, "-")
	lo, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false
	}
	hi = lo
	if isRange {
		if hi, err = strconv.Atoi(b); err != nil || hi < lo {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

func parseInstr(line string) (*isa.Instr, error) {
	var guard string
	if strings.HasPrefix(line, "@") {
		g, rest, _ := strings.Cut(line[1:], " ")
		guard, line = g, strings.TrimSpace(rest)
	}
	lhs, rhs, _ := strings.Cut(line, "=")
	f := strings.Fields(lhs)
	if len(f) == 0 {
		return nil, fmt.Errorf("missing opcode")
	}
	if len(f) > 2 {
		return nil, fmt.Errorf("want OP DST,DST = SRC,SRC; got %q", line)
	}
	var dsts, srcs []string
	if len(f) == 2 {
		dsts = splitList(f[1])
	}
	srcs = splitList(rhs)
	return Instr(f[0], guard, dsts, srcs), nil
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// Format writes the case in the format Parse reads.
func (c *Case) Format() []byte {
	a := &txtar.Archive{Comment: []byte(c.Comment)}
	var hw bytes.Buffer
	for _, u := range c.HW.Units {
		if u.Group != "" {
			fmt.Fprintf(&hw, "%s %d %d %s\n", u.Name, u.Init, u.Lat, u.Group)
		} else {
			fmt.Fprintf(&hw, "%s %d %d\n", u.Name, u.Init, u.Lat)
		}
	}
	if p := c.HW.Pipeline; p.Overhead != 0 || p.BranchWait != "" || p.RetIssues || p.BarrierIssues {
		fmt.Fprintf(&hw, "pipeline overhead=%d branch_wait=%s ret_issues=%t barrier_issues=%t\n", p.Overhead, cmpOr(p.BranchWait, "none"), p.RetIssues, p.BarrierIssues)
	}
	a.Files = append(a.Files, txtar.File{Name: "hw", Data: hw.Bytes()})
	for lo := 0; lo < len(c.Warps); {
		hi := lo
		for hi+1 < len(c.Warps) && sameSlice(c.Warps[hi+1], c.Warps[lo]) {
			hi++
		}
		name := "warp " + strconv.Itoa(lo)
		if hi > lo {
			name = fmt.Sprintf("warps %d-%d", lo, hi)
		}
		var b bytes.Buffer
		for _, in := range c.Warps[lo] {
			b.WriteString(formatInstr(in) + "\n")
		}
		a.Files = append(a.Files, txtar.File{Name: name, Data: b.Bytes()})
		lo = hi + 1
	}
	return txtar.Format(a)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func sameSlice(a, b []*isa.Instr) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Size returns the number of warps and the total number of instructions, a
// measure for shrinking.
func (c *Case) Size() (warps, instrs int) {
	for _, p := range c.Warps {
		instrs += len(p)
	}
	return len(c.Warps), instrs
}

// Units returns the unit names used by the case's instructions, sorted.
func (c *Case) Units() []string {
	seen := map[string]bool{}
	for _, p := range c.Warps {
		for _, in := range p {
			seen[in.Op()] = true
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
