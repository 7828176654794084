package static_test

import (
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// analyzeFile runs the static pass, as gpuwcet analyze does, on every
// kernel of a listing.
func analyzeFile(t *testing.T, path string, launch pass.Launch) map[string]*static.Report {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file, err := load.File(fset, path, src, load.Auto)
	if err != nil {
		t.Fatal(err)
	}
	hw, err := hwdesc.Builtin("ecrts25-orin-200")
	if err != nil {
		t.Fatal(err)
	}
	res, err := pass.Run([]*pass.Analyzer{static.Analyzer}, file, pass.Options{HW: hw, Launch: launch, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*static.Report{}
	for _, fn := range res.Funcs {
		act := res.Get(static.Analyzer, fn)
		if act.Err != nil {
			t.Fatalf("%s: %s: %v", path, fn.Name, res.Err())
		}
		out[fn.Name] = act.Result.(*static.Report)
	}
	return out
}

// TestDeviceCallVarying: a device function's return value, and its own
// parameters once inlined, are as varying as what the caller passed
// (issue 9, item 1). clang's output of
// `if (pick(threadIdx.x)) {6 x __sinf} else {6 x __cosf}` with
// `pick(x) = x & 1` __noinline__: the branch on pick's result is
// divergent, so the bound covers both sides, at least the bound of the
// same kernel with pick inlined by the compiler. pick_call_renamed.ptx is
// the same code with the kernel's registers renamed apart from the
// callee's: before the fix, the analysis saw the callee's ld.param and the
// caller's ld.param [retval0] as uniform kernel-parameter loads and
// bounded one side only (395 cycles against 543).
func TestDeviceCallVarying(t *testing.T) {
	dir := filepath.Join("testdata", "calls")
	launch := pass.Launch{Block: [3]int{32, 1, 1}}
	ref := analyzeFile(t, filepath.Join(dir, "pick_inline.ptx"), launch)["_Z1kPff"]
	if ref == nil || len(ref.Info.Branches) == 0 || !ref.Info.Branches[0].Divergent {
		t.Fatalf("reference: the branch on threadIdx.x & 1 is not divergent")
	}
	for _, name := range []string{"pick_call.ptx", "pick_call_renamed.ptx"} {
		rep := analyzeFile(t, filepath.Join(dir, name), launch)["_Z1kPff"]
		if !rep.Inlined {
			t.Errorf("%s: the call was not inlined", name)
		}
		divergent := 0
		for _, br := range rep.Info.Branches {
			if br.Divergent {
				divergent++
			}
		}
		if divergent != 1 {
			t.Errorf("%s: %d divergent branches, want 1 (the branch on pick's result)", name, divergent)
		}
		if rep.Bound < ref.Bound {
			t.Errorf("%s: bound %d below the bound %d of the same kernel with pick inlined by the compiler", name, rep.Bound, ref.Bound)
		}
	}
}
