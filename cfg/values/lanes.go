package values

// Lanes is a value per lane of a warp (nil: unknown in some lane).
type Lanes []uint64

// LaneEnv is what the per-lane domain knows of one warp: the thread index
// of each lane, the launch dimensions, the block index when known, and the
// kernel arguments given on the command line.
type LaneEnv struct {
	Tid    [][3]uint64 // per lane
	Ntid   [3]uint64   // 0: unknown
	Nctaid [3]uint64   // 0: unknown
	Ctaid  *[3]uint64  // nil: unknown (the same in every lane)
	// Args gives kernel arguments by parameter name (the value as an
	// integer; its bytes are read little-endian).
	Args map[string]int64
}

// LaneDomain is the concrete domain: the exact value in each lane, by the
// reference semantics Apply.
type LaneDomain struct{ Env *LaneEnv }

func (d LaneDomain) n() int {
	if len(d.Env.Tid) == 0 {
		return 1
	}
	return len(d.Env.Tid)
}

func (d LaneDomain) uniform(w int, x uint64) Lanes {
	out := make(Lanes, d.n())
	for i := range out {
		out[i] = x & Mask(w)
	}
	return out
}

// Top is unknown.
func (d LaneDomain) Top(int) Lanes { return nil }

// Const is x in every lane.
func (d LaneDomain) Const(w int, x uint64) Lanes { return d.uniform(w, x) }

// Leaf reads the launch: thread and lane indices, launch dimensions, the
// block index when known, kernel arguments.
func (d LaneDomain) Leaf(v *Value) Lanes {
	env := d.Env
	switch v.Kind {
	case VParam:
		a, ok := env.Args[v.Name]
		if !ok || v.Off < 0 || v.Off >= 8 {
			return nil
		}
		return d.uniform(v.W, uint64(a)>>(8*uint(v.Off)))
	case VSpecial:
		name := v.Name
		dim := -1
		if n := len(name); n > 2 && name[n-2] == '.' {
			dim = int(name[n-1] - 'x')
		}
		switch {
		case dim >= 0 && dim < 3 && name[:n2(name)] == "tid":
			if len(env.Tid) == 0 {
				return nil
			}
			out := make(Lanes, len(env.Tid))
			for i, t := range env.Tid {
				out[i] = t[dim] & Mask(v.W)
			}
			return out
		case dim >= 0 && dim < 3 && name[:n2(name)] == "ntid":
			if env.Ntid[dim] == 0 {
				return nil
			}
			return d.uniform(v.W, env.Ntid[dim])
		case dim >= 0 && dim < 3 && name[:n2(name)] == "nctaid":
			if env.Nctaid[dim] == 0 {
				return nil
			}
			return d.uniform(v.W, env.Nctaid[dim])
		case dim >= 0 && dim < 3 && name[:n2(name)] == "ctaid":
			if env.Ctaid == nil {
				return nil
			}
			return d.uniform(v.W, env.Ctaid[dim])
		case name == "laneid":
			if len(env.Tid) == 0 {
				return nil
			}
			out := make(Lanes, len(env.Tid))
			for i := range out {
				out[i] = uint64(i) // warps start at multiples of 32
			}
			return out
		case len(name) > 9 && name[:9] == "lanemask_":
			if len(env.Tid) == 0 {
				return nil
			}
			out := make(Lanes, len(env.Tid))
			for i := range out {
				l := uint64(1) << uint(i)
				switch name[9:] {
				case "eq":
					out[i] = l
				case "lt":
					out[i] = l - 1
				case "le":
					out[i] = l<<1 - 1
				case "gt":
					out[i] = ^(l<<1 - 1) & 0xffffffff
				case "ge":
					out[i] = ^(l - 1) & 0xffffffff
				}
			}
			return out
		}
	}
	return nil
}

func n2(name string) int { return len(name) - 2 }

// Op applies the reference semantics in each lane.
func (d LaneDomain) Op(code Code, w int, args []Lanes, argW []int) Lanes {
	for _, a := range args {
		if a == nil {
			return nil
		}
	}
	n := d.n()
	out := make(Lanes, n)
	xs := make([]uint64, len(args))
	for l := 0; l < n; l++ {
		for i, a := range args {
			xs[i] = a[l]
		}
		r, ok := Apply(code, w, xs, argW)
		if !ok {
			return nil
		}
		out[l] = r
	}
	return out
}

// Phi is known when every operand has the same value in each lane.
func (d LaneDomain) Phi(v *Value, args []Lanes) Lanes {
	if len(args) == 0 || args[0] == nil {
		return nil
	}
	for _, a := range args[1:] {
		if a == nil || len(a) != len(args[0]) {
			return nil
		}
		for i := range a {
			if a[i] != args[0][i] {
				return nil
			}
		}
	}
	return args[0]
}
