package simt

import (
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Memory gives the initial content of memory that the kernel reads before
// writing it (a test fixes data with it): the value of the size bytes at
// addr in space, little-endian, as a load of type float (or integer)
// reads them. ok false: draw the value from the execution's seed.
type Memory func(space isa.Space, addr uint64, size int, float bool) (v uint64, ok bool)

// memory is the data of one block's execution: global (and generic,
// constant, texture) memory shared by every thread, shared memory of the
// block, local memory per thread. Bytes never written are drawn when
// first read, as a value of the reading load's type, and carry the drawn
// mark (a branch on them is data-dependent: loop caps may steer it).
type memory struct {
	bytes map[memKey]mbyte
	src   *source
	fixed Memory
	// nonZero: drawn values are never zero (Options.MaxLoops).
	nonZero bool
}

type memKey struct {
	sp     uint8 // 0 global, 1 shared, 2 local
	thread int32 // local memory only
	addr   uint64
}

type mbyte struct {
	b     byte
	drawn bool
}

func spaceClass(s isa.Space) uint8 {
	switch s {
	case isa.SpaceShared:
		return 1
	case isa.SpaceLocal:
		return 2
	}
	return 0
}

// Generic addresses: local and shared memory appear in the generic
// address space through windows (PTX cvta.local, cvta.shared), as on the
// hardware; a generic access inside a window reaches that space, local
// memory the thread's own. (Unoptimised code keeps its variables in the
// local frame and reaches them through generic addresses, [%SP+k].)
const (
	windowMask   = 0xff00_0000_0000_0000
	localWindow  = 0xfe00_0000_0000_0000
	sharedWindow = 0xfd00_0000_0000_0000
)

// toGeneric is the generic address of address a of space s (local or
// shared); toSpace the address in space s of generic address a.
func toGeneric(s isa.Space, a uint64) uint64 {
	switch s {
	case isa.SpaceLocal:
		return a&^windowMask | localWindow
	case isa.SpaceShared:
		return a&^windowMask | sharedWindow
	}
	return a
}

func toSpace(s isa.Space, a uint64) uint64 {
	switch s {
	case isa.SpaceLocal, isa.SpaceShared:
		return a &^ windowMask
	}
	return a
}

func (m *memory) key(s isa.Space, thread int, addr uint64) memKey {
	if s == isa.SpaceGeneric || s == isa.SpaceNone {
		switch addr & windowMask {
		case localWindow:
			s, addr = isa.SpaceLocal, addr&^windowMask
		case sharedWindow:
			s, addr = isa.SpaceShared, addr&^windowMask
		}
	}
	k := memKey{sp: spaceClass(s), addr: addr}
	if k.sp == 2 {
		k.thread = int32(thread)
	}
	return k
}

// read returns the size bytes at addr (little-endian) and whether any was
// drawn.
func (m *memory) read(s isa.Space, thread int, addr uint64, size int, float bool) (uint64, bool) {
	missing := false
	for i := 0; i < size; i++ {
		if _, ok := m.bytes[m.key(s, thread, addr+uint64(i))]; !ok {
			missing = true
			break
		}
	}
	if missing {
		var v uint64
		ok := false
		if m.fixed != nil {
			v, ok = m.fixed(s, addr, size, float)
		}
		if !ok {
			v = m.src.value(8*size, float)
			for m.nonZero && v == 0 {
				v = m.src.value(8*size, float)
			}
		}
		for i := 0; i < size; i++ {
			k := m.key(s, thread, addr+uint64(i))
			if _, ok := m.bytes[k]; !ok {
				m.bytes[k] = mbyte{b: byte(v >> (8 * i)), drawn: true}
			}
		}
	}
	var v uint64
	drawn := false
	for i := 0; i < size; i++ {
		b := m.bytes[m.key(s, thread, addr+uint64(i))]
		v |= uint64(b.b) << (8 * i)
		drawn = drawn || b.drawn
	}
	return v, drawn
}

func (m *memory) write(s isa.Space, thread int, addr uint64, size int, v uint64, drawn bool) {
	for i := 0; i < size; i++ {
		m.bytes[m.key(s, thread, addr+uint64(i))] = mbyte{b: byte(v >> (8 * i)), drawn: drawn}
	}
}

// source draws the values the model has no data for: memory never
// written, kernel arguments not given, results of instructions the
// interpreter does not compute. Values are biased towards the ones that
// decide branches: small non-negative and negative integers, boundaries of
// the signed and unsigned ranges, small floats.
type source struct {
	r *rand.Rand
}

func newSource(seed uint64) *source {
	return &source{r: rand.New(rand.NewPCG(seed, 0xd0a7a5eed))}
}

var boundaries = []uint64{0, 1, 2, 3, 31, 32, 33, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff}

// value draws a value of w bits (an integer, or the bits of an f32/f64).
func (s *source) value(w int, float bool) uint64 {
	mask := uint64(math.MaxUint64)
	if w < 64 {
		mask = 1<<w - 1
	}
	if float && (w == 32 || w == 64) {
		var f float64
		switch s.r.IntN(6) {
		case 0:
			f = []float64{0, 1, -1, 0.5, -0.5, 2, -2, 100, -100, math.Inf(1)}[s.r.IntN(10)]
		case 1, 2:
			f = float64(s.r.IntN(41) - 20)
		default:
			f = (s.r.Float64() - 0.5) * 64
		}
		if w == 32 {
			return uint64(math.Float32bits(float32(f)))
		}
		return math.Float64bits(f)
	}
	var v uint64
	switch s.r.IntN(10) {
	case 0, 1, 2, 3:
		v = uint64(s.r.IntN(41))
	case 4:
		v = uint64(-int64(1 + s.r.IntN(8)))
	case 5:
		v = boundaries[s.r.IntN(len(boundaries))]
	default:
		v = s.r.Uint64()
	}
	return v & mask
}

// symAddr is the address of a named variable (or parameter) in its state
// space: distinct per name, below 2^32 so that a 32-bit address of it
// (mov.u32 %r, sym) and [sym+off] agree.
func symAddr(name string) uint64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return 0x40000000 | uint64(h.Sum32()&0x0fffffff)<<2
}
