package report

import (
	"fmt"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound/kernel"
)

// writeLowerMD writes the block lower bounds (kernels[].lower_bound).
func writeLowerMD(b *strings.Builder, ks []Kernel) {
	have := false
	for _, k := range ks {
		have = have || k.LowerBound != nil
	}
	if !have {
		return
	}
	b.WriteString("Lower bounds of a block (no interference, loops at their minimum; docs/model.md, \"Lower bounds\"):\n\n")
	b.WriteString("| Kernel | Lower bound (cycles) | Lower bound (ns) | Shortest warp | Block issues | Busiest resource | Block load (cycles) |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range ks {
		l := k.LowerBound
		if l == nil {
			continue
		}
		ns := "-"
		if l.NS != nil {
			ns = fmt.Sprint(*l.NS)
		}
		fmt.Fprintf(b, "| %s | %d | %s | %d | %d | %d | %d |\n", code(k.Name), l.Cycles, ns, l.WarpCycles, l.IssuedCycles, l.InitCycles, l.LoadCycles)
	}
	b.WriteString("\n")
}

// writeKernelLevelMD writes a kernel's kernel-level bound
// (kernels[].kernel_level, docs/kernel.md).
func writeKernelLevelMD(b *strings.Builder, k *Kernel) {
	j := k.KernelLevel
	if j == nil {
		return
	}
	fmt.Fprintf(b, "Kernel level of %s (grid %s = %d blocks of %s threads):\n\n", icode(k.Name), dims(j.Grid), j.Blocks, dims(j.Block))
	switch j.Status {
	case kernel.StatusNotComputed:
		fmt.Fprintf(b, "Not computed: %s.\n\n", cell(j.Reason))
		return
	case kernel.StatusPersistent:
		p := j.Persistent
		fmt.Fprintf(b, "A persistent kernel (loop at %s): **no bound for the whole kernel**, which runs until told to stop. Per-item bound: %d cycles (lower bound %d); handshake loops %s. Scope: %s.\n\n",
			icode(p.Loop), p.ItemCycles, p.ItemLowerCycles, icode(strings.Join(p.Handshakes, ", ")), cell(p.Scope))
		return
	}
	on := fmt.Sprintf("%s, %d SMs, %s MHz", cell(j.Arch), j.SMs, num(j.ClockMHz))
	if j.Platform != nil {
		on = fmt.Sprintf("platform %s (%s)", code(j.Platform.Name), on)
	}
	o := j.Occupancy
	occ := fmt.Sprint(o.Lo)
	if o.Hi != o.Lo {
		occ = fmt.Sprintf("%d (guaranteed) to %d (most)", o.Lo, o.Hi)
	}
	fmt.Fprintf(b, "| Item | Value |\n|---|---|\n")
	row(b, "Target", on)
	row(b, "Occupancy (blocks per SM)", fmt.Sprintf("%s, %d warps per block, limited by %s", occ, o.WarpsPerBlock, cell(strings.Join(o.Limiter, " and "))))
	for _, s := range o.Sources {
		row(b, "Occupancy input", cell(s))
	}
	row(b, "Block bound / load / lower bound (cycles)", fmt.Sprintf("%d / %d / %d", j.BlockBound, j.BlockLoad, j.BlockLower))
	var co []string
	for _, c := range j.CoResident {
		co = append(co, fmt.Sprintf("m=%d: %d", c.Blocks, c.BoundCycles))
	}
	row(b, "Co-resident bound (cycles; m blocks share the SM, no refill)", strings.Join(co, ", "))
	if j.Launch != nil {
		row(b, "Launch overhead", fmt.Sprintf("%d ns max (%s): %s", j.Launch.MaxNS, cell(j.Launch.Kind), cell(j.Launch.Source)))
	} else {
		row(b, "Launch overhead", "not given: not included")
	}
	if j.Dispatch != nil {
		row(b, "Dispatch latency", fmt.Sprintf("%d cycles (%s): %s", j.Dispatch.MaxCycles, cell(j.Dispatch.Kind), cell(j.Dispatch.Source)))
	} else {
		row(b, "Dispatch latency", "not given: taken as 0 (see the growth per cycle below)")
	}
	b.WriteString("\nbound(k) on k SMs (device makespan from the first possible dispatch; docs/model.md, \"Theorem K\"):\n\n")
	b.WriteString("| SMs | Waves | Upper (cycles) | Lower (cycles) | Upper (ns) | Lower (ns) | Upper with launch (ns) | Growth per cycle of dispatch latency | Lower bound by |\n|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, p := range j.Bounds {
		tot := "-"
		if p.TotalUpperNS > 0 {
			tot = fmt.Sprint(p.TotalUpperNS)
		}
		fmt.Fprintf(b, "| %d | %d | %d | %d | %d | %d | %s | %d | %s |\n", p.SMs, p.Waves, p.UpperCycles, p.LowerCycles, p.UpperNS, p.LowerNS, tot, p.DispatchCoeff, cell(p.LowerBy))
	}
	if j.Conditional {
		b.WriteString("\nThe totals include an overhead that is measured or assumed, not bounded: they are conditional on it.\n")
	}
	b.WriteString("\nKernel-level assumptions:\n\n")
	for _, a := range j.Assumptions {
		fmt.Fprintf(b, "- %s\n", para(a))
	}
	if len(j.Exclusions) > 0 {
		b.WriteString("\nNot included:\n\n")
		for _, e := range j.Exclusions {
			fmt.Fprintf(b, "- %s\n", para(e))
		}
	}
	b.WriteString("\n")
}
