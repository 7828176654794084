package taskmodel

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// WriteMAST writes the bounded tasks of m as a model of MAST (Modeling and
// Analysis Suite for Real-Time Applications, https://mast.unican.es), in
// its text format (docs/task-model.md): the kernels run on sms SMs (a
// partition; 0 means the most SMs of the model), which is one MAST
// processing resource with a fixed-priority scheduler; each kernel is a
// non-preemptible scheduling server and a simple operation whose worst-
// and best-case execution times are the task model's WCET and BCET on
// those SMs, in nanoseconds. Transactions (the kernels' activation
// periods and deadlines) are the integrator's: a commented template is
// written for each kernel. Persistent kernels are written as their
// per-item operation.
func WriteMAST(w io.Writer, m *Model, sms int) error {
	var b strings.Builder
	names := newNamer()
	fmt.Fprintf(&b, "-- MAST model written by %s %s from the task model of", m.Tool.Name, m.Tool.Version)
	for _, in := range m.Inputs {
		fmt.Fprintf(&b, " %s", comment(in.Path))
	}
	fmt.Fprintf(&b, "\n-- (bound report sha256 %s; docs/task-model.md). Times in nanoseconds.\n", m.ReportSHA256)
	type op struct {
		task       *Task
		name       string
		wcet, bcet int64
		k          int
	}
	var ops []op
	for i := range m.Tasks {
		t := &m.Tasks[i]
		switch {
		case t.Status == "persistent" && t.Item != nil:
			ops = append(ops, op{task: t, name: names.name("item_" + t.Name), wcet: t.Item.WCETNS, bcet: 0})
		case t.Status == "bounded" && len(t.Times) > 0:
			k := sms
			if k <= 0 || k > len(t.Times) {
				k = len(t.Times)
			}
			tm := t.Times[k-1]
			ops = append(ops, op{task: t, name: names.name(t.Name), wcet: tm.WCETNS, bcet: tm.BCETNS, k: tm.SMs})
		}
	}
	if len(ops) == 0 {
		return fmt.Errorf("taskmodel: no bounded kernel to write as a MAST model (analyze --grid with --platform or --sms)")
	}
	k := ops[0].k
	for _, o := range ops {
		if o.k != 0 && o.k != k {
			k = -1
		}
	}
	where := "the GPU"
	if m.Platform != nil {
		where = fmt.Sprintf("the %s", m.Platform.Name)
	}
	if k > 0 {
		fmt.Fprintf(&b, "-- The processing resource gpu stands for %d SM(s) of %s on which the kernels run\n-- one at a time (kernels are not preempted).\n", k, where)
	}
	b.WriteString("\nModel (\n   Model_Name => gpuwcet_tasks);\n\n")
	b.WriteString("Processing_Resource (\n   Type         => Regular_Processor,\n   Name         => gpu,\n   Speed_Factor => 1.0);\n\n")
	b.WriteString("Scheduler (\n   Type   => Primary_Scheduler,\n   Name   => gpu_scheduler,\n   Host   => gpu,\n   Policy => (\n      Type => Fixed_Priority));\n\n")
	for i, o := range ops {
		t := o.task
		fmt.Fprintf(&b, "-- kernel %s: grid %v x block %v", comment(t.Name), t.Grid, t.Block)
		if o.k > 0 {
			fmt.Fprintf(&b, ", on %d SM(s)", o.k)
		}
		if t.Status == "persistent" {
			b.WriteString(", persistent: the per-item bound (the kernel itself has none)")
		}
		if t.Conditional {
			b.WriteString("; conditional on a measured or assumed overhead")
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "Scheduling_Server (\n   Type                    => Regular,\n   Name                    => s_%s,\n   Server_Sched_Parameters => (\n      Type         => Non_Preemptible_FP_Policy,\n      The_Priority => %d,\n      Preassigned  => No),\n   Scheduler               => gpu_scheduler);\n\n", o.name, i+1)
		fmt.Fprintf(&b, "Operation (\n   Type                      => Simple,\n   Name                      => %s,\n   Worst_Case_Execution_Time => %d,\n   Best_Case_Execution_Time  => %d);\n\n", o.name, o.wcet, o.bcet)
		fmt.Fprintf(&b, "-- Transaction template for %s (fill in PERIOD and DEADLINE, in ns):\n", o.name)
		fmt.Fprintf(&b, "-- Transaction (\n--    Type            => Regular,\n--    Name            => t_%s,\n--    External_Events => (\n--       (Type => Periodic, Name => e_%s, Period => PERIOD)),\n--    Internal_Events => (\n--       (Type => Regular, Name => o_%s,\n--        Timing_Requirements => (Type => Hard_Global_Deadline, Deadline => DEADLINE, Referenced_Event => e_%s))),\n--    Event_Handlers  => (\n--       (Type => Activity, Input_Event => e_%s, Output_Event => o_%s,\n--        Activity_Operation => %s, Activity_Server => s_%s)));\n\n",
			o.name, o.name, o.name, o.name, o.name, o.name, o.name, o.name)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// comment makes s safe inside a "--" comment line.
func comment(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, s)
}

// namer turns kernel names into distinct MAST identifiers: a letter
// first, then letters, digits and single underscores.
type namer struct{ used map[string]bool }

func newNamer() *namer { return &namer{used: map[string]bool{}} }

func (n *namer) name(s string) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		ok := r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if !ok {
			if !under && b.Len() > 0 {
				b.WriteByte('_')
				under = true
			}
			continue
		}
		b.WriteRune(r)
		under = false
	}
	id := strings.TrimSuffix(b.String(), "_")
	if id == "" || !unicode.IsLetter(rune(id[0])) {
		id = "k_" + id
		id = strings.TrimSuffix(id, "_")
	}
	base := id
	for i := 2; n.used[strings.ToLower(id)]; i++ {
		id = fmt.Sprintf("%s_%d", base, i)
	}
	n.used[strings.ToLower(id)] = true
	return id
}

// MASTObject is one top-level object of a MAST model file: its kind
// ("Operation", "Scheduling_Server", ...) and fields.
type MASTObject struct {
	Kind   string
	Fields map[string]MASTValue // keys in lower case (MAST is case-insensitive)
	Line   int
}

// MASTValue is a field value: an atom (identifier or number), a record of
// fields, or a list of records.
type MASTValue struct {
	Atom   string
	Record map[string]MASTValue
	List   []MASTValue
}

// ReadMAST parses the subset of the MAST text format WriteMAST writes
// (and the same syntax in general): objects `Kind ( Name => value, ... );`
// with values that are identifiers, numbers, records `( ... )` or lists of
// records `( ( ... ), ( ... ) )`; `--` starts a comment. Errors give the
// line.
func ReadMAST(name string, data []byte) ([]MASTObject, error) {
	p := &mastParser{name: name, src: string(data), line: 1}
	p.next()
	var out []MASTObject
	for p.tok != "" {
		line := p.line
		kind := p.tok
		if !isIdent(kind) {
			return nil, p.errorf("expected an object kind, got %q", kind)
		}
		p.next()
		if p.tok != "(" {
			return nil, p.errorf("expected ( after %s, got %q", kind, p.tok)
		}
		rec, err := p.record()
		if err != nil {
			return nil, err
		}
		if p.tok != ";" {
			return nil, p.errorf("expected ; after the %s object, got %q", kind, p.tok)
		}
		p.next()
		out = append(out, MASTObject{Kind: kind, Fields: rec, Line: line})
	}
	if p.err != nil {
		return nil, p.err
	}
	return out, nil
}

type mastParser struct {
	name string
	src  string
	off  int
	line int
	tok  string
	err  error
}

func (p *mastParser) errorf(format string, args ...any) error {
	if p.err != nil {
		return p.err
	}
	return fmt.Errorf("%s:%d: %s", p.name, p.line, fmt.Sprintf(format, args...))
}

// next reads the next token: an identifier or number, "=>", or one of
// ( ) , ; ("" at the end).
func (p *mastParser) next() {
	s := p.src
	for p.off < len(s) {
		c := s[p.off]
		switch {
		case c == '\n':
			p.line++
			p.off++
		case c == ' ' || c == '\t' || c == '\r':
			p.off++
		case c == '-' && p.off+1 < len(s) && s[p.off+1] == '-':
			for p.off < len(s) && s[p.off] != '\n' {
				p.off++
			}
		default:
			goto tok
		}
	}
	p.tok = ""
	return
tok:
	start := p.off
	c := s[p.off]
	switch {
	case c == '(' || c == ')' || c == ',' || c == ';':
		p.off++
	case c == '=' && p.off+1 < len(s) && s[p.off+1] == '>':
		p.off += 2
	case isWordByte(c):
		for p.off < len(s) && (isWordByte(s[p.off]) || s[p.off] == '.' || (s[p.off] == '-' || s[p.off] == '+') && (s[p.off-1] == 'e' || s[p.off-1] == 'E')) {
			p.off++
		}
	default:
		p.err = fmt.Errorf("%s:%d: unexpected character %q", p.name, p.line, c)
		p.off = len(s)
		p.tok = ""
		return
	}
	p.tok = s[start:p.off]
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdent(s string) bool {
	return s != "" && (s[0] == '_' || 'a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z')
}

// record reads `( name => value, ... )`, the current token being "(".
func (p *mastParser) record() (map[string]MASTValue, error) {
	p.next()
	rec := map[string]MASTValue{}
	for {
		key := p.tok
		if !isIdent(key) {
			return nil, p.errorf("expected a field name, got %q", key)
		}
		p.next()
		if p.tok != "=>" {
			return nil, p.errorf("expected => after %s, got %q", key, p.tok)
		}
		p.next()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		lk := strings.ToLower(key)
		if _, dup := rec[lk]; dup {
			return nil, p.errorf("field %s given twice", key)
		}
		rec[lk] = v
		switch p.tok {
		case ",":
			p.next()
		case ")":
			p.next()
			return rec, nil
		default:
			return nil, p.errorf("expected , or ) after the value of %s, got %q", key, p.tok)
		}
	}
}

// value reads an atom, a record or a list of records.
func (p *mastParser) value() (MASTValue, error) {
	switch {
	case p.tok == "(":
		// A list of records starts with "( (".
		save, saveLine := p.off, p.line
		p.next()
		if p.tok == "(" {
			var list []MASTValue
			for p.tok == "(" {
				r, err := p.record()
				if err != nil {
					return MASTValue{}, err
				}
				list = append(list, MASTValue{Record: r})
				if p.tok == "," {
					p.next()
				}
			}
			if p.tok != ")" {
				return MASTValue{}, p.errorf("expected ) after a list of records, got %q", p.tok)
			}
			p.next()
			return MASTValue{List: list}, nil
		}
		p.off, p.line, p.tok = save, saveLine, "("
		r, err := p.record()
		return MASTValue{Record: r}, err
	case p.tok != "" && isWordByte(p.tok[0]):
		v := MASTValue{Atom: p.tok}
		p.next()
		return v, nil
	}
	return MASTValue{}, p.errorf("expected a value, got %q", p.tok)
}

// MASTOperations returns the simple operations of a parsed model: name →
// (worst, best) execution times.
func MASTOperations(objs []MASTObject) (map[string][2]float64, error) {
	out := map[string][2]float64{}
	for _, o := range objs {
		if !strings.EqualFold(o.Kind, "Operation") {
			continue
		}
		name := o.Fields["name"].Atom
		var t [2]float64
		for i, f := range []string{"worst_case_execution_time", "best_case_execution_time"} {
			v, ok := o.Fields[f]
			if !ok {
				continue
			}
			x, err := strconv.ParseFloat(v.Atom, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: operation %s: %s %q is not a number", o.Line, name, f, v.Atom)
			}
			t[i] = x
		}
		out[name] = t
	}
	return out, nil
}
