package cfgtest

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// TripExpr is a parsed trip-count expression of the kernel corpus (the
// grammar is in the package comment and testdata/kernels/README.md).
//
// It is deliberately not the loop analysis's expression type
// (cfg/loops.Expr): the trip counts are the truth the analysis is judged
// against, so they share no evaluation code with it.
type TripExpr struct {
	text string
	root *node
}

// String returns the expression as written.
func (e *TripExpr) String() string { return e.text }

// Names returns the free names of the expression (kernel parameters and
// launch names such as "blockDim.x"), sorted.
func (e *TripExpr) Names() []string {
	seen := map[string]bool{}
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		if n.op == opName {
			seen[n.name] = true
		}
		for _, a := range n.args {
			walk(a)
		}
	}
	walk(e.root)
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// UsesThread reports whether the expression names threadIdx or blockIdx,
// so that its maximum over a launch needs the threads enumerated.
func (e *TripExpr) UsesThread() bool {
	for _, n := range e.Names() {
		if strings.HasPrefix(n, "threadIdx.") || strings.HasPrefix(n, "blockIdx.") {
			return true
		}
	}
	return false
}

type op uint8

const (
	opNum op = iota
	opName
	opNeg
	opNot   // !
	opCompl // ~
	opMul
	opDiv
	opRem
	opAdd
	opSub
	opShl
	opShr
	opLt
	opLe
	opGt
	opGe
	opEq
	opNe
	opAnd
	opXor
	opOr
	opLAnd
	opLOr
	opCond
	opCall
)

type node struct {
	op   op
	val  int64  // opNum
	name string // opName, opCall
	args []*node
}

// binary operators: token → (operator, precedence); higher binds tighter.
var binops = map[string]struct {
	op   op
	prec int
}{
	"*": {opMul, 10}, "/": {opDiv, 10}, "%": {opRem, 10},
	"+": {opAdd, 9}, "-": {opSub, 9},
	"<<": {opShl, 8}, ">>": {opShr, 8},
	"<": {opLt, 7}, "<=": {opLe, 7}, ">": {opGt, 7}, ">=": {opGe, 7},
	"==": {opEq, 6}, "!=": {opNe, 6},
	"&": {opAnd, 5}, "^": {opXor, 4}, "|": {opOr, 3},
	"&&": {opLAnd, 2}, "||": {opLOr, 1},
}

// funcs gives the arity of each function of the grammar.
var funcs = map[string]int{
	"min": 2, "max": 2, "ceildiv": 2, "log2": 1, "clog2": 1, "u32": 1, "s32": 1, "abs": 1,
}

// ParseTripExpr parses a trip-count expression.
func ParseTripExpr(s string) (*TripExpr, error) {
	p := &exprParser{src: s}
	p.next()
	n := p.cond()
	if p.err == nil && p.tok != "" {
		p.fail("unexpected %q", p.tok)
	}
	if p.err != nil {
		return nil, fmt.Errorf("trip expression %q: %v", s, p.err)
	}
	return &TripExpr{text: strings.TrimSpace(s), root: n}, nil
}

type exprParser struct {
	src string
	pos int    // offset after tok
	tok string // current token; "" at the end
	at  int    // offset of tok
	err error
}

func (p *exprParser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("col %d: %s", p.at+1, fmt.Sprintf(format, args...))
	}
}

func isIdent(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
}

func (p *exprParser) next() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
	p.at = p.pos
	if p.pos >= len(p.src) {
		p.tok = ""
		return
	}
	c := p.src[p.pos]
	end := p.pos + 1
	switch {
	case '0' <= c && c <= '9':
		for end < len(p.src) && isIdent(p.src[end], false) {
			end++
		}
	case isIdent(c, true):
		// A name, with an optional ".x"/".y"/".z" member.
		for end < len(p.src) && (isIdent(p.src[end], false) || p.src[end] == '.') {
			end++
		}
	default:
		for _, two := range []string{"<<", ">>", "<=", ">=", "==", "!=", "&&", "||"} {
			if strings.HasPrefix(p.src[p.pos:], two) {
				end = p.pos + 2
				break
			}
		}
	}
	p.tok = p.src[p.pos:end]
	p.pos = end
}

// cond parses a conditional expression (right associative).
func (p *exprParser) cond() *node {
	c := p.binary(1)
	if p.tok != "?" {
		return c
	}
	p.next()
	a := p.cond()
	if p.tok != ":" {
		p.fail("want ':' in a conditional expression, got %q", p.tok)
		return c
	}
	p.next()
	b := p.cond()
	return &node{op: opCond, args: []*node{c, a, b}}
}

func (p *exprParser) binary(minPrec int) *node {
	x := p.unary()
	for p.err == nil {
		b, ok := binops[p.tok]
		if !ok || b.prec < minPrec {
			return x
		}
		p.next()
		y := p.binary(b.prec + 1)
		x = &node{op: b.op, args: []*node{x, y}}
	}
	return x
}

func (p *exprParser) unary() *node {
	switch p.tok {
	case "-":
		p.next()
		return &node{op: opNeg, args: []*node{p.unary()}}
	case "+":
		p.next()
		return p.unary()
	case "!":
		p.next()
		return &node{op: opNot, args: []*node{p.unary()}}
	case "~":
		p.next()
		return &node{op: opCompl, args: []*node{p.unary()}}
	}
	return p.primary()
}

var launchNames = map[string]bool{}

func init() {
	for _, b := range []string{"threadIdx", "blockIdx", "blockDim", "gridDim"} {
		for _, c := range []string{"x", "y", "z"} {
			launchNames[b+"."+c] = true
		}
	}
}

func (p *exprParser) primary() *node {
	tok := p.tok
	switch {
	case tok == "":
		p.fail("unexpected end of expression")
		return &node{}
	case tok == "(":
		p.next()
		n := p.cond()
		if p.tok != ")" {
			p.fail("want ')', got %q", p.tok)
		}
		p.next()
		return n
	case '0' <= tok[0] && tok[0] <= '9':
		v, err := strconv.ParseInt(tok, 0, 64)
		if err != nil {
			p.fail("bad integer %q", tok)
		}
		p.next()
		return &node{op: opNum, val: v}
	case isIdent(tok[0], true):
		p.next()
		if arity, ok := funcs[tok]; ok && p.tok == "(" {
			p.next()
			n := &node{op: opCall, name: tok}
			for {
				n.args = append(n.args, p.cond())
				if p.tok != "," {
					break
				}
				p.next()
			}
			if p.tok != ")" {
				p.fail("want ')' after the arguments of %s, got %q", tok, p.tok)
			}
			p.next()
			if len(n.args) != arity {
				p.fail("%s takes %d arguments, got %d", tok, arity, len(n.args))
			}
			return n
		}
		if strings.Contains(tok, ".") && !launchNames[tok] {
			p.fail("unknown name %q (launch names: threadIdx, blockIdx, blockDim, gridDim with .x, .y or .z)", tok)
		}
		if _, ok := funcs[tok]; ok {
			p.fail("%s is a function: want %s(...)", tok, tok)
		}
		return &node{op: opName, name: tok}
	}
	p.fail("unexpected %q", tok)
	p.next()
	return &node{}
}

// Env gives the values of the free names of an expression.
type Env map[string]int64

// Eval evaluates the expression in env with the semantics of the grammar:
// 64-bit signed integers, an error on overflow, division by zero or an
// unknown name; / and % truncate toward zero (C99).
func (e *TripExpr) Eval(env Env) (int64, error) {
	v, err := eval(e.root, env)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", e.text, err)
	}
	return v, nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func eval(n *node, env Env) (int64, error) {
	switch n.op {
	case opNum:
		return n.val, nil
	case opName:
		if n.name == "warpSize" {
			if v, ok := env[n.name]; ok {
				return v, nil
			}
			return 32, nil
		}
		v, ok := env[n.name]
		if !ok {
			return 0, fmt.Errorf("no value for %s", n.name)
		}
		return v, nil
	case opCond:
		c, err := eval(n.args[0], env)
		if err != nil {
			return 0, err
		}
		if c != 0 {
			return eval(n.args[1], env)
		}
		return eval(n.args[2], env)
	case opLAnd, opLOr:
		a, err := eval(n.args[0], env)
		if err != nil {
			return 0, err
		}
		if (n.op == opLAnd) == (a == 0) {
			return b2i(n.op == opLOr), nil
		}
		b, err := eval(n.args[1], env)
		return b2i(b != 0), err
	}
	args := make([]int64, len(n.args))
	for i, a := range n.args {
		v, err := eval(a, env)
		if err != nil {
			return 0, err
		}
		args[i] = v
	}
	switch n.op {
	case opNeg:
		if args[0] == math.MinInt64 {
			return 0, fmt.Errorf("overflow in -(%d)", args[0])
		}
		return -args[0], nil
	case opNot:
		return b2i(args[0] == 0), nil
	case opCompl:
		return ^args[0], nil
	case opCall:
		return call(n.name, args)
	}
	a, b := args[0], args[1]
	switch n.op {
	case opAdd:
		s := a + b
		if (s > a) != (b > 0) {
			return 0, fmt.Errorf("overflow in %d + %d", a, b)
		}
		return s, nil
	case opSub:
		s := a - b
		if (s < a) != (b > 0) {
			return 0, fmt.Errorf("overflow in %d - %d", a, b)
		}
		return s, nil
	case opMul:
		hi, lo := bits.Mul64(uint64(abs64(a)), uint64(abs64(b)))
		if a == math.MinInt64 || b == math.MinInt64 || hi != 0 || lo > math.MaxInt64 {
			if a != 0 && b != 0 {
				return 0, fmt.Errorf("overflow in %d * %d", a, b)
			}
		}
		return a * b, nil
	case opDiv, opRem:
		if b == 0 {
			return 0, fmt.Errorf("division by zero")
		}
		if a == math.MinInt64 && b == -1 {
			return 0, fmt.Errorf("overflow in %d / -1", a)
		}
		if n.op == opDiv {
			return a / b, nil // Go, like C99, truncates toward zero
		}
		return a % b, nil
	case opShl:
		if b < 0 || b > 62 || a < 0 || a > math.MaxInt64>>b {
			return 0, fmt.Errorf("shift %d << %d: negative operand or overflow", a, b)
		}
		return a << b, nil
	case opShr:
		if b < 0 || b > 63 {
			return 0, fmt.Errorf("shift count %d out of range", b)
		}
		return a >> b, nil // arithmetic: floor(a / 2^b)
	case opLt:
		return b2i(a < b), nil
	case opLe:
		return b2i(a <= b), nil
	case opGt:
		return b2i(a > b), nil
	case opGe:
		return b2i(a >= b), nil
	case opEq:
		return b2i(a == b), nil
	case opNe:
		return b2i(a != b), nil
	case opAnd:
		return a & b, nil
	case opXor:
		return a ^ b, nil
	case opOr:
		return a | b, nil
	}
	return 0, fmt.Errorf("internal error: operator %d", n.op)
}

func abs64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

func call(name string, a []int64) (int64, error) {
	switch name {
	case "min":
		return min(a[0], a[1]), nil
	case "max":
		return max(a[0], a[1]), nil
	case "abs":
		if a[0] == math.MinInt64 {
			return 0, fmt.Errorf("overflow in abs(%d)", a[0])
		}
		return abs64(a[0]), nil
	case "ceildiv":
		x, y := a[0], a[1]
		if y == 0 {
			return 0, fmt.Errorf("ceildiv(%d, 0): division by zero", x)
		}
		if x == math.MinInt64 && y == -1 {
			return 0, fmt.Errorf("overflow in ceildiv(%d, -1)", x)
		}
		q := x / y
		if x%y != 0 && (x < 0) == (y < 0) {
			q++
		}
		return q, nil
	case "log2", "clog2":
		x := a[0]
		if x < 1 {
			return 0, fmt.Errorf("%s(%d): want an argument >= 1", name, x)
		}
		l := int64(63 - bits.LeadingZeros64(uint64(x)))
		if name == "clog2" && x&(x-1) != 0 {
			l++
		}
		return l, nil
	case "u32":
		return int64(uint32(a[0])), nil
	case "s32":
		return int64(int32(a[0])), nil
	}
	return 0, fmt.Errorf("unknown function %s", name)
}
