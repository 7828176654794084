package main

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The pipeline runs one way: listing → IR → CFG → values/loops →
// divergence → phases → bound → report/prem → cmd. depsLayers gives each
// package of the module its stage; a package may import a package of an
// earlier stage, and a package of its own stage only where sameStage lists
// the edge. A package missing from the table fails the test: place it.
// Modelled on go/build's deps_test.go.
var depsLayers = [][]string{
	// 0: the IR and the data every stage reads.
	{"cfg/isa", "cfg/txtar", "cfg/input", "cfg/assume", "hwdesc", "hwdesc/arch", "hwdesc/platform"},
	// 1: listings and the pass framework.
	{"cfg/ptx", "cfg/sass", "cfg/trace", "cfg/load", "cfg/pass", "cfg/cfgtest"},
	// 2: control-flow graphs.
	{"cfg", "cfg/cfgdot"},
	// 3: values and loop bounds.
	{"cfg/values", "cfg/loops", "cfg/release"},
	// 4: divergence.
	{"divergence"},
	// 5: phases and the reference simulator.
	{"phases", "phases/sim", "phases/sim/simtest", "phases/sim/simt", "phases/sim/explore"},
	// 6: bounds and the evidence that judges them.
	{"bound", "bound/static", "bound/pessimism", "bound/kernel", "bound/simcheck", "bound/evidence", "bound/validation"},
	// 7: reports and PREM.
	{"bound/report", "bound/report/premjson", "bound/taskmodel", "prem"},
	// 8: the command.
	{"cmd/gpuwcet"},
}

// sameStage lists the imports allowed between packages of one stage.
var sameStage = map[string][]string{
	"hwdesc":             {"cfg/input"},
	"hwdesc/arch":        {"hwdesc", "cfg/assume"},
	"hwdesc/platform":    {"cfg/input", "hwdesc", "hwdesc/arch"},
	"cfg/load":           {"cfg/ptx", "cfg/sass", "cfg/trace"},
	"cfg/trace":          {"cfg/ptx"},
	"cfg/cfgdot":         {"cfg"},
	"cfg/loops":          {"cfg/release", "cfg/values"},
	"cfg/release":        {"cfg/values"},
	"phases/sim/simtest": {"phases", "phases/sim"},
	"phases/sim/simt":    {"phases/sim"},
	"phases/sim/explore": {"phases/sim"},
	"bound/static":       {"bound"},
	"bound/simcheck":     {"bound"},
	"bound/pessimism":    {"bound", "bound/static"},
	"bound/kernel":       {"bound/static"},
	"bound/evidence":     {"bound/static"},
	"bound/validation":   {"bound", "bound/static"},
	"bound/report":       {"bound/report/premjson"},
	"prem":               {"bound/report/premjson"},
	"bound/taskmodel":    {"bound/report"},
}

// judges are the packages that judge a bound by executing the kernel: the
// execution drawer and the reference simulator. The judge of a bound must
// not share the code it judges (docs/decisions.md), so none of them may
// import, directly or through any package of the module, the analysis
// packages listed: the uniformity and per-warp resolution (divergence),
// the loop bounds (cfg/loops), the value analysis (cfg/values), the
// release points (cfg/release), the timing engine and the bounds
// (phases, bound, bound/static).
var judges = map[string][]string{
	"phases/sim/simt": {"divergence", "cfg/loops", "cfg/values", "cfg/release", "phases", "bound", "bound/static"},
	"phases/sim":      {"divergence", "cfg/loops", "cfg/values", "cfg/release", "phases", "bound", "bound/static"},
	// The exhaustive schedule explorer, judge of the closed-form bound.
	"phases/sim/explore": {"divergence", "cfg/loops", "cfg/values", "cfg/release", "phases", "bound", "bound/static"},
}

// externalDeps are the modules the project may use besides the standard
// library (docs/decisions.md gives the reason for any other).
var externalDeps = []string{
	"github.com/urfave/cli/v2",
	"github.com/BurntSushi/toml",
	"github.com/emicklei/dot",
	"github.com/google/go-cmp",
}

const modulePath = "github.com/gpuwcet/gpuwcet"

func TestDependencies(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	stage := map[string]int{}
	for i, layer := range depsLayers {
		for _, p := range layer {
			stage[p] = i
		}
	}
	pkgs := modulePackages(t, root)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages under %s", len(pkgs), root)
	}
	for _, p := range pkgs {
		s, ok := stage[p.rel]
		if !ok {
			t.Errorf("package %s is not in depsLayers: give it its pipeline stage", p.rel)
			continue
		}
		for _, imp := range p.imports {
			if rel, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				d, known := stage[rel]
				switch {
				case !known:
					t.Errorf("%s imports %s, which is not in depsLayers", p.rel, rel)
				case d > s:
					t.Errorf("%s (stage %d) imports %s (stage %d): a later stage of the pipeline", p.rel, s, rel, d)
				case d == s && !slices.Contains(sameStage[p.rel], rel):
					t.Errorf("%s imports %s of the same stage: not listed in sameStage", p.rel, rel)
				}
				continue
			}
			if !isStd(imp) && !allowedExternal(imp) {
				t.Errorf("%s imports %s: not the standard library nor an allowed dependency (docs/decisions.md)", p.rel, imp)
			}
		}
	}
	for p, deps := range sameStage {
		if _, ok := stage[p]; !ok {
			t.Errorf("sameStage names %s, which is not in depsLayers", p)
		}
		for _, d := range deps {
			if stage[d] != stage[p] {
				t.Errorf("sameStage lists %s -> %s, which are not of one stage", p, d)
			}
		}
	}
}

// TestJudgeIndependence checks the judges rule: no judge package reaches
// an analysis package it judges through the module's import graph.
func TestJudgeIndependence(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string][]string{}
	for _, p := range modulePackages(t, root) {
		for _, imp := range p.imports {
			if rel, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				imports[p.rel] = append(imports[p.rel], rel)
			}
		}
	}
	for judge, banned := range judges {
		if _, ok := imports[judge]; !ok {
			if _, err := os.Stat(filepath.Join(root, judge)); err != nil {
				t.Errorf("judges names %s, which is not a package of the module", judge)
				continue
			}
		}
		// Breadth-first over the imports, keeping the chain.
		via := map[string]string{judge: ""}
		queue := []string{judge}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, q := range imports[p] {
				if _, seen := via[q]; seen {
					continue
				}
				via[q] = p
				queue = append(queue, q)
			}
		}
		for _, b := range banned {
			if _, ok := via[b]; !ok {
				continue
			}
			chain := []string{b}
			for p := via[b]; p != ""; p = via[p] {
				chain = append([]string{p}, chain...)
			}
			t.Errorf("judge %s reaches %s, an analysis it judges (%s): a judge must not share the code it judges", judge, b, strings.Join(chain, " -> "))
		}
	}
}

type goPackage struct {
	rel     string
	imports []string
}

// modulePackages lists the module's packages with their non-test imports.
func modulePackages(t *testing.T, root string) []goPackage {
	t.Helper()
	var out []goPackage
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		bp, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out = append(out, goPackage{rel: filepath.ToSlash(rel), imports: bp.Imports})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func allowedExternal(path string) bool {
	for _, m := range externalDeps {
		if path == m || strings.HasPrefix(path, m+"/") {
			return true
		}
	}
	return false
}
