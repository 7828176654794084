package sass

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwcet/gpuwcet/cfg"
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
			// One cluster per function (a kernel and its device functions).
			chunks := strings.Split(string(data), `subgraph "cluster_`)[1:]
			if len(chunks) == 0 {
				t.Fatal("no clusters")
			}
			for _, chunk := range chunks {
				compareDOT(t, file, chunk)
			}
		})
	}
}

// compareDOT compares one cluster of an nvdisasm -cfg graph with our CFG.
func compareDOT(t *testing.T, file, chunk string) {
	t.Helper()
	nodes, edges := readDOT(chunk)
	if len(nodes) == 0 {
		t.Fatal("no nodes")
	}
	{
		{
			// The listing inside the labels, and nvdisasm's blocks.
			var src strings.Builder
			fmt.Fprintf(&src, ".section .text.%s,\"ax\",@progbits\n", nodes[0].name)
			nodeFirst := map[string]int64{} // node → address of its first instruction
			portLast := map[string]int64{}  // node:port → address of the field's last instruction
			var wantBlocks []int64
			wantEdges := map[string]bool{}
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
					if _, ok := nodeFirst[n.name]; !ok {
						nodeFirst[n.name] = first
					}
					portLast[n.name+":"+f.port] = last
					if startBlock {
						wantBlocks = append(wantBlocks, first)
						if prevExit >= 0 {
							// Implicit fall-through from a guarded
							// branch or EXIT inside the node.
							wantEdges[fmt.Sprintf("%#x->%#x", prevExit, first)] = true
						}
					}
					startBlock = strings.HasPrefix(f.port, "exit") && !strings.HasPrefix(f.port, "exitpost")
					if startBlock {
						prevExit = -1
						if guardedLine(f.lines[len(f.lines)-1]) {
							prevExit = blockStart(wantBlocks)
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
				wantEdges[fmt.Sprintf("%#x->%#x", blockOf(wantBlocks, src), nodeFirst[e.to])] = true
			}
			// Our CFG.
			fset := token.NewFileSet()
			f, err := ParseFile(fset, file, []byte(src.String()), AllErrors)
			if err != nil {
				t.Fatalf("ParseFile: %v\n%s", err, src.String())
			}
			if len(f.Funcs) != 1 {
				t.Fatalf("got %d functions, want 1", len(f.Funcs))
			}
			g, err := cfg.Build(fset, f.Funcs[0])
			if err != nil {
				t.Fatalf("cfg.Build: %v", err)
			}
			if err := g.Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			var gotBlocks []int64
			gotEdges := map[string]bool{}
			for _, b := range g.Blocks {
				gotBlocks = append(gotBlocks, b.Instrs[0].Offset)
				for _, e := range b.Succs {
					if e.To == g.Exit {
						continue
					}
					gotEdges[fmt.Sprintf("%#x->%#x", b.Instrs[0].Offset, e.To.Instrs[0].Offset)] = true
				}
			}
			sort.Slice(wantBlocks, func(i, j int) bool { return wantBlocks[i] < wantBlocks[j] })
			if diff := cmp.Diff(wantBlocks, gotBlocks); diff != "" {
				t.Errorf("block starts mismatch (-nvdisasm +ours):\n%s", diff)
			}
			t.Logf("%s: %d blocks, %d edges compared", nodes[0].name, len(wantBlocks), len(wantEdges))
			if diff := cmp.Diff(wantEdges, gotEdges); diff != "" {
				t.Errorf("%s: edges mismatch (-nvdisasm +ours):\n%s", nodes[0].name, diff)
			}
		}
	}
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
