package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// SARIF 2.1.0 (OASIS): the subset gpuwcet writes.

// SARIFLog is a sarifLog object.
type SARIFLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []SARIFRun `json:"runs"`
}

// SARIFRun is a run object.
type SARIFRun struct {
	Tool        SARIFTool         `json:"tool"`
	Invocations []SARIFInvocation `json:"invocations"`
	Artifacts   []SARIFArtifact   `json:"artifacts"`
	Results     []SARIFResult     `json:"results"`
	Properties  map[string]any    `json:"properties,omitempty"`
}

// SARIFTool is a tool object.
type SARIFTool struct {
	Driver SARIFDriver `json:"driver"`
}

// SARIFDriver is the tool's driver (a toolComponent object).
type SARIFDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []SARIFRule `json:"rules"`
}

// SARIFRule is a reportingDescriptor object.
type SARIFRule struct {
	ID                   string       `json:"id"`
	Name                 string       `json:"name,omitempty"`
	ShortDescription     SARIFMessage `json:"shortDescription"`
	FullDescription      SARIFMessage `json:"fullDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

// SARIFMessage is a message object.
type SARIFMessage struct {
	Text string `json:"text"`
}

// SARIFInvocation is an invocation object.
type SARIFInvocation struct {
	ExecutionSuccessful bool     `json:"executionSuccessful"`
	Arguments           []string `json:"arguments,omitempty"`
	CommandLine         string   `json:"commandLine,omitempty"`
	ExitCode            int      `json:"exitCode"`
}

// SARIFArtifact is an artifact object (an input file with its hash).
type SARIFArtifact struct {
	Location SARIFArtifactLocation `json:"location"`
	Roles    []string              `json:"roles,omitempty"`
	Hashes   map[string]string     `json:"hashes,omitempty"`
}

// SARIFArtifactLocation is an artifactLocation object.
type SARIFArtifactLocation struct {
	URI   string `json:"uri"`
	Index *int   `json:"index,omitempty"`
}

// SARIFResult is a result object.
type SARIFResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             SARIFMessage      `json:"message"`
	Locations           []SARIFLocation   `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

// SARIFLocation is a location object.
type SARIFLocation struct {
	PhysicalLocation SARIFPhysicalLocation `json:"physicalLocation"`
}

// SARIFPhysicalLocation is a physicalLocation object.
type SARIFPhysicalLocation struct {
	ArtifactLocation SARIFArtifactLocation `json:"artifactLocation"`
	Region           *SARIFRegion          `json:"region,omitempty"`
}

// SARIFRegion is a region object (1-based line and column).
type SARIFRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// FingerprintKey names gpuwcet's partial fingerprint.
const FingerprintKey = "gpuwcetFinding/v1"

var digits = regexp.MustCompile(`[0-9]+`)

// NewSARIF builds the SARIF log of a report: one run, the full rule
// catalogue (plus any rule a diagnostic names that the catalogue lacks),
// one artifact per input, one result per diagnostic.
func NewSARIF(r *Report) *SARIFLog {
	rules := append([]Rule(nil), Rules...)
	known := map[string]bool{}
	for _, x := range rules {
		known[x.ID] = true
	}
	for _, d := range r.Diagnostics {
		if !known[d.Rule] {
			known[d.Rule] = true
			rules = append(rules, ruleFor(d.Rule))
		}
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	index := map[string]int{}
	driver := SARIFDriver{Name: r.Tool.Name, Version: r.Tool.Version, InformationURI: "https://github.com/gpuwcet/gpuwcet", Rules: []SARIFRule{}}
	for i, x := range rules {
		index[x.ID] = i
		sr := SARIFRule{ID: x.ID, Name: ruleName(x.ID), ShortDescription: SARIFMessage{x.Short}, FullDescription: SARIFMessage{x.Full}}
		sr.DefaultConfiguration.Level = x.Level
		driver.Rules = append(driver.Rules, sr)
	}

	run := SARIFRun{Tool: SARIFTool{Driver: driver}, Artifacts: []SARIFArtifact{}, Results: []SARIFResult{}}
	run.Invocations = []SARIFInvocation{{
		ExecutionSuccessful: r.Summary.ExitCode != 1,
		Arguments:           r.CommandLine,
		CommandLine:         shellJoin(r.CommandLine),
		ExitCode:            r.Summary.ExitCode,
	}}
	artifact := map[string]int{}
	for i, in := range r.Inputs {
		uri := toURI(in.Path)
		artifact[uri] = i
		role := "analysisTarget"
		if in.Kind == "facts" {
			role = "attachment"
		}
		run.Artifacts = append(run.Artifacts, SARIFArtifact{Location: SARIFArtifactLocation{URI: uri}, Roles: []string{role}, Hashes: map[string]string{"sha-256": in.SHA256}})
	}
	run.Properties = map[string]any{
		"reportSha256": r.ReportSHA256,
		"hw":           map[string]any{"name": r.HW.Name, "version": r.HW.Version, "sha256": r.HW.SHA256},
	}
	if bs := sarifBounds(r); len(bs) > 0 {
		run.Properties["bounds"] = bs
	}
	cfg := map[string]any{"notRecorded": r.Configuration.NotRecorded}
	for k, v := range map[string]string{"gpuModel": r.Configuration.GPUModel, "driver": r.Configuration.Driver, "cudaToolkit": r.Configuration.CUDAToolkit,
		"compilerFlags": r.Configuration.CompilerFlags, "clocks": r.Configuration.Clocks} {
		if v != "" {
			cfg[k] = v
		}
	}
	run.Properties["configuration"] = cfg

	seen := map[string]int{}
	for _, d := range r.Diagnostics {
		res := SARIFResult{RuleID: d.Rule, RuleIndex: index[d.Rule], Level: d.Level, Message: SARIFMessage{d.Message}}
		uri := ""
		if l := d.Location; l != nil && l.Line > 0 {
			uri = toURI(l.URI)
			loc := SARIFPhysicalLocation{ArtifactLocation: SARIFArtifactLocation{URI: uri}, Region: &SARIFRegion{StartLine: l.Line, StartColumn: l.Column}}
			if i, ok := artifact[uri]; ok {
				loc.ArtifactLocation.Index = &i
			}
			res.Locations = []SARIFLocation{{PhysicalLocation: loc}}
		}
		// Stable across runs and line shifts: the rule, the kernel, the
		// file and the message with its numbers blanked, plus the
		// occurrence of that key.
		h := sha256.Sum256([]byte(strings.Join([]string{d.Rule, d.Kernel, uri, digits.ReplaceAllString(d.Message, "#")}, "\x00")))
		key := hex.EncodeToString(h[:16])
		seen[key]++
		res.PartialFingerprints = map[string]string{FingerprintKey: key + ":" + strconv.Itoa(seen[key])}
		if d.Kernel != "" {
			res.Properties = map[string]any{"kernel": d.Kernel}
		}
		run.Results = append(run.Results, res)
	}
	return &SARIFLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []SARIFRun{run}}
}

// WriteSARIF writes the SARIF log of a report as indented JSON.
func WriteSARIF(w io.Writer, r *Report) error {
	log := NewSARIF(r)
	visibleStrings(log)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// toURI turns a path into a relative URI reference: every byte that is
// not allowed in a URI path, or that has a meaning there, is
// percent-encoded. A backslash is a character of a Linux file name, so it
// is encoded (%5C), never turned into a separator: the command converts
// the paths of its own system with filepath.ToSlash before they reach
// the report (Location.URI).
func toURI(p string) string {
	var b strings.Builder
	for _, c := range []byte(p) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"#%<>?[]^{|}\`+"`", c) >= 0 {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ruleName is the rule id in UpperCamelCase (SARIF's convention for name).
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// sarifBounds lists, per bounded kernel, its block bound, lower bound and
// kernel-level bound(k) (a property bag: SARIF has no place for results
// that are not findings).
func sarifBounds(r *Report) []map[string]any {
	var out []map[string]any
	for _, k := range r.Kernels {
		m := map[string]any{"kernel": k.Name, "boundCycles": k.BoundCycles}
		if s := k.Pessimism; s != nil {
			ps := map[string]any{"isolatedPathCycles": s.IsolatedCycles, "interferenceCycles": s.InterferenceCycles,
				"controlCycles": s.Control.Cycles, "dataCycles": s.Data.Cycles, "assumptionCycles": s.Assumptions.Cycles, "approximationFree": s.ApproximationFree}
			if s.UnattributedCycles != 0 {
				ps["unattributedCycles"] = s.UnattributedCycles
			}
			m["pessimism"] = ps
		}
		if k.LowerBound != nil {
			m["lowerCycles"] = k.LowerBound.Cycles
		}
		if j := k.KernelLevel; j != nil {
			kl := map[string]any{"status": j.Status}
			var pts []map[string]any
			for _, p := range j.Bounds {
				pts = append(pts, map[string]any{"sms": p.SMs, "upperCycles": p.UpperCycles, "lowerCycles": p.LowerCycles})
			}
			if len(pts) > 0 {
				kl["bounds"] = pts
			}
			m["kernelLevel"] = kl
		}
		out = append(out, m)
	}
	return out
}
