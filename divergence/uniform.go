package divergence

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/assume"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// specialVarying classifies a special register (PTX "%tid.x", SASS
// "SR_TID.X"): true when its value may differ between the lanes of a
// warp, from the one list of special registers (values.CanonSpecial).
// Unknown special registers are varying (the sound default).
//
// Thread-varying: %tid, %laneid, %lanemask_*, SR_TID*, SR_LANEID,
// SR_*MASK. Conservatively varying, although one value per warp at a given
// instant: %clock, %clock64, %globaltimer*, %smid, %warpid, %pm*
// (performance counters) — they are volatile, so the same register read on
// the two sides of a divergent branch differs. Warp-uniform: %ctaid,
// %ntid, %nctaid, %nsmid, %nwarpid, %gridid, cluster ids and sizes,
// %envreg*, shared-memory sizes, WARP_SZ.
func specialVarying(name string) bool {
	if strings.EqualFold(strings.TrimPrefix(name, "-"), "WARP_SZ") {
		return false
	}
	return values.SpecialVarying(name)
}

// warpOps are opcodes (lower case, base mnemonic) whose result depends on
// other lanes or on the active mask.
var warpOps = map[string]bool{
	"shfl": true, "vote": true, "match": true, "redux": true, "activemask": true, "elect": true,
	"voteu": true, // SASS spellings lower-cased: SHFL, VOTE, VOTEU, MATCH, REDUX
}

// seed returns why in's results are thread-varying regardless of its
// operands, or "". A load whose value the value graph follows (a kernel
// argument, a frame slot or parameter cell: their uses carry the data
// dependence) is no seed; a load of a device function's own parameter is
// (its value is the caller's, unknown here).
func (u *uniformity) seed(in *isa.Instr) string {
	for _, o := range in.Srcs {
		if o.Kind == isa.OpSpecial && specialOperand(u.dialect, o) && specialVarying(o.Text) {
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
		return "result of call " + in.Op() // only calls not inlined write values
	case warpOps[op]:
		return "warp-level " + in.Op()
	case in.Kind == isa.KindLoad:
		if u.followed(in) {
			return ""
		}
		switch in.Space {
		case isa.SpaceLocal:
			return "load from per-thread local memory"
		case isa.SpaceGeneric, isa.SpaceNone:
			return "load through a generic address (may be per-thread local memory)"
		case isa.SpaceParam:
			return "load of a device-function parameter or call result"
		}
	}
	return ""
}

// uniformReg reports whether a SASS register is one of the uniform
// datapath (UR0-UR63, UP0-UP6): it holds one value per warp by
// construction, whatever it was computed from.
func uniformReg(r string) bool {
	for _, p := range []string{"UR", "UP"} {
		if rest, ok := strings.CutPrefix(r, p); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}

// inlined reports whether a call is followed by its callee's body.
func (u *uniformity) inlined(in *isa.Instr) bool {
	return u.vals.Inlined != nil && u.vals.Inlined.Calls[in]
}

// followed reports whether the value graph follows what a load reads: a
// frame slot or a parameter cell (whose writers carry the variation, as
// data dependences of the cell), or a kernel argument.
func (u *uniformity) followed(in *isa.Instr) bool {
	s := u.vals.Sem(in)
	if s == nil {
		return false
	}
	uses, _ := u.vals.Locations(in)
	for _, l := range uses {
		if strings.HasPrefix(l, "param:") || strings.HasPrefix(l, "frame:") {
			return true
		}
	}
	outs := u.vals.Outputs(in)
	n := 0
	for k, o := range s.Outs {
		if o.Kind != values.OutReg {
			continue
		}
		n++
		if v := outs[k]; v == nil || v.Kind != values.VParam {
			return false
		}
	}
	return n > 0
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

// uniformity computes the thread-varying values of g's function and the
// divergent branches, as a fixed point of data dependence and sync
// dependence over the value graph (values.Func, static single assignment:
// each value has one definition, so a register reused for unrelated values
// is not merged), see docs/divergence.md:
//
//  1. a value is varying when it is a thread-varying special register, a
//     variable read before any write (a live-in register, except SASS
//     uniform registers), the result of an instruction with a seed (load
//     from per-thread memory, atomic, warp-level op, unknown opcode, call
//     not inlined) or computed from a varying value (for values the
//     analysis does not model: from any register the instruction reads,
//     guard and address registers included);
//  2. a branch whose condition value is varying is divergent; then every
//     phi in its divergent region or at its reconvergence point (lanes
//     that ran different sides, or left a loop in different iterations,
//     merge different values there) and every value defined in its region
//     is varying;
//  3. repeat until nothing changes.
type uniformity struct {
	g       *cfg.Graph
	vals    *values.Func
	fn      *isa.Func
	dialect isa.Dialect
	varying map[*values.Value]*cause
	users   map[*values.Value][]*values.Value
	work    []*values.Value
	// name gives, for messages, a register (or cell) a value is written
	// to, and def the first instruction writing it.
	name    map[*values.Value]string
	def     map[*values.Value]*isa.Instr
	phis    map[*cfg.Block][]*values.Value
	instrs  []*isa.Instr // reachable instructions
	blockOf map[*isa.Instr]*cfg.Block
}

// cause records why a value is thread-varying: the value it got the
// variation from, or a seed reason (a special register, a load, an
// atomic, ...), and the instruction.
type cause struct {
	in   *isa.Instr
	from *values.Value
	why  string
}

func newUniformity(g *cfg.Graph, vals *values.Func) *uniformity {
	u := &uniformity{g: g, vals: vals, fn: g.Func, dialect: vals.Dialect, varying: map[*values.Value]*cause{},
		users: map[*values.Value][]*values.Value{}, name: map[*values.Value]string{}, def: map[*values.Value]*isa.Instr{}, phis: map[*cfg.Block][]*values.Value{}, blockOf: map[*isa.Instr]*cfg.Block{}}
	for _, v := range vals.Values() {
		for _, a := range v.Args {
			u.users[a] = append(u.users[a], v)
		}
		if v.Kind == values.VPhi {
			u.name[v] = v.Name
			u.phis[v.Block] = append(u.phis[v.Block], v)
		}
	}
	for _, b := range g.Blocks {
		for _, in := range b.Instrs {
			u.blockOf[in] = b
		}
		if !b.Reachable {
			continue
		}
		for _, in := range b.Instrs {
			u.instrs = append(u.instrs, in)
			s := vals.Sem(in)
			for k, o := range vals.Outputs(in) {
				if o != nil && u.def[o] == nil {
					u.def[o] = in
				}
				if o != nil && u.name[o] == "" {
					n := s.Outs[k].Name
					if s.Outs[k].Kind == values.OutMem {
						n = "local memory"
						if uses, defs := vals.Locations(in); len(defs) > 0 {
							_ = uses
							n = defs[len(defs)-1]
						}
					}
					u.name[o] = n
				}
			}
		}
	}
	return u
}

func (u *uniformity) mark(v *values.Value, c *cause) {
	if v == nil || u.varying[v] != nil {
		return
	}
	u.varying[v] = c
	u.work = append(u.work, v)
}

func (u *uniformity) propagate() {
	for len(u.work) > 0 {
		v := u.work[len(u.work)-1]
		u.work = u.work[:len(u.work)-1]
		for _, w := range u.users[v] {
			if u.varying[w] != nil {
				continue
			}
			// An opaque value of a SASS uniform register stays uniform.
			if w.Kind == values.VOpaque && u.uniformOut(w) {
				continue
			}
			u.mark(w, &cause{in: w.Instr, from: v})
		}
	}
}

// uniformOut reports whether v is written only to SASS uniform registers.
func (u *uniformity) uniformOut(v *values.Value) bool {
	n := u.name[v]
	return u.dialect == isa.DialectSASS && n != "" && uniformReg(n)
}

// run computes the fixed point and returns the conditional branches.
func (u *uniformity) run(reconv func(b *cfg.Block) (*cfg.Block, string)) []*Branch {
	// Seeds.
	for _, v := range u.vals.Values() {
		switch v.Kind {
		case values.VSpecial:
			if specialVarying(v.Name) {
				u.mark(v, &cause{in: u.def[v], why: u.specialText(v)})
			}
		case values.VUndef:
			if !(u.dialect == isa.DialectSASS && uniformReg(v.Name)) {
				u.mark(v, &cause{why: "register " + v.Name + " is never written in " + u.fn.Name + " (live-in)"})
			}
		case values.VOpaque:
			if v.Instr != nil && !u.uniformOut(v) {
				if why := u.seed(v.Instr); why != "" {
					u.mark(v, &cause{in: v.Instr, why: why})
				}
			}
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
	for _, br := range brs {
		br.Trap = trapBranch(u.g, br)
	}
	done := map[*Branch]bool{}
	for {
		changed := false
		for _, br := range brs {
			if done[br] || !u.condVarying(br.Instr) {
				continue
			}
			done[br] = true
			if br.Exit || br.Trap {
				continue // lanes that leave (or trap) never merge values back
			}
			why := fmt.Sprintf("a value merged after the divergent branch at line %s", u.line(br.Instr))
			reg := region(u.g, br.Block, br.Reconv)
			merge := append([]*cfg.Block(nil), reg...)
			if br.Reconv != nil && br.Reconv != u.g.Exit {
				merge = append(merge, br.Reconv)
			}
			inReg := map[*cfg.Block]bool{}
			for _, b := range reg {
				inReg[b] = true
			}
			for _, b := range merge {
				for _, v := range u.phis[b] {
					if u.varying[v] != nil {
						continue
					}
					// The line of a definition merged there, in the region.
					at := br.Instr
					for _, a := range v.Args {
						if d := u.def[a]; d != nil && inReg[u.blockOf[d]] {
							at = d
							break
						}
					}
					u.mark(v, &cause{in: at, why: why})
					changed = true
				}
			}
			for _, b := range reg {
				for _, ins := range b.Instrs {
					for _, o := range u.vals.Outputs(ins) {
						if o == nil || u.varying[o] != nil || u.uniformOut(o) {
							continue
						}
						if !u.definedIn(o, inReg) {
							continue
						}
						u.mark(o, &cause{in: ins, why: why})
						changed = true
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
		br.Divergent = u.condVarying(br.Instr) && !br.Trap
		br.Reason = u.reason(br.Instr)
		if br.Trap {
			br.Reason += "; one side only traps: no lane takes it in a launch that completes (" + assume.NoTrap + ")"
		}
		if br.Divergent {
			br.Loops, br.Serial = loopsLeft(u.g, br.Block, br.Reconv)
		}
	}
	return brs
}

// definedIn reports whether an instruction of the divergent region reg,
// writing v, computes v there: sync dependence then makes v varying. A
// load of a frame slot or parameter cell (or a register copy) writes the
// value the cell already holds, computed where it was stored: the same
// value in every lane that reads it whatever side it ran (SSA: a store
// on one side reaches the reconvergence point through a phi, which the
// merge rule marks; a store in a loop the lanes leave in different
// iterations reaches the exit through the header phi, in the region, or
// through a value computed from it). Constants, kernel arguments, special
// registers and frame addresses are the same in every lane whatever the
// path; phis are marked by the merge rule. An opaque value or an
// operation is computed by the first instruction that creates it
// (v.Instr): marked when that instruction lies in the region. (An
// operation computed outside the region and again inside it, shared by
// hash-consing, is a function of its operands, which carry their own
// variation.)
func (u *uniformity) definedIn(v *values.Value, reg map[*cfg.Block]bool) bool {
	switch v.Kind {
	case values.VOp, values.VOpaque:
		return v.Instr != nil && reg[u.blockOf[v.Instr]]
	case values.VUndef:
		return true
	}
	return false
}

// isTrap reports whether in aborts the launch: PTX trap, SASS BPT.TRAP.
func isTrap(in *isa.Instr) bool {
	if in == nil || in.Kind != isa.KindExit {
		return false
	}
	op := strings.ToUpper(in.Opcode)
	return op == "TRAP" || op == "BPT" && in.HasMod("TRAP")
}

// trapBranch reports whether one side of br can only trap: for a guarded
// exit, the exit is a trap; for a two-way branch, every path from one
// side (and not from the other) ends at a trap, never at another exit.
func trapBranch(g *cfg.Graph, br *Branch) bool {
	if br.Exit {
		return isTrap(br.Instr)
	}
	ss := sides(br.Block)
	if br.Block.Kind != cfg.BlockIf || len(ss) != 2 {
		return false
	}
	return trapsOnly(g, ss[0]) != trapsOnly(g, ss[1])
}

// trapsOnly reports whether every block reachable from s that leaves the
// function does so by a trap (s never reaches the exit otherwise).
func trapsOnly(g *cfg.Graph, s *cfg.Block) bool {
	if s == g.Exit {
		return false
	}
	seen := map[*cfg.Block]bool{s: true}
	stack := []*cfg.Block{s}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range x.Succs {
			if e.To == g.Exit {
				if !isTrap(x.Last()) {
					return false
				}
				continue
			}
			if !seen[e.To] {
				seen[e.To] = true
				stack = append(stack, e.To)
			}
		}
		if len(x.Succs) == 0 && !isTrap(x.Last()) {
			return false
		}
	}
	return true
}

// specialText is how the listing spells a special register value: the
// operand of the first instruction writing it, else the PTX name.
func (u *uniformity) specialText(v *values.Value) string {
	if in := u.def[v]; in != nil {
		for _, o := range in.Srcs {
			if o.Kind == isa.OpSpecial || strings.HasPrefix(strings.ToUpper(o.Text), "SR_") {
				return strings.TrimSuffix(o.Text, ".reuse")
			}
		}
	}
	return "%" + v.Name
}

// condValues returns the values a branch's condition reads: its guard,
// or for an indirect branch every register it reads.
func (u *uniformity) condValues(in *isa.Instr) []*values.Value {
	if in.Kind == isa.KindIndirectBranch {
		return u.vals.Reads(in)
	}
	if g := u.vals.Guard(in); g != nil {
		return []*values.Value{g}
	}
	return nil
}

// condVarying reports whether the condition of a branch may vary.
func (u *uniformity) condVarying(in *isa.Instr) bool {
	for _, v := range u.condValues(in) {
		if u.varying[v] != nil {
			return true
		}
	}
	return false
}

func (u *uniformity) line(in *isa.Instr) string {
	if in == nil || u.g.Fset == nil || !in.Pos.IsValid() {
		return "-"
	}
	return fmt.Sprint(u.g.Fset.Position(in.Pos).Line)
}

// reason explains the classification of a branch: the chain of values
// from a seed to its condition, by the registers they are written to.
func (u *uniformity) reason(in *isa.Instr) string {
	regs := condRegs(in)
	for _, v := range u.condValues(in) {
		c := u.varying[v]
		if c == nil {
			continue
		}
		r := strings.Join(regs, ", ")
		var via []string
		seen := map[*values.Value]bool{v: true}
		for c.from != nil && !seen[c.from] {
			seen[c.from] = true
			if n := u.name[c.from]; n != "" && n != r && (len(via) == 0 || via[len(via)-1] != n) {
				via = append(via, n)
			}
			next := u.varying[c.from]
			if next == nil {
				break
			}
			c = next
		}
		s := fmt.Sprintf("condition %s depends on %s (line %s)", r, c.why, u.line(c.in))
		if c.in == nil {
			s = fmt.Sprintf("condition %s depends on %s", r, c.why)
		}
		if len(via) > 0 {
			// via runs from the condition towards the source; print it
			// source first.
			slices.Reverse(via)
			s += " via " + strings.Join(via, ", ")
		}
		return s
	}
	if len(regs) == 0 {
		return "no condition"
	}
	return "condition " + strings.Join(regs, ", ") + " is warp-uniform"
}

// condRegs names the registers of a branch's condition.
func condRegs(in *isa.Instr) []string {
	if in.Kind == isa.KindIndirectBranch {
		return in.Uses()
	}
	if in.Guard.Reg == "" {
		return nil
	}
	return []string{in.Guard.Reg}
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
