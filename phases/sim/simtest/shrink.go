package simtest

import (
	"slices"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// Shrink returns a smallest case it can find for which fails still holds,
// starting from c (for which fails must hold). It drops warps, makes the
// warps identical, drops instructions (chunks, then single ones, then
// barriers in every warp at once), simplifies instructions (guards,
// sources, extra destinations), merges units and reduces latencies and
// initiation intervals, until no step applies. fails must be
// deterministic; it should return false for a case it cannot judge (for
// example one the simulator rejects).
func Shrink(c *Case, fails func(*Case) bool) *Case {
	cur := c
	try := func(n *Case) bool {
		if n == nil || !fails(n) {
			return false
		}
		cur = n
		return true
	}
	for progress := true; progress; {
		progress = false
		// Fewer warps.
		for w := 0; w < len(cur.Warps) && len(cur.Warps) > 1; {
			n := cur.clone()
			n.Warps = slices.Delete(n.Warps, w, w+1)
			if try(n) {
				progress = true
				continue
			}
			w++
		}
		// Identical warps.
		for w := range cur.Warps {
			if !cur.identical() {
				n := cur.clone()
				for i := range n.Warps {
					n.Warps[i] = cur.Warps[w]
				}
				if try(n) {
					progress = true
					break
				}
			}
		}
		// Fewer instructions, by chunks of halving size, in each distinct path.
		for _, p := range cur.distinct() {
			for size := len(p) / 2; size >= 1; size /= 2 {
				for i := 0; i+size <= len(p); {
					q := reindex(slices.Concat(p[:i], p[i+size:]))
					if try(cur.replace(p, q)) {
						progress = true
						p = q
						continue
					}
					i += size
				}
			}
		}
		// Drop the k-th barrier of every warp at once.
		for k := 0; ; k++ {
			n, ok := cur.dropBarrier(k)
			if !ok {
				break
			}
			if try(n) {
				progress = true
				k--
			}
		}
		// Simpler instructions.
		for _, p := range cur.distinct() {
			for i, in := range p {
				for _, s := range simpler(in) {
					q := slices.Clone(p)
					q[i] = s
					q = reindex(q)
					if try(cur.replace(p, q)) {
						progress = true
						p = q
						break
					}
				}
			}
		}
		// Fewer units: route unit j's instructions to unit i.
		for j := len(cur.HW.Units) - 1; j >= 1; j-- {
			for i := 0; i < j; i++ {
				if try(cur.mergeUnit(j, i)) {
					progress = true
					break
				}
			}
		}
		// A simpler pipeline, no shared FIFOs.
		for _, f := range []func(*hwdesc.Desc){
			func(d *hwdesc.Desc) { d.Pipeline.Overhead = 0 },
			func(d *hwdesc.Desc) { d.Pipeline.BranchWait = "" },
			func(d *hwdesc.Desc) { d.Pipeline.RetIssues = false },
			func(d *hwdesc.Desc) { d.Pipeline.BarrierIssues = false },
			func(d *hwdesc.Desc) {
				for u := range d.Units {
					d.Units[u].Group = ""
				}
			},
		} {
			n := cur.clone()
			f(n.HW)
			if !pipelineEqual(n.HW, cur.HW) && try(n) {
				progress = true
			}
		}
		if o := cur.HW.Pipeline.Overhead; o > 1 {
			n := cur.clone()
			n.HW.Pipeline.Overhead = o / 2
			if try(n) {
				progress = true
			}
		}
		// Smaller latencies and initiation intervals.
		for u := range cur.HW.Units {
			for _, lat := range []hwdesc.Cycles{0, cur.HW.Units[u].Lat / 2, cur.HW.Units[u].Lat - 1} {
				if lat >= 0 && lat < cur.HW.Units[u].Lat && try(cur.withUnit(u, cur.HW.Units[u].Init, lat)) {
					progress = true
					break
				}
			}
			for _, in := range []hwdesc.Cycles{1, cur.HW.Units[u].Init / 2, cur.HW.Units[u].Init - 1} {
				if in >= 1 && in < cur.HW.Units[u].Init && try(cur.withUnit(u, in, cur.HW.Units[u].Lat)) {
					progress = true
					break
				}
			}
		}
	}
	return cur
}

func (c *Case) clone() *Case {
	hw := *c.HW
	hw.Units = slices.Clone(c.HW.Units)
	hw.Map = slices.Clone(c.HW.Map)
	return &Case{Comment: c.Comment, HW: &hw, Warps: slices.Clone(c.Warps)}
}

func (c *Case) identical() bool {
	for _, p := range c.Warps {
		if !sameSlice(p, c.Warps[0]) {
			return false
		}
	}
	return true
}

// distinct returns the distinct paths, in warp order.
func (c *Case) distinct() [][]*isa.Instr {
	var out [][]*isa.Instr
	for _, p := range c.Warps {
		if !slices.ContainsFunc(out, func(q []*isa.Instr) bool { return sameSlice(p, q) }) {
			out = append(out, p)
		}
	}
	return out
}

// replace returns a copy of c in which the warps running p run q.
func (c *Case) replace(p, q []*isa.Instr) *Case {
	n := c.clone()
	for i := range n.Warps {
		if sameSlice(n.Warps[i], p) {
			n.Warps[i] = q
		}
	}
	return n
}

func reindex(p []*isa.Instr) []*isa.Instr { return Reindex(p) }

func (c *Case) dropBarrier(k int) (*Case, bool) {
	n := c.clone()
	repl := map[*isa.Instr][]*isa.Instr{}
	for i, p := range c.Warps {
		if len(p) == 0 {
			return nil, false
		}
		if q, ok := repl[p[0]]; ok && len(q) == len(p)-1 {
			n.Warps[i] = q
			continue
		}
		seen := 0
		at := -1
		for j, in := range p {
			if in.Kind == isa.KindBarrier {
				if seen == k {
					at = j
					break
				}
				seen++
			}
		}
		if at < 0 {
			return nil, false
		}
		q := reindex(slices.Concat(p[:at], p[at+1:]))
		repl[p[0]] = q
		n.Warps[i] = q
	}
	return n, true
}

// simpler returns simplifications of in: without guard, without sources,
// with one destination, without destinations.
func simpler(in *isa.Instr) []*isa.Instr {
	if in.Kind != isa.KindOther {
		if IsTaken(in) { // a taken branch can fall through
			return []*isa.Instr{Instr("bra", guardOf(in), nil, srcsOf(in))}
		}
		return nil
	}
	var srcs []string
	for _, o := range in.Srcs {
		srcs = append(srcs, o.Regs...)
	}
	dsts := in.Defs()
	guard := ""
	if in.Guard.Reg != "" {
		guard = in.Guard.Reg
		if in.Guard.Neg {
			guard = "!" + guard
		}
	}
	var out []*isa.Instr
	if guard != "" {
		out = append(out, Instr(in.Opcode, "", dsts, srcs))
	}
	for i := range srcs {
		out = append(out, Instr(in.Opcode, guard, dsts, slices.Delete(slices.Clone(srcs), i, i+1)))
	}
	if len(dsts) > 1 {
		for i := range dsts {
			out = append(out, Instr(in.Opcode, guard, dsts[i:i+1], srcs))
		}
	}
	if len(dsts) > 0 {
		out = append(out, Instr(in.Opcode, guard, nil, srcs))
	}
	return out
}

// mergeUnit removes unit j, routing its instructions to unit i.
func (c *Case) mergeUnit(j, i int) *Case {
	from, to := c.HW.Units[j].Name, c.HW.Units[i].Name
	n := c.clone()
	var names, groups []string
	var init, lat []hwdesc.Cycles
	for k, u := range c.HW.Units {
		if k == j {
			continue
		}
		names = append(names, u.Name)
		groups = append(groups, u.Group)
		init = append(init, u.Init)
		lat = append(lat, u.Lat)
	}
	n.HW = NewHW(names, init, lat)
	n.HW.Pipeline = c.HW.Pipeline
	for k := range n.HW.Units {
		n.HW.Units[k].Group = groups[k]
	}
	done := map[*isa.Instr][]*isa.Instr{}
	for w, p := range c.Warps {
		if len(p) > 0 {
			if q, ok := done[p[0]]; ok && len(q) == len(p) {
				n.Warps[w] = q
				continue
			}
		}
		q := make([]*isa.Instr, len(p))
		for k, in := range p {
			x := *in
			if x.Opcode == from && x.Kind == isa.KindOther {
				x.Opcode = to
				x.Text = formatInstr(&x)
			}
			q[k] = &x
		}
		if len(p) > 0 {
			done[p[0]] = q
		}
		n.Warps[w] = q
	}
	return n
}

func (c *Case) withUnit(u int, init, lat hwdesc.Cycles) *Case {
	n := c.clone()
	n.HW.Units[u].Init, n.HW.Units[u].Lat = init, lat
	return n
}

func guardOf(in *isa.Instr) string {
	if in.Guard.Reg == "" {
		return ""
	}
	if in.Guard.Neg {
		return "!" + in.Guard.Reg
	}
	return in.Guard.Reg
}

func srcsOf(in *isa.Instr) []string {
	var srcs []string
	for _, o := range in.Srcs {
		srcs = append(srcs, o.Regs...)
	}
	return srcs
}

func pipelineEqual(a, b *hwdesc.Desc) bool {
	if a.Pipeline.Overhead != b.Pipeline.Overhead || a.Pipeline.BranchWait != b.Pipeline.BranchWait ||
		a.Pipeline.RetIssues != b.Pipeline.RetIssues || a.Pipeline.BarrierIssues != b.Pipeline.BarrierIssues {
		return false
	}
	for u := range a.Units {
		if a.Units[u].Group != b.Units[u].Group {
			return false
		}
	}
	return true
}
