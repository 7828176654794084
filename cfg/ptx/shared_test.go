package ptx

import (
	"go/token"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

func TestSharedDecls(t *testing.T) {
	src := `.version 7.0
.target sm_80
.address_size 64
.shared .align 8 .b8 modvar[256];
.extern .shared .align 16 .b8 dyn[];
.visible .shared .align 4 .f32 pub[2][3];
.visible .entry k(
	.param .u64 k_param_0
)
{
	.reg .b32 %r<3>;
	.shared .align 4 .b8 buf[1024];
	.shared .v4 .f32 vecs[8], one;
	.shared::cta .u16 h[5];
	.shared .b32 bad[n];
	ret;
}
`
	f, err := ParseFile(token.NewFileSet(), "k.ptx", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	ignore := cmpopts.IgnoreFields(isa.SharedVar{}, "Pos")
	wantMod := []isa.SharedVar{
		{Name: "modvar", Bytes: 256, Align: 8},
		{Name: "dyn", Bytes: 0, Align: 16, Extern: true},
		{Name: "pub", Bytes: 24, Align: 4},
	}
	if diff := cmp.Diff(wantMod, f.Shared, ignore); diff != "" {
		t.Errorf("module-scope .shared (-want +got):\n%s", diff)
	}
	want := []isa.SharedVar{
		{Name: "buf", Bytes: 1024, Align: 4},
		{Name: "vecs", Bytes: 128},
		{Name: "one", Bytes: 16},
		{Name: "h", Bytes: 10},
		{Name: "bad", Bytes: -1},
	}
	if diff := cmp.Diff(want, f.Funcs[0].Res.Shared, ignore); diff != "" {
		t.Errorf("function .shared (-want +got):\n%s", diff)
	}
	if len(f.Funcs[0].Instrs) != 1 {
		t.Errorf("instructions after the declarations: %d, want 1 (ret)", len(f.Funcs[0].Instrs))
	}
}
