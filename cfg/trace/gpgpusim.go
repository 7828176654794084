package trace

import (
	"errors"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Options control ParseFile.
type Options struct {
	// Name is the kernel's name. When empty it is taken from the module
	// (the function holding the traced lines), else from the parameter
	// symbols of ld.param instructions ("<kernel>_param_0"), else from the
	// file name without ".trace" and without the trailing launch number.
	Name string

	// Dedupe drops a line whose PC equals the previous PC of the same warp
	// (the duplicate-line bug of early fork versions) and counts it in
	// Trace.Deduplicated.
	Dedupe bool

	// Module, when set, supplies the PTX module a trace line names
	// ("backprop-rodinia-2.4.sm_75.ptx"): its file name (for positions)
	// and content. An error wrapping fs.ErrNotExist means "not available"
	// and gives a warning; other errors fail the parse.
	Module func(name string) (filename string, src []byte, err error)
}

// ParseFile reads a GPGPU-Sim PTX issue trace (see the package
// documentation) and returns a File with one kernel whose Trace holds the
// per-warp paths. Errors are an isa.ErrorList positioned in the trace (at
// most isa.MaxErrors); non-fatal findings are in File.Warnings.
func ParseFile(fset *token.FileSet, filename string, src []byte, opts *Options) (*isa.File, error) {
	if opts == nil {
		opts = &Options{}
	}
	tf := fset.AddFile(filename, -1, len(src))
	tf.SetLinesForContent(src)
	p := &parser{fset: fset, tf: tf, src: src, opts: opts, filename: filename}
	return p.parse()
}

type parser struct {
	fset     *token.FileSet
	tf       *token.File
	src      []byte
	opts     *Options
	filename string
	errs     isa.ErrorList
	warns    isa.ErrorList
}

func (p *parser) position(off int) token.Position { return p.tf.Position(p.tf.Pos(off)) }

func (p *parser) lineStart(line int) token.Position {
	return p.tf.Position(p.tf.LineStart(line))
}

// static is one distinct static instruction of the trace.
type static struct {
	first   int // index in recs of its first occurrence
	module  string
	mline   int
	pc      uint64
	in      *isa.Instr // parsed (from the module or the trace text)
	fromMod bool
}

type key struct {
	module string
	line   int
}

func (p *parser) parse() (*isa.File, error) {
	if len(p.src) == 0 {
		p.errs.Add(token.Position{Filename: p.filename}, "empty trace")
		return nil, p.errs
	}
	s := scanLines(p.tf, p.src, &p.errs)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	if len(s.recs) == 0 {
		p.errs.Add(p.lineStart(1), "trace has no instruction lines")
		return nil, p.errs
	}

	// Duplicate lines.
	recs, dropped := p.dedupe(s.recs)

	// Distinct static instructions, keyed by (module:line).
	statics := p.collect(recs)
	if len(p.errs) > 0 {
		p.errs.RemoveMultiples()
		return nil, p.errs
	}

	// Resolve against the module(s), then parse what is left from the
	// trace text.
	mod := p.resolve(recs, statics)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	p.parseTexts(recs, statics, mod)
	if len(p.errs) > 0 {
		p.errs.RemoveMultiples()
		return nil, p.errs
	}

	// Func.Instrs: distinct instructions in PC order.
	sort.SliceStable(statics, func(i, j int) bool { return statics[i].pc < statics[j].pc })
	fn := &isa.Func{
		Name:  p.kernelName(recs, statics, mod),
		Pos:   p.tf.Pos(recs[0].textOff),
		End:   p.tf.Pos(len(p.src)),
		Entry: true,
	}
	index := make(map[key]int, len(statics))
	for i, st := range statics {
		st.in.Index = i
		fn.Instrs = append(fn.Instrs, st.in)
		index[key{st.module, st.mline}] = i
	}
	if mod != nil {
		fn.Params = mod.fn.Params
		fn.RetParams = mod.fn.RetParams
		fn.MaxNTid, fn.ReqNTid = mod.fn.MaxNTid, mod.fn.ReqNTid
		fn.MinNCTAPerSM, fn.MaxNReg = mod.fn.MinNCTAPerSM, mod.fn.MaxNReg
		fn.BranchTargets = mod.fn.BranchTargets
		// Labels whose instruction the trace executed.
		for l, j := range mod.fn.Labels {
			if j < len(mod.fn.Instrs) {
				ml := p.fset.Position(mod.fn.Instrs[j].Pos).Line
				if i, ok := index[key{mod.name, ml}]; ok {
					if fn.Labels == nil {
						fn.Labels = make(map[string]int)
					}
					fn.Labels[l] = i
				}
			}
		}
	}

	// Per-warp paths.
	tr := &isa.Trace{Deduplicated: dropped}
	byWarp := map[int]int{} // warp -> index in tr.Warps
	for _, r := range recs {
		wi, ok := byWarp[r.warp]
		if !ok {
			wi = len(tr.Warps)
			byWarp[r.warp] = wi
			tr.Warps = append(tr.Warps, isa.WarpPath{Warp: r.warp})
		}
		base := fn.Instrs[index[key{r.module, r.mline}]]
		in := *base
		in.Pos = p.tf.Pos(r.textOff)
		tr.Warps[wi].Instrs = append(tr.Warps[wi].Instrs, &in)
	}
	sort.Slice(tr.Warps, func(i, j int) bool { return tr.Warps[i].Warp < tr.Warps[j].Warp })
	if s.hasCycles {
		tr.ObservedCycles, tr.HasObserved = s.cycles, true
	} else {
		last := s.recs[len(s.recs)-1]
		p.warns.Addf(p.lineStart(last.line), "no %q trailer: the trace has no observed cycle count", trailerPrefix+" : N")
	}
	fn.Trace = tr

	f := &isa.File{
		Fset:    p.fset,
		Name:    p.filename,
		Dialect: isa.DialectTrace,
		Funcs:   []*isa.Func{fn},
	}
	if mod != nil {
		f.Version, f.Target, f.TargetOpts, f.AddressSize = mod.file.Version, mod.file.Target, mod.file.TargetOpts, mod.file.AddressSize
	}
	p.warns.Sort()
	f.Warnings = p.warns
	return f, nil
}

// dedupe applies (or, without Options.Dedupe, reports) the duplicate-line
// rule.
func (p *parser) dedupe(recs []record) ([]record, int) {
	prev := map[int]uint64{}
	out := recs[:0:0]
	dropped := 0
	firstDup := -1
	for i, r := range recs {
		if pc, ok := prev[r.warp]; ok && pc == r.pc {
			if firstDup < 0 {
				firstDup = i
			}
			if p.opts.Dedupe {
				dropped++
				continue
			}
		}
		prev[r.warp] = r.pc
		out = append(out, r)
	}
	if firstDup >= 0 && !p.opts.Dedupe {
		n := 0
		prev = map[int]uint64{}
		for _, r := range recs {
			if pc, ok := prev[r.warp]; ok && pc == r.pc {
				n++
			}
			prev[r.warp] = r.pc
		}
		r := recs[firstDup]
		p.warns.Addf(p.lineStart(r.line), "%d line(s) repeat the previous PC of their warp (first: warp %d PC=0x%x); kept as issued instructions; if they are the duplicate-line bug of early GPGPU-Sim forks, read with deduplication (--dedupe)", n, r.warp, r.pc)
	}
	return out, dropped
}

// collect groups records by (module:line) and checks that a static
// instruction always has the same PC and text, and a PC one instruction.
func (p *parser) collect(recs []record) []*static {
	byKey := map[key]*static{}
	byPC := map[uint64]*static{}
	var statics []*static
	for i, r := range recs {
		k := key{r.module, r.mline}
		st, ok := byKey[k]
		if !ok {
			if other, dup := byPC[r.pc]; dup {
				p.errs.Addf(p.position(r.textOff-1), "PC=0x%x is (%s:%d) here but (%s:%d) at line %d",
					r.pc, r.module, r.mline, other.module, other.mline, recs[other.first].line)
				continue
			}
			st = &static{first: i, module: r.module, mline: r.mline, pc: r.pc}
			byKey[k] = st
			byPC[r.pc] = st
			statics = append(statics, st)
			continue
		}
		f := recs[st.first]
		if f.pc != r.pc {
			p.errs.Addf(p.lineStart(r.line), "(%s:%d) has PC=0x%x here but PC=0x%x at line %d", r.module, r.mline, r.pc, f.pc, f.line)
		} else if stripSpace(f.text) != stripSpace(r.text) {
			p.errs.Addf(p.position(r.textOff), "(%s:%d) reads %q here but %q at line %d", r.module, r.mline, r.text, f.text, f.line)
		}
		if len(p.errs) >= isa.MaxErrors {
			break
		}
	}
	return statics
}

// stripSpace removes all white space.
func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\r', '\n', '\v', '\f':
			return -1
		}
		return r
	}, s)
}

// kernelName picks the kernel's name (see Options.Name).
func (p *parser) kernelName(recs []record, statics []*static, mod *module) string {
	if p.opts.Name != "" {
		return p.opts.Name
	}
	if mod != nil {
		return mod.fn.Name
	}
	for _, st := range statics {
		in := st.in
		if in.Opcode != "ld" || !in.HasMod("param") {
			continue
		}
		for _, o := range in.Srcs {
			if o.Kind != isa.OpMem {
				continue
			}
			sym := strings.Trim(o.Text, "[] ")
			if i := strings.LastIndex(sym, "_param_"); i > 0 {
				if _, err := strconv.Atoi(sym[i+len("_param_"):]); err == nil {
					return sym[:i]
				}
			}
		}
	}
	base := filepath.Base(p.filename)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	name := strings.TrimRight(base, "0123456789")
	if name == "" {
		name = base
	}
	p.warns.Addf(p.lineStart(recs[0].line), "kernel name %q guessed from the file name (launch number stripped); give the name explicitly if it is wrong", name)
	return name
}

// errNotExist reports whether err means "module not available".
func errNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
