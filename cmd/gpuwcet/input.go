package main

import (
	"fmt"
	"go/token"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

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
)

// loadFile reads and parses one input file, honouring --input-format and
// --dedupe when the command defines them. Errors carry exit code
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
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, withCode(ExitBadInput, err) // *fs.PathError names the file
	}
	opts := &load.Options{Format: load.Auto}
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
