package hwdesc

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Extending a description. A description may name a base (extends = a
// built-in name or a file) and give only what it changes:
//
//   - top-level keys and [pipeline] keys it sets replace the base's;
//   - a [[unit]] named like a base unit replaces the keys it sets in that
//     unit; a [[unit]] with a new name is added;
//   - its [[map]] rules are tried before every rule of the base (the
//     first match wins), so a rule can route an opcode the base rejects
//     or sends to its default unit.
//
// Its name is its own (neither the base's nor a built-in's). The merged
// description is validated and hashed as a whole; Notes, Base, BaseSHA256
// and Overrides record the base and each change, which bound reports list
// as an assumption (A-HW-OVERRIDE).

// maxExtends bounds a chain of extending files.
const maxExtends = 8

// extender resolves the base of a description: built-ins always, files
// only for descriptions loaded from a file (dir: the file's directory).
type extender struct {
	dir   string
	file  bool
	chain []string // absolute paths of the files extending one another
}

func (x *extender) extend(d *Desc) (*Desc, error) {
	line := d.Lines["extends"]
	bad := func(format string, args ...any) error {
		return ErrorList{{File: d.File, Line: line, Msg: "extends: " + fmt.Sprintf(format, args...)}}
	}
	name := strings.TrimSpace(d.Extends)
	if name == "" {
		return nil, bad("empty: name a built-in description (%s) or a TOML file", strings.Join(Names(), ", "))
	}
	isPath := strings.ContainsAny(name, `/\`) || strings.HasSuffix(name, ".toml")
	var base *Desc
	var err error
	switch {
	case !isPath && slices.Contains(Names(), name):
		base, err = Builtin(name)
	case !isPath:
		return nil, bad("%q is not a built-in description (known: %s); a file is named by a path (containing '/' or ending in .toml)", name, strings.Join(Names(), ", "))
	case !x.file:
		return nil, bad("%q is a file: only a description loaded from a file may extend a file", name)
	default:
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(x.dir, p)
		}
		self, _ := filepath.Abs(d.File)
		abs, _ := filepath.Abs(p)
		chain := append(slices.Clone(x.chain), self)
		if i := slices.Index(chain, abs); i >= 0 {
			return nil, bad("cycle: %s", strings.Join(append(chain[i:], abs), " -> "))
		}
		if len(chain) >= maxExtends {
			return nil, bad("more than %d descriptions extend one another", maxExtends)
		}
		base, err = loadChain(p, chain)
	}
	if err != nil {
		return nil, bad("%v", err)
	}
	return Extend(base, d)
}

// Extend merges ext, a description that extends base, into a copy of base
// (see the package comment above). base must be a whole description (it
// is not modified); ext's Lines say which keys it sets. Errors are
// positioned in ext's file.
func Extend(base, ext *Desc) (*Desc, error) {
	var errs ErrorList
	f := ext.File
	at := func(line int) string {
		if line > 0 {
			return f + ":" + strconv.Itoa(line) + ": "
		}
		if f != "" {
			return f + ": "
		}
		return ""
	}
	set := func(lines map[string]int, key string) (int, bool) {
		l, ok := lines[key]
		return l, ok
	}
	m := *base
	m.Extends = ""
	m.Units = slices.Clone(base.Units)
	m.Notes = slices.Clone(base.Notes)
	m.File, m.Lines = ext.File, ext.Lines
	m.Base, m.BaseSHA256 = base.Name, base.Hash()
	m.Overrides = nil
	for i := range m.Units {
		m.Units[i].Line, m.Units[i].Lines = 0, nil // not lines of ext's file
	}
	var ov, notes []string // with and without positions
	change := func(line int, format string, args ...any) {
		s := fmt.Sprintf(format, args...)
		ov = append(ov, at(line)+s)
		notes = append(notes, s)
	}

	// Name: its own.
	if _, ok := set(ext.Lines, "name"); !ok || ext.Name == "" {
		errs.add(f, ext.Lines["extends"], "a description that extends %q needs a name of its own", base.Name)
	} else if ext.Name == base.Name || slices.Contains(Names(), ext.Name) {
		errs.add(f, ext.Lines["name"], "name %q is a built-in description's (or its base's): give the extended description a name of its own", ext.Name)
	}
	m.Name = ext.Name

	// Top-level keys.
	str := func(key string, dst *string, v string, timing bool) {
		if l, ok := set(ext.Lines, key); ok && *dst != v {
			if timing {
				change(l, "%s: %q -> %q", key, *dst, v)
			}
			*dst = v
		}
	}
	m.Description = strings.TrimSpace("extends " + base.Name + ": " + base.Description)
	str("description", &m.Description, ext.Description, false)
	str("version", &m.Version, ext.Version, false)
	str("source", &m.Source, ext.Source, false)
	str("arch", &m.Arch, ext.Arch, true)
	str("isa", &m.ISA, ext.ISA, true)
	str("default_unit", &m.DefaultUnit, ext.DefaultUnit, true)
	overrideKey(ext.Lines, "clock_mhz", &m.ClockMHz, ext.ClockMHz, change)
	overrideKey(ext.Lines, "mem_latency", &m.MemLatency, ext.MemLatency, change)

	// [pipeline].
	p, ep := &m.Pipeline, ext.Pipeline
	overrideKey(ep.Lines, "overhead", &p.Overhead, ep.Overhead, change)
	overrideKey(ep.Lines, "branch_wait", &p.BranchWait, ep.BranchWait, change)
	overrideKey(ep.Lines, "ret_issues", &p.RetIssues, ep.RetIssues, change)
	overrideKey(ep.Lines, "barrier_issues", &p.BarrierIssues, ep.BarrierIssues, change)
	if _, ok := set(ep.Lines, "doc"); ok {
		p.Doc = ep.Doc
	}
	if ep.Line > 0 {
		p.Line, p.Lines = ep.Line, ep.Lines
	}

	// Units: replace keys of a base unit, or add.
	for _, eu := range ext.Units {
		i := m.UnitIndex(eu.Name)
		if i < 0 {
			change(eu.Line, "unit %s added: init %d, lat %d%s", eu.Name, eu.Init, eu.Lat, groupNote(eu.Group))
			m.Units = append(m.Units, eu)
			continue
		}
		u := m.Units[i]
		var diffs []string
		cyc := func(key string, dst *Cycles, v Cycles) {
			if _, ok := set(eu.Lines, key); ok && *dst != v {
				diffs = append(diffs, fmt.Sprintf("%s %d -> %d", key, *dst, v))
				*dst = v
			}
		}
		cyc("init", &u.Init, eu.Init)
		cyc("lat", &u.Lat, eu.Lat)
		cyc("gpgpusim_latency", &u.GPGPUSimLatency, eu.GPGPUSimLatency)
		if _, ok := set(eu.Lines, "group"); ok && u.Group != eu.Group {
			diffs = append(diffs, fmt.Sprintf("group %q -> %q", u.Group, eu.Group))
			u.Group = eu.Group
		}
		if _, ok := set(eu.Lines, "count"); ok && u.Count != eu.Count {
			diffs = append(diffs, fmt.Sprintf("count %d -> %d", u.Count, eu.Count))
			u.Count = eu.Count
		}
		if _, ok := set(eu.Lines, "doc"); ok {
			u.Doc = eu.Doc
		}
		if _, ok := set(eu.Lines, "gpgpusim_latency"); !ok && u.GPGPUSimLatency != 0 && u.GPGPUSimLatency != u.Init+u.Lat {
			u.GPGPUSimLatency = 0 // no longer the simulator's figure
		}
		u.Line, u.Lines = eu.Line, eu.Lines
		m.Units[i] = u
		if len(diffs) > 0 {
			change(eu.Line, "unit %s: %s", eu.Name, strings.Join(diffs, ", "))
		}
	}

	// Rules: ext's first; a base rule with the pattern of one of ext's is
	// replaced (it could never match).
	target := func(r Rule) string {
		if r.Reject != "" {
			return "rejected (" + r.Reject + ")"
		}
		return "unit " + r.Unit
	}
	replaced := map[string]bool{}
	for _, r := range ext.Map {
		replaced[r.Match] = true
		old := ""
		for _, b := range base.Map {
			if b.Match == r.Match {
				old = ", replacing the base's rule (" + target(b) + ")"
				break
			}
		}
		change(r.Line, "rule %q -> %s, before the base's rules%s", r.Match, target(r), old)
	}
	m.Map = slices.Clone(ext.Map)
	for _, b := range base.Map {
		if !replaced[b.Match] {
			b.Line, b.Lines = 0, nil
			m.Map = append(m.Map, b)
		}
	}

	if len(errs) > 0 {
		return nil, errs
	}
	m.Overrides = ov
	m.Notes = append(m.Notes, fmt.Sprintf("extends %s (sha256 %s)", base.Name, m.BaseSHA256))
	for _, o := range notes {
		m.Notes = append(m.Notes, "override: "+o)
	}
	m.Notes = append(m.Notes, ext.Notes...)
	return &m, nil
}

func groupNote(g string) string {
	if g == "" {
		return ""
	}
	return ", group " + g
}

// overrideKey sets *dst to v when lines says the extending file sets key
// and the value differs, recording the change.
func overrideKey[T comparable](lines map[string]int, key string, dst *T, v T, change func(int, string, ...any)) {
	if l, ok := lines[key]; ok && *dst != v {
		change(l, "%s: %v -> %v", key, *dst, v)
		*dst = v
	}
}
