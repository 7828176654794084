package cfg

import (
	"sort"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// CallGraph is the call graph of the functions of one file.
type CallGraph struct {
	File *isa.File

	// Nodes are the file's functions in source order, then the callees
	// named by a call but not defined or declared in the file, by name.
	Nodes []*CallNode

	// Unresolved lists the indirect calls without known targets (no
	// .calltargets), in source order of their functions.
	Unresolved []*isa.Instr

	// SCCs are the strongly connected components in reverse topological
	// order (callees before callers), each sorted by node order. A
	// component with several nodes, or one node calling itself, is
	// recursive.
	SCCs [][]*CallNode
}

// CallNode is a function in the call graph.
type CallNode struct {
	Index int
	Name  string
	Func  *isa.Func // nil for a callee not in the file

	// External is set for a declaration without body (.extern .func,
	// vprintf) and for a callee not in the file: its code is unknown.
	External bool

	// Recursive is set when the node is in a cycle of the call graph.
	Recursive bool
	SCC       int // index in CallGraph.SCCs

	Out []*CallEdge // calls made, by call site then target order
	In  []*CallEdge // calls received, by caller index then call site
}

// CallEdge is one possible call from one call site.
type CallEdge struct {
	Caller, Callee *CallNode
	Site           *isa.Instr
	Indirect       bool // through a register, to one of its .calltargets
}

// BuildCallGraph returns the call graph of f: a direct call (KindCall)
// calls the function its first target names; an indirect call
// (KindIndirectCall) may call each of its targets that names a function,
// or each function of the .calltargets list it names (other names, such as
// a .callprototype, are ignored). An indirect call with no such target is
// listed in Unresolved.
func BuildCallGraph(f *isa.File) *CallGraph {
	cg := &CallGraph{File: f}
	byName := map[string]*CallNode{}
	for _, fn := range f.Funcs {
		if byName[fn.Name] != nil {
			continue // a declaration followed by its definition: keep the first
		}
		n := &CallNode{Index: len(cg.Nodes), Name: fn.Name, Func: fn, External: fn.Decl}
		cg.Nodes = append(cg.Nodes, n)
		byName[fn.Name] = n
	}
	// A defined function replaces an earlier declaration of its name.
	for _, fn := range f.Funcs {
		if n := byName[fn.Name]; n.External && !fn.Decl {
			n.Func, n.External = fn, false
		}
	}
	var missing []string
	missingNode := map[string]*CallNode{}
	callee := func(name string) *CallNode {
		if n := byName[name]; n != nil {
			return n
		}
		if n := missingNode[name]; n != nil {
			return n
		}
		n := &CallNode{Name: name, External: true}
		missingNode[name] = n
		missing = append(missing, name)
		return n
	}
	var edges []*CallEdge
	for _, caller := range cg.Nodes {
		fn := caller.Func
		if fn == nil || fn.Decl {
			continue
		}
		for _, in := range fn.Instrs {
			switch in.Kind {
			case isa.KindCall:
				if len(in.Targets) == 0 {
					cg.Unresolved = append(cg.Unresolved, in)
					continue
				}
				edges = append(edges, &CallEdge{Caller: caller, Callee: callee(in.Targets[0]), Site: in})
			case isa.KindIndirectCall:
				var names []string
				for _, t := range in.Targets {
					if list, ok := fn.BranchTargets[t]; ok {
						names = append(names, list...)
					} else if byName[t] != nil {
						names = append(names, t)
					}
				}
				seen := map[string]bool{}
				for _, name := range names {
					if seen[name] {
						continue
					}
					seen[name] = true
					edges = append(edges, &CallEdge{Caller: caller, Callee: callee(name), Site: in, Indirect: true})
				}
				if len(seen) == 0 {
					cg.Unresolved = append(cg.Unresolved, in)
				}
			}
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		n := missingNode[name]
		n.Index = len(cg.Nodes)
		cg.Nodes = append(cg.Nodes, n)
	}
	for _, e := range edges {
		e.Caller.Out = append(e.Caller.Out, e)
		e.Callee.In = append(e.Callee.In, e)
	}
	cg.findSCCs()
	return cg
}

// findSCCs runs Tarjan's algorithm over the nodes in order.
func (cg *CallGraph) findSCCs() {
	n := len(cg.Nodes)
	index := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	next := 0
	type frame struct{ v, i int }
	for r := 0; r < n; r++ {
		if index[r] >= 0 {
			continue
		}
		call := []frame{{r, 0}}
		index[r], low[r] = next, next
		next++
		stack = append(stack, r)
		on[r] = true
		for len(call) > 0 {
			top := &call[len(call)-1]
			v := top.v
			if out := cg.Nodes[v].Out; top.i < len(out) {
				w := out[top.i].Callee.Index
				top.i++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					on[w] = true
					call = append(call, frame{w, 0})
				} else if on[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				if u := call[len(call)-1].v; low[v] < low[u] {
					low[u] = low[v]
				}
			}
			if low[v] != index[v] {
				continue
			}
			var comp []*CallNode
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp = append(comp, cg.Nodes[w])
				if w == v {
					break
				}
			}
			sort.Slice(comp, func(i, j int) bool { return comp[i].Index < comp[j].Index })
			k := len(cg.SCCs)
			for _, c := range comp {
				c.SCC = k
				c.Recursive = len(comp) > 1
				for _, e := range c.Out {
					if e.Callee == c {
						c.Recursive = true
					}
				}
			}
			cg.SCCs = append(cg.SCCs, comp)
		}
	}
}
