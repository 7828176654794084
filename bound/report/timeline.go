package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/input"
)

// Phase timelines (docs/report.md, "Phase timelines"): one SVG per bounded
// kernel, drawn from the JSON report alone. Per barrier section, one row
// per warp class on the section's time axis: the isolated duration D split
// into the class's exec cycles (its issue cycles on its worst path for L)
// and idle cycles (the rest of D: waiting on latencies), then the
// interference I charged to the class, per resource; the section's bound
// (the largest WUB = D + I) as a red line. Above the sections, the bound
// as the sum over the worst barrier path of crossings × section bound.
// Every element has a <title> with its numbers. Hand-written SVG 1.1.

// Timeline geometry, in SVG user units (pixels).
const (
	tlWidth  = 1040
	tlLeft   = 190 // start of the plot area
	tlRight  = 960 // its end; the WUB labels follow
	tlRowH   = 22
	tlRowGap = 6
)

// Timeline colours.
const (
	tlExec  = "#4c78a8"
	tlIdle  = "#c6dbef"
	tlBound = "#d62728"
	tlText  = "#222222"
	tlGrid  = "#bbbbbb"
)

// tlCharges are the fills of the interference per resource (by order of
// first appearance in the kernel), tlSections those of the sections in
// the summary strip.
var (
	tlCharges  = []string{"#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d"}
	tlSections = []string{"#6b6b6b", "#9e9e9e"}
)

// WriteTimelineSVG writes the phase timelines of kernel k of r (an index
// of r.Kernels) as a standalone SVG document.
func WriteTimelineSVG(w io.Writer, r *Report, k int) error {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	writeTimeline(&b, r, k)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTimeline writes the <svg> element of kernel k's timelines, with its
// namespace declaration (a document, or inline in the XHTML report).
func writeTimeline(b *strings.Builder, r *Report, k int) {
	kern := &r.Kernels[k]
	// Height: title, the summary strip, per section a heading, a row per
	// class and an axis.
	h := 84
	colour := map[string]string{} // resource -> fill
	var resources []string
	for _, s := range kern.Sections {
		h += 34 + len(s.Classes)*(tlRowH+tlRowGap) + 26
		for _, c := range s.Classes {
			for _, rc := range c.ByResource {
				if _, ok := colour[rc.Resource]; !ok {
					colour[rc.Resource] = tlCharges[len(resources)%len(tlCharges)]
					resources = append(resources, rc.Resource)
				}
			}
		}
	}
	h += 24 + 20*((len(resources)+4)/4)         // legend
	ns := ` xmlns="http://www.w3.org/2000/svg"` // also inline: the HTML report is XHTML
	fmt.Fprintf(b, `<svg%s version="1.1" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12" role="img">`+"\n", ns, tlWidth, h, tlWidth, h)
	fmt.Fprintf(b, "<title>%s</title>\n", xmlText(fmt.Sprintf("Phase timelines of kernel %s: bound %d cycles", kern.Name, kern.BoundCycles)))
	fmt.Fprintf(b, `<text x="10" y="20" font-size="15" font-weight="bold" fill="%s">%s</text>`+"\n", tlText, xmlText(fmt.Sprintf("Kernel %s: bound %d cycles%s, %d warps", kern.Name, kern.BoundCycles, nsSuffix(kern.BoundNS), kern.Warps)))

	// The bound over the worst barrier path.
	y := 34
	var total int64
	for _, s := range kern.Sections {
		if s.Count > 0 {
			total += s.Count * s.BoundCycles
		}
	}
	what := "the bound: crossings × section bound on the worst barrier path"
	if !kern.SectionCountsExact {
		what = "crossings × section bound (maxima on a worst barrier path; their sum is not the bound)"
	}
	fmt.Fprintf(b, `<text x="10" y="%d" fill="%s">%s</text>`+"\n", y+10, tlText, xmlText(what))
	y += 16
	if total > 0 {
		x := float64(tlLeft)
		scale := float64(tlRight-tlLeft) / float64(total)
		for i, s := range kern.Sections {
			if s.Count <= 0 {
				continue
			}
			wd := float64(s.Count*s.BoundCycles) * scale
			fmt.Fprintf(b, `<rect x="%.2f" y="%d" width="%.2f" height="14" fill="%s" stroke="#ffffff"><title>%s</title></rect>`+"\n",
				x, y, wd, tlSections[i%len(tlSections)], xmlText(fmt.Sprintf("section %d (%s → %s): crossed %d× × bound %d = %d cycles", i+1, s.From, s.To, s.Count, s.BoundCycles, s.Count*s.BoundCycles)))
			if wd > 28 {
				fmt.Fprintf(b, `<text x="%.2f" y="%d" font-size="10" fill="#ffffff">%s</text>`+"\n", x+3, y+11, xmlText(fmt.Sprintf("S%d", i+1)))
			}
			x += wd
		}
	}
	y += 26

	for i, s := range kern.Sections {
		y = writeSection(b, kern, i, s, y, colour)
	}

	// Legend.
	items := []struct{ fill, text string }{{tlExec, "exec (issue cycles in isolation)"}, {tlIdle, "idle (rest of the isolated duration D)"}}
	for _, r := range resources {
		items = append(items, struct{ fill, text string }{colour[r], "interference on " + r})
	}
	lx := 10
	for i, it := range items {
		if i > 0 && i%4 == 0 {
			lx, y = 10, y+20
		}
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="14" height="10" fill="%s"><title>%s</title></rect>`, lx, y+4, it.fill, xmlText(it.text))
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11" fill="%s">%s</text>`+"\n", lx+18, y+13, tlText, xmlText(clip(it.text, 40)))
		lx += 250
	}
	lx, y = 10, y+20
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"><title>section bound: the largest WUB = D + I</title></line>`, lx+7, y+2, lx+7, y+16, tlBound)
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11" fill="%s">section bound (the largest WUB = D + I; the class attaining it is critical)</text>`+"\n", lx+18, y+13, tlText)
	b.WriteString("</svg>\n")
}

// writeSection draws section i at y and returns the y after it.
func writeSection(b *strings.Builder, kern *Kernel, i int, s static.JSONSection, y int, colour map[string]string) int {
	times := "crossings unknown"
	if s.Count >= 0 {
		times = fmt.Sprintf("crossed %d× on the worst barrier path", s.Count)
	}
	head := fmt.Sprintf("Section %d: %s → %s, bound %d cycles, %s", i+1, s.From, s.To, s.BoundCycles, times)
	fmt.Fprintf(b, `<g><title>%s</title>`+"\n", xmlText(head))
	fmt.Fprintf(b, `<line x1="10" y1="%d" x2="%d" y2="%d" stroke="%s"><title>%s</title></line>`+"\n", y, tlRight, y, tlGrid, xmlText(fmt.Sprintf("start of section %d", i+1)))
	fmt.Fprintf(b, `<text x="10" y="%d" font-weight="bold" fill="%s">%s</text>`+"\n", y+18, tlText, xmlText(head))
	y += 30
	// The axis spans the largest WUB (the section bound).
	span := max(s.BoundCycles, 1)
	scale := float64(tlRight-tlLeft) / float64(span)
	x := func(c int64) float64 { return float64(tlLeft) + float64(c)*scale }
	top := y
	for ci, c := range s.Classes {
		name := className(kern.Classes, ci, c)
		exec := classIssued(c)
		idle := c.Duration - exec
		crit := c.WUB == s.BoundCycles
		label := name
		if crit {
			label += " (critical)"
		}
		fmt.Fprintf(b, `<text x="10" y="%d" fill="%s"%s>%s<title>%s</title></text>`+"\n", y+15, tlText, boldIf(crit), xmlText(clip(label, 28)),
			xmlText(fmt.Sprintf("class %s, warps %s: D %d, L %d, I %d, WUB %d", name, ints(c.Warps), c.Duration, c.Load, c.Interference, c.WUB)))
		rect(b, x(0), y, x(exec)-x(0), tlExec, fmt.Sprintf("%s: exec %d cycles: issue cycles of the class's worst path for L, in isolation (their order along the path is not drawn)", name, exec))
		rect(b, x(exec), y, x(c.Duration)-x(exec), tlIdle, fmt.Sprintf("%s: idle %d cycles: the isolated duration D = %d less the exec cycles (waiting on latencies)", name, idle, c.Duration))
		// Interference: per resource when it is the per-resource charge,
		// else the whole-path charge in one piece.
		at := c.Duration
		var sum int64
		for _, rc := range c.ByResource {
			sum += rc.Init + rc.Issue
		}
		if sum == c.Interference && len(c.ByResource) > 0 {
			for _, rc := range c.ByResource {
				n := rc.Init + rc.Issue
				if n == 0 {
					continue
				}
				what := fmt.Sprintf("%s: interference on %s: %d initiation cycles of the other warps", name, rc.Resource, n)
				if !rc.Own {
					what = fmt.Sprintf("%s: interference on %s, a resource the class does not use: %d issue cycles of the other warps", name, rc.Resource, n)
				}
				rect(b, x(at), y, x(at+n)-x(at), colour[rc.Resource], what)
				at += n
			}
		} else if c.Interference > 0 {
			rect(b, x(at), y, x(at+c.Interference)-x(at), tlCharges[0], fmt.Sprintf("%s: interference %d cycles: the whole-path charge (the other warps' loads), smaller than the per-resource one (%d)", name, c.Interference, c.PerResource))
		}
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11" fill="%s">%s</text>`+"\n", tlRight+8, y+15, tlText, xmlText(fmt.Sprintf("WUB %d", c.WUB)))
		y += tlRowH + tlRowGap
	}
	// The section bound and the axis.
	fmt.Fprintf(b, `<line x1="%.2f" y1="%d" x2="%.2f" y2="%d" stroke="%s" stroke-width="2"><title>%s</title></line>`+"\n",
		x(s.BoundCycles), top-4, x(s.BoundCycles), y, tlBound, xmlText(fmt.Sprintf("section %d bound %d cycles (the largest WUB)", i+1, s.BoundCycles)))
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"><title>%s</title></line>`+"\n", tlLeft, y, tlRight, y, tlText,
		xmlText(fmt.Sprintf("section %d time axis: 0 to %d cycles from the release of the section", i+1, span)))
	for t := 0; t <= 4; t++ {
		c := span * int64(t) / 4
		fmt.Fprintf(b, `<line x1="%.2f" y1="%d" x2="%.2f" y2="%d" stroke="%s"><title>%d cycles</title></line><text x="%.2f" y="%d" font-size="10" text-anchor="middle" fill="%s">%d</text>`+"\n",
			x(c), y, x(c), y+4, tlText, c, x(c), y+15, tlText, c)
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="10" fill="%s">cycles</text>`+"\n", tlRight-30, y+26, tlText)
	b.WriteString("</g>\n")
	return y + 30
}

// rect writes a bar of the timeline with its title (nothing when empty).
func rect(b *strings.Builder, x float64, y int, w float64, fill, title string) {
	if w <= 0 {
		return
	}
	fmt.Fprintf(b, `<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" stroke="#ffffff" stroke-width="0.5"><title>%s</title></rect>`+"\n", x, y, w, tlRowH, fill, xmlText(title))
}

// classIssued is a class's issue cycles on its worst path for L (Σ count
// × issued over its per-block rows), at most D.
func classIssued(c static.JSONSegClass) int64 {
	var n int64
	for _, u := range c.Blocks {
		n += u.Count * int64(u.Issued)
	}
	return min(n, c.Duration)
}

func boldIf(b bool) string {
	if b {
		return ` font-weight="bold"`
	}
	return ""
}

func nsSuffix(ns *int64) string {
	if ns == nil {
		return ""
	}
	return fmt.Sprintf(" (%d ns)", *ns)
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// xmlText escapes s for XML character data and attribute values: & < > "
// ' as entities, the hidden characters (input.Hidden) and line breaks as
// visible escapes; characters XML 1.0 does not allow cannot remain.
func xmlText(s string) string {
	s = input.OneLine(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		case 0xfffe, 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
