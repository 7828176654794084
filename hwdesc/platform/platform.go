// Package platform describes a GPU as the kernel-level bound sees it: its
// architecture, its number of SMs and clock, and the overheads around the
// blocks (kernel launch, per-block dispatch, a persistent kernel's
// handshake), each with its provenance and whether it is a bound or only a
// measurement. A platform is data (TOML, decoded strictly like a hardware
// description); presets are built in (Names, Builtin).
//
// The schema is in docs/hwdesc.md ("Platform files").
package platform

import (
	"embed"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/input"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/hwdesc/arch"
)

// Kinds of an overhead figure (Overhead.Kind, Latency.Kind).
const (
	KindBound    = "bound"    // a proven upper bound
	KindMeasured = "measured" // the largest value observed: not a bound
	KindAssumed  = "assumed"  // a value the integrator assumes
)

// Platform is a GPU with its overheads.
type Platform struct {
	Name        string   `toml:"name"`
	Description string   `toml:"description,omitempty"`
	Arch        string   `toml:"arch"`      // compute capability, "sm_62"
	SMs         int      `toml:"sms"`       // streaming multiprocessors
	ClockMHz    float64  `toml:"clock_mhz"` // SM clock, fixed
	Source      string   `toml:"source"`    // where the SM count and clock come from
	Notes       []string `toml:"notes,omitempty"`

	// LaunchOverhead is the time from the host's launch call to the
	// kernel's first block dispatch plus from its last block's end to
	// the return of the host's synchronisation (nil: unknown).
	LaunchOverhead *Overhead `toml:"launch_overhead,omitempty"`
	// DispatchLatency bounds the time a free block slot of an SM stays
	// empty while blocks of the grid wait (nil: unknown).
	DispatchLatency *Latency `toml:"dispatch_latency,omitempty"`
	// Handshake is a persistent kernel's host round trip per work item
	// (nil: unknown).
	Handshake *Overhead `toml:"persistent_handshake,omitempty"`

	File  string         `toml:"-"` // the file it was loaded from; "" for a built-in
	Lines map[string]int `toml:"-"` // line of each key, by dotted path
}

// Overhead is a host-side time in nanoseconds.
type Overhead struct {
	MaxNS    int64  `toml:"max_ns"`
	MinNS    int64  `toml:"min_ns,omitempty"`    // a lower bound (0: none known)
	JitterNS int64  `toml:"jitter_ns,omitempty"` // informative: max − average as measured
	Kind     string `toml:"kind"`
	Source   string `toml:"source"`
}

// Latency is a device-side time in SM cycles.
type Latency struct {
	MaxCycles int64  `toml:"max_cycles"`
	Kind      string `toml:"kind"`
	Source    string `toml:"source"`
}

var schema = hwdesc.Schema{
	Keys: map[string][]string{
		"":                     {"name", "description", "arch", "sms", "clock_mhz", "source", "notes", "launch_overhead", "dispatch_latency", "persistent_handshake"},
		"launch_overhead":      {"max_ns", "min_ns", "jitter_ns", "kind", "source"},
		"persistent_handshake": {"max_ns", "min_ns", "jitter_ns", "kind", "source"},
		"dispatch_latency":     {"max_cycles", "kind", "source"},
	},
	Aliases: map[string]string{
		"sm": "sms", "sm_count": "sms", "num_sms": "sms", "smcount": "sms", "clock": "clock_mhz", "freq_mhz": "clock_mhz",
		"launch": "launch_overhead", "dispatch": "dispatch_latency", "handshake": "persistent_handshake",
		"max": "max_ns", "ns": "max_ns", "cycles": "max_cycles", "max_cycle": "max_cycles", "jitter": "jitter_ns", "min": "min_ns",
		"provenance": "source", "type": "kind",
		// A time in the other unit: dispatch latencies are in cycles, host overheads in ns.
		"max_ns": "max_cycles", "max_cycles": "max_ns",
	},
}

// Load reads (at most input.MaxTOMLBytes) and decodes a platform file.
func Load(file string) (*Platform, error) {
	data, err := input.ReadFile(file, input.MaxTOMLBytes)
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	return Decode(file, data)
}

// Decode decodes and validates a platform; name is the file name used in
// messages. Errors are positioned (file:line: ...); a document above
// input.CheckTOML's size and nesting limits is refused before decoding
// (hwdesc.DecodeStrict).
func Decode(name string, data []byte) (*Platform, error) {
	p := new(Platform)
	lines, err := hwdesc.DecodeStrict(name, data, p, schema)
	if err != nil {
		return nil, err
	}
	p.File, p.Lines = name, lines
	if err := p.validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// errorf returns an error at the line of key.
func (p *Platform) errorf(key, format string, args ...any) error {
	return &hwdesc.Error{File: p.File, Line: p.Lines[key], Msg: fmt.Sprintf(format, args...)}
}

func (p *Platform) validate() error {
	if strings.TrimSpace(p.Name) == "" {
		return p.errorf("name", "name is required")
	}
	if p.Arch == "" {
		return p.errorf("name", "arch is required (the compute capability, for example arch = \"sm_62\")")
	}
	if _, err := arch.Lookup(p.Arch); err != nil {
		return p.errorf("arch", "%v", err)
	}
	if p.SMs < 1 || p.SMs > 1<<16 {
		return p.errorf("sms", "sms is %d: want the number of SMs, 1 to 65536", p.SMs)
	}
	if !(p.ClockMHz > 0 && p.ClockMHz < 1e6) {
		return p.errorf("clock_mhz", "clock_mhz is %v: want the SM clock in MHz (> 0)", p.ClockMHz)
	}
	if strings.TrimSpace(p.Source) == "" {
		return p.errorf("name", "source is required: say where the SM count and the clock come from")
	}
	for _, o := range []struct {
		key string
		v   *Overhead
	}{{"launch_overhead", p.LaunchOverhead}, {"persistent_handshake", p.Handshake}} {
		if o.v == nil {
			continue
		}
		if o.v.MaxNS < 0 || o.v.MinNS < 0 || o.v.JitterNS < 0 || o.v.MinNS > o.v.MaxNS {
			return p.errorf(o.key, "%s: want 0 <= min_ns <= max_ns and jitter_ns >= 0, got min %d, max %d, jitter %d", o.key, o.v.MinNS, o.v.MaxNS, o.v.JitterNS)
		}
		if err := p.checkKind(o.key, o.v.Kind, o.v.Source); err != nil {
			return err
		}
	}
	if d := p.DispatchLatency; d != nil {
		if d.MaxCycles < 0 || d.MaxCycles > 1<<40 {
			return p.errorf("dispatch_latency.max_cycles", "dispatch_latency: max_cycles is %d: want 0 to 2^40", d.MaxCycles)
		}
		if err := p.checkKind("dispatch_latency", d.Kind, d.Source); err != nil {
			return err
		}
	}
	return nil
}

func (p *Platform) checkKind(table, kind, source string) error {
	switch kind {
	case KindBound, KindMeasured, KindAssumed:
	case "":
		return p.errorf(table, "%s: kind is required: %q, %q or %q", table, KindBound, KindMeasured, KindAssumed)
	default:
		return p.errorf(table+".kind", "%s: unknown kind %q: want %q, %q or %q", table, kind, KindBound, KindMeasured, KindAssumed)
	}
	if strings.TrimSpace(source) == "" {
		return p.errorf(table, "%s: source is required: say where the figure comes from", table)
	}
	return nil
}

// ArchLimits returns the architecture's limits.
func (p *Platform) ArchLimits() (*arch.Arch, error) { return arch.Lookup(p.Arch) }

//go:embed builtin/*.toml
var builtinFS embed.FS

// Names returns the built-in platforms, sorted.
func Names() []string {
	ents, _ := builtinFS.ReadDir("builtin")
	var ns []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".toml"); ok {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns
}

// Builtin returns the built-in platform of that name.
func Builtin(name string) (*Platform, error) {
	if !slices.Contains(Names(), name) {
		return nil, fmt.Errorf("unknown built-in platform %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	file := path.Join("builtin", name+".toml")
	data, err := builtinFS.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p, err := Decode("hwdesc/platform/"+file, data)
	if err != nil {
		return nil, fmt.Errorf("built-in platform %q is broken: %w", name, err)
	}
	if p.Name != name {
		return nil, fmt.Errorf("built-in platform file %s names itself %q", file, p.Name)
	}
	p.File = ""
	return p, nil
}

// Resolve returns the built-in platform named nameOrPath, or else loads the
// file at that path (an argument with a path separator or ending in
// ".toml" is always a path): the meaning of --platform.
func Resolve(nameOrPath string) (*Platform, error) {
	if nameOrPath == "" {
		return nil, fmt.Errorf("no platform given (a built-in name: %s; or a TOML file)", strings.Join(Names(), ", "))
	}
	if !strings.ContainsAny(nameOrPath, `/\`) && !strings.HasSuffix(nameOrPath, ".toml") {
		if slices.Contains(Names(), nameOrPath) {
			return Builtin(nameOrPath)
		}
		if _, err := os.Stat(nameOrPath); err != nil {
			return nil, fmt.Errorf("unknown platform %q: not a built-in (%s) and no such file", nameOrPath, strings.Join(Names(), ", "))
		}
	}
	return Load(nameOrPath)
}
