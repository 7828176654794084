package main

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/divergence"
)

// Launch configuration flags, shared by the commands that resolve
// branches per warp (cfg --warp, analyze).
var (
	blockFlag = &cli.StringFlag{
		Name:     "block",
		Usage:    "thread-block dimensions `DIMS`: X, XxY or XxYxZ (e.g. 256, 16x16x1)",
		Category: catTarget,
	}
	gridFlag = &cli.StringFlag{
		Name:     "grid",
		Usage:    "grid dimensions `DIMS`: X, XxY or XxYxZ",
		Category: catTarget,
	}
	argFlag = &cli.StringSliceFlag{
		Name:     "arg",
		Usage:    "kernel argument `NAME=VALUE` (integer; NAME as in the PTX .param list); repeatable",
		Category: catTarget,
	}
	maxWarpBlocksFlag = &cli.IntFlag{
		Name:     "max-warp-blocks",
		Usage:    "at most `N` copies of blocks that divergent branches may add to a warp-level CFG (each order of the sides of nested divergent branches is a path; time and memory grow with N)",
		Value:    divergence.DefaultMaxBlocks,
		Category: catTarget,
	}
)

// divergenceInputs sets the pass inputs of --max-warp-blocks.
func divergenceInputs(c *cli.Context, inputs map[string]any) error {
	n := c.Int(maxWarpBlocksFlag.Name)
	if n < 1 {
		return fmt.Errorf("--%s %d: want at least 1", maxWarpBlocksFlag.Name, n)
	}
	inputs[divergence.MaxBlocksInput] = n
	return nil
}

// launchFromFlags reads --block, --grid and --arg. Absent flags leave the
// corresponding fields zero (unknown).
func launchFromFlags(c *cli.Context) (pass.Launch, error) {
	var l pass.Launch
	var err error
	if s := c.String(blockFlag.Name); s != "" {
		if l.Block, err = parseLaunchDims(s); err != nil {
			return l, fmt.Errorf("--block: %v", err)
		}
		b := l.Block
		if max(b[0], b[1], b[2]) > maxBlockThreads || b[0]*b[1]*b[2] > maxBlockThreads {
			return l, fmt.Errorf("--block: %q: a thread block has at most %d threads", s, maxBlockThreads)
		}
	}
	if s := c.String(gridFlag.Name); s != "" {
		if l.Grid, err = parseLaunchDims(s); err != nil {
			return l, fmt.Errorf("--grid: %v", err)
		}
	}
	for _, a := range c.StringSlice(argFlag.Name) {
		name, val, ok := strings.Cut(a, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return l, fmt.Errorf("--arg %q: want NAME=VALUE", a)
		}
		v, err := strconv.ParseInt(strings.TrimSpace(val), 0, 64)
		if err != nil {
			return l, fmt.Errorf("--arg %q: value is not an integer", a)
		}
		if l.Args == nil {
			l.Args = map[string]int64{}
		}
		if _, dup := l.Args[name]; dup {
			return l, fmt.Errorf("--arg %q: %s given twice", a, name)
		}
		l.Args[name] = v
	}
	return l, nil
}

// checkLaunchArgs checks that every --arg of l names a parameter of one of
// the kernels funcs that the command analyses: a misspelt name would
// otherwise be accepted silently, and the parameter meant left unknown.
// The error names the argument and lists each kernel's parameters.
func checkLaunchArgs(l pass.Launch, funcs []*isa.Func) error {
	params := map[string]bool{}
	for _, fn := range funcs {
		for _, p := range fn.Params {
			params[p.Name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(l.Args)) {
		if params[name] {
			for _, fn := range funcs {
				for _, p := range fn.Params {
					if p.Name == name {
						if err := checkArgType(name, l.Args[name], fn.Name, p); err != nil {
							return err
						}
					}
				}
			}
			continue
		}
		var lists []string
		for _, fn := range funcs {
			var ns []string
			for _, p := range fn.Params {
				ns = append(ns, p.Name)
			}
			list := "none"
			if len(ns) > 0 {
				list = strings.Join(ns, ", ")
			}
			lists = append(lists, fmt.Sprintf("%s: %s", fn.Name, list))
		}
		if len(funcs) == 1 {
			_, list, _ := strings.Cut(lists[0], ": ")
			return fmt.Errorf("--arg %s=%d: %s is not a parameter of kernel %s (its parameters: %s)", name, l.Args[name], name, funcs[0].Name, list)
		}
		return fmt.Errorf("--arg %s=%d: %s is not a parameter of any kernel analysed (parameters of %s)", name, l.Args[name], name, strings.Join(lists, "; "))
	}
	return nil
}

// checkArgType checks that v fits the type of parameter p of kernel fn:
// an integer of at most the parameter's width. An unsigned or untyped
// parameter (.uN, .bN) also takes the negative values of the signed type of
// its width, since nvcc and clang declare C's int parameters .u32: -1 is
// the int -1, and -4294967296 is out of range. A float, predicate or
// aggregate parameter has no integer value.
func checkArgType(name string, v int64, fn string, p isa.Param) error {
	kind, bits := "", 0
	typ := p.Type
	if t, ok := cParamTypes[strings.TrimPrefix(typ, "const ")]; ok {
		typ = t // a SASS parameter, typed from the mangled name
	} else if strings.HasSuffix(typ, "*") {
		typ = ".u64"
	}
	for _, t := range strings.Fields(typ) { // ".align 8 .b8", ".u64 .ptr .global .align 1"
		if len(t) >= 3 && t[0] == '.' && strings.Contains("usbf", t[1:2]) {
			if n, err := strconv.Atoi(t[2:]); err == nil {
				kind, bits = t[1:2], n
				break
			}
		}
	}
	if p.Array > 0 || bits == 0 || bits > 64 || (kind != "u" && kind != "s" && kind != "b") {
		what := "type " + p.Type
		if p.Array > 0 {
			what = fmt.Sprintf("an array of %d %s", p.Array, p.Type)
		}
		return fmt.Errorf("--arg %s=%d: parameter %s of kernel %s has %s, not an integer: --arg gives integer parameters", name, v, name, fn, what)
	}
	lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
	if kind != "s" && bits < 64 {
		hi = int64(1)<<bits - 1
	}
	if v < lo || v > hi {
		return fmt.Errorf("--arg %s=%d: out of range for parameter %s of kernel %s, of type %s (%d to %d)", name, v, name, fn, p.Type, lo, hi)
	}
	return nil
}

// noKernelSelected says why no kernel of file was analysed: --kernel (re,
// nil when not given) matches none of its kernels, or it has none. It
// names the device functions --kernel matches, which are analysed only in
// the kernels that call them: a device function of a SASS listing is one
// whose code returns (cuobjdump cannot mark kernels; docs/sass.md).
func noKernelSelected(file *isa.File, re *regexp.Regexp) string {
	var kernels, dev []string
	for _, fn := range file.Funcs {
		switch {
		case fn.Decl:
		case fn.Entry:
			kernels = append(kernels, fn.Name)
		case re == nil || re.MatchString(fn.Name):
			dev = append(dev, fn.Name)
		}
	}
	msg := fmt.Sprintf("%s: no kernel selected", file.Name)
	switch {
	case len(kernels) == 0:
		msg = fmt.Sprintf("%s: no kernel in the listing", file.Name)
	case re != nil:
		msg += fmt.Sprintf(": --kernel %q matches none of its kernels (%s)", re.String(), strings.Join(kernels, ", "))
	}
	if len(dev) > 0 {
		if len(dev) > 8 {
			dev = append(dev[:8], "…")
		}
		what := "device functions"
		if len(dev) == 1 {
			what = "a device function"
		}
		msg += fmt.Sprintf("; %s: %s, analysed in the call contexts of the kernels that call them", strings.Join(dev, ", "), what)
		if file.Dialect == isa.DialectSASS {
			msg += " (a cuobjdump listing does not mark kernels: a function whose code returns with RET is taken for a device function)"
		}
	}
	return msg
}

// cParamTypes gives the PTX type of each C integer type that
// isa.MangledParams names (the parameters of a SASS listing's kernels,
// read from their mangled names), so that --arg is checked as for the PTX
// of the same build; pointers are .u64.
var cParamTypes = map[string]string{
	"bool": ".u8", "char": ".s8", "signed char": ".s8", "unsigned char": ".u8", "char8_t": ".u8",
	"short": ".s16", "unsigned short": ".u16", "int": ".s32", "unsigned int": ".u32",
	"wchar_t": ".s32", "char32_t": ".u32", "long": ".s64", "unsigned long": ".u64",
	"long long": ".s64", "unsigned long long": ".u64",
}

// maxBlockThreads is CUDA's limit on the threads of a block (every compute
// capability since 2.0); maxBlockWarps the warps of such a block.
const (
	maxBlockThreads = 1024
	maxBlockWarps   = maxBlockThreads / 32
)

// checkWarps checks a --warps value of command name: 0 (not given) or a
// warp count a thread block can have.
func checkWarps(name string, n int) error {
	if n < 0 || n > maxBlockWarps {
		return codef(ExitBadInput, "%s: --warps %d: want 1 to %d (a thread block has at most %d threads)", name, n, maxBlockWarps, maxBlockThreads)
	}
	return nil
}

// parseLaunchDims parses "X", "XxY" or "XxYxZ" with positive integers; missing
// dimensions are 1.
func parseLaunchDims(s string) ([3]int, error) {
	d := [3]int{1, 1, 1}
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "x")
	if len(parts) > 3 {
		return d, fmt.Errorf("%q: at most three dimensions (X, XxY or XxYxZ)", s)
	}
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v <= 0 {
			return d, fmt.Errorf("%q: dimension %q is not a positive integer", s, p)
		}
		d[i] = v
	}
	return d, nil
}
