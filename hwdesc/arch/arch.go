// Package arch holds the per-architecture limits of a streaming
// multiprocessor (threads, warps, blocks, registers and shared memory per
// SM, with their allocation granularities) and computes from them how many
// blocks of a kernel are co-resident on one SM (Occupancy), the way the
// CUDA occupancy calculator does.
//
// The limits are data (arch.toml, embedded), with their upstream sources
// (Sources). An occupancy is a range: Lo blocks are guaranteed to fit when
// the kernel's resources are known only as ranges (registers per thread
// not stated by the listing, shared memory not stated), and Hi is the most
// that can fit. docs/model.md ("Occupancy") says which end each bound uses
// and why that is safe.
package arch

import (
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Arch is the per-SM limits of one compute capability.
type Arch struct {
	Name     string `toml:"name"`     // "sm_62"
	Products string `toml:"products"` // the chips and boards of this capability, informative

	MaxThreadsPerBlock int      `toml:"max_threads_per_block"`
	MaxBlockDims       [3]int64 `toml:"max_block_dims"`
	MaxGridDims        [3]int64 `toml:"max_grid_dims"`

	MaxThreadsPerSM int `toml:"max_threads_per_sm"` // resident threads (warps × 32)
	MaxBlocksPerSM  int `toml:"max_blocks_per_sm"`  // resident blocks

	RegsPerSM        int `toml:"regs_per_sm"`         // 32-bit registers of the SM
	RegsPerBlock     int `toml:"regs_per_block"`      // at most per block
	MaxRegsPerThread int `toml:"max_regs_per_thread"` // at most per thread
	RegAllocUnit     int `toml:"reg_alloc_unit"`      // registers are allocated per warp in units of this many
	SubPartitions    int `toml:"sub_partitions"`      // register-file partitions (warp schedulers)

	SmemPerSM            int64 `toml:"smem_per_sm"`             // shared memory of the SM (largest carve-out), bytes
	SmemPerBlock         int64 `toml:"smem_per_block"`          // per block without opt-in
	SmemPerBlockOptin    int64 `toml:"smem_per_block_optin"`    // per block with cudaFuncAttributeMaxDynamicSharedMemorySize
	SmemAllocUnit        int64 `toml:"smem_alloc_unit"`         // allocation granularity, bytes
	SmemReservedPerBlock int64 `toml:"smem_reserved_per_block"` // reserved by the driver for every block

	// PartitionedGC: the SM supports partitioned global caching (loads
	// cached in L1, -Xptxas -dlcm=ca), which gives a block half the SM's
	// warps and registers and may lower occupancy.
	PartitionedGC bool `toml:"partitioned_gc"`
	// BarrierLimit: the named block barriers a block uses limit the
	// resident blocks to 2·max_blocks_per_sm / barriers (sm_90).
	BarrierLimit bool `toml:"barrier_limit"`
}

// WarpSize is the number of threads of a warp on every architecture.
const WarpSize = 32

// MaxWarpsPerSM returns the resident warps of an SM.
func (a *Arch) MaxWarpsPerSM() int { return a.MaxThreadsPerSM / WarpSize }

type table struct {
	Sources []string `toml:"sources"`
	Arch    []*Arch  `toml:"arch"`
}

//go:embed arch.toml
var archTOML []byte

var schema = hwdesc.Schema{Keys: map[string][]string{
	"": {"sources", "arch"},
	"arch": {"name", "products", "max_threads_per_block", "max_block_dims", "max_grid_dims", "max_threads_per_sm",
		"max_blocks_per_sm", "regs_per_sm", "regs_per_block", "max_regs_per_thread", "reg_alloc_unit", "sub_partitions",
		"smem_per_sm", "smem_per_block", "smem_per_block_optin", "smem_alloc_unit", "smem_reserved_per_block",
		"partitioned_gc", "barrier_limit"},
}}

var (
	loadOnce sync.Once
	loaded   *table
	loadErr  error
)

func load() (*table, error) {
	loadOnce.Do(func() {
		t := new(table)
		if _, err := hwdesc.DecodeStrict("hwdesc/arch/arch.toml", archTOML, t, schema); err != nil {
			loadErr = fmt.Errorf("arch: the built-in architecture table is broken: %w", err)
			return
		}
		for _, a := range t.Arch {
			if err := a.check(); err != nil {
				loadErr = fmt.Errorf("arch: the built-in architecture table is broken: %s: %w", a.Name, err)
				return
			}
		}
		loaded = t
	})
	return loaded, loadErr
}

// check verifies that every limit is positive and consistent.
func (a *Arch) check() error {
	if _, _, err := parseName(a.Name); err != nil {
		return err
	}
	pos := map[string]int64{
		"max_threads_per_block": int64(a.MaxThreadsPerBlock), "max_threads_per_sm": int64(a.MaxThreadsPerSM),
		"max_blocks_per_sm": int64(a.MaxBlocksPerSM), "regs_per_sm": int64(a.RegsPerSM), "regs_per_block": int64(a.RegsPerBlock),
		"max_regs_per_thread": int64(a.MaxRegsPerThread), "reg_alloc_unit": int64(a.RegAllocUnit), "sub_partitions": int64(a.SubPartitions),
		"smem_per_sm": a.SmemPerSM, "smem_per_block": a.SmemPerBlock, "smem_per_block_optin": a.SmemPerBlockOptin, "smem_alloc_unit": a.SmemAllocUnit,
	}
	for _, k := range slices.Sorted(maps.Keys(pos)) {
		if pos[k] <= 0 {
			return fmt.Errorf("%s must be positive, got %d", k, pos[k])
		}
	}
	for i := range 3 {
		if a.MaxBlockDims[i] <= 0 || a.MaxGridDims[i] <= 0 {
			return fmt.Errorf("block and grid dimension limits must be positive")
		}
	}
	switch {
	case a.SmemReservedPerBlock < 0:
		return fmt.Errorf("smem_reserved_per_block must not be negative")
	case a.MaxThreadsPerSM%WarpSize != 0:
		return fmt.Errorf("max_threads_per_sm %d is not a whole number of warps", a.MaxThreadsPerSM)
	case a.SmemPerBlock > a.SmemPerBlockOptin || a.SmemPerBlockOptin+a.SmemReservedPerBlock > a.SmemPerSM:
		return fmt.Errorf("shared memory per block %d (opt-in %d, reserved %d) does not fit the SM's %d", a.SmemPerBlock, a.SmemPerBlockOptin, a.SmemReservedPerBlock, a.SmemPerSM)
	case a.RegsPerBlock > a.RegsPerSM:
		return fmt.Errorf("regs_per_block %d above regs_per_sm %d", a.RegsPerBlock, a.RegsPerSM)
	}
	return nil
}

// Sources returns the upstream sources of the table.
func Sources() []string {
	t, err := load()
	if err != nil {
		return nil
	}
	return slices.Clone(t.Sources)
}

// Names returns the architectures of the table, in compute-capability
// order.
func Names() []string {
	t, err := load()
	if err != nil {
		return nil
	}
	var ns []string
	for _, a := range t.Arch {
		ns = append(ns, a.Name)
	}
	return ns
}

// parseName reads "sm_62" (also "sm_90a", "compute_62" and "6.2") as a
// compute capability.
func parseName(s string) (major, minor int, err error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if maj, min, ok := strings.Cut(t, "."); ok {
		a, err1 := strconv.Atoi(maj)
		b, err2 := strconv.Atoi(min)
		if err1 == nil && err2 == nil && a > 0 && b >= 0 && b < 10 {
			return a, b, nil
		}
		return 0, 0, fmt.Errorf("architecture %q: want sm_XY (for example sm_62) or X.Y", s)
	}
	for _, p := range []string{"sm_", "compute_"} {
		if r, ok := strings.CutPrefix(t, p); ok {
			r = strings.TrimSuffix(r, "a")
			if n, err := strconv.Atoi(r); err == nil && n >= 10 && n < 1000 {
				return n / 10, n % 10, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("architecture %q: want sm_XY (for example sm_62) or X.Y", s)
}

// Lookup returns the limits of an architecture named "sm_62" (also
// "sm_90a", "compute_62" or "6.2"). An architecture missing from the table
// is an error listing the known ones, never a guess.
func Lookup(name string) (*Arch, error) {
	t, err := load()
	if err != nil {
		return nil, err
	}
	maj, min, err := parseName(name)
	if err != nil {
		return nil, fmt.Errorf("arch: %w (known: %s)", err, strings.Join(Names(), ", "))
	}
	want := fmt.Sprintf("sm_%d%d", maj, min)
	for _, a := range t.Arch {
		if a.Name == want {
			c := *a
			return &c, nil
		}
	}
	return nil, fmt.Errorf("arch: unknown architecture %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Major and Minor return the compute capability.
func (a *Arch) Major() int { m, _, _ := parseName(a.Name); return m }

// Minor returns the minor compute capability.
func (a *Arch) Minor() int { _, m, _ := parseName(a.Name); return m }
