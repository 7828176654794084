package static

import (
	"fmt"
	"go/token"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// JSONKernel is the JSON form of one kernel's report (gpuwcet analyze).
type JSONKernel struct {
	Name        string        `json:"name"`
	BoundCycles int64         `json:"bound_cycles"`
	BoundNS     *int64        `json:"bound_ns,omitempty"`
	Warps       int           `json:"warps"`
	Inlined     bool          `json:"inlined_calls"`
	Classes     []JSONClass   `json:"classes"`
	Sections    []JSONSection `json:"sections"`
	// SectionCountsExact: Σ count_on_worst_path × bound_cycles over the
	// sections equals bound_cycles.
	SectionCountsExact bool         `json:"section_counts_exact"`
	Loops              []JSONLoop   `json:"loops"`
	Divergent          []JSONBranch `json:"divergent_branches"`
	Warnings           []string     `json:"warnings"`
	Deadline           *int64       `json:"deadline_cycles,omitempty"`
	Verdict            string       `json:"verdict,omitempty"`
	// DefaultUnit lists the opcodes timed on the description's default
	// unit (no rule routes them); absent when there are none.
	DefaultUnit []JSONDefaultUse `json:"default_unit,omitempty"`
}

// JSONDefaultUse is an opcode timed on the description's default unit.
type JSONDefaultUse struct {
	Opcode string `json:"opcode"`
	Count  int    `json:"instructions"`
	Unit   string `json:"unit"`
	Pos    string `json:"pos"` // its first instruction
}

// JSONClass is a warp class.
type JSONClass struct {
	Name  string `json:"name"`
	Warps []int  `json:"warps"`
}

// JSONSection is one section of the section graph (a segment between two
// consecutive barriers).
type JSONSection struct {
	From        string `json:"from"` // "entry" or the barrier's position
	To          string `json:"to"`   // "end" or the barrier's position
	BoundCycles int64  `json:"bound_cycles"`
	// Count is the number of times the worst barrier path crosses the
	// section (-1: unknown); see JSONKernel.SectionCountsExact.
	Count   int64          `json:"count_on_worst_path"`
	Classes []JSONSegClass `json:"classes"`
}

// JSONSegClass is one class's terms over a section.
type JSONSegClass struct {
	Warps    []int `json:"warps"`
	Duration int64 `json:"duration"`
	// Load is L, the largest InitSum + Issued of one warp over the paths.
	Load int64 `json:"load"`
	// Interference is I, what the other warps are charged to one warp of
	// the class (WUB − duration): the smaller of the per-resource charge
	// (broken down in ByResource) and the whole-path charge Σ other L.
	Interference int64                 `json:"interference"`
	PerResource  int64                 `json:"interference_per_resource"`
	WholePath    int64                 `json:"interference_whole_path"`
	ByResource   []bound.JSONResCharge `json:"interference_by_resource"`
	WUB          int64                 `json:"wub"`
	Blocks       []JSONBlock           `json:"blocks"`
}

// JSONBlock is one row of the per-block contribution table
// (wcet-conventions.md §3; BlockUse): a block range of the class's graph
// on the worst path for L.
type JSONBlock struct {
	Block       string   `json:"block"`        // block of the class's (warp-level) graph
	ThreadBlock string   `json:"thread_block"` // the thread-level block it copies
	Labels      []string `json:"labels"`       // of the thread-level block
	Lines       string   `json:"lines"`        // file:first-last line of the range
	Instrs      [2]int   `json:"instrs"`       // range [lo, hi) of the block's instructions
	Size        int      `json:"size"`         // instructions in the block
	Count       int64    `json:"count"`        // executions on the worst path for L
	Issued      int      `json:"issued"`       // per execution
	InitSum     int64    `json:"init_sum"`     // per execution
	I           int64    `json:"i"`            // count × (init_sum + issued): share of the class's load L
	Share       float64  `json:"i_share"`      // i / L (0 when L is 0), 4 decimals
	Delay       int64    `json:"d_delay"`      // largest End increase across one execution (informative)
}

// JSONLoop is a loop bound used, with its provenance.
type JSONLoop struct {
	Pos    string `json:"pos"`
	Key    string `json:"key"`
	Max    int64  `json:"max"`
	Source string `json:"source"`
	Expr   string `json:"expr"`
	From   string `json:"from"` // where the bound comes from: the header (derived) or the fact
	Why    string `json:"why,omitempty"`
	Serial int64  `json:"serial_lanes,omitempty"` // multiplied by this many lane groups
}

// JSONBranch is a divergent branch.
type JSONBranch struct {
	Pos    string `json:"pos"`
	Instr  string `json:"instr"`
	Reason string `json:"reason"`
}

func posStr(fset *token.FileSet, p token.Pos) string {
	if q := position(fset, p); q.IsValid() {
		return q.String()
	}
	return "?"
}

func endpoint(fset *token.FileSet, in *isa.Instr, none string) string {
	if in == nil {
		return none
	}
	return posStr(fset, in.Pos)
}

// NewJSON returns the JSON form of a report.
func NewJSON(r *Report, fset *token.FileSet) *JSONKernel {
	j := &JSONKernel{Name: r.Func, BoundCycles: int64(r.Bound), Warps: r.NumWarps, Inlined: r.Inlined,
		SectionCountsExact: r.CountsExact, Classes: []JSONClass{}, Sections: []JSONSection{}, Loops: []JSONLoop{}, Divergent: []JSONBranch{}, Warnings: r.Warnings()}
	if ns, ok := bound.Nanoseconds(r.Bound, r.HW); ok {
		j.BoundNS = &ns
	}
	for _, c := range r.Info.Classes {
		j.Classes = append(j.Classes, JSONClass{Name: c.Name, Warps: c.Warps})
	}
	for _, u := range r.DefaultUnit {
		j.DefaultUnit = append(j.DefaultUnit, JSONDefaultUse{Opcode: u.Op, Count: u.Count, Unit: r.HW.DefaultUnit, Pos: position(fset, u.Pos).String()})
	}
	for _, s := range r.Segments {
		js := JSONSection{From: endpoint(fset, s.From, "entry"), To: endpoint(fset, s.To, "end"), BoundCycles: int64(s.Bound), Count: s.Count}
		for _, c := range s.Classes {
			jc := JSONSegClass{Warps: c.Warps, Duration: int64(c.Duration), Load: int64(c.Load), Interference: int64(c.Interference),
				PerResource: int64(c.PerResource), WholePath: int64(c.WholePath), ByResource: bound.NewJSONCharge(c.Charge, r.HW),
				WUB: int64(c.WUB), Blocks: []JSONBlock{}}
			for _, u := range c.Blocks {
				jc.Blocks = append(jc.Blocks, newJSONBlock(fset, u, int64(c.Load)))
			}
			js.Classes = append(js.Classes, jc)
		}
		j.Sections = append(j.Sections, js)
	}
	for _, l := range r.Result.Loops {
		jl := JSONLoop{Pos: posStr(fset, l.Header.Pos), Max: l.Max}
		th := l.Block
		if th.Orig != nil {
			th = th.Orig
		}
		if lb := r.Loops.Of(l.Block); lb != nil {
			jl.Key = lb.Key.String()
			if b := lb.Bound; b != nil {
				jl.Source, jl.Expr, jl.Why = b.Source.String(), b.Expr, b.Why
				jl.From = b.Pos.String()
			}
		}
		jl.Serial = r.Serial[th]
		j.Loops = append(j.Loops, jl)
	}
	for _, br := range r.Info.Branches {
		if br.Divergent {
			j.Divergent = append(j.Divergent, JSONBranch{Pos: posStr(fset, br.Instr.Pos), Instr: br.Instr.Text, Reason: br.Reason})
		}
	}
	return j
}

func newJSONBlock(fset *token.FileSet, u BlockUse, total int64) JSONBlock {
	jb := JSONBlock{Block: u.Block.Name(), ThreadBlock: u.Thread.Name(), Labels: u.Thread.Labels, Instrs: [2]int{u.Lo, u.Hi}, Size: len(u.Block.Instrs),
		Count: u.Count, Issued: u.Issued, InitSum: int64(u.InitSum), I: u.I, Delay: int64(u.Delay), Lines: "?"}
	if jb.Labels == nil {
		jb.Labels = []string{}
	}
	if total > 0 {
		jb.Share = math.Round(float64(u.I)/float64(total)*1e4) / 1e4
	}
	// Lines: the span of the range's lines in the file of its first
	// instruction (an inlined callee's lines may precede its caller's).
	if u.Hi > u.Lo {
		a := position(fset, u.Block.Instrs[u.Lo].Pos)
		if a.IsValid() {
			lo, hi := a.Line, a.Line
			for _, in := range u.Block.Instrs[u.Lo:u.Hi] {
				if p := position(fset, in.Pos); p.IsValid() && p.Filename == a.Filename {
					lo, hi = min(lo, p.Line), max(hi, p.Line)
				}
			}
			jb.Lines = fmt.Sprintf("%s:%d", a.Filename, lo)
			if hi != lo {
				jb.Lines += fmt.Sprintf("-%d", hi)
			}
		}
	}
	return jb
}

// Warnings lists what the reader of a bound should know: loops whose bound
// was multiplied for serialised lane groups, loop bounds of 0 (an entered
// loop runs its header once), inlined calls, and the loops pass's warnings.
func (r *Report) Warnings() []string {
	ws := []string{}
	if r.OneWarp {
		ws = append(ws, "the block is one warp and its barriers do not form ordered sections (divergent or varying per loop iteration): bounded as one section, each block-wide barrier timed as an ordinary instruction that drains the warp (no other warp waits or interferes)")
	}
	if r.Inlined {
		ws = append(ws, "device calls were inlined; callee registers share the caller's names (extra scoreboard dependencies only delay, which is sound)")
	}
	var ser []string
	for b, m := range r.Serial {
		ser = append(ser, fmt.Sprintf("loop at %s is left divergently by lane groups that iterate in turn: its bound is multiplied by %d", posStr(r.Graph.Fset, b.Pos()), m))
	}
	sort.Strings(ser)
	ws = append(ws, ser...)
	for _, l := range r.Result.Loops {
		if l.Max == 0 {
			ws = append(ws, fmt.Sprintf("loop at %s has bound 0; an entered loop executes its header at least once, so 1 is used", posStr(r.Graph.Fset, l.Header.Pos)))
		}
	}
	for _, p := range r.Loops.Problems {
		if p.Warning {
			ws = append(ws, p.String())
		}
	}
	return ws
}

// TextOptions selects the optional parts of the text report.
type TextOptions struct {
	Deadline *int64 // verdict against this bound, in cycles
	Blocks   bool   // the per-block contribution tables
}

// WriteText writes a report in text form.
func WriteText(w io.Writer, r *Report, fset *token.FileSet, opts TextOptions) error {
	deadline := opts.Deadline
	j := NewJSON(r, fset)
	var b strings.Builder
	fmt.Fprintf(&b, "kernel %s  hw %s  warps %d  classes %d\n", j.Name, r.HW.Name, j.Warps, len(j.Classes))
	fmt.Fprintf(&b, "bound %d cycles", j.BoundCycles)
	if j.BoundNS != nil {
		fmt.Fprintf(&b, " (%d ns at %g MHz)", *j.BoundNS, r.HW.ClockMHz)
	}
	if deadline != nil {
		verdict := "within"
		if j.BoundCycles > *deadline {
			verdict = "EXCEEDS"
		}
		fmt.Fprintf(&b, "; %s the deadline of %d cycles", verdict, *deadline)
	}
	b.WriteString("\nclasses:\n")
	for _, c := range j.Classes {
		fmt.Fprintf(&b, "  %s (%d warps)\n", c.Name, len(c.Warps))
	}
	b.WriteString("sections (bound = max over classes of D + I; I per resource: init on a resource the class uses, +issue on another;\n")
	if j.SectionCountsExact {
		b.WriteString("  xN: crossed N times on the worst barrier path, and the kernel bound = sum of N x section bound):\n")
	} else {
		b.WriteString("  xN: crossed at most N times on a worst barrier path; the kernel bound is NOT the sum of N x section bound:\n")
		b.WriteString("  a loop through barriers is summarised by its mean cycle weight, or worst paths tie; ? = unknown):\n")
	}
	for si, s := range j.Sections {
		fmt.Fprintf(&b, "  %s -> %s  bound %d  %s\n", s.From, s.To, s.BoundCycles, countText(s.Count))
		for i, c := range s.Classes {
			fmt.Fprintf(&b, "    %-14s D %d  I %d%s  WUB %d\n", j.Classes[i].Name, c.Duration, c.Interference, bound.FormatCharge(r.Segments[si].Classes[i].Charge, r.HW), c.WUB)
		}
	}
	if opts.Blocks {
		writeBlocks(&b, j)
	}
	b.WriteString("loops:\n")
	if len(j.Loops) == 0 {
		b.WriteString("  none\n")
	}
	for _, l := range j.Loops {
		fmt.Fprintf(&b, "  %s [%s] max %d  %s %q from %s", l.Pos, l.Key, l.Max, l.Source, l.Expr, l.From)
		if l.Serial > 1 {
			fmt.Fprintf(&b, " (x%d serialised lane groups)", l.Serial)
		}
		b.WriteByte('\n')
	}
	b.WriteString("divergent branches:\n")
	if len(j.Divergent) == 0 {
		b.WriteString("  none\n")
	}
	for _, d := range j.Divergent {
		fmt.Fprintf(&b, "  %s %s\n", d.Pos, d.Instr)
	}
	if len(j.Warnings) > 0 {
		b.WriteString("warnings:\n")
		for _, x := range j.Warnings {
			fmt.Fprintf(&b, "  %s\n", x)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeBlocks writes the per-block contribution tables: per section and
// class, the block ranges on the worst path for I.
func writeBlocks(b *strings.Builder, j *JSONKernel) {
	b.WriteString("blocks (per section and class, the worst path for the load L = InitSum+Issued: COUNT executions, ISSUED and INITSUM per execution, I = COUNT×(INITSUM+ISSUED) and its share of L, DELAY = largest increase of the finish time across one execution):\n")
	for _, s := range j.Sections {
		for i, c := range s.Classes {
			fmt.Fprintf(b, "  %s -> %s  %s  L %d\n", s.From, s.To, j.Classes[i].Name, c.Load)
			fmt.Fprintf(b, "    %-10s %-6s %-16s %-28s %12s %6s %7s %12s %7s %6s\n", "BLOCK", "THREAD", "LABEL", "LINES", "COUNT", "ISSUED", "INITSUM", "I", "SHARE", "DELAY")
			for _, u := range c.Blocks {
				label := "-"
				if len(u.Labels) > 0 {
					label = strings.Join(u.Labels, ",")
				}
				name := u.Block
				if u.Instrs[0] > 0 || u.Instrs[1] < u.Size {
					name += fmt.Sprintf("[%d:%d]", u.Instrs[0], u.Instrs[1])
				}
				fmt.Fprintf(b, "    %-10s %-6s %-16s %-28s %12d %6d %7d %12d %6.1f%% %6d\n", name, u.ThreadBlock, label, u.Lines, u.Count, u.Issued, u.InitSum, u.I, 100*u.Share, u.Delay)
			}
		}
	}
}

// countText writes a section's count on the worst barrier path.
func countText(n int64) string {
	if n < 0 {
		return "x?"
	}
	return fmt.Sprintf("x%d", n)
}
