package prem

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// ttgpuBlockwise is the tt-gpu configuration of 4 kernels x 2 blocks as 8
// block participants of 512 tiles, in phase mode.
func ttgpuSchedule(tb testing.TB) *Schedule {
	data, err := os.ReadFile(filepath.Join("testdata", "golden", "kw-phase-3000-1000.txtar"))
	if err != nil {
		tb.Fatal(err)
	}
	src, _ := txtar.Parse(data).Get("schedule.toml")
	s, err := Decode("schedule.toml", src)
	if err != nil {
		tb.Fatal(err)
	}
	s.Granularity = BlockWise // 8 participants
	return s
}

// largeSchedule has n participants of tiles tiles each, in phase mode,
// memory-exclusive.
func largeSchedule(tb testing.TB, n int, tiles int64) *Schedule {
	src := fmt.Sprintf(`schema_version = 1
[platform]
timer_resolution_ns = 100
release_jitter_ns = 100
[schedule]
mode = "phase"
granularity = "kernel"
warmup_ns = 100_000
pf_offset_ns = 1_000
wb_offset_ns = 500
budget_pf_ns = 1_000
budget_c_ns = 2_000
budget_wb_ns = 500
[[kernel]]
id = "k"
instances = %d
blocks = 1
threads_per_block = 256
tiles_per_block = %d
[[bound]]
kernel = "k"
phase = "prefetch"
wcet_ns = 800
[[bound]]
kernel = "k"
phase = "compute"
wcet_ns = 1_500
[[bound]]
kernel = "k"
phase = "writeback"
wcet_ns = 300
`, n, tiles)
	s, err := Decode("large.toml", []byte(src))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func benchEvaluate(b *testing.B, s *Schedule, wantVerdict string) {
	bounds := Bounds(s, nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r, _, err := Evaluate(s, bounds)
		if err != nil {
			b.Fatal(err)
		}
		if r.Verdict != wantVerdict {
			b.Fatalf("verdict %s", r.Verdict)
		}
	}
}

// BenchmarkTTGPU: 8 participants x 512 tiles (target: under 10 ms).
func BenchmarkTTGPU(b *testing.B) { benchEvaluate(b, ttgpuSchedule(b), "fail") }

// BenchmarkLarge: 1,000 participants x 100,000 tiles, 2 x 10^8 memory
// windows, never unrolled (target: under 1 s and 200 MB).
func BenchmarkLarge(b *testing.B) { benchEvaluate(b, largeSchedule(b, 1000, 100_000), "pass") }

// TestLargeIsExact: the large schedule is checked by the periodic regime
// (a few tiles swept), and a smaller one of the same shape gives the same
// verdict and slacks as the naive unroll of every tile.
func TestLargeIsExact(t *testing.T) {
	r, m, err := Evaluate(largeSchedule(t, 1000, 100_000), Bounds(largeSchedule(t, 1000, 100_000), nil))
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "pass" || r.Overlaps.TilesSwept > 8 {
		t.Fatalf("verdict %s, %d tiles swept", r.Verdict, r.Overlaps.TilesSwept)
	}
	if want := int64(100_000 + 99_998*m.T + m.WBBase + 999*500 + 300 + 100); r.Makespan.NS != want {
		t.Errorf("makespan %d, want %d", r.Makespan.NS, want)
	}
	small := largeSchedule(t, 20, 30)
	_, ms, err := Evaluate(small, Bounds(small, nil))
	if err != nil {
		t.Fatal(err)
	}
	c, sw := engineOn(ms)
	want := naive(ms)
	if sw.overlaps != 0 || want.overlaps != 0 {
		t.Errorf("overlaps: engine %d, unroll %d", sw.overlaps, want.overlaps)
	}
	var M int64
	for _, ch := range c.cs {
		M = max(M, ch.end())
	}
	if M != want.makespan {
		t.Errorf("makespan %d, unroll %d", M, want.makespan)
	}
}

// BenchmarkLargeDrift: the large schedule with a prefetch bound above the
// period (every participant drifts, C4 fails): no periodic regime, the
// sweep stops at MaxSweepWindows (C5 undecided or failing on what it saw).
func BenchmarkLargeDrift(b *testing.B) {
	s := largeSchedule(b, 1000, 100_000)
	bounds := Bounds(s, nil)
	bounds[0].Steady[Prefetch].WCET = 2_000_000 // far above T_hyper
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r, _, err := Evaluate(s, bounds)
		if err != nil {
			b.Fatal(err)
		}
		if r.Verdict != "fail" || r.Overlaps.TilesSwept >= 100_000 {
			b.Fatalf("verdict %s, %d tiles swept", r.Verdict, r.Overlaps.TilesSwept)
		}
	}
}

// TestHeavyOverlapBounded: 300 participants whose memory windows all
// overlap and drift: the sweep stops at its pair cap, the verdict and the
// first overlap stand, and the result lists at most MaxListedPairs pairs.
func TestHeavyOverlapBounded(t *testing.T) {
	defer func(n int) { MaxSweepPairs = n }(MaxSweepPairs)
	MaxSweepPairs = 2_000_000
	s := largeSchedule(t, 300, 1000)
	bounds := Bounds(s, nil)
	bounds[0].Steady[Prefetch].WCET = 5_000_000
	r, _, err := Evaluate(s, bounds)
	if err != nil {
		t.Fatal(err)
	}
	c5 := r.Checks[4]
	if c5.ID != "C5" || c5.Status != StatusFail || c5.Counterexample == nil || !strings.Contains(c5.Reason, "later tiles are not swept") {
		t.Fatalf("C5 %+v", c5)
	}
	if len(r.Overlaps.Pairs) != MaxListedPairs || r.Overlaps.ParticipantPairs != 300*299/2 {
		t.Errorf("%d pairs listed of %d, want %d of %d", len(r.Overlaps.Pairs), r.Overlaps.ParticipantPairs, MaxListedPairs, 300*299/2)
	}
}
