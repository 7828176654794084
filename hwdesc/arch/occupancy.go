package arch

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/assume"
)

// Range is an integer known only to lie in [Lo, Hi] (Lo == Hi: known).
type Range struct{ Lo, Hi int64 }

// Exact returns the range of a known value.
func Exact(v int64) Range { return Range{v, v} }

// Known reports whether the range is one value.
func (r Range) Known() bool { return r.Lo == r.Hi }

func (r Range) String() string {
	if r.Known() {
		return fmt.Sprint(r.Lo)
	}
	return fmt.Sprintf("%d..%d", r.Lo, r.Hi)
}

// Kernel is what occupancy needs of a kernel and its launch.
type Kernel struct {
	Block       [3]int // threads per block (x, y, z)
	Regs        Range  // registers per thread
	StaticSmem  Range  // static shared memory per block, bytes
	DynamicSmem int64  // dynamic shared memory per block, bytes (the launch's third parameter)
	Barriers    Range  // named block barriers a block uses (max barrier id + 1); 0 when none
}

// Threads returns the threads of a block.
func (k Kernel) Threads() int { return k.Block[0] * k.Block[1] * k.Block[2] }

// Limits are the blocks per SM each resource allows; Unlimited when the
// resource does not limit (no registers, no shared memory, no barriers).
type Limits struct {
	Warps, Blocks, Regs, Smem, Barriers int
}

// Unlimited is a limit that does not bind.
const Unlimited = math.MaxInt32

// min returns the smallest limit.
func (l Limits) min() int { return min(l.Warps, l.Blocks, l.Regs, l.Smem, l.Barriers) }

// binding names the limits equal to the occupancy.
func (l Limits) binding() []string {
	m := l.min()
	var out []string
	for _, x := range []struct {
		n string
		v int
	}{{"warps", l.Warps}, {"blocks", l.Blocks}, {"registers", l.Regs}, {"shared memory", l.Smem}, {"barriers", l.Barriers}} {
		if x.v == m {
			out = append(out, x.n)
		}
	}
	return out
}

// Occupancy is the number of blocks of a kernel co-resident on one SM:
// Lo blocks fit whatever the unknown resources are (within their ranges),
// Hi is the most that can fit.
type Occupancy struct {
	Arch   string
	Warps  int // warps per block
	Lo, Hi int
	// LoLimits and HiLimits are the per-resource limits behind Lo (the
	// largest resources, partitioned global caching on where the SM has
	// it) and Hi (the smallest resources, caching off).
	LoLimits, HiLimits Limits
	// Limiter names the resources that bind Hi.
	Limiter []string
	// RegsPerBlock and SmemPerBlock are the registers and shared memory
	// allocated to one block (at the largest resources).
	RegsPerBlock int
	SmemPerBlock int64
	// Assumed lists what the occupancy assumes beyond the inputs
	// (entries of the assumptions ledger, in the run's words).
	Assumed []assume.Use
}

// CheckLaunch checks the launch dimensions against the architecture's
// limits: every block dimension, the threads of a block and every grid
// dimension (a zero grid dimension means unknown and is not checked).
func (a *Arch) CheckLaunch(block, grid [3]int) error {
	names := [3]string{"x", "y", "z"}
	n := int64(1)
	for i, d := range block {
		if d < 1 {
			return fmt.Errorf("block dimension %s is %d: want at least 1", names[i], d)
		}
		if int64(d) > a.MaxBlockDims[i] {
			return fmt.Errorf("block dimension %s is %d: %s allows at most %d", names[i], d, a.Name, a.MaxBlockDims[i])
		}
		n *= int64(d)
	}
	if n > int64(a.MaxThreadsPerBlock) {
		return fmt.Errorf("a block of %dx%dx%d = %d threads: %s allows at most %d threads per block", block[0], block[1], block[2], n, a.Name, a.MaxThreadsPerBlock)
	}
	for i, d := range grid {
		if d < 0 {
			return fmt.Errorf("grid dimension %s is %d: want at least 1", names[i], d)
		}
		if int64(d) > a.MaxGridDims[i] {
			return fmt.Errorf("grid dimension %s is %d: %s allows at most %d", names[i], d, a.Name, a.MaxGridDims[i])
		}
	}
	return nil
}

func divUp(x, y int64) int64   { return (x + y - 1) / y }
func roundUp(x, y int64) int64 { return y * divUp(x, y) }

// Occupancy computes the co-resident blocks of kernel k per SM as the
// CUDA occupancy calculator does (cudaOccMaxActiveBlocksPerMultiprocessor
// of CUDA 11.8's cuda_occupancy.h): the smallest of the limits due to
// warps, blocks, registers (allocated per warp in units of RegAllocUnit,
// warps rounded to the sub-partitions), shared memory (static + reserved +
// dynamic, in units of SmemAllocUnit, against the largest carve-out) and,
// from sm_90, block barriers. Hi uses the smallest resources of k and
// partitioned global caching off; Lo the largest and caching on. A block
// that cannot fit, registers or shared memory beyond the architecture's
// per-thread or per-block maxima are errors, never clamped.
func (a *Arch) Occupancy(k Kernel) (*Occupancy, error) {
	if err := a.CheckLaunch(k.Block, [3]int{}); err != nil {
		return nil, err
	}
	for _, r := range []struct {
		n string
		v Range
	}{{"registers per thread", k.Regs}, {"static shared memory", k.StaticSmem}, {"barriers", k.Barriers}} {
		if r.v.Lo < 0 || r.v.Hi < r.v.Lo {
			return nil, fmt.Errorf("%s: invalid range %d..%d", r.n, r.v.Lo, r.v.Hi)
		}
	}
	if k.DynamicSmem < 0 {
		return nil, fmt.Errorf("dynamic shared memory %d bytes: want at least 0", k.DynamicSmem)
	}
	if k.Regs.Lo > int64(a.MaxRegsPerThread) {
		return nil, fmt.Errorf("%d registers per thread: %s allows at most %d", k.Regs.Lo, a.Name, a.MaxRegsPerThread)
	}
	if k.Barriers.Lo > 16 {
		return nil, fmt.Errorf("%d named barriers: a block has at most 16", k.Barriers.Lo)
	}
	o := &Occupancy{Arch: a.Name, Warps: int(divUp(int64(k.Threads()), WarpSize))}
	smemLimit := a.SmemPerBlockOptin + a.SmemReservedPerBlock
	need := k.StaticSmem.Lo + k.DynamicSmem
	if alloc := roundUp(need+a.SmemReservedPerBlock, a.SmemAllocUnit); alloc > smemLimit {
		return nil, fmt.Errorf("shared memory per block: %d bytes static + %d dynamic (+ %d reserved by the driver, allocated in units of %d = %d bytes) exceeds %s's %d bytes per block",
			k.StaticSmem.Lo, k.DynamicSmem, a.SmemReservedPerBlock, a.SmemAllocUnit, alloc, a.Name, smemLimit)
	}
	o.HiLimits = a.limits(o.Warps, k.Regs.Lo, k.StaticSmem.Lo+k.DynamicSmem, k.Barriers.Lo, false)
	o.Hi = o.HiLimits.min()
	o.Limiter = o.HiLimits.binding()
	if o.Hi == 0 {
		return nil, fmt.Errorf("a block of %d threads (%d warps), %s registers per thread, %d bytes of shared memory does not fit on one %s SM: the %s limit allows 0 blocks",
			k.Threads(), o.Warps, k.Regs, k.StaticSmem.Lo+k.DynamicSmem, a.Name, strings.Join(o.Limiter, " and "))
	}
	regsHi := min(k.Regs.Hi, int64(a.MaxRegsPerThread))
	smemHi := k.StaticSmem.Hi + k.DynamicSmem
	if roundUp(smemHi+a.SmemReservedPerBlock, a.SmemAllocUnit) > smemLimit {
		smemHi = smemLimit - a.SmemReservedPerBlock
	}
	o.LoLimits = a.limits(o.Warps, regsHi, smemHi, min(k.Barriers.Hi, 16), a.PartitionedGC)
	o.Lo = o.LoLimits.min()
	o.RegsPerBlock = int(roundUp(regsHi*WarpSize, int64(a.RegAllocUnit))) * o.Warps
	o.SmemPerBlock = roundUp(smemHi+a.SmemReservedPerBlock, a.SmemAllocUnit)
	if a.PartitionedGC {
		o.Assumed = append(o.Assumed, assume.Uf(assume.OccPartitionedGC, "%s has partitioned global caching (global loads cached in L1, -Xptxas -dlcm=ca), which gives a block half the SM's warps and registers: the guaranteed occupancy assumes it on, the largest off", a.Name))
	}
	if o.Lo == 0 {
		// Unknown registers or shared memory at their largest would not
		// fit; a kernel that launches has at least one block per SM.
		o.Lo = 1
		o.Assumed = append(o.Assumed, assume.Uf(assume.OccLaunches, "the launch succeeds, so at least one block fits on an SM (at %s registers per thread and %d bytes of shared memory none would)", Exact(regsHi), smemHi))
	}
	if need > a.SmemPerBlock {
		o.Assumed = append(o.Assumed, assume.Uf(assume.OccSmemOptIn, "the kernel opts in to more than %d bytes of shared memory per block (cudaFuncAttributeMaxDynamicSharedMemorySize)", a.SmemPerBlock))
	}
	if a.Major() >= 7 && (k.StaticSmem.Hi+k.DynamicSmem+a.SmemReservedPerBlock) > 0 {
		o.Assumed = append(o.Assumed, assume.Uf(assume.OccCarveout, "the L1/shared-memory carve-out gives the SM its largest shared memory, %d bytes (guaranteed by cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared)); a smaller carve-out can lower the occupancy", a.SmemPerSM))
	}
	return o, nil
}

// limits returns the per-resource block limits for a block of warps warps,
// regs registers per thread, smem bytes of shared memory (static and
// dynamic) and bars named barriers, with partitioned global caching on or
// off (cuda_occupancy.h: cudaOccMaxBlocksPerSM{Warps,Regs,Smem,BlockBarrier}Limit).
func (a *Arch) limits(warps int, regs, smem, bars int64, gc bool) Limits {
	l := Limits{Blocks: a.MaxBlocksPerSM, Regs: Unlimited, Smem: Unlimited, Barriers: Unlimited}
	maxWarps := a.MaxWarpsPerSM()
	if gc {
		l.Warps = (maxWarps / 2 / warps) * 2
	} else {
		l.Warps = maxWarps / warps
	}
	l.Regs = a.regsLimit(warps, regs, gc, a.SubPartitions)
	if a.Name == "sm_60" && l.Regs > 0 {
		// GP100 has 2 sub-partitions, GP10x 4; the calculator refuses a
		// launch on any Pascal that GP10x cannot run.
		if a.regsLimit(warps, regs, gc, 4) == 0 {
			l.Regs = 0
		}
	}
	if alloc := roundUp(smem+a.SmemReservedPerBlock, a.SmemAllocUnit); alloc > 0 {
		l.Smem = int(a.SmemPerSM / alloc)
	}
	if a.BarrierLimit && bars > 0 {
		l.Barriers = int(int64(2*a.MaxBlocksPerSM) / bars)
	}
	return l
}

func (a *Arch) regsLimit(warps int, regs int64, gc bool, subs int) int {
	if regs == 0 {
		return Unlimited
	}
	perWarp := roundUp(regs*WarpSize, int64(a.RegAllocUnit))
	allocated := perWarp * int64(warps)
	assumed := perWarp * roundUp(int64(warps), int64(subs))
	if int64(a.RegsPerBlock) < assumed || int64(a.RegsPerBlock) < allocated || regs > int64(a.MaxRegsPerThread) {
		return 0
	}
	perSub := int64(a.RegsPerSM) / int64(subs) / perWarp
	if gc {
		if b := perSub * int64(subs/2) / int64(warps) * 2; b > 0 {
			return int(b)
		}
	}
	return int(perSub * int64(subs) / int64(warps))
}
