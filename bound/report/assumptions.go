package report

import (
	"fmt"

	"github.com/gpuwcet/gpuwcet/cfg/assume"
)

// NumberAssumptions returns the numbered assumptions of a run from the
// ledger entries it rests on (package cfg/assume, docs/assumptions.md):
// in ledger order, each use once, numbered A1, A2, …; key is the ledger
// ID, text the use's statement (the run's own wording, else the
// ledger's), origin, basis and discharge the ledger's.
func NumberAssumptions(uses []assume.Use) []Assumption {
	out := []Assumption{}
	for i, u := range assume.Sort(uses) {
		e := assume.MustGet(u.ID)
		out = append(out, Assumption{ID: fmt.Sprintf("A%d", i+1), Key: e.ID, Origin: e.Origin, Text: u.Statement(), Basis: e.Basis, Discharge: e.Discharge})
	}
	return out
}

// V1Assumptions returns the version-1 assumptions member: the texts of
// the numbered assumptions of the analysis, the hardware and the inputs
// (not the reference model's, the environment's, the kernel level's).
func V1Assumptions(as []Assumption) []string {
	out := []string{}
	for _, a := range as {
		switch a.Origin {
		case assume.OriginAnalysis, assume.OriginHardware, assume.OriginInput, assume.OriginPREM:
			out = append(out, a.Text)
		}
	}
	return out
}

// SetAssumptions sets the assumptions members of r from the ledger
// entries its run rests on.
func (r *Report) SetAssumptions(uses []assume.Use) {
	r.NumberedAssumptions = NumberAssumptions(uses)
	r.Assumptions = V1Assumptions(r.NumberedAssumptions)
}
