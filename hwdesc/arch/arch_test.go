package arch

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTableLoads(t *testing.T) {
	want := []string{"sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	if len(Sources()) < 2 {
		t.Errorf("Sources: %v", Sources())
	}
	for _, s := range Sources() {
		if !strings.Contains(s, "https://") || strings.Contains(s, "../") || strings.Contains(s, "/work/") {
			t.Errorf("source %q: want an upstream URL, not a local path", s)
		}
	}
}

// TestSchemaMatchesStruct checks that the schema lists exactly the TOML
// keys of Arch (a key added to one and not the other would be rejected or
// silently dropped).
func TestSchemaMatchesStruct(t *testing.T) {
	var keys []string
	rt := reflect.TypeOf(Arch{})
	for i := range rt.NumField() {
		if tag := rt.Field(i).Tag.Get("toml"); tag != "" && tag != "-" {
			keys = append(keys, strings.Split(tag, ",")[0])
		}
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(keys)), slices.Sorted(slices.Values(schema.Keys["arch"]))); diff != "" {
		t.Errorf("schema keys of [[arch]] (-struct +schema):\n%s", diff)
	}
}

func TestLookup(t *testing.T) {
	for _, n := range []string{"sm_62", "SM_62", "compute_62", "6.2", "sm_90a"} {
		a, err := Lookup(n)
		if err != nil {
			t.Errorf("Lookup(%q): %v", n, err)
			continue
		}
		if a.Name != "sm_62" && a.Name != "sm_90" {
			t.Errorf("Lookup(%q) = %s", n, a.Name)
		}
	}
	for _, n := range []string{"sm_99", "sm_35", "gfx90a", "", "6", "sm_6x"} {
		if _, err := Lookup(n); err == nil || !strings.Contains(err.Error(), "known: sm_52") {
			t.Errorf("Lookup(%q): err = %v, want an error listing the known architectures", n, err)
		}
	}
}

// TestOccupancy checks occupancies computed by hand with the algorithm of
// cuda_occupancy.h (CUDA 11.8); each case says how.
func TestOccupancy(t *testing.T) {
	cases := []struct {
		arch    string
		k       Kernel
		lo, hi  int
		limiter []string
		why     string
	}{
		{"sm_70", Kernel{Block: [3]int{256, 1, 1}, Regs: Exact(32), StaticSmem: Exact(4096)}, 8, 8, []string{"warps", "registers"},
			"64 warps / 8; 32 regs: 1024 per warp, 16384/1024 = 16 warps per sub-partition, 64/8 = 8; smem 96K/4K = 24"},
		{"sm_86", Kernel{Block: [3]int{256, 1, 1}, Regs: Exact(32)}, 6, 6, []string{"warps"},
			"48 warps / 8 = 6; registers allow 8; 1 KB reserved: 100 blocks"},
		{"sm_80", Kernel{Block: [3]int{256, 1, 1}, Regs: Exact(64)}, 4, 4, []string{"registers"},
			"64 regs: 2048 per warp, 8 warps per sub-partition, 32 warps = 4 blocks of 8"},
		{"sm_70", Kernel{Block: [3]int{128, 1, 1}, Regs: Exact(255)}, 2, 2, []string{"registers"},
			"255·32 = 8160 -> 8192 per warp, 2 warps per sub-partition, 8 warps = 2 blocks of 4"},
		{"sm_62", Kernel{Block: [3]int{1024, 1, 1}, Regs: Exact(32)}, 2, 2, []string{"warps", "registers"},
			"64 warps / 32 = 2 (also with partitioned caching); 32 regs: 16 warps per sub-partition, 64/32 = 2"},
		{"sm_62", Kernel{Block: [3]int{256, 1, 1}, Regs: Exact(16), StaticSmem: Exact(16384)}, 4, 4, []string{"shared memory"},
			"64 KB / 16 KB = 4"},
		{"sm_75", Kernel{Block: [3]int{96, 1, 1}, Regs: Exact(40)}, 10, 10, []string{"warps"},
			"32 warps / 3 = 10; 40 regs: 1280 per warp, 12 warps per sub-partition, 48/3 = 16; blocks 16"},
		{"sm_62", Kernel{Block: [3]int{64, 1, 1}, Regs: Range{1, 255}}, 4, 32, []string{"warps", "blocks"},
			"Hi: 64/2 = 32 warps-limited, 32 blocks; Lo: 255 regs -> 8192 per warp, 2 warps per sub-partition; with partitioned caching 2·2/2·2 = 4"},
		{"sm_90", Kernel{Block: [3]int{32, 1, 1}, Regs: Exact(16), Barriers: Exact(16)}, 4, 4, []string{"barriers"},
			"2·32 / 16 barriers = 4"},
		{"sm_62", Kernel{Block: [3]int{1024, 1, 1}, Regs: Range{0, 255}}, 1, 2, []string{"warps"},
			"Hi: registers unlimited at 0, 2 by warps; Lo: 255 regs do not fit 32K per block, assumed 1 (the launch succeeds)"},
	}
	for _, c := range cases {
		a, err := Lookup(c.arch)
		if err != nil {
			t.Fatal(err)
		}
		o, err := a.Occupancy(c.k)
		if err != nil {
			t.Errorf("%s %+v: %v", c.arch, c.k, err)
			continue
		}
		if o.Lo != c.lo || o.Hi != c.hi || !slices.Equal(o.Limiter, c.limiter) {
			t.Errorf("%s %+v: occupancy %d..%d limited by %v, want %d..%d by %v (%s)", c.arch, c.k, o.Lo, o.Hi, o.Limiter, c.lo, c.hi, c.limiter, c.why)
		}
	}
}

// TestOccupancyMonotone checks the direction the bounds rely on: more
// registers or shared memory never raise the occupancy, and the range's
// Lo is never above the occupancy of any value in it (docs/model.md,
// "Occupancy").
func TestOccupancyMonotone(t *testing.T) {
	for _, n := range Names() {
		a, _ := Lookup(n)
		for _, threads := range []int{32, 96, 128, 256, 512, 1024} {
			prev := Unlimited
			for regs := int64(0); regs <= 255; regs += 7 {
				o, err := a.Occupancy(Kernel{Block: [3]int{threads, 1, 1}, Regs: Exact(regs)})
				hi := 0
				if err == nil {
					hi = o.Hi
				}
				if hi > prev {
					t.Errorf("%s, %d threads: %d registers give %d blocks, fewer registers gave %d", n, threads, regs, hi, prev)
				}
				prev = hi
				r, err := a.Occupancy(Kernel{Block: [3]int{threads, 1, 1}, Regs: Range{0, 255}})
				if err != nil {
					t.Fatalf("%s %d threads, unknown registers: %v", n, threads, err)
				}
				if hi > 0 && (r.Lo > hi || r.Hi < hi) {
					t.Errorf("%s %d threads: range %d..%d does not contain %d (%d registers)", n, threads, r.Lo, r.Hi, hi, regs)
				}
			}
		}
	}
}

func TestBadLaunch(t *testing.T) {
	a, _ := Lookup("sm_62")
	for _, c := range []struct {
		k    Kernel
		grid [3]int
		want string
	}{
		{Kernel{Block: [3]int{2048, 1, 1}}, [3]int{1, 1, 1}, "block dimension x is 2048: sm_62 allows at most 1024"},
		{Kernel{Block: [3]int{1, 1, 65}}, [3]int{1, 1, 1}, "block dimension z is 65"},
		{Kernel{Block: [3]int{64, 32, 1}}, [3]int{1, 1, 1}, "2048 threads: sm_62 allows at most 1024 threads per block"},
		{Kernel{Block: [3]int{64, 1, 1}}, [3]int{1, 65536, 1}, "grid dimension y is 65536: sm_62 allows at most 65535"},
	} {
		err := a.CheckLaunch(c.k.Block, c.grid)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckLaunch(%v, %v) = %v, want %q", c.k.Block, c.grid, err, c.want)
		}
	}
	for _, c := range []struct {
		k    Kernel
		want string
	}{
		{Kernel{Block: [3]int{64, 1, 1}, StaticSmem: Exact(40000), DynamicSmem: 20000}, "exceeds sm_62's 49152 bytes per block"},
		{Kernel{Block: [3]int{1024, 1, 1}, Regs: Exact(33)}, "does not fit on one sm_62 SM: the registers limit allows 0 blocks"},
		{Kernel{Block: [3]int{64, 1, 1}, Regs: Exact(256)}, "256 registers per thread: sm_62 allows at most 255"},
		{Kernel{Block: [3]int{64, 1, 1}, DynamicSmem: -1}, "dynamic shared memory -1"},
	} {
		_, err := a.Occupancy(c.k)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Occupancy(%+v) = %v, want %q", c.k, err, c.want)
		}
	}
}
