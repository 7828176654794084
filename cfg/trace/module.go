package trace

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"sort"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
)

// module is the PTX module a trace was resolved against.
type module struct {
	name string    // base name as the trace writes it
	file *isa.File // parsed module
	fn   *isa.Func // the traced kernel
}

// resolve loads the module the trace names and, when every traced line
// matches it, sets static.in to the module's instructions. It returns nil
// (with a warning) when the module is unavailable or does not match.
func (p *parser) resolve(recs []record, statics []*static) *module {
	if p.opts.Module == nil {
		return nil
	}
	name := statics[0].module
	for _, st := range statics[1:] {
		if st.module != name {
			r := recs[st.first]
			p.warns.Addf(p.lineStart(r.line), "trace names two modules (%s and %s); instructions parsed from the trace text", name, st.module)
			return nil
		}
	}
	first := recs[statics[0].first]
	at := p.lineStart(first.line)
	filename, src, err := p.opts.Module(name)
	if err != nil {
		if errNotExist(err) {
			p.warns.Addf(at, "module %s not available (%v); instructions parsed from the trace text", name, err)
			return nil
		}
		p.errs.Addf(at, "module %s: %v", name, err)
		return nil
	}
	mf, err := ptx.ParseFile(p.fset, filename, src, 0)
	if err != nil {
		p.warns.Addf(at, "module %s does not parse (%v); instructions parsed from the trace text", filename, err)
		return nil
	}
	lines := bytes.Split(src, []byte("\n"))

	// Instructions of the module by line.
	type site struct {
		fn *isa.Func
		in *isa.Instr
	}
	byLine := map[int][]site{}
	for _, fn := range mf.Funcs {
		for _, in := range fn.Instrs {
			l := p.fset.Position(in.Pos).Line
			byLine[l] = append(byLine[l], site{fn, in})
		}
	}
	var kernel *isa.Func
	for _, st := range statics {
		r := recs[st.first]
		if st.mline > len(lines) {
			p.warns.Addf(p.position(r.textOff), "module %s has %d lines, the trace names line %d; module not used", filename, len(lines), st.mline)
			return nil
		}
		text := string(lines[st.mline-1])
		if stripSpace(text) != stripSpace(r.text) {
			p.warns.Addf(p.position(r.textOff), "trace text %q differs from %s:%d %q; module not used", r.text, filename, st.mline, strings.TrimSpace(text))
			return nil
		}
		sites := byLine[st.mline]
		if len(sites) != 1 {
			p.warns.Addf(p.position(r.textOff), "%s:%d holds %d instructions, want 1; module not used", filename, st.mline, len(sites))
			return nil
		}
		if kernel == nil {
			kernel = sites[0].fn
		} else if kernel != sites[0].fn {
			p.warns.Addf(p.position(r.textOff), "trace runs through two functions of %s (%s and %s); module not used", filename, kernel.Name, sites[0].fn.Name)
			return nil
		}
	}
	for _, st := range statics {
		in := *byLine[st.mline][0].in
		st.in = &in
		st.fromMod = true
	}
	return &module{name: name, file: mf, fn: kernel}
}

// The synthetic PTX function the trace texts are parsed in.
const (
	synthKernel = "__gpuwcet_trace"
)

// parseTexts parses the trace text of every static instruction not
// resolved against the module, with the PTX front end: the texts become
// the body of a synthetic kernel, one per line, and positions and errors
// are mapped back to the trace.
func (p *parser) parseTexts(recs []record, statics []*static, mod *module) {
	var todo []*static
	for _, st := range statics {
		if st.in == nil {
			todo = append(todo, st)
		}
	}
	if len(todo) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_75\n.address_size 64\n")
	fmt.Fprintf(&b, ".visible .entry %s()\n{\n", synthKernel)
	const bodyLine = 6 // line of the first instruction
	type fix struct {
		st    *static
		glue  int // byte offset in the text where a blank was inserted; -1 none
		start int // byte offset of the line in the synthetic source
	}
	fixes := make([]fix, len(todo))
	labels := map[string]bool{}
	for i, st := range todo {
		r := recs[st.first]
		text, glue := unglue(r.text)
		fixes[i] = fix{st: st, glue: glue, start: b.Len()}
		b.WriteString(text)
		b.WriteByte('\n')
		for _, l := range branchLabels(text) {
			labels[l] = true
		}
	}
	// Branch targets are labels of the module; declare them at the end of
	// the body so that the front end accepts the branches.
	var ls []string
	for l := range labels {
		ls = append(ls, l)
	}
	sort.Strings(ls)
	for _, l := range ls {
		b.WriteString(l + ":\n")
	}
	b.WriteString("}\n")
	src := b.String()

	sfset := token.NewFileSet()
	mapPos := func(pos token.Position) (token.Position, bool) {
		i := pos.Line - bodyLine
		if i < 0 || i >= len(fixes) {
			return pos, false
		}
		r := recs[fixes[i].st.first]
		col := pos.Column - 1
		if fixes[i].glue >= 0 && col > fixes[i].glue {
			col--
		}
		if col > len(r.text) {
			col = len(r.text)
		}
		if col < 0 {
			col = 0
		}
		return p.position(r.textOff + col), true
	}
	sf, err := ptx.ParseFile(sfset, p.filename+"#text", []byte(src), 0)
	if err != nil {
		var l isa.ErrorList
		if !errors.As(err, &l) {
			p.errs.Addf(p.lineStart(recs[todo[0].first].line), "PTX front end: %v", err)
			return
		}
		for _, e := range l {
			if pos, ok := mapPos(e.Pos); ok {
				p.errs.Add(pos, e.Msg)
			} else {
				p.errs.Addf(p.lineStart(recs[todo[0].first].line), "PTX front end, on the synthetic function: %s", e.Error())
			}
		}
		return
	}
	fn := sf.Func(synthKernel)
	if fn == nil {
		p.errs.Addf(p.lineStart(recs[todo[0].first].line), "PTX front end returned no function %s", synthKernel)
		return
	}
	got := make([][]*isa.Instr, len(fixes))
	for _, in := range fn.Instrs {
		i := sfset.Position(in.Pos).Line - bodyLine
		if i < 0 || i >= len(fixes) {
			p.errs.Addf(p.lineStart(recs[todo[0].first].line), "PTX front end placed an instruction outside the trace texts (line %d)", i+bodyLine)
			return
		}
		got[i] = append(got[i], in)
	}
	for i, f := range fixes {
		r := recs[f.st.first]
		if len(got[i]) != 1 {
			p.errs.Addf(p.position(r.textOff), "trace line holds %d PTX instructions, want 1: %q", len(got[i]), r.text)
			continue
		}
		in := *got[i][0]
		pos, _ := mapPos(sfset.Position(in.Pos))
		in.Pos = p.tf.Pos(pos.Offset)
		f.st.in = &in
	}
	for _, w := range sf.Warnings {
		if pos, ok := mapPos(w.Pos); ok {
			p.warns.Add(pos, w.Msg)
		}
	}
}

// unglue inserts the blank the simulator dropped between the mnemonic and
// the first operand ("setp.ne.s32%p2, %r4, 0;"). It returns the text and
// the offset of the insertion (-1 when nothing was inserted).
func unglue(text string) (string, int) {
	i := 0
	if strings.HasPrefix(text, "@") {
		// Guard: "@%p1 " or "@!%p1 ".
		j := strings.IndexAny(text, " \t")
		if j < 0 {
			return text, -1
		}
		i = j
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
	}
	start := i
	for i < len(text) && isMnemonicChar(text[i]) {
		i++
	}
	if i == start || i >= len(text) {
		return text, -1
	}
	switch text[i] {
	case ' ', '\t', ';':
		return text, -1
	}
	return text[:i] + " " + text[i:], i
}

func isMnemonicChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
}

// branchLabels returns the label operands of a bra/brx text.
func branchLabels(text string) []string {
	t := strings.TrimSuffix(strings.TrimSpace(text), ";")
	if strings.HasPrefix(t, "@") {
		j := strings.IndexAny(t, " \t")
		if j < 0 {
			return nil
		}
		t = strings.TrimSpace(t[j:])
	}
	op, rest, ok := strings.Cut(t, " ")
	if !ok || !(op == "bra" || strings.HasPrefix(op, "bra.")) {
		return nil
	}
	var out []string
	for _, f := range strings.Split(rest, ",") {
		f = strings.TrimSpace(f)
		if isLabel(f) {
			out = append(out, f)
		}
	}
	return out
}

func isLabel(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(isMnemonicChar(c) || c == '$') || c == '.' {
			return false
		}
	}
	return true
}
