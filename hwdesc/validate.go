package hwdesc

import (
	"math"
	"regexp"
	"strconv"
)

// MaxCycles bounds every init, lat and latency of a description, so that
// sums over long paths cannot overflow.
const MaxCycles Cycles = 1_000_000_000

var (
	nameRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)
	globRE  = regexp.MustCompile(`^[A-Za-z0-9_.:*?-]+$`)
)

// ValidGlob reports why pattern is not a valid opcode glob, or "" if it
// is. Patterns are made of opcode characters (letters, digits, '.', '_',
// ':', '-') and the wildcards '*' and '?'; brackets, braces, spaces and
// other characters are refused rather than matched literally.
func ValidGlob(pattern string) string {
	switch {
	case pattern == "":
		return "empty pattern"
	case !globRE.MatchString(pattern):
		for _, c := range pattern {
			if !(c == '.' || c == '_' || c == ':' || c == '-' || c == '*' || c == '?' ||
				'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				return "character " + quoteRune(c) + " is not allowed (only letters, digits, '.', '_', ':', '-', '*' and '?')"
			}
		}
	}
	return ""
}

func quoteRune(c rune) string { return strconv.QuoteRune(c) }

func quote(s string) string { return strconv.Quote(s) }

func itoa(i int) string { return strconv.Itoa(i) }

// Validate checks ranges and cross references. It returns nil or an
// ErrorList naming each offending unit or rule with its line.
func (d *Desc) Validate() error {
	var errs ErrorList
	f := d.File
	line := func(key string) int { return d.Lines[key] }
	switch {
	case d.Name == "":
		errs.add(f, 0, "name is missing")
	case !nameRE.MatchString(d.Name):
		errs.add(f, line("name"), "name %q is not valid (letters, digits, '.', '_', '-'; starting with a letter or digit)", d.Name)
	}
	if math.IsNaN(d.ClockMHz) || math.IsInf(d.ClockMHz, 0) || d.ClockMHz <= 0 {
		if _, set := d.Lines["clock_mhz"]; !set && d.ClockMHz == 0 {
			errs.add(f, 0, "clock_mhz is missing (SM clock in MHz, > 0)")
		} else {
			errs.add(f, line("clock_mhz"), "clock_mhz must be a finite number > 0, got %v", d.ClockMHz)
		}
	}
	switch d.ISA {
	case "", "ptx", "sass":
	default:
		errs.add(f, line("isa"), "isa %q is not one of \"ptx\", \"sass\" (or empty)", d.ISA)
	}
	if d.MemLatency < 0 || d.MemLatency > MaxCycles {
		errs.add(f, line("mem_latency"), "mem_latency must be in [0, %d], got %d", MaxCycles, d.MemLatency)
	}
	if p := &d.Pipeline; p.Overhead < 0 || p.Overhead > MaxCycles {
		errs.add(f, at(p.Lines, "overhead", p.Line), "pipeline: overhead must be in [0, %d], got %d", MaxCycles, p.Overhead)
	}
	switch d.Pipeline.BranchWait {
	case "", BranchWaitNone, BranchWaitTaken, BranchWaitAll:
	default:
		errs.add(f, at(d.Pipeline.Lines, "branch_wait", d.Pipeline.Line), "pipeline: branch_wait %q is not one of \"none\", \"taken\", \"all\"", d.Pipeline.BranchWait)
	}
	if len(d.Units) == 0 {
		errs.add(f, 0, "no [[unit]] defined")
	}
	seen := map[string]int{}
	groupCount := map[string]int{}
	groupLine := map[string]int{}
	for i := range d.Units {
		u := &d.Units[i]
		who := "unit " + quote(u.Name)
		switch {
		case u.Name == "":
			errs.add(f, u.Line, "unit %d: name is missing", i+1)
			who = "unit " + itoa(i+1)
		case !identRE.MatchString(u.Name):
			errs.add(f, at(u.Lines, "name", u.Line), "%s: name is not valid (letters, digits, '_', '.', '-'; starting with a letter or '_')", who)
		}
		if u.Name != "" {
			if j, dup := seen[u.Name]; dup {
				errs.add(f, at(u.Lines, "name", u.Line), "%s: duplicate unit name (first defined at line %d)", who, d.Units[j].Line)
			} else {
				seen[u.Name] = i
			}
		}
		if u.Init < 1 {
			errs.add(f, at(u.Lines, "init", u.Line), "%s: init must be ≥ 1 cycle, got %d", who, u.Init)
		}
		if u.Lat < 0 {
			errs.add(f, at(u.Lines, "lat", u.Line), "%s: lat must be ≥ 0 cycles, got %d", who, u.Lat)
		}
		if u.Init > MaxCycles || u.Lat > MaxCycles {
			errs.add(f, u.Line, "%s: init and lat must be ≤ %d cycles", who, MaxCycles)
		}
		if u.GPGPUSimLatency != 0 && u.GPGPUSimLatency != u.Init+u.Lat {
			errs.add(f, at(u.Lines, "gpgpusim_latency", u.Line), "%s: gpgpusim_latency %d ≠ init + lat = %d + %d (lat counts after the initiation; GPGPU-Sim's latency includes it)",
				who, u.GPGPUSimLatency, u.Init, u.Lat)
		}
		if u.Count < 0 {
			errs.add(f, at(u.Lines, "count", u.Line), "%s: count must be ≥ 0 (0 means 1), got %d", who, u.Count)
		}
		if u.Group != "" && !identRE.MatchString(u.Group) {
			errs.add(f, at(u.Lines, "group", u.Line), "%s: group %q is not a valid name", who, u.Group)
		}
		g := d.GroupOf(i)
		c := max(u.Count, 1)
		if prev, ok := groupCount[g]; ok && prev != c {
			errs.add(f, u.Line, "%s: count %d differs from the count %d of group %q at line %d", who, c, prev, g, groupLine[g])
		} else if !ok {
			groupCount[g], groupLine[g] = c, u.Line
		}
	}
	if d.DefaultUnit != "" {
		if _, ok := seen[d.DefaultUnit]; !ok {
			errs.add(f, line("default_unit"), "default_unit %q is not a defined unit", d.DefaultUnit)
		}
	}
	if len(d.Map) == 0 && d.DefaultUnit == "" {
		errs.add(f, 0, "no [[map]] rule and no default_unit: no opcode can be routed")
	}
	patterns := map[string]int{}
	for i := range d.Map {
		r := &d.Map[i]
		who := "rule " + quote(r.Match)
		if r.Match == "" {
			who = "rule " + itoa(i+1)
		}
		if why := ValidGlob(r.Match); why != "" {
			errs.add(f, at(r.Lines, "match", r.Line), "%s: bad match glob: %s", who, why)
		} else if j, dup := patterns[r.Match]; dup {
			errs.add(f, at(r.Lines, "match", r.Line), "%s: unreachable, the rule at line %d has the same pattern", who, d.Map[j].Line)
		} else {
			patterns[r.Match] = i
		}
		switch {
		case r.Unit == "" && r.Reject == "":
			errs.add(f, r.Line, "%s: needs a unit (or a reject reason)", who)
		case r.Unit != "" && r.Reject != "":
			errs.add(f, r.Line, "%s: has both unit and reject", who)
		case r.Unit != "":
			if _, ok := seen[r.Unit]; !ok {
				errs.add(f, at(r.Lines, "unit", r.Line), "%s: unit %q is not defined", who, r.Unit)
			}
		}
	}
	return errs.Err()
}
