package cfgtest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCorpusAnnotations checks the manifest and the @trip annotations of
// the kernel corpus: every loop keyword of the sources is a loop with an
// annotation (counted here by a separate, line-based scan), every
// expression names only launch names and integer parameters of the
// kernels it is for, and evaluates for every launch of those kernels.
func TestCorpusAnnotations(t *testing.T) {
	c := Open(t)
	loopKW := regexp.MustCompile(`\bfor\s*\(|\bwhile\s*\(|\bdo\s*\{`)
	doWhile := regexp.MustCompile(`\}\s*while\s*\(`)
	total, launchOnly := 0, 0
	for _, s := range c.Sources {
		data, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		keywords, tripLines := 0, 0
		for _, line := range strings.Split(string(data), "\n") {
			code, comment, _ := strings.Cut(line, "//")
			keywords += len(loopKW.FindAllString(code, -1)) - len(doWhile.FindAllString(code, -1))
			if strings.HasPrefix(strings.TrimSpace(comment), "@trip") {
				tripLines++
			}
		}
		if keywords != len(s.Loops) || tripLines != len(s.Loops) {
			t.Errorf("%s: %d loop keywords and %d @trip lines, the parser found %d loops", s.Name, keywords, tripLines, len(s.Loops))
		}
		total += len(s.Loops)
		for _, l := range s.Loops {
			for _, tr := range l.Trips {
				if tr.Class == LaunchOnly {
					launchOnly++
					break
				}
			}
		}
	}
	t.Logf("%d sources, %d kernels, %d loops (%d launch-only)", len(c.Sources), len(c.Kernels), total, launchOnly)

	for _, k := range c.Kernels {
		ints := map[string]bool{}
		for _, p := range k.Func.Params {
			if _, _, ok := cIntRange(p.Type); ok {
				ints[p.Name] = true
			}
		}
		for _, kl := range k.Loops() {
			if kl.Trip.Expr == nil {
				continue
			}
			for _, n := range kl.Trip.Expr.Names() {
				if !ints[n] && !launchNames[n] && n != "warpSize" {
					t.Errorf("%s: %s: %s names %s, not an integer parameter of %s nor a launch name", kl.Loop, k.Name, kl.Trip.Text, n, k.Name)
				}
			}
			for i, l := range k.Launch {
				if _, err := l.Max(kl.Trip.Expr); err != nil {
					t.Errorf("%s: %s launch %d: %v", kl.Loop, k.Name, i+1, err)
				}
			}
		}
	}
}

// TestTripCheckTable checks testdata/kernels/tripcheck.tsv, the host
// re-run of the corpus loops (go run ./testdata/kernels/tripcheck): it
// must hold a row for every launch-only loop of every kernel and launch,
// with the claim the annotations make now and a host count equal to it.
// A changed annotation or launch without a new run fails here.
func TestTripCheckTable(t *testing.T) {
	c := Open(t)
	path := filepath.Join(c.Dir, "tripcheck.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct{ class, claim, host, status string }
	rows := map[string]row{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "kernel\t") {
			continue
		}
		fs := strings.Split(line, "\t")
		if len(fs) != 8 {
			t.Fatalf("%s:%d: want 8 fields", path, n)
		}
		rows[fs[0]+"\t"+fs[1]+"\t"+fs[2]] = row{fs[3], fs[4], fs[5], fs[7]}
		if s := fs[7]; s != "ok" && s != "data" && s != "budget" {
			t.Errorf("%s:%d: status %s", path, n, s)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	checked, budget := 0, 0
	for _, k := range c.Kernels {
		if _, excluded := hostExcluded[k.Source.Name]; excluded {
			continue
		}
		for i, l := range k.Launch {
			for _, kl := range k.Loops() {
				key := fmt.Sprintf("%s\t%d\t%s:%d", k.Name, i+1, kl.Loop.Source.Name, kl.Loop.Line)
				r, ok := rows[key]
				if !ok {
					t.Errorf("tripcheck.tsv has no row for %s: run go run ./testdata/kernels/tripcheck", strings.ReplaceAll(key, "\t", " "))
					continue
				}
				if r.class != string(kl.Trip.Class) {
					t.Errorf("%s: class %s in the table, %s in the source: rerun tripcheck", key, r.class, kl.Trip.Class)
				}
				if kl.Trip.Class != LaunchOnly {
					continue
				}
				if r.status == "budget" {
					budget++
					continue
				}
				want, err := l.Max(kl.Trip.Expr)
				if err != nil {
					t.Errorf("%s: %v", key, err)
					continue
				}
				if r.claim != strconv.FormatInt(want, 10) {
					t.Errorf("%s: the table's claim %s is not the annotation's %d: rerun tripcheck", strings.ReplaceAll(key, "\t", " "), r.claim, want)
				}
				if r.host != r.claim {
					t.Errorf("%s: host count %s, claim %s", strings.ReplaceAll(key, "\t", " "), r.host, r.claim)
				}
				checked++
			}
		}
	}
	t.Logf("%d launch-only (kernel, launch, loop) triples confirmed by the host run, %d over its budget", checked, budget)
}

// hostExcluded lists the sources tripcheck does not run on the host; keep
// in step with testdata/kernels/tripcheck/main.go.
var hostExcluded = map[string]string{}

// TestResUsage checks that resusage.tsv has a row with a register count
// for every kernel of the manifest in every configuration.
func TestResUsage(t *testing.T) {
	c := Open(t)
	rows, err := c.ResUsage()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ResUsage{}
	for _, r := range rows {
		got[r.Config.String()+"/"+r.Function] = r
	}
	for _, cfg := range Configs() {
		for _, k := range c.Kernels {
			r, ok := got[cfg.String()+"/"+k.Symbol]
			switch {
			case !ok:
				t.Errorf("%s: no row for %s", cfg, k.Symbol)
			case r.Reg <= 0 || r.Source+".cu" != k.Source.Name:
				t.Errorf("%s: %s: %+v", cfg, k.Symbol, r)
			}
		}
	}
	t.Logf("%d rows", len(rows))
}

func TestLaunchFlags(t *testing.T) {
	c := Open(t)
	k := c.Kernel("loop_minmax_clamp")
	got := strings.Join(k.Launch[1].Flags(k), " ")
	want := "--block 32x1x1 --grid 1x1x1 --arg _Z17loop_minmax_clampPfiii_param_1=30 --arg _Z17loop_minmax_clampPfiii_param_2=-5 --arg _Z17loop_minmax_clampPfiii_param_3=1000"
	if got != want {
		t.Errorf("Flags = %s\nwant    %s", got, want)
	}
}
