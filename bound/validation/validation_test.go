package validation

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var table = flag.Bool("table", false, "print the Markdown table of docs/validation.md")

func refDir(t *testing.T) string {
	dir := filepath.Join("..", "..", "..", "shared", "reference", "accelsim-singlewarp")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("reference data not available (%v)", err)
	}
	return dir
}

// TestSingleWarp asserts bound ≥ observed on every single-warp reference
// trace and a mean over-estimation of at most 2 %.
func TestSingleWarp(t *testing.T) {
	rows, err := SingleWarp(refDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10 {
		t.Errorf("%d traces, want 10", len(rows))
	}
	for _, r := range rows {
		if int64(r.Bound) < r.Observed {
			t.Errorf("UNSOUND: %s (%s): bound %d < observed %d", r.Trace, r.Kernel, r.Bound, r.Observed)
		}
	}
	mean, mx := Summary(rows)
	if mean > 2 {
		t.Errorf("mean over-estimation %.2f %% > 2 %% (max %.2f %%)", mean, mx)
	}
	if *table {
		var b strings.Builder
		if err := WriteMarkdown(&b, rows); err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + b.String())
	}
}

func TestMemLatency(t *testing.T) {
	dir := refDir(t)
	want := map[string]int64{"backprop": 10, "bfs": 2, "lud": 5, "vecadd": 8}
	for b, w := range want {
		got, ok, err := MemLatency(filepath.Join(dir, b+"-rodinia-2.0-ft"))
		if err != nil || !ok || int64(got) != w {
			t.Errorf("%s: MemLatency = %d, %v, %v; want %d", b, got, ok, err, w)
		}
	}
	if _, ok, err := MemLatency(filepath.Join(dir, "hotspot-rodinia-2.0-ft")); ok || err != nil {
		t.Errorf("hotspot: ok=%v err=%v, want no global load", ok, err)
	}
}

func TestIsGlobalLoad(t *testing.T) {
	for s, want := range map[string]bool{
		"ld.global.f32 %f1, [%rd1];":        true,
		"\t@%p1 ld.global.u8 %rs1, [%rd2];": true,
		"ld.shared.f32 %f1, [%r1];":         false,
		"st.global.f32 [%rd1], %f1;":        false,
		"ldu.global.f32 %f1, [%rd1];":       true,
	} {
		if got := isGlobalLoad(s); got != want {
			t.Errorf("isGlobalLoad(%q) = %v", s, got)
		}
	}
}
