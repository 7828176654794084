package divergence

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// cause records why a register is thread-varying: the instruction that
// made it so, and either the register it got the variation from or a
// seed reason (a special register, a load, an atomic, ...).
type cause struct {
	in   *isa.Instr
	from string // a varying register used by in, or ""
	why  string // seed reason when from == ""
}

// specialVarying classifies a special register (PTX "%tid.x", SASS
// "SR_TID.X"): true when its value may differ between the lanes of a
// warp. Unknown special registers are varying (the sound default).
//
// Thread-varying: %tid, %laneid, %lanemask_*, SR_TID*, SR_LANEID,
// SR_*MASK. Conservatively varying, although one value per warp at a given
// instant: %clock, %clock64, %globaltimer*, %smid, %warpid, %pm*
// (performance counters) — they are volatile, so the same register read on
// the two sides of a divergent branch differs. Warp-uniform: %ctaid,
// %ntid, %nctaid, %nsmid, %nwarpid, %gridid, cluster ids and sizes,
// %envreg*, shared-memory sizes, WARP_SZ.
func specialVarying(name string) bool {
	s := strings.ToLower(strings.TrimPrefix(name, "-"))
	s = strings.TrimPrefix(s, "%")
	s = strings.TrimPrefix(s, "sr_")
	base, _, _ := strings.Cut(s, ".")
	switch {
	case base == "ctaid", base == "ntid", base == "nctaid", base == "nsmid", base == "nwarpid",
		base == "gridid", base == "clusterid", base == "nclusterid", base == "cluster_ctaid",
		base == "cluster_nctaid", base == "cluster_ctarank", base == "cluster_nctarank",
		base == "is_explicit_cluster", strings.HasPrefix(base, "envreg"),
		base == "dynamic_smem_size", base == "total_smem_size", base == "aggr_smem_size",
		base == "reserved_smem_offset_begin", base == "reserved_smem_offset_end",
		base == "reserved_smem_offset_cap", base == "warp_sz":
		return false
	case strings.HasPrefix(base, "ctaid"), strings.HasPrefix(base, "nctaid"):
		return false // SASS SR_CTAID.X
	}
	return true
}

// warpOps are opcodes (lower case, base mnemonic) whose result depends on
// other lanes or on the active mask.
var warpOps = map[string]bool{
	"shfl": true, "vote": true, "match": true, "redux": true, "activemask": true, "elect": true,
	"voteu": true, // SASS spellings lower-cased: SHFL, VOTE, VOTEU, MATCH, REDUX
}

// seed returns why in's results are thread-varying regardless of its
// operands, or "".
func seed(fn *isa.Func, dialect isa.Dialect, in *isa.Instr) string {
	for _, o := range in.Srcs {
		if o.Kind == isa.OpSpecial && specialOperand(dialect, o) && specialVarying(o.Text) {
			return o.Text
		}
	}
	op := strings.ToLower(in.Opcode)
	switch {
	case in.Generic:
		return "unknown opcode " + in.Op()
	case in.Kind == isa.KindAtomic:
		return "atomic " + in.Op()
	case in.Kind == isa.KindCall || in.Kind == isa.KindIndirectCall:
		return "result of call " + in.Op()
	case warpOps[op]:
		return "warp-level " + in.Op()
	case in.Kind == isa.KindLoad:
		switch in.Space {
		case isa.SpaceLocal:
			return "load from per-thread local memory"
		case isa.SpaceGeneric, isa.SpaceNone:
			return "load through a generic address (may be per-thread local memory)"
		case isa.SpaceParam:
			if !fn.Entry {
				return "load of a device-function parameter"
			}
		}
	}
	return ""
}

// specialOperand reports whether o names a special register to classify.
// SASS special registers also appear in Regs (SR_TID.X); CC and
// scoreboards are not lane values.
func specialOperand(d isa.Dialect, o isa.Operand) bool {
	t := strings.ToUpper(o.Text)
	if d == isa.DialectSASS {
		return strings.HasPrefix(t, "SR_") || strings.HasPrefix(t, "-SR_")
	}
	return o.Text != ""
}

// uniformity computes the thread-varying registers of g's function and
// the divergent branches, as a fixed point of data dependence and sync
// dependence (see docs/divergence.md):
//
//  1. a register written by an instruction with a seed (special register,
//     load from per-thread memory, atomic, warp-level op, unknown opcode,
//     call) or reading a varying register (guard and address registers
//     included) is varying;
//  2. a branch whose condition is varying is divergent; every register
//     written in its divergent region (the blocks reachable from its
//     successors before its reconvergence point) is varying, because at
//     reconvergence lanes that ran different sides, or left a loop in
//     different iterations, merge different values;
//  3. repeat until nothing changes.
//
// The analysis is flow-insensitive (a register is varying everywhere or
// nowhere), which is sound and simple.
type uniformity struct {
	g       *cfg.Graph
	fn      *isa.Func
	dialect isa.Dialect
	varying map[string]*cause
	users   map[string][]*isa.Instr // register -> instructions reading it
	defs    map[string][]*isa.Instr
	instrs  []*isa.Instr // reachable instructions
	work    []string
	blockOf map[*isa.Instr]*cfg.Block
}

func newUniformity(g *cfg.Graph) *uniformity {
	u := &uniformity{g: g, fn: g.Func, varying: map[string]*cause{}, users: map[string][]*isa.Instr{},
		defs: map[string][]*isa.Instr{}, blockOf: map[*isa.Instr]*cfg.Block{}}
	u.dialect = dialectOf(g.Func)
	for _, b := range g.Blocks {
		for _, in := range b.Instrs {
			u.blockOf[in] = b
		}
	}
	for _, b := range g.Blocks {
		if !b.Reachable {
			continue
		}
		for _, in := range b.Instrs {
			u.instrs = append(u.instrs, in)
			for _, r := range in.Uses() {
				u.users[r] = append(u.users[r], in)
			}
			for _, r := range in.Defs() {
				u.defs[r] = append(u.defs[r], in)
			}
		}
	}
	return u
}

func (u *uniformity) mark(reg string, c *cause) {
	if u.varying[reg] != nil {
		return
	}
	u.varying[reg] = c
	u.work = append(u.work, reg)
}

func (u *uniformity) markDefs(in *isa.Instr, c cause) {
	for _, r := range in.Defs() {
		cc := c
		u.mark(r, &cc)
	}
}

func (u *uniformity) propagate() {
	for len(u.work) > 0 {
		r := u.work[len(u.work)-1]
		u.work = u.work[:len(u.work)-1]
		for _, in := range u.users[r] {
			u.markDefs(in, cause{in: in, from: r})
		}
	}
}

// run computes the fixed point and returns the conditional branches.
func (u *uniformity) run(reconv func(b *cfg.Block) (*cfg.Block, string)) []*Branch {
	hasCall := false
	for _, in := range u.instrs {
		if in.Kind == isa.KindCall || in.Kind == isa.KindIndirectCall {
			hasCall = true
		}
	}
	// Seeds.
	for _, in := range u.instrs {
		if why := seed(u.fn, u.dialect, in); why != "" {
			u.markDefs(in, cause{in: in, why: why})
		}
		for _, r := range in.Uses() {
			if u.dialect == isa.DialectSASS && strings.HasPrefix(r, "SR_") {
				if specialVarying(r) {
					u.mark(r, &cause{in: in, why: r})
				}
				continue
			}
			if len(u.defs[r]) == 0 && u.varying[r] == nil {
				u.mark(r, &cause{in: in, why: "register " + r + " is never written in " + u.fn.Name + " (live-in)"})
			}
		}
	}
	if hasCall && u.dialect == isa.DialectSASS {
		// A SASS callee may write any register.
		var regs []string
		for r := range u.defs {
			regs = append(regs, r)
		}
		sort.Strings(regs)
		for _, r := range regs {
			in := u.defs[r][0]
			u.mark(r, &cause{in: in, why: "the function calls a subroutine that may write any register"})
		}
	}
	u.propagate()

	// Branches, then sync dependence until stable.
	var brs []*Branch
	for _, b := range u.g.Blocks {
		if !b.Reachable {
			continue
		}
		last := b.Last()
		if last == nil {
			continue
		}
		guarded := last.Guard.Reg != ""
		switch b.Kind {
		case cfg.BlockIf, cfg.BlockIndirect:
		case cfg.BlockReturn, cfg.BlockExit:
			if !guarded {
				continue
			}
		default:
			continue
		}
		br := &Branch{Block: b, Instr: last, Uni: last.Uni, Exit: b.Kind == cfg.BlockReturn || b.Kind == cfg.BlockExit}
		br.Reconv, br.ReconvFrom = reconv(b)
		brs = append(brs, br)
	}
	done := map[*Branch]bool{}
	for {
		changed := false
		for _, br := range brs {
			if done[br] || !u.condVarying(br.Instr) {
				continue
			}
			done[br] = true
			if br.Exit {
				continue // lanes that leave never merge values back
			}
			for _, b := range region(u.g, br.Block, br.Reconv) {
				for _, in := range b.Instrs {
					for _, r := range in.Defs() {
						if u.varying[r] == nil {
							u.mark(r, &cause{in: in, why: fmt.Sprintf("a value merged after the divergent branch at line %s", u.line(br.Instr))})
							changed = true
						}
					}
				}
			}
		}
		u.propagate()
		if !changed {
			break
		}
	}
	for _, br := range brs {
		br.Divergent = u.condVarying(br.Instr)
		br.Reason = u.reason(br.Instr)
		if br.Divergent {
			br.Loops, br.Serial = loopsLeft(u.g, br.Block, br.Reconv)
		}
	}
	return brs
}

// condVarying reports whether the condition of a branch may vary: its
// guard, or for an indirect branch any register it reads.
func (u *uniformity) condVarying(in *isa.Instr) bool {
	for _, r := range u.condRegs(in) {
		if u.varying[r] != nil {
			return true
		}
	}
	return false
}

func (u *uniformity) condRegs(in *isa.Instr) []string {
	if in.Kind == isa.KindIndirectBranch {
		return in.Uses()
	}
	if in.Guard.Reg == "" {
		return nil
	}
	return []string{in.Guard.Reg}
}

func (u *uniformity) line(in *isa.Instr) string {
	if u.g.Fset == nil || !in.Pos.IsValid() {
		return "-"
	}
	return fmt.Sprint(u.g.Fset.Position(in.Pos).Line)
}

// reason explains the classification of a branch.
func (u *uniformity) reason(in *isa.Instr) string {
	regs := u.condRegs(in)
	for _, r := range regs {
		c := u.varying[r]
		if c == nil {
			continue
		}
		var via []string
		seen := map[string]bool{r: true}
		for c.from != "" && !seen[c.from] {
			seen[c.from] = true
			via = append(via, c.from)
			next := u.varying[c.from]
			if next == nil {
				break
			}
			c = next
		}
		s := fmt.Sprintf("condition %s depends on %s (line %s)", r, c.why, u.line(c.in))
		if len(via) > 0 {
			// via runs from the condition towards the source; print it
			// source first.
			for i, j := 0, len(via)-1; i < j; i, j = i+1, j-1 {
				via[i], via[j] = via[j], via[i]
			}
			s += " via " + strings.Join(via, ", ")
		}
		return s
	}
	if len(regs) == 0 {
		return "no condition"
	}
	return "condition " + strings.Join(regs, ", ") + " is warp-uniform"
}

// region returns the divergent region of a branch ending block b with
// reconvergence point r: the blocks reachable from b's successors without
// going through r (b itself included when a side comes back to it), in
// index order.
func region(g *cfg.Graph, b, r *cfg.Block) []*cfg.Block {
	seen := make([]bool, len(g.Blocks)+1)
	var out []*cfg.Block
	stack := []*cfg.Block{}
	for _, e := range b.Succs {
		stack = append(stack, e.To)
	}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == r || x == g.Exit || seen[x.Index] {
			continue
		}
		seen[x.Index] = true
		out = append(out, x)
		for _, e := range x.Succs {
			stack = append(stack, e.To)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

// loopsLeft returns the loops containing b but not r (innermost first),
// and whether more than one distinct side of b comes back to b before r.
func loopsLeft(g *cfg.Graph, b, r *cfg.Block) ([]*cfg.Loop, bool) {
	var ls []*cfg.Loop
	for l := b.Loop; l != nil; l = l.Parent {
		if r == g.Exit || !l.Contains(r) {
			ls = append(ls, l)
		}
	}
	back := 0
	for _, s := range sides(b) {
		if s != r && g.Reaches(s, b, r) {
			back++
		}
	}
	return ls, back > 1
}

// sides returns the distinct successor blocks of b in edge order.
func sides(b *cfg.Block) []*cfg.Block {
	var out []*cfg.Block
	for _, e := range b.Succs {
		dup := false
		for _, x := range out {
			dup = dup || x == e.To
		}
		if !dup {
			out = append(out, e.To)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// dialectOf guesses the dialect of a function (isa.Func does not record
// it): SASS opcodes are upper case, PTX ones lower case.
func dialectOf(fn *isa.Func) isa.Dialect {
	for _, in := range fn.Instrs {
		if in.Opcode != "" {
			if c := in.Opcode[0]; c >= 'A' && c <= 'Z' {
				return isa.DialectSASS
			}
			return isa.DialectPTX
		}
	}
	return isa.DialectPTX
}
