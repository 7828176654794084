package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/sass"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// sassPreset is the SASS description analyze uses for a corpus
// architecture in these tests: a built-in, or for sm_52 and sm_62 (no
// preset) sass-sm61 extended with the architecture (Maxwell and Pascal
// share the opcode map; the figures do not matter to these tests).
func sassPreset(t *testing.T, arch string) string {
	switch arch {
	case "sm_70":
		return "sass-sm70"
	case "sm_80":
		return "sass-sm86"
	case "sm_87":
		return "sass-sm87"
	case "sm_90":
		return "sass-sm90"
	case "sm_52", "sm_62":
		path := filepath.Join(t.TempDir(), arch+".toml")
		desc := fmt.Sprintf("name = \"test-%s\"\nextends = \"sass-sm61\"\narch = %q\nsource = \"sass-sm61 for the control-flow tests of sass_calls_test.go\"\n", arch, arch)
		if err := os.WriteFile(path, []byte(desc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t.Fatalf("no description for %s", arch)
	return ""
}

// analyzeJSON is the part of analyze's JSON report these tests read.
type analyzeJSON struct {
	Kernels []struct {
		Name         string `json:"name"`
		BoundCycles  int64  `json:"bound_cycles"`
		InlinedCalls bool   `json:"inlined_calls"`
		Loops        []struct {
			Key    string `json:"key"`
			Max    int64  `json:"max"`
			Source string `json:"source"`
		} `json:"loops"`
	} `json:"kernels"`
	Diagnostics []struct {
		Rule    string `json:"rule"`
		Level   string `json:"level"`
		Message string `json:"message"`
	} `json:"diagnostics"`
	Errors []string `json:"errors"`
}

// callsDevice reports whether fn calls a function defined in f.
func callsDevice(f *isa.File, fn *isa.Func) bool {
	for _, in := range fn.Instrs {
		if in.Kind == isa.KindCall && len(in.Targets) == 1 {
			if g := f.Func(in.Targets[0]); g != nil && !g.Decl {
				return true
			}
		}
	}
	return false
}

// analyzeSASS runs gpuwcet analyze on one kernel of a SASS listing with
// the launch of the manifest and the extra flags, and decodes its JSON
// report.
func analyzeSASS(t *testing.T, path, arch string, k *cfgtest.Kernel, l cfgtest.Launch, extra ...string) (*analyzeJSON, int, string) {
	t.Helper()
	args := []string{"gpuwcet", "analyze", "--hw", sassPreset(t, arch), "--kernel", "^" + regexp.QuoteMeta(k.Symbol) + "$", "--format", "json"}
	args = append(args, extra...)
	args = append(args, l.Flags(k)...)
	args = append(args, path)
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	var j analyzeJSON
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatalf("%v: exit %d: report: %v\n%s", args, code, err, errb.String())
	}
	return &j, code, errb.String()
}

// TestAnalyzeSASSDeviceCalls runs analyze on every kernel of the kernel
// corpus whose SASS listing calls a device function (ptxas puts the
// callee in the kernel's own code section: cfg/sass splits it off), with
// the first launch of the manifest. Each must be analysed through
// cfg.Inline: bounded with its calls inlined, or not bounded (exit 2) for a
// reason other than its calls (a loop the value analysis does not bound, a
// barrier it cannot show to be reached by every warp); the reasons are
// logged. A kernel not bounded for its loops is bounded once every open
// entry of gpuwcet facts template's file is filled in: the template lists
// every loop analyze does not bound, device functions' included, under a
// key the facts file accepts (a bound derived over data the analysis does
// not follow, which holds at no launch, is listed open too).
func TestAnalyzeSASSDeviceCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("kernel corpus: skipped in -short mode")
	}
	c := cfgtest.Open(t)
	dir := t.TempDir()
	type tally struct{ kernels, bounded int }
	per := map[string]*tally{}
	reasons := map[string]int{} // not bounded: the first error's rule
	callWords := []string{"whose code is not in the input", "no known target", "indirect call", "recursive", "guarded call"}
	for _, l := range c.Listings() {
		src, err := l.SASS()
		if err != nil {
			continue
		}
		f, err := sass.ParseFile(token.NewFileSet(), l.SASSPath(), src, sass.AllErrors)
		if err != nil {
			continue // sm_90 listings without text for some instructions: TestKernelCorpusListings
		}
		var ks []*cfgtest.Kernel
		for _, k := range c.KernelsOf(l.Source) {
			if fn := f.Func(k.Symbol); fn != nil && callsDevice(f, fn) {
				ks = append(ks, k)
			}
		}
		if len(ks) == 0 {
			continue
		}
		path := filepath.Join(dir, strings.ReplaceAll(l.String(), "/", "-")+".sass")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		facts := "" // the listing's template, filled in
		tl := per[l.Config.String()]
		if tl == nil {
			tl = &tally{}
			per[l.Config.String()] = tl
		}
		for _, k := range ks {
			j, code, stderr := analyzeSASS(t, path, l.Config.Arch, k, k.Launch[0])
			tl.kernels++
			for _, w := range callWords {
				if strings.Contains(stderr, w) {
					t.Errorf("%s: %s: refused for its calls (exit %d): %s", l, k.Name, code, stderr)
				}
			}
			switch code {
			case 0:
				tl.bounded++
				if len(j.Kernels) != 1 || !j.Kernels[0].InlinedCalls {
					t.Errorf("%s: %s: bounded, but the report does not say its calls were inlined", l, k.Name)
				}
			case 2:
				rule := "?"
				for _, d := range j.Diagnostics {
					if d.Level == "error" {
						rule = d.Rule
						break
					}
				}
				reasons[rule]++
				if rule != "unbounded-loop" {
					break
				}
				if facts == "" {
					facts = filledTemplate(t, path)
				}
				withFacts(t, path, facts, l.Config.Arch, k, k.Launch[0])
			default:
				t.Errorf("%s: %s: exit %d: %s", l, k.Name, code, stderr)
			}
		}
	}
	var names []string
	for n := range per {
		names = append(names, n)
	}
	sort.Strings(names)
	total, bounded := 0, 0
	for _, n := range names {
		t.Logf("%-15s %3d kernels with device calls, %3d bounded", n, per[n].kernels, per[n].bounded)
		total += per[n].kernels
		bounded += per[n].bounded
	}
	t.Logf("all: %d kernels with device calls, %d bounded", total, bounded)
	for _, r := range slices.Sorted(maps.Keys(reasons)) {
		t.Logf("not bounded: %3d × %s", reasons[r], r)
	}
	if total == 0 {
		t.Fatal("no SASS listing of the corpus calls a device function")
	}
}

// filledTemplate writes gpuwcet facts template's file for the listing at
// path with every open entry filled in (max = 100) and returns its path.
func filledTemplate(t *testing.T, path string) string {
	t.Helper()
	facts := path + ".facts.toml"
	var out bytes.Buffer
	if code := run([]string{"gpuwcet", "facts", "template", "-o", facts, path}, &out, &out); code != 0 {
		t.Fatalf("%s: facts template: exit %d: %s", path, code, out.String())
	}
	data, err := os.ReadFile(facts)
	if err != nil {
		t.Fatal(err)
	}
	filled := strings.ReplaceAll(string(data), `max = "?"`, "max = 100")
	filled = strings.ReplaceAll(filled, `why = ""`, `why = "filled in by the test"`)
	if err := os.WriteFile(facts, []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	return facts
}

// withFacts runs analyze on kernel k with the facts file, and fails unless
// every loop is bounded: exit 0, or exit 2 for a reason other than a loop.
func withFacts(t *testing.T, path, facts, arch string, k *cfgtest.Kernel, l cfgtest.Launch) {
	t.Helper()
	j, code, stderr := analyzeSASS(t, path, arch, k, l, "--facts", facts)
	for _, d := range j.Diagnostics {
		if d.Level == "error" && (d.Rule == "unbounded-loop" || strings.HasPrefix(d.Rule, "facts")) {
			t.Errorf("%s: %s: with the filled-in template: %s: %s", filepath.Base(path), k.Name, d.Rule, d.Message)
		}
	}
	if code != 0 && code != 2 {
		t.Errorf("%s: %s: with the filled-in template: exit %d: %s", filepath.Base(path), k.Name, code, stderr)
	}
}

// TestAnalyzeSASSDeviceLoopBounded: the loop of row_sum, a __noinline__
// device function of devfn.cu, strides over a row by the block size. In
// the SASS of clang -O1 and -O2 (sm_52, sm_70, sm_80) ptxas places
// row_sum in row_sums's code section and calls it with CAL or
// CALL.REL.NOINC; its loop must be bounded per call context (the
// arguments reach it in registers: the clamped length in one, the thread
// index and the block size in others), for every launch of the manifest,
// by at least the source's trip count (the listing loop is the whole
// source loop: tested at the top, not unrolled, so a sound bound of its
// header count is at least the trip count).
func TestAnalyzeSASSDeviceLoopBounded(t *testing.T) {
	c := cfgtest.Open(t)
	k := c.Kernel("row_sums")
	if k == nil {
		t.Fatal("row_sums is not in the manifest")
	}
	var trip *cfgtest.TripExpr
	for _, kl := range k.Loops() {
		if !kl.Loop.Func.Kernel {
			trip = kl.Trip.Expr
		}
	}
	if trip == nil {
		t.Fatal("row_sums: no device-function loop in the manifest")
	}
	for _, cfgName := range []string{"clang-O1-sm_52", "clang-O1-sm_80", "clang-O2-sm_52", "clang-O2-sm_70", "clang-O2-sm_80"} {
		var conf cfgtest.Config
		if _, err := fmt.Sscanf(strings.ReplaceAll(cfgName, "-", " "), "%s %s %s", &conf.Compiler, &conf.Opt, &conf.Arch); err != nil {
			t.Fatal(err)
		}
		l := c.Listing(conf, k.Source)
		src, err := l.SASS()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "devfn.sass")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, launch := range k.Launch {
			want, err := launch.Max(trip)
			if err != nil {
				t.Fatal(err)
			}
			j, code, stderr := analyzeSASS(t, path, conf.Arch, k, launch)
			if code != 0 || len(j.Kernels) != 1 {
				t.Errorf("%s %s: exit %d: %s", cfgName, launch, code, stderr)
				continue
			}
			kr := j.Kernels[0]
			n := 0
			for _, lp := range kr.Loops {
				if !strings.Contains(lp.Key, "$"+k.Symbol+"$L_0x") {
					continue // a loop of the kernel's own code
				}
				n++
				if lp.Source != "derived" || lp.Max < want {
					t.Errorf("%s %s: device-function loop %s: bound %d (%s), want at least the trip count %d", cfgName, launch, lp.Key, lp.Max, lp.Source, want)
				}
			}
			if n != 1 {
				t.Errorf("%s %s: %d device-function loops in the report, want 1 (row_sum's)", cfgName, launch, n)
			}
		}
	}
}

// goldenListing writes the input listing of a cfg/sass golden archive to a
// temporary file and returns its path.
func goldenListing(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "cfg", "sass", "testdata", "golden", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	src, ok := txtar.Parse(data).Get("input.sass")
	if !ok {
		t.Fatalf("%s: no input.sass", name)
	}
	path := filepath.Join(t.TempDir(), name+".sass")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAnalyzeSASSRelocatedCalls: with separate compilation (nvcc
// -rdc=true) device functions are functions of their own, called through
// relocations that cuobjdump -sass prints as CALL.ABS.NOINC 0x0 / JCAL 0x0.
// From cuobjdump -sass alone the kernel is refused (exit 2) with a message
// that names the call and what to do; from cuobjdump -elf -sass of the
// same build (sm_52: JCAL; sm_80: CALL.ABS.NOINC, beside .rela tables
// that are not read) the relocation tables name the callees, and the
// kernel is bounded through cfg.Inline, inner's loop derived from the
// kernel's argument passed in registers through outer.
func TestAnalyzeSASSRelocatedCalls(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"gpuwcet", "analyze", "--hw", "sass-sm86", "--block", "32", "--arg", "_Z6nestedPii_param_1=5", goldenListing(t, "calls-rdc-ampere")}, &out, &errb)
	want := `call "CALL.ABS.NOINC 0x0" has no known target: the listing does not name the callee`
	if code != 2 || !strings.Contains(errb.String(), want) || !strings.Contains(errb.String(), "cuobjdump -elf -sass") {
		t.Errorf("cuobjdump -sass: exit %d, stderr %q: want exit 2 and %q, naming cuobjdump -elf -sass", code, errb.String(), want)
	}
	for _, tc := range []struct{ golden, hw string }{
		{"calls-rdc-elf", sassPreset(t, "sm_52")},
		{"calls-rdc-elf-ampere", "sass-sm86"},
	} {
		out.Reset()
		errb.Reset()
		code = run([]string{"gpuwcet", "analyze", "--hw", tc.hw, "--block", "32", "--arg", "_Z6nestedPii_param_1=5", "--format", "json", goldenListing(t, tc.golden)}, &out, &errb)
		var j analyzeJSON
		if err := json.Unmarshal(out.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
		if code != 0 || len(j.Kernels) != 1 || !j.Kernels[0].InlinedCalls {
			t.Fatalf("%s: exit %d, %s", tc.golden, code, errb.String())
		}
		derived := 0
		for _, lp := range j.Kernels[0].Loops {
			if strings.HasPrefix(lp.Key, "label _Z5innerii.") && lp.Source == "derived" {
				derived++
			}
		}
		if derived == 0 {
			t.Errorf("%s: no loop of inner derived: %+v", tc.golden, j.Kernels[0].Loops)
		}
	}
}

// TestAnalyzeSASSIndirectCall: a call through a function pointer
// (indirect.cu of cfg/sass/testdata/calls, nvcc -O3) is refused, exit 2,
// with the call's position: on Ampere "CALL.REL.NOINC R6 0x0" calls R6
// plus an offset (it was read as a call of address 0x0, the kernel's own
// entry: a loop that never exits); on Maxwell "PRET; BRX R3" (it was an
// indirect branch with no targets).
func TestAnalyzeSASSIndirectCall(t *testing.T) {
	for _, tc := range []struct{ golden, hw, line, call string }{
		{"calls-indirect-ampere", "sass-sm86", ":39:36:", `indirect call "CALL.REL.NOINC R6, 0x0"`},
		{"calls-indirect-maxwell", "sm_52", ":24:36:", `indirect call "BRX R3, -0x98"`},
	} {
		hw := tc.hw
		if !strings.HasPrefix(hw, "sass-") {
			hw = sassPreset(t, hw)
		}
		path := goldenListing(t, tc.golden)
		var out, errb bytes.Buffer
		code := run([]string{"gpuwcet", "analyze", "--hw", hw, "--block", "32", "--arg", "_Z4fptrPiii_param_1=1", "--arg", "_Z4fptrPiii_param_2=4", "--format", "json", path}, &out, &errb)
		var j analyzeJSON
		if err := json.Unmarshal(out.Bytes(), &j); err != nil {
			t.Fatalf("%s: exit %d: %v\n%s", tc.golden, code, err, errb.String())
		}
		want := path + tc.line + " " + tc.call
		if code != 2 || !strings.Contains(errb.String(), want) {
			t.Errorf("%s: exit %d, stderr %q: want exit 2 and %q", tc.golden, code, errb.String(), want)
		}
		found := false
		for _, d := range j.Diagnostics {
			if d.Level == "error" && d.Rule == "unresolved-call" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no unresolved-call error in the report: %+v", tc.golden, j.Diagnostics)
		}
	}
}

// TestAnalyzeSASSDeviceFactOnce: a fact on a loop of a device function
// called twice (inner, from outer: calls-rdc-elf-ampere) bounds both
// copies, and its warning (a fact below the derived bound) is reported
// once, not once per call: one loop, one diagnostic.
func TestAnalyzeSASSDeviceFactOnce(t *testing.T) {
	path := goldenListing(t, "calls-rdc-elf-ampere")
	facts := filepath.Join(t.TempDir(), "f.toml")
	var out, errb bytes.Buffer
	if code := run([]string{"gpuwcet", "facts", "template", "-o", facts, path}, &out, &errb); code != 0 {
		t.Fatalf("facts template: exit %d: %s", code, errb.String())
	}
	data, err := os.ReadFile(facts)
	if err != nil {
		t.Fatal(err)
	}
	loop := "# [[kernel.loop]]\n# label = \"L_0x5e0\"\n# max = \"?\"\n# why = \"\"\n"
	if !strings.Contains(string(data), "name = \"_Z5innerii\"") || !strings.Contains(string(data), loop) {
		t.Fatalf("template: no derived loop L_0x5e0 under _Z5innerii:\n%s", data)
	}
	filled := strings.Replace(string(data), loop, "[[kernel.loop]]\nlabel = \"L_0x5e0\"\nmax = 2\nwhy = \"test\"\n", 1)
	if err := os.WriteFile(facts, []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	// n = 100: the derived bound of L_0x5e0 (the by-4 remainder after
	// the loop by 16) stays above the fact's 2 there (at n = 5 it is 1
	// since a phi joins only the edges the launch takes).
	code := run([]string{"gpuwcet", "analyze", "--hw", "sass-sm86", "--block", "32", "--arg", "_Z6nestedPii_param_1=100", "--facts", facts, "--format", "json", path}, &out, &errb)
	var j analyzeJSON
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, errb.String())
	}
	if code != 0 || len(j.Kernels) != 1 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	annotated := 0
	for _, lp := range j.Kernels[0].Loops {
		if strings.Contains(lp.Key, ".L_0x5e0,") && lp.Source == "annotated" && lp.Max == 2 {
			annotated++
		}
	}
	low := 0
	for _, d := range j.Diagnostics {
		if d.Rule == "annotation-below-derived" {
			low++
		}
	}
	if annotated != 2 || low != 1 {
		t.Errorf("%d copies of inner's loop annotated (want 2), %d annotation-below-derived diagnostics (want 1): %+v", annotated, low, j.Diagnostics)
	}
}
