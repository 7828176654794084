package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/hwdesc/platform"
)

// TestQualificationDoc keeps docs/qualification.md true: every test it
// names exists in the package it names, and every operational
// requirement names at least one test.
func TestQualificationDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/qualification.md")
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile("`([a-z][a-z0-9/]*)\\.((?:Test|Fuzz)[A-Z0-9]\\w*)`")
	funcs := map[string]map[string]bool{} // package dir -> test functions
	defined := func(pkg, name string) bool {
		if funcs[pkg] == nil {
			funcs[pkg] = map[string]bool{}
			files, _ := filepath.Glob(filepath.Join("../..", pkg, "*_test.go"))
			def := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)\w+)\(`)
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range def.FindAllStringSubmatch(string(src), -1) {
					funcs[pkg][m[1]] = true
				}
			}
		}
		return funcs[pkg][name]
	}
	reqs := 0
	seen := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		refs := ref.FindAllStringSubmatch(line, -1)
		for _, m := range refs {
			if !defined(m[1], m[2]) {
				t.Errorf("docs/qualification.md names %s.%s: no func %s in %s/*_test.go", m[1], m[2], m[2], m[1])
			}
		}
		if id, ok := strings.CutPrefix(line, "| TOR-"); ok {
			reqs++
			id = "TOR-" + strings.TrimSpace(strings.SplitN(id, "|", 2)[0])
			if seen[id] {
				t.Errorf("requirement %s listed twice", id)
			}
			seen[id] = true
			if len(refs) == 0 {
				t.Errorf("requirement %s names no test", id)
			}
		}
	}
	for _, want := range []string{"TOR-PARSE", "TOR-CFG", "TOR-DIV", "TOR-LOOP", "TOR-PHASE", "TOR-BOUND", "TOR-REPORT", "TOR-PREM"} {
		if !seen[want] {
			t.Errorf("no requirement %s", want)
		}
	}
}

// TestNoLocalPaths: no report shows a path of the development checkout
// (../shared, where the presets' numbers were imported from): for every
// built-in hardware description and platform, the provenance a report
// states names upstream repositories, commits and documents (issue 14).
func TestNoLocalPaths(t *testing.T) {
	sass := sassKernel(t, "k.sass", "FADD R30, R17, R18", "EXIT")
	for _, name := range hwdesc.Names() {
		d, err := hwdesc.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		in := "../../examples/saxpy/kernel.ptx"
		if d.ISA == "sass" {
			in = sass
		}
		args := []string{"analyze", "--hw", name, "--block", "64", "--format", "markdown", in}
		if name == "ecrts25-orin-200" {
			args = append(args[:len(args)-1], "--grid", "64", "--platform", "jetson-agx-orin", "--regs", "16", in)
		}
		out, _, _ := runCmd(t, args...)
		for _, local := range []string{"../shared", "/work/", "shared/reference", "shared/notes"} {
			if strings.Contains(out, local) {
				i := strings.Index(out, local)
				t.Errorf("%s: the report shows %q: …%s…", name, local, out[max(0, i-80):min(len(out), i+80)])
			}
		}
	}
	for _, name := range platform.Names() {
		p, err := platform.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p.Source, "shared/") {
			t.Errorf("platform %s: source %q", name, p.Source)
		}
	}
}
