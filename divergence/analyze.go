package divergence

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/values"
)

// Analyze classifies the branches of the thread-level CFG g, resolves them
// per warp under the launch configuration l (zero: unknown, one class "all
// warps"), and builds the warp-level CFG of each class.
func Analyze(g *cfg.Graph, l pass.Launch, o Options) (*Info, error) {
	if g == nil || g.Func == nil {
		return nil, fmt.Errorf("divergence: nil graph")
	}
	if o.MaxBlocks <= 0 {
		o.MaxBlocks = DefaultMaxBlocks
	}
	if o.MaxSides <= 0 {
		o.MaxSides = 3
	}
	vals := o.Values
	if vals == nil || vals.Graph != g {
		var err error
		if vals, err = values.Build(g, values.Options{}); err != nil {
			return nil, err
		}
	}
	u := newUniformity(g, vals)
	info := &Info{Graph: g, Launch: l, byBlock: map[*cfg.Block]*Branch{}}
	info.Branches = u.run(func(b *cfg.Block) (*cfg.Block, string) { return reconvergence(g, u.dialect, b) })
	info.varying = map[string]bool{}
	for v := range u.varying {
		if n := u.name[v]; n != "" {
			info.varying[n] = true
		}
	}
	for _, br := range info.Branches {
		info.byBlock[br.Block] = br
		if o.Resolve != nil {
			if x, ok := o.Resolve(br); ok {
				br.Divergent = x == Divergent
			}
		}
	}

	// Per-warp outcomes and classes.
	var refused *Branch
	ws := warpsOf(l)
	type cls struct {
		key string
		c   *Class
	}
	var classes []*cls
	eval := func(w warp) []Outcome {
		ev := values.NewEvaluator[values.Lanes](values.LaneDomain{Env: laneEnv(l, w)})
		out := make([]Outcome, len(info.Branches))
		for k, br := range info.Branches {
			out[k] = outcome(vals, ev, br)
			if br.Trap {
				out[k] = trapOutcome(g, br)
			}
			if o.Resolve != nil {
				if x, ok := o.Resolve(br); ok {
					out[k] = x
				}
			}
		}
		return out
	}
	if ws == nil {
		out := eval(warp{index: -1})
		classes = append(classes, &cls{c: &Class{Name: "all warps", Outcomes: out}})
	} else {
		for _, w := range ws {
			out := eval(w)
			var sb strings.Builder
			for _, x := range out {
				sb.WriteByte(byte('0' + x))
			}
			k := sb.String()
			var c *Class
			for _, x := range classes {
				if x.key == k {
					c = x.c
				}
			}
			if c == nil {
				c = &Class{Outcomes: out}
				classes = append(classes, &cls{key: k, c: c})
			}
			c.Warps = append(c.Warps, w.index)
			c.Lanes = append(c.Lanes, w.lanes)
		}
		for _, x := range classes {
			x.c.Name = warpsName(x.c.Warps)
		}
	}
	for i, x := range classes {
		c := x.c
		c.Index = i
		info.Classes = append(info.Classes, c)
		for k, br := range info.Branches {
			br.Outcomes = append(br.Outcomes, c.Outcomes[k])
		}
		for k, br := range info.Branches {
			if c.Outcomes[k] == Divergent && br.Serial && !br.Exit && refused == nil {
				refused = br
			}
		}
		if refused != nil {
			e := &RefusedError{Func: g.Func.Name, Msg: fmt.Sprintf(
				"%s: divergent branch %q splits lanes that each loop back to it before reconverging at %s: serialized loop iterations are not modelled",
				c.Name, refused.Instr.Text, refused.Reconv)}
			if g.Fset != nil {
				e.Pos = g.Fset.Position(refused.Instr.Pos)
			}
			return nil, e
		}
		lanes := 32 // unknown launch: a full warp
		if len(c.Lanes) > 0 {
			lanes = slices.Max(c.Lanes)
		}
		wb := &warpBuilder{g: g, branches: map[*cfg.Block]int{}, brs: info.Branches, out: c.Outcomes,
			max: o.MaxBlocks, maxSides: o.MaxSides, fn: g.Func.Name, class: c.Name, drainMax: lanes - 1, loopBound: o.LoopBound, launch: l.Threads() > 0}
		for k, br := range info.Branches {
			wb.branches[br.Block] = k
		}
		wg, depth, reconv, err := wb.build()
		if err != nil {
			if le, ok := err.(*LimitError); ok && g.Fset != nil {
				le.Pos = g.Fset.Position(g.Func.Pos)
			}
			return nil, err
		}
		c.Graph, c.Depth, c.Reconv = wg, depth, reconv
		c.SerialLoops = map[*cfg.Loop]bool{}
		seen := map[*cfg.Loop]bool{}
		for k, br := range info.Branches {
			if c.Outcomes[k] != Divergent || br.Exit {
				continue
			}
			for _, lp := range br.Loops {
				if !seen[lp] {
					seen[lp] = true
					c.DivergentLoops = append(c.DivergentLoops, lp)
				}
				if br.Serial {
					c.SerialLoops[lp] = true
				}
			}
		}
		sortLoops(c.DivergentLoops)
	}
	return info, nil
}

// trapOutcome is the side of a Trap branch that does not trap: a
// guarded trap is never taken; a two-way branch takes its first edge
// (the taken one) unless that edge only traps.
func trapOutcome(g *cfg.Graph, br *Branch) Outcome {
	if br.Exit || trapsOnly(g, br.Block.Succs[0].To) {
		return NotTaken
	}
	return Taken
}

func sortLoops(ls []*cfg.Loop) {
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && ls[j].Index < ls[j-1].Index; j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
}

// warpsName names a set of warp indices: "warp 3", "warps 0-2,5".
func warpsName(ws []int) string {
	var parts []string
	for i := 0; i < len(ws); {
		j := i
		for j+1 < len(ws) && ws[j+1] == ws[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, fmt.Sprint(ws[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ws[i], ws[j]))
		}
		i = j + 1
	}
	if len(ws) == 1 {
		return "warp " + parts[0]
	}
	return "warps " + strings.Join(parts, ",")
}

// reconvergence returns the reconvergence point of the branch ending b.
// PTX: the immediate post-dominator (as GPGPU-Sim). SASS: the target of
// the nearest SSY, BSSY or PBK before the branch (in its block, then up
// the dominator tree) when that target post-dominates the branch, else the
// immediate post-dominator. No post-dominator (a side never reaches the
// exit): the virtual exit.
func reconvergence(g *cfg.Graph, d isa.Dialect, b *cfg.Block) (*cfg.Block, string) {
	if d == isa.DialectSASS {
		if t := ssyTarget(g, b); t != nil && g.PostDominates(t, b) && t != b {
			return t, "ssy"
		}
	}
	if p := b.IPdom(); p != nil {
		return p, "ipdom"
	}
	return g.Exit, "exit"
}

func ssyTarget(g *cfg.Graph, b *cfg.Block) *cfg.Block {
	first := true
	for x := b; x != nil; x = x.Idom() {
		ins := x.Instrs
		if first && len(ins) > 0 {
			ins = ins[:len(ins)-1]
		}
		first = false
		for i := len(ins) - 1; i >= 0; i-- {
			in := ins[i]
			switch strings.ToUpper(in.Opcode) {
			case "SSY", "BSSY", "PBK":
			default:
				continue
			}
			if len(in.Targets) == 0 {
				return nil
			}
			t, ok := g.Func.Labels[in.Targets[0]]
			if !ok {
				return nil
			}
			for _, blk := range g.Blocks {
				if blk.First == t && len(blk.Instrs) > 0 {
					return blk
				}
			}
			return nil
		}
	}
	return nil
}
