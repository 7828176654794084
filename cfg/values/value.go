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
	VPhi                      // the value of variable Name entering Block: Args[i] along Preds[i] (nil: the function's entry, into the entry block)
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
	bank  bool     // VOpaque: a constant-bank word (ConstantBank)
	// stale, for a VOpaque: a cell's content after a store the analysis
	// does not place (it may still be the old content, the last of Args).
	stale bool
}

// ConstantBank reports whether v is an opaque constant-bank word (a SASS
// c[bank][offset] read the analysis does not map to a launch dimension or
// a kernel parameter): unknown, but the same during the whole launch.
func (v *Value) ConstantBank() bool { return v != nil && v.Kind == VOpaque && v.bank }

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

// String writes v in the operation form of the value graph (add.32(φ3,
// 1)), for dumps and tests; like Pretty, at most about 2·PrettyLimit
// bytes, deeper subexpressions written "…".
func (v *Value) String() string {
	var b strings.Builder
	for max := 12; max > 0; max-- {
		b.Reset()
		if writeValue(&b, v, 0, max) && b.Len() <= 2*PrettyLimit {
			return b.String()
		}
	}
	b.Reset()
	writeValue(&b, v, 0, 0)
	return b.String()
}

// writeValue writes v as an expression (shared subexpressions repeated),
// subexpressions deeper than max as "…"; false when the text grows beyond
// 2·PrettyLimit (max > 0 only).
func writeValue(b *strings.Builder, v *Value, depth, max int) bool {
	if depth > max {
		b.WriteString("…")
		return true
	}
	if max > 0 && b.Len() > 2*PrettyLimit {
		return false
	}
	switch v.Kind {
	case VConst:
		if v.W == 1 {
			fmt.Fprintf(b, "%v", v.Imm == 1)
			return true
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
			if !writeValue(b, a, depth+1, max) {
				return false
			}
		}
		b.WriteString(")")
	}
	return true
}

// resolve follows the replacements of trivial phis.
func resolve(v *Value) *Value {
	for v != nil && v.fwd != nil {
		v = v.fwd
	}
	return v
}

// Op returns the value of code applied to args at width w, simplified
// and hash-consed like the values of the function (for analyses that
// build values of their own: a difference, an offset start).
func (f *Func) Op(code Code, w int, args ...*Value) *Value { return f.mk(nil, code, w, args...) }

// Const returns the w-bit constant x.
func (f *Func) Const(w int, x uint64) *Value { return f.constant(w, x) }

// Pretty writes v as a C-like expression over kernel parameters, launch
// dimensions and thread indices, for messages ("(n + 3) / 4"): signed and
// unsigned operations marked where they differ, widths left out.
//
// The text is at most about PrettyLimit bytes: subexpressions below a
// depth are written "…", the depth chosen as the largest (at most 10)
// whose text fits, so the top of the expression is always shown. The cost
// is bounded by the limit, however large the value graph (a shared
// subexpression is written at each use).
func Pretty(v *Value) string {
	var b strings.Builder
	for max := 10; max > 0; max-- {
		b.Reset()
		if pretty(&b, v, 0, 0, max) && b.Len() <= PrettyLimit {
			return b.String()
		}
	}
	b.Reset()
	pretty(&b, v, 0, 0, 0)
	return b.String()
}

// PrettyLimit is the length, in bytes, beyond which Pretty writes less of
// an expression.
const PrettyLimit = 160

var infix = map[Code]struct {
	op   string
	prec int
}{
	Mul: {"*", 5}, UDiv: {"/u", 5}, SDiv: {"/", 5}, URem: {"%u", 5}, SRem: {"%", 5},
	Add: {"+", 4}, Sub: {"-", 4}, Shl: {"<<", 3}, LShr: {">>u", 3}, AShr: {">>", 3},
	ULt: {"<u", 2}, ULe: {"<=u", 2}, SLt: {"<", 2}, SLe: {"<=", 2}, Eq: {"==", 2}, Ne: {"!=", 2},
	And: {"&", 1}, Xor: {"^", 1}, Or: {"|", 1},
}

var prettyName = map[Code]string{UMin: "minu", UMax: "maxu", SMin: "min", SMax: "max", Select: "select",
	MulHiU: "mulhiu", MulHiS: "mulhi", Popc: "popc", Clz: "clz", Brev: "brev"}

// pretty writes v at depth, subexpressions deeper than max as "…". It
// reports false, stopping early, when the text grows beyond PrettyLimit
// (max > 0 only: at max 0 the top node is written whatever its length).
func pretty(b *strings.Builder, v *Value, prec, depth, max int) bool {
	if depth > max {
		b.WriteString("…")
		return true
	}
	if max > 0 && b.Len() > PrettyLimit {
		return false
	}
	switch v.Kind {
	case VConst:
		if v.W == 1 {
			fmt.Fprintf(b, "%v", v.Imm == 1)
			return true
		}
		if s := Signed(v.Imm, v.W); s < 0 && s > -1<<20 {
			fmt.Fprintf(b, "%d", s)
			return true
		}
		if v.Imm < 1<<20 {
			fmt.Fprintf(b, "%d", v.Imm)
			return true
		}
		fmt.Fprintf(b, "%#x", v.Imm)
		return true
	case VParam:
		b.WriteString(v.Name)
		if v.Off != 0 {
			fmt.Fprintf(b, "[byte %d]", v.Off)
		}
		return true
	case VSpecial:
		b.WriteString(v.Name)
		return true
	case VOpaque:
		if v.Instr != nil {
			// The result of an instruction the analysis does not model.
			fmt.Fprintf(b, "⟨%s⟩", v.Instr.Text)
			return true
		}
		b.WriteString("?")
		return true
	case VUndef:
		b.WriteString(v.Name)
		return true
	case VOp:
	default:
		return writeValue(b, v, 0, 0)
	}
	a := v.Args
	if v.Code == Add {
		if c, ok := a[1].SignedConst(); ok && c < 0 && c > -1<<62 {
			// x + -c reads x - c.
			if 4 < prec {
				b.WriteString("(")
			}
			if !pretty(b, a[0], 4, depth+1, max) {
				return false
			}
			fmt.Fprintf(b, " - %d", -c)
			if 4 < prec {
				b.WriteString(")")
			}
			return true
		}
	}
	if op, ok := infix[v.Code]; ok {
		if op.prec < prec {
			b.WriteString("(")
		}
		if !pretty(b, a[0], op.prec, depth+1, max) {
			return false
		}
		fmt.Fprintf(b, " %s ", op.op)
		if !pretty(b, a[1], op.prec+1, depth+1, max) {
			return false
		}
		if op.prec < prec {
			b.WriteString(")")
		}
		return true
	}
	switch v.Code {
	case Trunc, ZExt:
		return pretty(b, a[0], prec, depth+1, max)
	case SExt:
		b.WriteString("(signed)")
		return pretty(b, a[0], 6, depth+1, max)
	case Neg:
		b.WriteString("-")
		return pretty(b, a[0], 6, depth+1, max)
	case Not:
		b.WriteString("~")
		return pretty(b, a[0], 6, depth+1, max)
	}
	name := prettyName[v.Code]
	if name == "" {
		name = v.Code.String()
	}
	b.WriteString(name + "(")
	for i, x := range a {
		if i > 0 {
			b.WriteString(", ")
		}
		if !pretty(b, x, 0, depth+1, max) {
			return false
		}
	}
	b.WriteString(")")
	return true
}

// Cause returns, for a value the analysis cannot compute from launch
// values, the first value of its graph that is not modelled (an opaque or
// undefined value, in depth-first order) and the launch values (parameters
// and special registers) the value depends on.
func Cause(v *Value) (opaque *Value, leaves []*Value) {
	seen := map[*Value]bool{}
	var walk func(x *Value, depth int)
	walk = func(x *Value, depth int) {
		if x == nil || seen[x] || depth > 64 {
			return
		}
		seen[x] = true
		switch x.Kind {
		case VOpaque, VUndef:
			if opaque == nil {
				opaque = x
			}
			return
		case VParam, VSpecial:
			leaves = append(leaves, x)
			return
		case VPhi:
			if opaque == nil {
				opaque = x
			}
		}
		for _, a := range x.Args {
			walk(a, depth+1)
		}
	}
	walk(v, 0)
	return opaque, leaves
}

// Unmodelled returns the first value of v's graph, in depth-first order
// through operations and phis, whose semantics the analysis does not model
// (an opaque value or one read before it is written), or nil.
func Unmodelled(v *Value) *Value {
	seen := map[*Value]bool{}
	var walk func(x *Value, depth int) *Value
	walk = func(x *Value, depth int) *Value {
		if x == nil || seen[x] || depth > 64 {
			return nil
		}
		seen[x] = true
		if x.Kind == VOpaque || x.Kind == VUndef {
			return x
		}
		for _, a := range x.Args {
			if u := walk(a, depth+1); u != nil {
				return u
			}
		}
		return nil
	}
	return walk(v, 0)
}
