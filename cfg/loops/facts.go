package loops

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/token"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/input"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// FactsVersion is the schema version of facts files this package reads.
const FactsVersion = 1

// Facts is a decoded flow-facts file (docs/facts.md).
type Facts struct {
	File    string // name used in messages
	Version int
	Listing string // the listing's name, informative
	SHA256  string // hex SHA-256 of the listing, lower case
	Kernels []*KernelFacts
}

// KernelFacts are the facts of one kernel.
type KernelFacts struct {
	Name  string
	Pos   token.Position // of its [[kernel]] header
	Loops []*LoopFact
}

// LoopFact is the bound of one loop.
type LoopFact struct {
	Key LoopKey // exactly one of Label, Line, Offset (-1 when absent) is set
	// Max is the bound: nil when Open.
	Max  *Expr
	Open bool // max = "?": to be filled in
	Why  string
	By   string
	// Persistent marks a persistent kernel's item loop (it runs until the
	// host stops it), Handshake a loop that waits for the host inside it:
	// for the per-item bound each counts 2 header executions
	// (docs/facts.md, "Persistent kernels"); neither has a max.
	Persistent, Handshake bool

	Pos    token.Position // of its [[kernel.loop]] header
	MaxPos token.Position // of the max value
}

// SHA256 returns the hex SHA-256 of a listing, as facts files record it.
func SHA256(listing []byte) string {
	s := sha256.Sum256(listing)
	return hex.EncodeToString(s[:])
}

// ChecksumError says a facts file was written for another listing.
type ChecksumError struct {
	File       string
	Want, Have string // the facts file's checksum and the listing's
}

func (e *ChecksumError) Error() string {
	if e.Have == "" {
		return fmt.Sprintf("%s: the facts file's sha256 cannot be checked: the listing's checksum is not known", e.File)
	}
	return fmt.Sprintf("%s: facts written for another listing: sha256 %s in the facts file, the listing has %s (regenerate with gpuwcet facts template and carry the bounds over)", e.File, e.Want, e.Have)
}

// LoadFacts reads and decodes a facts file (at most input.MaxTOMLBytes).
func LoadFacts(path string) (*Facts, error) {
	data, err := input.ReadFile(path, input.MaxTOMLBytes)
	if err != nil {
		return nil, fmt.Errorf("facts: %w", err)
	}
	return DecodeFacts(path, data)
}

type rawFacts struct {
	Version *int64      `toml:"version"`
	Listing string      `toml:"listing"`
	SHA256  string      `toml:"sha256"`
	Kernel  []rawKernel `toml:"kernel"`
}

type rawKernel struct {
	Name string    `toml:"name"`
	Loop []rawLoop `toml:"loop"`
}

type rawLoop struct {
	Label  *string   `toml:"label"`
	Line   *int64    `toml:"line"`
	Offset *int64    `toml:"offset"`
	Max    *maxValue `toml:"max"`
	Why    string    `toml:"why"`
	By     string    `toml:"by"`
	// Persistent and Handshake name a persistent kernel's item loop and
	// its host-wait loops (docs/facts.md, "Persistent kernels").
	Persistent *bool `toml:"persistent"`
	Handshake  *bool `toml:"handshake"`
}

type maxValue struct {
	isInt bool
	i     int64
	s     string
}

// UnmarshalTOML implements toml.Unmarshaler: max is an integer or a string.
func (m *maxValue) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		m.isInt, m.i = true, v
		return nil
	case string:
		m.s = v
		return nil
	}
	return fmt.Errorf("max must be an integer or a string (an expression, or \"?\"), got a %T", v)
}

var tomlLineRE = regexp.MustCompile(`^toml: line (\d+)(?: \(last key "[^"]*"\))?: `)

// DecodeFacts strictly decodes a facts file; name is used in messages.
// Errors are positioned (name:line:col) and joined, at most
// isa.MaxErrors of them and a last line saying how many more there are.
// A document larger or more deeply nested than input.CheckTOML allows is
// refused before decoding.
func DecodeFacts(name string, data []byte) (*Facts, error) {
	if err := input.CheckTOML(name, data); err != nil {
		return nil, err
	}
	var raw rawFacts
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d:%d: %s", name, pe.Position.Line, pe.Position.Col, pe.Message)
		}
		msg := err.Error()
		if m := tomlLineRE.FindStringSubmatch(msg); m != nil {
			return nil, fmt.Errorf("%s:%s: %s", name, m[1], msg[len(m[0]):])
		}
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(msg, "toml: "))
	}
	sc := scanFacts(data)
	at := func(k, l int, key string) token.Position {
		p := sc.pos(k, l, key)
		p.Filename = name
		return p
	}
	var errs isa.ErrorList
	if und := md.Undecoded(); len(und) > 0 {
		for _, u := range und {
			p := sc.find(u)
			p.Filename = name
			errs.Addf(p, "unknown key %q (a %s key is one of: %s)", u.String(), tableOf(u), strings.Join(schemaKeys[tableOf(u)], ", "))
		}
	}
	f := &Facts{File: name, Listing: raw.Listing}
	switch {
	case raw.Version == nil:
		errs.Addf(token.Position{Filename: name, Line: 1, Column: 1}, "missing version = %d", FactsVersion)
	case *raw.Version != FactsVersion:
		errs.Addf(at(-1, -1, "version"), "version %d is not supported (want %d)", *raw.Version, FactsVersion)
	default:
		f.Version = FactsVersion
	}
	sum := strings.ToLower(raw.SHA256)
	if len(sum) != 64 || strings.Trim(sum, "0123456789abcdef") != "" {
		p := at(-1, -1, "sha256")
		if raw.SHA256 == "" {
			p = token.Position{Filename: name, Line: 1, Column: 1}
			errs.Addf(p, "missing sha256 (the SHA-256 of the listing, as written by gpuwcet facts template)")
		} else {
			errs.Addf(p, "sha256 %q is not 64 hexadecimal digits", raw.SHA256)
		}
	}
	f.SHA256 = sum
	kernels := map[string]bool{}
	for ki, rk := range raw.Kernel {
		kf := &KernelFacts{Name: rk.Name, Pos: at(ki, -1, "")}
		if rk.Name == "" {
			errs.Addf(kf.Pos, "kernel without name")
		} else if kernels[rk.Name] {
			errs.Addf(at(ki, -1, "name"), "kernel %s appears twice", rk.Name)
		}
		kernels[rk.Name] = true
		seen := map[LoopKey]token.Position{}
		for li, rl := range rk.Loop {
			lf := &LoopFact{Key: LoopKey{Offset: -1}, Why: rl.Why, By: rl.By, Pos: at(ki, li, "")}
			n := 0
			if rl.Label != nil {
				n++
				lf.Key.Label = *rl.Label
				if *rl.Label == "" {
					errs.Addf(at(ki, li, "label"), "empty label")
				}
			}
			if rl.Line != nil {
				n++
				if *rl.Line <= 0 || *rl.Line > 1<<30 {
					errs.Addf(at(ki, li, "line"), "line %d is not a line number", *rl.Line)
				}
				lf.Key.Line = int(*rl.Line)
			}
			if rl.Offset != nil {
				n++
				if *rl.Offset < 0 {
					errs.Addf(at(ki, li, "offset"), "negative offset %d", *rl.Offset)
				}
				lf.Key.Offset = *rl.Offset
			}
			if n != 1 {
				errs.Addf(lf.Pos, "a loop is named by exactly one of label, line or offset; this one has %d", n)
			}
			if p, ok := seen[lf.Key]; ok && n == 1 {
				errs.Addf(lf.Pos, "loop %s of kernel %s already has a fact at line %d", lf.Key, rk.Name, p.Line)
			}
			seen[lf.Key] = lf.Pos
			lf.MaxPos = at(ki, li, "max")
			lf.Persistent = rl.Persistent != nil && *rl.Persistent
			lf.Handshake = rl.Handshake != nil && *rl.Handshake
			role := lf.Persistent || lf.Handshake
			switch m := rl.Max; {
			case lf.Persistent && lf.Handshake:
				errs.Addf(lf.Pos, "loop %s: persistent and handshake: a loop is the item loop or a wait inside it, not both", lf.Key)
			case role && m != nil && !(!m.isInt && strings.TrimSpace(m.s) == "?"):
				errs.Addf(lf.MaxPos, "loop %s is a persistent kernel's %s loop: it has no max (the per-item bound counts 2 of its header executions); remove max", lf.Key, map[bool]string{true: "item", false: "handshake"}[lf.Persistent])
			case role:
			case m == nil:
				errs.Addf(lf.Pos, "loop %s: missing max (an integer, an expression, or \"?\")", lf.Key)
			case m.isInt:
				if m.i < 0 {
					errs.Addf(lf.MaxPos, "negative bound %d", m.i)
				}
				lf.Max = Const(m.i)
			case strings.TrimSpace(m.s) == "?":
				lf.Open = true
			default:
				e, err := ParseExpr(m.s)
				if err != nil {
					var ee *ExprError
					p := lf.MaxPos
					msg := err.Error()
					if errors.As(err, &ee) {
						if p.Column > 0 {
							p.Column += 1 + ee.Offset // after the opening quote
						}
						msg = ee.Msg
					}
					errs.Addf(p, "max: %s", msg)
					break
				}
				lf.Max = e
			}
			kf.Loops = append(kf.Loops, lf)
		}
		f.Kernels = append(f.Kernels, kf)
	}
	if len(errs) > 0 {
		errs.Sort()
		if n := len(errs) - isa.MaxErrors; n > 0 {
			errs = append(errs[:isa.MaxErrors], &isa.Error{Pos: errs[isa.MaxErrors].Pos, Msg: fmt.Sprintf("too many errors: %d more not shown", n)})
		}
		return nil, errs
	}
	return f, nil
}

var schemaKeys = map[string][]string{
	"":            {"version", "listing", "sha256", "kernel"},
	"kernel":      {"name", "loop"},
	"kernel.loop": {"label", "line", "offset", "max", "why", "by", "persistent", "handshake"},
}

func tableOf(k toml.Key) string {
	switch {
	case len(k) >= 3 && k[0] == "kernel" && k[1] == "loop":
		return "kernel.loop"
	case len(k) >= 2 && k[0] == "kernel":
		return "kernel"
	}
	return ""
}

// Kernel returns the facts of the named kernel, or nil.
func (f *Facts) Kernel(name string) *KernelFacts {
	for _, k := range f.Kernels {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// Check verifies the facts against a whole listing: the checksum, and that
// every kernel named exists. Compute checks the loops.
func (f *Facts) Check(file *isa.File, sha string) error {
	if sha != f.SHA256 {
		return &ChecksumError{File: f.File, Want: f.SHA256, Have: sha}
	}
	var errs isa.ErrorList
	var called map[string]bool
	for _, k := range f.Kernels {
		fn := file.Func(k.Name)
		switch {
		case fn == nil || fn.Decl:
			errs.Addf(k.Pos, "no function %s in %s (it has %s)", k.Name, file.Name, funcNames(file))
		case !fn.Entry:
			if called == nil {
				called = calledFromKernels(file)
			}
			if !called[fn.Name] {
				errs.Addf(k.Pos, "device function %s is called by no kernel of %s: its facts would bound nothing", k.Name, file.Name)
			}
		}
	}
	return errs.Err()
}

// calledFromKernels returns the functions a kernel of file calls, directly
// or not.
func calledFromKernels(file *isa.File) map[string]bool {
	cg := cfg.BuildCallGraph(file)
	seen := map[string]bool{}
	var visit func(n *cfg.CallNode)
	visit = func(n *cfg.CallNode) {
		for _, e := range n.Out {
			if !seen[e.Callee.Name] {
				seen[e.Callee.Name] = true
				visit(e.Callee)
			}
		}
	}
	for _, n := range cg.Nodes {
		if n.Func != nil && n.Func.Entry {
			visit(n)
		}
	}
	return seen
}

func funcNames(file *isa.File) string {
	var ns []string
	for _, fn := range file.Funcs {
		if !fn.Decl {
			ns = append(ns, fn.Name)
		}
	}
	if len(ns) == 0 {
		return "no function"
	}
	return strings.Join(ns, ", ")
}

// apply sets the annotated bounds of g's function in r: the facts of
// each device function inlined into it (callees: their names) apply to
// every copy of its loops, then the function's own entry (its loops, and
// a copy named by its prefixed label or line: a context's fact replaces
// the device function's). A fact naming no loop is an error.
func (f *Facts) apply(r *Result, g *cfg.Graph, sha string, env Env, callees []string) ([]Problem, error) {
	if sha != f.SHA256 {
		return nil, &ChecksumError{File: f.File, Want: f.SHA256, Have: sha}
	}
	var errs isa.ErrorList
	var probs []Problem
	// One problem per fact and loop: the copies of a device function's
	// loop in several calls (one position) share it; a low fact's
	// warning names the largest derived bound of the copies.
	probAt := map[string]int{}
	probDerived := map[int]int64{}
	addProb := func(p Problem, lb *LoopBound, derived int64) {
		key := fmt.Sprintf("%s|%s|%s", p.Category, p.Pos, lb.Pos)
		if i, ok := probAt[key]; ok {
			if derived > probDerived[i] {
				probs[i], probDerived[i] = p, derived
			}
			return
		}
		probAt[key], probDerived[len(probs)] = len(probs), derived
		probs = append(probs, p)
	}
	setFact := func(lb *LoopBound, lf *LoopFact, entry string, params map[string]bool, names string) {
		if lf.Persistent || lf.Handshake {
			src, why := PersistentItem, "the persistent kernel's item loop: 2 header executions give one item between two handshakes"
			if lf.Handshake {
				src, why = Handshake, "a handshake (host-wait) loop: 2 header executions from the host's release, the poll that may miss it and the one that sees it"
			}
			if lf.Why != "" {
				why += "; " + lf.Why
			}
			lb.Bound = &Bound{Max: 2, Expr: "2", Source: src, Why: why, Pos: lf.Pos}
			return
		}
		if lf.Open {
			lb.Bound = nil
			lb.Why = whyOpen
			addProb(Problem{Pos: lf.MaxPos, Category: CategoryOpenFact,
				Message: fmt.Sprintf("%s: loop %s of %s (%s) has max = \"?\": give its bound", lf.MaxPos, lf.Key, entry, lb.Pos)}, lb, 0)
			return
		}
		for _, v := range lf.Max.Vars() {
			if !isDim(v) && !params[v] {
				errs.Addf(lf.MaxPos, "max %s: %q is neither a launch dimension nor a parameter of %s (%s)", lf.Max, v, entry, names)
				return
			}
		}
		v, err := lf.Max.Eval(env)
		if err != nil {
			errs.Addf(lf.MaxPos, "max %s: %v", lf.Max, err)
			return
		}
		if v < 0 {
			errs.Addf(lf.MaxPos, "max %s is negative (%d) at this launch configuration", lf.Max, v)
			return
		}
		why := lf.Why
		if lf.By != "" {
			why = strings.TrimSpace(why + " (by " + lf.By + ")")
		}
		lb.Bound = &Bound{Max: v, Expr: lf.Max.String(), Source: Annotated, Why: why, Pos: lf.MaxPos}
		if lb.Derived != nil && v < lb.Derived.Max {
			addProb(Problem{Pos: lf.MaxPos, Category: CategoryLowFact, Warning: true,
				Message: fmt.Sprintf("%s: the annotated bound %d of loop %s of %s is below its derived bound %d (%s): the annotation is used; check it", lf.MaxPos, v, lf.Key, entry, lb.Derived.Max, lb.Derived.Expr)}, lb, lb.Derived.Max)
		}
	}
	// once: a loop has at most one fact per entry.
	once := func(used map[*LoopBound]token.Position, lb *LoopBound, lf *LoopFact, entry string) bool {
		if p, ok := used[lb]; ok {
			errs.Addf(lf.Pos, "loop %s of %s already has a fact at line %d", lf.Key, entry, p.Line)
			return false
		}
		used[lb] = lf.Pos
		return true
	}
	// Device functions: their own keys, every copy.
	for _, name := range callees {
		kf := f.Kernel(name)
		if kf == nil {
			continue
		}
		used := map[*LoopBound]token.Position{}
		for _, lf := range kf.Loops {
			var ms []*LoopBound
			var keys []string
			seen := map[string]bool{}
			for _, lb := range r.Loops {
				if lb.Callee == nil || lb.Callee.Name != name {
					continue
				}
				if k := lb.CalleeKey.String(); !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
				if lf.Key.matches(lb.CalleeKey) {
					ms = append(ms, lb)
				}
			}
			if len(ms) == 0 {
				if len(keys) == 0 {
					keys = []string{"none"}
				}
				errs.Addf(lf.Pos, "device function %s has no loop with %s (its loops: %s)", name, lf.Key, strings.Join(keys, "; "))
				continue
			}
			for _, lb := range ms {
				if once(used, lb, lf, name) {
					setFact(lb, lf, "device function "+name, nil, "only launch dimensions: a device function's parameters differ between its calls")
				}
			}
		}
	}
	kf := f.Kernel(g.Func.Name)
	if kf == nil {
		if len(errs) > 0 {
			errs.Sort()
			return nil, errs
		}
		return probs, nil
	}
	params := map[string]bool{}
	for _, p := range g.Func.Params {
		params[p.Name] = true
	}
	used := map[*LoopBound]token.Position{}
	for _, lf := range kf.Loops {
		var ms []*LoopBound
		switch {
		case lf.Key.Label != "":
			if lb := r.ByLabel(lf.Key.Label); lb != nil {
				ms = append(ms, lb)
			}
		case lf.Key.Line > 0:
			// A line of a device function names each of its copies.
			for _, lb := range r.Loops {
				if lb.Key.Line == lf.Key.Line {
					ms = append(ms, lb)
				}
			}
		case lf.Key.Offset >= 0:
			for _, lb := range r.Loops {
				if lb.Callee == nil && lb.Key.Offset >= 0 && lb.Key.Offset == lf.Key.Offset {
					ms = append(ms, lb)
				}
			}
		}
		if len(ms) == 0 {
			errs.Addf(lf.Pos, "kernel %s has no loop with %s (its loops: %s)", kf.Name, lf.Key, loopList(r))
			continue
		}
		for _, lb := range ms {
			if once(used, lb, lf, kf.Name) {
				setFact(lb, lf, kf.Name, params, paramList(g.Func))
			}
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return probs, nil
}

// matches reports whether the fact's key k names the loop whose key is l.
func (k LoopKey) matches(l LoopKey) bool {
	switch {
	case k.Label != "":
		return k.Label == l.Label
	case k.Line > 0:
		return k.Line == l.Line
	case k.Offset >= 0:
		return l.Offset >= 0 && k.Offset == l.Offset
	}
	return false
}

func loopList(r *Result) string {
	if len(r.Loops) == 0 {
		return "none"
	}
	var ss []string
	for _, lb := range r.Loops {
		ss = append(ss, lb.Key.String())
	}
	return strings.Join(ss, "; ")
}

func paramList(fn *isa.Func) string {
	var ns []string
	for _, p := range fn.Params {
		ns = append(ns, p.Name)
	}
	ns = append(ns, "ntid.x", "nctaid.x", "...")
	return "names: " + strings.Join(ns, ", ")
}

// factScan records where tables and keys are in a facts file, so that
// messages can name lines: the TOML decoder does not expose key positions.
type factScan struct {
	tables map[[2]int]token.Position            // (kernel, loop) -> header
	keys   map[[2]int]map[string]token.Position // (kernel, loop) -> key -> value position
	all    map[string]token.Position            // key -> first position, any table
}

var (
	headerRE = regexp.MustCompile(`^\s*\[\[\s*(kernel|kernel\s*\.\s*loop)\s*\]\]`)
	tableRE  = regexp.MustCompile(`^\s*\[`)
	keyRE    = regexp.MustCompile(`^(\s*)([A-Za-z0-9_-]+|"[^"]*")\s*=\s*`)
)

func scanFacts(data []byte) *factScan {
	sc := &factScan{tables: map[[2]int]token.Position{}, keys: map[[2]int]map[string]token.Position{}, all: map[string]token.Position{}}
	k, l := -1, -1
	inMulti := ""
	for i, line := range strings.Split(string(data), "\n") {
		ln := i + 1
		if inMulti != "" {
			if strings.Count(line, inMulti)%2 == 1 {
				inMulti = ""
			}
			continue
		}
		if m := headerRE.FindStringSubmatch(line); m != nil {
			if m[1] == "kernel" {
				k, l = k+1, -1
			} else {
				l++
			}
			sc.tables[[2]int{k, l}] = token.Position{Line: ln, Column: strings.Index(line, "[") + 1}
			continue
		}
		if tableRE.MatchString(line) {
			k, l = -2, -2 // a table outside the schema: undecoded keys find it through all
			continue
		}
		if m := keyRE.FindStringSubmatch(line); m != nil {
			key := strings.Trim(m[2], `"`)
			p := token.Position{Line: ln, Column: len(m[0]) + 1}
			id := [2]int{k, l}
			if sc.keys[id] == nil {
				sc.keys[id] = map[string]token.Position{}
			}
			if _, ok := sc.keys[id][key]; !ok {
				sc.keys[id][key] = p
			}
			if _, ok := sc.all[key]; !ok {
				sc.all[key] = token.Position{Line: ln, Column: len(m[1]) + 1}
			}
			rest := line[len(m[0]):]
			for _, q := range []string{`"""`, `'''`} {
				if strings.Count(rest, q)%2 == 1 {
					inMulti = q
				}
			}
		}
	}
	return sc
}

// pos returns the position of key in table (kernel k, loop l), or of the
// table header when key is "" or not found; k = -1 is the top level.
func (sc *factScan) pos(k, l int, key string) token.Position {
	id := [2]int{k, l}
	if key != "" {
		if p, ok := sc.keys[id][key]; ok {
			return p
		}
	}
	if p, ok := sc.tables[id]; ok {
		return p
	}
	if l >= 0 {
		return sc.pos(k, -1, "")
	}
	return token.Position{Line: 1, Column: 1}
}

// find returns the first position, anywhere, of the last part of the key
// path k written at the start of a line, or else of the nearest enclosing
// part (a key inside an inline table is found at its table's key).
func (sc *factScan) find(k toml.Key) token.Position {
	for i := len(k) - 1; i >= 0; i-- {
		if p, ok := sc.all[k[i]]; ok {
			return p
		}
	}
	return token.Position{Line: 1, Column: 1}
}
