package loops

import (
	"fmt"
	"go/token"
	"io"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/release"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// WriteTemplate writes a facts file for the listing named name with the
// given SHA-256 and the graphs of its kernels: `max = "?"` for every loop
// without derived bound, and, commented out for review, the derived bounds
// of the others. Irreducible regions and unresolved indirect branches are
// listed as comments: no fact can bound them.
func WriteTemplate(w io.Writer, name, sha string, graphs []*cfg.Graph) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# gpuwcet facts v%d for %s, written by gpuwcet facts template.\n", FactsVersion, name)
	b.WriteString("# Replace every \"?\" by the maximum number of executions of the loop header\n")
	b.WriteString("# per entry into the loop (an integer, or an expression over ntid.x, nctaid.x,\n")
	b.WriteString("# ... and the kernel parameters; see docs/facts.md), and say why.\n")
	fmt.Fprintf(&b, "version = %d\n", FactsVersion)
	fmt.Fprintf(&b, "listing = %s\n", strconv.Quote(name))
	fmt.Fprintf(&b, "sha256 = %q\n", sha)
	for _, g := range graphs {
		if !g.Func.Entry {
			continue
		}
		fmt.Fprintf(&b, "\n[[kernel]]\nname = %s\n", strconv.Quote(g.Func.Name))
		if len(g.Loops) == 0 {
			b.WriteString("# no loop\n")
		}
		for _, in := range g.Unresolved {
			fmt.Fprintf(&b, "# %s: indirect branch without known targets: not analysable\n", pos(g, in.Pos))
		}
		for _, r := range g.Irreducible {
			fmt.Fprintf(&b, "# %s: irreducible loop (%d blocks): not analysable\n", pos(g, r.Entries[0].Pos()), len(r.Blocks))
		}
		vf, err := values.Build(g, values.Options{})
		if err != nil {
			return err
		}
		ds := Derive(vf)
		for i, l := range g.Loops {
			d := ds[i]
			k := keyOf(g, l)
			p := pos(g, l.Header.Pos())
			prefix := ""
			b.WriteString("\n")
			rp, _ := release.OfValues(vf, l)
			if d.Expr == nil && rp != nil {
				fmt.Fprintf(&b, "# %s: loop %s, depth %d: release point, for review: %s\n", p, l.Header, l.Depth, oneLine(rp.String()))
				prefix = "# "
			} else if d.Expr != nil {
				fmt.Fprintf(&b, "# %s: loop %s, depth %d: derived, for review: %s\n", p, l.Header, l.Depth, oneLine(d.Why))
				prefix = "# "
			} else {
				fmt.Fprintf(&b, "# %s: loop %s, depth %d: not bounded: %s\n", p, l.Header, l.Depth, oneLine(d.Why))
			}
			fmt.Fprintf(&b, "%s[[kernel.loop]]\n", prefix)
			switch {
			case k.Label != "":
				fmt.Fprintf(&b, "%slabel = %s\n", prefix, strconv.Quote(k.Label))
			case k.Offset >= 0:
				fmt.Fprintf(&b, "%soffset = %#x\n", prefix, k.Offset)
			default:
				fmt.Fprintf(&b, "%sline = %d\n", prefix, k.Line)
			}
			if d.Expr != nil {
				if v, ok := d.Expr.IsConst(); ok {
					fmt.Fprintf(&b, "%smax = %d\n", prefix, v)
				} else {
					fmt.Fprintf(&b, "%smax = %s\n", prefix, strconv.Quote(d.Expr.String()))
				}
				fmt.Fprintf(&b, "%swhy = \"derived\"\n", prefix)
			} else if rp != nil {
				fmt.Fprintf(&b, "%smax = %d\n%swhy = \"release point: bounded from its trigger\"\n", prefix, release.HeaderBound, prefix)
			} else {
				b.WriteString("max = \"?\"\nwhy = \"\"\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func pos(g *cfg.Graph, p token.Pos) string {
	if g.Fset == nil || !p.IsValid() {
		return "?"
	}
	return g.Fset.Position(p).String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
