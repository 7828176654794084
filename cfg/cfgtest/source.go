package cfgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Source is one CUDA file of the kernel corpus (testdata/kernels/src).
type Source struct {
	Name  string  // base name, "loops.cu"
	Path  string  // absolute path
	Funcs []*Func // __global__ and __device__ function definitions, in source order
	Loops []*Loop // every loop, in source order
}

// Func is a function definition of a corpus source.
type Func struct {
	Name          string // C++ name, "poly"
	Kernel        bool   // __global__
	Line, EndLine int    // the line of the signature and of the closing brace
	Params        []CParam
	Source        *Source
}

// CParam is a C parameter: its type as written ("const float *", "int") and
// its name.
type CParam struct {
	Type, Name string
}

// Pointer reports whether the parameter is a pointer.
func (p CParam) Pointer() bool { return strings.Contains(p.Type, "*") }

// Loop is a loop statement (for, while, do) of a corpus source.
type Loop struct {
	Source  *Source
	Func    *Func  // the enclosing function
	Keyword string // "for", "while" or "do"
	Line    int    // the line of the keyword, which carries the @trip annotation
	EndLine int    // the line of the closing brace (for do: of the while clause)
	Offset  int    // byte offset of the keyword in the file
	Body    int    // byte offset of the brace that opens the body
	Parent  *Loop  // the enclosing loop of the same function, or nil
	Depth   int    // 0 for an outermost loop
	Trips   []*Trip
}

func (l *Loop) String() string {
	return fmt.Sprintf("%s:%d (%s in %s)", l.Source.Name, l.Line, l.Keyword, l.Func.Name)
}

// CondLine returns the line of the loop's controlling condition: the
// keyword line, or for a do statement the line of its while clause.
func (l *Loop) CondLine() int {
	if l.Keyword == "do" {
		return l.EndLine
	}
	return l.Line
}

// Contains reports whether line lies within the loop statement.
func (l *Loop) Contains(line int) bool { return l.Line <= line && line <= l.EndLine }

// Class says what a loop's trip count depends on.
type Class string

// Trip-count classes.
const (
	// LaunchOnly: the trip count is a function of the launch dimensions
	// (blockDim, gridDim), the thread and block indices and the kernel
	// arguments.
	LaunchOnly Class = "launch-only"
	// Data: the trip count also depends on memory contents (or time,
	// atomics, other threads): no function of the launch gives it.
	Data Class = "data"
)

// Trip is one @trip clause of a loop.
type Trip struct {
	// Kernels lists the kernels the clause is for ("@trip[k1,k2]"); empty
	// for a loop written in a kernel's own body (the enclosing kernel).
	Kernels []string
	Class   Class
	// Expr is the trip count (LaunchOnly) or its maximum over every memory
	// content (Data with "max"); nil for an unbounded data loop.
	Expr *TripExpr
	Text string // the clause as written
}

// For reports whether the clause applies to the kernel named k (a loop in
// a kernel body applies to that kernel).
func (t *Trip) For(l *Loop, k string) bool {
	if len(t.Kernels) == 0 {
		return l.Func.Kernel && l.Func.Name == k
	}
	for _, n := range t.Kernels {
		if n == k {
			return true
		}
	}
	return false
}

// ParseSource reads a corpus source file and its @trip annotations.
func ParseSource(path string) (*Source, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return parseSource(abs, string(data))
}

// scanned is a source with comments, string literals and preprocessor
// lines blanked out (so that offsets and lines are kept), and the comment
// text of each line.
type scanned struct {
	code     []byte
	comments map[int]string // line → text of its // comment
	lineOf   []int          // offset → line (1-based)
}

func scan(src string) *scanned {
	s := &scanned{code: []byte(src), comments: map[int]string{}, lineOf: make([]int, len(src)+1)}
	line := 1
	for i := 0; i <= len(src); i++ {
		s.lineOf[i] = line
		if i < len(src) && src[i] == '\n' {
			line++
		}
	}
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			if s.code[k] != '\n' {
				s.code[k] = ' '
			}
		}
	}
	for i := 0; i < len(src); {
		switch {
		case src[i] == '#' && strings.TrimSpace(src[strings.LastIndexByte(src[:i], '\n')+1:i]) == "":
			// A preprocessor line (no continuation lines in the corpus).
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			blank(i, i+end)
			i += end
		case strings.HasPrefix(src[i:], "//"):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			s.comments[s.lineOf[i]] += src[i+2 : i+end]
			blank(i, i+end)
			i += end
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				end = len(src) - i - 2
			}
			blank(i, i+end+4)
			i += end + 4
		case src[i] == '"' || src[i] == '\'':
			j := i + 1
			for j < len(src) && src[j] != src[i] && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			blank(i+1, min(j, len(src)))
			i = j + 1
		default:
			i++
		}
	}
	return s
}

// match returns the offset of the bracket closing the one at open, or -1.
func (s *scanned) match(open int) int {
	o := s.code[open]
	c := map[byte]byte{'(': ')', '{': '}', '[': ']'}[o]
	depth := 0
	for i := open; i < len(s.code); i++ {
		switch s.code[i] {
		case o:
			depth++
		case c:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// skipSpace returns the first offset at or after i that is not white space.
func (s *scanned) skipSpace(i int) int {
	for i < len(s.code) && (s.code[i] == ' ' || s.code[i] == '\t' || s.code[i] == '\n' || s.code[i] == '\r') {
		i++
	}
	return i
}

var (
	funcRE    = regexp.MustCompile(`(?m)^(?:template\s*<[^>]*>\s*)?((?:(?:static|inline|__forceinline__|__noinline__|extern|"C")\s+)*)(__global__|__device__)\s+[^;{]*?\b([A-Za-z_]\w*)\s*\(`)
	keywordRE = regexp.MustCompile(`\b(for|while|do)\b`)
	tripRE    = regexp.MustCompile(`@trip(?:\[([^\]]*)\])?\s+`)
	identRE   = regexp.MustCompile(`^[A-Za-z_]\w*$`)
)

func parseSource(path, src string) (*Source, error) {
	s := scan(src)
	out := &Source{Name: filepath.Base(path), Path: path}
	errorf := func(off int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", out.Name, s.lineOf[off], fmt.Sprintf(format, args...))
	}
	code := string(s.code)

	// Function definitions: a __global__/__device__ signature followed by
	// a body. Declarations (ending in ';') and variables are skipped.
	type span struct{ from, to int }
	var bodies []span
	for _, m := range funcRE.FindAllStringSubmatchIndex(code, -1) {
		nameAt, open := m[6], m[1]-1
		close := s.match(open)
		if close < 0 {
			return nil, errorf(open, "unbalanced parentheses in the signature of %s", code[m[6]:m[7]])
		}
		body := s.skipSpace(close + 1)
		if body >= len(code) || code[body] != '{' {
			continue
		}
		end := s.match(body)
		if end < 0 {
			return nil, errorf(body, "unbalanced braces in %s", code[m[6]:m[7]])
		}
		fn := &Func{Name: code[m[6]:m[7]], Kernel: code[m[4]:m[5]] == "__global__",
			Line: s.lineOf[nameAt], EndLine: s.lineOf[end], Source: out}
		for _, p := range splitParams(code[open+1 : close]) {
			k := strings.LastIndexFunc(p, func(r rune) bool {
				return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
			})
			typ, name := strings.TrimSpace(p[:k+1]), p[k+1:]
			if !identRE.MatchString(name) || typ == "" {
				return nil, errorf(open, "%s: cannot read parameter %q (want TYPE NAME)", fn.Name, p)
			}
			fn.Params = append(fn.Params, CParam{Type: strings.Join(strings.Fields(typ), " "), Name: name})
		}
		out.Funcs = append(out.Funcs, fn)
		bodies = append(bodies, span{body, end})
	}
	funcAt := func(off int) *Func {
		for i, b := range bodies {
			if b.from < off && off < b.to {
				return out.Funcs[i]
			}
		}
		return nil
	}

	// Loops: each keyword starts a statement and opens its body with a
	// brace on the same line; the while of a do-while is part of the do.
	type loopSpan struct {
		loop     *Loop
		from, to int
	}
	var spans []loopSpan
	doWhile := map[int]bool{} // offsets of the while keywords closing a do
	loopLines := map[int]*Loop{}
	for _, m := range keywordRE.FindAllStringSubmatchIndex(code, -1) {
		at, kw := m[0], code[m[2]:m[3]]
		if doWhile[at] {
			continue
		}
		fn := funcAt(at)
		if fn == nil {
			return nil, errorf(at, "%s outside a function body", kw)
		}
		l := &Loop{Source: out, Func: fn, Keyword: kw, Line: s.lineOf[at]}
		if prev := loopLines[l.Line]; prev != nil {
			return nil, errorf(at, "two loops on one line: write one loop statement per line")
		}
		loopLines[l.Line] = l
		lineStart := strings.LastIndexByte(code[:at], '\n') + 1
		if strings.TrimSpace(code[lineStart:at]) != "" {
			return nil, errorf(at, "%s must start its line (the corpus style: one loop per line, keyword first)", kw)
		}
		if prev := strings.TrimSpace(code[:at]); prev == "" || !strings.ContainsRune(";{}:", rune(prev[len(prev)-1])) {
			return nil, errorf(at, "%s must be a statement of a block (after ';', '{', '}' or a label), not the body of an if, else or loop without braces", kw)
		}
		body := m[1]
		if kw != "do" {
			open := s.skipSpace(m[1])
			if open >= len(code) || code[open] != '(' {
				return nil, errorf(at, "%s without a parenthesised header", kw)
			}
			close := s.match(open)
			if close < 0 {
				return nil, errorf(at, "unbalanced parentheses after %s", kw)
			}
			body = close + 1
		}
		body = s.skipSpace(body)
		if body >= len(code) || code[body] != '{' || s.lineOf[body] != l.Line {
			return nil, errorf(at, "the body of %s must open with a brace on the loop's line", kw)
		}
		end := s.match(body)
		if end < 0 {
			return nil, errorf(body, "unbalanced braces in the body of %s", kw)
		}
		to := end
		if kw == "do" {
			w := s.skipSpace(end + 1)
			if !strings.HasPrefix(code[w:], "while") {
				return nil, errorf(end, "do without while")
			}
			doWhile[w] = true
			open := s.skipSpace(w + len("while"))
			close := -1
			if open < len(code) && code[open] == '(' {
				close = s.match(open)
			}
			if close < 0 {
				return nil, errorf(w, "malformed while clause of a do statement")
			}
			to = close
		}
		l.EndLine = s.lineOf[to]
		l.Offset, l.Body = at, body
		spans = append(spans, loopSpan{l, at, to})
		out.Loops = append(out.Loops, l)
	}
	for i, sp := range spans {
		for j := i - 1; j >= 0; j-- {
			if spans[j].from < sp.from && sp.to <= spans[j].to && spans[j].loop.Func == sp.loop.Func {
				sp.loop.Parent = spans[j].loop
				sp.loop.Depth = spans[j].loop.Depth + 1
				break
			}
		}
	}

	// @trip annotations: a comment that starts with @trip, on every loop
	// line and on no other line.
	for line, text := range s.comments {
		text = strings.TrimSpace(text)
		if !strings.HasPrefix(text, "@trip") {
			continue // prose may mention @trip
		}
		l := loopLines[line]
		if l == nil {
			return nil, fmt.Errorf("%s:%d: @trip on a line without a loop keyword", out.Name, line)
		}
		trips, err := parseTrips(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", out.Name, line, err)
		}
		l.Trips = trips
	}
	for _, l := range out.Loops {
		if len(l.Trips) == 0 {
			return nil, fmt.Errorf("%s:%d: %s loop without a @trip annotation", out.Name, l.Line, l.Keyword)
		}
		for _, t := range l.Trips {
			if l.Func.Kernel && len(t.Kernels) > 0 && (len(t.Kernels) != 1 || t.Kernels[0] != l.Func.Name) {
				return nil, fmt.Errorf("%s:%d: @trip[%s] in the body of kernel %s", out.Name, l.Line, strings.Join(t.Kernels, ","), l.Func.Name)
			}
			if !l.Func.Kernel && len(t.Kernels) == 0 {
				return nil, fmt.Errorf("%s:%d: a loop of device function %s needs @trip[KERNEL] clauses", out.Name, l.Line, l.Func.Name)
			}
		}
	}
	return out, nil
}

// splitParams splits a parameter list at top-level commas.
func splitParams(s string) []string {
	var out []string
	depth, from := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '<', '[':
			depth++
		case ')', '>', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[from:i]))
				from = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[from:]); t != "" && t != "void" {
		out = append(out, t)
	}
	return out
}

// parseTrips reads the @trip clauses of a comment, from the first "@trip".
func parseTrips(text string) ([]*Trip, error) {
	locs := tripRE.FindAllStringSubmatchIndex(text, -1)
	var out []*Trip
	for i, m := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		t := &Trip{Text: strings.TrimSpace(text[m[0]:end])}
		if m[2] >= 0 {
			for _, k := range strings.Split(text[m[2]:m[3]], ",") {
				k = strings.TrimSpace(k)
				if !identRE.MatchString(k) {
					return nil, fmt.Errorf("%s: bad kernel name %q", t.Text, k)
				}
				t.Kernels = append(t.Kernels, k)
			}
		}
		body := strings.TrimSpace(text[m[1]:end])
		class, rest, _ := strings.Cut(body, " ")
		rest = strings.TrimSpace(rest)
		switch Class(class) {
		case LaunchOnly:
			if rest == "" {
				return nil, fmt.Errorf("%s: launch-only needs an expression", t.Text)
			}
		case Data:
			switch {
			case rest == "":
			case strings.HasPrefix(rest, "max "):
				rest = strings.TrimSpace(strings.TrimPrefix(rest, "max "))
			default:
				return nil, fmt.Errorf("%s: want \"data\" or \"data max EXPR\"", t.Text)
			}
		default:
			return nil, fmt.Errorf("%s: unknown class %q (want launch-only or data)", t.Text, class)
		}
		t.Class = Class(class)
		if rest != "" {
			e, err := ParseTripExpr(rest)
			if err != nil {
				return nil, err
			}
			t.Expr = e
		}
		out = append(out, t)
	}
	return out, nil
}
