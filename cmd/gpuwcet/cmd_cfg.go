package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgdot"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/divergence"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

func cfgCommand() *cli.Command {
	return &cli.Command{
		Name:      "cfg",
		Usage:     "print the control-flow graph of each kernel as text, DOT or JSON",
		ArgsUsage: "FILE...",
		Description: `Builds the control-flow graph of every kernel of each FILE (PTX, SASS or a
trace; the format is detected from the content unless --input-format says otherwise),
with dominators, post-dominators, natural loops and irreducible regions.
Device functions are included with --all-funcs; declarations never are.

--format text prints the stable text form (see package cfg's Format),
--format dot a Graphviz drawing (one digraph per function: loops as
clusters, back edges blue; render with dot -Tsvg), --format json the form
documented in docs/cfg-json.md. Without --out everything goes to standard
output; with --out DIR each function is written to DIR/<name>.<txt|dot|json>,
with the name reduced to letters, digits, '_', '-' and '.' (prefixed with
the input's base name when several files are given; a name already written,
ignoring case, gets the suffix _2, _3, ...). dot -Tsvg draws only the first
graph of its input: with several graphs on standard output a note on standard
error says so and how to draw them all (--out DIR, --kernel, dot -Tsvg -O
FILE for one image per graph, gvpack -u FILE | dot -Tsvg for one image).

Unresolved indirect branches, irreducible loops and functions that never
exit are reported as warnings on standard error; the exit code stays 0.

--warp prints instead the warp-level CFG of each class of warps with the
same branch outcomes (docs/divergence.md): text adds a divergence section
(per branch: line, uniform or possibly divergent, reason, reconvergence,
outcome per class); dot highlights divergent branches and reconvergence
points; json has one function per class, named FUNC#cK. --block, --grid
and --arg give the launch configuration used to resolve branches per warp.

--bound (with --format dot, --hw and the launch configuration; --facts for
annotated loop bounds) draws the worst case of the static bound of gpuwcet
analyze on the graph (docs/report.md, "CFG with the worst case"): each
block on the worst path shows its load cycles on it and the times it is
counted, is filled by its share (darkest: the largest) and drawn thick, as
are the edges between such blocks; loops show their bound and its source
(derived, annotated, release); divergent branches say where they
reconverge; block-wide barriers are red (and, as without --bound, never
collapsed into "… N more"). The graph drawn is the thread-level graph with
device calls inlined; with --warp, the warp-level graph of each class with
that class's part of the worst case. A kernel that cannot be bounded is an
error (exit code 2 when not bounded, 1 for bad input), as in analyze.`,
		Flags: []cli.Flag{
			inputFormatFlag, maxInputFlag,
			&cli.StringFlag{Name: "kernel", Usage: "only functions whose name matches `REGEXP`", Category: catInput},
			&cli.BoolFlag{Name: "all-funcs", Usage: "include device functions (.func), not only kernels", Category: catInput},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output `FORMAT`: text, dot or json", Category: catOutput},
			&cli.StringFlag{Name: "out", Usage: "write one file per function into `DIR` instead of standard output", Category: catOutput},
			&cli.IntFlag{Name: "max-instrs", Value: 12, Usage: "dot: at most `N` instructions shown per block before collapsing (negative: no instructions)", Category: catOutput},
			&cli.BoolFlag{Name: "instrs", Usage: "json: include every instruction", Category: catOutput},
			&cli.BoolFlag{Name: "check", Usage: "verify the graph invariants (slow on large kernels)", Category: catDebug},
			&cli.BoolFlag{Name: warpFlagName, Usage: "print the warp-level CFG of each warp class (divergence pass; see docs/divergence.md)", Category: catOutput},
			blockFlag, maxWarpBlocksFlag,
			gridFlag,
			argFlag,
			&cli.BoolFlag{Name: "bound", Usage: "dot: draw the worst case of the static bound (needs --hw and the launch configuration)", Category: catOutput},
			&cli.StringFlag{Name: "hw", Usage: "with --bound: hardware description, a built-in `NAME` (gpuwcet hw list) or a TOML FILE", Category: catTarget},
			&cli.StringFlag{Name: "facts", Usage: "with --bound: flow-facts `FILE` (loop bounds; docs/facts.md)", Category: catInput},
			strictFlag,
		},
		Action: cfgAction,
	}
}

func cfgAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return codef(ExitBadInput, "cfg: no input file")
	}
	format := c.String("format")
	ext := map[string]string{"text": "txt", "dot": "dot", "json": "json"}[format]
	if ext == "" {
		return codef(ExitBadInput, "cfg: unknown --format %q (want text, dot or json)", format)
	}
	opts := pass.Options{AllFuncs: c.Bool("all-funcs"), Check: c.Bool("check")}
	warp := c.Bool(warpFlagName)
	bound := c.Bool("bound")
	roots := []*pass.Analyzer{cfg.Analyzer}
	if !warp && !bound {
		for _, f := range []string{blockFlag.Name, gridFlag.Name, argFlag.Name, maxWarpBlocksFlag.Name} {
			if c.IsSet(f) {
				return codef(ExitBadInput, "cfg: --%s needs --warp or --bound (the launch configuration resolves branches per warp)", f)
			}
		}
	}
	if !bound {
		for _, f := range []string{"hw", "facts", strictFlag.Name} {
			if c.IsSet(f) {
				return codef(ExitBadInput, "cfg: --%s needs --bound", f)
			}
		}
	}
	var hw *hwdesc.Desc
	if bound {
		if format != "dot" {
			return codef(ExitBadInput, "cfg: --bound draws on the DOT graph: give --format dot")
		}
		if !c.IsSet("hw") {
			return codef(ExitBadInput, "cfg: --bound needs a hardware description: give --hw NAME (gpuwcet hw list) or --hw FILE")
		}
		if c.Bool("all-funcs") {
			return codef(ExitBadInput, "cfg: --bound bounds kernels: drop --all-funcs")
		}
		var err error
		if hw, err = hwdesc.Resolve(c.String("hw")); err != nil {
			return withCode(ExitBadInput, fmt.Errorf("cfg: --hw: %w", err))
		}
		roots = []*pass.Analyzer{static.Analyzer}
	}
	if warp || bound {
		l, err := launchFromFlags(c)
		if err != nil {
			return codef(ExitBadInput, "cfg: %v", err)
		}
		opts.Launch = l
		opts.Inputs = map[string]any{}
		if err := divergenceInputs(c, opts.Inputs); err != nil {
			return codef(ExitBadInput, "cfg: %v", err)
		}
		if !bound {
			roots = []*pass.Analyzer{divergence.Analyzer}
		}
	}
	if k := c.String("kernel"); k != "" {
		re, err := regexp.Compile(k)
		if err != nil {
			return codef(ExitBadInput, "cfg: --kernel: %v", err)
		}
		opts.Funcs = re
	}
	outDir := c.String("out")
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return withCode(ExitBadInput, err)
		}
	}
	used := map[string]bool{} // file names written, in lower case
	stdoutGraphs := 0         // DOT graphs written to standard output
	multiFiles := 0           // DOT files holding several graphs (warp classes)
	selected := 0
	var stdout bytes.Buffer
	var jsonFuncs []*cfg.JSON
	var files []*isa.File
	var shas []string
	var kernels []*isa.Func // the kernels --arg may name
	for _, path := range c.Args().Slice() {
		file, sha, err := loadFileSHA(c, path)
		if err != nil {
			return err
		}
		files = append(files, file)
		shas = append(shas, sha)
		if fs, err := selectFuncs(file, c.String("kernel")); err == nil {
			kernels = append(kernels, fs...)
		}
	}
	if warp || bound {
		if err := checkLaunchArgs(opts.Launch, kernels); err != nil {
			return codef(ExitBadInput, "cfg: %v", err)
		}
	}
	for i, file := range files {
		path := c.Args().Get(i)
		if bound {
			var err error
			if opts, _, err = analysisOptions(c, hw, opts.Launch, shas[i]); err != nil {
				return withCode(ExitBadInput, fmt.Errorf("cfg: %w", err))
			}
		}
		res, err := pass.Run(roots, file, opts)
		if err != nil {
			return codef(ExitBadInput, "cfg: %v", err)
		}
		for _, d := range res.Diagnostics() {
			fmt.Fprint(c.App.ErrWriter, diagLine(file.Fset, d))
		}
		if err := res.Err(); err != nil {
			if bound && static.Unbounded(err) {
				return withCode(ExitUnbounded, err)
			}
			return withCode(ExitBadInput, err)
		}
		selected += len(res.Funcs)
		for _, fn := range res.Funcs {
			var buf bytes.Buffer
			graphs := 1 // DOT graphs in buf
			if bound {
				rep := res.Get(static.Analyzer, fn).Result.(*static.Report)
				writeBoundDOT(&buf, rep, warp, c.Int("max-instrs"))
				if warp {
					graphs = len(rep.Info.Classes)
				}
			} else if warp {
				info := res.Get(divergence.Analyzer, fn).Result.(*divergence.Info)
				if err := writeWarp(&buf, format, info, c.Int("max-instrs"), c.Bool("instrs"), &jsonFuncs); err != nil {
					return withCode(ExitBadInput, err)
				}
				if format == "json" && outDir == "" {
					continue
				}
				if format == "json" {
					n := len(info.Classes)
					err = writeCFGJSON(&buf, jsonFuncs[len(jsonFuncs)-n:])
					jsonFuncs = jsonFuncs[:len(jsonFuncs)-n]
				}
			}
			var g *cfg.Graph
			if !bound {
				g = res.Get(cfg.Analyzer, fn).Result.(*cfg.Graph)
			}
			switch {
			case warp, bound:
			case format == "text":
				err = cfg.Format(&buf, g)
			case format == "dot":
				err = cfgdot.Write(&buf, g, cfgdot.Options{MaxInstrs: c.Int("max-instrs")})
			case format == "json":
				j := cfg.NewJSON(g, c.Bool("instrs"))
				if outDir == "" {
					jsonFuncs = append(jsonFuncs, j)
					continue
				}
				err = writeCFGJSON(&buf, []*cfg.JSON{j})
			}
			if err != nil {
				return withCode(ExitBadInput, err)
			}
			if warp && !bound {
				graphs = len(res.Get(divergence.Analyzer, fn).Result.(*divergence.Info).Classes)
			}
			if outDir == "" {
				if stdout.Len() > 0 {
					stdout.WriteByte('\n')
				}
				stdout.Write(buf.Bytes())
				stdoutGraphs += graphs
				continue
			}
			if format == "dot" && graphs > 1 {
				multiFiles++
			}
			name := fileName(fn.Name)
			if c.NArg() > 1 {
				base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
				name = fileName(base) + "__" + name
			}
			// A name already written (ignoring case, for file systems
			// that do) gets the first free suffix _2, _3, ...
			for n, base := 2, name; used[strings.ToLower(name)]; n++ {
				name = fmt.Sprintf("%s_%d", base, n)
			}
			used[strings.ToLower(name)] = true
			out := filepath.Join(outDir, name+"."+ext)
			if err := checkOutputs([]outputPath{{"out", out}}, c.Args().Slice()); err != nil {
				return err
			}
			if err := writeFile(out, buf.Bytes()); err != nil {
				return withCode(ExitBadInput, err)
			}
		}
	}
	if selected == 0 {
		what := "kernel"
		if opts.AllFuncs {
			what = "function"
		}
		return codef(ExitBadInput, "cfg: no %s selected (device functions need --all-funcs)", what)
	}
	if format == "json" && outDir == "" {
		if err := writeCFGJSON(&stdout, jsonFuncs); err != nil {
			return withCode(ExitBadInput, err)
		}
	}
	if format == "dot" {
		// Graphviz draws only the first graph of a file in one image
		// (issue 9, item 18): say so, and how to draw them all.
		what, unit := "kernel", "kernel"
		if opts.AllFuncs {
			what, unit = "function", "function"
		}
		if warp {
			what = "warp class"
		}
		switch {
		case outDir == "" && stdoutGraphs > 1:
			fmt.Fprintf(c.App.ErrWriter, "gpuwcet: cfg: note: %d graphs on standard output, one per %s; dot -Tpng or -Tsvg draws only the first: write one file per %s with --out DIR, select one with --kernel, or draw them all with dot -Tsvg -O FILE (one image per graph) or gvpack -u FILE | dot -Tsvg (one image)\n",
				stdoutGraphs, what, unit)
		case multiFiles > 0:
			fmt.Fprintf(c.App.ErrWriter, "gpuwcet: cfg: note: %d file(s) in %s hold one graph per warp class; dot -Tpng or -Tsvg draws only the first: draw them all with dot -Tsvg -O FILE (one image per graph) or gvpack -u FILE | dot -Tsvg (one image)\n",
				multiFiles, outDir)
		}
	}
	_, err := c.App.Writer.Write(stdout.Bytes())
	return err
}

// cfgJSONDoc is the top-level JSON document (docs/cfg-json.md).
type cfgJSONDoc struct {
	Tool    string      `json:"tool"`
	Version string      `json:"version"`
	Format  string      `json:"format"`
	Funcs   []*cfg.JSON `json:"funcs"`
}

func writeCFGJSON(w io.Writer, funcs []*cfg.JSON) error {
	if funcs == nil {
		funcs = []*cfg.JSON{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(cfgJSONDoc{Tool: "gpuwcet", Version: version, Format: "gpuwcet-cfg/1", Funcs: funcs})
}

// fileName reduces a function name to a safe file name: letters, digits,
// '_', '-' and '.' (not leading); names over 100 bytes are cut and get a
// hash suffix so that they stay distinct.
func fileName(s string) string {
	var sb strings.Builder
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			sb.WriteRune(r)
		case r == '.' && i > 0:
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	out := sb.String()
	if out == "" {
		out = "_"
	}
	if len(out) > 100 {
		h := fnv.New32a()
		h.Write([]byte(s))
		out = fmt.Sprintf("%s_%08x", out[:90], h.Sum32())
	}
	return out
}
