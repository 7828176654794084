package trace_test

import (
	"encoding/csv"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/trace"
)

// reference returns ../shared/reference (relative to the repository root)
// or skips the test.
func reference(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "reference")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("reference data not available (%v)", err)
	}
	return dir
}

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func parseRef(t *testing.T, path string, dedupe bool) *isa.File {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := trace.ParseFile(token.NewFileSet(), path, src, &trace.Options{
		Dedupe: dedupe,
		Module: load.ModulesIn(filepath.Dir(path), 0),
	})
	if err != nil {
		t.Fatalf("ParseFile: %v", err)
	}
	checkInvariants(t, f)
	return f
}

// TestSingleWarpCorpus checks every single-warp reference trace against
// index.csv and kernel_launch_stats.csv (reference-data.md §2, §3.5).
func TestSingleWarpCorpus(t *testing.T) {
	dir := filepath.Join(reference(t), "accelsim-singlewarp")
	stats := readCSV(t, filepath.Join(dir, "kernel_launch_stats.csv"))
	index := readCSV(t, filepath.Join(dir, "index.csv"))
	seen := map[string]bool{}
	for _, row := range index {
		stored := row["stored_as"]
		if seen[stored] {
			continue
		}
		seen[stored] = true
		t.Run(strings.TrimSuffix(filepath.Base(stored), ".trace"), func(t *testing.T) {
			f := parseRef(t, filepath.Join(dir, stored), true)
			fn := f.Funcs[0]
			tr := fn.Trace
			if len(tr.Warps) != 1 {
				t.Fatalf("%d warps, want 1", len(tr.Warps))
			}
			n := len(tr.Warps[0].Instrs)
			bars := 0
			for _, in := range tr.Warps[0].Instrs {
				if in.Kind == isa.KindBarrier && in.Barrier == isa.BarSync {
					bars++
				}
			}
			if want, _ := strconv.Atoi(row["instr_lines"]); n != want {
				t.Errorf("instructions = %d, index.csv says %d", n, want)
			}
			if want, _ := strconv.Atoi(row["bar_sync_lines"]); bars != want {
				t.Errorf("bar.sync = %d, index.csv says %d", bars, want)
			}
			if tr.Deduplicated != 0 {
				t.Errorf("Deduplicated = %d, want 0 in single-warp traces", tr.Deduplicated)
			}
			want, _ := strconv.ParseInt(row["kernel_execution_time_cycles"], 10, 64)
			if !tr.HasObserved || tr.ObservedCycles != want {
				t.Errorf("observed = %d (%v), want %d", tr.ObservedCycles, tr.HasObserved, want)
			}
			// gpu_sim_insn (warp instructions) and gpu_sim_cycle of the
			// launches stored as this trace.
			matched := 0
			for _, s := range stats {
				if s["benchmark"] != row["benchmark"] || s["kernel_name"] != fn.Name {
					continue
				}
				if cyc, _ := strconv.ParseInt(s["gpu_sim_cycle"], 10, 64); cyc != tr.ObservedCycles {
					continue
				}
				matched++
				if insn, _ := strconv.Atoi(s["gpu_sim_insn"]); insn != n {
					t.Errorf("launch %s: gpu_sim_insn = %d, trace has %d", s["kernel_launch_uid"], insn, n)
				}
			}
			if matched == 0 {
				t.Errorf("no launch of %s with %d cycles in kernel_launch_stats.csv", fn.Name, tr.ObservedCycles)
			}
			// Module resolution: every benchmark but vecadd (§3.4).
			resolved := len(fn.Params) > 0
			vecadd := strings.HasPrefix(row["benchmark"], "vecadd")
			if resolved == vecadd {
				t.Errorf("module resolved = %v, want %v; warnings: %v", resolved, !vecadd, f.Warnings)
			}
			if !vecadd && len(f.Warnings) != 0 {
				t.Errorf("unexpected warnings: %v", f.Warnings)
			}
		})
	}
	if len(seen) != 10 {
		t.Errorf("%d stored traces, want 10", len(seen))
	}
}

// TestQuirks checks the quirk counts of reference-data.md §3.3 and that the
// trace text parses into the same instruction as the module text.
func TestQuirks(t *testing.T) {
	dir := filepath.Join(reference(t), "accelsim-singlewarp")
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "*.trace"))
	negated, glued := 0, 0
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		withMod := parseRef(t, path, true)
		// The same trace parsed from its own text.
		fset := token.NewFileSet()
		textOnly, err := trace.ParseFile(fset, path, src, &trace.Options{Dedupe: true})
		if err != nil {
			t.Fatalf("%s without module: %v", path, err)
		}
		a, b := withMod.Funcs[0].Trace.Warps[0].Instrs, textOnly.Funcs[0].Trace.Warps[0].Instrs
		if len(a) != len(b) {
			t.Fatalf("%s: %d vs %d instructions", path, len(a), len(b))
		}
		vecadd := strings.Contains(path, "vecadd")
		for i := range a {
			if a[i].Guard.Neg {
				negated++
			}
			if vecadd {
				continue
			}
			if got, want := describeInstr(b[i]), describeInstr(a[i]); got != want {
				t.Errorf("%s: trace text parses as\n\t%s\nmodule line parses as\n\t%s", fset.Position(b[i].Pos), got, want)
			}
		}
		for _, line := range strings.Split(string(src), "\n") {
			if _, text, ok := strings.Cut(line, ") "); ok && strings.HasPrefix(line, "warp") {
				if strings.HasPrefix(text, "@") {
					_, text, _ = strings.Cut(text, " ")
				}
				op, _, _ := strings.Cut(text, " ")
				if strings.Contains(op, "%") {
					glued++
				}
			}
		}
	}
	if negated != 13 {
		t.Errorf("negated guards = %d, want 13", negated)
	}
	if glued != 468 {
		t.Errorf("glued lines = %d, want 468", glued)
	}
}

func describeInstr(in *isa.Instr) string {
	var b strings.Builder
	b.WriteString(in.Guard.String() + " " + in.Op() + " " + in.Kind.String() + " " + in.Space.String())
	for _, o := range in.Dsts {
		b.WriteString(" d:" + o.Kind.String() + ":" + strings.Join(o.Regs, ","))
	}
	for _, o := range in.Srcs {
		b.WriteString(" s:" + o.Kind.String() + ":" + strings.Join(o.Regs, ","))
	}
	b.WriteString(" t:" + strings.Join(in.Targets, ","))
	return b.String()
}

// TestMultiWarpDuplicates checks the 16-warp vecadd trace (§3.3, §3.5):
// 304 instructions after dedup, 526 dropped, 19 per warp, no trailer.
func TestMultiWarpDuplicates(t *testing.T) {
	path := filepath.Join(reference(t), "accelsim-vecadd-16warps", "_Z12vecaddKernelPiS_S_i1.trace")
	f := parseRef(t, path, true)
	tr := f.Funcs[0].Trace
	total := 0
	for _, w := range tr.Warps {
		if len(w.Instrs) != 19 {
			t.Errorf("warp %d: %d instructions, want 19", w.Warp, len(w.Instrs))
		}
		total += len(w.Instrs)
	}
	if len(tr.Warps) != 16 || total != 304 || tr.Deduplicated != 526 {
		t.Errorf("warps=%d instructions=%d deduplicated=%d, want 16, 304, 526", len(tr.Warps), total, tr.Deduplicated)
	}
	if tr.HasObserved {
		t.Errorf("HasObserved = true, want false")
	}
	if f.Funcs[0].Name != "_Z12vecaddKernelPiS_S_i" {
		t.Errorf("name = %q", f.Funcs[0].Name)
	}
	var trailer bool
	for _, w := range f.Warnings {
		if strings.Contains(w.Msg, "kernel_execution_time") {
			trailer = true
		}
	}
	if !trailer {
		t.Errorf("no warning about the missing trailer: %v", f.Warnings)
	}
	// Without dedupe: all 830 lines kept, with a warning.
	src, _ := os.ReadFile(path)
	g, err := trace.ParseFile(token.NewFileSet(), path, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range g.Funcs[0].Trace.Warps {
		n += len(w.Instrs)
	}
	if n != 830 {
		t.Errorf("without dedupe: %d instructions, want 830", n)
	}
	var dup bool
	for _, w := range g.Warnings {
		if strings.Contains(w.Msg, "526 line(s) repeat") {
			dup = true
		}
	}
	if !dup {
		t.Errorf("no duplicate warning: %v", g.Warnings)
	}
}
