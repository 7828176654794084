package divergence

import (
	"bufio"
	"fmt"
	"go/token"
	"io"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
)

// Format writes the stable text form of info: the divergence section,
// then, per class, its warp-level CFG in cfg.Format's form.
//
//	divergence FUNC branches N divergent N classes N
//	branch bI line L: TEXT: uniform|divergent[ .uni]: REASON
//		reconverge bR (line L) from ipdom|ssy|exit[; leaves loops [..][ serial]]
//		OUTCOME per class: c0 OUTCOME, c1 OUTCOME
//	class K: NAME (threads N) blocks N edges N (thread-level N) divergent-loops [..]
//	warp-level cfg of class K: NAME
//	<cfg.Format of the warp-level CFG>
func Format(w io.Writer, info *Info) error {
	bw := bufio.NewWriter(w)
	if err := FormatSection(bw, info); err != nil {
		return err
	}
	for _, c := range info.Classes {
		fmt.Fprintf(bw, "warp-level cfg of class %d: %s\n", c.Index, c.Name)
		if err := bw.Flush(); err != nil {
			return err
		}
		if err := cfg.Format(bw, c.Graph); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// FormatSection writes the divergence section (branches and classes,
// without the warp-level graphs).
func FormatSection(w io.Writer, info *Info) error {
	g := info.Graph
	ndiv := 0
	for _, br := range info.Branches {
		if br.Divergent {
			ndiv++
		}
	}
	fmt.Fprintf(w, "divergence %s branches %d divergent %d classes %d\n", g.Func.Name, len(info.Branches), ndiv, len(info.Classes))
	for _, br := range info.Branches {
		kind := "uniform"
		if br.Divergent {
			kind = "possibly divergent"
		}
		if br.Uni {
			kind += " (.uni asserted)"
		}
		fmt.Fprintf(w, "branch %s line %s: %s: %s: %s\n", br.Block, lineOf(g, br.Instr.Pos), br.Instr.Text, kind, br.Reason)
		rl := ""
		if br.Reconv != g.Exit {
			rl = " (line " + lineOf(g, br.Reconv.Pos()) + ")"
		}
		fmt.Fprintf(w, "\treconverge %s%s from %s", br.Reconv, rl, br.ReconvFrom)
		if br.Exit {
			fmt.Fprintf(w, "; guarded exit")
		}
		if br.Divergent && len(br.Loops) > 0 {
			var ls []string
			for _, l := range br.Loops {
				ls = append(ls, fmt.Sprintf("%d", l.Index))
			}
			fmt.Fprintf(w, "; leaves loops [%s]", strings.Join(ls, " "))
			if br.Serial {
				fmt.Fprintf(w, " serial")
			}
		}
		fmt.Fprintln(w)
		var outs []string
		for k, o := range br.Outcomes {
			outs = append(outs, fmt.Sprintf("c%d %s", k, o))
		}
		fmt.Fprintf(w, "\toutcomes %s\n", strings.Join(outs, ", "))
	}
	for _, c := range info.Classes {
		FormatClassHeader(w, info, c)
	}
	return nil
}

// FormatClassHeader writes the one-line summary of a class.
func FormatClassHeader(w io.Writer, info *Info, c *Class) {
	threads := 0
	for _, n := range c.Lanes {
		threads += n
	}
	edges := 0
	for _, b := range c.Graph.Blocks {
		edges += len(b.Succs)
	}
	var ls []string
	for _, l := range c.DivergentLoops {
		s := fmt.Sprintf("%d", l.Index)
		if c.SerialLoops[l] {
			s += "(serial)"
		}
		ls = append(ls, s)
	}
	th := "unknown"
	if c.Lanes != nil {
		th = fmt.Sprint(threads)
	}
	fmt.Fprintf(w, "class %d: %s (threads %s) blocks %d edges %d (thread-level %d) divergent-loops [%s]\n",
		c.Index, c.Name, th, len(c.Graph.Blocks), edges, len(info.Graph.Blocks), strings.Join(ls, " "))
}

func lineOf(g *cfg.Graph, pos token.Pos) string {
	if g.Fset == nil || !pos.IsValid() {
		return "-"
	}
	return fmt.Sprint(g.Fset.Position(pos).Line)
}
