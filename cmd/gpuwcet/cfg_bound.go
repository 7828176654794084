package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpuwcet/gpuwcet/bound/report"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgdot"
	"github.com/gpuwcet/gpuwcet/divergence"
)

// The worst case drawn on a CFG (gpuwcet cfg --bound, analyze --dot;
// docs/report.md, "CFG with the worst case"). The numbers are those of
// the report's per-block tables (kernels[].sections[].classes[].blocks):
// a block's load cycles on the worst path are Σ over the barrier sections
// of crossings × I (I = count × (InitSum + Issued), its share of the
// class's load L), its count Σ crossings × count.

// shades are the fills of the blocks on the worst path, by share of the
// largest block's load (lightest first); legible under black text.
var shades = []string{"#fff5f0", "#fee0d2", "#fcbba1", "#fc9272", "#fb6a4a"}

// blockSum is a block's part of the worst case.
type blockSum struct {
	cycles, count int64    // load cycles; executions (of the first instruction)
	where         []string // "section 2, class warp 0: ×16, 192 cycles"
}

// worstOverlay draws the worst case of rep on its thread-level graph: per
// barrier section, the rows of the class whose WUB is the section's
// bound, weighted by the section's crossings of the worst barrier path.
func worstOverlay(rep *static.Report) *cfgdot.Overlay {
	sums := map[*cfg.Block]*blockSum{}
	for si, s := range rep.Segments {
		ci := critical(s)
		if ci < 0 {
			continue
		}
		add(sums, si, s, ci, rep.Info.Classes[ci].Name, func(u static.BlockUse) *cfg.Block { return u.Thread })
	}
	o := overlay(sums, rep.Graph, rep)
	o.Legend = legend(rep, "per section, the class whose WUB is the section bound")
	for _, b := range rep.Graph.Blocks {
		br := rep.Info.Branch(b)
		if br == nil || !br.Divergent {
			continue
		}
		m := o.Blocks[b]
		line := "divergent branch: both sides run, reconverging at " + br.Reconv.Name()
		if br.Exit {
			line = "divergent exit: the lanes that leave end, the others go on"
		}
		m.Lines = append(m.Lines, line)
		o.Blocks[b] = m
	}
	return o
}

// classOverlay draws the worst case of class c on its warp-level graph:
// per section, the class's own rows.
func classOverlay(rep *static.Report, c *divergence.Class) *cfgdot.Overlay {
	sums := map[*cfg.Block]*blockSum{}
	for si, s := range rep.Segments {
		if c.Index < len(s.Classes) {
			add(sums, si, s, c.Index, c.Name, func(u static.BlockUse) *cfg.Block { return u.Block })
		}
	}
	o := overlay(sums, c.Graph, rep)
	o.Legend = legend(rep, "class "+c.Name)
	return o
}

// critical returns the class whose WUB is the section's bound (the first
// when several tie), -1 when none.
func critical(s *static.Segment) int {
	for i, c := range s.Classes {
		if c.WUB == s.Bound {
			return i
		}
	}
	return -1
}

func add(sums map[*cfg.Block]*blockSum, si int, s *static.Segment, ci int, class string, key func(static.BlockUse) *cfg.Block) {
	times := s.Count
	if times < 0 {
		times = 1 // unknown: counted once (the legend says so)
	}
	for _, u := range s.Classes[ci].Blocks {
		b := key(u)
		if b == nil || u.Count == 0 {
			continue
		}
		x := sums[b]
		if x == nil {
			x = &blockSum{}
			sums[b] = x
		}
		x.cycles += times * u.I
		// A block split by a barrier is in two sections: its executions
		// are those of its first instruction.
		if u.Lo == 0 {
			x.count += times * u.Count
		}
		x.where = append(x.where, fmt.Sprintf("section %d (crossed %s), %s: instructions %d-%d ×%d, %d issue+initiation cycles per execution", si+1, crossings(s.Count), class, u.Lo, u.Hi-1, u.Count, int64(u.Issued)+int64(u.InitSum)))
	}
}

func crossings(n int64) string {
	if n < 0 {
		return "? times"
	}
	return fmt.Sprintf("%d×", n)
}

// overlay turns the sums into block marks (fill by share of the largest)
// and labels the loops of g with their bounds.
func overlay(sums map[*cfg.Block]*blockSum, g *cfg.Graph, rep *static.Report) *cfgdot.Overlay {
	o := &cfgdot.Overlay{Blocks: map[*cfg.Block]cfgdot.BlockMark{}, Loops: map[*cfg.Loop]string{}}
	var total, most int64
	for _, x := range sums {
		total += x.cycles
		most = max(most, x.cycles)
	}
	for b, x := range sums {
		share := 0.0
		if total > 0 {
			share = float64(x.cycles) / float64(total)
		}
		fill := shades[0]
		if most > 0 {
			fill = shades[min(len(shades)-1, int(float64(len(shades))*float64(x.cycles)/float64(most+1)))]
		}
		o.Blocks[b] = cfgdot.BlockMark{Fill: fill, OnPath: true,
			Lines:   []string{fmt.Sprintf("worst path: ×%d, %d cycles of load (%.1f%%)", x.count, x.cycles, 100*share)},
			Tooltip: strings.Join(x.where, "; ")}
	}
	for _, l := range g.Loops {
		if s := loopLabel(rep, l); s != "" {
			o.Loops[l] = s
		}
	}
	return o
}

// loopLabel is a loop's bound and its provenance.
func loopLabel(rep *static.Report, l *cfg.Loop) string {
	if len(l.Header.Instrs) == 0 {
		return ""
	}
	for _, lu := range rep.Result.Loops {
		if lu.Header != l.Header.Instrs[0] {
			continue
		}
		s := fmt.Sprintf("bound %d", lu.Max)
		th := lu.Block
		if th.Orig != nil {
			th = th.Orig
		}
		if lb := rep.Loops.Of(lu.Block); lb != nil && lb.Bound != nil {
			s += " (" + lb.Bound.Source.String()
			if lb.Bound.Expr != "" && lb.Bound.Expr != fmt.Sprint(lb.Bound.Max) {
				s += ": " + lb.Bound.Expr
			}
			s += ")"
		}
		if n := rep.Serial[th]; n > 1 {
			s += fmt.Sprintf(" ×%d lane groups", n)
		}
		return s
	}
	return ""
}

// legend is the title lines of a drawing with the worst case.
func legend(rep *static.Report, what string) []string {
	ls := []string{fmt.Sprintf("bound %d cycles, %d warps (%s, %s)", rep.Bound, rep.NumWarps, rep.HW.Name, what),
		"fill: load cycles on the worst path (darkest: the largest); thick: on the worst path; red: block-wide barriers"}
	if !rep.CountsExact {
		ls = append(ls, "section crossings are maxima on a worst barrier path (not exact)")
	}
	return ls
}

// writeBoundDOT writes the worst case of rep: the thread-level graph, or
// with warp one graph per class.
func writeBoundDOT(buf *bytes.Buffer, rep *static.Report, warp bool, maxInstrs int) {
	if !warp {
		d := cfgdot.Graph(rep.Graph, cfgdot.Options{MaxInstrs: maxInstrs, Overlay: worstOverlay(rep)})
		buf.WriteString(d.String())
		return
	}
	for i, c := range rep.Info.Classes {
		if i > 0 {
			buf.WriteByte('\n')
		}
		d := cfgdot.Graph(c.Graph, cfgdot.Options{MaxInstrs: maxInstrs, Mark: warpMark(rep.Info, c), Overlay: classOverlay(rep, c)})
		buf.WriteString(d.String())
	}
}

// kernelDrawing is a bounded kernel's CFGs with the worst case (analyze
// --dot, the HTML report): the thread-level graph, and the warp-level
// graph of each class.
type kernelDrawing struct {
	Kernel  string
	Thread  string   // DOT
	Classes []string // DOT, one per class
}

// drawKernel draws the worst case of rep.
func drawKernel(rep *static.Report) kernelDrawing {
	k := kernelDrawing{Kernel: rep.Func}
	var b bytes.Buffer
	writeBoundDOT(&b, rep, false, 0)
	k.Thread = b.String()
	for _, c := range rep.Info.Classes {
		d := cfgdot.Graph(c.Graph, cfgdot.Options{Mark: warpMark(rep.Info, c), Overlay: classOverlay(rep, c)})
		k.Classes = append(k.Classes, d.String())
	}
	return k
}

// drawKernels draws the worst case of each bounded kernel.
func drawKernels(reps []*static.Report) []kernelDrawing {
	ds := make([]kernelDrawing, len(reps))
	for i, r := range reps {
		ds[i] = drawKernel(r)
	}
	return ds
}

// writeDrawings writes the drawings into dir: KERNEL.dot (the thread-level
// graph) and KERNEL.classK.dot (each class's warp-level graph), names
// reduced as cfg --out does; check refuses a path before anything is
// written (an input's).
func writeDrawings(dir string, ds []kernelDrawing, check func(path string) error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	used := map[string]bool{}
	var paths, docs []string
	for _, d := range ds {
		name := fileName(d.Kernel)
		for n, base := 2, name; used[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s_%d", base, n)
		}
		used[strings.ToLower(name)] = true
		files := []string{name + ".dot"}
		data := []string{d.Thread}
		for i, c := range d.Classes {
			files = append(files, fmt.Sprintf("%s.class%d.dot", name, i))
			data = append(data, c)
		}
		for i, f := range files {
			paths = append(paths, filepath.Join(dir, f))
			docs = append(docs, data[i])
		}
	}
	for _, p := range paths {
		if err := check(p); err != nil {
			return err
		}
	}
	for i, p := range paths {
		if err := writeFile(p, []byte(docs[i])); err != nil {
			return err
		}
	}
	return nil
}

// writeTimelines writes the phase timelines of the bounded kernels of r
// into dir (KERNEL.timeline.svg), names reduced as for --dot.
func writeTimelines(dir string, r *report.Report, check func(path string) error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	used := map[string]bool{}
	var paths []string
	var docs [][]byte
	for k := range r.Kernels {
		name := fileName(r.Kernels[k].Name)
		for n, base := 2, name; used[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s_%d", base, n)
		}
		used[strings.ToLower(name)] = true
		var b bytes.Buffer
		if err := report.WriteTimelineSVG(&b, r, k); err != nil {
			return err
		}
		p := filepath.Join(dir, name+".timeline.svg")
		if err := check(p); err != nil {
			return err
		}
		paths, docs = append(paths, p), append(docs, b.Bytes())
	}
	for i, p := range paths {
		if err := writeFile(p, docs[i]); err != nil {
			return err
		}
	}
	return nil
}

// lookDot finds Graphviz's dot (tests replace it to draw without).
var lookDot = exec.LookPath

// dotTimeout bounds one Graphviz run of the HTML report.
const dotTimeout = 60 * time.Second

// htmlFigures renders the drawings for the HTML report: each kernel's
// thread-level graph and its classes' warp-level graphs, as SVG with
// Graphviz's dot when it is installed (the DOT source otherwise).
func htmlFigures(ds []kernelDrawing) []report.Figure {
	dotPath, lookErr := lookDot("dot")
	var figs []report.Figure
	timedOut := false // after one timeout, the others are not tried
	for _, d := range ds {
		srcs := []string{d.Thread}
		titles := []string{fmt.Sprintf("CFG of %s with the worst case (thread level, device calls inlined)", d.Kernel)}
		for i, c := range d.Classes {
			srcs = append(srcs, c)
			titles = append(titles, fmt.Sprintf("Warp-level CFG of %s, class %d", d.Kernel, i))
		}
		for i, src := range srcs {
			f := report.Figure{Kernel: d.Kernel, Title: titles[i], DOT: src, Command: "dot -Tsvg -o cfg.svg FILE.dot"}
			if lookErr != nil {
				f.Note = "Graphviz dot was not found when the report was written"
			} else if timedOut {
				f.Note = fmt.Sprintf("Graphviz dot was not run: an earlier drawing took more than %v", dotTimeout)
			} else if svg, err := renderDOT(dotPath, src); err != nil {
				f.Note = "Graphviz dot failed: " + err.Error()
				timedOut = errors.Is(err, context.DeadlineExceeded)
			} else {
				f.SVG = svg
			}
			figs = append(figs, f)
		}
	}
	return figs
}

// renderDOT runs dot -Tsvg on src, bounded in time.
func renderDOT(dotPath, src string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dotTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, dotPath, "-Tsvg")
	cmd.WaitDelay = time.Second // a child holding the pipes cannot block past the timeout
	cmd.Stdin = strings.NewReader(src)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no drawing in %v: %w", dotTimeout, ctx.Err())
		}
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}
