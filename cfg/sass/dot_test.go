package sass

import (
	"compress/gzip"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// dotNode is one node of an nvdisasm -cfg graph: its record fields, each
// a port name and the listing lines of the field.
type dotNode struct {
	name   string
	fields []dotField
}

type dotField struct {
	port  string
	lines []string
}

type dotEdge struct{ from, fromPort, to string }

var (
	dotNodeRE = regexp.MustCompile(`(?m)^"([^"]+)"\n\[label="\{(.*)\}"\]$`)
	dotEdgeRE = regexp.MustCompile(`(?m)^"([^"]+)":(\w+):[nsew] -> "([^"]+)":entry:n`)
	dotInstRE = regexp.MustCompile(`^([0-9a-f]{4}):(.*)$`)
)

// readDOT is a small reader for nvdisasm -cfg output: Mrecord nodes whose
// labels hold the SASS (Graphviz escapes \l \  \[ \] \{ \} \< \> \"),
// and port-to-port edges.
func readDOT(src string) ([]dotNode, []dotEdge) {
	var nodes []dotNode
	for _, m := range dotNodeRE.FindAllStringSubmatch(src, -1) {
		n := dotNode{name: m[1]}
		// Split the record at unescaped '|'.
		var fields []string
		cur := strings.Builder{}
		for k := 0; k < len(m[2]); k++ {
			c := m[2][k]
			if c == '\\' && k+1 < len(m[2]) {
				cur.WriteByte(c)
				cur.WriteByte(m[2][k+1])
				k++
				continue
			}
			if c == '|' {
				fields = append(fields, cur.String())
				cur.Reset()
				continue
			}
			cur.WriteByte(c)
		}
		fields = append(fields, cur.String())
		for _, f := range fields {
			var df dotField
			if strings.HasPrefix(f, "<") {
				e := strings.IndexByte(f, '>')
				df.port, f = f[1:e], f[e+1:]
			}
			for _, l := range strings.Split(f, `\l`) {
				l = dotUnescape(l)
				if strings.TrimSpace(l) != "" {
					df.lines = append(df.lines, l)
				}
			}
			n.fields = append(n.fields, df)
		}
		nodes = append(nodes, n)
	}
	var edges []dotEdge
	for _, m := range dotEdgeRE.FindAllStringSubmatch(src, -1) {
		edges = append(edges, dotEdge{m[1], m[2], m[3]})
	}
	return nodes, edges
}

func dotUnescape(s string) string {
	var b strings.Builder
	for k := 0; k < len(s); k++ {
		if s[k] == '\\' && k+1 < len(s) {
			k++
		}
		b.WriteByte(s[k])
	}
	return b.String()
}

// dotOffset returns the address of a listing line ("0090:   …" or
// "/*0098*/   …"), or -1.
func dotOffset(l string) int64 {
	l = strings.TrimSpace(l)
	if m := dotInstRE.FindStringSubmatch(l); m != nil {
		v, _ := strconv.ParseInt(m[1], 16, 64)
		return v
	}
	if strings.HasPrefix(l, "/*") && len(l) > 8 && l[6:8] == "*/" {
		v, err := strconv.ParseInt(l[2:6], 16, 64)
		if err == nil {
			return v
		}
	}
	return -1
}

// TestDOTAgainstNvdisasm parses the SASS inside each nvdisasm -cfg graph of
// ../shared/corpus/dot, builds our CFG, and compares block boundaries and
// edges (by instruction address) with nvdisasm's.
//
// nvdisasm nodes are not basic blocks: a node may hold several branches
// (ports exit0…exitN, each followed by exitpostN). We re-split each node
// after every exit field; the fall-through from a guarded branch or EXIT
// to the following field of the same node is implicit in the drawing, and
// we add it. Edges to our virtual exit have no counterpart and are left
// out. With these two rules the graphs agree exactly, including SYNC,
// which nvdisasm draws as a jump to the target of the enclosing SSY (its
// "(*"TARGET= .L_1 "*)" annotation), the model cfg.FlowKind implements.
func TestDOTAgainstNvdisasm(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "corpus", "dot")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared corpus not available at %s: %v", dir, err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.dot"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no DOT files under %s (%v)", dir, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".dot"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			compareDOTFile(t, file, data, false)
		})
	}
}

// TestDOTAgainstNvdisasmKernels runs the comparison of
// TestDOTAgainstNvdisasm over the nvdisasm -cfg graphs of the team's
// kernel corpus (testdata/kernels/dot, gzip-compressed; gen.sh).
//
// On these listings nvdisasm (CUDA 11.8) starts blocks where our graph
// does not: at every SYNC and BRK (sm_52, sm_62), after every BSYNC and at
// WARPSYNC (sm_80, sm_87), at some branches after SSY. Such a start cuts a
// straight-line run in two: its block has one predecessor, which has no
// other successor. It also draws a fall-through out of BPT.TRAP, where our
// graph ends the path. The test logs those differences and fails on any
// other: it leaves out the trap's fall-through and compares the graphs
// after merging, on both sides, each block into its address predecessor
// when that is its only predecessor and it is that predecessor's only
// successor.
func TestDOTAgainstNvdisasmKernels(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "kernels", "dot")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.dot.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skipf("no kernel corpus DOT files under %s", dir)
	}
	for _, file := range files {
		name := filepath.Base(filepath.Dir(file)) + "/" + strings.TrimSuffix(filepath.Base(file), ".dot.gz")
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			zr, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			compareDOTFile(t, file, data, true)
		})
	}
}

// compareDOTFile compares every cluster (a kernel and its device
// functions) of one nvdisasm -cfg graph with our CFG; with splitsOK,
// blocks that only split a straight-line run are logged, not errors.
func compareDOTFile(t *testing.T, file string, data []byte, splitsOK bool) {
	t.Helper()
	chunks := strings.Split(string(data), `subgraph "cluster_`)[1:]
	if len(chunks) == 0 {
		t.Fatal("no clusters")
	}
	for _, chunk := range chunks {
		compareDOT(t, file, chunk, splitsOK)
	}
}

// dotCluster is one cluster of an nvdisasm -cfg graph: the function it
// draws, the listing inside its nodes, and its blocks and edges by
// instruction address (nodes re-split after every exit field, with the
// implicit fall-throughs inside a node added).
type dotCluster struct {
	name   string
	src    string // a listing of the cluster's instructions, as one .text section
	entry  int64  // address of the first instruction of the first node
	blocks []int64
	edges  map[string]bool
}

// readCluster reads one cluster (the text after `subgraph "cluster_`).
func readCluster(t *testing.T, chunk string) *dotCluster {
	t.Helper()
	nodes, edges := readDOT(chunk)
	// The cluster is named after the function; its first node may be a
	// label before the function's symbol.
	fname, _, _ := strings.Cut(chunk, `"`)
	if len(nodes) == 0 {
		t.Fatal("no nodes")
	}
	c := &dotCluster{name: fname, entry: -1, edges: map[string]bool{}}
	var src strings.Builder
	fmt.Fprintf(&src, ".section .text.%s,\"ax\",@progbits\n", fname)
	nodeFirst := map[string]int64{} // node → address of its first instruction
	portLast := map[string]int64{}  // node:port → address of the field's last instruction
	for _, n := range nodes {
		startBlock := true
		var prevExit int64 = -1
		for _, f := range n.fields {
			first, last := int64(-1), int64(-1)
			for _, l := range f.lines {
				off := dotOffset(l)
				if off < 0 {
					src.WriteString(strings.TrimSpace(l) + "\n")
					continue
				}
				if first < 0 {
					first = off
				}
				last = off
				l = strings.TrimSpace(l)
				if !strings.HasPrefix(l, "/*") {
					l = fmt.Sprintf("/*%04x*/%s", off, l[5:])
				}
				src.WriteString(l + "\n")
			}
			if first < 0 {
				continue
			}
			if c.entry < 0 {
				c.entry = first
			}
			if _, ok := nodeFirst[n.name]; !ok {
				nodeFirst[n.name] = first
			}
			portLast[n.name+":"+f.port] = last
			if startBlock {
				c.blocks = append(c.blocks, first)
				if prevExit >= 0 {
					// Implicit fall-through from a guarded
					// branch or EXIT inside the node.
					c.edges[fmt.Sprintf("%#x->%#x", prevExit, first)] = true
				}
			}
			startBlock = strings.HasPrefix(f.port, "exit") && !strings.HasPrefix(f.port, "exitpost")
			if startBlock {
				prevExit = -1
				if guardedLine(f.lines[len(f.lines)-1]) {
					prevExit = blockStart(c.blocks)
				}
			}
		}
	}
	for _, e := range edges {
		src := portLast[e.from+":"+e.fromPort]
		if e.fromPort == "entry" {
			// A plain node: its last instruction.
			src = lastOfNode(nodes, e.from)
		}
		c.edges[fmt.Sprintf("%#x->%#x", blockOf(c.blocks, src), nodeFirst[e.to])] = true
	}
	sort.Slice(c.blocks, func(i, j int) bool { return c.blocks[i] < c.blocks[j] })
	c.src = src.String()
	return c
}

// compareDOT compares one cluster of an nvdisasm -cfg graph with our CFG
// of the listing inside its nodes.
func compareDOT(t *testing.T, file, chunk string, splitsOK bool) {
	t.Helper()
	c := readCluster(t, chunk)
	fset := token.NewFileSet()
	f, err := ParseFile(fset, file, []byte(c.src), AllErrors)
	if err != nil {
		t.Fatalf("ParseFile: %v\n%s", err, c.src)
	}
	// A label node before the function's symbol (nvcc -O0 puts the
	// previous function's end label there) makes an empty function of
	// the section: drop it.
	var fns []*isa.Func
	for _, fn := range f.Funcs {
		if len(fn.Instrs) > 0 {
			fns = append(fns, fn)
		}
	}
	if len(fns) != 1 {
		t.Fatalf("got %d functions with instructions, want 1", len(fns))
	}
	compareGraph(t, c, fset, fns[0], splitsOK, false)
}

// compareGraph compares the graph of fn with the cluster c; with
// reachableOnly, our unreachable blocks that nvdisasm does not draw
// (padding) are left out. (nvdisasm draws code after BRA.DIV and
// BRA.CONV, which both graphs take for unconditional branches.)
func compareGraph(t *testing.T, c *dotCluster, fset *token.FileSet, fn *isa.Func, splitsOK, reachableOnly bool) {
	t.Helper()
	fname := c.name
	wantBlocks := append([]int64(nil), c.blocks...)
	wantEdges := map[string]bool{}
	for e := range c.edges {
		wantEdges[e] = true
	}
	// A call into code from which no RET is reachable (nvcc's "@P0
	// CALL.REL.NOINC" to an EXIT) is a branch in our graph: the lanes
	// that take it do not come back. nvdisasm draws every call as a
	// fall-through: compare with the call.
	var restore []*isa.Instr
	for _, in := range fn.Instrs {
		if in.Kind == isa.KindBranch && (in.Opcode == "CALL" || in.Opcode == "CAL" || in.Opcode == "JCAL") {
			t.Logf("%s: %q at %#x: a branch in our graph (its callee never returns), a fall-through in nvdisasm's; compared as a call", fname, in.Text, in.Offset)
			in.Kind = isa.KindCall
			restore = append(restore, in)
		}
	}
	defer func() {
		for _, in := range restore {
			in.Kind = isa.KindBranch
		}
	}()
	g, err := cfg.Build(fset, fn)
	if err != nil {
		t.Fatalf("cfg.Build: %v", err)
	}
	if err := g.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	var gotBlocks []int64
	gotEdges := map[string]bool{}
	drawn := map[int64]bool{}
	for _, b := range wantBlocks {
		drawn[b] = true
	}
	for _, b := range g.Blocks {
		if reachableOnly && !b.Reachable && !drawn[b.Instrs[0].Offset] {
			continue
		}
		gotBlocks = append(gotBlocks, b.Instrs[0].Offset)
		for _, e := range b.Succs {
			if e.To == g.Exit {
				continue
			}
			gotEdges[fmt.Sprintf("%#x->%#x", b.Instrs[0].Offset, e.To.Instrs[0].Offset)] = true
		}
	}
	// nvdisasm draws BRA.DIV and BRA.CONV (taken when the warp is
	// divergent, or converged) as unconditional; our graph has their
	// fall-through too (build.go, "Conditions beyond the guard").
	for k, in := range fn.Instrs {
		if in.Opcode != "BRA" || !in.HasMod("DIV") && !in.HasMod("CONV") || k+1 == len(fn.Instrs) {
			continue
		}
		e := fmt.Sprintf("%#x->%#x", blockOf(gotBlocks, in.Offset), fn.Instrs[k+1].Offset)
		if gotEdges[e] && !wantEdges[e] {
			delete(gotEdges, e)
			t.Logf("%s: our fall-through %s out of %q, which nvdisasm does not draw, left out", fname, e, in.Text)
		}
	}
	report := t.Errorf
	if splitsOK {
		// nvdisasm draws a fall-through out of BPT.TRAP (the stack
		// check of nvcc -O0 code); our graph ends the path there, as
		// the trap aborts the kernel.
		ins := fn.Instrs
		for k, in := range ins {
			if in.Opcode != "BPT" || !in.HasMod("TRAP") || k+1 == len(ins) {
				continue
			}
			e := fmt.Sprintf("%#x->%#x", blockOf(wantBlocks, in.Offset), ins[k+1].Offset)
			if wantEdges[e] && !gotEdges[e] {
				delete(wantEdges, e)
				t.Logf("%s: nvdisasm's fall-through %s out of %q left out", fname, e, in.Text)
			}
		}
		report = t.Logf
		wb, we := mergeRuns(wantBlocks, wantEdges)
		gb, ge := mergeRuns(gotBlocks, gotEdges)
		if diff := cmp.Diff(wb, gb); diff != "" {
			t.Errorf("%s: block starts mismatch after merging straight-line runs (-nvdisasm +ours):\n%s", fname, diff)
		}
		if diff := cmp.Diff(we, ge); diff != "" {
			t.Errorf("%s: edges mismatch after merging straight-line runs (-nvdisasm +ours):\n%s", fname, diff)
		}
	}
	if diff := cmp.Diff(wantBlocks, gotBlocks); diff != "" {
		report("%s: block starts mismatch (-nvdisasm +ours):\n%s%s", fname, diff, startContext(fn.Instrs, wantBlocks, gotBlocks))
	}
	t.Logf("%s: %d blocks, %d edges compared", fname, len(wantBlocks), len(wantEdges))
	if diff := cmp.Diff(wantEdges, gotEdges); diff != "" {
		report("%s: edges mismatch (-nvdisasm +ours):\n%s", fname, diff)
	}
}

// mergeRuns merges each block into the block before it in address order
// when that block is its only predecessor and it is that block's only
// successor, and returns the remaining block starts and the edges between
// them (self edges of merged runs included).
func mergeRuns(blocks []int64, edges map[string]bool) ([]int64, map[string]bool) {
	type edge struct{ from, to int64 }
	var es []edge
	succs := map[int64][]int64{}
	preds := map[int64][]int64{}
	for e := range edges {
		var a, b int64
		if _, err := fmt.Sscanf(e, "%v->%v", &a, &b); err != nil {
			panic(err)
		}
		es = append(es, edge{a, b})
		succs[a] = append(succs[a], b)
		preds[b] = append(preds[b], a)
	}
	rep := map[int64]int64{}
	var out []int64
	for i, b := range blocks {
		rep[b] = b
		if i > 0 {
			prev := blocks[i-1]
			if len(preds[b]) == 1 && preds[b][0] == prev && len(succs[prev]) == 1 {
				rep[b] = rep[prev]
				continue
			}
		}
		out = append(out, b)
	}
	merged := map[string]bool{}
	for _, e := range es {
		if rep[e.from] == rep[e.to] && e.to != rep[e.to] {
			continue // the fall-through inside a merged run
		}
		merged[fmt.Sprintf("%#x->%#x", rep[e.from], e.to)] = true
	}
	return out, merged
}

// startContext names, for each block start that only one side has, the
// instruction before it, which tells the kind of difference.
func startContext(instrs []*isa.Instr, want, got []int64) string {
	in := func(xs []int64, x int64) bool {
		for _, y := range xs {
			if y == x {
				return true
			}
		}
		return false
	}
	var b strings.Builder
	for k := 1; k < len(instrs); k++ {
		off := instrs[k].Offset
		w, g := in(want, off), in(got, off)
		if w != g {
			side := "nvdisasm only"
			if g {
				side = "ours only"
			}
			fmt.Fprintf(&b, "\tstart %#x (%s): %q after %q\n", off, side, instrs[k].Text, instrs[k-1].Text)
		}
	}
	return b.String()
}

func guardedLine(l string) bool {
	l = strings.TrimSpace(l)
	if i := strings.Index(l, "*/"); i >= 0 && strings.HasPrefix(l, "/*") {
		l = l[i+2:]
	} else if len(l) > 5 && l[4] == ':' {
		l = l[5:]
	}
	l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "{"))
	return strings.HasPrefix(l, "@")
}

func blockStart(blocks []int64) int64 {
	if len(blocks) == 0 {
		return -1
	}
	return blocks[len(blocks)-1]
}

// blockOf returns the start of the block holding address a.
func blockOf(blocks []int64, a int64) int64 {
	best := int64(-1)
	for _, b := range blocks {
		if b <= a && b > best {
			best = b
		}
	}
	return best
}

func lastOfNode(nodes []dotNode, name string) int64 {
	for _, n := range nodes {
		if n.name != name {
			continue
		}
		last := int64(-1)
		for _, f := range n.fields {
			for _, l := range f.lines {
				if off := dotOffset(l); off >= 0 {
					last = off
				}
			}
		}
		return last
	}
	return -1
}
