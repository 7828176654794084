package hwdesc

import (
	"fmt"
	"strconv"
	"strings"
)

// Listing compatibility. A description routes opcodes spelt in one
// instruction set (ISA: "ptx" or "sass"); a listing in the other set would
// match its rules only by accident (every SASS opcode falls to the default
// unit of a PTX description: an LDG ready in 4 cycles). A description
// models one architecture (Arch); a listing compiled for another one is
// timed as if it ran there.

// ListingISA returns the opcode spelling of a listing dialect (the names of
// isa.Dialect): "ptx" for PTX and for GPGPU-Sim PTX issue traces, "sass"
// for SASS; "" for anything else.
func ListingISA(dialect string) string {
	switch dialect {
	case "ptx", "trace":
		return "ptx"
	case "sass":
		return "sass"
	}
	return ""
}

// CheckISA returns an error when the description's ISA is stated and is
// not the instruction set of a listing of that dialect (target: the
// listing's architecture, for the message). A description without isa
// accepts any listing.
func (d *Desc) CheckISA(dialect, target string) error {
	want := ListingISA(dialect)
	if d.ISA == "" || want == "" || d.ISA == want {
		return nil
	}
	side := strings.ToUpper(want)
	if target != "" {
		side += " (" + target + ")"
	}
	var alts []string
	for _, n := range Names() {
		if b, err := Builtin(n); err == nil && b.ISA == want {
			alts = append(alts, n)
		}
	}
	hint := ""
	if len(alts) > 0 {
		hint = fmt.Sprintf("; built-in %s descriptions: %s", want, strings.Join(alts, ", "))
	}
	return fmt.Errorf("hardware description %q times %s opcodes (isa = %q) but the listing is %s: its opcodes would match no rule or the wrong one; use a description with isa = %q%s",
		d.Name, strings.ToUpper(d.ISA), d.ISA, side, want, hint)
}

// ArchMismatch describes how a listing compiled for target (sm_NN) differs
// from the architecture the description models, or returns "" when it
// does not: the same architecture, or an older one of the same major
// version (binary compatible: sm_80 code runs on sm_86), or when either
// side does not say. Otherwise the listing cannot run there as it is
// (newer, or SASS of another major version) or is PTX of another
// generation that the driver would compile for the description's
// architecture; either way, the timings are the description's, not those
// of the architecture the listing was written for.
func (d *Desc) ArchMismatch(dialect, target string) string {
	ln, lok := smNum(target)
	hn, hok := smNum(d.Arch)
	if !lok || !hok || ln == hn || ln/10 == hn/10 && ln < hn {
		return ""
	}
	what := "SASS"
	if ListingISA(dialect) == "ptx" {
		what = "PTX"
	}
	var why string
	switch {
	case ln > hn:
		why = fmt.Sprintf("%s for %s targets a newer architecture than %s, which cannot run it", what, target, d.Arch)
	case what == "SASS":
		why = fmt.Sprintf("SASS for %s does not run on %s (another major version)", target, d.Arch)
	default:
		why = fmt.Sprintf("PTX for %s would be compiled for %s, another generation", target, d.Arch)
	}
	return fmt.Sprintf("the listing targets %s and hardware description %q models %s: %s; its timings are the description's", target, d.Name, d.Arch, why)
}

// smNum parses "sm_86" (also "sm_90a", "compute_80") into 86.
func smNum(arch string) (int, bool) {
	a := strings.ToLower(strings.TrimSpace(arch))
	a, ok := strings.CutPrefix(a, "sm_")
	if !ok {
		if a, ok = strings.CutPrefix(a, "compute_"); !ok {
			return 0, false
		}
	}
	a = strings.TrimRight(a, "af")
	n, err := strconv.Atoi(a)
	return n, err == nil && n > 0
}
