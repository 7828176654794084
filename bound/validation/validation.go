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
//   - A bounds the accesses of one execution of the instruction's PTX
//     line (LineStat.AccessBound): the least of T − (n − 1), where the
//     line was executed by n warp instructions that generated T accesses
//     in total, each at least one (assumption: the statistics, aggregated
//     over all launches, hold every execution), and the physical cap
//     lanes × ⌈w/32⌉ (one access per 32-byte sector touched, one sector
//     per active lane for an aligned access of w ≤ 16 bytes). Each global
//     memory instruction of a trace is timed with its own line's A
//     (perLine); an instruction without statistics, and the description's
//     other LD/ST units, take the benchmark's largest (MemAccesses; the
//     largest of all for a benchmark without global lines).
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
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
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
	MemAccesses hwdesc.Cycles // calibrated accesses per global warp instruction (LD/ST initiation): the benchmark's largest line bound
	MemLatency  hwdesc.Cycles // global-load latency (GPGPU-Sim convention, dispatch to result): MemAccesses + 1
	// LineMin and LineMax are the smallest and largest access bounds of
	// the trace's global memory instructions, each timed with its own
	// line's (0 when it has none).
	LineMin, LineMax hwdesc.Cycles
}

// Over returns the over-estimation (Bound−Observed)/Observed in percent.
func (r Row) Over() float64 {
	return 100 * float64(int64(r.Bound)-r.Observed) / float64(r.Observed)
}

// Granule is GPGPU-Sim's coalescing granularity under these configurations
// (-gpgpu_coalesce_arch 86): one memory access per 32-byte sector a warp
// instruction touches (a 128-byte warp load at offset +4 makes 5
// accesses: backprop, reference-data.md §4.1).
const Granule = 32

// WarpLanes is the number of threads of a warp.
const WarpLanes = 32

// LineStat is one global-memory line of gpgpu_inst_stats.txt: a PTX line
// (ld.global, ldu, tex, st.global, atom.global, red.global) of one
// benchmark, aggregated over all its launches.
type LineStat struct {
	Module string
	Line   int
	Text   string // the PTX line
	// Count is the thread-level executions (the active lanes of every
	// warp execution summed), Accesses the memory accesses generated
	// (gmem_access_generated), Warps the warp executions that generated
	// accesses (gmem_warp).
	Count, Accesses, Warps int64
}

// Accesses bounds the memory accesses of one warp execution of the line
// (docs/validation.md, "Single-warp traces"): the least of
//
//   - T − (n − 1), T the accesses and n the warp executions that generated
//     them, each at least one (assumption: the statistics hold every
//     execution, aggregated over the launches; a line that generated none
//     generates none in any execution);
//   - the physical cap lanes × ⌈w / Granule⌉: each active lane's access of
//     w bytes, aligned to w as PTX requires (w ≤ 16), lies in one 32-byte
//     sector, so a warp instruction touches at most one sector per active
//     lane whatever the addresses; lanes ≤ 32 and, each warp execution
//     having at least one active lane, lanes ≤ Count − (n − 1);
//
// and at least 1 (an instruction occupies the LD/ST unit one cycle). The
// coalesced count lanes × w / Granule is not a cap: a misaligned warp
// access touches one sector more (backprop: 5 accesses for 128 bytes).
func (l LineStat) AccessBound() hwdesc.Cycles {
	a := l.Accesses // no execution generated an access: 0, hence 1 below
	lanes := int64(WarpLanes)
	if l.Warps > 0 {
		a = l.Accesses - (l.Warps - 1)
		lanes = min(lanes, l.Count-(l.Warps-1))
	}
	w := AccessWidth(l.Text)
	a = min(a, max(lanes, 1)*((w+Granule-1)/Granule))
	return hwdesc.Cycles(max(a, 1))
}

// AccessWidth returns the bytes one lane accesses for a PTX memory
// instruction: the vector width (v2, v4) times the type's size (b8 … b128;
// 4 when no type is written, a conservative size for the cap, which is
// lanes × ⌈w/32⌉ = lanes for every w ≤ 32).
func AccessWidth(text string) int64 {
	t := stripGuard(text)
	if i := strings.IndexAny(t, " \t"); i > 0 {
		t = t[:i]
	}
	vec, size := int64(1), int64(4)
	for _, m := range strings.Split(t, ".")[1:] {
		switch m {
		case "v2":
			vec = 2
		case "v4":
			vec = 4
		case "v8":
			vec = 8
		case "b8", "u8", "s8":
			size = 1
		case "b16", "u16", "s16", "f16", "bf16":
			size = 2
		case "b32", "u32", "s32", "f32", "f16x2", "bf16x2":
			size = 4
		case "b64", "u64", "s64", "f64":
			size = 8
		case "b128":
			size = 16
		}
	}
	return vec * size
}

// LineStats reads the global-memory lines of one benchmark directory's
// gpgpu_inst_stats.txt (with the text of each line from the PTX module it
// names), keyed by "module:line". Lines never executed are left out.
func LineStats(dir string) (map[string]LineStat, error) {
	f, err := os.Open(filepath.Join(dir, "gpgpu_inst_stats.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	modules := map[string][]string{}
	out := map[string]LineStat{}
	sc := bufio.NewScanner(f)
	n := 0
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
			return nil, fmt.Errorf("%s/gpgpu_inst_stats.txt:%d: malformed line", dir, n)
		}
		line, err1 := strconv.Atoi(fs[1])
		count, err2 := strconv.ParseInt(fs[3], 10, 64)
		total, err3 := strconv.ParseInt(fs[4], 10, 64)
		accs, err4 := strconv.ParseInt(fs[8], 10, 64)
		warps, err5 := strconv.ParseInt(fs[9], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || line < 1 || accs < 0 || warps < 0 || count < 0 || total < 0 {
			return nil, fmt.Errorf("%s/gpgpu_inst_stats.txt:%d: malformed numbers", dir, n)
		}
		if count == 0 {
			continue
		}
		mod, ok := modules[fs[0]]
		if !ok {
			if fs[0] != filepath.Base(fs[0]) {
				return nil, fmt.Errorf("%s/gpgpu_inst_stats.txt:%d: bad module name %q", dir, n, fs[0])
			}
			src, err := os.ReadFile(filepath.Join(dir, fs[0]))
			if err != nil {
				return nil, err
			}
			mod = strings.Split(string(src), "\n")
			modules[fs[0]] = mod
		}
		if line > len(mod) {
			return nil, fmt.Errorf("%s/gpgpu_inst_stats.txt:%d: %s has no line %d", dir, n, fs[0], line)
		}
		if !isGlobalMem(mod[line-1]) {
			continue
		}
		if warps > accs || (warps > 0 && count < warps) {
			return nil, fmt.Errorf("%s/gpgpu_inst_stats.txt:%d: %d accesses over %d warp executions of %d threads: not a count of accesses per execution", dir, n, accs, warps, count)
		}
		out[fmt.Sprintf("%s:%d", fs[0], line)] = LineStat{Module: fs[0], Line: line, Text: strings.TrimSpace(mod[line-1]), Count: count, Accesses: accs, Warps: warps}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// MemAccesses bounds the memory accesses of one execution of any global
// memory line of one benchmark directory: the largest LineStat.AccessBound
// over its lines of gpgpu_inst_stats.txt. It also returns the largest
// mean issue-to-completion time (ceil(latency/count)) of its global loads,
// for the record. ok is false when the statistics hold no global memory
// line.
func MemAccesses(dir string) (acc hwdesc.Cycles, maxMean int64, ok bool, err error) {
	ls, err := LineStats(dir)
	if err != nil {
		return 0, 0, false, err
	}
	for _, l := range ls {
		acc = max(acc, l.AccessBound())
	}
	// The mean latencies, from the raw file (not kept in LineStat).
	f, err := os.Open(filepath.Join(dir, "gpgpu_inst_stats.txt"))
	if err != nil {
		return 0, 0, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 || fs[2] != ":" {
			continue
		}
		l, ok := ls[fs[0]+":"+fs[1]]
		if !ok || !isGlobalLoad(l.Text) {
			continue
		}
		count, _ := strconv.ParseInt(fs[3], 10, 64)
		total, _ := strconv.ParseInt(fs[4], 10, 64)
		if count > 0 {
			maxMean = max(maxMean, (total+count-1)/count)
		}
	}
	return acc, maxMean, len(ls) > 0, sc.Err()
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
	dir := filepath.Dir(path)
	hw, err := Description(dir, acc)
	if err != nil {
		return Row{}, err
	}
	stats, err := LineStats(dir)
	if err != nil {
		return Row{}, err
	}
	lo, hi, err := perLine(hw, fset, fn, string(src), stats, acc)
	if err != nil {
		return Row{}, fmt.Errorf("%s: %w", path, err)
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
		Benchmark:   filepath.Base(dir),
		Trace:       filepath.Base(path),
		Kernel:      fn.Name,
		Instrs:      n,
		Observed:    fn.Trace.ObservedCycles,
		Bound:       res.Bound,
		MemAccesses: acc,
		MemLatency:  acc + 1,
		LineMin:     lo,
		LineMax:     hi,
	}, nil
}

// traceLine reads the PTX line a trace line names: "(module.ptx:53)".
var traceLine = regexp.MustCompile(`\(([^():\s]+):(\d+)\)`)

// perLine times every global memory instruction of the trace with the
// access bound of its own PTX line (LineStat.AccessBound), instead of the
// benchmark's largest: it adds to hw one unit per bound K (in the group of
// the global-load unit, init K, GPGPU-Sim latency K + 1, as Description
// times the benchmark's) and a rule routing the opcodes marked ".accK",
// and marks each instruction with the modifier accK. An instruction whose
// line has no statistics keeps acc, the benchmark's bound. It returns the
// smallest and largest bound used (0, 0 when the trace has no global
// memory instruction).
func perLine(hw *hwdesc.Desc, fset *token.FileSet, fn *isa.Func, trace string, stats map[string]LineStat, acc hwdesc.Cycles) (lo, hi hwdesc.Cycles, err error) {
	lines := strings.Split(trace, "\n")
	gmem := hw.UnitIndex("gmem")
	if gmem < 0 {
		return 0, 0, fmt.Errorf("description %s has no gmem unit", hw.Name)
	}
	added := map[hwdesc.Cycles]bool{}
	var rules []hwdesc.Rule
	for _, w := range fn.Trace.Warps {
		for _, in := range w.Instrs {
			if !isGlobalMem(in.Text) || strings.HasPrefix(in.Mods[len(in.Mods)-1], "acc") {
				continue
			}
			k := acc
			pos := fset.Position(in.Pos)
			if pos.Line >= 1 && pos.Line <= len(lines) {
				if m := traceLine.FindStringSubmatch(lines[pos.Line-1]); m != nil {
					if l, ok := stats[m[1]+":"+m[2]]; ok {
						k = l.AccessBound()
					}
				}
			}
			if lo == 0 || k < lo {
				lo = k
			}
			hi = max(hi, k)
			in.Mods = append(in.Mods, fmt.Sprintf("acc%d", k))
			if !added[k] {
				added[k] = true
				name := fmt.Sprintf("gmem_acc%d", k)
				hw.Units = append(hw.Units, hwdesc.Unit{Name: name, Init: k, Lat: 1, Group: hw.GroupOf(gmem), Count: 1, GPGPUSimLatency: k + 1,
					Doc: fmt.Sprintf("validation: global memory ops of at most %d accesses per warp instruction (the access bound of their PTX line in gpgpu_inst_stats.txt)", k)})
				rules = append(rules, hwdesc.Rule{Match: fmt.Sprintf("*.acc%d", k), Unit: name})
			}
		}
	}
	hw.Map = append(rules, hw.Map...)
	return lo, hi, nil
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
	b.WriteString("| Benchmark | Kernel (trace) | Instructions | Global accesses per line (benchmark's largest) | Observed | Bound | Over-estimation |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		lines := "none"
		if r.LineMax > 0 {
			lines = fmt.Sprint(r.LineMin)
			if r.LineMax != r.LineMin {
				lines += fmt.Sprintf("–%d", r.LineMax)
			}
		}
		fmt.Fprintf(&b, "| %s | `%s` (`%s`) | %d | %s (%d) | %d | %d | %.2f %% |\n",
			strings.TrimSuffix(r.Benchmark, "-rodinia-2.0-ft"), r.Kernel, r.Trace, r.Instrs, lines, r.MemAccesses, r.Observed, r.Bound, r.Over())
	}
	mean, mx := Summary(rows)
	fmt.Fprintf(&b, "\nMean over-estimation %.2f %%, max %.2f %% (%d traces).\n", mean, mx, len(rows))
	_, err := io.WriteString(w, b.String())
	return err
}
