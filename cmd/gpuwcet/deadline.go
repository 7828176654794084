package main

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound/kernel"
	"github.com/gpuwcet/gpuwcet/bound/report"
)

// The --deadline of analyze (docs/cli.md): a number of cycles (a bare
// integer, as before units were accepted, or with the suffix "cycles") or
// a time (ns, us, ms, s), checked against the block bound or, with
// --deadline-level kernel, against the kernel-level bound.

var deadlineFlag = &cli.StringFlag{Name: "deadline", Usage: "exit with code 3 when a bound exceeds `DEADLINE`: cycles (a bare integer, or with the suffix cycles) or a time with its unit (ns, us, ms, s), e.g. 2ms", DefaultText: "none", Category: catOutput}

var deadlineLevelFlag = &cli.StringFlag{Name: "deadline-level", Usage: "what --deadline bounds, `LEVEL`: block (one thread block alone on an SM) or kernel (the kernel-level bound on all the SMs of --sms or the platform, launch overhead included when the platform gives it; needs --grid and a time deadline)", Value: "block", Category: catOutput}

// Deadline levels.
const (
	levelBlock  = "block"
	levelKernel = "kernel"
)

// maxDeadlineNS bounds a time deadline (2^62 ns, 146 years): the
// conversions below cannot overflow.
const maxDeadlineNS = int64(1) << 62

// deadline is a parsed --deadline.
type deadline struct {
	given  string // as written
	unit   string // "cycles" or "ns" (a time, converted to ns)
	value  int64  // in unit
	level  string // levelBlock or levelKernel
	cycles int64  // block level: the deadline in cycles (a time: floor(ns x MHz / 1000))
}

// parseDeadline reads DEADLINE: digits with an optional unit suffix.
func parseDeadline(s string) (unit string, value int64, err error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	num, suffix := t[:i], strings.TrimSpace(t[i:])
	if num == "" {
		return "", 0, fmt.Errorf("--deadline %q: want a non-negative integer with an optional unit (cycles, ns, us, ms, s), e.g. 150000 or 2ms", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("--deadline %q: %s is out of range", s, num)
	}
	var mult int64
	switch suffix {
	case "", "cycles", "cycle":
		return "cycles", n, nil
	case "ns":
		mult = 1
	case "us", "µs":
		mult = 1_000
	case "ms":
		mult = 1_000_000
	case "s":
		mult = 1_000_000_000
	default:
		return "", 0, fmt.Errorf("--deadline %q: unknown unit %q (want cycles, ns, us, ms or s; a fraction is written in a smaller unit: 1500us, not 1.5ms)", s, suffix)
	}
	if n > maxDeadlineNS/mult {
		return "", 0, fmt.Errorf("--deadline %q: above the largest deadline, 2^62 ns", s)
	}
	return "ns", n * mult, nil
}

// deadlineFromFlags reads --deadline and --deadline-level. clockMHz is
// the hardware description's clock, which converts a time deadline to
// cycles at the block level; kernelOn says whether --grid asks for the
// kernel level and notComputed why it cannot be computed ("" when it can).
func deadlineFromFlags(c *cli.Context, clockMHz float64, kernelOn bool, notComputed string) (*deadline, error) {
	level := c.String(deadlineLevelFlag.Name)
	if level != levelBlock && level != levelKernel {
		return nil, fmt.Errorf("--deadline-level %q: want block or kernel", level)
	}
	if !c.IsSet(deadlineFlag.Name) {
		if c.IsSet(deadlineLevelFlag.Name) {
			return nil, fmt.Errorf("--deadline-level needs --deadline")
		}
		return nil, nil
	}
	unit, v, err := parseDeadline(c.String(deadlineFlag.Name))
	if err != nil {
		return nil, err
	}
	d := &deadline{given: strings.TrimSpace(c.String(deadlineFlag.Name)), unit: unit, value: v, level: level, cycles: v}
	switch {
	case level == levelKernel && unit == "cycles":
		return nil, fmt.Errorf("--deadline %s with --deadline-level kernel: a kernel's deadline is a time (the kernel level adds host-side overheads in ns): give it in ns, us, ms or s", d.given)
	case level == levelKernel && !kernelOn:
		return nil, fmt.Errorf("--deadline-level kernel needs the kernel-level bound: give --grid (with --platform, or --arch and --sms)")
	case level == levelKernel && notComputed != "":
		return nil, fmt.Errorf("--deadline-level kernel: the kernel-level bound is not computed: %s", notComputed)
	case level == levelBlock && unit == "ns":
		if clockMHz <= 0 || math.IsInf(clockMHz, 0) || math.IsNaN(clockMHz) {
			return nil, fmt.Errorf("--deadline %s: a time deadline needs the hardware description's clock_mhz to convert the block bound", d.given)
		}
		c, ok := deadlineCycles(v, clockMHz)
		if !ok {
			return nil, fmt.Errorf("--deadline %s: above the largest deadline in cycles", d.given)
		}
		d.cycles = c
	}
	return d, nil
}

// deadlineCycles converts a deadline of ns nanoseconds to cycles at
// mhz: floor(ns·mhz/1000), exact with the clock's binary value, so that
// ceil(cycles·1000/mhz) <= ns  <=>  cycles <= deadlineCycles(ns, mhz).
func deadlineCycles(ns int64, mhz float64) (int64, bool) {
	x := new(big.Rat).SetInt64(ns)
	x.Mul(x, new(big.Rat).SetFloat64(mhz))
	x.Quo(x, big.NewRat(1000, 1))
	q := new(big.Int).Quo(x.Num(), x.Denom())
	return q.Int64(), q.IsInt64()
}

// text is the deadline as the reports say it.
func (d *deadline) text() string {
	if d.unit == "cycles" {
		return fmt.Sprintf("%d cycles", d.value)
	}
	return fmt.Sprintf("%d ns", d.value)
}

// blockCheck is the block-level check record of a kernel bounded at
// boundCycles.
func (d *deadline) blockCheck(boundCycles int64) *report.DeadlineCheck {
	dc := &report.DeadlineCheck{Level: levelBlock, Given: d.given, Unit: d.unit, Deadline: d.value, Compared: "cycles",
		DeadlineCompared: d.cycles, Bound: boundCycles, Figure: "bound_cycles", Margin: d.cycles - boundCycles, Verdict: "pass"}
	if boundCycles > d.cycles {
		dc.Verdict = "fail"
	}
	return dc
}

// kernelCheck is the kernel-level check record: the total upper bound on
// the largest SM count (with the launch overhead when the platform gives
// it), or a persistent kernel's per-item bound. An error when the figure
// is not available.
func (d *deadline) kernelCheck(kj *kernel.JSON) (*report.DeadlineCheck, error) {
	dc := &report.DeadlineCheck{Level: levelKernel, Given: d.given, Unit: d.unit, Deadline: d.value, Compared: "ns", DeadlineCompared: d.value, Conditional: kj.Conditional}
	switch kj.Status {
	case kernel.StatusBounded:
		var pt *kernel.PointJSON
		for i := range kj.Bounds {
			if kj.Bounds[i].SMs == kj.SMs {
				pt = &kj.Bounds[i]
			}
		}
		if pt == nil || pt.UpperNS == 0 {
			return nil, fmt.Errorf("--deadline-level kernel: no bound in ns on %d SMs (no clock)", kj.SMs)
		}
		dc.SMs, dc.Bound, dc.Figure = kj.SMs, pt.UpperNS, "kernel_level.bounds[sms].upper_ns"
		if kj.Launch != nil {
			dc.Bound, dc.Figure = pt.TotalUpperNS, "kernel_level.bounds[sms].total_upper_ns"
		}
	case kernel.StatusPersistent:
		if kj.Persistent == nil || kj.Persistent.ItemNS == 0 {
			return nil, fmt.Errorf("--deadline-level kernel: a persistent kernel without a per-item bound in ns")
		}
		dc.SMs, dc.Bound, dc.Figure = kj.SMs, kj.Persistent.ItemNS, "kernel_level.persistent.item_bound_ns"
	default:
		return nil, fmt.Errorf("--deadline-level kernel: the kernel-level bound is not computed: %s", kj.Reason)
	}
	dc.Margin = dc.DeadlineCompared - dc.Bound
	dc.Verdict = "pass"
	if dc.Bound > dc.DeadlineCompared {
		dc.Verdict = "fail"
	}
	return dc, nil
}
