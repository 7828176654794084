package sass

import (
	"go/token"
	"strconv"
	"strings"
)

// cuobjdump -elf -sass: the ELF dump before the SASS.
//
// Device functions that ptxas keeps in sections of their own (nvcc -rdc=true
// or -G, clang -O0 -g) are called through relocations: cuobjdump -sass
// prints "CALL.ABS.NOINC 0x0" (or "JCAL 0x0"), the address the relocation
// fills in. With -elf it first prints the cubin's ELF sections, among them
// the symbol table, which marks kernels (STO_CUDA_ENTRY in "other"), and
// the relocation tables of each code section, which name the callee at
// each call's address:
//
//	64bit elf: type=2, abi=7, sm=80, toolkit=118, flags = 0x500550
//	…
//	.section .symtab
//	 index           value           size      info    other  shndx    name
//	 0x9               0           0x800     0x12        0   0x12     _Z5innerii
//	 0xb               0           0x300     0x12     0x10   0x14     _Z6nestedPii
//	…
//	.section .rel.text._Z6nestedPii	REL
//	0x70    _Z5outerii    R_CUDA_ABS47_34
//	…
//		code for sm_80
//
// The parser reads those two tables and skips the rest of the dump (hex
// words, .nv.info attributes, DWARF, the PTX of -G builds) up to the
// "code for" line that starts the SASS of the same cubin.

// elfState holds the tables of the last ELF dump read.
type elfState struct {
	on    bool   // inside an ELF dump
	table string // "symtab", "rel" or "" (a section not read)
	relFn string // the function whose code the "rel" table relocates
	seen  bool   // an ELF dump was read: its tables describe the SASS that follows

	syms   map[string]elfSym
	relocs map[string]map[int64]string // function -> instruction address -> symbol
}

// elfSym is a function symbol of the symbol table.
type elfSym struct {
	entry   bool // other & STO_CUDA_ENTRY: a kernel
	defined bool // shndx != 0: its code is in this cubin
}

// elfHeader reports whether s starts an ELF dump ("64bit elf: type=2, …").
func elfHeader(s string) bool {
	return strings.HasPrefix(s, "64bit elf:") || strings.HasPrefix(s, "32bit elf:")
}

// elfLine handles line s inside an ELF dump (or its header) and reports
// whether it consumed it: the "code for" line that ends the dump is left
// to the SASS parser.
func (p *parser) elfLine(pos token.Pos, s string) bool {
	e := &p.elf
	if elfHeader(s) {
		*e = elfState{on: true, seen: true, syms: map[string]elfSym{}, relocs: map[string]map[int64]string{}}
		if i := strings.Index(s, "sm="); i >= 0 {
			f := strings.FieldsFunc(s[i+3:], func(r rune) bool { return r == ',' || r == ' ' })
			if len(f) > 0 {
				if n, err := strconv.Atoi(f[0]); err == nil {
					p.setSM(pos, n)
				}
			}
		}
		return true
	}
	if strings.HasPrefix(s, "code for ") || strings.HasPrefix(s, "Fatbin ") {
		e.on = false
		return false
	}
	switch {
	case s == "":
		e.table = ""
	case strings.HasPrefix(s, ".section "):
		f := strings.Fields(s)
		e.table = ""
		if len(f) < 2 {
			break
		}
		if f[1] == ".symtab" {
			e.table = "symtab"
		} else if fn, ok := strings.CutPrefix(f[1], ".rel.text."); ok {
			e.table, e.relFn = "rel", fn
		}
	case e.table == "symtab":
		// index value size info other shndx name
		f := strings.Fields(s)
		if len(f) != 7 {
			break
		}
		info, ok1 := parseHexField(f[3])
		other, ok2 := parseHexField(f[4])
		shndx, ok3 := parseHexField(f[5])
		if ok1 && ok2 && ok3 && info&0xf == 2 { // STT_FUNC
			e.syms[strings.Clone(f[6])] = elfSym{entry: other&0x10 != 0, defined: shndx != 0}
		}
	case e.table == "rel":
		// offset symbol type
		f := strings.Fields(s)
		if len(f) != 3 {
			break
		}
		off, ok := parseHexField(f[0])
		if !ok {
			break
		}
		m := e.relocs[e.relFn]
		if m == nil {
			m = map[int64]string{}
			e.relocs[strings.Clone(e.relFn)] = m
		}
		m[int64(off)] = strings.Clone(f[1])
	}
	return true
}

// parseHexField parses "0x1c" or "0" (a table cell of cuobjdump -elf).
func parseHexField(s string) (uint64, bool) {
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		return parseHex(h, 63)
	}
	v, err := strconv.ParseUint(s, 10, 63)
	return v, err == nil
}
