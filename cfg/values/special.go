package values

import "strings"

// SpecialInfo describes a special register, by its canonical name (the PTX
// name without '%': "tid.x", "ntid.y", "laneid", "clock64"). It is the one
// list of special registers: the front ends' spellings map to it
// (CanonSpecial), divergence reads whether it varies between the lanes of a
// warp, and the value domains read its range.
type SpecialInfo struct {
	Name string
	W    int // width in bits
	// Varying: the value may differ between the lanes of a warp, or between
	// two reads by one lane (volatile counters), so the analysis treats it
	// as thread-varying.
	Varying bool
	// Launch: the value is a launch dimension (ntid, nctaid) or a thread
	// index within them (tid, ctaid, laneid), known from the launch.
	Launch bool
}

var specials = map[string]SpecialInfo{}

func init() {
	add := func(name string, w int, varying, launch bool) {
		specials[name] = SpecialInfo{Name: name, W: w, Varying: varying, Launch: launch}
	}
	for _, d := range []string{"x", "y", "z"} {
		add("tid."+d, 32, true, true)
		add("ntid."+d, 32, false, true)
		add("ctaid."+d, 32, false, true)
		add("nctaid."+d, 32, false, true)
		add("clusterid."+d, 32, false, false)
		add("nclusterid."+d, 32, false, false)
		add("cluster_ctaid."+d, 32, false, false)
		add("cluster_nctaid."+d, 32, false, false)
	}
	add("laneid", 32, true, true)
	// SASS: the generic address of the local window (c[0x0][0x20] on
	// sm_70 and later), the same for every thread of a launch.
	add("local_window", 64, false, false)
	for _, m := range []string{"eq", "le", "lt", "ge", "gt"} {
		add("lanemask_"+m, 32, true, true)
	}
	// Volatile per-warp values: conservatively varying (two reads differ).
	for _, n := range []string{"clock", "clock_hi", "warpid", "smid", "globaltimer_lo", "globaltimer_hi"} {
		add(n, 32, true, false)
	}
	for _, n := range []string{"clock64", "globaltimer"} {
		add(n, 64, true, false)
	}
	for i := 0; i < 8; i++ {
		add("pm"+string(rune('0'+i)), 32, true, false)
		add("pm"+string(rune('0'+i))+"_64", 64, true, false)
	}
	for _, n := range []string{"nwarpid", "nsmid", "cluster_ctarank", "cluster_nctarank", "is_explicit_cluster",
		"dynamic_smem_size", "total_smem_size", "aggr_smem_size", "reserved_smem_offset_begin",
		"reserved_smem_offset_end", "reserved_smem_offset_cap", "warp_sz"} {
		add(n, 32, false, false)
	}
	add("gridid", 64, false, false)
	for i := 0; i < 32; i++ {
		add("envreg"+itoa(i), 32, false, false)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}

// sassSpecials maps SASS S2R/S2UR/CS2R names to canonical names.
var sassSpecials = map[string]string{
	"SR_TID.X": "tid.x", "SR_TID.Y": "tid.y", "SR_TID.Z": "tid.z",
	"SR_CTAID.X": "ctaid.x", "SR_CTAID.Y": "ctaid.y", "SR_CTAID.Z": "ctaid.z",
	"SR_LANEID": "laneid", "SR_WARPID": "warpid", "SR_VIRTID": "warpid", "SR_SMID": "smid", "SR_VIRTUALSMID": "smid",
	"SR_EQMASK": "lanemask_eq", "SR_LEMASK": "lanemask_le", "SR_LTMASK": "lanemask_lt",
	"SR_GEMASK": "lanemask_ge", "SR_GTMASK": "lanemask_gt",
	"SR_CLOCKLO": "clock", "SR_CLOCKHI": "clock_hi", "SR_CLOCK": "clock64",
	"SR_GLOBALTIMERLO": "globaltimer_lo", "SR_GLOBALTIMERHI": "globaltimer_hi", "SR_GLOBALTIMER": "globaltimer",
	"SR_NTID": "ntid.x", "SR_NTID.X": "ntid.x", "SR_NTID.Y": "ntid.y", "SR_NTID.Z": "ntid.z",
	"SR_NCTAID.X": "nctaid.x", "SR_NCTAID.Y": "nctaid.y", "SR_NCTAID.Z": "nctaid.z",
}

// CanonSpecial returns the canonical name of a special register as written
// in PTX ("%tid.x", "WARP_SZ") or SASS ("SR_TID.X"), and whether it is
// known. An unknown special register has no info: it is treated as
// thread-varying and of unknown value.
func CanonSpecial(s string) (SpecialInfo, bool) {
	s = strings.TrimPrefix(s, "-")
	if n, ok := sassSpecials[strings.ToUpper(s)]; ok {
		return specials[n], true
	}
	n := strings.ToLower(strings.TrimPrefix(s, "%"))
	info, ok := specials[n]
	return info, ok
}

// SpecialVarying reports whether a special register, as written, may
// differ between the lanes of a warp (or between two reads): unknown
// special registers are varying, the sound default.
func SpecialVarying(s string) bool {
	info, ok := CanonSpecial(s)
	return !ok || info.Varying
}

// ActiveMask is the input name (InSpecial) of the active mask, the ballot
// of true (SASS VOTE.ANY Rd, PT, PT): not a special register, one value
// per execution of a block (Func.activeMask).
const ActiveMask = "activemask"
