// Package load reads an input listing or trace into the instruction model,
// choosing the front end from the content: PTX (package ptx), GPGPU-Sim PTX
// issue traces (package trace) or SASS listings (package sass).
//
// Detection looks at the lines in order and decides at the first line that
// carries a marker:
//
//	GPGPU-Sim trace  first non-blank line "File start...", "warp N :  PC=0x..." or "kernel_execution_time : N"
//	Accel-Sim trace  "-kernel name = ...", "#BEGIN_TB" (.traceg; not supported yet)
//	SASS             "Fatbin elf code:", "code for sm_NN", "Function : NAME", ".headerflags",
//	                 "/*0000*/" address comments, ".text.NAME" sections (nvdisasm),
//	                 "// --------------------- FileHeader" (CuAssembler),
//	                 "# Kernel:" or "--:-:-:-:1" control prefixes (maxas)
//	PTX              ".version", ".address_size", ".entry", ".func" (outside comments),
//	                 "Fatbin ptx code:"; ".target" when no SASS marker follows it (an
//	                 nvdisasm listing may start with ".target sm_100")
//
// Empty files, binary data and text with none of these markers are errors
// naming the file.
package load

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/gpuwcet/gpuwcet/cfg/input"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/ptx"
	"github.com/gpuwcet/gpuwcet/cfg/sass"
	"github.com/gpuwcet/gpuwcet/cfg/trace"
)

// Input formats, as accepted by --input-format.
const (
	Auto  = "auto"
	PTX   = "ptx"
	SASS  = "sass"
	Trace = "trace" // GPGPU-Sim PTX issue trace
)

// Formats lists the accepted format names.
var Formats = []string{Auto, PTX, SASS, Trace}

// Options control FileWith.
type Options struct {
	// Format is one of Formats; "" means Auto.
	Format string

	// Dedupe applies the duplicate-line rule to traces (trace.Options.Dedupe).
	Dedupe bool

	// Kernel names the traced kernel (trace.Options.Name); "" lets the
	// trace reader find it.
	Kernel string

	// ModuleDir is where a trace's PTX module is looked for; "" means the
	// directory of the trace file.
	ModuleDir string

	// MaxBytes limits the size of the module a trace names (the trace
	// itself is read by the caller); 0 means input.DefaultMaxBytes.
	MaxBytes int64
}

// File reads src (the content of filename) in the given format ("" or
// "auto" to detect it from the content).
func File(fset *token.FileSet, filename string, src []byte, format string) (*isa.File, error) {
	return FileWith(fset, filename, src, &Options{Format: format})
}

// FileWith is File with options.
func FileWith(fset *token.FileSet, filename string, src []byte, opts *Options) (*isa.File, error) {
	if opts == nil {
		opts = &Options{}
	}
	format := opts.Format
	if format == "" {
		format = Auto
	}
	if format == Auto {
		f, err := Detect(src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filename, err)
		}
		format = f
	}
	switch format {
	case PTX:
		return ptx.ParseFile(fset, filename, src, 0)
	case Trace:
		dir := opts.ModuleDir
		if dir == "" {
			dir = filepath.Dir(filename)
		}
		return trace.ParseFile(fset, filename, src, &trace.Options{
			Name:   opts.Kernel,
			Dedupe: opts.Dedupe,
			Module: ModulesIn(dir, opts.MaxBytes),
		})
	case SASS:
		return sass.ParseFile(fset, filename, src, 0)
	case Traceg:
		return nil, fmt.Errorf("%s: %w", filename, ErrTracegUnsupported)
	}
	return nil, fmt.Errorf("%s: unknown input format %q (want one of %s)", filename, format, strings.Join(Formats, ", "))
}

// Errors for recognised but unsupported inputs.
var (
	ErrTracegUnsupported = errors.New("Accel-Sim SASS traces (.traceg) are not supported yet")
)

// Traceg is the Accel-Sim SASS trace format (kernel-N.traceg). Detect
// recognises it; no front end reads it yet.
const Traceg = "traceg"

// ModulesIn returns a trace.Options.Module function that reads a module
// from dir, of at most limit bytes (input.ReadFile). The name must be a
// plain base name: a trace cannot make the loader read outside dir.
func ModulesIn(dir string, limit int64) func(name string) (string, []byte, error) {
	return func(name string) (string, []byte, error) {
		if name == "" || name != filepath.Base(name) || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
			return "", nil, fmt.Errorf("module name %q is not a plain file name: %w", name, fs.ErrNotExist)
		}
		path := filepath.Join(dir, name)
		src, err := input.ReadFile(path, limit)
		if err != nil {
			return "", nil, err
		}
		return path, src, nil
	}
}

// sniffLimit bounds how much of the input detection examines for binary
// content.
const sniffLimit = 1 << 16

// detectLimit bounds how much of the input detection reads for a format's
// markers (.version, code for sm_NN, a trace's first record, …), which
// every listing and trace has in its first lines: the lines that start in
// the first detectLimit bytes.
const detectLimit = 1 << 20

// detectLine bounds how much of one line detection examines: its markers
// start a line or follow a few words (.visible .entry); a longer line (a
// data initialiser, a hostile input) is read up to there.
const detectLine = 4096

var (
	reAddrComment = regexp.MustCompile(`/\*[0-9a-fA-F]{4,}\*/`)
	reMaxasCtrl   = regexp.MustCompile(`^[-0-9a-fA-F]{2}:[-0-9a-fA-F]:[-0-9a-fA-F]:[-yY]:[0-9a-fA-F]\s`)
	reCodeFor     = regexp.MustCompile(`^code for sm_[0-9]+`)
	reFunction    = regexp.MustCompile(`^Function\s*:\s*\S`)
	reTextSection = regexp.MustCompile(`(^|\s)\.text\.[A-Za-z_$]`)
	rePTXDir      = regexp.MustCompile(`^(\.version|\.address_size)\s`)
	reTarget      = regexp.MustCompile(`^\.target\s`)
	rePTXFunc     = regexp.MustCompile(`(^|\s)\.(entry|func)\s`)
)

// Detect returns the format of src (PTX, SASS, Trace or Traceg) from its
// content.
func Detect(src []byte) (string, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return "", errors.New("empty file")
	}
	head := src
	if len(head) > sniffLimit {
		head = head[:sniffLimit]
		// Do not cut a UTF-8 sequence in two.
		for i := 0; i < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head); i++ {
			head = head[:len(head)-1]
		}
	}
	if bytes.HasPrefix(head, []byte("\x7fELF")) {
		return "", errors.New("binary ELF file (a cubin?): disassemble it with cuobjdump -sass or nvdisasm first")
	}
	if isBinary(head) {
		return "", errors.New("binary data, not a PTX or SASS listing or a simulator trace")
	}
	if trace.LooksLikeGPGPUSim(head) { // its first line: a record or the header
		return Trace, nil
	}
	inComment := false
	target := false // a ".target" line: PTX, unless a SASS marker follows
	// One line at a time, each copied alone: detection stops at the first
	// marker and never copies or splits the whole file.
	for rest := src; len(rest) > 0 && len(src)-len(rest) < detectLimit; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(line) > detectLine {
			line = line[:detectLine] // markers are near a line's start
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		raw := string(line)
		switch {
		case strings.HasPrefix(raw, "-kernel name =") || raw == "#BEGIN_TB":
			return Traceg, nil
		case strings.HasPrefix(raw, "Fatbin elf code"),
			reCodeFor.MatchString(raw),
			reFunction.MatchString(raw),
			strings.HasPrefix(raw, ".headerflags"),
			reAddrComment.MatchString(raw),
			strings.HasPrefix(raw, "// --------------------- FileHeader"),
			strings.HasPrefix(raw, "# Kernel:"),
			reMaxasCtrl.MatchString(raw),
			reTextSection.MatchString(raw):
			return SASS, nil
		case strings.HasPrefix(raw, "Fatbin ptx code"):
			return PTX, nil
		}
		// PTX markers outside comments.
		code := stripComments(raw, &inComment)
		if rePTXDir.MatchString(code+" ") || rePTXFunc.MatchString(code+" ") {
			return PTX, nil
		}
		// ".target sm_NN" starts PTX (after .version) and some nvdisasm
		// listings alike: decide on the lines that follow.
		if reTarget.MatchString(code + " ") {
			target = true
		}
	}
	if target {
		return PTX, nil
	}
	within := ""
	if len(src) > detectLimit {
		within = fmt.Sprintf(" in its first %d bytes", detectLimit)
	}
	return "", fmt.Errorf("unknown input format: not PTX (.version/.target/.entry), a SASS listing or a GPGPU-Sim trace (\"warp N :  PC=0x...\")%s; use --input-format to force one", within)
}

// stripComments removes // and /* */ comments from one line, tracking a
// block comment that spans lines.
func stripComments(s string, in *bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if *in {
			if strings.HasPrefix(s[i:], "*/") {
				*in = false
				i++
			}
			continue
		}
		if strings.HasPrefix(s[i:], "//") {
			break
		}
		if strings.HasPrefix(s[i:], "/*") {
			*in = true
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return strings.TrimSpace(b.String())
}

// isBinary reports whether b looks like binary data: a NUL byte, invalid
// UTF-8, or more than 1 in 32 control characters other than white space.
func isBinary(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return true
	}
	ctl := 0
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' {
			ctl++
		}
	}
	return ctl*32 > len(b)
}
