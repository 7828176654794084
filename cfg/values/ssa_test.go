package values

import (
	"go/token"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/load"
)

// buildPTX builds the values of the first function of a PTX listing.
func buildPTX(t *testing.T, src string) (*Func, *cfg.Graph) {
	t.Helper()
	fset := token.NewFileSet()
	file, err := load.File(fset, "t.ptx", []byte(src), load.PTX)
	if err != nil {
		t.Fatal(err)
	}
	g, err := cfg.Build(fset, file.Funcs[0])
	if err != nil {
		t.Fatal(err)
	}
	f, err := Build(g, Options{Dialect: file.Dialect, Arch: file.Target})
	if err != nil {
		t.Fatal(err)
	}
	return f, g
}

// TestEntryLoop: a loop whose header is the function's first block is also
// entered from the function's entry. Its phis take the entry value along
// that edge. Before, a cycle of single-predecessor blocks through the
// entry recursed until the stack overflowed (a shrunk kernel of the
// evidence generator), and a register incremented in such a loop lost its
// entry value (the phi collapsed to the back-edge value).
func TestEntryLoop(t *testing.T) {
	const head = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .pred %p<3>;\n.reg .b32 %r<30>;\n"
	t.Run("single-predecessor cycle", func(t *testing.T) {
		f, g := buildPTX(t, head+`L:
	setp.ne.s32 %p1, %r9, -13;
	@%p1 bra LEAVE;
	add.s32 %r22, %r22, 1;
	setp.lt.s32 %p2, %r22, 1;
	@%p2 bra L;
	bra.uni EXIT;
LEAVE:
	add.s32 %r1, %r1, 1;
EXIT:
}
`)
		checkEntryPhi(t, f, g, "%r22")
	})
	t.Run("counter", func(t *testing.T) {
		f, g := buildPTX(t, head+`L:
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, 10;
	@%p1 bra L;
	ret;
}
`)
		checkEntryPhi(t, f, g, "%r1")
	})
}

// checkEntryPhi checks that the add reading v in the entry block reads a
// phi of v whose operands include v's entry value along a nil predecessor.
func checkEntryPhi(t *testing.T, f *Func, g *cfg.Graph, v string) {
	t.Helper()
	var found bool
	for _, x := range f.Values() {
		if x.Kind != VPhi || x.fwd != nil || x.Name != v || x.Block != g.Entry() {
			continue
		}
		found = true
		if len(x.Args) != len(x.Preds) {
			t.Fatalf("phi of %s: %d args, %d preds", v, len(x.Args), len(x.Preds))
		}
		entry := false
		for i, a := range x.Args {
			if x.Preds[i] == nil {
				entry = true
				if a := resolve(a); a.Kind != VUndef {
					t.Errorf("phi of %s: entry operand %v, want undefined", v, a)
				}
			}
		}
		if !entry {
			t.Errorf("phi of %s at the entry block has no operand along the function's entry: %v", v, x.Args)
		}
	}
	if !found {
		t.Errorf("no phi of %s at the entry block", v)
	}
}
