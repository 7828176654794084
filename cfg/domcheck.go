package cfg

// ltDom computes immediate dominators with the algorithm of Lengauer and
// Tarjan ("A Fast Algorithm for Finding Dominators in a Flowgraph", TOPLAS
// 1979), in its simple version (path compression without balancing:
// O(E log N)): semidominators in reverse DFS preorder with a bucket per
// vertex, then idoms in preorder. It shares nothing with chk (Cooper,
// Harvey and Kennedy's iteration) but the adjacency, so that Check can
// cross-check the trees on graphs of any size in near-linear time; naiveDom
// remains the reference on small graphs. The result is as naiveDom's: the
// idom of each node, the root's itself, -1 for a node the root does not
// reach.
func ltDom(n int, root int32, fwd, back csr) []int32 {
	const none = -1
	pre := make([]int32, n) // DFS preorder number + 1; 0: not reached
	vertex := make([]int32, 0, n)
	parent := make([]int32, n)
	// Iterative DFS: (node, next successor index).
	type frame struct{ v, i int32 }
	stack := []frame{{root, 0}}
	pre[root] = 1
	vertex = append(vertex, root)
	parent[root] = none
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		succs := fwd.of(int(top.v))
		if int(top.i) == len(succs) {
			stack = stack[:len(stack)-1]
			continue
		}
		w := succs[top.i]
		top.i++
		if pre[w] == 0 {
			vertex = append(vertex, w)
			pre[w] = int32(len(vertex))
			parent[w] = top.v
			stack = append(stack, frame{w, 0})
		}
	}
	semi := make([]int32, n) // preorder number (0-based) of the semidominator
	label := make([]int32, n)
	ancestor := make([]int32, n)
	idom := make([]int32, n)
	for i := range idom {
		idom[i] = none
		ancestor[i] = none
		label[i] = int32(i)
	}
	for _, v := range vertex {
		semi[v] = pre[v] - 1
	}
	// eval returns the vertex of least semi on the forest path above v,
	// compressing the path (iteratively).
	var path []int32
	eval := func(v int32) int32 {
		if ancestor[v] == none {
			return v
		}
		path = path[:0]
		for x := v; ancestor[ancestor[x]] != none; x = ancestor[x] {
			path = append(path, x)
		}
		for k := len(path) - 1; k >= 0; k-- {
			x := path[k]
			a := ancestor[x]
			if semi[label[a]] < semi[label[x]] {
				label[x] = label[a]
			}
			ancestor[x] = ancestor[a]
		}
		return label[v]
	}
	bucket := make([][]int32, n)
	for i := len(vertex) - 1; i >= 1; i-- {
		w := vertex[i]
		for _, v := range back.of(int(w)) {
			if pre[v] == 0 {
				continue // a predecessor the root does not reach
			}
			if u := eval(v); semi[u] < semi[w] {
				semi[w] = semi[u]
			}
		}
		s := vertex[semi[w]]
		bucket[s] = append(bucket[s], w)
		p := parent[w]
		ancestor[w] = p
		for _, v := range bucket[p] {
			if u := eval(v); semi[u] < semi[v] {
				idom[v] = u
			} else {
				idom[v] = p
			}
		}
		bucket[p] = nil
	}
	for _, w := range vertex[1:] {
		if idom[w] != vertex[semi[w]] {
			idom[w] = idom[idom[w]]
		}
	}
	idom[root] = root
	return idom
}
