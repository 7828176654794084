package sass

import (
	"fmt"
	"sort"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Device functions inside a kernel's code section.
//
// ptxas places a __noinline__ device function in the code section of each
// kernel that calls it, after the kernel's own code, and calls it by
// address: CALL.REL.NOINC 0x4b0 (Volta and later; the function returns with
// RET.REL.NODEC R6 to the address the caller put in R6), CAL 0x4b0
// (Kepler to Pascal; RET pops the address CAL pushed), or PRET followed by
// a branch (the branch is then a call returning to the PRET target).
// cuobjdump -sass prints the section as one function. splitCalls cuts it
// into the kernel and one isa.Func per device function, so that the
// kernel's graph stops at its calls and cfg.Inline can copy each callee
// into each of its call contexts.
//
// A function is the code reachable from its entry (the section start, or
// a call target) along branches and fall-throughs, with a call to a
// function that returns taken as a fall-through to the instruction after
// it. A call target from which no RET is reachable never returns (ptxas
// calls an EXIT this way to leave a loop): the call is a branch into it,
// and its code belongs to the caller. Code reached from several entries
// is copied into each function; code reached from none (padding) stays
// with the function before it, or is dropped where that would give it a
// fall-through it does not have.

// maxSharedFactor bounds the instructions the functions of one section may
// hold together (code reached from several entries is copied): a hostile
// listing cannot make the split quadratic.
const maxSharedFactor = 8

// splitCalls splits the function of st into the functions its local calls
// enter (see above). For a cuobjdump "Function :" block it also tells a
// device function from a kernel: cuobjdump prints device functions that
// ptxas keeps in their own sections (-G, clang -O0 -g) as "Function :"
// blocks too, and a kernel never returns: a block whose entry reaches a RET
// is a device function.
func (p *parser) splitCalls(st *fnState) {
	fn := st.fn
	n := len(fn.Instrs)
	if n == 0 {
		return
	}
	p.pretCalls(fn)
	fromELF := p.elfCalls(st)
	sp := &splitter{p: p, fn: fn, n: n, callTarget: map[int]int{}}
	for i, in := range fn.Instrs {
		if in.Kind != isa.KindCall || len(in.Targets) != 1 {
			continue
		}
		t, ok := fn.Labels[in.Targets[0]]
		if !ok {
			continue // a callee by name
		}
		if t >= n {
			p.errorf(in.Pos, "%s: call to the end of %s, where no code is", in.Op(), fn.Name)
			continue
		}
		sp.callTarget[i] = t
	}
	sp.mayReturn()
	if st.header && fn.Entry && sp.returns[0] && !fromELF {
		fn.Entry = false
		p.warnf(fn.Pos, "%s: taken as a device function, not a kernel: its code returns (%s at %s), and a kernel ends with EXIT (cuobjdump does not mark kernels; nvdisasm does)",
			fn.Name, fn.Instrs[sp.firstReturn(0)].Op(), offStr(fn.Instrs[sp.firstReturn(0)]))
	}
	if len(sp.callTarget) == 0 {
		return
	}
	// Calls into code that never returns are branches.
	entries := []int{0}
	seen := map[int]bool{0: true}
	for i, t := range sp.callTarget {
		in := fn.Instrs[i]
		if !sp.returns[t] {
			in.Kind = isa.KindBranch
			continue
		}
		if !seen[t] {
			seen[t] = true
			entries = append(entries, t)
		}
	}
	sort.Ints(entries)
	if len(entries) == 1 {
		// Only calls to fn itself (recursion) or into code without RET.
		sp.nameCalls(map[int]string{0: fn.Name})
		return
	}
	sp.split(entries)
}

// splitter holds the control flow of one section while it is split.
type splitter struct {
	p  *parser
	fn *isa.Func
	n  int

	callTarget map[int]int // local call instruction -> target index
	returns    []bool      // instruction index -> a RET is reachable from it
}

// guarded reports whether in may not execute (any guard but none).
func guarded(in *isa.Instr) bool { return in.Guard.Reg != "" }

// label returns the index a label names, if inside the section.
func (sp *splitter) label(l string) (int, bool) {
	t, ok := sp.fn.Labels[l]
	return t, ok && t < sp.n
}

// succs appends to out the successors of instruction i: branch targets
// (also of SYNC, BRK and CONT, as cfg.FlowKind), the labels a
// reconvergence push names (control may resume there), the next
// instruction unless i is an unguarded branch, return or exit, and for a
// local call: the next instruction when the callee returns (ret), the
// callee's entry when it does not.
func (sp *splitter) succs(i int, ret func(t int) bool, out []int) []int {
	in := sp.fn.Instrs[i]
	add := func(l string) {
		if t, ok := sp.label(l); ok {
			out = append(out, t)
		}
	}
	fall := true
	switch {
	case in.Kind == isa.KindBranch || in.Kind == isa.KindReconverge && len(in.Targets) > 0:
		for _, t := range in.Targets {
			add(t)
		}
		fall = guarded(in)
	case in.Kind == isa.KindIndirectBranch:
		for _, t := range in.Targets {
			add(t)
			for _, l := range sp.fn.BranchTargets[t] {
				add(l)
			}
		}
		fall = guarded(in)
	case in.Kind == isa.KindReturn || in.Kind == isa.KindExit:
		fall = guarded(in)
	case in.Kind == isa.KindCall:
		if t, ok := sp.callTarget[i]; ok && !ret(t) {
			out = append(out, t)
			fall = guarded(in)
		}
	}
	if in.Kind == isa.KindReconverge {
		for _, o := range in.Srcs {
			if o.Kind == isa.OpLabel {
				add(o.Text)
			}
		}
	}
	if fall && i+1 < sp.n {
		out = append(out, i+1)
	}
	return out
}

// mayReturn computes returns: the instructions from which a RET is
// reachable, where a call falls through once its callee is known to
// return (a least fixed point, computed backwards from the RETs in time
// linear in the section).
func (sp *splitter) mayReturn() {
	n := sp.n
	sp.returns = make([]bool, n)
	preds := make([][]int32, n)
	callsTo := map[int][]int{} // target -> unguarded call sites (their fall-through waits for the target)
	never := func(int) bool { return false }
	var buf []int
	for i := 0; i < n; i++ {
		if t, ok := sp.callTarget[i]; ok {
			// A call does not flow into its callee here: a RET reached
			// there returns to the call. It falls through when guarded
			// (the lanes that skip it) or once the callee returns.
			if guarded(sp.fn.Instrs[i]) {
				if i+1 < n {
					preds[i+1] = append(preds[i+1], int32(i))
				}
			} else {
				callsTo[t] = append(callsTo[t], i)
			}
			continue
		}
		buf = sp.succs(i, never, buf[:0])
		for _, s := range buf {
			preds[s] = append(preds[s], int32(i))
		}
	}
	var stack []int
	mark := func(i int) {
		if !sp.returns[i] {
			sp.returns[i] = true
			stack = append(stack, i)
		}
	}
	for i, in := range sp.fn.Instrs {
		if in.Kind == isa.KindReturn {
			mark(i)
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, q := range preds[i] {
			mark(int(q))
		}
		// i is a callee's entry that returns: its calls fall through.
		for _, c := range callsTo[i] {
			if c+1 == n {
				continue
			}
			preds[c+1] = append(preds[c+1], int32(c))
			if sp.returns[c+1] {
				mark(c)
			}
		}
		delete(callsTo, i)
	}
}

// firstReturn returns the index of the first RET reachable from e.
func (sp *splitter) firstReturn(e int) int {
	r := sp.reach(e)
	for i, ok := range r {
		if ok && sp.fn.Instrs[i].Kind == isa.KindReturn {
			return i
		}
	}
	return e
}

// reach returns the instructions reachable from e.
func (sp *splitter) reach(e int) []bool {
	seen := make([]bool, sp.n)
	ret := func(t int) bool { return sp.returns[t] }
	stack := []int{e}
	seen[e] = true
	var buf []int
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		buf = sp.succs(i, ret, buf[:0])
		for _, s := range buf {
			if !seen[s] {
				seen[s] = true
				stack = append(stack, s)
			}
		}
	}
	return seen
}

// split makes one function per entry (entries[0] == 0 is fn itself).
func (sp *splitter) split(entries []int) {
	fn, n, p := sp.fn, sp.n, sp.p
	sets := make([][]int, len(entries))
	owner := make([]int, n) // first function holding each instruction, -1: none
	for i := range owner {
		owner[i] = -1
	}
	total := 0
	for k, e := range entries {
		r := sp.reach(e)
		for i, ok := range r {
			if !ok {
				continue
			}
			if i < e {
				in := fn.Instrs[e]
				p.errorf(in.Pos, "device function at %s in %s: its code at %s, before its entry, is reached from it; such a layout is not supported",
					offStr(in), fn.Name, offStr(fn.Instrs[i]))
				return
			}
			sets[k] = append(sets[k], i)
			if owner[i] < 0 {
				owner[i] = k
			}
		}
		total += len(sets[k])
		if total > maxSharedFactor*n+1024 {
			p.errorf(fn.Pos, "%s: code shared by its device functions would be copied more than %d times; not supported", fn.Name, maxSharedFactor)
			return
		}
	}
	// Unreached code (padding, dead code) stays with the function of the
	// instruction before it, where it falls through to nothing or to that
	// function's own next instruction.
	for a := 0; a < n; {
		if owner[a] >= 0 {
			a++
			continue
		}
		b := a
		for b < n && owner[b] < 0 {
			b++
		}
		k := owner[a-1] // a > 0: the section start is reached
		set := sets[k]
		if b == n || owner[b] == k || set[len(set)-1] < a {
			for i := a; i < b; i++ {
				owner[i] = k
				sets[k] = append(sets[k], i)
			}
			sort.Ints(sets[k])
		}
		a = b
	}
	names := map[int]string{0: fn.Name}
	funcs := make([]*isa.Func, len(entries))
	funcs[0] = fn
	for k, e := range entries[1:] {
		in := fn.Instrs[e]
		name := "$" + fn.Name + "$"
		if in.Offset >= 0 {
			name += offLabel(in.Offset)
		} else if ls := fn.LabelAt(e); len(ls) > 0 {
			name += ls[0]
		} else {
			name += fmt.Sprintf("i%d", e)
		}
		names[e] = name
		funcs[k+1] = &isa.Func{Name: name, Pos: in.Pos, End: fn.End, Labels: map[string]int{}, BranchTargets: fn.BranchTargets}
	}
	sp.nameCalls(names)
	// Labels by original index.
	labelsAt := map[int][]string{}
	for l, i := range fn.Labels {
		labelsAt[i] = append(labelsAt[i], l)
	}
	old := fn.Instrs
	taken := make([]bool, n)
	for k, f := range funcs {
		set := sets[k]
		ins := make([]*isa.Instr, len(set))
		labels := map[string]int{}
		for j, i := range set {
			in := old[i]
			if taken[i] {
				c := *in // code reached from several entries: a copy
				in = &c
			}
			taken[i] = true
			in.Index = j
			ins[j] = in
			for _, l := range labelsAt[i] {
				labels[l] = j
			}
		}
		if set[len(set)-1] == n-1 {
			for _, l := range labelsAt[n] {
				labels[l] = len(ins)
			}
		}
		f.Instrs, f.Labels = ins, labels
		if k+1 < len(funcs) {
			next := old[entries[k+1]]
			if set[len(set)-1] < entries[k+1] {
				f.End = next.Pos
			}
		}
	}
	p.out.Funcs = append(p.out.Funcs, funcs[1:]...)
}

// nameCalls makes each call to a function entry call it by name (its
// target and label operand), so that the call graph and cfg.Inline find
// it; other local calls were made branches.
func (sp *splitter) nameCalls(names map[int]string) {
	for i, t := range sp.callTarget {
		name, ok := names[t]
		in := sp.fn.Instrs[i]
		if !ok || in.Kind != isa.KindCall {
			continue
		}
		old := in.Targets[0]
		in.Targets = []string{name}
		for k := range in.Srcs {
			if o := &in.Srcs[k]; o.Kind == isa.OpLabel && o.Text == old {
				o.Text = name
			}
		}
	}
}

// elfCalls applies the tables of a cuobjdump -elf dump (elf.go) to the
// function of st: the symbol table says whether it is a kernel, and the
// relocation table of its section names the callee of each call whose
// address a relocation fills in (CALL.ABS.NOINC 0x0, JCAL 0x0). It
// reports whether the symbol table holds the function.
func (p *parser) elfCalls(st *fnState) bool {
	if !p.elf.seen {
		return false
	}
	fn := st.fn
	sym, known := p.elf.syms[fn.Name]
	if known && st.header {
		fn.Entry = sym.entry
	}
	rel := p.elf.relocs[fn.Name]
	for _, in := range fn.Instrs {
		if in.Kind != isa.KindCall || len(in.Targets) > 0 || in.Offset < 0 {
			continue
		}
		callee, ok := rel[in.Offset]
		if !ok {
			continue
		}
		in.Targets = []string{callee}
		for k := range in.Srcs {
			if o := &in.Srcs[k]; o.Kind == isa.OpImm {
				o.Kind, o.Text = isa.OpLabel, callee
				break
			}
		}
	}
	return known
}

// pretCalls makes a call of "PRET L; BRA T" where L is the instruction
// after the branch: PRET pushes L as the return address of the code at T,
// whose RET returns there (Kepler to Pascal). "PRET L; BRX R" is a call
// through a function pointer: an indirect call.
func (p *parser) pretCalls(fn *isa.Func) {
	for i, in := range fn.Instrs {
		if in.Opcode != "PRET" || guarded(in) || i+2 > len(fn.Instrs) {
			continue
		}
		var l string
		for _, o := range in.Srcs {
			if o.Kind == isa.OpLabel {
				l = o.Text
			}
		}
		br := fn.Instrs[i+1]
		if t, ok := fn.Labels[l]; !ok || t != i+2 || guarded(br) {
			continue
		}
		switch {
		case br.Kind == isa.KindBranch && len(br.Targets) == 1:
			if _, ok := fn.Labels[br.Targets[0]]; ok {
				br.Kind = isa.KindCall
			}
		case br.Kind == isa.KindIndirectBranch && (br.Opcode == "BRX" || br.Opcode == "JMX"):
			// "PRET L; BRX R3 -0xa0": a call through a function
			// pointer (nvdisasm notes it INDIRECT_CALL), whatever
			// targets an annotation lists.
			br.Kind, br.Targets = isa.KindIndirectCall, nil
		}
	}
}
