package sass

import (
	"fmt"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// dump prints a parsed file in a stable text form for golden tests.
func dump(f *isa.File) string {
	var b strings.Builder
	fmt.Fprintf(&b, "dialect=%s target=%s version=%s addr=%d\n", f.Dialect, f.Target, f.Version, f.AddressSize)
	for _, fn := range f.Funcs {
		fmt.Fprintf(&b, "func %s entry=%v instrs=%d\n", fn.Name, fn.Entry, len(fn.Instrs))
		labels := map[int][]string{}
		for _, l := range sortedLabels(fn) {
			labels[fn.Labels[l]] = append(labels[fn.Labels[l]], l)
		}
		for _, in := range fn.Instrs {
			for _, l := range labels[in.Index] {
				fmt.Fprintf(&b, "%s:\n", l)
			}
			off := "----"
			if in.Offset >= 0 {
				off = fmt.Sprintf("%04x", in.Offset)
			}
			fmt.Fprintf(&b, "  %s %s\n", off, in.Text)
			var attrs []string
			attrs = append(attrs, "op="+in.Opcode)
			if len(in.Mods) > 0 {
				attrs = append(attrs, "mods="+strings.Join(in.Mods, ","))
			}
			if in.Guard.Reg != "" {
				attrs = append(attrs, "guard="+in.Guard.String())
			}
			attrs = append(attrs, "kind="+in.Kind.String())
			if in.Space != isa.SpaceNone {
				attrs = append(attrs, "space="+in.Space.String())
			}
			if in.Barrier != isa.BarNone {
				attrs = append(attrs, "bar="+in.Barrier.String())
			}
			if len(in.Targets) > 0 {
				attrs = append(attrs, "targets="+strings.Join(in.Targets, ","))
			}
			if d := in.Defs(); len(d) > 0 {
				attrs = append(attrs, "defs="+strings.Join(d, ","))
			}
			if u := in.Uses(); len(u) > 0 {
				attrs = append(attrs, "uses="+strings.Join(u, ","))
			}
			var ok []string
			for _, o := range in.Srcs {
				ok = append(ok, o.Kind.String())
			}
			if len(ok) > 0 {
				attrs = append(attrs, "srcs="+strings.Join(ok, ","))
			}
			if in.Generic {
				attrs = append(attrs, "generic")
			}
			if in.Ctrl != nil {
				attrs = append(attrs, "ctrl="+FormatCtrl(in.Ctrl))
			}
			fmt.Fprintf(&b, "       %s\n", strings.Join(attrs, " "))
		}
		for _, l := range labels[len(fn.Instrs)] {
			fmt.Fprintf(&b, "%s: (end)\n", l)
		}
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}
