package cfgtest

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// KernelsDir is the corpus directory relative to the repository root.
const KernelsDir = "testdata/kernels"

// RepoRoot returns the repository root: the first directory at or above
// the working directory that holds go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cfgtest: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// Corpus is the team's kernel corpus: CUDA sources with their trip-count
// annotations, the manifest of kernels and launches, and the listings
// generated from them (testdata/kernels/gen.sh).
type Corpus struct {
	Dir     string    // absolute path of testdata/kernels
	Sources []*Source // src/*.cu, sorted by name
	Kernels []*Kernel // in manifest order
}

// Kernel is a kernel of the manifest.
type Kernel struct {
	Name   string   // C++ name
	Symbol string   // mangled name: PTX .entry, SASS function
	Params []string // C parameter names; parameter i is Symbol_param_i in PTX
	Source *Source
	Func   *Func // the definition in Source
	Launch []Launch
}

// PTXParam returns the PTX name of the kernel's parameter name
// ("<symbol>_param_<i>"), or "" when the kernel has no such parameter.
func (k *Kernel) PTXParam(name string) string {
	for i, p := range k.Params {
		if p == name {
			return k.Symbol + "_param_" + strconv.Itoa(i)
		}
	}
	return ""
}

// Launch is one representative launch of a kernel.
type Launch struct {
	Block, Grid [3]int64
	// Args holds the integer arguments by C parameter name, as the
	// parameter's C type reads them (-1 for an int, 4294967295 for an
	// unsigned int with all bits set).
	Args map[string]int64
	// Floats holds the floating-point arguments.
	Floats map[string]float64
}

func (l Launch) String() string {
	var args []string
	for k, v := range l.Args {
		args = append(args, fmt.Sprintf("%s=%d", k, v))
	}
	for k, v := range l.Floats {
		args = append(args, fmt.Sprintf("%s=%g", k, v))
	}
	sort.Strings(args)
	return fmt.Sprintf("block=%d,%d,%d grid=%d,%d,%d %s", l.Block[0], l.Block[1], l.Block[2],
		l.Grid[0], l.Grid[1], l.Grid[2], strings.Join(args, " "))
}

// PTXArgs returns the integer arguments of the launch by PTX parameter
// name (the names gpuwcet --arg takes).
func (l Launch) PTXArgs(k *Kernel) map[string]int64 {
	out := map[string]int64{}
	for name, v := range l.Args {
		out[k.PTXParam(name)] = v
	}
	return out
}

// Env returns the names an expression of this kernel may use, bound for
// the launch and the thread (tid, ctaid): the integer arguments,
// blockDim, gridDim, threadIdx, blockIdx.
func (l Launch) Env(tid, ctaid [3]int64) Env {
	env := Env{}
	for k, v := range l.Args {
		env[k] = v
	}
	for i, c := range []string{".x", ".y", ".z"} {
		env["blockDim"+c] = l.Block[i]
		env["gridDim"+c] = l.Grid[i]
		env["threadIdx"+c] = tid[i]
		env["blockIdx"+c] = ctaid[i]
	}
	return env
}

// MaxThreads bounds the threads Max enumerates for an expression that
// names threadIdx or blockIdx.
const MaxThreads = 1 << 22

// Max evaluates e for every thread of the launch and returns the largest
// value: the trip count of the loop, maximum over the grid. A negative
// value is an error (a trip count is at least 0).
func (l Launch) Max(e *TripExpr) (int64, error) {
	threads := l.Block[0] * l.Block[1] * l.Block[2] * l.Grid[0] * l.Grid[1] * l.Grid[2]
	if !e.UsesThread() {
		v, err := e.Eval(l.Env([3]int64{}, [3]int64{}))
		return checkTrip(e, v, err)
	}
	if threads > MaxThreads {
		return 0, fmt.Errorf("%s: %d threads to enumerate (limit %d)", e, threads, MaxThreads)
	}
	best := int64(math.MinInt64)
	env := l.Env([3]int64{}, [3]int64{})
	for bz := int64(0); bz < l.Grid[2]; bz++ {
		for by := int64(0); by < l.Grid[1]; by++ {
			for bx := int64(0); bx < l.Grid[0]; bx++ {
				env["blockIdx.x"], env["blockIdx.y"], env["blockIdx.z"] = bx, by, bz
				for tz := int64(0); tz < l.Block[2]; tz++ {
					for ty := int64(0); ty < l.Block[1]; ty++ {
						for tx := int64(0); tx < l.Block[0]; tx++ {
							env["threadIdx.x"], env["threadIdx.y"], env["threadIdx.z"] = tx, ty, tz
							v, err := e.Eval(env)
							if err != nil {
								return 0, fmt.Errorf("thread (%d,%d,%d) of block (%d,%d,%d): %v", tx, ty, tz, bx, by, bz, err)
							}
							if v < 0 {
								return checkTrip(e, v, nil)
							}
							best = max(best, v)
						}
					}
				}
			}
		}
	}
	return best, nil
}

func checkTrip(e *TripExpr, v int64, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, fmt.Errorf("%s = %d: a trip count is at least 0", e, v)
	}
	return v, nil
}

// KernelLoop is a loop that a kernel executes, with the clause that gives
// its trip count for that kernel.
type KernelLoop struct {
	Loop *Loop
	Trip *Trip
}

// Loops returns the loops the kernel executes: those of its body and those
// of device functions whose annotations name it, in source order.
func (k *Kernel) Loops() []KernelLoop {
	var out []KernelLoop
	for _, l := range k.Source.Loops {
		for _, t := range l.Trips {
			if t.For(l, k.Name) {
				out = append(out, KernelLoop{l, t})
				break
			}
		}
	}
	return out
}

// manifest is the decoded testdata/kernels/manifest.toml.
type manifest struct {
	Kernel []struct {
		Name   string
		Source string
		Symbol string
		Params []string
		Launch []struct {
			Block []int64
			Grid  []int64
			Args  map[string]any
		}
	}
}

// Load reads the corpus under root (the repository root). When the
// directory is absent the error wraps fs.ErrNotExist.
func Load(root string) (*Corpus, error) {
	dir := filepath.Join(root, KernelsDir)
	c := &Corpus{Dir: dir}
	srcs, err := filepath.Glob(filepath.Join(dir, "src", "*.cu"))
	if err != nil {
		return nil, err
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("cfgtest: no sources in %s: %w", filepath.Join(dir, "src"), fs.ErrNotExist)
	}
	sort.Strings(srcs)
	byName := map[string]*Source{}
	for _, p := range srcs {
		s, err := ParseSource(p)
		if err != nil {
			return nil, fmt.Errorf("cfgtest: %v", err)
		}
		c.Sources = append(c.Sources, s)
		byName[s.Name] = s
	}
	var m manifest
	mpath := filepath.Join(dir, "manifest.toml")
	md, err := toml.DecodeFile(mpath, &m)
	if err != nil {
		return nil, fmt.Errorf("cfgtest: %v", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("cfgtest: %s: unknown keys %v", mpath, und)
	}
	seen := map[string]bool{}
	for _, mk := range m.Kernel {
		where := fmt.Sprintf("%s: kernel %q", mpath, mk.Name)
		if seen[mk.Name] {
			return nil, fmt.Errorf("cfgtest: %s: listed twice", where)
		}
		seen[mk.Name] = true
		src := byName[mk.Source]
		if src == nil {
			return nil, fmt.Errorf("cfgtest: %s: no source %q", where, mk.Source)
		}
		k := &Kernel{Name: mk.Name, Symbol: mk.Symbol, Params: mk.Params, Source: src}
		for _, f := range src.Funcs {
			if f.Kernel && f.Name == mk.Name {
				k.Func = f
			}
		}
		if k.Func == nil {
			return nil, fmt.Errorf("cfgtest: %s: no __global__ %s in %s", where, mk.Name, mk.Source)
		}
		if len(k.Func.Params) != len(k.Params) {
			return nil, fmt.Errorf("cfgtest: %s: %d params, the source has %d", where, len(k.Params), len(k.Func.Params))
		}
		for i, p := range k.Func.Params {
			if p.Name != k.Params[i] {
				return nil, fmt.Errorf("cfgtest: %s: parameter %d is %q, the source says %q", where, i, k.Params[i], p.Name)
			}
		}
		if !strings.HasPrefix(k.Symbol, "_Z"+strconv.Itoa(len(k.Name))+k.Name) {
			return nil, fmt.Errorf("cfgtest: %s: symbol %q does not mangle %s", where, k.Symbol, k.Name)
		}
		if len(mk.Launch) == 0 {
			return nil, fmt.Errorf("cfgtest: %s: no launch", where)
		}
		for i, ml := range mk.Launch {
			l, err := decodeLaunch(k, ml.Block, ml.Grid, ml.Args)
			if err != nil {
				return nil, fmt.Errorf("cfgtest: %s: launch %d: %v", where, i+1, err)
			}
			k.Launch = append(k.Launch, l)
		}
		c.Kernels = append(c.Kernels, k)
	}
	for _, s := range c.Sources {
		for _, f := range s.Funcs {
			if f.Kernel && !seen[f.Name] {
				return nil, fmt.Errorf("cfgtest: %s:%d: kernel %s is not in the manifest", s.Name, f.Line, f.Name)
			}
		}
		for _, l := range s.Loops {
			for _, t := range l.Trips {
				for _, name := range t.Kernels {
					if !seen[name] {
						return nil, fmt.Errorf("cfgtest: %s:%d: @trip[%s]: no such kernel", s.Name, l.Line, name)
					}
				}
			}
		}
	}
	return c, nil
}

// Open loads the corpus of the repository holding the working directory,
// skipping the test when testdata/kernels is absent and failing it on any
// other error.
func Open(t testing.TB) *Corpus {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(root)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("kernel corpus not available: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Kernel returns the kernel with the given C++ name, or nil.
func (c *Corpus) Kernel(name string) *Kernel {
	for _, k := range c.Kernels {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// KernelsOf returns the kernels of a source, in manifest order.
func (c *Corpus) KernelsOf(s *Source) []*Kernel {
	var out []*Kernel
	for _, k := range c.Kernels {
		if k.Source == s {
			out = append(out, k)
		}
	}
	return out
}

// cIntRange gives the values a C integer type holds.
func cIntRange(typ string) (lo, hi int64, ok bool) {
	t := strings.TrimPrefix(typ, "const ")
	switch t {
	case "int", "signed", "signed int":
		return math.MinInt32, math.MaxInt32, true
	case "unsigned", "unsigned int":
		return 0, math.MaxUint32, true
	case "long long", "long long int", "long", "int64_t", "unsigned long long", "unsigned long", "size_t":
		return math.MinInt64, math.MaxInt64, true
	case "short":
		return math.MinInt16, math.MaxInt16, true
	case "unsigned short":
		return 0, math.MaxUint16, true
	case "char", "signed char":
		return math.MinInt8, math.MaxInt8, true
	case "unsigned char":
		return 0, math.MaxUint8, true
	}
	return 0, 0, false
}

func decodeLaunch(k *Kernel, block, grid []int64, args map[string]any) (Launch, error) {
	l := Launch{Args: map[string]int64{}, Floats: map[string]float64{}}
	for _, d := range []struct {
		name string
		in   []int64
		out  *[3]int64
	}{{"block", block, &l.Block}, {"grid", grid, &l.Grid}} {
		if len(d.in) != 3 {
			return l, fmt.Errorf("%s: want 3 dimensions, got %d", d.name, len(d.in))
		}
		for i, v := range d.in {
			if v < 1 || v > math.MaxInt32 {
				return l, fmt.Errorf("%s[%d] = %d: want 1 ... 2^31-1", d.name, i, v)
			}
			d.out[i] = v
		}
	}
	if n := l.Block[0] * l.Block[1] * l.Block[2]; n > 1024 || l.Block[2] > 64 {
		return l, fmt.Errorf("block %v: more than 1024 threads or z > 64", l.Block)
	}
	for _, p := range k.Func.Params {
		v, given := args[p.Name]
		if p.Pointer() {
			if given {
				return l, fmt.Errorf("%s is a pointer: give no value", p.Name)
			}
			continue
		}
		if !given {
			return l, fmt.Errorf("no value for %s", p.Name)
		}
		if lo, hi, ok := cIntRange(p.Type); ok {
			iv, isInt := v.(int64)
			if !isInt || iv < lo || iv > hi {
				return l, fmt.Errorf("%s = %v: want an integer in [%d, %d] (%s)", p.Name, v, lo, hi, p.Type)
			}
			l.Args[p.Name] = iv
			continue
		}
		switch strings.TrimPrefix(p.Type, "const ") {
		case "float", "double":
			switch fv := v.(type) {
			case float64:
				l.Floats[p.Name] = fv
			case int64:
				l.Floats[p.Name] = float64(fv)
			default:
				return l, fmt.Errorf("%s = %v: want a number", p.Name, v)
			}
		default:
			return l, fmt.Errorf("%s: parameter type %q is not supported by the manifest", p.Name, p.Type)
		}
	}
	for name := range args {
		found := false
		for _, p := range k.Func.Params {
			found = found || p.Name == name
		}
		if !found {
			return l, fmt.Errorf("no parameter %s", name)
		}
	}
	return l, nil
}

// Config is one build configuration of the corpus.
type Config struct {
	Compiler string // "clang" or "nvcc"
	Opt      string // "O0" ... "O3"
	Arch     string // "sm_80"
}

// String returns the directory name of the configuration,
// "clang-O2-sm_80".
func (c Config) String() string { return c.Compiler + "-" + c.Opt + "-" + c.Arch }

// Configs returns every build configuration of gen.sh, in its order:
// clang at O0 ... O3 for sm_52, sm_70, sm_80 and sm_90, then nvcc at O0
// and O3 for sm_62 and sm_87.
func Configs() []Config {
	var out []Config
	for _, o := range []string{"O0", "O1", "O2", "O3"} {
		for _, a := range []string{"sm_52", "sm_70", "sm_80", "sm_90"} {
			out = append(out, Config{"clang", o, a})
		}
	}
	for _, o := range []string{"O0", "O3"} {
		for _, a := range []string{"sm_62", "sm_87"} {
			out = append(out, Config{"nvcc", o, a})
		}
	}
	return out
}

// Listing is the output of one source in one configuration.
type Listing struct {
	Config Config
	Source *Source
	Dir    string // absolute: testdata/kernels/listings/<config>
}

func (l *Listing) String() string { return l.Config.String() + "/" + l.Stem() }

// Stem is the source name without ".cu".
func (l *Listing) Stem() string { return strings.TrimSuffix(l.Source.Name, ".cu") }

// PTXPath is the path of the PTX file.
func (l *Listing) PTXPath() string { return filepath.Join(l.Dir, l.Stem()+".ptx") }

// SASSPath is the path of the gzip-compressed cuobjdump -sass listing.
func (l *Listing) SASSPath() string { return filepath.Join(l.Dir, l.Stem()+".sass.gz") }

// LinesPath is the path of the SASS line table.
func (l *Listing) LinesPath() string { return filepath.Join(l.Dir, l.Stem()+".lines") }

// PTX reads the PTX file.
func (l *Listing) PTX() ([]byte, error) { return os.ReadFile(l.PTXPath()) }

// SASS reads and decompresses the SASS listing.
func (l *Listing) SASS() ([]byte, error) { return ReadGzip(l.SASSPath()) }

// MaxGzip bounds what ReadGzip decompresses.
const MaxGzip = 64 << 20

// ReadGzip reads a gzip-compressed file (at most MaxGzip bytes of
// content).
func ReadGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, MaxGzip+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(data) > MaxGzip {
		return nil, fmt.Errorf("%s: more than %d bytes", path, MaxGzip)
	}
	return data, nil
}

// Listings returns every listing of the corpus (each configuration of
// Configs for each source), whether or not its files exist.
func (c *Corpus) Listings() []*Listing {
	var out []*Listing
	for _, cfg := range Configs() {
		for _, s := range c.Sources {
			out = append(out, &Listing{Config: cfg, Source: s, Dir: filepath.Join(c.Dir, "listings", cfg.String())})
		}
	}
	return out
}

// Listing returns the listing of a source in a configuration.
func (c *Corpus) Listing(cfg Config, s *Source) *Listing {
	return &Listing{Config: cfg, Source: s, Dir: filepath.Join(c.Dir, "listings", cfg.String())}
}

// DOTFiles returns the nvdisasm -cfg graphs (gzip-compressed), sorted.
func (c *Corpus) DOTFiles() ([]string, error) {
	files, err := filepath.Glob(filepath.Join(c.Dir, "dot", "*", "*.dot.gz"))
	sort.Strings(files)
	return files, err
}

// LineTable maps SASS instruction offsets to lines of the listing's
// source, read from a .lines file: per function, the offsets at which the
// line changes. Line 0 stands for code of another file (a CUDA header).
type LineTable struct {
	funcs map[string][]lineEntry
}

type lineEntry struct {
	off  int64
	line int
}

// Lines reads the listing's line table.
func (l *Listing) Lines() (*LineTable, error) {
	data, err := os.ReadFile(l.LinesPath())
	if err != nil {
		return nil, err
	}
	return ParseLineTable(l.LinesPath(), data)
}

// ParseLineTable reads a line table: lines "FUNCTION\t0xOFFSET\tLINE",
// offsets increasing within a function; lines starting with '#' are
// comments.
func ParseLineTable(name string, data []byte) (*LineTable, error) {
	t := &LineTable{funcs: map[string][]lineEntry{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want 3 tab-separated fields", name, n)
		}
		off, err1 := strconv.ParseInt(strings.TrimPrefix(f[1], "0x"), 16, 64)
		line, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || line < 0 {
			return nil, fmt.Errorf("%s:%d: bad offset or line", name, n)
		}
		es := t.funcs[f[0]]
		if len(es) > 0 && es[len(es)-1].off >= off {
			return nil, fmt.Errorf("%s:%d: offsets of %s do not increase", name, n, f[0])
		}
		t.funcs[f[0]] = append(es, lineEntry{off, line})
	}
	return t, sc.Err()
}

// Line returns the source line of the instruction at offset off of
// function fn (0 when unknown or in another file).
func (t *LineTable) Line(fn string, off int64) int {
	es := t.funcs[fn]
	i := sort.Search(len(es), func(i int) bool { return es[i].off > off })
	if i == 0 {
		return 0
	}
	return es[i-1].line
}

// Lines returns the distinct source lines (not 0) of the instructions of
// function fn, in order of first appearance.
func (t *LineTable) Lines(fn string, instrs []*isa.Instr) []int {
	var out []int
	seen := map[int]bool{}
	for _, in := range instrs {
		if l := t.Line(fn, in.Offset); l > 0 && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// PTXLines returns the distinct lines of the source that the instructions'
// .loc directives name, in order of first appearance (lines of other
// files, such as CUDA headers, are left out).
func (s *Source) PTXLines(instrs []*isa.Instr) []int {
	var out []int
	seen := map[int]bool{}
	for _, in := range instrs {
		if in.Loc == nil || in.Loc.Line <= 0 || filepath.Base(in.Loc.File) != s.Name {
			continue
		}
		if !seen[in.Loc.Line] {
			seen[in.Loc.Line] = true
			out = append(out, in.Loc.Line)
		}
	}
	return out
}

// MatchLoop returns the source loop that a loop of a listing stands for,
// given the source lines of the listing loop's own instructions (those not
// in a loop nested in it; PTXLines, LineTable.Lines): among the source
// loops whose keyword line or condition line (Loop.CondLine) is one of
// lines, the outermost; among several equally deep, the one whose
// statement holds the most of lines, then the first. It returns nil when
// no such line is among lines.
//
// A loop the compiler unrolled completely has no listing loop; a listing
// loop's own lines may hold the keyword line of such an unrolled inner
// loop, which is why the outermost candidate wins.
func (s *Source) MatchLoop(lines []int) *Loop {
	set := map[int]bool{}
	for _, l := range lines {
		set[l] = true
	}
	var best *Loop
	bestIn := 0
	for _, l := range s.Loops {
		if !set[l.Line] && !set[l.CondLine()] {
			continue
		}
		in := 0
		for _, x := range lines {
			if l.Contains(x) {
				in++
			}
		}
		if best == nil || l.Depth < best.Depth || l.Depth == best.Depth && in > bestIn {
			best, bestIn = l, in
		}
	}
	return best
}

// Flags returns the gpuwcet flags that give the launch for kernel k:
// --block, --grid and one --arg per integer parameter, by PTX name, in
// parameter order (float arguments have no flag).
func (l Launch) Flags(k *Kernel) []string {
	out := []string{
		"--block", fmt.Sprintf("%dx%dx%d", l.Block[0], l.Block[1], l.Block[2]),
		"--grid", fmt.Sprintf("%dx%dx%d", l.Grid[0], l.Grid[1], l.Grid[2]),
	}
	for _, p := range k.Params {
		if v, ok := l.Args[p]; ok {
			out = append(out, "--arg", fmt.Sprintf("%s=%d", k.PTXParam(p), v))
		}
	}
	return out
}

// ResUsage is one row of resusage.tsv: cuobjdump -res-usage for one
// function of one listing.
type ResUsage struct {
	Config   Config
	Source   string // stem, "loops"
	Function string // mangled name
	// Reg is the registers per thread; Stack, Shared and Local are bytes
	// (Shared: static shared memory); Const0 and Const2 are the bytes of
	// constant banks 0 (parameters) and 2 (literals).
	Reg, Stack, Shared, Local, Const0, Const2 int
}

// ResUsage reads resusage.tsv ('#' lines are comments; then a header
// row).
func (c *Corpus) ResUsage() ([]ResUsage, error) {
	path := filepath.Join(c.Dir, "resusage.tsv")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	configs := map[string]Config{}
	for _, cfg := range Configs() {
		configs[cfg.String()] = cfg
	}
	var out []ResUsage
	header := true
	for n, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if header {
			header = false
			if len(f) < 9 || f[0] != "config" || f[3] != "REG" {
				return nil, fmt.Errorf("%s:%d: unexpected header %q", path, n+1, line)
			}
			continue
		}
		if len(f) != 12 {
			return nil, fmt.Errorf("%s:%d: want 12 fields, got %d", path, n+1, len(f))
		}
		cfg, ok := configs[f[0]]
		if !ok {
			return nil, fmt.Errorf("%s:%d: unknown configuration %q", path, n+1, f[0])
		}
		var v [6]int
		for i := range v {
			if v[i], err = strconv.Atoi(f[3+i]); err != nil || v[i] < 0 {
				return nil, fmt.Errorf("%s:%d: field %d: %q is not a count", path, n+1, 4+i, f[3+i])
			}
		}
		out = append(out, ResUsage{cfg, f[1], f[2], v[0], v[1], v[2], v[3], v[4], v[5]})
	}
	return out, nil
}

// Row names a row of a table over the corpus's listings: the build's
// compiler and optimisation level, and the listing kind ("ptx", "sass";
// "" for a table that does not split by kind).
type Row struct{ Compiler, Opt, Kind string }

// Compare orders rows by compiler, then level, then kind.
func (a Row) Compare(b Row) int {
	return cmp.Or(strings.Compare(a.Compiler, b.Compiler), strings.Compare(a.Opt, b.Opt), strings.Compare(a.Kind, b.Kind))
}

// SortedRows returns the keys of a table's rows in Compare order.
func SortedRows[V any](rows map[Row]V) []Row {
	return slices.SortedFunc(maps.Keys(rows), Row.Compare)
}
