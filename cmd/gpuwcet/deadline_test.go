package main

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

func TestParseDeadline(t *testing.T) {
	type res struct {
		Unit  string
		Value int64
		Err   bool
	}
	for _, tc := range []struct {
		in   string
		want res
	}{
		{"150000", res{"cycles", 150000, false}},
		{"150000cycles", res{"cycles", 150000, false}},
		{"0", res{"cycles", 0, false}},
		{"1500ns", res{"ns", 1500, false}},
		{"20us", res{"ns", 20000, false}},
		{"20µs", res{"ns", 20000, false}},
		{"3ms", res{"ns", 3000000, false}},
		{"2s", res{"ns", 2000000000, false}},
		{" 2 ms ", res{"ns", 2000000, false}},
		{"4611686019s", res{Err: true}}, // above 2^62 ns
		{"4611686018s", res{"ns", 4611686018000000000, false}},
		{"4611686018427387904ns", res{"ns", 1 << 62, false}},
		{"1.5ms", res{Err: true}},
		{"-5", res{Err: true}},
		{"ms", res{Err: true}},
		{"", res{Err: true}},
		{"5kb", res{Err: true}},
		{"99999999999999999999", res{Err: true}},
	} {
		u, v, err := parseDeadline(tc.in)
		got := res{u, v, err != nil}
		if got.Err {
			got.Unit, got.Value = "", 0
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("parseDeadline(%q) (-want +got):\n%s", tc.in, d)
		}
	}
}

// TestDeadlineCycles: a bound within the deadline in cycles is exactly a
// bound whose ns figure (bound.Nanoseconds, rounding up) is within the
// deadline in ns, on random integer clocks and around the boundary.
func TestDeadlineCycles(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 100000; i++ {
		mhz := float64(1 + r.Intn(3000))
		ns := r.Int63n(1 << 40)
		dc, ok := deadlineCycles(ns, mhz)
		if !ok {
			t.Fatalf("deadlineCycles(%d, %g) overflows", ns, mhz)
		}
		for _, c := range []int64{dc - 1, dc, dc + 1, r.Int63n(1 << 40)} {
			if c < 0 {
				continue
			}
			bns, _ := bound.Nanoseconds(hwdesc.Cycles(c), &hwdesc.Desc{ClockMHz: mhz})
			if (bns <= ns) != (c <= dc) {
				t.Fatalf("clock %g MHz, deadline %d ns = %d cycles: bound %d cycles = %d ns", mhz, ns, dc, c, bns)
			}
		}
	}
}
