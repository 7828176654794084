package evidence

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

var flagShrink = flag.String("shrink", "", "shrink the cases of these seeds (comma-separated) and write them to testdata/regress (go test ./bound/evidence -run TestShrink -shrink 1557,1660)")

// regressCase is a kernel with the inputs of a case, as kept in
// testdata/regress/*.txtar: files "k.ptx", "case" (threads, arguments,
// hw: a preset name or "file" for the "hw.toml" file, seeds), and
// "facts" (label max lines, optional).
type regressCase struct {
	src     string
	threads int
	args    map[string]int64
	hw      *hwdesc.Desc
	hwName  string // preset name, or "" for a description in the archive
	facts   []Fact
	seeds   []uint64 // the judge's seeds to run
}

// analyze runs the static analysis and prepares the judge.
func (c *regressCase) analyze() (*Analysis, error) {
	var facts *loops.Facts
	if len(c.facts) > 0 {
		k := &Kernel{Name: "k", Facts: c.facts}
		var err error
		if facts, err = loops.DecodeFacts("k.facts.toml", []byte(k.FactsTOML(loops.SHA256([]byte(c.src))))); err != nil {
			return nil, err
		}
	}
	return Analyze("k.ptx", []byte(c.src), "k", c.hw, pass.Launch{Block: [3]int{c.threads, 1, 1}, Args: c.args}, facts)
}

// excess runs every order of the lane groups (all four, with and without
// MaxLoops, and every sequence of orders up to 64 executions) for each
// seed, under LRR and
// GTO with both barrier semantics, and returns the first execution above
// the bound ("" when none), the bound and the longest makespan.
func (c *regressCase) excess(a *Analysis) (string, hwdesc.Cycles, hwdesc.Cycles, error) {
	bnd := a.Report.Bound
	var worst hwdesc.Cycles
	found := ""
	visit := func(blk *simt.Block, what string) error {
		for _, mode := range []sim.BarrierMode{sim.BarrierReach, sim.BarrierDrain} {
			p, err := blk.Program(a.HW, mode)
			if err != nil {
				return err
			}
			runs, err := Simulate(p, 1, []sim.Policy{{Kind: sim.LRR}, {Kind: sim.GTO}})
			if err != nil {
				return err
			}
			for _, r := range runs {
				worst = max(worst, r.Makespan)
				if r.Makespan > bnd && found == "" {
					found = fmt.Sprintf("makespan %d > bound %d (%s, %s, barriers %v)", r.Makespan, bnd, what, r.Policy, mode)
				}
			}
		}
		return nil
	}
	for _, seed := range c.seeds {
		for _, ml := range []bool{false, true} {
			for _, o := range simt.Orders {
				blk, err := a.Judge.Run(a.Launch, simt.Options{Seed: seed, Order: o, MaxLoops: ml, MaxInstrs: 1 << 16})
				if err != nil {
					return "", 0, 0, err
				}
				if err := visit(blk, fmt.Sprintf("seed %d, order %v, max loops %v", seed, o, ml)); err != nil {
					return "", 0, 0, err
				}
			}
		}
		n := 0
		if _, err := a.Judge.Exhaustive(a.Launch, simt.Options{Seed: seed, MaxInstrs: 1 << 16}, 64, func(blk *simt.Block) error {
			n++
			return visit(blk, fmt.Sprintf("seed %d, order sequence %d", seed, n))
		}); err != nil {
			return "", 0, 0, err
		}
	}
	return found, bnd, worst, nil
}

// TestRegress: the shrunk cases the extended evidence found with the
// analysis of before issue 9's fixes (testdata/regress; docs/validation.md
// says which item each is) are within the bound in every order.
func TestRegress(t *testing.T) {
	files, err := filepath.Glob("testdata/regress/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no regression cases: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			c := readRegress(t, f)
			a, err := c.analyze()
			if err != nil {
				t.Fatal(err)
			}
			found, bnd, worst, err := c.excess(a)
			if err != nil {
				t.Fatal(err)
			}
			if found != "" {
				t.Errorf("%s", found)
			}
			t.Logf("bound %d, longest execution %d", bnd, worst)
		})
	}
}

func readRegress(t *testing.T, path string) *regressCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(data)
	src, ok := ar.Get("k.ptx")
	meta, ok2 := ar.Get("case")
	if !ok || !ok2 {
		t.Fatalf("%s: want files k.ptx and case", path)
	}
	c := &regressCase{src: string(src), args: map[string]int64{}}
	for _, line := range strings.Split(strings.TrimSpace(string(meta)), "\n") {
		key, val, _ := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		switch key {
		case "threads":
			c.threads, err = strconv.Atoi(val)
		case "arg":
			name, v, _ := strings.Cut(val, "=")
			c.args[name], err = strconv.ParseInt(v, 0, 64)
		case "hw":
			c.hwName = val
		case "seeds":
			for _, s := range strings.Fields(val) {
				n, e := strconv.ParseUint(s, 10, 64)
				err = e
				c.seeds = append(c.seeds, n)
			}
		}
		if err != nil {
			t.Fatalf("%s: case: %q: %v", path, line, err)
		}
	}
	if c.hwName == "file" {
		raw, ok := ar.Get("hw.toml")
		if !ok {
			t.Fatalf("%s: hw file but no hw.toml", path)
		}
		if c.hw, err = hwdesc.Decode("hw.toml", raw); err != nil {
			t.Fatal(err)
		}
	} else if c.hw, err = hwdesc.Resolve(c.hwName); err != nil {
		t.Fatal(err)
	}
	if raw, ok := ar.Get("facts"); ok {
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			var f Fact
			if _, err := fmt.Sscanf(line, "%s %d", &f.Label, &f.Max); err != nil {
				t.Fatalf("%s: facts: %q: %v", path, line, err)
			}
			c.facts = append(c.facts, f)
		}
	}
	return c
}

// TestShrink shrinks the cases of -shrink (seeds of
// TestStaticBoundAgainstSimulation that exceed the bound) and writes them
// to testdata/regress/case-SEED.txtar: lines of the kernel are removed,
// in chunks, while the analysis still accepts it and some execution still
// exceeds its bound. It is how the regression cases were made, against
// the analysis of before the fix (docs/validation.md).
func TestShrink(t *testing.T) {
	if *flagShrink == "" {
		t.Skip("no -shrink seeds")
	}
	for _, s := range strings.Split(*flagShrink, ",") {
		seed, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		tc := caseOf(seed)
		c := &regressCase{src: tc.k.Src, threads: tc.threads, args: tc.k.Args, hw: tc.hw, facts: tc.k.Facts,
			seeds: []uint64{seed * 4, seed*4 + 1, seed*4 + 2}}
		if tc.preset {
			c.hwName = tc.hw.Name
		}
		violates := func(c *regressCase) bool {
			if dbg := os.Getenv("GPUWCET_SHRINK_LAST"); dbg != "" {
				_ = os.WriteFile(dbg, []byte(c.src), 0o644) // the input of a crash
			}
			a, err := c.analyze()
			if err != nil {
				return false
			}
			found, _, _, err := c.excess(a)
			return err == nil && found != ""
		}
		if !violates(c) {
			t.Errorf("seed %d: no execution above the bound", seed)
			continue
		}
		// Fewer threads first, then lines.
		for _, n := range []int{1, 2, 32} {
			if n < c.threads {
				d := *c
				d.threads = n
				if violates(&d) {
					c = &d
					break
				}
			}
		}
		lines := strings.Split(c.src, "\n")
		removable := func(l string) bool {
			tl := strings.TrimSpace(l)
			// Calls keep their argument passing: a parameter never
			// written would be undefined, not the caller's value.
			return strings.HasPrefix(l, "\t") && !strings.HasPrefix(tl, ".reg") && !strings.Contains(tl, "param") && tl != "{" && tl != "}" ||
				regexp.MustCompile(`^[A-Za-z_0-9]+:$`).MatchString(l)
		}
		for chunk := 16; chunk >= 1; chunk /= 2 {
			for i := 0; i < len(lines); {
				j := min(i+chunk, len(lines))
				ok := true
				for _, l := range lines[i:j] {
					ok = ok && removable(l)
				}
				if !ok {
					i++
					continue
				}
				cand := slices.Concat(lines[:i], lines[j:])
				d := *c
				d.src = strings.Join(cand, "\n")
				d.facts = liveFacts(c.facts, d.src)
				if violates(&d) {
					c, lines = &d, cand
					continue
				}
				i++
			}
		}
		a, err := c.analyze()
		if err != nil {
			t.Fatal(err)
		}
		found, bnd, worst, err := c.excess(a)
		if err != nil {
			t.Fatal(err)
		}
		var meta bytes.Buffer
		fmt.Fprintf(&meta, "threads: %d\n", c.threads)
		var names []string
		for n := range c.args {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&meta, "arg: %s=%d\n", n, c.args[n])
		}
		hwName := c.hwName
		if hwName == "" {
			hwName = "file"
		}
		fmt.Fprintf(&meta, "hw: %s\nseeds:", hwName)
		for _, s := range c.seeds {
			fmt.Fprintf(&meta, " %d", s)
		}
		meta.WriteString("\n")
		ar := &txtar.Archive{Comment: []byte(fmt.Sprintf("Case %d of TestStaticBoundAgainstSimulation, shrunk (TestShrink) against the analysis of before the fix: %s.\nBound then %d, longest execution %d.\n", seed, found, bnd, worst))}
		ar.Set("case", meta.Bytes())
		ar.Set("k.ptx", []byte(c.src))
		if hwName == "file" {
			var hb bytes.Buffer
			if err := hwdesc.Encode(&hb, c.hw); err != nil {
				t.Fatal(err)
			}
			ar.Set("hw.toml", hb.Bytes())
		}
		if len(c.facts) > 0 {
			var fb bytes.Buffer
			for _, f := range c.facts {
				fmt.Fprintf(&fb, "%s %d\n", f.Label, f.Max)
			}
			ar.Set("facts", fb.Bytes())
		}
		path := fmt.Sprintf("testdata/regress/case-%d.txtar", seed)
		if err := os.MkdirAll("testdata/regress", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: %d lines, %s", seed, len(lines), found)
	}
}

// liveFacts keeps the facts whose label is still in src.
func liveFacts(fs []Fact, src string) []Fact {
	var out []Fact
	for _, f := range fs {
		if strings.Contains(src, "\n"+f.Label+":") {
			out = append(out, f)
		}
	}
	return out
}
