// Package validation compares gpuwcet's bounds with observed executions:
// the single-warp GPGPU-Sim reference runs of the ECRTS 2025 work
// (../shared/reference/accelsim-singlewarp, reference-data.md §2–§4).
//
// For each trace the hardware description is imported from the trace's own
// gpgpusim.config (hwdesc.ImportOptions). The importer already carries the
// simulator's pipeline behaviour ([pipeline]: overhead 4, branch_wait
// "taken", ret and bar.sync issue; docs/hwdesc.md). The one number that is
// not a configuration value is the global-memory timing under
// -gpgpu_perfect_mem 1, calibrated per benchmark from gpgpu_inst_stats.txt
// (MemAccesses):
//
//   - GPGPU-Sim's LD/ST unit sends one memory access per cycle; a global
//     load that generates A accesses per warp instruction completes 5 + A
//     cycles after issue when the unit is free (reference-data.md §4.1:
//     6, 7, 9, 10 cycles for 1, 2, 4, 5 accesses), and a load queued behind
//     it waits for its accesses (the 14-cycle backprop lines, 10 + 4).
//   - So global-memory ops get init = A (the LD/ST resource is busy A
//     cycles) and a GPGPU-Sim latency of A + 1 (dispatch to result), i.e.
//     ready = start + A + 1 + overhead 4 = 5 + A after an unqueued issue;
//     stores (2 + A measured) are covered.
//   - A is an upper bound of the accesses of one execution of any global
//     line of the benchmark's statistics: a line executed by n warp
//     instructions that generated T accesses in total, each at least one,
//     has at most T − (n − 1) accesses in one execution (assumption: every
//     execution of a global line generates at least one access, the
//     statistics being aggregated over all launches of the benchmark).
//     A benchmark without global lines uses the largest A of all.
//
// The single-warp bound is bound.Compute over the phases profile of the
// trace's path; with one warp it is the warp's isolated duration summed
// over barrier sections.
package validation

import (
	"bufio"
	"fmt"
	"go/token"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases"
)

// Row is the comparison for one trace.
type Row struct {
	Benchmark   string
	Trace       string // file base name
	Kernel      string
	Instrs      int           // warp instructions (after dedupe)
	Observed    int64         // kernel_execution_time
	Bound       hwdesc.Cycles // single-warp bound
	MemAccesses hwdesc.Cycles // calibrated accesses per global warp instruction (LD/ST initiation)
	MemLatency  hwdesc.Cycles // global-load latency (GPGPU-Sim convention, dispatch to result): MemAccesses + 1
}

// Over returns the over-estimation (Bound−Observed)/Observed in percent.
func (r Row) Over() float64 {
	return 100 * float64(int64(r.Bound)-r.Observed) / float64(r.Observed)
}

// MemAccesses bounds the memory accesses of one execution of a global
// memory line (ld.global, ldu, tex, st.global, atom.global, red.global) of
// one benchmark directory, from its gpgpu_inst_stats.txt and the PTX
// modules it names: the largest T − (n − 1) over such lines, where T is the
// line's gmem_access_generated and n its gmem_warp (warp executions that
// generated accesses, each at least one). It also returns the largest mean
// issue-to-completion time (ceil(latency/count)) of those lines, for the
// record. ok is false when the statistics hold no global memory line.
func MemAccesses(dir string) (acc hwdesc.Cycles, maxMean int64, ok bool, err error) {
	f, err := os.Open(filepath.Join(dir, "gpgpu_inst_stats.txt"))
	if err != nil {
		return 0, 0, false, err
	}
	defer f.Close()
	modules := map[string][]string{}
	sc := bufio.NewScanner(f)
	n := 0
	var best int64
	for sc.Scan() {
		n++
		if n == 1 {
			continue // header
		}
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) < 10 || fs[2] != ":" {
			return 0, 0, false, fmt.Errorf("%s/gpgpu_inst_stats.txt:%d: malformed line", dir, n)
		}
		line, err1 := strconv.Atoi(fs[1])
		count, err2 := strconv.ParseInt(fs[3], 10, 64)
		total, err3 := strconv.ParseInt(fs[4], 10, 64)
		accs, err4 := strconv.ParseInt(fs[8], 10, 64)
		warps, err5 := strconv.ParseInt(fs[9], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || line < 1 || accs < 0 || warps < 0 {
			return 0, 0, false, fmt.Errorf("%s/gpgpu_inst_stats.txt:%d: malformed numbers", dir, n)
		}
		if count == 0 {
			continue
		}
		mod, ok := modules[fs[0]]
		if !ok {
			if fs[0] != filepath.Base(fs[0]) {
				return 0, 0, false, fmt.Errorf("%s/gpgpu_inst_stats.txt:%d: bad module name %q", dir, n, fs[0])
			}
			src, err := os.ReadFile(filepath.Join(dir, fs[0]))
			if err != nil {
				return 0, 0, false, err
			}
			mod = strings.Split(string(src), "\n")
			modules[fs[0]] = mod
		}
		if line > len(mod) {
			return 0, 0, false, fmt.Errorf("%s/gpgpu_inst_stats.txt:%d: %s has no line %d", dir, n, fs[0], line)
		}
		if !isGlobalMem(mod[line-1]) {
			continue
		}
		ok = true
		if warps > 0 {
			acc = max(acc, hwdesc.Cycles(accs-(warps-1)))
		}
		acc = max(acc, 1)
		if isGlobalLoad(mod[line-1]) {
			best = max(best, (total+count-1)/count)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, false, err
	}
	return acc, best, acc > 0, nil
}

// isGlobalMem reports whether a PTX line is a global memory operation that
// goes through the LD/ST unit's access path: a global load (isGlobalLoad),
// a global store, atomic or reduction.
func isGlobalMem(text string) bool {
	t := stripGuard(text)
	return isGlobalLoad(text) || strings.HasPrefix(t, "st.global") || strings.HasPrefix(t, "atom.global") || strings.HasPrefix(t, "red.global")
}

func stripGuard(text string) string {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "@") {
		if i := strings.IndexAny(t, " \t"); i > 0 {
			t = strings.TrimSpace(t[i:])
		}
	}
	return t
}

// isGlobalLoad reports whether a PTX line is a load routed to the global
// memory path (ld.global, ldu, tex).
func isGlobalLoad(text string) bool {
	t := stripGuard(text)
	return strings.HasPrefix(t, "ld.global") || strings.HasPrefix(t, "ldu.") || strings.HasPrefix(t, "tex.")
}

// Description imports dir/gpgpusim.config with global-memory ops of acc
// accesses per warp instruction: initiation acc, GPGPU-Sim latency acc + 1
// (see the package comment). Everything else, the pipeline overhead
// included, is the importer's.
func Description(dir string, acc hwdesc.Cycles) (*hwdesc.Desc, error) {
	path := filepath.Join(dir, "gpgpusim.config")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := hwdesc.ImportOptions{
		Name:       filepath.Base(dir) + "-singlewarp",
		File:       path,
		MemLatency: acc + 1,
		MemInit:    acc,
	}.Import(f)
	if err != nil {
		return nil, err
	}
	d.Notes = append(d.Notes, fmt.Sprintf("validation: global memory ops of at most %d accesses per warp instruction (gpgpu_inst_stats.txt): init %d, GPGPU-Sim latency %d, issue to completion %d + overhead", acc, acc, acc+1, acc+1))
	return d, nil
}

// SingleWarp computes the table over every trace below refDir
// (../shared/reference/accelsim-singlewarp), sorted by benchmark and trace.
func SingleWarp(refDir string) ([]Row, error) {
	paths, err := filepath.Glob(filepath.Join(refDir, "*", "*.trace"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no traces in %s", refDir)
	}
	sort.Strings(paths)
	// Accesses per benchmark; the largest as the fallback.
	accs := map[string]hwdesc.Cycles{}
	var maxAcc hwdesc.Cycles
	for _, p := range paths {
		dir := filepath.Dir(p)
		if _, done := accs[dir]; done {
			continue
		}
		a, _, ok, err := MemAccesses(dir)
		if err != nil {
			return nil, err
		}
		if ok {
			accs[dir] = a
			maxAcc = max(maxAcc, a)
		} else {
			accs[dir] = 0
		}
	}
	if maxAcc <= 0 {
		return nil, fmt.Errorf("no global memory line in any gpgpu_inst_stats.txt below %s", refDir)
	}
	var rows []Row
	for _, p := range paths {
		dir := filepath.Dir(p)
		a := accs[dir]
		if a == 0 {
			a = maxAcc
		}
		r, err := one(p, a)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func one(path string, acc hwdesc.Cycles) (Row, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return Row{}, err
	}
	fset := token.NewFileSet()
	f, err := load.FileWith(fset, path, src, &load.Options{Format: load.Trace, Dedupe: true})
	if err != nil {
		return Row{}, err
	}
	fn := f.Funcs[0]
	if !fn.Trace.HasObserved {
		return Row{}, fmt.Errorf("%s: no observed cycle count", path)
	}
	hw, err := Description(filepath.Dir(path), acc)
	if err != nil {
		return Row{}, err
	}
	prof, err := phases.Build(fset, fn, hw, 0, false)
	if err != nil {
		return Row{}, err
	}
	res, err := bound.Compute(prof)
	if err != nil {
		return Row{}, err
	}
	n := 0
	for _, w := range fn.Trace.Warps {
		n += len(w.Instrs)
	}
	return Row{
		Benchmark:   filepath.Base(filepath.Dir(path)),
		Trace:       filepath.Base(path),
		Kernel:      fn.Name,
		Instrs:      n,
		Observed:    fn.Trace.ObservedCycles,
		Bound:       res.Bound,
		MemAccesses: acc,
		MemLatency:  acc + 1,
	}, nil
}

// Summary returns the mean and maximum over-estimation in percent.
func Summary(rows []Row) (mean, maxOver float64) {
	maxOver = math.Inf(-1)
	for _, r := range rows {
		o := r.Over()
		mean += o
		maxOver = math.Max(maxOver, o)
	}
	return mean / float64(len(rows)), maxOver
}

// WriteMarkdown writes the table in Markdown.
func WriteMarkdown(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString("| Benchmark | Kernel (trace) | Instructions | Global accesses (init / latency) | Observed | Bound | Over-estimation |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | `%s` (`%s`) | %d | %d / %d | %d | %d | %.2f %% |\n",
			strings.TrimSuffix(r.Benchmark, "-rodinia-2.0-ft"), r.Kernel, r.Trace, r.Instrs, r.MemAccesses, r.MemLatency, r.Observed, r.Bound, r.Over())
	}
	mean, mx := Summary(rows)
	fmt.Fprintf(&b, "\nMean over-estimation %.2f %%, max %.2f %% (%d traces).\n", mean, mx, len(rows))
	_, err := io.WriteString(w, b.String())
	return err
}
