package values

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Layout is where a SASS kernel finds its launch dimensions, parameters
// and stack pointer in constant bank 0 (docs/sass.md, Constant bank). The
// offsets depend on the architecture:
//
//	sm_50 … sm_62: ntid.{x,y,z} 0x8 0xc 0x10, nctaid 0x14 0x18 0x1c, stack pointer 0x20, parameters from 0x140;
//	  local window: sm_50 … sm_53 its low word at 0x4 (ptxas forms a generic local address as window | a, high word 0),
//	  sm_60 … sm_62 its low word at 0x4 and its high word at 0x104 (window + a);
//	sm_70 … sm_89: ntid 0x0 0x4 0x8, nctaid 0xc 0x10 0x14, local window 0x20 (64 bits), stack pointer 0x28, parameters from 0x160;
//	sm_90 and later: as sm_70, parameters from 0x210.
//
// The parameters' names and sizes come from the function's parameter list
// when the listing gives one, else from its mangled name
// (isa.MangledParams), each at the next offset aligned to its size. Without
// either (an extern "C" kernel) the parameter words have no name: a value
// read from them is unknown, and a message says so.
type Layout struct {
	Arch      int
	StackPtr  int64
	Ntid      [3]int64
	Nctaid    [3]int64
	ParamBase int64
	// LocalWindow is the offset of the low word of the generic address of
	// the local window (sm_70 and later: 0x20, sm_50 … sm_62: 0x4; 0 when
	// not known): the generic address of a local address a is window + a
	// (sm_50 … sm_53: window | a, the form ptxas gives cvta.local there).
	// LocalWindowHi is the offset of its high word (0: none, the window's
	// generic address is one 32-bit word, sm_50 … sm_53).
	LocalWindow, LocalWindowHi int64
	Params                     []ParamSlot
	// ParamsKnown: Params gives the kernel's parameters.
	ParamsKnown bool
	// Why the parameters are not known, when they are not.
	Why string
}

// ParamSlot is one kernel parameter in the constant bank.
type ParamSlot struct {
	Name      string
	Off, Size int64 // from ParamBase
}

// LayoutFor returns the layout of fn on the architecture arch ("sm_80"),
// or nil when the architecture is not known (or older than sm_50).
func LayoutFor(arch string, fn *isa.Func) *Layout {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSuffix(arch, "a"), "sm_"))
	if err != nil || n < 50 {
		return nil
	}
	l := &Layout{Arch: n}
	switch {
	case n < 60:
		l.StackPtr, l.Ntid, l.Nctaid, l.ParamBase = 0x20, [3]int64{0x8, 0xc, 0x10}, [3]int64{0x14, 0x18, 0x1c}, 0x140
		l.LocalWindow = 0x4
	case n < 70:
		l.StackPtr, l.Ntid, l.Nctaid, l.ParamBase = 0x20, [3]int64{0x8, 0xc, 0x10}, [3]int64{0x14, 0x18, 0x1c}, 0x140
		l.LocalWindow, l.LocalWindowHi = 0x4, 0x104
	case n < 90:
		l.StackPtr, l.Ntid, l.Nctaid, l.ParamBase = 0x28, [3]int64{0x0, 0x4, 0x8}, [3]int64{0xc, 0x10, 0x14}, 0x160
		l.LocalWindow, l.LocalWindowHi = 0x20, 0x24
	default:
		l.StackPtr, l.Ntid, l.Nctaid, l.ParamBase = 0x28, [3]int64{0x0, 0x4, 0x8}, [3]int64{0xc, 0x10, 0x14}, 0x210
		l.LocalWindow, l.LocalWindowHi = 0x20, 0x24
	}
	params := fn.Params
	if len(params) == 0 {
		ps, ok := isa.MangledParams(fn.Name)
		if !ok {
			l.Why = fmt.Sprintf("the listing does not give the parameters of %s and its name does not encode them", fn.Name)
			return l
		}
		params = ps
	}
	off := int64(0)
	for _, p := range params {
		size := int64(p.Size)
		if size <= 0 {
			l.Why = fmt.Sprintf("the size of parameter %s of %s is not known", p.Name, fn.Name)
			return l
		}
		align := min(size, 8)
		off = (off + align - 1) / align * align
		l.Params = append(l.Params, ParamSlot{Name: p.Name, Off: off, Size: size})
		off += size
	}
	l.ParamsKnown = true
	return l
}

// constBank is the value of a constant-bank word.
func (f *Func) constBank(in *isa.Instr, x In) *Value {
	v := f.constBankValue(in, x)
	if v.Kind == VOpaque {
		v.bank = true
	}
	return v
}

// constBankValue is constBank before marking its opaque values. A 64-bit
// read that is no one 64-bit value (ULDC.64 UR4, c[0x0][0x0]: ntid.x and
// ntid.y) is the pair of its two words when both are known.
func (f *Func) constBankValue(in *isa.Instr, x In) *Value {
	v := f.constBankWord(in, x)
	if v.Kind != VOpaque || x.W != 64 {
		return v
	}
	lo, hi := x, x
	lo.W, hi.W, hi.Off = 32, 32, x.Off+4
	l, h := f.constBankWord(in, lo), f.constBankWord(in, hi)
	if l.Kind == VOpaque || h.Kind == VOpaque {
		return v
	}
	return f.Pair(l, h)
}

// constBankWord is the value of one constant-bank word of x.W bits.
func (f *Func) constBankWord(in *isa.Instr, x In) *Value {
	w := int(x.W)
	l := f.Layout
	word := fmt.Sprintf("c[%#x][%#x]", x.Bank, x.Off)
	if l == nil {
		return f.opaque(in, w, "the constant-bank word "+word+" (the architecture's layout is not known)")
	}
	if x.Bank != 0 {
		return f.opaque(in, w, "the constant-bank word "+word)
	}
	if x.Off == l.StackPtr && w == 32 {
		return f.leaf(&Value{Kind: VFrame, Name: "stack", W: 32})
	}
	if l.LocalWindow > 0 {
		win := f.leaf(&Value{Kind: VSpecial, Name: "local_window", W: 64})
		switch {
		case x.Off == l.LocalWindow && w == 64 && l.LocalWindowHi == l.LocalWindow+4:
			return win
		case x.Off == l.LocalWindow && w == 32:
			return f.mk(in, Trunc, 32, win)
		case x.Off == l.LocalWindowHi && w == 32:
			return f.mk(in, Trunc, 32, f.mk(in, LShr, 64, win, f.constant(32, 32)))
		}
	}
	dims := "xyz"
	for i := 0; i < 3; i++ {
		if x.Off == l.Ntid[i] && w == 32 {
			return f.leaf(&Value{Kind: VSpecial, Name: "ntid." + dims[i:i+1], W: 32})
		}
		if x.Off == l.Nctaid[i] && w == 32 {
			return f.leaf(&Value{Kind: VSpecial, Name: "nctaid." + dims[i:i+1], W: 32})
		}
	}
	if x.Off >= l.ParamBase {
		if !l.ParamsKnown {
			return f.opaque(in, w, fmt.Sprintf("the kernel parameter word %s: %s", word, l.Why))
		}
		o := x.Off - l.ParamBase
		for _, p := range l.Params {
			if o >= p.Off && o+int64(w/8) <= p.Off+p.Size {
				return f.leaf(&Value{Kind: VParam, Name: p.Name, Off: o - p.Off, W: w})
			}
		}
		return f.opaque(in, w, "the constant-bank word "+word+", which is no kernel parameter")
	}
	return f.opaque(in, w, "the constant-bank word "+word)
}
