package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound/kernel"
	"github.com/gpuwcet/gpuwcet/bound/report"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/assume"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/hwdesc/arch"
	"github.com/gpuwcet/gpuwcet/hwdesc/platform"
)

// Kernel-level flags of analyze (docs/kernel.md).
func kernelLevelFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "platform", Usage: "GPU `PLATFORM` for the kernel-level bound (with --grid): a built-in name (" + strings.Join(platform.Names(), ", ") + ") or a TOML file (docs/kernel.md)", Category: catTarget},
		&cli.StringFlag{Name: "arch", Usage: "compute capability `ARCH` for the occupancy (sm_52 … sm_90); default: the platform's, else the hardware description's", Category: catTarget},
		&cli.IntFlag{Name: "sms", Usage: "SMs the kernel may use (an SM partition), `N`; bound(k) is given for k = 1 … N", DefaultText: "the platform's", Category: catTarget},
		&cli.IntFlag{Name: "regs", Usage: "registers per thread `N` (from ptxas -v or cuobjdump -res-usage), when the listing does not state them", DefaultText: "the listing's, else a range", Category: catTarget},
		&cli.Int64Flag{Name: "dynamic-smem", Usage: "dynamic shared memory per block, `BYTES` (the launch's third parameter)", DefaultText: "none", Category: catTarget},
		&cli.StringFlag{Name: "task-model", Usage: "also write the per-kernel task model (JSON, docs/task-model.md) to `FILE`", Category: catOutput},
		&cli.StringFlag{Name: "mast", Usage: "also write the kernels as a MAST model (text format, docs/task-model.md) to `FILE`", Category: catOutput},
	}
}

// kernelLevel holds the resolved kernel-level options of one analyze run.
type kernelLevel struct {
	on       bool // --grid given: compute the kernel level
	reason   string
	arch     *arch.Arch
	archFrom string
	plat     *platform.Platform
	sms      int
	clock    float64
	regs     int
	dyn      int64
	dynSet   bool
}

// newKernelLevel reads the kernel-level flags. A kernel-level flag without
// --grid is an error; --grid without an architecture or SM count gives a
// "not computed" kernel level that says what is missing.
func newKernelLevel(c *cli.Context, hw *hwdesc.Desc, launch pass.Launch, file *isa.File) (*kernelLevel, error) {
	k := &kernelLevel{on: launch.Grid[0] > 0, regs: c.Int("regs"), dyn: c.Int64("dynamic-smem"), dynSet: c.IsSet("dynamic-smem")}
	if !k.on {
		for _, f := range []string{"platform", "arch", "sms", "regs", "dynamic-smem", "task-model", "mast"} {
			if c.IsSet(f) {
				return nil, fmt.Errorf("--%s needs --grid: the kernel-level bound is for a grid of blocks", f)
			}
		}
		return k, nil
	}
	if c.IsSet("regs") && (k.regs < 1 || k.regs > 255) {
		return nil, fmt.Errorf("--regs %d: want 1 to 255 registers per thread", k.regs)
	}
	if k.dynSet && k.dyn < 0 {
		return nil, fmt.Errorf("--dynamic-smem %d: want at least 0 bytes", k.dyn)
	}
	if c.IsSet("sms") && c.Int("sms") < 1 {
		return nil, fmt.Errorf("--sms %d: want at least 1", c.Int("sms"))
	}
	if p := c.String("platform"); p != "" {
		pl, err := platform.Resolve(p)
		if err != nil {
			return nil, fmt.Errorf("--platform: %w", err)
		}
		k.plat = pl
	}
	archName, from := "", ""
	switch {
	case c.String("arch") != "":
		archName, from = c.String("arch"), "--arch"
		if k.plat != nil {
			pa, _ := arch.Lookup(k.plat.Arch)
			a, err := arch.Lookup(archName)
			if err != nil {
				return nil, fmt.Errorf("--arch: %w", err)
			}
			if a.Name != pa.Name {
				return nil, fmt.Errorf("--arch %s: platform %s is %s", archName, k.plat.Name, pa.Name)
			}
		}
	case k.plat != nil:
		archName, from = k.plat.Arch, "platform "+k.plat.Name
	case hw.Arch != "":
		archName, from = hw.Arch, "hardware description "+hw.Name
	}
	if archName == "" {
		k.reason = "no architecture: give --platform or --arch"
	} else {
		a, err := arch.Lookup(archName)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", from, err)
		}
		k.arch, k.archFrom = a, from
		if err := checkTarget(file, a); err != nil {
			return nil, err
		}
	}
	k.sms = c.Int("sms")
	switch {
	case k.plat != nil && k.sms > k.plat.SMs:
		return nil, fmt.Errorf("--sms %d: platform %s has %d SMs", k.sms, k.plat.Name, k.plat.SMs)
	case k.plat != nil && k.sms == 0:
		k.sms = k.plat.SMs
	case k.sms == 0 && k.reason == "":
		k.reason = "no SM count: give --platform or --sms"
	}
	k.clock = hw.ClockMHz
	if k.plat != nil {
		k.clock = k.plat.ClockMHz
	}
	return k, nil
}

// checkTarget refuses a listing compiled for an architecture that cannot
// run on a: PTX for a later compute capability (PTX is compiled forward
// only), SASS for another major version or a later minor one.
func checkTarget(f *isa.File, a *arch.Arch) error {
	t := f.Target
	if t == "" {
		return nil
	}
	ta, err := arch.Lookup(t)
	var tmaj, tmin int
	if err == nil {
		tmaj, tmin = ta.Major(), ta.Minor()
	} else {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(t), "sm_"), "a"))
		if err != nil || n < 10 {
			return nil // not a compute capability we can compare
		}
		tmaj, tmin = n/10, n%10
	}
	amaj, amin := a.Major(), a.Minor()
	switch f.Dialect {
	case isa.DialectPTX:
		if tmaj > amaj || tmaj == amaj && tmin > amin {
			return fmt.Errorf("%s is PTX for %s, which cannot be compiled for %s (the target architecture is later)", f.Name, t, a.Name)
		}
	case isa.DialectSASS:
		if tmaj != amaj || tmin > amin {
			return fmt.Errorf("%s is SASS for %s, which does not run on %s (a cubin runs on its major version, minor version at least its own)", f.Name, t, a.Name)
		}
	}
	return nil
}

// compute returns the kernel level of one kernel.
func (k *kernelLevel) compute(file *isa.File, fn *isa.Func, rep *static.Report, launch pass.Launch) (*kernel.JSON, error) {
	if k.reason != "" {
		j := kernel.NotComputed(launch.Grid, launch.Block, k.reason)
		return &j, nil
	}
	res, err := kernel.Analyze(kernel.Input{File: file, Func: fn, Static: rep, Block: launch.Block, Grid: launch.Grid,
		Arch: k.arch, Platform: k.plat, SMs: k.sms, ClockMHz: k.clock, Regs: k.regs, DynamicSmem: k.dyn, DynamicSmemSet: k.dynSet,
		Persistent: persistentOf(rep)})
	if err != nil {
		return nil, err
	}
	j := res.JSON
	j.Occupancy.Sources = append([]string{"architecture: " + k.arch.Name + " (" + k.archFrom + ")"}, j.Occupancy.Sources...)
	return &j, nil
}

// blockLower is the block's lower bound of a static report (nil when the
// totals could not be computed).
func blockLower(rep *static.Report, hw *hwdesc.Desc) *kernel.LowerJSON {
	t := rep.Totals
	if t == nil {
		return nil
	}
	l := &kernel.LowerJSON{Cycles: int64(t.Lower), WarpCycles: int64(t.LowerWarp), IssuedCycles: int64(t.LowerIssued), InitCycles: int64(t.LowerInit),
		LoadCycles: int64(t.Load), LoopMinimum: t.LoopMinimum}
	if hw != nil && hw.ClockMHz > 0 {
		ns := kernel.FloorNS(t.Lower, hw.ClockMHz)
		l.NS = &ns
	}
	return l
}

// writeLowerText writes the block's lower bound line of the text report.
func writeLowerText(w *bytes.Buffer, l *kernel.LowerJSON, rep *static.Report) {
	if l == nil {
		fmt.Fprintf(w, "lower bound: not computed: %v\n", rep.TotalsErr)
		return
	}
	fmt.Fprintf(w, "lower bound %d cycles", l.Cycles)
	if l.NS != nil {
		fmt.Fprintf(w, " (%d ns)", *l.NS)
	}
	fmt.Fprintf(w, ": shortest warp %d, block issues %d, busiest resource %d (no interference, loops at their minimum)\n", l.WarpCycles, l.IssuedCycles, l.InitCycles)
}

// kernelLevelUses returns the kernel-level assumptions of the report's
// kernels, and widens the scope's unit when a kernel level was computed.
func kernelLevelUses(r *report.Report) []assume.Use {
	var uses []assume.Use
	grid := false
	for _, k := range r.Kernels {
		j := k.KernelLevel
		if j == nil || j.Status == kernel.StatusNotComputed {
			continue
		}
		uses = append(uses, j.Uses...) // a persistent kernel's per-item bound rests on them too
		grid = grid || j.Status == kernel.StatusBounded
	}
	if grid {
		r.Scope.Unit += "; with --grid, also the whole grid on k = 1 … N SMs, from the first possible block dispatch to the readiness of the last result (kernels[].kernel_level)"
	}
	return uses
}

// persistentOf returns the positions of a persistent kernel's item loops
// and handshake loops (facts persistent = true, handshake = true), nil
// when the kernel is not persistent.
func persistentOf(rep *static.Report) *kernel.PersistentInput {
	if rep.Loops == nil {
		return nil
	}
	var p kernel.PersistentInput
	for _, lb := range rep.Loops.Loops {
		if lb.Bound == nil {
			continue
		}
		switch lb.Bound.Source {
		case loops.PersistentItem:
			p.Loops = append(p.Loops, lb.Pos.String())
		case loops.Handshake:
			p.Handshakes = append(p.Handshakes, lb.Pos.String())
		}
	}
	if len(p.Loops) == 0 {
		return nil
	}
	return &p
}

// writePersistentText says, after a persistent kernel's block bound, that
// it is per item.
func writePersistentText(w *bytes.Buffer, p *kernel.PersistentInput) {
	fmt.Fprintf(w, "persistent kernel (item loop %s; handshakes %s): the bound above is per item, %s\n", strings.Join(p.Loops, ", "), strings.Join(p.Handshakes, ", "), kernel.PersistentScope)
}
