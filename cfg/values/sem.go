package values

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Sem is the decoded semantics of one instruction: what it reads (Ins),
// a graph of generic operations on those values (Nodes, in dependence
// order: a node's operands are earlier nodes), and what it writes (Outs).
// Each front end (PTX, SASS) decodes an instruction once into a Sem; the
// domains interpret the nodes. An instruction whose effect is not modelled
// (a float operation, a load from global memory, an unknown opcode) has
// Outs with Node = -1 and Opaque saying why.
type Sem struct {
	Ins   []In
	Nodes []Node
	Outs  []Out
	// Opaque, when not empty, says why some results are not modelled (the
	// outputs with Node < 0).
	Opaque string
}

// Node is one generic operation of a Sem.
type Node struct {
	Code Code
	W    uint8    // result width in bits
	Args [3]int32 // operand nodes (Code.Arity of them)
	Imm  uint64   // Const: the value; Input: the index in Sem.Ins
}

// InKind says what an input reads.
type InKind uint8

const (
	InReg     InKind = iota + 1 // a register (Name), read at W bits
	InSpecial                   // a special register (Name, canonical: "tid.x", "laneid"; see SpecialInfo)
	InParam                     // a parameter symbol Name (kernel or device-function parameter, call argument or return cell) at byte Off
	InConst                     // a constant-bank word c[Bank][Off] (SASS)
	InMem                       // memory in Space at the address Ins[Base] + Off (Base < 0: the symbol Name + Off)
	InFrame                     // the address of the function's local frame (PTX __local_depot, SASS's stack pointer c[0x0][0x28])
)

// In is one input of a Sem.
type In struct {
	Kind  InKind
	Name  string
	W     uint8
	Off   int64
	Bank  int
	Space isa.Space
	Base  int32 // InMem: the input holding the base address, or -1
	// Idx, for InConst, is 1 + the input holding a register index added
	// to Off (c[b][Rn+off]); 0: none.
	Idx int32
	// Hi, for a SASS register pair read as one 64-bit input (a 64-bit
	// address), names the high register; Name is the low one.
	Hi string
}

// OutKind says what an output writes.
type OutKind uint8

const (
	OutReg OutKind = iota + 1 // a register (Name) at W bits
	OutMem                    // memory in Space at Ins[Base] + Off (Base < 0: the symbol Name + Off), W bits
)

// Out is one output of a Sem.
type Out struct {
	Kind  OutKind
	Name  string
	W     uint8
	Node  int32 // the value written; -1 when not modelled
	Space isa.Space
	Base  int32
	Off   int64
	// Signed: a register written wider than W (PTX ld and cvt into a
	// wider register) is sign-extended, else zero-extended.
	Signed bool
}

// String writes the Sem in a compact text form, for tests and dumps.
func (s *Sem) String() string {
	var b strings.Builder
	for i, in := range s.Ins {
		fmt.Fprintf(&b, "in%d = %s\n", i, in)
	}
	for i, n := range s.Nodes {
		fmt.Fprintf(&b, "n%d = %s", i, n.Code)
		if n.W != 0 {
			fmt.Fprintf(&b, ".%d", n.W)
		}
		switch n.Code {
		case Const:
			fmt.Fprintf(&b, " %#x", n.Imm)
		case Input:
			fmt.Fprintf(&b, " in%d", n.Imm)
		default:
			for k := 0; k < n.Code.Arity(); k++ {
				fmt.Fprintf(&b, " n%d", n.Args[k])
			}
		}
		b.WriteByte('\n')
	}
	for _, o := range s.Outs {
		switch o.Kind {
		case OutReg:
			fmt.Fprintf(&b, "%s.%d", o.Name, o.W)
		default:
			fmt.Fprintf(&b, "%s[%s]", o.Space, addrText(o.Name, o.Base, o.Off))
		}
		if o.Node < 0 {
			fmt.Fprintf(&b, " = ?")
		} else {
			fmt.Fprintf(&b, " = n%d", o.Node)
		}
		if o.Signed {
			b.WriteString(" (signed)")
		}
		b.WriteByte('\n')
	}
	if s.Opaque != "" {
		fmt.Fprintf(&b, "opaque: %s\n", s.Opaque)
	}
	return b.String()
}

func addrText(name string, base int32, off int64) string {
	s := name
	if base >= 0 {
		s = fmt.Sprintf("in%d", base)
	}
	if off != 0 {
		s += fmt.Sprintf("%+d", off)
	}
	return s
}

func (in In) String() string {
	switch in.Kind {
	case InReg:
		return fmt.Sprintf("reg %s.%d", in.Name, in.W)
	case InSpecial:
		return fmt.Sprintf("special %s.%d", in.Name, in.W)
	case InParam:
		return fmt.Sprintf("param %s%+d.%d", in.Name, in.Off, in.W)
	case InConst:
		return fmt.Sprintf("c[%#x][%#x].%d", in.Bank, in.Off, in.W)
	case InMem:
		return fmt.Sprintf("mem %s[%s].%d", in.Space, addrText(in.Name, in.Base, in.Off), in.W)
	case InFrame:
		return fmt.Sprintf("frame %s", in.Name)
	}
	return "in?"
}

// builder appends to a Sem.
type builder struct {
	s   *Sem
	bad string // set when an operand cannot be read: the Sem is opaque
}

func (b *builder) fail(format string, args ...any) int32 {
	if b.bad == "" {
		b.bad = fmt.Sprintf(format, args...)
	}
	return -1
}

// node appends a node of code c and width w; a failed operand (-1)
// propagates.
func (b *builder) node(c Code, w int, args ...int32) int32 {
	for _, a := range args {
		if a < 0 {
			return -1
		}
	}
	if b.bad != "" {
		return -1
	}
	n := Node{Code: c, W: uint8(w)}
	copy(n.Args[:], args)
	b.s.Nodes = append(b.s.Nodes, n)
	return int32(len(b.s.Nodes) - 1)
}

func (b *builder) konst(w int, v uint64) int32 {
	if b.bad != "" {
		return -1
	}
	b.s.Nodes = append(b.s.Nodes, Node{Code: Const, W: uint8(w), Imm: v & Mask(w)})
	return int32(len(b.s.Nodes) - 1)
}

// input appends an input and a node reading it.
func (b *builder) input(in In) int32 {
	if b.bad != "" {
		return -1
	}
	b.s.Ins = append(b.s.Ins, in)
	b.s.Nodes = append(b.s.Nodes, Node{Code: Input, W: in.W, Imm: uint64(len(b.s.Ins) - 1)})
	return int32(len(b.s.Nodes) - 1)
}

// width returns the width of node n.
func (b *builder) width(n int32) int {
	if n < 0 {
		return 0
	}
	return int(b.s.Nodes[n].W)
}

// resize reads node n at width w: truncated, or extended (signed or not).
func (b *builder) resize(n int32, w int, signed bool) int32 {
	nw := b.width(n)
	switch {
	case n < 0:
		return -1
	case nw == w:
		return n
	case nw > w:
		return b.node(Trunc, w, n)
	case signed:
		return b.node(SExt, w, n)
	}
	return b.node(ZExt, w, n)
}

// out writes node n to register r.
func (b *builder) out(r string, w int, n int32) {
	b.s.Outs = append(b.s.Outs, Out{Kind: OutReg, Name: r, W: uint8(w), Node: n})
}

// finish marks every output opaque when an operand could not be read.
func (b *builder) finish() *Sem {
	if b.bad != "" {
		b.s.Opaque = b.bad
		for i := range b.s.Outs {
			b.s.Outs[i].Node = -1
		}
		b.s.Nodes = nil
	}
	return b.s
}

// parseInt reads an integer literal of PTX or SASS: decimal, 0x hex,
// 0 octal, 0b binary, with an optional sign and U suffix; the value is
// returned modulo 2^64.
func parseInt(s string) (uint64, bool) {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "U"), "u")
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	var v uint64
	var err error
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		v, err = strconv.ParseUint(s[2:], 16, 64)
	case strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "0B"):
		v, err = strconv.ParseUint(s[2:], 2, 64)
	case len(s) > 1 && s[0] == '0':
		v, err = strconv.ParseUint(s[1:], 8, 64)
	default:
		v, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}
