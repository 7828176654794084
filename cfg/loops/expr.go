package loops

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// The expression language of loop bounds (docs/facts.md):
//
//	expr    = term { ("+" | "-") term } .
//	term    = unary { ("*" | "/" | "%") unary } .
//	unary   = "-" unary | primary .
//	primary = int | name | func "(" expr { "," expr } ")" | "(" expr ")" .
//	int     = decimal | "0x" hex .
//	name    = launch dimension (ntid.x, nctaid.y, blockDim.z, gridDim.x, with
//	          an optional "%") or a kernel parameter name as in the listing .
//	func    = "min" | "max" | "log2" .
//
// Arithmetic is exact on int64: an overflow is an error, never a wrap.
// "/" and "%" round towards negative infinity (floor division); a zero
// divisor is an error. log2(x) is floor(log2 x) for x >= 1, log2(0) = -1,
// and an error for x < 0.

// exprOp is the kind of an expression node.
type exprOp uint8

const (
	opConst exprOp = iota + 1
	opVar
	opNeg
	opAdd
	opSub
	opMul
	opDiv
	opMod
	opMin
	opMax
	opLog2
)

// Expr is a parsed bound expression. The zero value is not valid; build
// one with ParseExpr or Const.
type Expr struct {
	op   exprOp
	val  int64  // opConst
	name string // opVar: canonical name ("ntid.x", or a parameter name)
	args []*Expr
}

// Const returns the expression of an integer constant.
func Const(v int64) *Expr { return &Expr{op: opConst, val: v} }

// Var returns the expression of a launch dimension or kernel argument.
// Launch dimensions take their canonical PTX names (ntid.x, nctaid.y).
func Var(name string) *Expr { return &Expr{op: opVar, name: canonName(name)} }

// ExprError is a syntax error in an expression, at byte Offset of its
// source.
type ExprError struct {
	Offset int
	Msg    string
}

func (e *ExprError) Error() string { return fmt.Sprintf("column %d: %s", e.Offset+1, e.Msg) }

// maxExprLen bounds the length of an expression source and maxExprDepth its
// nesting, so that hostile input cannot exhaust the stack.
const (
	maxExprLen   = 4096
	maxExprDepth = 64
)

// ParseExpr parses an expression. Errors are *ExprError.
func ParseExpr(src string) (*Expr, error) {
	if len(src) > maxExprLen {
		return nil, &ExprError{0, fmt.Sprintf("expression longer than %d bytes", maxExprLen)}
	}
	p := &exprParser{src: src}
	p.next()
	e := p.expr(0)
	if p.err == nil && p.tok != tEOF {
		p.fail(p.pos, "unexpected %s after the expression", p.describe())
	}
	if p.err != nil {
		return nil, p.err
	}
	return e, nil
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tName
	tOp // + - * / % ( ) ,
)

type exprParser struct {
	src string
	off int // next byte to scan

	tok  tokKind
	pos  int
	text string
	val  int64

	err *ExprError
}

func (p *exprParser) fail(pos int, format string, args ...any) {
	if p.err == nil {
		p.err = &ExprError{pos, fmt.Sprintf(format, args...)}
	}
	p.tok = tEOF
}

func (p *exprParser) describe() string {
	switch p.tok {
	case tEOF:
		return "end of expression"
	case tInt:
		return "number " + p.text
	case tName:
		return "name " + strconv.Quote(p.text)
	}
	return strconv.Quote(p.text)
}

func isNameStart(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isNameChar(c byte) bool {
	return isNameStart(c) || '0' <= c && c <= '9' || c == '.'
}

func (p *exprParser) next() {
	if p.err != nil {
		p.tok = tEOF
		return
	}
	for p.off < len(p.src) && (p.src[p.off] == ' ' || p.src[p.off] == '\t') {
		p.off++
	}
	p.pos = p.off
	if p.off >= len(p.src) {
		p.tok, p.text = tEOF, ""
		return
	}
	c := p.src[p.off]
	switch {
	case '0' <= c && c <= '9':
		end := p.off
		for end < len(p.src) && (isNameChar(p.src[end])) {
			end++
		}
		p.text = p.src[p.off:end]
		v, err := strconv.ParseInt(p.text, 0, 64)
		if err != nil || strings.ContainsAny(p.text, "_.") || len(p.text) > 1 && p.text[0] == '0' && p.text[1] != 'x' && p.text[1] != 'X' {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				p.fail(p.pos, "number %s does not fit in 64 bits", p.text)
			} else {
				p.fail(p.pos, "malformed number %q (want decimal or 0x hexadecimal)", p.text)
			}
			return
		}
		p.tok, p.val = tInt, v
		p.off = end
	case isNameStart(c) || c == '%' && p.off+1 < len(p.src) && isNameStart(p.src[p.off+1]):
		end := p.off + 1
		for end < len(p.src) && isNameChar(p.src[end]) {
			end++
		}
		p.tok, p.text = tName, p.src[p.off:end]
		p.off = end
	case strings.IndexByte("+-*/%(),", c) >= 0:
		p.tok, p.text = tOp, string(c)
		p.off++
	default:
		r := []rune(p.src[p.off:])[0]
		p.fail(p.pos, "unexpected character %q", r)
	}
}

func (p *exprParser) expr(depth int) *Expr {
	if depth > maxExprDepth {
		p.fail(p.pos, "expression nested deeper than %d levels", maxExprDepth)
		return nil
	}
	e := p.term(depth)
	for p.tok == tOp && (p.text == "+" || p.text == "-") {
		op := opAdd
		if p.text == "-" {
			op = opSub
		}
		p.next()
		e = &Expr{op: op, args: []*Expr{e, p.term(depth)}}
	}
	return e
}

func (p *exprParser) term(depth int) *Expr {
	e := p.unary(depth)
	for p.tok == tOp && (p.text == "*" || p.text == "/" || p.text == "%") {
		op := map[string]exprOp{"*": opMul, "/": opDiv, "%": opMod}[p.text]
		p.next()
		e = &Expr{op: op, args: []*Expr{e, p.unary(depth)}}
	}
	return e
}

func (p *exprParser) unary(depth int) *Expr {
	if p.tok == tOp && p.text == "-" {
		p.next()
		if depth > maxExprDepth {
			p.fail(p.pos, "expression nested deeper than %d levels", maxExprDepth)
			return nil
		}
		x := p.unary(depth + 1)
		if x != nil && x.op == opConst && x.val != math.MinInt64 {
			return Const(-x.val) // a negative literal
		}
		return &Expr{op: opNeg, args: []*Expr{x}}
	}
	return p.primary(depth)
}

var funcs = map[string]struct {
	op          exprOp
	min, maxArg int
}{
	"min":  {opMin, 2, 16},
	"max":  {opMax, 2, 16},
	"log2": {opLog2, 1, 1},
}

func (p *exprParser) primary(depth int) *Expr {
	switch p.tok {
	case tInt:
		e := Const(p.val)
		p.next()
		return e
	case tName:
		name, pos := p.text, p.pos
		p.next()
		if f, ok := funcs[name]; ok && p.tok == tOp && p.text == "(" {
			p.next()
			e := &Expr{op: f.op}
			for {
				e.args = append(e.args, p.expr(depth+1))
				if p.tok == tOp && p.text == "," {
					p.next()
					continue
				}
				break
			}
			if p.tok != tOp || p.text != ")" {
				p.fail(p.pos, "want \",\" or \")\" in the arguments of %s, got %s", name, p.describe())
				return nil
			}
			p.next()
			if len(e.args) < f.min || len(e.args) > f.maxArg {
				p.fail(pos, "%s takes %s, got %d", name, argCount(f.min, f.maxArg), len(e.args))
				return nil
			}
			return e
		}
		if p.tok == tOp && p.text == "(" {
			p.fail(pos, "unknown function %q (want min, max or log2)", name)
			return nil
		}
		if strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
			p.fail(pos, "malformed name %q", name)
			return nil
		}
		if strings.Contains(name, ".") && !isDim(canonName(name)) {
			p.fail(pos, "unknown launch dimension %q (want ntid, nctaid, blockDim or gridDim with .x, .y or .z)", name)
			return nil
		}
		if strings.HasPrefix(name, "%") && !isDim(canonName(name)) {
			p.fail(pos, "unknown special register %q (want %%ntid.x, %%nctaid.x, ...)", name)
			return nil
		}
		return Var(name)
	case tOp:
		if p.text == "(" {
			p.next()
			e := p.expr(depth + 1)
			if p.tok != tOp || p.text != ")" {
				p.fail(p.pos, "want \")\", got %s", p.describe())
				return nil
			}
			p.next()
			return e
		}
	}
	p.fail(p.pos, "want a number, a name or \"(\", got %s", p.describe())
	return nil
}

func argCount(lo, hi int) string {
	if lo == hi {
		if lo == 1 {
			return "1 argument"
		}
		return strconv.Itoa(lo) + " arguments"
	}
	return fmt.Sprintf("%d to %d arguments", lo, hi)
}

// canonName maps CUDA spellings of launch dimensions to PTX ones and drops
// the "%" of special registers.
func canonName(s string) string {
	s = strings.TrimPrefix(s, "%")
	if base, dim, ok := strings.Cut(s, "."); ok {
		switch base {
		case "blockDim":
			return "ntid." + dim
		case "gridDim":
			return "nctaid." + dim
		}
	}
	return s
}

func isDim(s string) bool {
	switch s {
	case "ntid.x", "ntid.y", "ntid.z", "nctaid.x", "nctaid.y", "nctaid.z":
		return true
	}
	return false
}

// Env gives the values of the names of an expression.
type Env interface {
	// Lookup returns the value of a launch dimension (canonical name) or
	// a kernel argument, and whether it is known.
	Lookup(name string) (int64, bool)
}

// LaunchEnv is the environment of a launch configuration: ntid.* from
// Block, nctaid.* from Grid (zero means unknown), arguments from Args.
type LaunchEnv pass.Launch

// Lookup implements Env.
func (l LaunchEnv) Lookup(name string) (int64, bool) {
	dims := map[string]int{"x": 0, "y": 1, "z": 2}
	if base, d, ok := strings.Cut(name, "."); ok {
		i, ok := dims[d]
		if !ok {
			return 0, false
		}
		var v int
		switch base {
		case "ntid":
			v = l.Block[i]
		case "nctaid":
			v = l.Grid[i]
		default:
			return 0, false
		}
		if v <= 0 {
			return 0, false
		}
		return int64(v), true
	}
	v, ok := l.Args[name]
	return v, ok
}

// UnknownNameError reports a name without a value.
type UnknownNameError struct{ Name string }

func (e *UnknownNameError) Error() string {
	if isDim(e.Name) {
		// Name the flag that gives the dimension.
		flag, dims := "--block", "X, XxY or XxYxZ"
		if strings.HasPrefix(e.Name, "nctaid") {
			flag = "--grid"
		}
		return fmt.Sprintf("the launch configuration does not give %s: pass %s %s", e.Name, flag, dims)
	}
	return fmt.Sprintf("no value for kernel argument %s: pass --arg %s=VALUE", e.Name, e.Name)
}

// Eval evaluates the expression exactly; an overflow, a zero divisor, a
// negative log2 argument or a name without value is an error.
func (e *Expr) Eval(env Env) (int64, error) {
	switch e.op {
	case opConst:
		return e.val, nil
	case opVar:
		if env != nil {
			if v, ok := env.Lookup(e.name); ok {
				return v, nil
			}
		}
		return 0, &UnknownNameError{e.name}
	}
	vs := make([]int64, len(e.args))
	for i, a := range e.args {
		v, err := a.Eval(env)
		if err != nil {
			return 0, err
		}
		vs[i] = v
	}
	switch e.op {
	case opNeg:
		if vs[0] == math.MinInt64 {
			return 0, errOverflow(e)
		}
		return -vs[0], nil
	case opAdd, opSub, opMul:
		v, ok := arith(e.op, vs[0], vs[1])
		if !ok {
			return 0, errOverflow(e)
		}
		return v, nil
	case opDiv, opMod:
		if vs[1] == 0 {
			return 0, fmt.Errorf("division by zero in %s", e)
		}
		if vs[0] == math.MinInt64 && vs[1] == -1 {
			return 0, errOverflow(e)
		}
		q, r := vs[0]/vs[1], vs[0]%vs[1]
		if r != 0 && (r < 0) != (vs[1] < 0) {
			q--
			r += vs[1]
		}
		if e.op == opDiv {
			return q, nil
		}
		return r, nil
	case opMin, opMax:
		m := vs[0]
		for _, v := range vs[1:] {
			if e.op == opMin && v < m || e.op == opMax && v > m {
				m = v
			}
		}
		return m, nil
	case opLog2:
		if vs[0] < 0 {
			return 0, fmt.Errorf("log2 of the negative value %d in %s", vs[0], e)
		}
		return int64(bits.Len64(uint64(vs[0]))) - 1, nil
	}
	return 0, fmt.Errorf("invalid expression")
}

func errOverflow(e *Expr) error { return fmt.Errorf("integer overflow in %s", e) }

// arith computes a op b exactly, reporting overflow.
func arith(op exprOp, a, b int64) (int64, bool) {
	switch op {
	case opAdd:
		s := a + b
		return s, (s > a) == (b > 0) || b == 0
	case opSub:
		s := a - b
		return s, (s < a) == (b > 0) || b == 0
	case opMul:
		if a == 0 || b == 0 {
			return 0, true
		}
		p := a * b
		if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
			return 0, false
		}
		return p, true
	}
	return 0, false
}

// Vars returns the names the expression refers to, sorted, without
// duplicates.
func (e *Expr) Vars() []string {
	seen := map[string]bool{}
	var walk func(*Expr)
	walk = func(e *Expr) {
		if e.op == opVar {
			seen[e.name] = true
		}
		for _, a := range e.args {
			walk(a)
		}
	}
	walk(e)
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// IsConst reports whether the expression has no names, and its value when
// it evaluates without error.
func (e *Expr) IsConst() (int64, bool) {
	if len(e.Vars()) != 0 {
		return 0, false
	}
	v, err := e.Eval(nil)
	return v, err == nil
}

var precedence = map[exprOp]int{opAdd: 1, opSub: 1, opMul: 2, opDiv: 2, opMod: 2, opNeg: 3}

var opText = map[exprOp]string{opAdd: " + ", opSub: " - ", opMul: " * ", opDiv: " / ", opMod: " % ", opMin: "min", opMax: "max", opLog2: "log2"}

// String formats the expression in the language's syntax, with the
// parentheses precedence requires; ParseExpr(e.String()) is e.
func (e *Expr) String() string {
	var b strings.Builder
	e.format(&b, 0)
	return b.String()
}

func (e *Expr) format(b *strings.Builder, outer int) {
	switch e.op {
	case opConst:
		if e.val < 0 && outer > 0 {
			b.WriteString("(" + strconv.FormatInt(e.val, 10) + ")")
			return
		}
		b.WriteString(strconv.FormatInt(e.val, 10))
	case opVar:
		b.WriteString(e.name)
	case opNeg:
		b.WriteString("-")
		e.args[0].format(b, 3)
	case opMin, opMax, opLog2:
		b.WriteString(opText[e.op] + "(")
		for i, a := range e.args {
			if i > 0 {
				b.WriteString(", ")
			}
			a.format(b, 0)
		}
		b.WriteString(")")
	default:
		pr := precedence[e.op]
		if pr < outer {
			b.WriteString("(")
		}
		e.args[0].format(b, pr)
		b.WriteString(opText[e.op])
		// Right operands bind tighter: a - (b - c), a / (b * c).
		e.args[1].format(b, pr+1)
		if pr < outer {
			b.WriteString(")")
		}
	}
}

// Expression builders with constant folding and the simplifications the
// derivation needs to print readable bounds.

func add(a, b *Expr) *Expr {
	if _, ok := a.IsConst(); ok {
		if _, ok := b.IsConst(); !ok {
			a, b = b, a // constants last: n + 1
		}
	}
	if v, ok := b.IsConst(); ok {
		return addConst(a, v)
	}
	return fold(&Expr{op: opAdd, args: []*Expr{a, b}})
}

// addConst returns a + v, merging v into a constant right operand of a.
func addConst(a *Expr, v int64) *Expr {
	if (a.op == opAdd || a.op == opSub) && len(a.args) == 2 {
		if c1, ok := a.args[1].IsConst(); ok && c1 != math.MinInt64 {
			if a.op == opSub {
				c1 = -c1
			}
			if s, ok := arith(opAdd, c1, v); ok {
				return addConst(a.args[0], s)
			}
		}
	}
	switch {
	case v == 0:
		return a
	case v > 0 || v == math.MinInt64:
		return fold(&Expr{op: opAdd, args: []*Expr{a, Const(v)}})
	}
	return fold(&Expr{op: opSub, args: []*Expr{a, Const(-v)}})
}

func sub(a, b *Expr) *Expr {
	if v, ok := b.IsConst(); ok && v != math.MinInt64 {
		return addConst(a, -v)
	}
	if a.String() == b.String() {
		return Const(0)
	}
	return fold(&Expr{op: opSub, args: []*Expr{a, b}})
}

func mul(a, b *Expr) *Expr {
	if v, ok := a.IsConst(); ok && v == 0 {
		return Const(0)
	}
	if v, ok := b.IsConst(); ok && v == 0 {
		return Const(0)
	}
	if v, ok := b.IsConst(); ok && v == 1 {
		return a
	}
	if v, ok := a.IsConst(); ok && v == 1 {
		return b
	}
	return fold(&Expr{op: opMul, args: []*Expr{a, b}})
}

func div(a, b *Expr) *Expr {
	if v, ok := b.IsConst(); ok && v == 1 {
		return a
	}
	return fold(&Expr{op: opDiv, args: []*Expr{a, b}})
}

func maxE(a, b *Expr) *Expr {
	if x, ok := a.IsConst(); ok {
		if y, ok := b.IsConst(); ok {
			return Const(max(x, y))
		}
	}
	return &Expr{op: opMax, args: []*Expr{a, b}}
}

func minE(es ...*Expr) *Expr {
	if len(es) == 1 {
		return es[0]
	}
	return fold(&Expr{op: opMin, args: es})
}

func log2E(a *Expr) *Expr { return fold(&Expr{op: opLog2, args: []*Expr{a}}) }

// fold replaces a node without names by its value, when it has one.
func fold(e *Expr) *Expr {
	if v, ok := e.IsConst(); ok {
		return Const(v)
	}
	return e
}
