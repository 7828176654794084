package prem

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// golden evaluates a testdata/golden schedule.
func golden(t *testing.T, name string) *Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	return check(t, "schedule.toml", txtar.Parse(data).Input(t, "schedule.toml"))
}

func status(t *testing.T, r *Result, id string) *Check {
	t.Helper()
	for i := range r.Checks {
		if r.Checks[i].ID == id {
			return &r.Checks[i]
		}
	}
	t.Fatalf("no check %s", id)
	return nil
}

func minSlack(r *Result, slot string) int64 {
	m := int64(math.MaxInt64)
	for _, s := range r.Slack {
		if s.Slot == slot {
			m = min(m, s.MinSlackNS)
		}
	}
	return m
}

func memSlack(r *Result, participant, phase string) int64 {
	for _, s := range r.MemorySlack {
		if s.Participant == participant && s.Phase == phase {
			return s.SlackNS
		}
	}
	return math.MinInt64
}

func pair(r *Result, a, b string) *OverlapPair {
	for i, p := range r.Overlaps.Pairs {
		if p.A == a && p.B == b {
			return &r.Overlaps.Pairs[i]
		}
	}
	return nil
}

// TestNotesNumbers checks the verdicts and key numbers of
// prem-schedules.md §6, as the notes derive them by hand from the tt-gpu
// configurations (P, C, W = 2 800, 800, 700 ns per kernel participant;
// 2 300, 700, 500 per block participant; J = 160; T_i = 512; K = 1;
// WU = 10 000).
func TestNotesNumbers(t *testing.T) {
	t.Run("kernel-wise whole tile 1400", func(t *testing.T) {
		r := golden(t, "kw-whole-1400")
		if r.HyperperiodNS != 5600 {
			t.Errorf("T_hyper %d, want 5 600", r.HyperperiodNS)
		}
		c4 := status(t, r, "C4")
		if c4.FormulaHolds == nil || !*c4.FormulaHolds || !c4.Unsound || c4.Status == StatusPass {
			t.Errorf("C4 %+v: want the slot to fit (5 600 >= 4 460) but reported unsound, never PASS", c4)
		}
		if s := minSlack(r, "tile"); s != 1140 {
			t.Errorf("C4 slack %d, want 1 140", s)
		}
		if c := status(t, r, "C5"); c.Status != StatusFail {
			t.Errorf("C5 %s, want FAIL", c.Status)
		}
		for _, p := range [][2]string{{"conv.0", "conv.1"}, {"conv.1", "conv.2"}, {"conv.2", "conv.3"}, {"conv.0", "conv.3"}} {
			if op := pair(r, p[0], p[1]); op == nil || op.MaxNS != 3060 {
				t.Errorf("adjacent pair %v: %+v, want an overlap of 3 060 ns (4 460 - 1 400)", p, op)
			}
		}
		if r.Verdict != "fail" {
			t.Errorf("verdict %s", r.Verdict)
		}
	})
	t.Run("kernel-wise whole tile 1000", func(t *testing.T) {
		r := golden(t, "kw-whole-1000")
		if r.HyperperiodNS != 4000 || status(t, r, "C4").Status != StatusFail || status(t, r, "C5").Status != StatusFail {
			t.Errorf("T_hyper %d, C4 %s, C5 %s; want 4 000, FAIL, FAIL", r.HyperperiodNS, status(t, r, "C4").Status, status(t, r, "C5").Status)
		}
		if ce := status(t, r, "C4").Counterexample; ce == nil || ce.ByNS != 460 {
			t.Errorf("C4 counterexample %+v, want 4 460 - 4 000 = 460 ns over", ce)
		}
	})
	t.Run("the fix: PF_off 4460", func(t *testing.T) {
		r := golden(t, "kw-whole-4460")
		if r.HyperperiodNS != 17840 || status(t, r, "C5").Status != StatusPass {
			t.Errorf("T_hyper %d, C5 %s; want 17 840, PASS", r.HyperperiodNS, status(t, r, "C5").Status)
		}
		// M = WU + 510·T_hyper + (N-1)·PF_off + (P+C+W+J) ≈ 9.13 ms.
		if want := int64(10000 + 510*17840 + 3*4460 + 4460); r.Makespan.NS != want || math.Round(float64(want)/1e4)/100 != 9.13 {
			t.Errorf("makespan %d, want %d (about 9.13 ms)", r.Makespan.NS, want)
		}
	})
	t.Run("block-wise whole tile 2500", func(t *testing.T) {
		r := golden(t, "bw-whole-2500")
		if r.N != 8 || status(t, r, "C5").Status != StatusFail {
			t.Errorf("N %d, C5 %s; want 8, FAIL", r.N, status(t, r, "C5").Status)
		}
		// Exclusion needs 2 300 + 700 + 500 + 160 = 3 660 >= PF_off.
		if op := pair(r, "conv.0/b0", "conv.0/b1"); op == nil || op.MaxNS != 3660-2500 {
			t.Errorf("adjacent pair: %+v, want an overlap of 1 160 ns", op)
		}
	})
	t.Run("phase kernel-wise 3000/1000", func(t *testing.T) {
		r := golden(t, "kw-phase-3000-1000")
		if r.Verdict != "pass" {
			t.Errorf("verdict %s, want pass", r.Verdict)
		}
		if r.WBBaseOffsetNS == nil || *r.WBBaseOffsetNS != 15000 || r.HyperperiodNS != 20000 {
			t.Errorf("T_WB_off %v, T_hyper %d; want 15 000, 20 000", r.WBBaseOffsetNS, r.HyperperiodNS)
		}
		for _, x := range []struct {
			part, phase string
			want        int64
		}{{"conv.0", "prefetch", 40}, {"conv.1", "prefetch", 40}, {"conv.2", "prefetch", 40}, {"conv.0", "writeback", 140},
			{"conv.2", "writeback", 140}, {"conv.3", "prefetch", 3040}, {"conv.3", "writeback", 1140}} {
			if got := memSlack(r, x.part, x.phase); got != x.want {
				t.Errorf("C5 slack %s %s = %d, want %d", x.part, x.phase, got, x.want)
			}
		}
		if r.Makespan.NS != 10000+510*20000+18000+860 {
			t.Errorf("makespan %d, want 10 228 860 (10.229 ms)", r.Makespan.NS)
		}
		if r.Utilisation.MemoryPct != 70 {
			t.Errorf("U_mem %v %%, want 70", r.Utilisation.MemoryPct)
		}
		if a := r.Sensitivity.Alpha; math.Abs(a-float64(3000-160)/2800) > 1e-4 || math.Round(a*1000) != 1014 {
			t.Errorf("alpha %v, want (3 000 - 160) / 2 800 = 1.014", a)
		}
	})
	t.Run("phase kernel-wise 3000/600", func(t *testing.T) {
		r := golden(t, "kw-phase-3000-600")
		c := status(t, r, "C5")
		if c.Status != StatusFail || c.Counterexample == nil || c.Counterexample.A.Phase != "writeback" || c.Counterexample.ByNS != 700+160-600 {
			t.Errorf("C5 %+v, want FAIL on the write-backs by 260 ns", c)
		}
	})
	t.Run("phase kernel-wise 1500/3000", func(t *testing.T) {
		r := golden(t, "kw-phase-1500-3000")
		c := status(t, r, "C5")
		if c.Status != StatusFail || c.Counterexample == nil || c.Counterexample.A.Phase != "prefetch" || c.Counterexample.ByNS != 2800+160-1500 {
			t.Errorf("C5 %+v, want FAIL on the prefetches by 1 460 ns", c)
		}
	})
	t.Run("tile 0", func(t *testing.T) {
		r := golden(t, "tile0")
		if c := status(t, r, "C7"); c.Status != StatusInfo {
			t.Errorf("C7 %s, want INFO", c.Status)
		}
	})
}
