package isa

import (
	"strconv"
	"strings"
)

// MangledParams returns the parameters of a kernel from its Itanium C++
// mangled name (_Z5tiledPfPKfi: float*, const float*, int), named as the
// PTX of the same build names them ("<name>_param_<i>") with their sizes
// in bytes (pointers 8: 64-bit addressing). It is how a SASS listing,
// which does not declare parameters, gets them (docs/sass.md). ok is
// false when the name is not mangled or a parameter's size is not known
// from the name alone (a structure passed by value, an array, a function
// type): then no layout is guessed.
func MangledParams(name string) (params []Param, ok bool) {
	if !strings.HasPrefix(name, "_Z") {
		return nil, false
	}
	d := &demangler{s: name[2:]}
	if !d.name() {
		return nil, false
	}
	if d.templ {
		// A template function encodes its return type first.
		if _, ok := d.typ(); !ok {
			return nil, false
		}
	}
	for d.i < len(d.s) {
		if d.s[d.i] == '.' { // clone suffixes (.1, .isra)
			break
		}
		t, ok := d.typ()
		if !ok {
			return nil, false
		}
		if t.void {
			if len(params) == 0 && d.i >= len(d.s) {
				return nil, true // f(void)
			}
			return nil, false
		}
		if t.size <= 0 {
			return nil, false
		}
		params = append(params, Param{Name: name + "_param_" + strconv.Itoa(len(params)), Type: t.name, Size: t.size})
	}
	return params, true
}

type demType struct {
	name string
	size int
	void bool
}

type demangler struct {
	s     string
	i     int
	subs  []demType // substitution candidates
	targs []demType // template arguments of the function
	templ bool
}

func (d *demangler) peek() byte {
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

// sourceName reads <length><identifier>.
func (d *demangler) sourceName() (string, bool) {
	j := d.i
	for j < len(d.s) && d.s[j] >= '0' && d.s[j] <= '9' {
		j++
	}
	if j == d.i {
		return "", false
	}
	n, err := strconv.Atoi(d.s[d.i:j])
	if err != nil || j+n > len(d.s) || n <= 0 {
		return "", false
	}
	id := d.s[j : j+n]
	d.i = j + n
	return id, true
}

// name reads the function's name: a source name, a nested name N...E, or
// St + source name, with an optional template argument list.
func (d *demangler) name() bool {
	switch {
	case d.peek() == 'N':
		d.i++
		for d.peek() == 'K' || d.peek() == 'V' || d.peek() == 'r' {
			d.i++
		}
		first := true
		for d.peek() != 'E' {
			if d.peek() == 0 {
				return false
			}
			if d.peek() == 'I' {
				if !d.templateArgs() {
					return false
				}
				continue
			}
			if d.peek() == 'S' {
				if _, ok := d.substitution(); !ok {
					return false
				}
				first = false
				continue
			}
			id, ok := d.sourceName()
			if !ok {
				return false
			}
			_ = id
			if !first {
				d.subs = append(d.subs, demType{name: "class"})
			}
			first = false
		}
		d.i++
		return true
	case strings.HasPrefix(d.s[d.i:], "St"):
		d.i += 2
	}
	if _, ok := d.sourceName(); !ok {
		return false
	}
	if d.peek() == 'I' {
		d.subs = append(d.subs, demType{name: "template"})
		return d.templateArgs()
	}
	return true
}

func (d *demangler) templateArgs() bool {
	d.i++ // I
	var args []demType
	for d.peek() != 'E' {
		switch d.peek() {
		case 0:
			return false
		case 'L': // a literal: L <type> <value> E
			d.i++
			if _, ok := d.typ(); !ok {
				return false
			}
			for d.peek() != 'E' && d.peek() != 0 {
				d.i++
			}
			if d.peek() != 'E' {
				return false
			}
			d.i++
			args = append(args, demType{name: "literal"})
		default:
			t, ok := d.typ()
			if !ok {
				return false
			}
			args = append(args, t)
		}
	}
	d.i++
	d.targs = args
	d.templ = true
	return true
}

var builtins = map[byte]demType{
	'b': {"bool", 1, false}, 'c': {"char", 1, false}, 'a': {"signed char", 1, false}, 'h': {"unsigned char", 1, false},
	's': {"short", 2, false}, 't': {"unsigned short", 2, false}, 'i': {"int", 4, false}, 'j': {"unsigned int", 4, false},
	'l': {"long", 8, false}, 'm': {"unsigned long", 8, false}, 'x': {"long long", 8, false}, 'y': {"unsigned long long", 8, false},
	'n': {"__int128", 16, false}, 'o': {"unsigned __int128", 16, false}, 'f': {"float", 4, false}, 'd': {"double", 8, false},
	'w': {"wchar_t", 4, false}, 'v': {"void", 0, true},
}

// substitution reads S_ or S<seq-id>_ (and the standard abbreviations,
// which name classes of unknown size).
func (d *demangler) substitution() (demType, bool) {
	d.i++ // S
	if d.peek() == '_' {
		d.i++
		if len(d.subs) == 0 {
			return demType{}, false
		}
		return d.subs[0], true
	}
	j := d.i
	for j < len(d.s) && (d.s[j] >= '0' && d.s[j] <= '9' || d.s[j] >= 'A' && d.s[j] <= 'Z') {
		j++
	}
	if j < len(d.s) && d.s[j] == '_' && j > d.i {
		n, err := strconv.ParseUint(d.s[d.i:j], 36, 32)
		d.i = j + 1
		if err != nil || int(n)+1 >= len(d.subs) {
			return demType{}, false
		}
		return d.subs[n+1], true
	}
	if d.i < len(d.s) && strings.IndexByte("tabsiod", d.s[d.i]) >= 0 {
		d.i++
		return demType{name: "std class"}, true
	}
	return demType{}, false
}

// typ reads one type.
func (d *demangler) typ() (demType, bool) {
	c := d.peek()
	if t, ok := builtins[c]; ok {
		d.i++
		return t, true
	}
	switch c {
	case 'P', 'R', 'O':
		d.i++
		inner, ok := d.typ()
		if !ok {
			return demType{}, false
		}
		t := demType{name: inner.name + "*", size: 8}
		d.subs = append(d.subs, t)
		return t, true
	case 'K', 'V', 'r':
		d.i++
		inner, ok := d.typ()
		if !ok {
			return demType{}, false
		}
		t := demType{name: "const " + inner.name, size: inner.size, void: inner.void}
		d.subs = append(d.subs, t)
		return t, true
	case 'D':
		if d.i+1 < len(d.s) {
			switch d.s[d.i+1] {
			case 'h', 's':
				d.i += 2
				return demType{name: "half", size: 2}, true
			case 'i':
				d.i += 2
				return demType{name: "char32_t", size: 4}, true
			case 'u':
				d.i += 2
				return demType{name: "char8_t", size: 1}, true
			case 'n':
				d.i += 2
				return demType{name: "nullptr_t", size: 8}, true
			case 'F':
				if strings.HasPrefix(d.s[d.i:], "DF16_") {
					d.i += 5
					return demType{name: "_Float16", size: 2}, true
				}
			}
		}
		return demType{}, false
	case 'S':
		return d.substitution()
	case 'T':
		d.i++
		n := 0
		if d.peek() != '_' {
			j := d.i
			for j < len(d.s) && d.s[j] >= '0' && d.s[j] <= '9' {
				j++
			}
			v, err := strconv.Atoi(d.s[d.i:j])
			if err != nil {
				return demType{}, false
			}
			n = v + 1
			d.i = j
		}
		if d.peek() != '_' || n >= len(d.targs) {
			return demType{}, false
		}
		d.i++
		t := d.targs[n]
		d.subs = append(d.subs, t)
		return t, true
	}
	if c >= '0' && c <= '9' || c == 'N' {
		// A class or enumeration by value: its size is not in the name.
		return demType{}, false
	}
	return demType{}, false
}
