package ptx

import "github.com/gpuwcet/gpuwcet/cfg/isa"

// opFlags refine how an opcode's operands are read.
type opFlags uint8

const (
	fNoDst     opFlags = 1 << iota // no register destination: every operand is read
	fCarryIn                       // reads the hidden carry register %cc (addc, subc, madc)
	fLastSpace                     // the memory space is the last space modifier (cp.*: the source)
	fHasSub                        // more specific entries "op.mod" (and "op.mod.mod") exist
)

// opInfo is one row of the opcode table.
type opInfo struct {
	kind  isa.Kind
	space isa.Space // default space of a memory instruction without a space modifier
	flags opFlags
}

// opTable maps a PTX base opcode, or "opcode.modifier" for instructions whose
// behaviour depends on their first modifiers ("wmma.store",
// "cp.async.wait_group"), to its class. It covers the PTX ISA up to 9.x plus
// the GPGPU-Sim extension "nop". An opcode missing here is parsed by the
// generic rule (first operand written, the others read), marked Generic and
// reported in File.Warnings.
//
// Entries marked fHasSub are looked up with one and two modifiers first
// ("cp.async.wait_group" before "cp.async" before "cp").
var opTable = map[string]opInfo{
	// Integer and floating-point arithmetic, logic, moves, conversions:
	// one destination (optionally p|q), the rest read.
	"abs": {}, "activemask": {}, "add": {}, "addc": {flags: fCarryIn}, "alloca": {},
	"and": {}, "bfe": {}, "bfi": {}, "bfind": {}, "bmsk": {}, "brev": {}, "clz": {},
	"cnot": {}, "copysign": {}, "cos": {}, "createpolicy": {}, "cvt": {}, "cvta": {},
	"div": {}, "dp2a": {}, "dp4a": {}, "elect": {}, "ex2": {}, "fma": {}, "fns": {},
	"getctarank": {}, "isspacep": {}, "istypep": {}, "lg2": {}, "lop3": {}, "mad": {},
	"mad24": {}, "madc": {flags: fCarryIn}, "mapa": {}, "match": {}, "max": {}, "min": {},
	"mma": {}, "mov": {}, "movmatrix": {}, "mul": {}, "mul24": {}, "neg": {}, "not": {},
	"or": {}, "popc": {}, "prmt": {}, "rcp": {}, "redux": {}, "rem": {}, "rsqrt": {},
	"sad": {}, "selp": {}, "set": {}, "setp": {}, "shf": {}, "shfl": {}, "shl": {},
	"shr": {}, "sin": {}, "slct": {}, "sqrt": {}, "stacksave": {}, "sub": {},
	"subc": {flags: fCarryIn}, "suq": {}, "szext": {}, "tanh": {}, "testp": {}, "txq": {},
	"vabsdiff": {}, "vabsdiff2": {}, "vabsdiff4": {}, "vadd": {}, "vadd2": {}, "vadd4": {},
	"vavrg2": {}, "vavrg4": {}, "vmad": {}, "vmax": {}, "vmax2": {}, "vmax4": {},
	"vmin": {}, "vmin2": {}, "vmin4": {}, "vote": {}, "vset": {}, "vset2": {}, "vset4": {},
	"vshl": {}, "vshr": {}, "vsub": {}, "vsub2": {}, "vsub4": {}, "xor": {},

	// Instructions without a register destination.
	"membar": {flags: fNoDst}, "fence": {flags: fNoDst}, "prefetch": {flags: fNoDst},
	"prefetchu": {flags: fNoDst}, "nanosleep": {flags: fNoDst}, "griddepcontrol": {flags: fNoDst},
	"setmaxnreg": {flags: fNoDst}, "pmevent": {flags: fNoDst}, "discard": {flags: fNoDst},
	"applypriority": {flags: fNoDst}, "brkpt": {flags: fNoDst}, "stackrestore": {flags: fNoDst},

	// Memory.
	"ld":                 {kind: isa.KindLoad, space: isa.SpaceGeneric},
	"ldu":                {kind: isa.KindLoad, space: isa.SpaceGeneric},
	"ldmatrix":           {kind: isa.KindLoad, space: isa.SpaceShared},
	"tex":                {kind: isa.KindLoad, space: isa.SpaceTexture},
	"tld4":               {kind: isa.KindLoad, space: isa.SpaceTexture},
	"suld":               {kind: isa.KindLoad, space: isa.SpaceSurface},
	"st":                 {kind: isa.KindStore, space: isa.SpaceGeneric, flags: fNoDst},
	"stmatrix":           {kind: isa.KindStore, space: isa.SpaceShared, flags: fNoDst},
	"sust":               {kind: isa.KindStore, space: isa.SpaceSurface, flags: fNoDst},
	"atom":               {kind: isa.KindAtomic, space: isa.SpaceGeneric},
	"red":                {kind: isa.KindAtomic, space: isa.SpaceGeneric, flags: fNoDst},
	"sured":              {kind: isa.KindAtomic, space: isa.SpaceSurface, flags: fNoDst},
	"wmma":               {flags: fHasSub},
	"wmma.load":          {kind: isa.KindLoad, space: isa.SpaceGeneric},
	"wmma.store":         {kind: isa.KindStore, space: isa.SpaceGeneric, flags: fNoDst},
	"wmma.mma":           {},
	"multimem":           {flags: fHasSub},
	"multimem.ld_reduce": {kind: isa.KindLoad, space: isa.SpaceGlobal},
	"multimem.st":        {kind: isa.KindStore, space: isa.SpaceGlobal, flags: fNoDst},
	"multimem.red":       {kind: isa.KindAtomic, space: isa.SpaceGlobal, flags: fNoDst},
	"tensormap":          {flags: fNoDst | fHasSub},
	"tensormap.replace":  {kind: isa.KindStore, space: isa.SpaceGeneric, flags: fNoDst},

	// cp.async and friends copy memory to memory without a register
	// destination. They are classified as loads whose Space is the source
	// space (the last space modifier): the issuing warp sends a read request
	// and does not wait for the write. Both memory operands are sources.
	"cp":                         {kind: isa.KindLoad, space: isa.SpaceGlobal, flags: fNoDst | fLastSpace | fHasSub},
	"cp.reduce":                  {kind: isa.KindAtomic, space: isa.SpaceGlobal, flags: fNoDst | fLastSpace},
	"cp.async.wait_group":        {flags: fNoDst},
	"cp.async.wait_all":          {flags: fNoDst},
	"cp.async.commit_group":      {flags: fNoDst},
	"cp.async.mbarrier":          {flags: fNoDst},
	"cp.async.bulk":              {kind: isa.KindLoad, space: isa.SpaceGlobal, flags: fNoDst | fLastSpace | fHasSub},
	"cp.async.bulk.commit_group": {flags: fNoDst},
	"cp.async.bulk.wait_group":   {flags: fNoDst},

	// Asynchronous barriers and tensor-core families.
	"mbarrier":                          {flags: fHasSub},
	"mbarrier.init":                     {flags: fNoDst},
	"mbarrier.inval":                    {flags: fNoDst},
	"mbarrier.expect_tx":                {flags: fNoDst},
	"mbarrier.complete_tx":              {flags: fNoDst},
	"wgmma":                             {flags: fHasSub},
	"wgmma.fence":                       {flags: fNoDst},
	"wgmma.commit_group":                {flags: fNoDst},
	"wgmma.wait_group":                  {flags: fNoDst},
	"tcgen05":                           {flags: fNoDst | fHasSub},
	"tcgen05.ld":                        {},
	"clusterlaunchcontrol":              {flags: fNoDst | fHasSub},
	"clusterlaunchcontrol.query_cancel": {},

	// Control flow and synchronisation; the parser refines these.
	"bra":     {kind: isa.KindBranch, flags: fNoDst},
	"brx":     {kind: isa.KindIndirectBranch, flags: fNoDst},
	"call":    {kind: isa.KindCall, flags: fNoDst},
	"ret":     {kind: isa.KindReturn, flags: fNoDst},
	"exit":    {kind: isa.KindExit, flags: fNoDst},
	"trap":    {kind: isa.KindExit, flags: fNoDst},
	"bar":     {kind: isa.KindBarrier, flags: fNoDst},
	"barrier": {kind: isa.KindBarrier, flags: fNoDst},
	"nop":     {kind: isa.KindNop, flags: fNoDst}, // GPGPU-Sim
}

// lookupOp finds the table row of an instruction; full is the dotted
// opcode token, op its base mnemonic and mods its modifiers.
func lookupOp(full, op string, mods []string) (opInfo, bool) {
	info, ok := opTable[op]
	if !ok || info.flags&fHasSub == 0 || len(mods) == 0 {
		return info, ok
	}
	// Try "op.m0.m1", then "op.m0".
	n := len(mods)
	if n > 2 {
		n = 2
	}
	for ; n > 0; n-- {
		end := len(op)
		for _, m := range mods[:n] {
			end += 1 + len(m)
		}
		if sub, ok := opTable[full[:end]]; ok {
			return sub, true
		}
	}
	return info, true
}

// spaceOf maps a modifier to a state space.
func spaceOf(m string) isa.Space {
	switch m {
	case "global":
		return isa.SpaceGlobal
	case "shared", "shared::cta", "shared::cluster":
		return isa.SpaceShared
	case "local":
		return isa.SpaceLocal
	case "const":
		return isa.SpaceConst
	case "param", "param::entry", "param::func":
		return isa.SpaceParam
	}
	return isa.SpaceNone
}

// specialRegs are the PTX special registers (base names, before any .x).
var specialRegs = map[string]bool{
	"%tid": true, "%ntid": true, "%ctaid": true, "%nctaid": true, "%laneid": true,
	"%warpid": true, "%nwarpid": true, "%smid": true, "%nsmid": true, "%gridid": true,
	"%lanemask_eq": true, "%lanemask_le": true, "%lanemask_lt": true,
	"%lanemask_ge": true, "%lanemask_gt": true, "%clock": true, "%clock64": true,
	"%clock_hi": true, "%globaltimer": true, "%globaltimer_lo": true, "%globaltimer_hi": true,
	"%dynamic_smem_size": true, "%total_smem_size": true, "%aggr_smem_size": true,
	"%is_explicit_cluster": true, "%clusterid": true, "%nclusterid": true,
	"%cluster_ctaid": true, "%cluster_nctaid": true, "%cluster_ctarank": true,
	"%cluster_nctarank": true, "%current_graph_exec": true,
	"%reserved_smem_offset_begin": true, "%reserved_smem_offset_end": true,
	"%reserved_smem_offset_cap": true, "%reserved_smem_offset_0": true,
	"%reserved_smem_offset_1": true, "WARP_SZ": true,
}

// isSpecial reports whether name is a special register.
func isSpecial(name string) bool {
	base := name
	for i := 1; i < len(name); i++ {
		if name[i] == '.' {
			base = name[:i]
			break
		}
	}
	if specialRegs[base] {
		return true
	}
	return hasDigitsAfter(base, "%pm") || hasDigitsAfter(base, "%envreg")
}

func hasDigitsAfter(s, prefix string) bool {
	if len(s) <= len(prefix) || s[:len(prefix)] != prefix {
		return false
	}
	s = s[len(prefix):]
	if len(s) > 3 && s[len(s)-3:] == "_64" {
		s = s[:len(s)-3]
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return len(s) > 0
}

// ccSuffix reports whether s is a GPGPU-Sim condition-code guard suffix
// (@%p1.lt).
func ccSuffix(s string) bool {
	switch s {
	case "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu",
		"ltu", "leu", "gtu", "geu", "num", "nan", "cf", "sf", "nsf", "ncf", "of", "nof":
		return true
	}
	return false
}
