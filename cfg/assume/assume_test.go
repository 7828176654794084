package assume

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

var idRE = regexp.MustCompile(`^A-[A-Z0-9]+(-[A-Z0-9]+)*$`)

// TestLedger checks every entry: a well-formed unique ID, a known origin,
// every field given, one-line texts.
func TestLedger(t *testing.T) {
	known := map[string]bool{}
	for _, o := range origins {
		known[o.origin] = true
	}
	seen := map[string]bool{}
	for _, e := range ledger {
		if !idRE.MatchString(e.ID) {
			t.Errorf("%q: not an ID (A-WORDS)", e.ID)
		}
		if seen[e.ID] {
			t.Errorf("%s: twice in the ledger", e.ID)
		}
		seen[e.ID] = true
		if !known[e.Origin] {
			t.Errorf("%s: unknown origin %q", e.ID, e.Origin)
		}
		for name, s := range map[string]string{"When": e.When, "Statement": e.Statement, "Reason": e.Reason, "Discharge": e.Discharge, "Basis": e.Basis} {
			if strings.TrimSpace(s) == "" {
				t.Errorf("%s: no %s", e.ID, name)
			}
			if strings.ContainsAny(s, "\n|") || strings.HasSuffix(s, ".") {
				t.Errorf("%s: %s %q must be one line, without '|' or a final period", e.ID, name, s)
			}
		}
	}
	for _, c := range channels {
		switch c.Status {
		case AssumedAway:
			if len(c.IDs) == 0 {
				t.Errorf("channel %q is assumed away by no assumption", c.Name)
			}
		case AccountedFor, Excluded:
		default:
			t.Errorf("channel %q: unknown status %q", c.Name, c.Status)
		}
		for _, id := range c.IDs {
			if !seen[id] {
				t.Errorf("channel %q names %s, not in the ledger", c.Name, id)
			}
		}
	}
	// The GPU-side channels a certification reviewer asks about.
	for _, want := range []string{"Other kernels", "Memory contention", "caches", "Clocks", "Preemption"} {
		found := false
		for _, c := range channels {
			found = found || c.GPU && strings.Contains(c.Name, want)
		}
		if !found {
			t.Errorf("no GPU channel about %q", want)
		}
	}
}

// TestConstants checks that every ID constant of ledger.go names an entry
// and that every entry is named by the code outside this package: an
// assumption no run can state is dead, one stated without an entry is
// not documented.
func TestConstants(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "ledger.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{} // name -> ID
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || !ast.IsExported(n.Name) {
					continue
				}
				v, _ := strconv.Unquote(lit.Value)
				consts[n.Name] = v
			}
		}
	}
	byID := map[string]string{}
	for name, id := range consts {
		if _, ok := Get(id); !ok {
			t.Errorf("constant %s = %q is not in the ledger", name, id)
		}
		byID[id] = name
	}
	// Uses outside the package: assume.Name in any Go file of the module.
	used := map[string]bool{}
	useRE := regexp.MustCompile(`\bassume\.([A-Z]\w*)`)
	root := filepath.Join("..", "..")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == "." {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range useRE.FindAllStringSubmatch(string(data), -1) {
			used[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ledger {
		name, ok := byID[e.ID]
		if !ok {
			t.Errorf("%s has no constant", e.ID)
			continue
		}
		every := e.When == everyAnalyze && used["EveryAnalyze"] || e.When == everyPREM && used["EveryPREM"]
		if !used[name] && !every {
			t.Errorf("%s (assume.%s) is stated by no code outside the ledger", e.ID, name)
		}
	}
}

// TestAssumptionsDoc keeps docs/assumptions.md in sync with the ledger
// (-update rewrites it).
func TestAssumptionsDoc(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "assumptions.md")
	if *txtar.Update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Errorf("%s is not generated from the ledger: run go test ./cfg/assume -update", path)
	}
}

func TestUse(t *testing.T) {
	if got := U(BlockAlone).Statement(); got != MustGet(BlockAlone).Statement {
		t.Errorf("U: %q", got)
	}
	if got := Uf(DefaultUnit, "%d opcodes", 3).Statement(); got != "3 opcodes" {
		t.Errorf("Uf: %q", got)
	}
	us := Sort([]Use{U(ClockFixed), U(BlockAlone), U(ClockFixed), Uf(DefaultUnit, "x")})
	var ids []string
	for _, u := range us {
		ids = append(ids, u.ID)
	}
	if want := BlockAlone + " " + DefaultUnit + " " + ClockFixed; strings.Join(ids, " ") != want {
		t.Errorf("Sort: %v, want %s", ids, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustGet of an unknown ID did not panic")
		}
	}()
	MustGet("A-NONE")
}
