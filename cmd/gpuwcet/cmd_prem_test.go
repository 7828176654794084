package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/loops"
)

// TestPremGolden runs the command lines of testdata/prem/*.txtar: the
// example's schedules (examples/prem-conv2d/README.md shows the same
// commands) and the notes' golden schedules in every output format.
func TestPremGolden(t *testing.T) { commandGolden(t, "testdata/prem/*.txtar") }

// TestPremBadInput: every malformed schedule is refused with exit code 1
// and a positioned message, and a report file asked for records the error
// (verdict "error"), never a pass, even when an earlier run left one.
func TestPremBadInput(t *testing.T) {
	base, err := os.ReadFile("testdata/prem/notes-kw-phase-3000-1000.toml")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("../../examples/prem-conv2d/phase-block-fixed.toml")
	if err != nil {
		t.Fatal(err)
	}
	table := `schema_version = 1
[platform]
timer_resolution_ns = 100
release_jitter_ns = 100
[schedule]
mode = "table"
granularity = "kernel"
warmup_ns = 1000
hyperperiod_ns = 10000
[[schedule.window]]
participant = "k.0"
phase = "prefetch"
offset_ns = 0
length_ns = 3000
[[schedule.window]]
participant = "k.0"
phase = "writeback"
offset_ns = 5000
length_ns = 1000
[[schedule.window]]
participant = "k.1"
phase = "prefetch"
offset_ns = 2500
length_ns = 1000
[[schedule.window]]
participant = "k.1"
phase = "writeback"
offset_ns = 7000
length_ns = 1000
[[kernel]]
id = "k"
instances = 2
blocks = 1
threads_per_block = 64
tiles_per_block = 4
[[bound]]
kernel = "k"
phase = "prefetch"
wcet_ns = 100
[[bound]]
kernel = "k"
phase = "compute"
wcet_ns = 100
[[bound]]
kernel = "k"
phase = "writeback"
wcet_ns = 100
`
	sub := func(s, old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("bad-input table: %q not in the base", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	b := string(base)
	ex := string(example)
	tests := []struct {
		name, schedule string
		args           []string
		want           string // in standard error, after "gpuwcet: prem check: "
	}{
		{"unknown top-level key", "nmae = 1\n" + b, nil, `schedule.toml:1: unknown key "nmae" (did you mean "name"?)`},
		{"unknown key in a table", sub(b, "pf_offset_ns", "pf_ofset_ns"), nil, `schedule.toml:18: unknown key "schedule.pf_ofset_ns" (did you mean "pf_offset_ns"?)`},
		{"unknown key in an inline table", sub(ex, `prefetch  = { region = "prefetch" }`, `prefetch  = { regoin = "prefetch" }`), []string{"--hw", "rtx3070"}, `schedule.toml:38: unknown key "kernel.phases.prefetch.regoin" (did you mean "region"?)`},
		{"unknown kernel of a bound", sub(b, `kernel = "conv"`, `kernel = "cnv"`), nil, `schedule.toml:37: bound for kernel "cnv": no [[kernel]] has this id (ids: conv)`},
		{"unknown region", sub(ex, `compute   = { region = "compute" }`, `compute   = { region = "stencil" }`), []string{"--hw", "rtx3070"}, `schedule.toml:39: kernel conv: no region "stencil" in conv2d_phase (found: compute, prefetch, writeback)`},
		{"unknown function", sub(ex, `function = "conv2d_phase"`, `function = "conv2d"`), []string{"--hw", "rtx3070"}, `schedule.toml:28: kernel conv: kernel.ptx has no kernel conv2d`},
		{"unknown participant in order", sub(b, "[schedule]\n", "[schedule]\norder = [\"conv.0\", \"conv.9\"]\n"), nil, `schedule.toml:14: order names "conv.9", which is no participant (kernel granularity: conv.0, conv.1, conv.2, conv.3)`},
		{"overlapping table windows", table, nil, `schedule.toml:20: window of k.1 prefetch [2500, 3500) overlaps the window of k.0 prefetch [0, 3000) (line 10): memory windows of a table must not overlap`},
		{"table window outside the period", sub(table, "offset_ns = 7000", "offset_ns = 9500"), nil, `schedule.toml:25: window of k.1 writeback [9500, 10500) leaves the hyperperiod [0, 10000) (C3)`},
		{"negative time", sub(b, "pf_offset_ns = 3000", "pf_offset_ns = -3000"), nil, `schedule.toml:18: pf_offset_ns = -3000: a time must not be negative`},
		{"overflowing integer", sub(b, "pf_offset_ns = 3000", "pf_offset_ns = 99999999999999999999"), nil, `schedule.toml:18:16: 99999999999999999999 is out of range for int64`},
		{"time above the limit", sub(b, "warmup_ns = 10_000", "warmup_ns = 9_000_000_000_000_000"), nil, `schedule.toml:16: warmup_ns = 9000000000000000: larger than the limit of 1125899906842624 ns`},
		{"span overflowing 64 bits", sub(sub(b, "tiles_per_block = 512", "tiles_per_block = 2_000_000_000"), "pf_offset_ns = 3000", "pf_offset_ns = 1_000_000_000_000"), nil, `schedule.toml:13: the schedule spans more than 2^62 ns`},
		{"sha256 of another listing", sub(ex, `listing = "kernel.ptx"`, `listing = "kernel.ptx"`+"\nsha256 = \""+strings.Repeat("ab", 32)+`"`), []string{"--hw", "rtx3070"}, `schedule.toml:30: kernel conv: the schedule names listing`},
		{"wrong schema version", sub(b, "schema_version = 1", "schema_version = 2"), nil, `schedule.toml:1: schema_version 2 is not supported (want 1)`},
		{"no warm-up tile left", sub(b, "tiles_per_block = 512", "tiles_per_block = 1"), nil, `schedule.toml:33: tiles_per_block 1: a block needs more tiles than the 1 warm-up tiles`},
		{"deep nesting", "a = " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n" + b, nil, `schedule.toml:1:37: nesting deeper than 32`},
		{"syntax error", b + "\n[schedule\n", nil, `schedule.toml:56:10: expected`},
		{"phases without --hw", ex, nil, `names code regions ([kernel.phases]): give --hw`},
		{"dynamic shared memory with shared_bytes", sub(ex, "shared_bytes = 16384", "shared_bytes = 16384\ndynamic_shared_bytes = 1024"), []string{"--hw", "rtx3070"}, `schedule.toml:35: dynamic_shared_bytes with shared_bytes: shared_bytes gives the block's whole shared memory`},
		{"negative dynamic shared memory", sub(ex, "shared_bytes = 16384", "dynamic_shared_bytes = -1"), []string{"--hw", "rtx3070"}, `schedule.toml:34: dynamic_shared_bytes = -1: must be between 0 and 1073741824`},
		{"more tiles than the tile loop runs", sub(ex, "tiles_per_block = 512", "tiles_per_block = 600"), []string{"--hw", "rtx3070"}, `schedule.toml:35: kernel conv: tiles_per_block 600, but the tile loop of conv2d_phase (kernel.ptx:258:2) runs at most 512 times (N4)`},
	}
	for _, tc := range tests {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			sched := filepath.Join(dir, "schedule.toml")
			if err := os.WriteFile(sched, []byte(tc.schedule), 0o644); err != nil {
				t.Fatal(err)
			}
			ptx, err := os.ReadFile("../../examples/prem-conv2d/kernel.ptx")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "kernel.ptx"), ptx, 0o644); err != nil {
				t.Fatal(err)
			}
			rep := filepath.Join(dir, "report.json")
			// A stale report of a passing run.
			if err := os.WriteFile(rep, []byte(`{"summary": {"verdict": "pass"}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir)
			var out, errb bytes.Buffer
			args := append([]string{"gpuwcet", "prem", "check", "--report-json", "report.json"}, tc.args...)
			code := run(append(args, "schedule.toml"), &out, &errb)
			if code != ExitBadInput {
				t.Fatalf("exit %d, want 1; stderr:\n%s", code, errb.String())
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr:\n%s\nwant it to contain %q", errb.String(), tc.want)
			}
			if strings.Contains(errb.String(), "panic") {
				t.Errorf("panic: %s", errb.String())
			}
			data, err := os.ReadFile("report.json")
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Summary struct{ Verdict string } `json:"summary"`
			}
			if err := json.Unmarshal(data, &r); err != nil || r.Summary.Verdict != "error" || bytes.Contains(data, []byte(`"pass"`)) {
				t.Errorf("report after bad input: verdict %q (%v):\n%s", r.Summary.Verdict, err, data)
			}
		})
	}
}

// TestPremExampleReadme: every command of examples/prem-conv2d/README.md is
// the command line of a golden of TestPremGolden (with the example's path),
// so that the README's commands and verdicts stay those of the tool.
func TestPremExampleReadme(t *testing.T) {
	data, err := os.ReadFile("../../examples/prem-conv2d/README.md")
	if err != nil {
		t.Fatal(err)
	}
	goldens := map[string]bool{}
	files, _ := filepath.Glob("testdata/prem/example-*.txtar")
	for _, f := range files {
		g, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		line, _, _ := strings.Cut(string(g), "\n")
		goldens[line] = true
	}
	n := 0
	for _, block := range strings.Split(string(data), "```sh\n")[1:] {
		cmd, _, _ := strings.Cut(block, "```")
		cmd = strings.TrimSpace(cmd)
		if !strings.HasPrefix(cmd, "gpuwcet prem check") {
			continue
		}
		n++
		f := strings.Fields(strings.TrimPrefix(cmd, "gpuwcet "))
		f[len(f)-1] = "../../examples/prem-conv2d/" + f[len(f)-1]
		if want := strings.Join(f, " "); !goldens[want] {
			t.Errorf("README command %q has no golden testdata/prem/example-*.txtar running %q", cmd, want)
		}
	}
	if n < 5 {
		t.Errorf("README has %d prem check commands, want the 5 schedules", n)
	}
}

// TestPremGraphics: --gantt, --trace and --conflicts, or the schedule's
// [output] table (relative to the schedule), write the three files; an
// output that is the schedule is refused before anything is written.
func TestPremGraphics(t *testing.T) {
	base, err := os.ReadFile("testdata/prem/notes-kw-whole-1400.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sched := filepath.Join(dir, "s.toml")
	withOutput := string(base) + "\n[output]\ngantt_svg = \"out/g.svg\"\ntrace_json = \"out/t.json\"\nconflict_dot = \"out/c.dot\"\ngantt_hyperperiods = 1\n"
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sched, []byte(withOutput), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"gpuwcet", "prem", "check", sched}, &out, &errb); code != ExitVerdict {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"out/g.svg", "out/t.json", "out/c.dot"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	g := filepath.Join(dir, "flag.svg")
	if code := run([]string{"gpuwcet", "prem", "check", "--gantt", g, "--gantt-range", "0:2", sched}, &out, &errb); code != ExitVerdict {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if data, err := os.ReadFile(g); err != nil || !bytes.HasPrefix(data, []byte("<?xml")) {
		t.Errorf("--gantt: %v", err)
	}
	errb.Reset()
	if code := run([]string{"gpuwcet", "prem", "check", "--gantt", sched, sched}, &out, &errb); code != ExitBadInput || !strings.Contains(errb.String(), "choose another file") {
		t.Errorf("--gantt onto the schedule: exit %d, %s", code, errb.String())
	}
	if data, _ := os.ReadFile(sched); string(data) != withOutput {
		t.Error("the schedule was overwritten")
	}
	errb.Reset()
	if code := run([]string{"gpuwcet", "prem", "check", "--gantt-range", "5:2", sched}, &out, &errb); code != ExitBadInput || !strings.Contains(errb.String(), "--gantt-range") {
		t.Errorf("bad --gantt-range: exit %d, %s", code, errb.String())
	}
}

// TestPremRegionsWithoutTileBound: conv2d_stream's tile loop runs until the
// host raises a stop flag (no static bound): prem check bounds its phases
// all the same, with a block-unbounded and a tile-count warning, and the
// bounds are those it finds when a facts file bounds the tile loop (the
// regions do not depend on the tile count). Its compute phase crosses a
// loop of barriers (3 sweeps), counted 3 times.
func TestPremRegionsWithoutTileBound(t *testing.T) {
	const dir = "../../examples/prem-conv2d"
	sched, err := os.ReadFile(filepath.Join(dir, "stream-block.toml"))
	if err != nil {
		t.Fatal(err)
	}
	ptx, err := os.ReadFile(filepath.Join(dir, "stream.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	regions := func(sched string) (map[string]int64, []string) {
		t.Helper()
		out, errs, code := runCmd(t, "prem", "check", "--hw", "rtx3070", "--format", "json", sched)
		if code != ExitOK {
			t.Fatalf("prem check %s: exit %d\n%s", sched, code, errs)
		}
		var r struct {
			Diagnostics []struct{ Rule string }
			Prem        struct {
				Regions []struct {
					Phase    string
					Cycles   int64
					Sections []string
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		m := map[string]int64{}
		for _, reg := range r.Prem.Regions {
			m[reg.Phase] = reg.Cycles
			if reg.Phase == "compute" && !strings.Contains(strings.Join(reg.Sections, "\n"), " x 3") {
				t.Errorf("compute sections %q: no section crossed 3 times", reg.Sections)
			}
		}
		var rules []string
		for _, d := range r.Diagnostics {
			rules = append(rules, d.Rule)
		}
		return m, rules
	}
	without, rules := regions(filepath.Join(dir, "stream-block.toml"))
	if len(without) != 3 || !strings.Contains(strings.Join(rules, " "), "block-unbounded") || !strings.Contains(strings.Join(rules, " "), "tile-count") {
		t.Fatalf("without a tile bound: regions %v, diagnostics %v", without, rules)
	}
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "stream.ptx"), ptx, 0o644); err != nil {
		t.Fatal(err)
	}
	facts := "version = 1\nlisting = \"stream.ptx\"\nsha256 = \"" + loops.SHA256(ptx) + "\"\n[[kernel]]\nname = \"conv2d_stream\"\n[[kernel.loop]]\nlabel = \"$L__BB0_2\"\nmax = 256\nwhy = \"the host raises the stop flag after 256 tiles\"\n"
	if err := os.WriteFile(filepath.Join(tmp, "stream.facts.toml"), []byte(facts), 0o644); err != nil {
		t.Fatal(err)
	}
	withFacts := strings.Replace(string(sched), "tile_bytes = 8192\n", "tile_bytes = 8192\nfacts = \"stream.facts.toml\"\n", 1)
	if err := os.WriteFile(filepath.Join(tmp, "s.toml"), []byte(withFacts), 0o644); err != nil {
		t.Fatal(err)
	}
	with, rules := regions(filepath.Join(tmp, "s.toml"))
	if !reflect.DeepEqual(with, without) || strings.Contains(strings.Join(rules, " "), "block-unbounded") {
		t.Errorf("regions without a tile bound %v, with one %v (diagnostics %v)", without, with, rules)
	}
}
