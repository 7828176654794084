package hwdesc

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ImporterVersion is recorded in imported descriptions; bump it when the
// importer's output changes.
const ImporterVersion = "2"

// SimPipelineOverhead is the fixed issue-to-completion overhead of
// GPGPU-Sim's pipeline beyond the configured latency (front end, operand
// collection, write-back), measured in the single-warp reference runs
// (reference-data.md §4.1: every ALU, INT, SP, SFU, DP and shared-load
// class completes latency + 4 cycles after issue). Imported descriptions
// carry it as [pipeline] overhead.
const SimPipelineOverhead Cycles = 4

// ImportOptions parameterise ImportGPGPUSim.
type ImportOptions struct {
	Name   string // description name (required)
	File   string // config file name, for messages (default "gpgpusim.config")
	Source string // provenance recorded in the description (default File)

	// MemLatency, when > 0, is the global-load latency in GPGPU-Sim's
	// convention (dispatch to result, initiation included). It overrides
	// the mem_impostor latency, and it is required under
	// -gpgpu_perfect_mem 1 without a mem_impostor unit, where the global
	// latency is not a configuration value.
	MemLatency Cycles

	// MemInit, when > 0, is the initiation interval of global loads and of
	// the other LD/ST memory ops (stores, atomics) without a mem_impostor
	// unit: GPGPU-Sim's LD/ST unit sends one memory access per cycle, so a
	// warp instruction that generates A accesses keeps it A cycles. Default
	// 1 (one access per warp instruction). Ignored with a mem_impostor.
	MemInit Cycles
}

// ImportGPGPUSim converts a GPGPU-Sim configuration (gpgpusim.config) into
// a description named name. See ImportOptions.Import.
func ImportGPGPUSim(name string, r io.Reader) (*Desc, error) {
	return ImportOptions{Name: name}.Import(r)
}

// simOpt is one option of a GPGPU-Sim config: its value and line.
type simOpt struct {
	val  string
	line int
}

// simConfig holds the options of a GPGPU-Sim config; a repeated option
// keeps its last value, as in GPGPU-Sim.
type simConfig struct {
	file string
	opts map[string]simOpt
	errs ErrorList
}

// maxLineErrors is how many malformed lines readSimConfig reports before it
// stops.
const maxLineErrors = 10

// readSimConfig reads "-option value # comment" lines. Lines that are not
// options are errors; the values are only checked when read.
func readSimConfig(file string, r io.Reader) (*simConfig, error) {
	c := &simConfig{file: file, opts: map[string]simOpt{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if line[0] != '-' || len(line) == 1 {
			c.errs.add(file, n, "expected \"-option value\", found %q", trunc(line))
			if len(c.errs) == maxLineErrors {
				// Not a config (a binary file has thousands of lines).
				c.errs.add(file, n, "too many errors; the rest of the file is not read")
				return nil, c.errs.Err()
			}
			continue
		}
		var name, val string
		if j := strings.IndexAny(line, " \t"); j >= 0 {
			name, val = line[:j], line[j+1:]
		} else {
			name, val = line, ""
		}
		c.opts[name] = simOpt{val: strings.TrimSpace(val), line: n}
	}
	if err := sc.Err(); err != nil {
		c.errs.add(file, n+1, "%v", err)
	}
	if err := c.errs.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

func trunc(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func (c *simConfig) has(name string) bool { _, ok := c.opts[name]; return ok }

func (c *simConfig) line(name string) int { return c.opts[name].line }

// int reads a non-negative integer option; def is used when the option is
// absent and required is false.
func (c *simConfig) int(name string, required bool, def int64) int64 {
	o, ok := c.opts[name]
	if !ok {
		if required {
			c.errs.add(c.file, 0, "option %s is missing", name)
		}
		return def
	}
	v, err := strconv.ParseInt(o.val, 10, 64)
	if err != nil || v < 0 || v > int64(MaxCycles) {
		c.errs.add(c.file, o.line, "%s: want an integer in [0, %d], found %q", name, MaxCycles, o.val)
		return def
	}
	return v
}

// list reads a comma-separated list of non-negative integers with between
// minN and maxN values.
func (c *simConfig) list(name string, def []int64, minN, maxN int) []int64 {
	o, ok := c.opts[name]
	if !ok {
		return def
	}
	parts := strings.Split(o.val, ",")
	if len(parts) < minN || len(parts) > maxN {
		c.errs.add(c.file, o.line, "%s: want %d to %d comma-separated integers, found %q", name, minN, maxN, o.val)
		return def
	}
	out := make([]int64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || v < 0 || v > int64(MaxCycles) {
			c.errs.add(c.file, o.line, "%s: value %d: want an integer in [0, %d], found %q", name, i+1, MaxCycles, strings.TrimSpace(p))
			return def
		}
		out[i] = v
	}
	return out
}

// GPGPU-Sim's built-in defaults (gpu-sim.cc option registration), used
// when a config leaves the latency options out.
var (
	simDefLatInt   = []int64{1, 1, 19, 25, 145, 32}
	simDefLatFP    = []int64{1, 1, 1, 1, 30}
	simDefLatDP    = []int64{8, 8, 8, 8, 335}
	simDefInitInt  = []int64{1, 1, 4, 4, 32, 4}
	simDefInitFP   = []int64{1, 1, 1, 1, 5}
	simDefInitDP   = []int64{8, 8, 8, 8, 130}
	simDefSFU      = int64(8)
	simDefTensor   = int64(64)
	simSlotNames   = []string{"add/sub", "max/min", "mul", "mad/fma", "div/rem", "shfl"}
	simSlotSuffix  = []string{"add", "minmax", "mul", "mad"}
	simSlotOpcodes = [][]string{{"add", "sub", "addc", "subc", "addp"}, {"max", "min"}, {"mul"}, {"mad", "madc", "madp", "fma"}}
)

// ALU_OP opcodes of GPGPU-Sim's set_opcode_and_latency ("everything
// else"), which run on the INT unit (SP without INT units) with latency 1,
// initiation 1. bar, bra, call, ret are BARRIER/BRANCH/CALL/RET ops on the
// same path with the same timing.
var simALUOpcodes = []string{
	"abs", "and", "andn", "or", "orn", "nandn", "norn", "xor", "not", "cnot",
	"shl", "shr", "shf", "bfe", "bfi", "bfind", "brev", "clz", "popc", "prmt",
	"cvt", "cvta", "set", "setp", "selp", "slct", "neg", "sad", "dp4a",
	"vote", "activemask", "isspacep", "mov", "exit", "trap", "brkpt", "brx",
	"break", "breakaddr", "ssy", "red", "prefetch", "prefetchu", "suld", "sust", "sured",
	"suq", "pmevent", "nop", "bar", "barrier", "bra", "call", "callp", "ret", "retp",
}

// Opcodes GPGPU-Sim's PTX front end does not know: no timing to import.
var simUnknownOpcodes = []string{"mma", "cp", "ldmatrix", "stmatrix", "redux", "mbarrier", "fence", "elect", "griddepcontrol"}

// Import converts a GPGPU-Sim configuration read from r.
//
// Units are timing classes (see Unit); their init is GPGPU-Sim's
// initiation interval and their lat is GPGPU-Sim's latency minus the
// initiation interval. The routing is that of ptx_instruction::
// set_opcode_and_latency, with the ECRTS 2025 fork's mem_impostor routing
// when the config enables a specialized unit named mem_impostor. Every
// opcode of the routing table gets an explicit rule; default_unit is the
// ALU path, as in GPGPU-Sim. The notes of the result say where each number
// comes from.
func (o ImportOptions) Import(r io.Reader) (*Desc, error) {
	file := o.File
	if file == "" {
		file = "gpgpusim.config"
	}
	c, err := readSimConfig(file, r)
	if err != nil {
		return nil, err
	}
	d := &Desc{
		Name:    o.Name,
		Version: "gpuwcet-import-gpgpusim/" + ImporterVersion,
		Source:  o.Source,
		ISA:     "ptx",
	}
	if d.Source == "" {
		d.Source = file
	}
	// Situational notes go after the general ones (see the end).
	var extra []string
	note := func(format string, args ...any) { extra = append(extra, fmt.Sprintf(format, args...)) }
	at := func(opt string) string {
		if l := c.line(opt); l > 0 {
			return fmt.Sprintf("%s (line %d)", opt, l)
		}
		return opt + " (absent: GPGPU-Sim default)"
	}

	// Clock and architecture.
	if o, ok := c.opts["-gpgpu_clock_domains"]; !ok {
		c.errs.add(file, 0, "option -gpgpu_clock_domains is missing (the SM clock)")
	} else {
		core, _, _ := strings.Cut(o.val, ":")
		f, err := strconv.ParseFloat(core, 64)
		if err != nil || !(f > 0) || f > 1e6 {
			c.errs.add(file, o.line, "-gpgpu_clock_domains: want <core MHz>:<icnt>:<l2>:<dram>, found %q", o.val)
		} else {
			d.ClockMHz = f
			note("clock_mhz: core clock of %s", at("-gpgpu_clock_domains"))
		}
	}
	if c.has("-gpgpu_compute_capability_major") {
		maj := c.int("-gpgpu_compute_capability_major", false, 0)
		mnr := c.int("-gpgpu_compute_capability_minor", false, 0)
		d.Arch = fmt.Sprintf("sm_%d%d", maj, mnr)
	}

	// Functional-unit counts.
	nSP := c.int("-gpgpu_num_sp_units", true, 1)
	nSFU := c.int("-gpgpu_num_sfu_units", true, 1)
	nDP := c.int("-gpgpu_num_dp_units", true, 0)
	nINT := c.int("-gpgpu_num_int_units", true, 0)
	nTensor := c.int("-gpgpu_num_tensor_core_units", false, 0)
	if c.has("-gpgpu_tensor_core_avail") && c.int("-gpgpu_tensor_core_avail", false, 0) == 0 {
		nTensor = 0
	}

	// Latency/initiation lists.
	latInt := c.list("-ptx_opcode_latency_int", simDefLatInt, 5, 6)
	initInt := c.list("-ptx_opcode_initiation_int", simDefInitInt, 5, 6)
	latFP := c.list("-ptx_opcode_latency_fp", simDefLatFP, 5, 5)
	initFP := c.list("-ptx_opcode_initiation_fp", simDefInitFP, 5, 5)
	latDP := c.list("-ptx_opcode_latency_dp", simDefLatDP, 5, 5)
	initDP := c.list("-ptx_opcode_initiation_dp", simDefInitDP, 5, 5)
	latSFU := c.int("-ptx_opcode_latency_sfu", false, simDefSFU)
	initSFU := c.int("-ptx_opcode_initiation_sfu", false, simDefSFU)
	if c.has("-ptx_opcode_latency_tensor") {
		c.errs.add(file, c.line("-ptx_opcode_latency_tensor"), "GPGPU-Sim spells this option -ptx_opcode_latency_tesnor; -ptx_opcode_latency_tensor is not one of its options")
	}
	latTensor := c.int("-ptx_opcode_latency_tesnor", false, simDefTensor)
	initTensor := c.int("-ptx_opcode_initiation_tensor", false, simDefTensor)
	smem := c.int("-gpgpu_smem_latency", true, 0)

	// The mem_impostor specialized unit (ECRTS 2025 fork).
	impostor, nImpostor := false, int64(1)
	for i := 1; i <= 8; i++ {
		opt := fmt.Sprintf("-specialized_unit_%d", i)
		so, ok := c.opts[opt]
		if !ok {
			continue
		}
		f := strings.Split(so.val, ",")
		if len(f) != 6 {
			c.errs.add(file, so.line, "%s: want enabled,num_units,max_latency,id_oc_width,oc_ex_width,name, found %q", opt, so.val)
			continue
		}
		if strings.TrimSpace(f[5]) != "mem_impostor" || strings.TrimSpace(f[0]) == "0" {
			continue
		}
		impostor = true
		n, err := strconv.ParseInt(strings.TrimSpace(f[1]), 10, 64)
		if err != nil || n < 1 {
			c.errs.add(file, so.line, "%s: num_units: want an integer ≥ 1, found %q", opt, f[1])
		}
		nImpostor = n
	}
	if c.has("-gpgpu_num_mem_impostor_units") {
		nImpostor = c.int("-gpgpu_num_mem_impostor_units", false, nImpostor)
	}
	perfect := c.has("-gpgpu_perfect_mem") && c.int("-gpgpu_perfect_mem", false, 0) != 0

	// Global-load latency, GPGPU-Sim convention.
	var gLat, gInit int64 = 0, 1
	var gWhy string
	switch {
	case o.MemLatency > 0:
		gLat = int64(o.MemLatency)
		gWhy = fmt.Sprintf("--mem-latency %d (given at import, overrides the config)", o.MemLatency)
		if impostor {
			gInit = c.int("-ptx_opcode_initiation_mem_impostor", true, 1)
		}
	case o.MemLatency < 0:
		c.errs.add(file, 0, "--mem-latency must be ≥ 1, got %d", o.MemLatency)
	case o.MemInit < 0:
		c.errs.add(file, 0, "--mem-init must be ≥ 1, got %d", o.MemInit)
	case impostor:
		gLat = c.int("-ptx_opcode_latency_mem_impostor", true, 0)
		gInit = c.int("-ptx_opcode_initiation_mem_impostor", true, 1)
		gWhy = fmt.Sprintf("%s, %s", at("-ptx_opcode_latency_mem_impostor"), at("-ptx_opcode_initiation_mem_impostor"))
	case perfect:
		c.errs.add(file, c.line("-gpgpu_perfect_mem"), "under -gpgpu_perfect_mem 1 without a mem_impostor unit the global-load latency is not a configuration value; give it with --mem-latency N (cycles from dispatch to result)")
	default:
		l1 := c.int("-gpgpu_l1_latency", true, 0)
		l2 := c.int("-gpgpu_l2_rop_latency", true, 0)
		dram := c.int("-dram_latency", true, 0)
		gLat = l1 + l2 + dram
		gWhy = fmt.Sprintf("unloaded L1-miss latency %s + %s + %s = %d + %d + %d; not a bound under memory contention or DRAM row misses",
			at("-gpgpu_l1_latency"), at("-gpgpu_l2_rop_latency"), at("-dram_latency"), l1, l2, dram)
	}
	if err := c.errs.Err(); err != nil {
		return nil, err
	}
	if gInit < 1 {
		gInit = 1
	}
	ldstInit := int64(1)
	if !impostor && o.MemInit > 0 {
		gInit, ldstInit = int64(o.MemInit), int64(o.MemInit)
		gWhy += fmt.Sprintf("; initiation %d (--mem-init: memory accesses per warp instruction, one per cycle through LD/ST)", o.MemInit)
		if gLat < gInit {
			c.errs.add(file, 0, "--mem-latency %d < --mem-init %d; GPGPU-Sim's latency includes the initiation interval", gLat, gInit)
			return nil, c.errs.Err()
		}
	}

	// Units.
	var errs ErrorList
	intGroup, intCount := "int", nINT
	if nINT == 0 {
		intGroup, intCount = "sp", nSP
		note("-gpgpu_num_int_units 0: integer and ALU ops run on the SP unit, as in GPGPU-Sim")
	}
	dpGroup, dpCount := "dp", nDP
	if nDP == 0 {
		dpGroup, dpCount = "sfu", nSFU
		note("-gpgpu_num_dp_units 0: double-precision ops run on the SFU, as in GPGPU-Sim")
	}
	addUnit := func(name, group string, count, simLat, simInit int64, src, doc string) {
		if simInit < 1 {
			errs.add(file, 0, "unit %s: initiation interval %d from %s must be ≥ 1", name, simInit, src)
			return
		}
		if simLat < simInit {
			errs.add(file, 0, "unit %s: latency %d < initiation %d (%s); GPGPU-Sim's latency includes the initiation interval", name, simLat, simInit, src)
			return
		}
		d.Units = append(d.Units, Unit{
			Name: name, Init: Cycles(simInit), Lat: Cycles(simLat - simInit),
			Group: group, Count: int(max(count, 1)), GPGPUSimLatency: Cycles(simLat),
			Doc: doc + "; from " + src,
		})
	}
	// family adds the units of list slots 0-3 of one kind: one unit when
	// all four slots have the same timing, one per slot otherwise. It
	// returns the unit name of each slot.
	family := func(prefix, group string, count int64, lat, init []int64, latOpt, initOpt, what string) []string {
		same := true
		for s := 1; s < 4; s++ {
			if lat[s] != lat[0] || init[s] != init[0] {
				same = false
			}
		}
		names := make([]string, 4)
		if same {
			for s := range names {
				names[s] = prefix
			}
			addUnit(prefix, group, count, lat[0], init[0], fmt.Sprintf("%s and %s slots [0..3]", at(latOpt), at(initOpt)),
				what+" add/sub/min/max/mul/mad")
			return names
		}
		for s := range names {
			names[s] = prefix + "_" + simSlotSuffix[s]
			addUnit(names[s], group, count, lat[s], init[s], fmt.Sprintf("%s and %s slot [%d]", at(latOpt), at(initOpt), s),
				what+" "+simSlotNames[s])
		}
		return names
	}
	addUnit("alu", intGroup, intCount, 1, 1, "GPGPU-Sim's fixed ALU_OP timing", "every other opcode (ALU_OP, branches, barriers, calls, returns); the default unit")
	intU := family("int", intGroup, intCount, latInt, initInt, "-ptx_opcode_latency_int", "-ptx_opcode_initiation_int", "integer (and .f16)")
	int24 := []string{"int24", "int24"}
	if latInt[2] == latInt[3] && initInt[2] == initInt[3] {
		addUnit("int24", intGroup, intCount, latInt[2]+1, initInt[2]+1, at("-ptx_opcode_latency_int")+" slot [2] + 1 and "+at("-ptx_opcode_initiation_int")+" slot [2] + 1", "mul24 and mad24")
	} else {
		int24 = []string{"int24_mul", "int24_mad"}
		addUnit("int24_mul", intGroup, intCount, latInt[2]+1, initInt[2]+1, at("-ptx_opcode_latency_int")+" slot [2] + 1 and "+at("-ptx_opcode_initiation_int")+" slot [2] + 1", "mul24")
		addUnit("int24_mad", intGroup, intCount, latInt[3]+1, initInt[3]+1, at("-ptx_opcode_latency_int")+" slot [3] + 1 and "+at("-ptx_opcode_initiation_int")+" slot [3] + 1", "mad24")
	}
	shfl := ""
	if len(latInt) >= 6 && len(initInt) >= 6 {
		shfl = "int_shfl"
		addUnit(shfl, intGroup, intCount, latInt[5], initInt[5], at("-ptx_opcode_latency_int")+" and "+at("-ptx_opcode_initiation_int")+" slot [5]", "shfl")
	} else {
		note("shfl: rejected: -ptx_opcode_latency_int/-ptx_opcode_initiation_int give 5 values and GPGPU-Sim leaves the shfl slot [5] unset")
	}
	spU := family("sp", "sp", nSP, latFP, initFP, "-ptx_opcode_latency_fp", "-ptx_opcode_initiation_fp", ".f32")
	dpU := family("dp", dpGroup, dpCount, latDP, initDP, "-ptx_opcode_latency_dp", "-ptx_opcode_initiation_dp", ".f64")
	addUnit("sfu", "sfu", nSFU, latSFU, initSFU, at("-ptx_opcode_latency_sfu")+" and "+at("-ptx_opcode_initiation_sfu"), "sqrt sin cos ex2 lg2 rsqrt rcp")
	addUnit("sfu_idiv", "sfu", nSFU, latInt[4], initInt[4], at("-ptx_opcode_latency_int")+" and "+at("-ptx_opcode_initiation_int")+" slot [4]", "integer div and rem (GPGPU-Sim runs every division on the SFU)")
	addUnit("sfu_fdiv", "sfu", nSFU, latFP[4], initFP[4], at("-ptx_opcode_latency_fp")+" and "+at("-ptx_opcode_initiation_fp")+" slot [4]", "div .f32 (all rounding modes, .approx and .full)")
	addUnit("sfu_ddiv", "sfu", nSFU, latDP[4], initDP[4], at("-ptx_opcode_latency_dp")+" and "+at("-ptx_opcode_initiation_dp")+" slot [4]", "div .f64")
	if nTensor > 0 {
		addUnit("tensor", "tensor", nTensor, latTensor, initTensor, at("-ptx_opcode_latency_tesnor")+" and "+at("-ptx_opcode_initiation_tensor"), "wmma.mma")
	} else {
		note("wmma.mma: rejected: the config has no tensor-core unit")
	}
	if impostor {
		addUnit("gmem", "mem_impostor", nImpostor, gLat, gInit, gWhy, "global loads ld.global, ldu, tex, tld4: the fully pipelined fixed-latency mem_impostor unit of the ECRTS 2025 fork")
	} else {
		addUnit("gmem", "ldst", 1, gLat, gInit, gWhy, "loads through the LD/ST unit other than ld.shared (global, local, param, const, generic), ldu, tex, tld4")
	}
	if !impostor && gInit > 1 {
		addUnit("ldc", "ldst", 1, gLat-gInit+1, 1, "the global-load latency minus the --mem-init accesses ("+gWhy+")", "ld.param, ld.const and ld.local: LD/ST loads that generate no global access, initiation 1 (only with --mem-init > 1)")
	}
	addUnit("smem", "ldst", 1, max(smem, 1), 1, at("-gpgpu_smem_latency")+" with initiation 1", "ld.shared and st.shared, without bank conflicts")
	addUnit("ldst", "ldst", 1, gLat, ldstInit, "the global-load latency ("+gWhy+")", "stores other than st.shared, atomics, membar, txq, wmma.load/store: LD/ST memory ops; conservatively timed as a global load")
	if err := errs.Err(); err != nil {
		return nil, err
	}
	d.MemLatency = Cycles(gLat)
	d.DefaultUnit = "alu"
	d.Pipeline = Pipeline{
		Overhead:      SimPipelineOverhead,
		BranchWait:    BranchWaitTaken,
		RetIssues:     true,
		BarrierIssues: true,
		Doc: "GPGPU-Sim: every result completes latency + 4 cycles after issue (fixed front end, operand collection, write-back; " +
			"measured in the ECRTS 2025 single-warp GPGPU-Sim runs, docs/validation.md, \"Single-warp traces\"); a branch that redirects the warp flushes its instruction " +
			"buffer (scheduler_unit::cycle, control hazard) and the next instruction issues when the branch completes; a branch that " +
			"falls through leaves the buffer valid (the SIMT-stack PC equals the buffered PC), which the single-warp runs confirm " +
			"(bfs Kernel2 ends at the taken-only bound, 65 cycles); ret, exit and bar.sync issue down the ALU path (BRANCH/RET/BARRIER ops) " +
			"and the kernel ends when ret completes",
	}

	// Rules.
	rule := func(unit, doc string, pats ...string) {
		for _, p := range pats {
			d.Map = append(d.Map, Rule{Match: p, Unit: unit, Doc: doc})
		}
	}
	reject := func(why string, pats ...string) {
		for _, p := range pats {
			d.Map = append(d.Map, Rule{Match: p, Reject: why})
		}
	}
	op := func(name string) []string { return []string{name, name + ".*"} }
	typed := func(name, typ string) []string { return []string{name + "." + typ, name + ".*." + typ} }
	for _, u := range simUnknownOpcodes {
		reject("GPGPU-Sim's PTX front end does not know this opcode; no timing to import", op(u)...)
	}
	// Memory.
	if impostor {
		rule("gmem", "global load: mem_impostor", "ld.global.*", "ld.*.global.*")
	}
	rule("smem", "shared load: LD/ST, -gpgpu_smem_latency", "ld.shared*", "ld.*.shared*")
	if impostor {
		rule("alu", "the fork keeps ld.param, ld.local, ld.const and generic ld as 1-cycle ALU ops (perfect memory)", "ld.param*", "ld.local*", "ld.const*", "ld.*")
	} else {
		if gInit > 1 {
			rule("ldc", "param, const and local loads: no global access (--mem-init applies to global accesses only)", "ld.param*", "ld.const*", "ld.local*")
		}
		rule("gmem", "load through the LD/ST unit", "ld.*")
	}
	rule("gmem", "non-coherent and texture loads", append(op("ldu"), append(op("tex"), op("tld4")...)...)...)
	rule("smem", "shared store: LD/ST, -gpgpu_smem_latency", "st.shared*", "st.*.shared*")
	rule("ldst", "store (STORE_OP)", op("st")...)
	rule("ldst", "atomic (LOAD_OP)", op("atom")...)
	rule("ldst", "memory barrier (MEMORY_BARRIER_OP)", op("membar")...)
	rule("ldst", "texture query (LOAD_OP)", op("txq")...)
	rule("ldst", "tensor-core load/store (TENSOR_CORE_LOAD/STORE_OP)", "wmma.load.*", "wmma.store.*")
	// Arithmetic: .f32 on SP, .f64 on DP, any other type on INT.
	for s, ops := range simSlotOpcodes {
		for _, name := range ops {
			rule(spU[s], simSlotNames[s]+" .f32 (SP_OP)", typed(name, "f32")...)
			rule(dpU[s], simSlotNames[s]+" .f64 (DP_OP)", typed(name, "f64")...)
			rule(intU[s], simSlotNames[s]+" on other types (INTP_OP)", op(name)...)
		}
	}
	rule(int24[0], "mul24 (INTP_OP, int slot [2] + 1)", op("mul24")...)
	rule(int24[len(int24)-1], "mad24 (INTP_OP, int slot [3] + 1)", op("mad24")...)
	rule("sfu_fdiv", "div .f32 on the SFU", typed("div", "f32")...)
	rule("sfu_ddiv", "div .f64 on the SFU", typed("div", "f64")...)
	rule("sfu_idiv", "integer div on the SFU", op("div")...)
	rule("sfu_idiv", "integer rem on the SFU", op("rem")...)
	for _, name := range []string{"sqrt", "sin", "cos", "ex2", "lg2", "rsqrt", "rcp"} {
		rule("sfu", "SFU_OP", op(name)...)
	}
	if nTensor > 0 {
		rule("tensor", "TENSOR_CORE_OP", "wmma.*")
	} else {
		reject("the config has no tensor-core unit", "wmma.*")
	}
	if shfl != "" {
		rule(shfl, "int slot [5]", op("shfl")...)
	} else {
		reject("latency unknown: the config's -ptx_opcode_latency_int has no shfl slot [5] and GPGPU-Sim leaves it unset", op("shfl")...)
	}
	for _, name := range simALUOpcodes {
		rule("alu", "ALU path, latency 1, initiation 1", op(name)...)
	}

	situational := extra
	extra = nil
	note("latency convention: init = GPGPU-Sim initiation interval; lat = GPGPU-Sim latency - initiation (GPGPU-Sim counts from dispatch, initiation included); gpgpusim_latency keeps the original")
	note("routing: ptx_instruction::set_opcode_and_latency of GPGPU-Sim (cuda-sim.cc)%s; units are timing classes, group names the simulator's functional unit", map[bool]string{true: " with the mem_impostor routing of the ECRTS 2025 fork (LJeanmougin/gpgpu-sim_distribution@02e46d9)", false: ""}[impostor])
	note("default_unit alu: GPGPU-Sim routes every opcode not in its table to the ALU path (INT unit, SP without INT units) with latency 1, initiation 1")
	note("global loads (gmem): %s", gWhy)
	note("shared memory (smem): %s - 1 after an initiation of 1; bank conflicts are not modelled (the ECRTS 2025 fork removes them; upstream GPGPU-Sim adds cycles per conflict)", at("-gpgpu_smem_latency"))
	note("stores, atomics, membar (ldst): timed as a global load, a safe choice for the drain at the end of a kernel; GPGPU-Sim times them with its memory model")
	note("count: units per SM from %s, %s, %s, %s, %s; the analysis models one instance of each (-gpgpu_num_sched_per_core %s, -gpgpu_sub_core_model %s)",
		at("-gpgpu_num_int_units"), at("-gpgpu_num_sp_units"), at("-gpgpu_num_dp_units"), at("-gpgpu_num_sfu_units"), at("-gpgpu_num_tensor_core_units"),
		optVal(c, "-gpgpu_num_sched_per_core"), optVal(c, "-gpgpu_sub_core_model"))
	note("pipeline: overhead %d = GPGPU-Sim's fixed issue-to-completion time beyond the configured latency (measured in the ECRTS 2025 single-warp GPGPU-Sim runs, docs/validation.md), added to every result; branch_wait taken, ret_issues, barrier_issues (see [pipeline] doc)", SimPipelineOverhead)
	note("resources: units of one group run on one GPGPU-Sim functional unit (one dispatch register) and share one initiation FIFO in the analysis")

	d.Notes = append(extra, situational...)
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("imported description is invalid: %w", err)
	}
	return d, nil
}

func optVal(c *simConfig, name string) string {
	if o, ok := c.opts[name]; ok {
		return o.val
	}
	return "absent"
}
