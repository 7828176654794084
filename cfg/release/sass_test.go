package release

import (
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/sass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// TestOfSASS: the spin loops of testdata/spin.cu, compiled by nvcc 11.8 for
// sm_70, sm_80 and sm_90 (gen.sh), are recognised on the value graph
// (CS2R of SR_GLOBALTIMERLO or SR_CLOCKLO, a 64-bit ISETP .EX comparison
// with the trigger), and the loops that are not release points are refused
// with the reason: a store in the body, a 32-bit comparison of the timer's
// low word, an exit on equality. On sm_62 the timer is read as split
// words (HI, LO, HI with a retry loop, SplitReadOf): the retry loops are
// recognised as such, and the spin loops around them as release points on
// the 64-bit value high:low.
func TestOfSASS(t *testing.T) {
	want := map[string]string{
		"spin_gt":    "spins until %globaltimer >= c[0x0][",
		"spin_clock": "spins until %clock64 >= c[0x0][",
		"spin_tiles": "spins until %globaltimer >= ",
		"spin_store": "no: its body has a store instruction",
		"spin_lo32":  "no: at 32 bits: a release point compares the 64-bit timer",
		"spin_eq":    "no: its exit tests the timer for equality",
	}
	for _, arch := range []string{"sm_70", "sm_80", "sm_90", "sm_62"} {
		src, err := os.ReadFile("testdata/spin_" + arch + ".sass")
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := sass.ParseFile(fset, "spin_"+arch+".sass", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, fn := range f.Funcs {
			w, ok := want[fn.Name]
			if !ok {
				t.Fatalf("%s: unexpected kernel %s", arch, fn.Name)
			}
			seen++
			g, err := cfg.Build(fset, fn)
			if err != nil {
				t.Fatal(err)
			}
			vf, err := values.Build(g, values.Options{Arch: arch})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range g.Loops {
				if sr, why := SplitReadOf(vf, l); arch == "sm_62" && l.Header.Instrs[0].Opcode == "CS2R" {
					if sr == nil || sr.Loop != l || sr.Check == nil {
						t.Errorf("%s %s: loop %s not a split read: %s", arch, fn.Name, l.Header, why)
					}
					continue
				} else if sr != nil {
					t.Errorf("%s %s: loop %s is a split read", arch, fn.Name, l.Header)
				}
				p, why := OfValues(vf, l)
				switch {
				case p != nil:
					if p.Barrier == nil {
						t.Errorf("%s %s: release point without its barrier", arch, fn.Name)
					}
					if p.Read == nil || p.Exit == nil || (p.ExitOp != "timer >= trigger" && p.ExitOp != "timer > trigger") {
						t.Errorf("%s %s: release point %+v", arch, fn.Name, p)
					}
					got = append(got, p.String())
				case why != "":
					got = append(got, "no: "+why)
				}
			}
			all := strings.Join(got, "\n")
			if !strings.Contains(all, strings.TrimPrefix(w, "no: ")) || strings.HasPrefix(w, "no: ") == strings.Contains(all, "spins until") {
				t.Errorf("%s %s: got\n%s\nwant %q", arch, fn.Name, all, w)
			}
		}
		if seen != len(want) {
			t.Errorf("%s: %d kernels, want %d", arch, seen, len(want))
		}
	}
}
