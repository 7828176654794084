package phases

import (
	"fmt"
	"go/token"
	"hash/maphash"
	"slices"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Path is one known instruction sequence and the warps that follow it.
type Path struct {
	Warps  []int
	Instrs []*isa.Instr
}

// StraightLine returns the single path of a function without control flow:
// its instructions up to and including the first unguarded ret or exit. A
// branch, call or guarded ret/exit is an error at its position: such
// functions need the static multi-path analysis (gpuwcet analyze).
func StraightLine(fset *token.FileSet, fn *isa.Func) ([]*isa.Instr, error) {
	for i, in := range fn.Instrs {
		switch in.Kind {
		case isa.KindBranch, isa.KindIndirectBranch, isa.KindCall, isa.KindIndirectCall:
			return nil, &isa.Error{Pos: position(fset, in.Pos), Msg: fmt.Sprintf("%s: %q is a %s: %s has more than one path and no trace; use `gpuwcet analyze` for the static multi-path analysis", fn.Name, in.Text, in.Kind, fn.Name)}
		case isa.KindReturn, isa.KindExit:
			if in.Guard.Reg != "" {
				return nil, &isa.Error{Pos: position(fset, in.Pos), Msg: fmt.Sprintf("%s: guarded %q ends some warps early: %s has more than one path and no trace; use `gpuwcet analyze` for the static multi-path analysis", fn.Name, in.Text, fn.Name)}
			}
			return fn.Instrs[:i+1], nil
		}
	}
	return fn.Instrs, nil
}

// Paths returns the known paths of fn, grouped so that warps whose
// sequences are identical for the timing model (same opcodes, guards and
// registers in the same order) share one Path. With a trace, its warps are
// used; warps > 0 then requires a single-warp trace and replicates it.
// Without a trace, the straight-line path is replicated to warps warps (1
// when warps ≤ 0). The source is "trace" or "straight-line".
func Paths(fset *token.FileSet, fn *isa.Func, warps int) (paths []*Path, source string, err error) {
	if fn.Trace == nil {
		p, err := StraightLine(fset, fn)
		if err != nil {
			return nil, "", err
		}
		return []*Path{{Warps: seq(max(warps, 1)), Instrs: p}}, "straight-line", nil
	}
	tw := fn.Trace.Warps
	if len(tw) == 0 {
		return nil, "", &isa.Error{Pos: position(fset, fn.Pos), Msg: fmt.Sprintf("%s: the trace has no warp", fn.Name)}
	}
	if warps > 0 {
		if len(tw) != 1 {
			return nil, "", &isa.Error{Pos: position(fset, fn.Pos), Msg: fmt.Sprintf("%s: --warps %d replicates a single path, but the trace has %d warps", fn.Name, warps, len(tw))}
		}
		return []*Path{{Warps: seq(warps), Instrs: tw[0].Instrs}}, "trace", nil
	}
	seen := map[int]bool{}
	for _, w := range tw {
		if w.Warp < 0 || seen[w.Warp] {
			return nil, "", &isa.Error{Pos: position(fset, fn.Pos), Msg: fmt.Sprintf("%s: the trace has warp number %d twice or negative", fn.Name, w.Warp)}
		}
		seen[w.Warp] = true
	}
	return group(tw), "trace", nil
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// group merges warps with identical timing signatures. Paths are hashed,
// then compared instruction by instruction, so a collision never merges
// different paths.
func group(tw []isa.WarpPath) []*Path {
	seed := maphash.MakeSeed()
	type key struct {
		h uint64
		n int
	}
	byKey := map[key][]*Path{}
	var out []*Path
	cache := map[*isa.Instr]uint64{}
	for _, w := range tw {
		k := key{hashPath(seed, cache, w.Instrs), len(w.Instrs)}
		var found *Path
		for _, p := range byKey[k] {
			if samePath(p.Instrs, w.Instrs) {
				found = p
				break
			}
		}
		if found != nil {
			found.Warps = append(found.Warps, w.Warp)
			continue
		}
		p := &Path{Warps: []int{w.Warp}, Instrs: w.Instrs}
		byKey[k] = append(byKey[k], p)
		out = append(out, p)
	}
	for _, p := range out {
		slices.Sort(p.Warps)
	}
	slices.SortFunc(out, func(a, b *Path) int { return a.Warps[0] - b.Warps[0] })
	return out
}

func hashPath(seed maphash.Seed, cache map[*isa.Instr]uint64, ins []*isa.Instr) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var buf [8]byte
	for _, in := range ins {
		x, ok := cache[in]
		if !ok {
			var hi maphash.Hash
			hi.SetSeed(seed)
			writeSig(&hi, in)
			x = hi.Sum64()
			cache[in] = x
		}
		for i := range buf {
			buf[i] = byte(x >> (8 * i))
		}
		h.Write(buf[:])
	}
	return h.Sum64()
}

func writeSig(h *maphash.Hash, in *isa.Instr) {
	h.WriteByte(byte(in.Kind))
	h.WriteByte(byte(in.Barrier))
	h.WriteString(in.Op())
	h.WriteByte(0)
	for _, r := range in.Uses() {
		h.WriteString(r)
		h.WriteByte(',')
	}
	h.WriteByte(0)
	for _, r := range in.Defs() {
		h.WriteString(r)
		h.WriteByte(',')
	}
}

func samePath(a, b []*isa.Instr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !sameSig(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameSig reports whether two instructions are the same for the timing
// model: kind, barrier flavour, opcode, registers read and written.
func sameSig(a, b *isa.Instr) bool {
	return a.Kind == b.Kind && a.Barrier == b.Barrier && a.Op() == b.Op() &&
		slices.Equal(a.Uses(), b.Uses()) && slices.Equal(a.Defs(), b.Defs())
}
