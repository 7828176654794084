package main

import (
	"errors"
	"fmt"
	"go/token"
	"math"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/cfg/input"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
)

// Input flags shared by the commands that read listings or traces; a
// command includes the ones it honours in its Flags.
var (
	inputFormatFlag = &cli.StringFlag{
		Name:     "input-format",
		Usage:    "input `FORMAT`: " + strings.Join(load.Formats, ", ") + " (auto: detect from the content)",
		Value:    load.Auto,
		Category: catInput,
	}
	dedupeFlag = &cli.BoolFlag{
		Name:     "dedupe",
		Usage:    "traces: drop a line whose PC equals the previous PC of the same warp (duplicate-line bug of early GPGPU-Sim forks) and report the count",
		Category: catInput,
	}
	maxInputFlag = &cli.StringFlag{
		Name:     "max-input-size",
		Usage:    "refuse a listing, trace or configuration file larger than `SIZE` (bytes, or with a suffix KiB, MiB or GiB) before reading it; analysis takes about 35 bytes of memory per byte of dense PTX",
		Value:    "64MiB",
		Category: catInput,
	}
)

// maxInputSize returns the --max-input-size limit in bytes
// (input.DefaultMaxBytes when the command does not define the flag).
func maxInputSize(c *cli.Context) (int64, error) {
	if c == nil {
		return input.DefaultMaxBytes, nil
	}
	s := c.String(maxInputFlag.Name)
	if s == "" {
		return input.DefaultMaxBytes, nil
	}
	n, err := parseSize(s)
	if err != nil {
		return 0, codef(ExitBadInput, "--%s %q: %v", maxInputFlag.Name, s, err)
	}
	return n, nil
}

var sizeUnits = map[string]int64{"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30}

// parseSize reads a positive byte count, optionally followed by B, KiB,
// MiB or GiB (K, M, G and KB, MB, GB read the same, as powers of 1024).
func parseSize(s string) (int64, error) {
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.TrimSpace(s[len(num):])
	mult, ok := sizeUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (want B, KiB, MiB or GiB)", unit)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("want a positive number of bytes, optionally with a unit (64MiB)")
	}
	return n * mult, nil
}

// readInput reads a file given on the command line under --max-input-size.
// Errors carry exit code ExitBadInput and name the file; a file above the
// limit says how to raise it.
func readInput(c *cli.Context, path string) ([]byte, error) {
	limit, err := maxInputSize(c)
	if err != nil {
		return nil, err
	}
	src, err := input.ReadFile(path, limit)
	var tl *input.TooLargeError
	if errors.As(err, &tl) {
		return nil, codef(ExitBadInput, "%v (raise it with --%s)", err, maxInputFlag.Name)
	}
	if err != nil {
		return nil, withCode(ExitBadInput, err) // *fs.PathError names the file
	}
	return src, nil
}

// loadFile reads and parses one input file, honouring --input-format,
// --dedupe and --max-input-size when the command defines them. Errors carry exit code
// ExitBadInput and name the file.
func loadFile(c *cli.Context, path string) (*isa.File, error) {
	f, _, err := loadFileSrc(c, path)
	return f, err
}

// loadFileSHA is loadFile that also returns the SHA-256 of the bytes it
// parsed (loops.SHA256), the listing checksum of facts and reports.
func loadFileSHA(c *cli.Context, path string) (*isa.File, string, error) {
	f, src, err := loadFileSrc(c, path)
	if err != nil {
		return nil, "", err
	}
	return f, loops.SHA256(src), nil
}

// loadFileSrc is loadFile that also returns the bytes it parsed.
func loadFileSrc(c *cli.Context, path string) (*isa.File, []byte, error) {
	src, err := readInput(c, path)
	if err != nil {
		return nil, nil, err
	}
	opts := &load.Options{Format: load.Auto}
	// Checked by readInput: the trace's module is read under the same limit.
	opts.MaxBytes, _ = maxInputSize(c)
	if c != nil {
		// A flag the command does not define reads as its zero value:
		// "" (auto) and false.
		if f := c.String(inputFormatFlag.Name); f != "" {
			opts.Format = f
		}
		opts.Dedupe = c.Bool(dedupeFlag.Name)
	}
	f, err := load.FileWith(token.NewFileSet(), path, src, opts)
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, nil, withCode(ExitBadInput, err)
	}
	return f, src, nil
}
