package sass

import (
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// knownOpcodes is the union of the Accel-Sim opcode maps (kepler, pascal,
// volta, turing, ampere; ../shared/hw/sass_opcodes.tsv) plus the Fermi,
// Hopper and Blackwell mnemonics seen in real listings. An opcode outside
// this set is parsed by the generic rule with a warning.
var knownOpcodes = makeSet(`
	ATOM ATOMG ATOMS B2R BAR BFE BFI BMMA BMOV BMSK BPT BRA
	BREAK BREV BRK BRX BRXU BSSY BSYNC CAL CALL CCTL CCTLL CCTLT
	CONT CS2R CSET CSETP CSMTEST DADD DEPBAR DFMA DMMA DMNMX DMUL DSET
	DSETP ERRBAR EXIT F2F F2FP F2I F2IP FADD FADD32I FCHK FCMP FFMA
	FFMA32I FLO FMNMX FMUL FMUL32I FRND FSEL FSET FSETP FSWZ FSWZADD GETLMEMBASE
	HADD2 HADD2_32I HFMA2 HFMA2_32I HMMA HMNMX2 HMUL2 HMUL2_32I HSET2 HSETP2 I2F I2FP
	I2I I2IP IABS IADD IADD3 IADD32I ICMP IDP IDP4A IMAD IMADSP IMMA
	IMNMX IMUL IMUL32I ISAD ISCADD ISCADD32I ISET ISETP ISUB JCAL JMP JMX
	JMXU KILL LD LDC LDG LDGDEPBAR LDGSTS LDL LDS LDSLK LDSM LEA
	LEPC LOP LOP3 LOP32I MATCH MEMBAR MOV MOV32I MOVM MUFU NANOSLEEP NOP
	P2R PBK PCNT PEXIT PLOP3 PMTRIG POPC PRET PRMT PSET PSETP QSPC
	R2B R2P R2UR RED REDUX RET RPCMOV RRO RTT S2R S2UR SEL
	SETCTAID SETLMEMBASE SGXT SHF SHFL SHL SHR SSY ST STG STL STS
	STSCUL SUATOM SUBFM SUCLAMP SUEAU SULD SULDGA SUQUERY SURED SUST SUSTGA SYNC
	TEX TEXS TLD TLD4 TLD4S TLDS TMML TXD TXQ UBMSK UBREV UCLEA
	UF2FP UFLO UIADD3 UIMAD UISETP ULDC ULEA ULOP ULOP3 ULOP32I UMOV UP2UR
	UPLOP3 UPOPC UPRMT UPSETP UR2UP USEL USGXT USHF USHL USHR VABSDIFF VABSDIFF4
	VADD VMNMX VOTE VOTEU VOTE_VTG WARPSYNC XMAD YIELD

	KIL LDU STUL LDLK STUL SSY IMADU IMADU32I IMAD32I ISCADD32I FMAD FMAD32I DMNMX
	VSET VSETP VMAD VSHL VSHR TXA TEXDEPBAR SHFL CCTLL SULDGA SUSTGA
	LDCU REDG REDAS UTMALDG UTMASTG UTMAPF UTMACCTL UBLKCP UBLKRED UBLKPF SYNCS HGMMA
	IGMMA QGMMA BGMMA WARPGROUP WARPGROUPSET ACQBULK ACQSHMINIT ELECT ENDCOLLECTIVE
	FENCE USETMAXREG UCGABAR_ARV UCGABAR_WAIT UCGABAR_GET UCGABAR_SET LDGMC STSM
	VIADD VIADDMNMX VIMNMX VIMNMX3 VHMNMX FMNMX3 UVIADD UVIRTCOUNT ULEPC UMEMSETS
	UGETNEXTWORKID UTCBAR UTCMMA UTCHMMA UTCQMMA UTCIMMA UTCSHIFT UTCCP UTMAREDG
	LDTM STTM CREDUX CS2UR UI2FP UF2F UFADD UFFMA UFMUL UFSETP UFSEL UFMNMX UIMNMX
	UISETP ULDC UMOV UPOPC USEL FADD2 FFMA2 FMUL2 FHADD FHFMA F2FP HFMA2 IADD
	FMUL FSWZADD OMMA QMMA IMUL STG LDG
`)

func makeSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// noDst lists opcodes whose first operand is a source: stores, reductions,
// control transfer, barriers, fences and reconvergence bookkeeping.
var noDst = makeSet(`
	ST STG STS STL STSM STUL SUST SUSTGA RED REDG REDAS SURED
	BRA BRX BRXU JMP JMX JMXU CAL CALL JCAL RET EXIT KIL KILL BPT
	BAR MEMBAR ERRBAR FENCE CCTL CCTLL CCTLT DEPBAR TEXDEPBAR WARPSYNC NOP YIELD NANOSLEEP
	SSY PBK PCNT PRET PEXIT SYNC BRK CONT BSYNC BREAK RTT
	UTMASTG UTMAPF UTMACCTL UBLKCP UBLKRED UBLKPF UTMALDG ACQBULK ACQSHMINIT
	WARPGROUP WARPGROUPSET ENDCOLLECTIVE USETMAXREG UCGABAR_ARV UCGABAR_WAIT
	UTCBAR UTMAREDG SETCTAID SETLMEMBASE PMTRIG
`)

// twoDst lists opcodes that always write their first two operands.
var twoDst = makeSet(`
	ISETP FSETP DSETP HSETP2 PSETP PLOP3 CSETP UISETP UPSETP UPLOP3 UFSETP
	VOTE VOTEU TEXS TLDS TLD4S VSETP
`)

// carryOut lists opcodes whose first destination may be followed by
// written predicates (Volta+ carry-outs, SHFL's and ATOM's leading
// predicate).
var carryOut = makeSet(`
	IADD3 UIADD3 IADD IADD32I LEA ULEA IMAD UIMAD IMAD32I LOP3 ULOP3 SHFL
	ATOM ATOMG ATOMS LOP LOP32I IMNMX VIADD UVIADD HADD2 FCHK
`)

// memInfo classifies loads, stores and atomics by base opcode.
type memInfo struct {
	kind  isa.Kind
	space isa.Space
}

var memOps = map[string]memInfo{
	"LD": {isa.KindLoad, isa.SpaceGeneric}, "LDU": {isa.KindLoad, isa.SpaceGeneric},
	"LDG": {isa.KindLoad, isa.SpaceGlobal}, "LDGSTS": {isa.KindLoad, isa.SpaceGlobal},
	"LDGMC": {isa.KindLoad, isa.SpaceGlobal},
	"LDS":   {isa.KindLoad, isa.SpaceShared}, "LDSM": {isa.KindLoad, isa.SpaceShared},
	"LDSLK": {isa.KindLoad, isa.SpaceShared},
	"LDL":   {isa.KindLoad, isa.SpaceLocal}, "LDLK": {isa.KindLoad, isa.SpaceLocal},
	"LDC": {isa.KindLoad, isa.SpaceConst}, "ULDC": {isa.KindLoad, isa.SpaceConst},
	"LDCU": {isa.KindLoad, isa.SpaceConst},
	"TEX":  {isa.KindLoad, isa.SpaceTexture}, "TEXS": {isa.KindLoad, isa.SpaceTexture},
	"TLD": {isa.KindLoad, isa.SpaceTexture}, "TLDS": {isa.KindLoad, isa.SpaceTexture},
	"TLD4": {isa.KindLoad, isa.SpaceTexture}, "TLD4S": {isa.KindLoad, isa.SpaceTexture},
	"TMML": {isa.KindLoad, isa.SpaceTexture}, "TXD": {isa.KindLoad, isa.SpaceTexture},
	"TXQ": {isa.KindLoad, isa.SpaceTexture}, "TXA": {isa.KindLoad, isa.SpaceTexture},
	"SULD": {isa.KindLoad, isa.SpaceSurface}, "SULDGA": {isa.KindLoad, isa.SpaceSurface},
	"ST": {isa.KindStore, isa.SpaceGeneric}, "STG": {isa.KindStore, isa.SpaceGlobal},
	"STS": {isa.KindStore, isa.SpaceShared}, "STSM": {isa.KindStore, isa.SpaceShared},
	"STL": {isa.KindStore, isa.SpaceLocal}, "STUL": {isa.KindStore, isa.SpaceLocal},
	"STSCUL": {isa.KindStore, isa.SpaceShared},
	"SUST":   {isa.KindStore, isa.SpaceSurface}, "SUSTGA": {isa.KindStore, isa.SpaceSurface},
	"ATOM": {isa.KindAtomic, isa.SpaceGeneric}, "ATOMG": {isa.KindAtomic, isa.SpaceGlobal},
	"ATOMS": {isa.KindAtomic, isa.SpaceShared}, "RED": {isa.KindAtomic, isa.SpaceGeneric},
	"REDG": {isa.KindAtomic, isa.SpaceGlobal}, "REDAS": {isa.KindAtomic, isa.SpaceShared},
	"SUATOM": {isa.KindAtomic, isa.SpaceSurface}, "SURED": {isa.KindAtomic, isa.SpaceSurface},
}

// Control-flow classes by base opcode.
var (
	// reconvPush: set a reconvergence, break, continue, return or exit point
	// (Kepler–Pascal SIMT stack) or a convergence barrier (Volta+).
	reconvPush = makeSet(`SSY PBK PCNT PRET PEXIT BSSY`)
	// reconvPop: pop the SIMT stack: control goes to the target of the
	// innermost matching push.
	reconvPop = map[string]string{"SYNC": "SSY", "BRK": "PBK", "CONT": "PCNT"}
	// reconvOther: Volta+ convergence-barrier bookkeeping without control transfer.
	reconvOther = makeSet(`BSYNC BREAK BMOV`)
)

// opClass is what the tables above say about one base opcode, so that
// classifying an instruction costs one map lookup.
type opClass struct {
	known, noDst, twoDst, carryOut bool
	push, other                    bool   // reconvPush, reconvOther
	pop                            string // reconvPop
	mem                            memInfo
}

var opClasses = func() map[string]opClass {
	m := map[string]opClass{}
	set := func(names map[string]bool, f func(*opClass)) {
		for op := range names {
			c := m[op]
			f(&c)
			m[op] = c
		}
	}
	set(knownOpcodes, func(c *opClass) { c.known = true })
	set(noDst, func(c *opClass) { c.noDst = true })
	set(twoDst, func(c *opClass) { c.twoDst = true })
	set(carryOut, func(c *opClass) { c.carryOut = true })
	set(reconvPush, func(c *opClass) { c.push = true })
	set(reconvOther, func(c *opClass) { c.other = true })
	for op, push := range reconvPop {
		c := m[op]
		c.pop = push
		m[op] = c
	}
	for op, mi := range memOps {
		c := m[op]
		c.mem = mi
		m[op] = c
	}
	return m
}()

// gen is an instruction-set generation, which fixes the listing layout.
type gen uint8

const (
	genUnknown gen = iota
	genFermi       // sm_2x: no control words
	genKepler      // sm_3x: one control word per 7 instructions
	genMaxwell     // sm_5x, sm_6x: one control word per 3 instructions
	genVolta       // sm_70 and later: 128-bit instructions, control bits in the high word
)

func genOf(sm int) gen {
	switch {
	case sm <= 0:
		return genUnknown
	case sm < 30:
		return genFermi
	case sm < 50:
		return genKepler
	case sm < 70:
		return genMaxwell
	}
	return genVolta
}
