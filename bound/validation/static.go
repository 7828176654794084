package validation

// The static bound (bound/static, gpuwcet analyze) of the PTX of each
// traced kernel, compared with the observation and the trace-based bound
// (docs/validation.md, "Static bound on the traced Rodinia kernels").

import (
	"encoding/csv"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// StaticRow is the static bound of the kernel of one single-warp trace.
type StaticRow struct {
	Row            // the trace-based comparison (SingleWarp): Observed, Bound
	Launches []int // kernel_launch_uid of the launches stored as this trace
	Launch   pass.Launch
	Module   string // base name of the PTX module analysed ("" when refused before)

	// Static is the static bound; zero when Refused is set.
	Static hwdesc.Cycles
	// Refused is why the static analysis gave no bound (the reason it
	// reported, or why the module could not be analysed).
	Refused string
	Loops   []StaticLoop
	// Facts is the generated facts file (traced loop bounds), nil when
	// every loop is derived or the kernel has none.
	Facts []byte
	// ECRTS is the ECRTS 2025 bounds.txt of the kernel that was compared
	// (path under ../shared/reference), "" when none exists;
	// ECRTSErr why it could not be converted to this module's loops.
	ECRTS, ECRTSErr string
}

// StaticOver is Static/Observed − 1 in percent.
func (r StaticRow) StaticOver() float64 {
	return 100 * float64(int64(r.Static)-r.Observed) / float64(r.Observed)
}

// StaticOverTrace is Static/Bound − 1 in percent (static against the
// trace-based bound).
func (r StaticRow) StaticOverTrace() float64 {
	return 100 * float64(r.Static-r.Bound) / float64(r.Bound)
}

// Loop sources of StaticLoop.
const (
	LoopDerived   = "derived"   // derived by cfg/loops at the launch configuration
	LoopTraced    = "traced"    // generated from the trace: only as good as the traced input
	LoopAnnotated = "annotated" // another facts file (not used by this harness yet)
)

// StaticLoop is one loop of the analysed kernel.
type StaticLoop struct {
	Key  loops.LoopKey
	Line int // line of the header's first instruction
	// Entries and Traced: the entries into the loop in the trace, and the
	// largest number of executions of its header in one entry (0 when
	// never entered).
	Entries int
	Traced  int64
	// Source is LoopDerived or LoopTraced; Derived is the derived
	// expression ("" when none), NotDerived why no value was derived.
	Source     string
	Derived    string
	DerivedMax int64 // the derived bound when Source is LoopDerived
	NotDerived string
	// Used is the bound the static analysis used for the loop (after the
	// lane multiplier of a serialised loop), -1 when it never asked.
	Used int64
	// ECRTS is the loop's bound in the ECRTS 2025 bounds.txt, converted
	// with loops.ConvertECRTS (compared only, not used); -1 when none.
	ECRTS int64
}

// Covers reports whether the bound used covers the traced run (a loop the
// analysis never asked for is covered only when the trace never entered
// it).
func (l StaticLoop) Covers() bool {
	if l.Used < 0 {
		return l.Entries == 0
	}
	return l.Used >= l.Traced
}

// StaticBounds computes, for every single-warp trace below refDir, the
// static bound of the traced kernel's PTX (the module the trace resolves
// to), with the trace harness's hardware description (Description, with
// the same MemAccesses calibration as SingleWarp), the launch
// configuration of kernel_launch_stats.csv and loop bounds that cover the
// traced run: derived where cfg/loops derives a value at that launch
// (no kernel argument is recorded), otherwise the largest number of header
// executions per entry observed in the trace, written as a facts file.
func StaticBounds(refDir string) ([]StaticRow, error) {
	rows, err := SingleWarp(refDir)
	if err != nil {
		return nil, err
	}
	launches, err := readLaunches(refDir)
	if err != nil {
		return nil, err
	}
	var out []StaticRow
	for _, r := range rows {
		sr := StaticRow{Row: r}
		if err := staticOne(refDir, &sr, launches); err != nil {
			return nil, fmt.Errorf("%s: %w", r.Trace, err)
		}
		out = append(out, sr)
	}
	return out, nil
}

// launchRec is one row of kernel_launch_stats.csv.
type launchRec struct {
	uid         int
	block, grid [3]int
}

// readLaunches maps "benchmark/stored trace" to the launches index.csv
// stores as it, with their dimensions from kernel_launch_stats.csv.
func readLaunches(refDir string) (map[string][]launchRec, error) {
	index, err := readCSV(filepath.Join(refDir, "index.csv"), "benchmark", "original_trace_file", "stored_as")
	if err != nil {
		return nil, err
	}
	stats, err := readCSV(filepath.Join(refDir, "kernel_launch_stats.csv"), "benchmark", "kernel_name", "kernel_launch_uid", "gridDim", "blockDim")
	if err != nil {
		return nil, err
	}
	type key struct {
		bench, kernel string
		uid           int
	}
	dims := map[key]launchRec{}
	for _, s := range stats {
		uid, err := strconv.Atoi(s[2])
		if err != nil {
			return nil, fmt.Errorf("kernel_launch_stats.csv: bad kernel_launch_uid %q", s[2])
		}
		g, err1 := parseDims(s[3])
		b, err2 := parseDims(s[4])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("kernel_launch_stats.csv: %s launch %d: bad dimensions %q, %q", s[1], uid, s[3], s[4])
		}
		dims[key{s[0], s[1], uid}] = launchRec{uid: uid, block: b, grid: g}
	}
	out := map[string][]launchRec{}
	for _, ix := range index {
		// original_trace_file = <kernel><uid>.trace
		base := strings.TrimSuffix(ix[1], ".trace")
		i := len(base)
		for i > 0 && base[i-1] >= '0' && base[i-1] <= '9' {
			i--
		}
		uid, err := strconv.Atoi(base[i:])
		if err != nil {
			return nil, fmt.Errorf("index.csv: %s: no launch number", ix[1])
		}
		rec, ok := dims[key{ix[0], base[:i], uid}]
		if !ok {
			return nil, fmt.Errorf("index.csv: %s: launch %d of %s not in kernel_launch_stats.csv", ix[1], uid, base[:i])
		}
		out[ix[2]] = append(out[ix[2]], rec)
	}
	for _, rs := range out {
		sort.Slice(rs, func(i, j int) bool { return rs[i].uid < rs[j].uid })
	}
	return out, nil
}

// readCSV returns the named columns of every data row.
func readCSV(path string, cols ...string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	idx := make([]int, len(cols))
	for i, c := range cols {
		idx[i] = -1
		for j, h := range recs[0] {
			if h == c {
				idx[i] = j
			}
		}
		if idx[i] < 0 {
			return nil, fmt.Errorf("%s: no column %q", path, c)
		}
	}
	var out [][]string
	for _, r := range recs[1:] {
		row := make([]string, len(cols))
		for i, j := range idx {
			row[i] = r[j]
		}
		out = append(out, row)
	}
	return out, nil
}

// parseDims parses "32x1x1".
func parseDims(s string) ([3]int, error) {
	var d [3]int
	parts := strings.Split(s, "x")
	if len(parts) != 3 {
		return d, fmt.Errorf("bad dimensions %q", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return d, fmt.Errorf("bad dimensions %q", s)
		}
		d[i] = n
	}
	return d, nil
}

// staticOne fills one row. Errors are harness failures (unreadable or
// inconsistent reference data); an analysis that gives no bound sets
// Refused.
func staticOne(refDir string, r *StaticRow, launches map[string][]launchRec) error {
	dir := filepath.Join(refDir, r.Benchmark)
	tracePath := filepath.Join(dir, r.Trace)

	// Launch configuration: every launch stored as this trace must have
	// the same dimensions, and one warp.
	recs := launches[r.Benchmark+"/"+r.Trace]
	if len(recs) == 0 {
		return fmt.Errorf("no launch in index.csv / kernel_launch_stats.csv")
	}
	for _, l := range recs {
		if l.block != recs[0].block || l.grid != recs[0].grid {
			return fmt.Errorf("launches %d and %d stored as one trace have different dimensions", recs[0].uid, l.uid)
		}
		r.Launches = append(r.Launches, l.uid)
	}
	r.Launch = pass.Launch{Block: recs[0].block, Grid: recs[0].grid}
	if n := r.Launch.Threads(); n > 32 || r.Launch.Grid != [3]int{1, 1, 1} {
		return fmt.Errorf("launch %v × %v is not a single warp", r.Launch.Grid, r.Launch.Block)
	}

	// The trace, resolved against its module (as SingleWarp reads it).
	src, err := os.ReadFile(tracePath)
	if err != nil {
		return err
	}
	tfset := token.NewFileSet()
	tf, err := load.FileWith(tfset, tracePath, src, &load.Options{Format: load.Trace, Dedupe: true})
	if err != nil {
		return err
	}
	tfn := tf.Funcs[0]
	modPath := tfset.Position(tfn.Instrs[0].Pos).Filename
	if modPath == tracePath {
		r.Refused = noModule(dir, tfn.Name)
		return nil
	}
	r.Module = filepath.Base(modPath)
	var paths [][]int // module line of each instruction, per warp
	for _, w := range tfn.Trace.Warps {
		var p []int
		for _, in := range w.Instrs {
			pos := tfset.Position(tfn.Instrs[in.Index].Pos)
			if pos.Filename != modPath {
				return fmt.Errorf("trace instruction %s resolved to %s, not to %s", tfset.Position(in.Pos), pos.Filename, modPath)
			}
			p = append(p, pos.Line)
		}
		paths = append(paths, p)
	}

	// The module, as gpuwcet analyze reads it.
	msrc, err := os.ReadFile(modPath)
	if err != nil {
		return err
	}
	sha := loops.SHA256(msrc)
	fset := token.NewFileSet()
	file, err := load.File(fset, modPath, msrc, load.PTX)
	if err != nil {
		return err
	}
	fn := file.Func(r.Kernel)
	if fn == nil {
		return fmt.Errorf("the trace resolved to %s, which has no kernel %s", r.Module, r.Kernel)
	}
	// The loops pass, as gpuwcet analyze runs it (on the inlined unit),
	// without facts: derived bounds at the launch, else traced.
	kernelRE := regexp.MustCompile("^" + regexp.QuoteMeta(r.Kernel) + "$")
	lres, err := pass.Run([]*pass.Analyzer{loops.Analyzer}, file, pass.Options{Launch: r.Launch, Funcs: kernelRE,
		Inputs: map[string]any{loops.ListingSHAInput: sha}})
	if err != nil {
		return err
	}
	if len(lres.Funcs) != 1 {
		return fmt.Errorf("%d functions selected, want 1", len(lres.Funcs))
	}
	if u := lres.Get(cfg.InlineAnalyzer, lres.Funcs[0]); u.Err == nil && u.Result.(*cfg.Unit).Err != nil {
		r.Refused = u.Result.(*cfg.Unit).Err.Error()
		return nil
	}
	g := lres.Get(cfg.InlineAnalyzer, lres.Funcs[0]).Result.(*cfg.Unit).Graph
	r.Loops = traceLoops(g, paths)
	ecrtsCompare(refDir, r, g, sha)
	var facts []StaticLoop
	lact := lres.Get(loops.Analyzer, lres.Funcs[0])
	for i := range r.Loops {
		l := &r.Loops[i]
		var lb *loops.LoopBound
		if lact.Err == nil {
			lb = lact.Result.(*loops.Result).Loops[i]
		}
		switch {
		case lb == nil:
			l.NotDerived = lact.Err.Error()
		case lb.Derived != nil:
			l.Derived = lb.Derived.Expr
			l.Source, l.DerivedMax = LoopDerived, lb.Derived.Max
			continue
		default:
			l.NotDerived = lb.Why
		}
		l.Source = LoopTraced
		facts = append(facts, *l)
	}
	inputs := map[string]any{loops.ListingSHAInput: sha}
	if len(facts) > 0 {
		r.Facts = tracedFacts(r.Module, sha, r.Kernel, r.Trace, facts)
		fs, err := loops.DecodeFacts("traced-"+strings.TrimSuffix(r.Trace, ".trace")+".facts.toml", r.Facts)
		if err != nil {
			return fmt.Errorf("generated facts file: %w", err)
		}
		inputs[loops.FactsInput] = fs
	}

	// The static analysis, as gpuwcet analyze runs it.
	hw, err := Description(dir, r.MemAccesses)
	if err != nil {
		return err
	}
	res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, file, pass.Options{
		HW: hw, Launch: r.Launch, Check: true, Inputs: inputs,
		Funcs: regexp.MustCompile("^" + regexp.QuoteMeta(r.Kernel) + "$"),
	})
	if err != nil {
		return err
	}
	if len(res.Funcs) != 1 {
		return fmt.Errorf("%d functions selected, want 1", len(res.Funcs))
	}
	act := res.Get(static.Analyzer, res.Funcs[0])
	if act.Err != nil {
		// As analyze does: report the failing prerequisite's error.
		err := act.Err
		for _, a := range res.Actions() {
			if a.Func == res.Funcs[0] && a.Err != nil && a != act && !strings.Contains(a.Err.Error(), "failed prerequisites") {
				err = a.Err
			}
		}
		r.Refused = strings.ReplaceAll(err.Error(), filepath.Dir(modPath)+string(filepath.Separator), "")
		return nil
	}
	rep := act.Result.(*static.Report)
	r.Static = rep.Bound
	used := map[int]int64{}
	for _, u := range rep.Result.Loops {
		line := fset.Position(u.Header.Pos).Line
		used[line] = max(used[line], u.Max)
	}
	for i := range r.Loops {
		l := &r.Loops[i]
		l.Used = -1
		if u, ok := used[l.Line]; ok {
			l.Used = u
		}
		// The bound the loops pass used must be the one chosen here.
		lb := rep.Loops.ByLine(l.Line)
		want := loops.Derived
		if l.Source == LoopTraced {
			want = loops.Annotated
		}
		if lb == nil || lb.Bound == nil || lb.Bound.Source != want {
			return fmt.Errorf("loop at line %d: the analysis did not use the %s bound", l.Line, l.Source)
		}
	}
	return nil
}

// noModule explains why a trace has no module beside it to analyse.
func noModule(dir, kernel string) string {
	mods, _ := filepath.Glob(filepath.Join(dir, "*.ptx"))
	var have []string
	for _, m := range mods {
		src, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		f, err := load.File(token.NewFileSet(), m, src, load.PTX)
		if err != nil {
			continue
		}
		for _, fn := range f.Funcs {
			if fn.Entry {
				have = append(have, "`"+fn.Name+"`")
			}
		}
	}
	sort.Strings(have)
	msg := fmt.Sprintf("no PTX beside the trace defines `%s`", kernel)
	if len(have) > 0 {
		msg += " (the module there declares " + strings.Join(have, ", ") + ")"
	}
	return msg + "; the trace's lines do not match the stored module (reference-data.md §3.4)"
}

// ecrtsCompare reads the kernel's ECRTS 2025 bounds.txt, if any (the
// one-warp variant rodinia_bounds/1w first, then rodinia/), converts it to
// this module's loops and records each loop's bound for comparison.
func ecrtsCompare(refDir string, r *StaticRow, g *cfg.Graph, sha string) {
	bench, _, _ := strings.Cut(r.Benchmark, "-")
	lb := filepath.Join(refDir, "..", "loop-bounds")
	for _, rel := range []string{
		filepath.Join("rodinia_bounds", "1w", bench, r.Kernel, "bounds.txt"),
		filepath.Join("rodinia", bench, r.Kernel, "bounds.txt"),
	} {
		data, err := os.ReadFile(filepath.Join(lb, rel))
		if err != nil {
			continue
		}
		r.ECRTS = filepath.ToSlash(filepath.Join("loop-bounds", rel))
		bs, err := loops.ParseECRTS(r.ECRTS, data)
		if err == nil {
			var f *loops.Facts
			if f, err = loops.ConvertECRTS(r.ECRTS, bs, g, r.Module, sha); err == nil {
				for _, lf := range f.Kernels[0].Loops {
					v, _ := lf.Max.IsConst()
					for i := range r.Loops {
						if k := r.Loops[i].Key; (k.Label != "" && k.Label == lf.Key.Label) || (k.Label == "" && k.Line == lf.Key.Line) {
							r.Loops[i].ECRTS = v
						}
					}
				}
			}
		}
		if err != nil {
			r.ECRTSErr = strings.ReplaceAll(err.Error(), "\n", "; ")
		}
		return
	}
}

// traceLoops counts, for each natural loop of g (in g.Loops order), the
// entries into it along the warps' paths (module lines) and the largest
// number of executions of its header in one entry. An entry starts when
// the path moves from outside the loop's body to inside it (or starts
// inside); it ends when the path leaves the body.
func traceLoops(g *cfg.Graph, paths [][]int) []StaticLoop {
	blockOf := map[int]*cfg.Block{}
	for _, b := range g.Blocks {
		for _, in := range b.Instrs {
			blockOf[g.Fset.Position(in.Pos).Line] = b
		}
	}
	out := make([]StaticLoop, len(g.Loops))
	for i, l := range g.Loops {
		head := g.Fset.Position(l.Header.Instrs[0].Pos).Line
		sl := StaticLoop{Key: loopKey(l, head), Line: head, Used: -1, ECRTS: -1}
		for _, p := range paths {
			inside := false
			var n int64
			for _, line := range p {
				b := blockOf[line]
				in := b != nil && l.Contains(b)
				switch {
				case in && !inside:
					sl.Entries++
					n = 0
				case !in && inside:
					sl.Traced = max(sl.Traced, n)
				}
				inside = in
				if in && line == head {
					n++
				}
			}
			if inside {
				sl.Traced = max(sl.Traced, n)
			}
		}
		out[i] = sl
	}
	return out
}

func loopKey(l *cfg.Loop, line int) loops.LoopKey {
	if lab := l.Label(); lab != "" {
		return loops.LoopKey{Label: lab, Offset: -1}
	}
	return loops.LoopKey{Line: line, Offset: -1}
}

// tracedFacts writes the facts file of the traced loop bounds.
func tracedFacts(module, sha, kernel, trace string, ls []StaticLoop) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# gpuwcet facts v1 for %s, generated by bound/validation from %s.\n", module, trace)
	b.WriteString("# TRACED loop bounds: the largest number of header executions per entry\n")
	b.WriteString("# observed in one run. They are only as good as the traced input.\n")
	fmt.Fprintf(&b, "version = 1\nlisting = %s\nsha256 = %q\n\n[[kernel]]\nname = %q\n", strconv.Quote(module), sha, kernel)
	for _, l := range ls {
		b.WriteString("\n[[kernel.loop]]\n")
		if l.Key.Label != "" {
			fmt.Fprintf(&b, "label = %q\n", l.Key.Label)
		} else {
			fmt.Fprintf(&b, "line = %d\n", l.Key.Line)
		}
		fmt.Fprintf(&b, "max = %d\n", l.Traced)
		why := fmt.Sprintf("traced: %d entries in %s, at most %d header executions in one", l.Entries, trace, l.Traced)
		if l.Derived != "" {
			why += "; derived " + l.Derived + " needs a value the data do not record"
		}
		fmt.Fprintf(&b, "why = %q\nby = \"bound/validation (generated from the trace)\"\n", why)
	}
	return []byte(b.String())
}

// WriteStaticMarkdown writes the comparison table and the loop table.
func WriteStaticMarkdown(w io.Writer, rows []StaticRow) error {
	var b strings.Builder
	b.WriteString("| Kernel (trace, launches) | Observed | Trace bound | Static bound | static/observed − 1 | static/trace − 1 | Loops |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		name := fmt.Sprintf("%s `%s` (%s)", strings.TrimSuffix(r.Benchmark, "-rodinia-2.0-ft"), r.Kernel, launchList(r.Launches))
		if r.Refused != "" {
			fmt.Fprintf(&b, "| %s | %d | %d | refused: %s | – | – | %s |\n", name, r.Observed, r.Bound, escapePipes(r.Refused), loopSummary(r))
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.2f %% | %.2f %% | %s |\n", name, r.Observed, r.Bound, r.Static, r.StaticOver(), r.StaticOverTrace(), loopSummary(r))
	}
	b.WriteString("\n| Kernel (launches) | Loop (header line) | Entries in the trace | Max per entry in the trace | Derived | Source | Bound used | ECRTS bounds.txt |\n")
	b.WriteString("|---|---|---:|---:|---|---|---:|---|\n")
	for _, r := range rows {
		for _, l := range r.Loops {
			der := "none: " + l.NotDerived
			if l.Derived != "" {
				der = "`" + l.Derived + "`"
				if l.Source == LoopDerived {
					der += fmt.Sprintf(" = %d", l.DerivedMax)
				} else {
					der += ", not evaluable: " + l.NotDerived
				}
			}
			used := "–"
			if l.Used >= 0 {
				used = strconv.FormatInt(l.Used, 10)
			}
			ecrts := "–"
			switch {
			case r.ECRTSErr != "":
				ecrts = "not convertible"
			case l.ECRTS >= 0:
				ecrts = strconv.FormatInt(l.ECRTS, 10)
			case r.ECRTS != "":
				ecrts = "no entry"
			}
			fmt.Fprintf(&b, "| `%s` (%s) | %s (%d) | %d | %d | %s | %s | %s | %s |\n", r.Kernel, strings.TrimPrefix(strings.TrimPrefix(launchList(r.Launches), "launches "), "launch "), loopName(l), l.Line, l.Entries, l.Traced, escapePipes(der), l.Source, used, ecrts)
		}
	}
	for _, r := range rows {
		if r.ECRTSErr != "" {
			fmt.Fprintf(&b, "\n`%s`: ECRTS `%s` not convertible: %s\n", r.Kernel, r.ECRTS, escapePipes(r.ECRTSErr))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func loopName(l StaticLoop) string {
	if l.Key.Label != "" {
		return "`" + l.Key.Label + "`"
	}
	return fmt.Sprintf("line %d", l.Key.Line)
}

func loopSummary(r StaticRow) string {
	if len(r.Loops) == 0 {
		if r.Module == "" {
			return "–"
		}
		return "none"
	}
	var parts []string
	for _, l := range r.Loops {
		parts = append(parts, fmt.Sprintf("%s ≤ %d %s", loopName(l), boundOf(l), l.Source))
	}
	return strings.Join(parts, ", ")
}

// boundOf is the loop bound chosen (before any lane multiplier).
func boundOf(l StaticLoop) int64 {
	if l.Source == LoopDerived {
		return l.DerivedMax
	}
	return l.Traced
}

func launchList(uids []int) string {
	if len(uids) == 1 {
		return fmt.Sprintf("launch %d", uids[0])
	}
	s := make([]string, len(uids))
	for i, u := range uids {
		s[i] = strconv.Itoa(u)
	}
	return "launches " + strings.Join(s, ", ")
}

func escapePipes(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
