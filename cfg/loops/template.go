package loops

import (
	"fmt"
	"go/token"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/release"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// WriteTemplate writes a facts file for file (named name in the file, with
// the given SHA-256): per kernel, `max = "?"` for every loop of its own
// without derived bound and, commented out for review, the derived bounds
// of the others; then per device function with loops, each loop once, under
// the device function's name and with its own key, one comment per call
// (the kernel, the call's position, the derived bound there or why none):
// `max = "?"` when a call leaves it unbounded. Irreducible regions and
// unresolved indirect branches are listed as comments: no fact can bound
// them. The loops are those analyze bounds: each kernel with its calls
// inlined (the values pass), derived by the same rules, without a launch.
func WriteTemplate(w io.Writer, name, sha string, file *isa.File) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# gpuwcet facts v%d for %s, written by gpuwcet facts template.\n", FactsVersion, name)
	b.WriteString("# Replace every \"?\" by the maximum number of executions of the loop header\n")
	b.WriteString("# per entry into the loop (an integer, or an expression over ntid.x, nctaid.x,\n")
	b.WriteString("# ... and the kernel parameters; see docs/facts.md), and say why.\n")
	fmt.Fprintf(&b, "version = %d\n", FactsVersion)
	fmt.Fprintf(&b, "listing = %s\n", strconv.Quote(name))
	fmt.Fprintf(&b, "sha256 = %q\n", sha)
	res, err := pass.Run([]*pass.Analyzer{values.Analyzer}, file, pass.Options{})
	if err != nil {
		return err
	}
	// The loops of device functions, by function and key, with their calls.
	type context struct {
		kernel string
		calls  string
		note   string
		open   bool
	}
	type devLoop struct {
		key   LoopKey
		pos   string
		depth int
		ctx   []context
	}
	dev := map[string]map[LoopKey]*devLoop{}
	for _, fn := range res.Funcs {
		if !fn.Entry {
			continue
		}
		fmt.Fprintf(&b, "\n[[kernel]]\nname = %s\n", strconv.Quote(fn.Name))
		act := res.Get(values.Analyzer, fn)
		if act == nil || act.Err != nil {
			why := "not analysed"
			if act != nil {
				why = oneLine(act.Err.Error())
			}
			fmt.Fprintf(&b, "# not analysable: %s\n", why)
			continue
		}
		vf := act.Result.(*values.Func)
		g := vf.Graph
		own := 0
		for _, in := range g.Unresolved {
			fmt.Fprintf(&b, "# %s: indirect branch without known targets: not analysable\n", pos(g, in.Pos))
		}
		for _, r := range g.Irreducible {
			fmt.Fprintf(&b, "# %s: irreducible loop (%d blocks): not analysable\n", pos(g, r.Entries[0].Pos()), len(r.Blocks))
		}
		ds := Derive(vf)
		for i, l := range g.Loops {
			d := ds[i]
			k := keyOf(g, l)
			p := pos(g, l.Header.Pos())
			rp, _ := release.OfValues(vf, l)
			if callee, ck, calls := calleeOf(vf.Inlined, l, k); callee != nil {
				m := dev[callee.Name]
				if m == nil {
					m = map[LoopKey]*devLoop{}
					dev[callee.Name] = m
				}
				dl := m[ck]
				if dl == nil {
					dl = &devLoop{key: ck, pos: p, depth: l.Depth}
					m[ck] = dl
				}
				var at []string
				for _, c := range calls {
					at = append(at, pos(g, c.Pos))
				}
				c := context{kernel: fn.Name, calls: strings.Join(at, ", then ")}
				switch {
				case d.Expr != nil && d.Unfollowed() != "":
					c.note, c.open = "derived "+d.Expr.String()+", over data: "+oneLine(d.Unfollowed())+"; its range alone gives no bound", true
				case d.Expr != nil:
					c.note = "derived " + d.Expr.String()
				case rp != nil:
					c.note = "release point"
				default:
					c.note, c.open = "not bounded: "+oneLine(d.Why), true
				}
				dl.ctx = append(dl.ctx, c)
				continue
			}
			own++
			prefix := ""
			b.WriteString("\n")
			if uf := d.Unfollowed(); uf != "" {
				// A bound over data the analysis does not follow, whose
				// range alone bounds nothing, holds at a launch only where
				// the launch values happen to bound it (analyze reports
				// "no bound holds at this launch" otherwise): open, like a
				// loop without derived bound.
				fmt.Fprintf(&b, "# %s: loop %s, depth %d: derived %s, over data: %s; its range alone gives no bound\n", p, l.Header, l.Depth, oneLine(d.Expr.String()), oneLine(uf))
				fmt.Fprintf(&b, "[[kernel.loop]]\n")
				writeKey(&b, "", k)
				b.WriteString("max = \"?\"\nwhy = \"\"\n")
				continue
			}
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
			writeKey(&b, prefix, k)
			switch {
			case d.Expr != nil:
				if v, ok := d.Expr.IsConst(); ok {
					fmt.Fprintf(&b, "%smax = %d\n", prefix, v)
				} else {
					fmt.Fprintf(&b, "%smax = %s\n", prefix, strconv.Quote(d.Expr.String()))
				}
				fmt.Fprintf(&b, "%swhy = \"derived\"\n", prefix)
			case rp != nil:
				fmt.Fprintf(&b, "%smax = %d\n%swhy = \"release point: bounded from its trigger\"\n", prefix, release.HeaderBound, prefix)
			default:
				b.WriteString("max = \"?\"\nwhy = \"\"\n")
			}
		}
		switch {
		case len(g.Loops) == 0:
			b.WriteString("# no loop\n")
		case own == 0:
			b.WriteString("# no loop of its own (its calls' loops are under their device functions below)\n")
		}
	}
	// Device functions, in the order of the listing.
	for _, fn := range file.Funcs {
		m := dev[fn.Name]
		if fn.Decl || fn.Entry || len(m) == 0 {
			continue
		}
		name := fn.Name
		fmt.Fprintf(&b, "\n# Device function %s: each loop once, by its key in %s; a fact here\n# bounds it in every call (a kernel's entry can bound one call by the\n# loop's label in that kernel, the device function's label with its call's prefix).\n", name, name)
		fmt.Fprintf(&b, "[[kernel]]\nname = %s\n", strconv.Quote(name))
		var ls []*devLoop
		for _, dl := range m {
			ls = append(ls, dl)
		}
		sort.Slice(ls, func(i, j int) bool {
			if ls[i].key.Line != ls[j].key.Line {
				return ls[i].key.Line < ls[j].key.Line
			}
			return ls[i].key.String() < ls[j].key.String()
		})
		for _, dl := range ls {
			open := false
			for _, c := range dl.ctx {
				open = open || c.open
			}
			prefix := "# "
			state := "bounded in every call, for review"
			if open {
				prefix, state = "", "not bounded in some call"
			}
			fmt.Fprintf(&b, "\n# %s: loop %s, depth %d: %s:\n", dl.pos, dl.key, dl.depth, state)
			for _, c := range dl.ctx {
				fmt.Fprintf(&b, "#   called from %s at %s: %s\n", c.kernel, c.calls, c.note)
			}
			fmt.Fprintf(&b, "%s[[kernel.loop]]\n", prefix)
			writeKey(&b, prefix, dl.key)
			fmt.Fprintf(&b, "%smax = \"?\"\n%swhy = \"\"\n", prefix, prefix)
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

func writeKey(b *strings.Builder, prefix string, k LoopKey) {
	switch {
	case k.Label != "":
		fmt.Fprintf(b, "%slabel = %s\n", prefix, strconv.Quote(k.Label))
	case k.Offset >= 0:
		fmt.Fprintf(b, "%soffset = %#x\n", prefix, k.Offset)
	default:
		fmt.Fprintf(b, "%sline = %d\n", prefix, k.Line)
	}
}

// calleeOf returns the device function whose inlined copy holds the header
// of l (the innermost), the loop's key in that function (key, the loop's
// key in the inlined function, without the copy's label prefix), and the
// calls the copy stands for, outermost first; nil when l is the
// function's own.
func calleeOf(inl *cfg.Inlined, l *cfg.Loop, key LoopKey) (*isa.Func, LoopKey, []*isa.Instr) {
	if inl == nil || len(l.Header.Instrs) == 0 {
		return nil, key, nil
	}
	ci := inl.CopyOf(l.Header.Instrs[0].Index)
	if ci < 0 {
		return nil, key, nil
	}
	c := inl.Copies[ci]
	ck := key
	ck.Label = strings.TrimPrefix(key.Label, c.Prefix)
	var calls []*isa.Instr
	for k := ci; k >= 0; k = inl.Copies[k].Parent {
		calls = append([]*isa.Instr{inl.Copies[k].Call}, calls...)
	}
	return c.Callee, ck, calls
}

func pos(g *cfg.Graph, p token.Pos) string {
	if g.Fset == nil || !p.IsValid() {
		return "?"
	}
	return g.Fset.Position(p).String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
