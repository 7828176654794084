package ptx

import (
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// parseShared reads a .shared declaration, the current token being the
// .shared directive, through its ';':
//
//	[.extern] .shared [.align N] [.vN] .type name[N]...[, name[N]...];
//
// for the occupancy (isa.Resources). A size that cannot be read (an
// unknown type, a non-numeric dimension) is -1: unknown, never guessed.
// Like the statement it replaces (it used to be skipped), a malformed
// declaration is not an error here.
func (p *parser) parseShared(extern bool) []isa.SharedVar {
	p.next()
	var out []isa.SharedVar
	var align, elem, vec int64 = 0, 0, 1
	var cur *isa.SharedVar
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for p.tok != tEOF {
		switch {
		case p.tok == tPunct && p.lit == ";":
			flush()
			p.next()
			return out
		case p.tok == tPunct && (p.lit == "{" || p.lit == "}" || p.lit == "="):
			// Not a plain declaration (no initialiser exists for
			// .shared): leave the rest to skipStmt.
			if cur != nil {
				cur.Bytes = -1
			}
			flush()
			p.skipStmt()
			return out
		case p.tok == tDir && p.lit == ".align":
			p.next()
			if p.tok == tNum {
				if n, err := strconv.ParseInt(strings.TrimRight(p.lit, "Uu"), 0, 64); err == nil && n > 0 {
					align = n
				}
			}
		case p.tok == tDir && (p.lit == ".v2" || p.lit == ".v4" || p.lit == ".v8"):
			vec, _ = strconv.ParseInt(p.lit[2:], 10, 64)
		case p.tok == tDir:
			if n := typeBytes(p.lit); n > 0 {
				elem = n
			}
		case p.tok == tIdent:
			flush()
			cur = &isa.SharedVar{Name: strings.Clone(p.lit), Bytes: elem * vec, Align: align, Extern: extern, Pos: p.tf.Pos(p.pos)}
			if elem == 0 {
				cur.Bytes = -1
			}
		case p.tok == tPunct && p.lit == "[" && cur != nil:
			p.next()
			switch {
			case p.tok == tPunct && p.lit == "]":
				if !cur.Extern {
					cur.Bytes = -1 // an unsized array that is not .extern
				} else {
					cur.Bytes = 0
				}
			case p.tok == tNum:
				n, err := strconv.ParseInt(strings.TrimRight(p.lit, "Uu"), 0, 64)
				if err != nil || n < 0 || cur.Bytes < 0 || (n > 0 && cur.Bytes > (1<<40)/n) {
					cur.Bytes = -1
				} else {
					cur.Bytes *= n
				}
				p.next()
			default:
				cur.Bytes = -1
				for p.tok != tEOF && !(p.tok == tPunct && (p.lit == "]" || p.lit == ";")) {
					p.next()
				}
			}
			if !(p.tok == tPunct && p.lit == "]") {
				continue
			}
		case p.tok == tPunct && p.lit == ",":
			flush()
		}
		p.next()
	}
	flush()
	return out
}

// typeBytes returns the size of a PTX fundamental type directive (.b32:
// 4), 0 for another directive.
func typeBytes(t string) int64 {
	if len(t) < 3 {
		return 0
	}
	switch t[1] {
	case 'b', 'u', 's', 'f':
	default:
		return 0
	}
	switch t[2:] {
	case "8":
		return 1
	case "16":
		return 2
	case "32":
		return 4
	case "64":
		return 8
	case "128":
		return 16
	}
	return 0
}
