package loops

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// TestReferenceBounds converts the hand-written ECRTS 2025 bounds of
// ../shared/reference/loop-bounds and applies them to the matching PTX:
// one warp (32x1x1, one block) as in the single-warp runs, and the SGEMM
// launch of the paper. Where a bound is also derived, derived >= reference
// unless the reference is an observation (bfs).
func TestReferenceBounds(t *testing.T) {
	ref := sharedDir(t, "reference")
	lb := filepath.Join(ref, "loop-bounds")
	sw := filepath.Join(ref, "accelsim-singlewarp")
	for _, tc := range []struct {
		bounds, ptx, kernel string
		launch              pass.Launch
		err                 string // conversion error expected (substring)
		note                string
	}{
		{bounds: "rodinia/backprop/_Z22bpnn_layerforward_CUDAPfS_S_S_ii", ptx: "backprop-rodinia-2.0-ft/backprop-rodinia-2.4.sm_75.ptx"},
		{bounds: "rodinia/backprop/_Z24bpnn_adjust_weights_cudaPfiS_iS_S_", ptx: "backprop-rodinia-2.0-ft/backprop-rodinia-2.4.sm_75.ptx"},
		{bounds: "rodinia/bfs/_Z6KernelP4NodePiPbS2_S2_S1_i", ptx: "bfs-rodinia-2.0-ft/bfs-rodinia-2.4.sm_75.ptx", note: "observed bound: the loop runs over a node's edges (data)"},
		{bounds: "rodinia/bfs/_Z7Kernel2PbS_S_S_i", ptx: "bfs-rodinia-2.0-ft/bfs-rodinia-2.4.sm_75.ptx"},
		{bounds: "rodinia/lud/_Z12lud_diagonalPfii", ptx: "lud-rodinia-2.0-ft/lud-rodinia-2.8.sm_75.ptx", err: "block 9"},
		{bounds: "rodinia/lud/_Z12lud_internalPfii", ptx: "lud-rodinia-2.0-ft/lud-rodinia-2.8.sm_75.ptx"},
		{bounds: "rodinia/lud/_Z13lud_perimeterPfii", ptx: "lud-rodinia-2.0-ft/lud-rodinia-2.8.sm_75.ptx"},
		{bounds: "sgemm_bounds/4w/_Z17sgemm_double_buffiiifPKfS0_fPf", ptx: "../sgemm/_Z17sgemm_double_buffiiifPKfS0_fPf.ptx",
			launch: pass.Launch{Block: [3]int{128, 1, 1}, Grid: [3]int{1, 1, 1}, Args: map[string]int64{"_Z17sgemm_double_buffiiifPKfS0_fPf_param_2": 1024}}},
		{bounds: "sgemm_bounds/32w/_Z17sgemm_double_buffiiifPKfS0_fPf", ptx: "../sgemm/_Z17sgemm_double_buffiiifPKfS0_fPf.ptx",
			launch: pass.Launch{Block: [3]int{1024, 1, 1}, Grid: [3]int{1, 1, 1}, Args: map[string]int64{"_Z17sgemm_double_buffiiifPKfS0_fPf_param_2": 1024}}},
	} {
		t.Run(strings.ReplaceAll(tc.bounds, "/", "_"), func(t *testing.T) {
			kernel := filepath.Base(tc.bounds)
			bs, err := ParseECRTS("bounds.txt", readFile(t, filepath.Join(lb, tc.bounds, "bounds.txt")))
			if err != nil {
				t.Fatal(err)
			}
			src := readFile(t, filepath.Join(sw, tc.ptx))
			f, gs := graphs(t, tc.ptx, src)
			var g *cfg.Graph
			for _, x := range gs {
				if x.Func.Name == kernel {
					g = x
				}
			}
			if g == nil {
				t.Fatalf("no kernel %s in %s", kernel, tc.ptx)
			}
			sha := SHA256(src)
			facts, err := ConvertECRTS("bounds.txt", bs, g, tc.ptx, sha)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ConvertECRTS error %v, want %q", err, tc.err)
				}
				t.Logf("as documented (reference-data.md §6): %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := facts.Check(f, sha); err != nil {
				t.Fatal(err)
			}
			launch := tc.launch
			if launch.Block[0] == 0 {
				launch = pass.Launch{Block: [3]int{32, 1, 1}, Grid: [3]int{1, 1, 1}}
			}
			// Derived bounds alone, to compare (arguments may be missing:
			// compare only what evaluates).
			vf, err := values.Build(g, values.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ds := Derive(vf)
			r, err := ComputeValues(vf, launch, facts, sha)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Bounded() {
				t.Fatalf("not bounded with the reference facts: %v", r.Err())
			}
			for i, b := range bs {
				lbd := r.Loops[0]
				for _, x := range r.Loops {
					if x.Key.Label == facts.Kernels[0].Loops[i].Key.Label {
						lbd = x
					}
				}
				if lbd.Bound.Max != b.Max || lbd.Bound.Source != Annotated {
					t.Errorf("%s: bound %v, want annotated %d", b, lbd.Bound, b.Max)
				}
				d := ds[lbd.Loop.Index]
				if d.Expr == nil {
					t.Logf("%s (%s): reference %d, not derived: %s", b, lbd.Key, b.Max, d.Why)
					continue
				}
				v, err := d.Eval(LaunchEnv(launch))
				if err != nil {
					t.Logf("%s (%s): reference %d, derived %s not evaluated: %v", b, lbd.Key, b.Max, d.Expr, err)
					continue
				}
				t.Logf("%s (%s): reference %d, derived %d = %s", b, lbd.Key, b.Max, v, d.Expr)
				if v < b.Max && tc.note == "" {
					t.Errorf("%s: derived %d below the reference %d", b, v, b.Max)
				}
			}
		})
	}
}
