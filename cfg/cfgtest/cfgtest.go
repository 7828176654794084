// Package cfgtest builds synthetic isa values for tests of control-flow
// passes, from a tiny assembly language, so that tests can create graph
// shapes a compiler never emits.
//
// The language is line-based; "//" starts a comment:
//
//	.entry NAME          start a kernel (.func NAME: a device function;
//	.extern NAME         a declaration without body)
//	LABEL:               label the next instruction (or the end of the body);
//	                     an instruction may follow on the same line
//	.targets NAME A B    a .branchtargets/.calltargets list
//	[@P|@!P] OP ARGS     an instruction, optionally guarded
//
// Opcodes: bra L (bra.uni L) is a direct branch; brx L... an indirect branch
// (with no operand: unknown targets); ret; exit; trap; call F; icall F...
// an indirect call; bar (bar.sync); ssy, sync, pbk, brk, bssy, bsync,
// reconverge are reconvergence instructions; nop; ld and st are memory
// operations; anything else is an ordinary instruction. Lines before the
// first .entry or .func belong to an implicit kernel named "f".
//
// # Kernel corpus
//
// The package also loads the team's own kernel corpus, testdata/kernels at
// the repository root (its README.md is the reference): CUDA sources
// (src/*.cu) whose every loop carries its true trip count, a manifest of
// kernels and representative launches (manifest.toml), and the PTX and
// SASS that clang and nvcc make of them in twenty configurations
// (listings/<compiler>-<opt>-<arch>/, written by gen.sh).
//
// Load (or Open in a test, which skips when the corpus is absent) returns
// a Corpus: Sources with their functions and loops, Kernels with their
// launches, and Listings with the paths of each PTX file, SASS listing
// (gzip-compressed; Listing.SASS decompresses) and SASS line table.
//
// A loop's annotation is a comment on the line of its keyword:
//
//	for (int t = 0; t < n / 16; ++t) { // @trip launch-only max(0, n / 16)
//	do { // @trip launch-only max(1, ceildiv(n, 4))
//	while (node >= 0) { // @trip data
//	for (int k = 0; k < n; ++k) { // @trip[kern_a] launch-only n @trip[kern_b] launch-only 2 * m
//
// The trip count is the number of times the loop body starts executing per
// entry into the loop statement, maximum over every entry and every
// thread of the grid. launch-only: it is a function of blockDim, gridDim,
// threadIdx, blockIdx and the kernel's integer arguments, given by the
// expression; data: it also depends on memory (or time), and "data max
// EXPR" bounds it for every memory content. A loop in a device function
// has one [KERNEL] clause per kernel that runs it, in that kernel's
// parameters.
//
// Expressions (TripExpr) are C expressions over 64-bit signed integers:
// integer literals, parameter names, threadIdx.x ... gridDim.z and
// warpSize; unary - ! ~; * / % + - << >> < <= > >= == != & ^ | && || and
// ?: with C precedence; / and % truncate toward zero (C99), >> is
// arithmetic; min, max, abs, ceildiv(a, b) (the ceiling of a/b), log2 and
// clog2 (floor and ceiling of the base-2 logarithm, argument >= 1), u32
// and s32 (wrap to 32 bits as unsigned or signed). Overflow, division by
// zero and an unknown name are errors, never a value. Launch.Max
// evaluates an expression for every thread of a launch and returns the
// largest value, the loop's trip count for that launch.
//
// Launch.Flags gives the gpuwcet --block, --grid and --arg flags of a
// launch; Corpus.ResUsage reads the registers per thread, stack and shared
// memory of every function of every listing (resusage.tsv).
//
// To relate a loop of a listing to the source, take the lines of the
// loop's own instructions (not those of loops nested in it): from the
// PTX .loc directives (Source.PTXLines) or the SASS line table
// (Listing.Lines, LineTable.Lines); Source.MatchLoop picks the source
// loop. The graph-level part (which instructions a loop owns) belongs to
// package cfg; its corpus test (cfg/kernels_test.go) shows the use. A
// listing loop runs its header at most trip + 1 times per entry (trip for
// a rotated loop); an unrolled main loop or a remainder loop that maps to
// the same source loop runs it fewer times:
//
//	c := cfgtest.Open(t)
//	for _, k := range c.Kernels {
//		for _, kl := range k.Loops() {
//			for _, l := range k.Launch {
//				trips, err := l.Max(kl.Trip.Expr) // kl.Trip.Class == cfgtest.LaunchOnly
//				...
//			}
//		}
//	}
package cfgtest

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// Parse parses src into a file whose positions resolve to lines of src
// (file name "test.s").
func Parse(src string) (*isa.File, error) {
	fset := token.NewFileSet()
	tf := fset.AddFile("test.s", -1, len(src))
	tf.SetLinesForContent([]byte(src))
	file := &isa.File{Fset: fset, Name: "test.s", Dialect: isa.DialectPTX}
	var fn *isa.Func
	var errs isa.ErrorList
	var pending []string
	start := func(name string, entry, decl bool, pos token.Pos) {
		if fn != nil {
			for _, l := range pending {
				fn.Labels[l] = len(fn.Instrs)
			}
		}
		pending = nil
		fn = &isa.Func{Name: name, Entry: entry, Decl: decl, Pos: pos,
			Labels: map[string]int{}, BranchTargets: map[string][]string{}}
		file.Funcs = append(file.Funcs, fn)
	}
	off := 0
	for _, line := range strings.SplitAfter(src, "\n") {
		lineOff := off
		off += len(line)
		text := line
		if i := strings.Index(text, "//"); i >= 0 {
			text = text[:i]
		}
		lead := len(text) - len(strings.TrimLeft(text, " \t"))
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		pos := tf.Pos(lineOff + lead)
		fields := strings.Fields(text)
		errorf := func(format string, args ...any) {
			errs.Add(fset.Position(pos), fmt.Sprintf(format, args...))
		}
		switch fields[0] {
		case ".entry", ".func", ".extern":
			if len(fields) != 2 {
				errorf("%s needs a name", fields[0])
				continue
			}
			start(fields[1], fields[0] == ".entry", fields[0] == ".extern", pos)
			continue
		}
		if fn == nil {
			start("f", true, false, pos)
		}
		if fields[0] == ".targets" {
			if len(fields) < 2 {
				errorf(".targets needs a name")
				continue
			}
			fn.BranchTargets[fields[1]] = fields[2:]
			continue
		}
		if strings.HasSuffix(fields[0], ":") {
			l := strings.TrimSuffix(fields[0], ":")
			if _, dup := fn.Labels[l]; dup {
				errorf("label %s redefined", l)
			}
			fn.Labels[l] = -1 // placeholder until the next instruction
			pending = append(pending, l)
			text = strings.TrimSpace(strings.TrimPrefix(text, fields[0]))
			fields = fields[1:]
			if len(fields) == 0 {
				continue
			}
		}
		in := &isa.Instr{Pos: pos, Index: len(fn.Instrs), Text: text, Offset: -1}
		if strings.HasPrefix(fields[0], "@") {
			g := strings.TrimPrefix(fields[0], "@")
			if strings.HasPrefix(g, "!") {
				in.Guard.Neg = true
				g = g[1:]
			}
			in.Guard.Reg = g
			fields = fields[1:]
			if len(fields) == 0 {
				errorf("guard without instruction")
				continue
			}
		}
		op, args := fields[0], fields[1:]
		parts := strings.Split(op, ".")
		in.Opcode, in.Mods = parts[0], parts[1:]
		in.Uni = in.HasMod("uni")
		switch in.Opcode {
		case "bra":
			in.Kind = isa.KindBranch
			in.Targets = args
		case "brx":
			in.Kind = isa.KindIndirectBranch
			in.Targets = args
		case "ret":
			in.Kind = isa.KindReturn
		case "exit", "trap":
			in.Kind = isa.KindExit
		case "call":
			in.Kind = isa.KindCall
			in.Targets = args
		case "icall":
			in.Kind = isa.KindIndirectCall
			in.Targets = args
		case "bar":
			in.Kind, in.Barrier = isa.KindBarrier, isa.BarSync
		case "ssy", "sync", "pbk", "brk", "bssy", "bsync", "reconverge":
			in.Kind = isa.KindReconverge
		case "nop":
			in.Kind = isa.KindNop
		case "ld":
			in.Kind, in.Space = isa.KindLoad, isa.SpaceGlobal
		case "st":
			in.Kind, in.Space = isa.KindStore, isa.SpaceGlobal
		default:
			in.Kind = isa.KindOther
		}
		for _, l := range pending {
			fn.Labels[l] = in.Index
		}
		pending = nil
		fn.Instrs = append(fn.Instrs, in)
	}
	if fn != nil {
		for _, l := range pending {
			fn.Labels[l] = len(fn.Instrs)
		}
	}
	return file, errs.Err()
}

// TB is the part of testing.TB that Must uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Must parses src and returns its file set and first function; it fails
// the test on error.
func Must(t TB, src string) (*token.FileSet, *isa.Func) {
	t.Helper()
	f, err := Parse(src)
	if err != nil {
		t.Fatalf("cfgtest: %v", err)
	}
	if len(f.Funcs) == 0 {
		t.Fatalf("cfgtest: no function")
	}
	return f.Fset, f.Funcs[0]
}
