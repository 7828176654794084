package values

import (
	"go/token"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/load"
)

// buildSrc builds the value graph of the first function of src.
func buildSrc(t *testing.T, src string) *Func {
	t.Helper()
	fset := token.NewFileSet()
	file, err := load.File(fset, "t", []byte(src), load.Auto)
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
	return f
}

// TestComplementsFold: x & ~x is 0 and x | ~x every bit, whatever x.
func TestComplementsFold(t *testing.T) {
	f := buildSrc(t, `.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_param_0)
{
	.reg .b32 %r<8>;
	ld.param.u32 %r1, [k_param_0];
	not.b32 %r2, %r1;
	and.b32 %r3, %r2, %r1;
	or.b32 %r4, %r1, %r2;
	ret;
}
`)
	want := map[string]uint64{"and.b32": 0, "or.b32": 0xffffffff}
	n := 0
	for _, in := range f.Graph.Func.Instrs {
		w, ok := want[in.Op()]
		if !ok {
			continue
		}
		n++
		if c, ok := f.Outputs(in)[0].IsConst(); !ok || c != w {
			t.Errorf("%s: %s, want %#x", in.Text, f.Outputs(in)[0], w)
		}
	}
	if n != 2 {
		t.Fatalf("%d instructions checked", n)
	}
}

// TestActiveMaskPerBlock: VOTE.ANY Rd, PT, PT reads one value per
// execution of its block (two reads in a block are one value, reported by
// ActiveMasks), a new one after an instruction that may change the lanes
// (BSYNC) or in another block; other votes are not the active mask.
func TestActiveMaskPerBlock(t *testing.T) {
	src := "\n\tcode for sm_80\n\t\tFunction : k\n\t.headerflags    @\"EF_CUDA_SM80 EF_CUDA_PTX_SM(EF_CUDA_SM80)\"\n"
	for i, line := range []string{
		"VOTE.ANY R3, PT, PT", "YIELD", "VOTE.ANY R4, PT, PT", // 0-2: one mask
		"BSYNC B0", "VOTE.ANY R5, PT, PT", // 3-4: a new mask
		"VOTE.ANY R6, PT, P1", "@P2 VOTE.ANY R7, PT, PT", "VOTE.ALL R8, PT, PT", // 5-7: not the mask
		"EXIT",
	} {
		src += "        /*" + string("0123456789"[i/10]) + "0" + string("0123456789"[i%10]) + "0*/                   " + line + " ;   /* 0x0000000000007802 */\n"
		src += "                                                          /* 0x000fe20000000f00 */\n"
	}
	src += "\t\t..........\n"
	f := buildSrc(t, src)
	out := func(i int) *Value { return f.Outputs(f.Graph.Func.Instrs[i])[0] }
	if out(0) != out(2) || out(0).Kind != VOpaque {
		t.Errorf("two reads in one block: %s and %s, want one value", out(0), out(2))
	}
	if out(4) == out(2) {
		t.Errorf("a read after BSYNC is the mask before it")
	}
	if !f.ActiveMasks() {
		t.Errorf("ActiveMasks false")
	}
	for _, i := range []int{5, 6, 7} {
		if v := out(i); v == out(0) || v == out(4) {
			t.Errorf("%s: read as the active mask", f.Graph.Func.Instrs[i].Text)
		}
	}
}
