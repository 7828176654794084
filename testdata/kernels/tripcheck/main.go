// Command tripcheck checks the trip-count annotations of the kernel corpus
// without gpuwcet's analysis: it compiles every corpus source for the host
// with g++ (shim.h stands in for CUDA), with a counter at the start of
// every loop body, runs every launch of the manifest one thread after
// another, and compares, per kernel, launch and loop, the largest number
// of body executions per entry into the loop (over all threads) with the
// annotation's claim. It writes the table to testdata/kernels/tripcheck.tsv
// and exits 1 on any difference.
//
// Usage, from the repository root:
//
//	go run ./testdata/kernels/tripcheck [-cxx g++] [-budget N] [-o FILE]
//
// What the host run establishes: the loop headers, bounds and exits are
// the kernel's own C++ code, compiled by another compiler, with the
// launch's values for blockDim, gridDim, threadIdx, blockIdx and the
// arguments; memory starts zeroed and threads run one after another, so
// data values differ from a GPU run. For a launch-only loop that does not
// matter (its trip count depends on no data); data loops are reported but
// not judged, except that a "data max" bound must hold. A launch whose
// threads exceed the iteration budget is reported as "budget".
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
)

var (
	cxx    = flag.String("cxx", "g++", "host C++ compiler")
	budget = flag.Int64("budget", 4_000_000_000, "loop-body executions allowed per launch")
	out    = flag.String("o", "", "output table (default testdata/kernels/tripcheck.tsv)")
	keep   = flag.Bool("keep", false, "keep the work directory")
)

// hostExcluded lists the sources that cannot run on the host, with why.
var hostExcluded = map[string]string{}

func main() {
	flag.Parse()
	root, err := cfgtest.RepoRoot()
	check(err)
	c, err := cfgtest.Load(root)
	check(err)
	if *out == "" {
		*out = filepath.Join(c.Dir, "tripcheck.tsv")
	}
	work, err := os.MkdirTemp("", "tripcheck")
	check(err)
	if !*keep {
		defer os.RemoveAll(work)
	} else {
		fmt.Fprintln(os.Stderr, "tripcheck: work directory", work)
	}
	shim, err := os.ReadFile(filepath.Join(c.Dir, "tripcheck", "shim.h"))
	check(err)
	check(os.WriteFile(filepath.Join(work, "shim.h"), shim, 0o644))

	var rows []string
	failed := 0
	for _, s := range c.Sources {
		if why, ok := hostExcluded[s.Name]; ok {
			fmt.Fprintf(os.Stderr, "tripcheck: %s: not run on the host: %s\n", s.Name, why)
			continue
		}
		results, err := runSource(work, c, s)
		check(err)
		for _, k := range c.KernelsOf(s) {
			for li, l := range k.Launch {
				for _, row := range judge(k, li, l, results[key{k.Name, li}]) {
					if strings.HasSuffix(row, "\tMISMATCH") || strings.HasSuffix(row, "\tUNEXPECTED") || strings.HasSuffix(row, "\tOVER-MAX") {
						failed++
						fmt.Fprintln(os.Stderr, "tripcheck:", strings.ReplaceAll(row, "\t", " "))
					}
					rows = append(rows, row)
				}
			}
		}
	}
	var buf bytes.Buffer
	buf.WriteString("# tripcheck: host re-run of the corpus loops (testdata/kernels/tripcheck; go run ./testdata/kernels/tripcheck)\n")
	buf.WriteString("kernel\tlaunch\tloop\tclass\tclaim\thost\tentries\tstatus\n")
	for _, r := range rows {
		buf.WriteString(r + "\n")
	}
	check(os.WriteFile(*out, buf.Bytes(), 0o644))
	fmt.Fprintf(os.Stderr, "tripcheck: %d rows, %d failures, written to %s\n", len(rows), failed, *out)
	if failed > 0 {
		os.Exit(1)
	}
}

type key struct {
	kernel string
	launch int
}

// result is what the host run measured for one loop in one launch.
type result struct {
	entries, max int64
}

type launchResult struct {
	aborted bool
	loops   map[int]result // by loop line
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "tripcheck:", err)
		os.Exit(2)
	}
}

var externShared = regexp.MustCompile(`extern\s+__shared__\s+([A-Za-z_][\w ]*?)\s+([A-Za-z_]\w*)\s*\[\s*\]\s*;`)

// instrument returns the source with a counter call before every loop and
// at the start of every loop body; loop i has id i.
func instrument(s *cfgtest.Source) (string, error) {
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return "", err
	}
	type ins struct {
		at   int
		text string
	}
	var edits []ins
	for i, l := range s.Loops {
		edits = append(edits, ins{l.Offset, fmt.Sprintf("__trip_enter(%d); ", i)}, ins{l.Body + 1, fmt.Sprintf(" __trip_body(%d);", i)})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].at > edits[j].at })
	src := string(data)
	for _, e := range edits {
		src = src[:e.at] + e.text + src[e.at:]
	}
	// Dynamic shared memory becomes a fixed static array.
	src = externShared.ReplaceAllString(src, "static $1 $2[1 << 16];")
	return src, nil
}

func cLiteral(typ string, v int64) string {
	return fmt.Sprintf("(%s)(%dLL)", typ, v)
}

func runSource(work string, c *cfgtest.Corpus, s *cfgtest.Source) (map[key]launchResult, error) {
	src, err := instrument(s)
	if err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(s.Name, ".cu")
	var b strings.Builder
	b.WriteString("#include \"shim.h\"\n#line 1 \"" + s.Name + "\"\n")
	b.WriteString(src)
	b.WriteString("\n\nstatic void run_threads(void (*k)()) {\n" +
		"  for (unsigned bz = 0; bz < gridDim.z; ++bz) for (unsigned by = 0; by < gridDim.y; ++by) for (unsigned bx = 0; bx < gridDim.x; ++bx)\n" +
		"  for (unsigned tz = 0; tz < blockDim.z; ++tz) for (unsigned ty = 0; ty < blockDim.y; ++ty) for (unsigned tx = 0; tx < blockDim.x; ++tx) {\n" +
		"    blockIdx = {bx, by, bz}; threadIdx = {tx, ty, tz};\n" +
		"    k();\n" +
		"    for (int i = 0; i < TRIP_MAX_LOOPS; ++i) { __trip_flush(i); __trip_active[i] = false; }\n" +
		"  }\n}\n\n")
	fmt.Fprintf(&b, "static const int loop_lines[] = {")
	for _, l := range s.Loops {
		fmt.Fprintf(&b, "%d, ", l.Line)
	}
	b.WriteString("0};\n")
	fmt.Fprintf(&b, "static const int nloops = %d;\n", len(s.Loops))
	b.WriteString("static void *bufs[16];\n\n")
	b.WriteString("int main() {\n")
	for _, k := range c.KernelsOf(s) {
		for li, l := range k.Launch {
			fmt.Fprintf(&b, "  { // %s launch %d\n", k.Name, li)
			fmt.Fprintf(&b, "    blockDim = {%d, %d, %d}; gridDim = {%d, %d, %d};\n", l.Block[0], l.Block[1], l.Block[2], l.Grid[0], l.Grid[1], l.Grid[2])
			b.WriteString("    memset(__trip_count, 0, sizeof __trip_count); memset(__trip_max, 0, sizeof __trip_max); memset(__trip_entries, 0, sizeof __trip_entries); memset(__trip_active, 0, sizeof __trip_active);\n")
			fmt.Fprintf(&b, "    __trip_budget = %dLL;\n", *budget)
			var args []string
			nbuf := 0
			for _, p := range k.Func.Params {
				switch {
				case p.Pointer():
					fmt.Fprintf(&b, "    bufs[%d] = calloc(1 << 26, 1);\n", nbuf)
					args = append(args, fmt.Sprintf("(%s)bufs[%d]", p.Type, nbuf))
					nbuf++
				case l.Floats[p.Name] != 0 || hasFloat(l, p.Name):
					args = append(args, fmt.Sprintf("(%s)%v", p.Type, l.Floats[p.Name]))
				default:
					args = append(args, cLiteral(p.Type, l.Args[p.Name]))
				}
			}
			fmt.Fprintf(&b, "    bool aborted = false;\n")
			fmt.Fprintf(&b, "    try { run_threads([]() { %s(%s); }); } catch (trip_budget_exceeded &) { aborted = true; }\n", k.Name, strings.Join(args, ", "))
			fmt.Fprintf(&b, "    for (int i = 0; i < %d; ++i) free(bufs[i]);\n", nbuf)
			fmt.Fprintf(&b, "    printf(\"L\\t%s\\t%d\\t%%d\\n\", aborted ? 1 : 0);\n", k.Name, li)
			b.WriteString("    for (int i = 0; i < nloops; ++i) printf(\"R\\t%d\\t%lld\\t%lld\\n\", loop_lines[i], __trip_entries[i], __trip_max[i]);\n")
			b.WriteString("  }\n")
		}
	}
	b.WriteString("  return 0;\n}\n")
	cpp := filepath.Join(work, stem+".cpp")
	exe := filepath.Join(work, stem)
	if err := os.WriteFile(cpp, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(*cxx, "-std=c++17", "-O1", "-w", "-o", exe, cpp)
	cmd.Dir = work
	if outp, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: %s %v\n%s", s.Name, *cxx, err, outp)
	}
	outp, err := exec.Command(exe).Output()
	if err != nil {
		return nil, fmt.Errorf("%s: running the host build: %v", s.Name, err)
	}
	res := map[key]launchResult{}
	var cur key
	sc := bufio.NewScanner(bytes.NewReader(outp))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch f[0] {
		case "L":
			li, _ := strconv.Atoi(f[2])
			cur = key{f[1], li}
			res[cur] = launchResult{aborted: f[3] == "1", loops: map[int]result{}}
		case "R":
			line, _ := strconv.Atoi(f[1])
			e, _ := strconv.ParseInt(f[2], 10, 64)
			m, _ := strconv.ParseInt(f[3], 10, 64)
			res[cur].loops[line] = result{e, m}
		}
	}
	return res, sc.Err()
}

func hasFloat(l cfgtest.Launch, name string) bool {
	_, ok := l.Floats[name]
	return ok
}

// judge compares the host counts of one launch with the annotations.
func judge(k *cfgtest.Kernel, li int, l cfgtest.Launch, r launchResult) []string {
	var rows []string
	mine := map[int]bool{}
	for _, kl := range k.Loops() {
		mine[kl.Loop.Line] = true
		h := r.loops[kl.Loop.Line]
		claim := "-"
		var want int64 = -1
		if kl.Trip.Expr != nil {
			v, err := l.Max(kl.Trip.Expr)
			if err != nil {
				claim = "error: " + err.Error()
			} else {
				claim = strconv.FormatInt(v, 10)
				want = v
			}
		}
		status := "ok"
		switch {
		case r.aborted:
			status = "budget"
		case kl.Trip.Class == cfgtest.LaunchOnly && h.max != want:
			status = "MISMATCH"
		case kl.Trip.Class == cfgtest.Data && want >= 0 && h.max > want:
			status = "OVER-MAX"
		case kl.Trip.Class == cfgtest.Data:
			status = "data"
		}
		rows = append(rows, fmt.Sprintf("%s\t%d\t%s:%d\t%s\t%s\t%d\t%d\t%s", k.Name, li+1, kl.Loop.Source.Name, kl.Loop.Line, kl.Trip.Class, claim, h.max, h.entries, status))
	}
	var lines []int
	for line, h := range r.loops {
		if !mine[line] && h.entries > 0 {
			lines = append(lines, line)
		}
	}
	sort.Ints(lines)
	for _, line := range lines {
		h := r.loops[line]
		rows = append(rows, fmt.Sprintf("%s\t%d\t%s:%d\t-\t-\t%d\t%d\tUNEXPECTED", k.Name, li+1, k.Source.Name, line, h.max, h.entries))
	}
	return rows
}
