package prem

import "github.com/gpuwcet/gpuwcet/bound/report/premjson"

// The JSON form of a check is package premjson's (the "prem" object of
// gpuwcet's report); these names are its, for the checker's code.

// Check statuses.
const (
	StatusPass = premjson.StatusPass
	StatusFail = premjson.StatusFail
	StatusWarn = premjson.StatusWarn
	StatusInfo = premjson.StatusInfo
)

// The report types.
type (
	Result         = premjson.Result
	Check          = premjson.Check
	Counterexample = premjson.Counterexample
	WindowRef      = premjson.WindowRef
	Participant    = premjson.Participant
	PhaseBound     = premjson.PhaseBound
	SlackRow       = premjson.SlackRow
	MemSlack       = premjson.MemSlack
	Overlaps       = premjson.Overlaps
	OverlapPair    = premjson.OverlapPair
	Utilisation    = premjson.Utilisation
	Sensitivity    = premjson.Sensitivity
	Makespan       = premjson.Makespan
	Release        = premjson.Release
	Region         = premjson.Region
)
