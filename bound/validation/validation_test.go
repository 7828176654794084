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

// maxMeanOver is the mean over-estimation measured with the per-line
// access bounds (6.52 %, docs/validation.md) plus about one point: a
// regression beyond it fails. The 2 % hoped for is not reached (the
// section drains and the branch waits, docs/validation.md explains).
const maxMeanOver = 7.5

// TestSingleWarp asserts bound ≥ observed on every single-warp reference
// trace and a mean over-estimation of at most maxMeanOver.
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
	if mean > maxMeanOver {
		t.Errorf("mean over-estimation %.2f %% > %.1f %% (max %.2f %%)", mean, maxMeanOver, mx)
	}
	if *table {
		var b strings.Builder
		if err := WriteMarkdown(&b, rows); err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + b.String())
	}
}

func TestMemAccesses(t *testing.T) {
	dir := refDir(t)
	// backprop: 5 accesses per load, once each; bfs: 1; lud: 16 accesses
	// over 4 executions of lines 76-96 (at most 13 in one); vecadd: 4 (the
	// four-pointer module's statistics, reference-data.md §3.4).
	want := map[string][2]int64{"backprop": {5, 14}, "bfs": {1, 6}, "lud": {13, 9}, "vecadd": {4, 12}}
	for b, w := range want {
		got, mean, ok, err := MemAccesses(filepath.Join(dir, b+"-rodinia-2.0-ft"))
		if err != nil || !ok || int64(got) != w[0] || mean != w[1] {
			t.Errorf("%s: MemAccesses = %d, %d, %v, %v; want %v", b, got, mean, ok, err, w)
		}
	}
	if _, _, ok, err := MemAccesses(filepath.Join(dir, "hotspot-rodinia-2.0-ft")); ok || err != nil {
		t.Errorf("hotspot: ok=%v err=%v, want no global memory line", ok, err)
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

// TestAccessBound: the access bound of one execution of a global line is
// the least of T − (n − 1) and the physical cap lanes × ⌈w/32⌉, with
// lanes ≤ 32 and ≤ count − (n − 1), and at least 1.
func TestAccessBound(t *testing.T) {
	for _, tc := range []struct {
		l    LineStat
		want int64
	}{
		{LineStat{Text: "ld.global.f32 %f1, [%rd1];", Count: 32, Accesses: 5, Warps: 1}, 5},                         // backprop: misaligned, 5 > 128/32
		{LineStat{Text: "ld.global.f32 %f1, [%rd1];", Count: 128, Accesses: 16, Warps: 4}, 13},                      // lud: T − (n − 1)
		{LineStat{Text: "ld.global.f32 %f1, [%rd1];", Count: 6400, Accesses: 9000, Warps: 200}, 32},                 // thousands: capped by the lanes
		{LineStat{Text: "ld.global.f32 %f1, [%rd1];", Count: 12, Accesses: 9000, Warps: 3}, 10},                     // at most 10 lanes in one execution
		{LineStat{Text: "@%p1 st.global.v4.f32 [%rd1], {%f1,%f2,%f3,%f4};", Count: 64, Accesses: 80, Warps: 2}, 32}, // 16 bytes per lane: one sector each
		{LineStat{Text: "ld.global.u8 %rs1, [%rd1];", Count: 32, Accesses: 0, Warps: 0}, 1},                         // no access in any execution: one cycle of LD/ST
		{LineStat{Text: "ld.global.f32 %f1, [%rd1];", Count: 1, Accesses: 1, Warps: 1}, 1},
	} {
		if got := tc.l.AccessBound(); int64(got) != tc.want {
			t.Errorf("%+v: AccessBound %d, want %d", tc.l, got, tc.want)
		}
	}
	for text, want := range map[string]int64{
		"ld.global.f32 %f1, [%rd1];": 4, "ld.global.v2.f64 {%fd1,%fd2}, [%rd1];": 16, "ld.global.u8 %rs1, [%rd1];": 1,
		"st.global.v4.u32 [%rd1], {%r1,%r2,%r3,%r4};": 16, "atom.global.add.u64 %rd2, [%rd1], 1;": 8, "ld.global.nc.b128 %r, [%rd1];": 16,
	} {
		if got := AccessWidth(text); got != want {
			t.Errorf("AccessWidth(%q) = %d, want %d", text, got, want)
		}
	}
}
