package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML, as read by Jenkins, GitLab and GitHub test reporters.

// JUnitSuites is the <testsuites> root.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one <testsuite>: the kernels bounded on one hardware
// description.
type JUnitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []JUnitProperty `xml:"properties>property"`
	Cases      []JUnitCase     `xml:"testcase"`
}

// JUnitProperty is a <property>.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is one <testcase>: one kernel.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *JUnitProblem `xml:"failure"`
	Error     *JUnitProblem `xml:"error"`
	Skipped   *JUnitProblem `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitProblem is a <failure>, <error> or <skipped> element.
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// NewJUnit builds the JUnit document of a report: one test suite (the
// report's hardware description), one test case per selected kernel. A
// kernel over its deadline fails (bound, deadline and margin in the
// failure); a kernel not bounded fails too (a skipped test shows green on
// many dashboards, and no bound is not a pass); a kernel with bad input is
// an error. A run that stopped before any kernel (an input that does not
// parse) is one test case, named after the input, in error. Times are 0:
// the report is deterministic.
func NewJUnit(r *Report) *JUnitSuites {
	if r.Prem != nil {
		return newPremJUnit(r)
	}
	classname := "gpuwcet"
	if len(r.Inputs) > 0 {
		classname = r.Inputs[0].Path
	}
	s := JUnitSuite{Name: r.HW.Name, Time: "0"}
	s.Properties = []JUnitProperty{
		{"hw.name", r.HW.Name}, {"hw.version", r.HW.Version}, {"hw.sha256", r.HW.SHA256},
		{"tool.version", r.Tool.Version}, {"report.sha256", r.ReportSHA256},
	}
	for _, in := range r.Inputs {
		s.Properties = append(s.Properties, JUnitProperty{"input." + in.Kind + ".sha256", in.Path + " " + in.SHA256})
	}
	s.Properties = append(s.Properties, configProperties(r.Configuration)...)
	bounded := map[string]*Kernel{}
	for i := range r.Kernels {
		bounded[r.Kernels[i].Name] = &r.Kernels[i]
	}
	for _, sk := range r.Scope.Kernels {
		c := JUnitCase{Name: sk.Name, Classname: classname, Time: "0"}
		switch k := bounded[sk.Name]; {
		case k != nil:
			c.SystemOut = kernelLine(k)
			if k.Verdict == "fail" {
				msg := ""
				switch {
				case k.DeadlineCheck != nil:
					msg = k.DeadlineCheck.Text()
				case k.Deadline != nil && k.MarginCycles != nil:
					msg = fmt.Sprintf("bound %d cycles exceeds the deadline of %d cycles (margin %d cycles)", k.BoundCycles, *k.Deadline, *k.MarginCycles)
				default:
					msg = "over the deadline"
				}
				c.Failure = &JUnitProblem{Type: "over-deadline", Message: msg, Text: c.SystemOut}
				s.Failures++
			}
		case sk.Status == StatusNotBounded:
			c.Failure = &JUnitProblem{Type: StatusNotBounded, Message: "not bounded: " + sk.Error}
			s.Failures++
		default:
			c.Error = &JUnitProblem{Type: "analysis-error", Message: sk.Error}
			s.Errors++
		}
		s.Cases = append(s.Cases, c)
	}
	if len(r.Scope.Kernels) == 0 && len(r.Errors) > 0 {
		c := JUnitCase{Name: classname, Classname: classname, Time: "0",
			Error: &JUnitProblem{Type: "input-error", Message: r.Errors[0], Text: strings.Join(r.Errors, "\n")}}
		s.Cases = append(s.Cases, c)
		s.Errors++
	}
	s.Tests = len(s.Cases)
	return &JUnitSuites{Name: "gpuwcet analyze", Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Skipped: s.Skipped, Suites: []JUnitSuite{s}}
}

func kernelLine(k *Kernel) string {
	s := fmt.Sprintf("bound_cycles=%d", k.BoundCycles)
	if k.BoundNS != nil {
		s += fmt.Sprintf(" bound_ns=%d", *k.BoundNS)
	}
	switch d := k.DeadlineCheck; {
	case d != nil && d.Level == "kernel":
		s += fmt.Sprintf(" deadline_level=kernel deadline_ns=%d kernel_bound_ns=%d sms=%d margin_ns=%d verdict=%s", d.DeadlineCompared, d.Bound, d.SMs, d.Margin, k.Verdict)
	case k.Deadline != nil && k.MarginCycles != nil:
		s += fmt.Sprintf(" deadline_cycles=%d margin_cycles=%d verdict=%s", *k.Deadline, *k.MarginCycles, k.Verdict)
	}
	if k.LowerBound != nil {
		s += fmt.Sprintf(" lower_cycles=%d", k.LowerBound.Cycles)
	}
	s += "\n"
	if p := k.Pessimism; p != nil {
		s += fmt.Sprintf("pessimism isolated_path_cycles=%d interference_cycles=%d unattributed_cycles=%d control_cycles=%d data_cycles=%d assumption_cycles=%d approximation_free=%v\n",
			p.IsolatedCycles, p.InterferenceCycles, p.UnattributedCycles, p.Control.Cycles, p.Data.Cycles, p.Assumptions.Cycles, p.ApproximationFree)
	}
	if j := k.KernelLevel; j != nil && j.Status == "bounded" {
		s += fmt.Sprintf("kernel grid=%d blocks occupancy=%d..%d", j.Blocks, j.Occupancy.Lo, j.Occupancy.Hi)
		for _, p := range j.Bounds {
			s += fmt.Sprintf(" sms%d_upper_cycles=%d sms%d_lower_cycles=%d", p.SMs, p.UpperCycles, p.SMs, p.LowerCycles)
		}
		s += "\n"
	} else if j != nil {
		s += fmt.Sprintf("kernel %s\n", j.Status)
	}
	return s
}

// WriteJUnit writes the JUnit XML document of a report.
func WriteJUnit(w io.Writer, r *Report) error {
	doc := NewJUnit(r)
	visibleStrings(doc)
	data, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// configProperties are the configuration record's items as properties
// ("not recorded" for the missing ones).
func configProperties(c Configuration) []JUnitProperty {
	var ps []JUnitProperty
	for _, it := range []struct{ name, v string }{{"config.gpu_model", c.GPUModel}, {"config.driver", c.Driver}, {"config.cuda_toolkit", c.CUDAToolkit},
		{"config.compiler_flags", c.CompilerFlags}, {"config.clocks", c.Clocks}} {
		v := it.v
		if v == "" {
			v = "not recorded"
		}
		ps = append(ps, JUnitProperty{it.name, v})
	}
	return ps
}
