package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound/pessimism"
)

// Comparison is how the bounds of a report changed since an older report
// of the same kernels (gpuwcet analyze --compare OLD.json): per kernel and
// per barrier section, the bound and every part of its pessimism split
// (docs/report.md, "Comparison").
type Comparison struct {
	Old       string        `json:"old_report"`        // the older report's path, as given
	OldSHA256 string        `json:"old_report_sha256"` // its report_sha256
	Kernels   []KernelDelta `json:"kernels"`
}

// Delta statuses.
const (
	DeltaChanged   = "changed"
	DeltaUnchanged = "unchanged"
	DeltaAdded     = "added"   // only in the new report
	DeltaRemoved   = "removed" // only in the old report
)

// KernelDelta is one kernel's change: the parts of its split and its
// sections, matched by name and by (from, to).
type KernelDelta struct {
	Name     string         `json:"name"`
	Status   string         `json:"status"`
	Parts    []Delta        `json:"parts"`
	Sections []SectionDelta `json:"sections"`
}

// SectionDelta is one section's change (per crossing, and its count).
type SectionDelta struct {
	From   string  `json:"from"`
	To     string  `json:"to"`
	Status string  `json:"status"`
	Parts  []Delta `json:"parts"`
}

// Delta is one part of a bound, in cycles, in the old and the new report
// (0 where absent) and the change, new − old.
type Delta struct {
	Part   string `json:"part"`
	Old    int64  `json:"old"`
	New    int64  `json:"new"`
	Change int64  `json:"change"`
}

// Compare compares the kernels of cur with those of old.
func Compare(old, cur *Report, oldPath string) *Comparison {
	c := &Comparison{Old: oldPath, OldSHA256: old.ReportSHA256, Kernels: []KernelDelta{}}
	oldK := map[string]*Kernel{}
	for i := range old.Kernels {
		oldK[old.Kernels[i].Name] = &old.Kernels[i]
	}
	seen := map[string]bool{}
	for i := range cur.Kernels {
		k := &cur.Kernels[i]
		seen[k.Name] = true
		c.Kernels = append(c.Kernels, kernelDelta(oldK[k.Name], k))
	}
	for i := range old.Kernels {
		if k := &old.Kernels[i]; !seen[k.Name] {
			c.Kernels = append(c.Kernels, kernelDelta(k, nil))
		}
	}
	return c
}

func kernelDelta(old, cur *Kernel) KernelDelta {
	name := ""
	var o, n *Kernel = old, cur
	if n != nil {
		name = n.Name
	} else {
		name = o.Name
	}
	d := KernelDelta{Name: name, Parts: parts(kernelParts(o), kernelParts(n)), Sections: []SectionDelta{}}
	d.Status = status(o != nil, n != nil, d.Parts)
	type key struct{ from, to string }
	oldS := map[key]*namedCycles{}
	var order []key
	if o != nil {
		for _, s := range sectionsOf(o) {
			k := key{s.From, s.To}
			oldS[k] = sectionParts(s)
			order = append(order, k)
		}
	}
	newS := map[key]*namedCycles{}
	if n != nil {
		for _, s := range sectionsOf(n) {
			k := key{s.From, s.To}
			if _, ok := oldS[k]; !ok {
				order = append(order, k)
			}
			newS[k] = sectionParts(s)
		}
	}
	for _, k := range order {
		op, inOld := oldS[k]
		np, inNew := newS[k]
		sd := SectionDelta{From: k.from, To: k.to, Parts: parts(op, np)}
		sd.Status = status(inOld, inNew, sd.Parts)
		d.Sections = append(d.Sections, sd)
	}
	return d
}

func status(inOld, inNew bool, ps []Delta) string {
	switch {
	case !inOld:
		return DeltaAdded
	case !inNew:
		return DeltaRemoved
	}
	for _, p := range ps {
		if p.Change != 0 {
			return DeltaChanged
		}
	}
	return DeltaUnchanged
}

// sectionsOf returns a kernel's sections with their split when it has
// one, otherwise from its section table (bound only).
func sectionsOf(k *Kernel) []pessimism.Section {
	if k.Pessimism != nil {
		return k.Pessimism.Sections
	}
	var out []pessimism.Section
	for _, s := range k.Sections {
		out = append(out, pessimism.Section{From: s.From, To: s.To, Count: s.Count, BoundCycles: s.BoundCycles})
	}
	return out
}

// namedCycles is a list of parts of a bound, in order.
type namedCycles struct {
	names []string
	m     map[string]int64
}

func (p *namedCycles) add(name string, v int64) {
	if p.m == nil {
		p.m = map[string]int64{}
	}
	if _, ok := p.m[name]; !ok {
		p.names = append(p.names, name)
	}
	p.m[name] += v
}

// kernelParts lists the parts of a kernel's bound: the bound, the sum's
// parts, each category of approximation and assumption, and their items.
func kernelParts(k *Kernel) *namedCycles {
	if k == nil {
		return nil
	}
	var p namedCycles
	p.add("bound", k.BoundCycles)
	if s := k.Pessimism; s != nil {
		p.add("isolated path", s.IsolatedCycles)
		p.add("interference", s.InterferenceCycles)
		for _, r := range s.ByResource {
			p.add("interference: "+r.Resource, r.Cycles)
		}
		p.add("unattributed", s.UnattributedCycles)
		for _, c := range []struct {
			name string
			cat  pessimism.Category
		}{{"control approximations", s.Control}, {"data approximations", s.Data}, {"stated assumptions", s.Assumptions}} {
			p.add(c.name, c.cat.Cycles)
			for _, it := range c.cat.Items {
				name := c.name + ": " + it.Kind
				switch {
				case it.Pos != "":
					name += " " + it.Pos
				case it.Name != "":
					name += " " + it.Name
				default:
					name += " " + it.What
				}
				p.add(name, max(it.Cycles, 0))
			}
		}
	}
	return &p
}

func sectionParts(s pessimism.Section) *namedCycles {
	var p namedCycles
	p.add("bound", s.BoundCycles)
	p.add("count on the worst path", s.Count)
	p.add("isolated path", s.IsolatedCycles)
	p.add("interference", s.InterferenceCycles)
	for _, r := range s.ByResource {
		p.add("interference: "+r.Resource, r.Cycles)
	}
	return &p
}

// parts pairs two lists of parts, the old ones first, then the new
// ones the old report did not have; a missing part reads 0.
func parts(old, cur *namedCycles) []Delta {
	var names []string
	seen := map[string]bool{}
	for _, p := range []*namedCycles{old, cur} {
		if p == nil {
			continue
		}
		for _, n := range p.names {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	out := []Delta{}
	for _, n := range names {
		var o, c int64
		if old != nil {
			o = old.m[n]
		}
		if cur != nil {
			c = cur.m[n]
		}
		out = append(out, Delta{Part: n, Old: o, New: c, Change: c - o})
	}
	return out
}

// WriteComparisonText writes the changes line by line: per kernel its
// status and every part that changed, then its sections that changed.
func WriteComparisonText(w io.Writer, c *Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "compared with %s (report %s):\n", c.Old, shortHash(c.OldSHA256))
	for _, k := range c.Kernels {
		switch k.Status {
		case DeltaAdded:
			fmt.Fprintf(&b, "  kernel %s: new, bound %d\n", k.Name, part(k.Parts, "bound").New)
			continue
		case DeltaRemoved:
			fmt.Fprintf(&b, "  kernel %s: removed (bound was %d)\n", k.Name, part(k.Parts, "bound").Old)
			continue
		case DeltaUnchanged:
			fmt.Fprintf(&b, "  kernel %s: unchanged, bound %d\n", k.Name, part(k.Parts, "bound").New)
			continue
		}
		bd := part(k.Parts, "bound")
		fmt.Fprintf(&b, "  kernel %s: bound %d -> %d (%+d)\n", k.Name, bd.Old, bd.New, bd.Change)
		for _, p := range k.Parts {
			if p.Part == "bound" || p.Change == 0 {
				continue
			}
			fmt.Fprintf(&b, "    %s %+d (%d -> %d)\n", p.Part, p.Change, p.Old, p.New)
		}
		for _, s := range k.Sections {
			if s.Status == DeltaUnchanged {
				continue
			}
			fmt.Fprintf(&b, "    section %s -> %s: %s", s.From, s.To, s.Status)
			for _, p := range s.Parts {
				if p.Change != 0 {
					fmt.Fprintf(&b, "; %s %+d (%d -> %d)", p.Part, p.Change, p.Old, p.New)
				}
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func part(ps []Delta, name string) Delta {
	for _, p := range ps {
		if p.Part == name {
			return p
		}
	}
	return Delta{Part: name}
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
