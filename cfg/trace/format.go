package trace

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Format writes a stable text form of a File read by ParseFile: per kernel,
// the distinct instructions, then each warp's path (one line per issued
// instruction: trace position, index of the static instruction, opcode),
// then the warnings. File names are written as base names.
func Format(w io.Writer, f *isa.File) error {
	pos := func(p isa.Instr) string {
		ps := f.Fset.Position(p.Pos)
		return fmt.Sprintf("%s:%d:%d", filepath.Base(ps.Filename), ps.Line, ps.Column)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "file %s dialect=%s", filepath.Base(f.Name), f.Dialect)
	if f.Target != "" {
		fmt.Fprintf(&b, " version=%s target=%s", f.Version, f.Target)
	}
	b.WriteByte('\n')
	for _, fn := range f.Funcs {
		fmt.Fprintf(&b, "kernel %s entry=%v params=%d\n", fn.Name, fn.Entry, len(fn.Params))
		if fn.Trace != nil {
			t := fn.Trace
			if t.HasObserved {
				fmt.Fprintf(&b, "  observed %d cycles\n", t.ObservedCycles)
			} else {
				fmt.Fprintf(&b, "  observed: none\n")
			}
			fmt.Fprintf(&b, "  deduplicated %d\n", t.Deduplicated)
		}
		for _, in := range fn.Instrs {
			fmt.Fprintf(&b, "  #%d %s %s", in.Index, pos(*in), describe(in))
			if ls := fn.LabelAt(in.Index); len(ls) > 0 {
				fmt.Fprintf(&b, " labels=%s", strings.Join(ls, ","))
			}
			b.WriteByte('\n')
		}
		if fn.Trace != nil {
			for _, wp := range fn.Trace.Warps {
				fmt.Fprintf(&b, "  warp %d: %d instructions\n", wp.Warp, len(wp.Instrs))
				for _, in := range wp.Instrs {
					fmt.Fprintf(&b, "    %s #%d %s%s\n", pos(*in), in.Index, guardPrefix(in), in.Op())
				}
			}
		}
	}
	for _, e := range f.Warnings {
		e := *e
		e.Pos.Filename = filepath.Base(e.Pos.Filename)
		fmt.Fprintf(&b, "warning: %s\n", e.Error())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func guardPrefix(in *isa.Instr) string {
	if in.Guard.Reg == "" {
		return ""
	}
	return in.Guard.String() + " "
}

// describe writes an instruction's parsed fields.
func describe(in *isa.Instr) string {
	var b strings.Builder
	b.WriteString(guardPrefix(in))
	b.WriteString(in.Op())
	fmt.Fprintf(&b, " kind=%s", in.Kind)
	if in.Space != isa.SpaceNone {
		fmt.Fprintf(&b, " space=%s", in.Space)
	}
	if in.Barrier != isa.BarNone {
		fmt.Fprintf(&b, " bar=%s", in.Barrier)
	}
	if in.Uni {
		b.WriteString(" uni")
	}
	ops := func(name string, os []isa.Operand) {
		if len(os) == 0 {
			return
		}
		var xs []string
		for _, o := range os {
			s := o.Kind.String() + ":" + o.Text
			xs = append(xs, s)
		}
		fmt.Fprintf(&b, " %s=[%s]", name, strings.Join(xs, " "))
	}
	ops("dsts", in.Dsts)
	ops("srcs", in.Srcs)
	if len(in.Targets) > 0 {
		fmt.Fprintf(&b, " targets=%s", strings.Join(in.Targets, ","))
	}
	return b.String()
}
