package ptx

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Fprint writes a stable text dump of a parsed file: the header, then per
// function its header, labels, target lists and one line per instruction:
//
//	index line:col [guard] opcode [mods] kind[/space][/barrier] [uni] [generic] d=... s=... [-> targets] [@ loc]
//	      "text"
//
// Operands print as kind:text, followed by (regs) when the registers differ
// from the text. The format is meant for golden tests and debugging.
func Fprint(w io.Writer, f *isa.File) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "file %s version=%s target=%s", f.Dialect, f.Version, f.Target)
	if len(f.TargetOpts) > 0 {
		fmt.Fprintf(bw, " opts=%s", strings.Join(f.TargetOpts, ","))
	}
	fmt.Fprintf(bw, " address_size=%d\n", f.AddressSize)
	for _, fn := range f.Funcs {
		printFunc(bw, f, fn)
	}
	return bw.Flush()
}

func printFunc(w *bufio.Writer, f *isa.File, fn *isa.Func) {
	kind := "func"
	if fn.Entry {
		kind = "entry"
	}
	fmt.Fprintf(w, "\n%s %s", kind, fn.Name)
	if fn.Linkage != "" {
		fmt.Fprintf(w, " linkage=%s", fn.Linkage)
	}
	if fn.Decl {
		w.WriteString(" decl")
	}
	p, e := f.Fset.Position(fn.Pos), f.Fset.Position(fn.End)
	fmt.Fprintf(w, " at=%d:%d end=%d:%d\n", p.Line, p.Column, e.Line, e.Column)
	printParams := func(what string, ps []isa.Param) {
		for _, prm := range ps {
			fmt.Fprintf(w, "  %s %s %s size=%d", what, prm.Name, prm.Type, prm.Size)
			if prm.Array > 0 {
				fmt.Fprintf(w, " array=%d", prm.Array)
			}
			w.WriteByte('\n')
		}
	}
	printParams("ret", fn.RetParams)
	printParams("param", fn.Params)
	if fn.MaxNTid != [3]int{} {
		fmt.Fprintf(w, "  maxntid %d,%d,%d\n", fn.MaxNTid[0], fn.MaxNTid[1], fn.MaxNTid[2])
	}
	if fn.ReqNTid != [3]int{} {
		fmt.Fprintf(w, "  reqntid %d,%d,%d\n", fn.ReqNTid[0], fn.ReqNTid[1], fn.ReqNTid[2])
	}
	if fn.MinNCTAPerSM != 0 {
		fmt.Fprintf(w, "  minnctapersm %d\n", fn.MinNCTAPerSM)
	}
	if fn.MaxNReg != 0 {
		fmt.Fprintf(w, "  maxnreg %d\n", fn.MaxNReg)
	}
	names := make([]string, 0, len(fn.BranchTargets))
	for n := range fn.BranchTargets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  targets %s = %s\n", n, strings.Join(fn.BranchTargets[n], ", "))
	}
	byIndex := make(map[int][]string)
	for l, i := range fn.Labels {
		byIndex[i] = append(byIndex[i], l)
	}
	printLabels := func(i int) {
		ls := byIndex[i]
		sort.Strings(ls)
		for _, l := range ls {
			fmt.Fprintf(w, "  %s:\n", l)
		}
	}
	for i, in := range fn.Instrs {
		printLabels(i)
		printInstr(w, f, in)
	}
	printLabels(len(fn.Instrs))
}

func printInstr(w *bufio.Writer, f *isa.File, in *isa.Instr) {
	p := f.Fset.Position(in.Pos)
	fmt.Fprintf(w, "  %d %d:%d", in.Index, p.Line, p.Column)
	if in.Guard.Reg != "" {
		fmt.Fprintf(w, " %s", in.Guard)
	}
	fmt.Fprintf(w, " %s", in.Opcode)
	if len(in.Mods) > 0 {
		fmt.Fprintf(w, " [%s]", strings.Join(in.Mods, " "))
	}
	fmt.Fprintf(w, " %s", in.Kind)
	if in.Space != isa.SpaceNone {
		fmt.Fprintf(w, "/%s", in.Space)
	}
	if in.Barrier != isa.BarNone {
		fmt.Fprintf(w, "/%s", in.Barrier)
	}
	if in.Uni {
		w.WriteString(" uni")
	}
	if in.Generic {
		w.WriteString(" generic")
	}
	printOps := func(label string, ops []isa.Operand) {
		if len(ops) == 0 {
			return
		}
		fmt.Fprintf(w, " %s=", label)
		for i, o := range ops {
			if i > 0 {
				w.WriteByte(' ')
			}
			fmt.Fprintf(w, "%s:%s", o.Kind, o.Text)
			if o.Neg {
				w.WriteString("(neg)")
			}
			if !(len(o.Regs) == 1 && o.Regs[0] == o.Text) && len(o.Regs) > 0 {
				fmt.Fprintf(w, "(%s)", strings.Join(o.Regs, ","))
			}
		}
	}
	printOps("d", in.Dsts)
	printOps("s", in.Srcs)
	if len(in.Targets) > 0 {
		fmt.Fprintf(w, " -> %s", strings.Join(in.Targets, ","))
	}
	if in.Loc != nil {
		fmt.Fprintf(w, " @ %s", in.Loc)
	}
	fmt.Fprintf(w, "\n      %q\n", in.Text)
}
