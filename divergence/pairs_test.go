package divergence_test

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/divergence"
)

// classesOf resolves every kernel of a listing per warp and returns, per
// kernel, its classes as the sets of warps with one outcome per branch.
func classesOf(t *testing.T, path string, l pass.Launch) map[string][]string {
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
	out := map[string][]string{}
	res, err := pass.Run([]*pass.Analyzer{divergence.Analyzer}, file, pass.Options{Launch: l, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range res.Funcs {
		act := res.Get(divergence.Analyzer, fn)
		if act.Err != nil {
			t.Fatalf("%s: %s: %v", path, fn.Name, res.Err())
		}
		info := act.Result.(*divergence.Info)
		var cs []string
		for _, c := range info.Classes {
			// A class that runs a divergent branch is marked: the
			// partition and which classes diverge must agree.
			div := ""
			for _, o := range c.Outcomes {
				if o == divergence.Divergent {
					div = " (divergent)"
				}
			}
			cs = append(cs, fmt.Sprint(c.Warps)+div)
		}
		sort.Strings(cs)
		out[fn.Name] = cs
	}
	return out
}

// TestSASSResolutionMatchesPTX: per-warp resolution on SASS, through the
// same semantics layer as PTX (constant-bank parameters and launch
// dimensions by the architecture's layout, IADD3/LEA/LOP3/SHF/ISETP...),
// groups the warps of every kernel as the PTX of the same build does,
// for clang (sm_52, sm_80, sm_90) and nvcc (sm_62, sm_87) builds.
func TestSASSResolutionMatchesPTX(t *testing.T) {
	dir := filepath.Join("testdata", "pairs")
	for _, n := range []int64{40, -1, 7} {
		l := pass.Launch{Block: [3]int{128, 1, 1}, Grid: [3]int{2, 1, 1}, Args: map[string]int64{}}
		for _, b := range []string{"sm_52", "sm_80", "sm_90", "nvcc.sm_62", "nvcc.sm_87"} {
			ptxPath := filepath.Join(dir, "branches."+b+".ptx")
			sassPath := filepath.Join(dir, "branches."+b+".sass")
			// Both kernels name their n parameter by the PTX names.
			for _, k := range []string{"_Z5belowPii", "_Z7warpselPii", "_Z5clampPii", "_Z4twodPii", "_Z9signeddivPii"} {
				l.Args[k+"_param_1"] = n
			}
			want := classesOf(t, ptxPath, l)
			got := classesOf(t, sassPath, l)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("n = %d, %s: SASS classes differ from PTX (-ptx +sass):\n%s", n, b, diff)
			}
			// The resolution must actually split warps somewhere.
			if n == 40 && !strings.Contains(fmt.Sprint(want["_Z5belowPii"]), "[1] (divergent)") {
				t.Errorf("%s: below: want warp 1 divergent, got %v", b, want["_Z5belowPii"])
			}
		}
	}
}
