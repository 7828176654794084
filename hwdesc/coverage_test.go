package hwdesc_test

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// TestPTXPresetCoverage routes every opcode of the PTX that nvcc and clang
// emit for common CUDA operations (testdata/ptxops, gen.sh) through every
// PTX preset, and compares the table (routed by a rule, timed on the
// default unit, rejected) with testdata/ptxops/routes.txt (-update
// rewrites it; docs/hwdesc.md shows it). A change of routing shows here.
func TestPTXPresetCoverage(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "ptxops", "*.ptx"))
	if len(files) == 0 {
		t.Fatal("no listings in testdata/ptxops")
	}
	ops := map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := load.File(token.NewFileSet(), f, src, load.PTX)
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range file.Funcs {
			for _, in := range fn.Instrs {
				ops[in.Op()] = true
			}
		}
	}
	var opList []string
	for op := range ops {
		opList = append(opList, op)
	}
	sort.Strings(opList)
	var b strings.Builder
	fmt.Fprintf(&b, "# PTX opcodes of testdata/ptxops/*.ptx and how each PTX preset routes them:\n# unit (rule), \"default:unit\" (no rule: the default unit) or \"REJECT\".\n")
	for _, n := range hwdesc.Names() {
		d, err := hwdesc.Builtin(n)
		if err != nil {
			t.Fatal(err)
		}
		if d.ISA != "ptx" || strings.HasPrefix(n, "ecrts25-orin-") && n != "ecrts25-orin-200" {
			continue // the ECRTS presets differ only by latencies
		}
		fmt.Fprintf(&b, "\n[%s]\n", n)
		for _, op := range opList {
			u, rule, err := d.Lookup(op)
			switch {
			case err != nil:
				fmt.Fprintf(&b, "%-40s REJECT\n", op)
			case rule < 0:
				fmt.Fprintf(&b, "%-40s default:%s\n", op, d.Units[u].Name)
			default:
				fmt.Fprintf(&b, "%-40s %s\n", op, d.Units[u].Name)
			}
		}
	}
	golden := filepath.Join("testdata", "ptxops", "routes.txt")
	if *txtar.Update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != b.String() {
		t.Errorf("%s is out of date (run go test ./hwdesc -run TestPTXPresetCoverage -update):\n%s", golden, b.String())
	}
}
