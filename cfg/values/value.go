package values

import (
	"fmt"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// VKind is the kind of a Value.
type VKind uint8

const (
	VConst   VKind = iota + 1 // the constant Imm
	VOp                       // Code applied to Args
	VPhi                      // the value of variable Name entering Block: Args[i] along Block's i-th reachable predecessor
	VParam                    // the kernel argument Name, bytes [Off, Off+W/8)
	VSpecial                  // the special register Name (canonical)
	VFrame                    // the address of the local frame Name
	VOpaque                   // a value the analysis does not follow: Why, computed by Instr
	VUndef                    // a variable read before any write (Name)
)

// Value is one value of a function in static single assignment form: a
// node of the value graph that both the concrete and the symbolic domains
// interpret. Values are hash-consed: two operations of one code on the
// same operands are one Value.
type Value struct {
	ID    int
	Kind  VKind
	Code  Code // VOp
	W     int  // width in bits
	Args  []*Value
	Imm   uint64     // VConst
	Name  string     // VParam, VSpecial, VFrame, VPhi (the variable), VUndef
	Off   int64      // VParam: byte offset in the parameter
	Block *cfg.Block // VPhi
	Preds []*cfg.Block
	Instr *isa.Instr // VOp, VOpaque: the instruction that computes it (the first, when shared)
	Why   string     // VOpaque: why it is not followed

	fwd   *Value   // a trivial phi replaced by this value
	users []*Value // phis using this value, during construction
}

// IsConst returns the constant and true for a VConst.
func (v *Value) IsConst() (uint64, bool) {
	if v != nil && v.Kind == VConst {
		return v.Imm, true
	}
	return 0, false
}

// SignedConst returns a constant read as a signed integer.
func (v *Value) SignedConst() (int64, bool) {
	if c, ok := v.IsConst(); ok {
		return Signed(c, v.W), true
	}
	return 0, false
}

func (v *Value) String() string {
	var b strings.Builder
	writeValue(&b, v, 0)
	return b.String()
}

// writeValue writes v as an expression (shared subexpressions repeated, to
// a depth limit).
func writeValue(b *strings.Builder, v *Value, depth int) {
	if depth > 12 {
		b.WriteString("…")
		return
	}
	switch v.Kind {
	case VConst:
		if v.W == 1 {
			fmt.Fprintf(b, "%v", v.Imm == 1)
			return
		}
		s := Signed(v.Imm, v.W)
		if s < 0 && s > -1<<20 {
			fmt.Fprintf(b, "%d", s)
		} else if v.Imm < 1<<20 {
			fmt.Fprintf(b, "%d", v.Imm)
		} else {
			fmt.Fprintf(b, "%#x", v.Imm)
		}
	case VParam:
		b.WriteString(v.Name)
		if v.Off != 0 {
			fmt.Fprintf(b, "[%d]", v.Off)
		}
	case VSpecial:
		b.WriteString(v.Name)
	case VFrame:
		fmt.Fprintf(b, "&%s", v.Name)
	case VOpaque:
		fmt.Fprintf(b, "?%d", v.ID)
	case VUndef:
		fmt.Fprintf(b, "undef(%s)", v.Name)
	case VPhi:
		fmt.Fprintf(b, "φ%d", v.ID)
	case VOp:
		fmt.Fprintf(b, "%s.%d(", v.Code, v.W)
		for i, a := range v.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, a, depth+1)
		}
		b.WriteString(")")
	}
}

// resolve follows the replacements of trivial phis.
func resolve(v *Value) *Value {
	for v != nil && v.fwd != nil {
		v = v.fwd
	}
	return v
}
