package cfg

import (
	"fmt"
	"go/token"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Inline returns fn with every call to a device function replaced by the
// callee's body (recursively), so that each call context is analysed with
// its own timing state, divergence and loop bounds. The call instruction is
// kept (it is timed as the hardware description routes it); the callee's
// returns become jumps to the instruction after its body, listed in
// noIssue: like ret, they issue nothing. Inlined instructions are copies
// (positions and text kept, so diagnostics and flow facts keyed by line
// still name the callee's lines); callee labels get a prefix
// "<callee>.<n>." unique per inlined copy. Registers keep their names
// (the timing state stays the size of the function's register set); the
// value analysis gives a PTX callee's registers to each copy (a .func's
// registers are its own), SASS callees sharing the caller's, as the
// hardware does. Inlined.Copies says which instructions each copy holds and
// which call it stands for, so that the value analysis can bind the
// callee's parameters to the caller's arguments and tell copies apart.
//
// Inlined lists the synthetic returns (they issue nothing) and the call
// instructions whose callee follows them (timed as the description routes
// the call opcode). A function without calls is returned unchanged. Recursion (from the call
// graph, BuildCallGraph), indirect calls and calls to functions without
// a body are refused with an *InlineError marked Unbounded.
func Inline(file *isa.File, fn *isa.Func) (*isa.Func, *Inlined, error) {
	hasCall := false
	for _, in := range fn.Instrs {
		if in.Kind == isa.KindCall || in.Kind == isa.KindIndirectCall {
			hasCall = true
			break
		}
	}
	if !hasCall {
		return fn, nil, nil
	}
	cg := BuildCallGraph(file)
	byName := map[string]*CallNode{}
	for _, n := range cg.Nodes {
		byName[n.Name] = n
	}
	pos := func(p token.Pos) token.Position {
		if file.Fset == nil || !p.IsValid() {
			return token.Position{}
		}
		return file.Fset.Position(p)
	}
	il := &inliner{file: file, byName: byName, noIssue: map[*isa.Instr]bool{}, returns: map[*isa.Instr]*isa.Instr{}, calls: map[*isa.Instr]bool{}, pos: pos}
	out := &isa.Func{}
	*out = *fn
	out.Instrs = nil
	out.Labels = map[string]int{}
	out.BranchTargets = map[string][]string{}
	for k, v := range fn.BranchTargets {
		out.BranchTargets[k] = v
	}
	out.Trace = nil
	if err := il.body(out, fn, "", 0, -1); err != nil {
		return nil, nil, err
	}
	return out, &Inlined{NoIssue: il.noIssue, Returns: il.returns, Calls: il.calls, Copies: il.copyList}, nil
}

// Inlined describes the instructions Inline made or kept specially.
type Inlined struct {
	NoIssue map[*isa.Instr]bool // returns turned into jumps
	// Returns maps each return turned into a jump to the callee's ret it
	// replaces: the analysis times the jump as that ret (issuing when the
	// description's Pipeline.RetIssues is set, as the engine times a ret
	// on a trace). Nil: every jump in NoIssue issues nothing.
	Returns map[*isa.Instr]*isa.Instr
	Calls   map[*isa.Instr]bool // calls followed by their callee's body

	// Copies lists the inlined bodies in order of their calls.
	Copies []*Copy
}

// Copy is one inlined body of a device function: the instructions
// Instrs[Start:End] of the inlined function (its returns included, its
// nested copies too), standing for the call instruction Call (the kept
// call, an instruction of the inlined function) of the copy Parent (-1:
// the function itself).
type Copy struct {
	Callee     *isa.Func
	Call       *isa.Instr
	Prefix     string // prepended to the callee's labels
	Parent     int
	Start, End int
}

// CopyOf returns the index in Copies of the innermost copy holding
// instruction index i of the inlined function, or -1.
func (in *Inlined) CopyOf(i int) int {
	if in == nil {
		return -1
	}
	best := -1
	for k, c := range in.Copies {
		if i >= c.Start && i < c.End && (best < 0 || c.Start >= in.Copies[best].Start) {
			best = k
		}
	}
	return best
}

type inliner struct {
	file     *isa.File
	byName   map[string]*CallNode
	noIssue  map[*isa.Instr]bool
	returns  map[*isa.Instr]*isa.Instr
	calls    map[*isa.Instr]bool
	copies   int
	pos      func(token.Pos) token.Position
	copyList []*Copy
}

const maxInlineInstrs = 1 << 20

// body appends src's instructions to out with labels prefixed by prefix,
// inlining calls; ret becomes a jump to retLabel when retLabel != "".
func (il *inliner) body(out *isa.Func, src *isa.Func, prefix string, depth, parent int) error {
	if depth > 64 {
		return &InlineError{Pos: il.pos(src.Pos), Unbounded: true, Msg: "device calls nested more than 64 deep"}
	}
	retLabel := ""
	if prefix != "" {
		retLabel = prefix + "ret"
	}
	labelsAt := map[int][]string{}
	for l, i := range src.Labels {
		labelsAt[i] = append(labelsAt[i], l)
	}
	for i, in := range src.Instrs {
		for _, l := range labelsAt[i] {
			out.Labels[prefix+l] = len(out.Instrs)
		}
		if len(out.Instrs) > maxInlineInstrs {
			return &InlineError{Pos: il.pos(in.Pos), Unbounded: true, Msg: "inlined kernel exceeds 2^20 instructions (device calls repeated in nested calls): the analysis does not go further"}
		}
		c := *in
		c.Index = len(out.Instrs)
		if fk := FlowKind(in); prefix != "" && len(in.Targets) > 0 && (fk == isa.KindBranch || fk == isa.KindIndirectBranch) {
			// Branches, and SASS SYNC, BRK and CONT with their targets.
			c.Targets = make([]string, len(in.Targets))
			for k, t := range in.Targets {
				c.Targets[k] = prefix + t
				if list, ok := src.BranchTargets[t]; ok {
					pl := make([]string, len(list))
					for j, x := range list {
						pl[j] = prefix + x
					}
					out.BranchTargets[prefix+t] = pl
				}
			}
		}
		switch {
		case in.Kind == isa.KindReturn && retLabel != "":
			c.Kind, c.Opcode, c.Mods, c.Targets = isa.KindBranch, "bra", nil, []string{retLabel}
			c.Dsts, c.Srcs = nil, nil
			c.Text = in.Text + " (inlined return)"
			out.Instrs = append(out.Instrs, &c)
			il.noIssue[&c] = true
			il.returns[&c] = in
			continue
		case in.Kind == isa.KindIndirectCall:
			return &InlineError{Pos: il.pos(in.Pos), Unbounded: true, Msg: fmt.Sprintf("indirect call %q: indirect calls are not inlined; the static analysis cannot bound it", in.Text)}
		case in.Kind == isa.KindCall:
			if len(in.Targets) == 0 {
				msg := fmt.Sprintf("call %q has no known target", in.Text)
				if il.file.Dialect == isa.DialectSASS {
					// cuobjdump -sass prints a call to another section
					// (nvcc -G, clang -O0 -g: device functions in
					// sections of their own: -rdc=true, -G; vprintf)
					// with the address its relocation fills in: 0x0.
					msg += ": the listing does not name the callee (cuobjdump -sass prints the address a relocation fills in, 0x0); list the cubin with cuobjdump -elf -sass (its relocation tables name the callee) or nvdisasm"
				}
				return &InlineError{Pos: il.pos(in.Pos), Unbounded: true, Msg: msg}
			}
			n := il.byName[in.Targets[0]]
			if n == nil || n.External || n.Func == nil || n.Func.Decl {
				return &InlineError{Pos: il.pos(in.Pos), Unbounded: true, Msg: fmt.Sprintf("call to %s, whose code is not in the input: it cannot be bounded", in.Targets[0])}
			}
			if n.Recursive {
				return &InlineError{Pos: il.pos(in.Pos), Unbounded: true, Msg: fmt.Sprintf("call to %s, which is recursive: recursion cannot be bounded by inlining", n.Name)}
			}
			if in.Guard.Reg != "" {
				return &InlineError{Pos: il.pos(in.Pos), Unbounded: true, Msg: fmt.Sprintf("guarded call %q is not supported by the static analysis", in.Text)}
			}
			out.Instrs = append(out.Instrs, &c)
			il.calls[&c] = true
			il.copies++
			p := fmt.Sprintf("%s.%d.", n.Name, il.copies)
			cp := &Copy{Callee: n.Func, Call: &c, Prefix: p, Parent: parent, Start: len(out.Instrs)}
			il.copyList = append(il.copyList, cp)
			if err := il.body(out, n.Func, p, depth+1, len(il.copyList)-1); err != nil {
				return err
			}
			cp.End = len(out.Instrs)
			out.Labels[p+"ret"] = len(out.Instrs)
			continue
		}
		out.Instrs = append(out.Instrs, &c)
	}
	for _, l := range labelsAt[len(src.Instrs)] {
		out.Labels[prefix+l] = len(out.Instrs)
	}
	return nil
}

// An InlineError is a call Inline cannot inline. Unbounded marks a call
// whose cost the static analysis cannot bound (indirect, external,
// recursive or guarded calls, nesting beyond 64, more than 2^20 inlined
// instructions): the kernel is valid, but not bounded.
type InlineError struct {
	Pos       token.Position
	Msg       string
	Unbounded bool
}

func (e *InlineError) Error() string {
	if e.Pos.IsValid() {
		return e.Pos.String() + ": " + e.Msg
	}
	return e.Msg
}
