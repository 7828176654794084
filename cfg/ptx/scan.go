package ptx

import "strings"

// tokKind is the class of a lexical token.
type tokKind uint8

const (
	tEOF   tokKind = iota
	tIdent         // %r1, foo, $L__BB0_1, ld.global.v4.f32, shared::cta
	tDir           // .reg, .b32, .shared::cta
	tNum           // 12, 0x1F, 0f3F800000, 1.5e-3, 4U
	tStr           // "nounroll" (with quotes)
	tPunct         // one of , ; { } [ ] ( ) + - | ! @ : < > = * / & ^ ~ ?
)

func isLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '$'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdentChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '.' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isPunct(c byte) bool {
	switch c {
	case ',', ';', '{', '}', '[', ']', '(', ')', '+', '-', '|', '!', '@', ':', '<', '>', '=', '*', '/', '&', '^', '~', '?':
		return true
	}
	return false
}

// scanIdentTail returns the end of an identifier whose first character is
// at i-1: letters, digits, '_', '$', '.', and "::" pairs.
func scanIdentTail(src string, i int) int {
	for i < len(src) {
		c := src[i]
		if isIdentChar(c) {
			i++
			continue
		}
		if c == ':' && i+1 < len(src) && src[i+1] == ':' && i+2 < len(src) && isIdentChar(src[i+2]) {
			i += 2
			continue
		}
		break
	}
	return i
}

// next advances to the next token. Comments and white space are skipped;
// nl is set when a newline was crossed before the token.
func (p *parser) next() {
	src := p.src
	i := p.off
	p.nl = false
	for i < len(src) {
		c := src[i]
		if isSpace(c) {
			if c == '\n' {
				p.nl = true
			}
			i++
			continue
		}
		if c == '/' && i+1 < len(src) {
			if src[i+1] == '/' {
				for i < len(src) && src[i] != '\n' {
					i++
				}
				continue
			}
			if src[i+1] == '*' {
				start := i
				i += 2
				for {
					if i+1 >= len(src) {
						p.errorAt(start, "comment not terminated")
						i = len(src)
						break
					}
					if src[i] == '*' && src[i+1] == '/' {
						i += 2
						break
					}
					if src[i] == '\n' {
						p.nl = true
					}
					i++
				}
				continue
			}
		}
		break
	}
	p.pos = i
	if i >= len(src) {
		p.off = len(src)
		p.tok = tEOF
		p.lit = ""
		return
	}
	c := src[i]
	start := i
	switch {
	case isLetter(c) || c == '%':
		i = scanIdentTail(src, i+1)
		p.tok = tIdent
	case c == '.' && i+1 < len(src) && isLetter(src[i+1]):
		// A directive ends at the next '.': ".reg.b16 x;" (inline asm in
		// cuda_fp16.h) is ".reg" then ".b16", as ptxas reads it.
		i = scanIdentTail(src, i+1)
		if d := strings.IndexByte(src[start+1:i], '.'); d >= 0 {
			i = start + 1 + d
		}
		p.tok = tDir
	case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
		i++
		hex := c == '0' && i < len(src) && (src[i]|0x20 == 'x' || src[i]|0x20 == 'f' || src[i]|0x20 == 'd')
		for i < len(src) {
			d := src[i]
			if isDigit(d) || isLetter(d) || d == '.' {
				i++
				continue
			}
			if (d == '+' || d == '-') && !hex && src[i-1]|0x20 == 'e' {
				i++
				continue
			}
			break
		}
		p.tok = tNum
	case c == '"':
		i++
		for {
			if i >= len(src) || src[i] == '\n' {
				p.errorAt(start, "string literal not terminated")
				break
			}
			if src[i] == '\\' && i+1 < len(src) && src[i+1] != '\n' {
				i += 2
				continue
			}
			if src[i] == '"' {
				i++
				break
			}
			i++
		}
		p.tok = tStr
	case isPunct(c):
		i++
		p.tok = tPunct
	default:
		// Skip the whole (possibly multi-byte) character.
		i++
		for i < len(src) && src[i]&0xC0 == 0x80 {
			i++
		}
		p.errorf(start, "unexpected character %q", src[start:i])
		p.off = i
		p.next()
		return
	}
	p.off = i
	p.lit = src[start:i]
}

// is reports whether the current token is the punctuation c.
func (p *parser) is(c byte) bool {
	return p.tok == tPunct && p.lit[0] == c
}

// restOfLine returns the text from the scanner offset to the end of the
// line (comment stripped) and moves the scanner past it.
func (p *parser) restOfLine() string {
	src := p.src
	i := p.off
	start := i
	for i < len(src) && src[i] != '\n' {
		if src[i] == '/' && i+1 < len(src) && src[i+1] == '/' {
			break
		}
		if src[i] == '"' { // a string may contain "//"
			i++
			for i < len(src) && src[i] != '"' && src[i] != '\n' {
				i++
			}
			if i < len(src) && src[i] == '"' {
				i++
			}
			continue
		}
		i++
	}
	line := src[start:i]
	p.off = i
	return line
}
