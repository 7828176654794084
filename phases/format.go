package phases

import (
	"fmt"
	"go/token"
	"io"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

func posString(fset *token.FileSet, in *isa.Instr) string {
	p := position(fset, in.Pos)
	if !p.IsValid() {
		return ""
	}
	return p.String()
}

// Plural formats a count with its noun: "1 warp", "2 warps".
func Plural(n int, s string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, s)
	}
	return fmt.Sprintf("%d %ss", n, s)
}

// WarpList prints warp numbers compactly: "0-3,7".
func WarpList(ws []int) string {
	var b strings.Builder
	for i := 0; i < len(ws); {
		j := i
		for j+1 < len(ws) && ws[j+1] == ws[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ws[i], ws[j])
		} else {
			fmt.Fprintf(&b, "%d", ws[i])
		}
		i = j + 1
	}
	return b.String()
}

// WriteText writes the profile in the stable text form of `gpuwcet phases`.
// With a file set and a profile built with Explain, every section lists its
// instructions with their issue, start and ready cycles.
func WriteText(w io.Writer, p *Profile, fset *token.FileSet) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s: %s, %s, %s, path from %s\n", p.Func, p.HW.Name, Plural(p.NumWarps, "warp"), Plural(len(p.Classes), "distinct path"), Plural(p.NumSections, "section"), p.Source)
	for _, c := range p.Classes {
		fmt.Fprintf(&b, "warps %s (x%d): %s, duration %d, exec %d\n", WarpList(c.Warps), len(c.Warps), Plural(c.Instrs, "instruction"), c.Duration, c.Exec)
		for _, s := range c.Sections {
			fmt.Fprintf(&b, "  section %d: duration %d, exec %d, issued %d", s.Index, s.Duration, s.Exec, s.Issued)
			if s.Barrier != nil {
				fmt.Fprintf(&b, ", ends at %q", s.Barrier.Text)
				if ps := posString(fset, s.Barrier); ps != "" {
					fmt.Fprintf(&b, " (%s)", ps)
				}
			}
			b.WriteByte('\n')
			for _, ph := range s.Phases {
				fmt.Fprintf(&b, "    %-4s [%d,%d) %d\n", ph.Kind, ph.Start, ph.End(), ph.Dur)
			}
			for _, t := range s.Timings {
				unit := unitName(p, t.Unit)
				if unit == "" {
					unit = "-"
				}
				if t.Unit == NoUnit {
					fmt.Fprintf(&b, "    #%-4d issue    -  start    -  ready    -  %-6s %s", t.Index, unit, t.Instr.Text)
				} else {
					fmt.Fprintf(&b, "    #%-4d issue %4d  start %4d  ready %4d  %-6s %s", t.Index, t.Issue, t.Start, t.Ready, unit, t.Instr.Text)
				}
				if ps := posString(fset, t.Instr); ps != "" {
					fmt.Fprintf(&b, "  (%s)", ps)
				}
				b.WriteByte('\n')
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
