package kernel

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the kernel-level part of a kernel's text report.
func WriteText(w io.Writer, j *JSON) error {
	var b strings.Builder
	switch j.Status {
	case StatusNotComputed:
		fmt.Fprintf(&b, "kernel level: not computed: %s\n", j.Reason)
		_, err := io.WriteString(w, b.String())
		return err
	case StatusPersistent:
		writePersistent(&b, j)
		_, err := io.WriteString(w, b.String())
		return err
	}
	on := fmt.Sprintf("%s, %d SMs", j.Arch, j.SMs)
	if j.Platform != nil {
		on = fmt.Sprintf("%s (%s)", j.Platform.Name, on)
	}
	if j.ClockMHz > 0 {
		on += fmt.Sprintf(", %g MHz", j.ClockMHz)
	}
	fmt.Fprintf(&b, "kernel level: grid %s = %d blocks of %s threads on %s\n", dims(j.Grid), j.Blocks, dims(j.Block), on)
	o := j.Occupancy
	fmt.Fprintf(&b, "  occupancy: %s blocks per SM (%d warps per block; limited by %s)\n", rangeText(o.Lo, o.Hi), o.WarpsPerBlock, strings.Join(o.Limiter, " and "))
	for _, s := range o.Sources {
		fmt.Fprintf(&b, "    %s\n", s)
	}
	fmt.Fprintf(&b, "  block: bound %d, load %d, lower bound %d, work %d cycles\n", j.BlockBound, j.BlockLoad, j.BlockLower, j.BlockWork)
	b.WriteString("  co-resident bound (m blocks share the SM, no refill):")
	for _, c := range j.CoResident {
		fmt.Fprintf(&b, " m=%d %d", c.Blocks, c.BoundCycles)
	}
	b.WriteString("\n")
	if j.Launch != nil {
		fmt.Fprintf(&b, "  launch overhead: %d ns max, %s (%s)\n", j.Launch.MaxNS, j.Launch.Kind, oneLine(j.Launch.Source))
	} else {
		b.WriteString("  launch overhead: not given (excluded)\n")
	}
	if j.Dispatch != nil {
		fmt.Fprintf(&b, "  dispatch latency: %d cycles, %s (%s)\n", j.Dispatch.MaxCycles, j.Dispatch.Kind, oneLine(j.Dispatch.Source))
	} else {
		b.WriteString("  dispatch latency: not given (taken as 0; column +/cycle: growth per cycle of latency)\n")
	}
	total := j.Launch != nil && j.ClockMHz > 0
	fmt.Fprintf(&b, "  %4s %8s %14s %14s", "SMs", "waves", "upper cycles", "lower cycles")
	if j.ClockMHz > 0 {
		fmt.Fprintf(&b, " %12s %12s", "upper us", "lower us")
	}
	if total {
		fmt.Fprintf(&b, " %14s", "+launch us")
	}
	fmt.Fprintf(&b, " %8s  %s\n", "+/cycle", "lower by")
	for _, p := range j.Bounds {
		fmt.Fprintf(&b, "  %4d %8d %14d %14d", p.SMs, p.Waves, p.UpperCycles, p.LowerCycles)
		if j.ClockMHz > 0 {
			fmt.Fprintf(&b, " %12s %12s", us(p.UpperNS), us(p.LowerNS))
		}
		if total {
			fmt.Fprintf(&b, " %14s", us(p.TotalUpperNS))
		}
		fmt.Fprintf(&b, " %8d  %s\n", p.DispatchCoeff, p.LowerBy)
	}
	if j.Conditional {
		b.WriteString("  the totals include an overhead that is measured or assumed, not bounded: they are conditional on it\n")
	}
	b.WriteString("  kernel-level assumptions:\n")
	for _, a := range j.Assumptions {
		fmt.Fprintf(&b, "    - %s\n", a)
	}
	if len(j.Exclusions) > 0 {
		b.WriteString("  not included:\n")
		for _, e := range j.Exclusions {
			fmt.Fprintf(&b, "    - %s\n", e)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writePersistent(b *strings.Builder, j *JSON) {
	p := j.Persistent
	fmt.Fprintf(b, "kernel level: persistent kernel (loop at %s): no bound for the whole kernel, which runs until told to stop\n", p.Loop)
	fmt.Fprintf(b, "  per-item bound %d cycles", p.ItemCycles)
	if p.ItemNS > 0 {
		fmt.Fprintf(b, " (%s us)", us(p.ItemNS))
	}
	fmt.Fprintf(b, ", lower bound %d cycles; handshake loops %s\n", p.ItemLowerCycles, strings.Join(p.Handshakes, ", "))
	fmt.Fprintf(b, "  scope: %s\n", p.Scope)
	if p.HandshakeNS > 0 {
		fmt.Fprintf(b, "  host handshake round trip: %d ns max, %s (platform)\n", p.HandshakeNS, p.HandshakeKind)
	}
}

func dims(d [3]int) string {
	switch {
	case d[2] > 1:
		return fmt.Sprintf("%dx%dx%d", d[0], d[1], d[2])
	case d[1] > 1:
		return fmt.Sprintf("%dx%d", d[0], d[1])
	}
	return fmt.Sprint(d[0])
}

func rangeText(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d..%d", lo, hi)
}

// us prints nanoseconds as microseconds with three decimals.
func us(ns int64) string { return fmt.Sprintf("%d.%03d", ns/1000, ns%1000) }

func oneLine(s string) string {
	if i := strings.IndexAny(s, ".;"); i > 0 && i < 100 {
		return s[:i]
	}
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}
