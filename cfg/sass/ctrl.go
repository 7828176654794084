package sass

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// DecodeCtrl decodes the 21-bit scheduling control field shared by Maxwell
// to Blackwell (../shared/notes/isa-and-hardware.md §2.3): stall in bits
// 0–3, raw yield bit 4, write barrier 5–7, read barrier 8–10 (7 = none),
// wait mask 11–16, reuse 17–20. A barrier index of 6 does not exist and is
// an error.
func DecodeCtrl(raw uint32) (*isa.Ctrl, error) {
	c, err := decodeCtrl(raw)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func decodeCtrl(raw uint32) (isa.Ctrl, error) {
	raw &= 0x1fffff
	c := isa.Ctrl{
		Stall:    uint8(raw & 0xf),
		Yield:    raw>>4&1 == 1,
		WaitMask: uint8(raw >> 11 & 0x3f),
		Reuse:    uint8(raw >> 17 & 0xf),
		Raw:      raw,
	}
	wb, rb := raw>>5&7, raw>>8&7
	if wb == 6 || rb == 6 {
		return decodeCtrlErr(raw)
	}
	c.WriteBar, c.ReadBar = barIndex(wb), barIndex(rb)
	return c, nil
}

// barIndex is a barrier field other than 6: 7 is none (-1).
func barIndex(v uint32) int8 {
	if v == 7 {
		return -1
	}
	return int8(v)
}

// decodeCtrlErr reports the first non-existent barrier of raw.
func decodeCtrlErr(raw uint32) (isa.Ctrl, error) {
	if _, err := barField(raw>>5&7, "write"); err != nil {
		return isa.Ctrl{}, fmt.Errorf("control field 0x%06x: %v", raw, err)
	}
	_, err := barField(raw>>8&7, "read")
	return isa.Ctrl{}, fmt.Errorf("control field 0x%06x: %v", raw, err)
}

func barField(v uint32, what string) (int8, error) {
	switch {
	case v == 7:
		return -1, nil
	case v <= 5:
		return int8(v), nil
	}
	return 0, fmt.Errorf("%s barrier %d does not exist (0–5, 7 = none)", what, v)
}

// encodeCtrl computes the raw 21 bits of c.
func encodeCtrl(c *isa.Ctrl) uint32 {
	raw := uint32(c.Stall&0xf) | uint32(c.WaitMask&0x3f)<<11 | uint32(c.Reuse&0xf)<<17
	if c.Yield {
		raw |= 1 << 4
	}
	wb, rb := uint32(7), uint32(7)
	if c.WriteBar >= 0 {
		wb = uint32(c.WriteBar)
	}
	if c.ReadBar >= 0 {
		rb = uint32(c.ReadBar)
	}
	return raw | wb<<5 | rb<<8
}

// VoltaCtrl decodes the control field of a Volta-to-Blackwell instruction
// from the high 64-bit word of its encoding (bits 41–61).
func VoltaCtrl(hi uint64) (*isa.Ctrl, error) {
	c, err := voltaCtrl(hi)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func voltaCtrl(hi uint64) (isa.Ctrl, error) {
	if hi>>62 != 0 {
		return isa.Ctrl{}, fmt.Errorf("high word 0x%016x: bits 126–127 are not zero", hi)
	}
	return decodeCtrl(uint32(hi >> 41 & 0x1fffff))
}

// MaxwellCtrl decodes slot i (0–2) of a Maxwell/Pascal control word.
func MaxwellCtrl(word uint64, i int) (*isa.Ctrl, error) {
	return DecodeCtrl(maxwellSlot(word, i))
}

func maxwellSlot(word uint64, i int) uint32 {
	return uint32(word >> (21 * uint(i)) & 0x1fffff)
}

// FormatCtrl prints c in CuAssembler notation, reuse group first:
// [----:B------:R-:W-:Y:S00].
func FormatCtrl(c *isa.Ctrl) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < 4; i++ {
		if c.Reuse>>i&1 == 1 {
			b.WriteByte('R')
		} else {
			b.WriteByte('-')
		}
	}
	b.WriteString(":B")
	for i := 0; i < 6; i++ {
		if c.WaitMask>>i&1 == 1 {
			b.WriteByte(byte('0' + i))
		} else {
			b.WriteByte('-')
		}
	}
	b.WriteString(":R")
	b.WriteString(barChar(c.ReadBar))
	b.WriteString(":W")
	b.WriteString(barChar(c.WriteBar))
	if c.Yield {
		b.WriteString(":-")
	} else {
		b.WriteString(":Y")
	}
	fmt.Fprintf(&b, ":S%02d]", c.Stall)
	return b.String()
}

func barChar(v int8) string {
	if v < 0 {
		return "-"
	}
	return strconv.Itoa(int(v))
}

// parseCuasmCtrl parses a CuAssembler control prefix without its brackets:
// "B------:R-:W-:Y:S01" or, with the reuse group, "-R--:B------:R-:W-:-:S01".
// CuAssembler numbers barriers 0–5.
func parseCuasmCtrl(s string) (isa.Ctrl, error) {
	var buf [6]string
	f := splitColons(s, buf[:])
	c := isa.Ctrl{}
	if len(f) == 6 {
		if len(f[0]) != 4 {
			return isa.Ctrl{}, fmt.Errorf("reuse group %q: want 4 characters", f[0])
		}
		for i := 0; i < 4; i++ {
			switch f[0][i] {
			case 'R':
				c.Reuse |= 1 << i
			case '-':
			default:
				return isa.Ctrl{}, fmt.Errorf("reuse group %q: want R or -", f[0])
			}
		}
		f = f[1:]
	}
	if len(f) != 5 {
		return isa.Ctrl{}, fmt.Errorf("control prefix %q: want [reuse:]Bwait:Rn:Wn:Y:Snn", s)
	}
	w := f[0]
	if len(w) != 7 || w[0] != 'B' {
		return isa.Ctrl{}, fmt.Errorf("wait field %q: want B and 6 characters", w)
	}
	for i := 0; i < 6; i++ {
		switch ch := w[1+i]; {
		case ch == '-':
		case ch == byte('0'+i):
			c.WaitMask |= 1 << i
		default:
			return isa.Ctrl{}, fmt.Errorf("wait field %q: position %d must be %c or -", w, i, '0'+i)
		}
	}
	var err error
	if c.ReadBar, err = cuasmBar(f[1], 'R'); err != nil {
		return isa.Ctrl{}, err
	}
	if c.WriteBar, err = cuasmBar(f[2], 'W'); err != nil {
		return isa.Ctrl{}, err
	}
	switch f[3] {
	case "Y":
		c.Yield = false
	case "-":
		c.Yield = true
	default:
		return isa.Ctrl{}, fmt.Errorf("yield field %q: want Y or -", f[3])
	}
	if len(f[4]) != 3 || f[4][0] != 'S' {
		return isa.Ctrl{}, fmt.Errorf("stall field %q: want Snn", f[4])
	}
	n, err := strconv.Atoi(f[4][1:])
	if err != nil || n < 0 || n > 15 {
		return isa.Ctrl{}, fmt.Errorf("stall field %q: want S00–S15", f[4])
	}
	c.Stall = uint8(n)
	c.Raw = encodeCtrl(&c)
	return c, nil
}

// splitColons is strings.Split(s, ":") into buf; with more fields than
// buf holds it returns buf plus one (the callers only compare the count).
func splitColons(s string, buf []string) []string {
	n := 0
	for {
		k := strings.IndexByte(s, ':')
		if n == len(buf) {
			return append(buf, s)
		}
		if k < 0 {
			buf[n] = s
			return buf[:n+1]
		}
		buf[n] = s[:k]
		n++
		s = s[k+1:]
	}
}

func cuasmBar(s string, letter byte) (int8, error) {
	if len(s) != 2 || s[0] != letter {
		return 0, fmt.Errorf("barrier field %q: want %c- or %c0–%c5", s, letter, letter, letter)
	}
	if s[1] == '-' {
		return -1, nil
	}
	if s[1] < '0' || s[1] > '5' {
		return 0, fmt.Errorf("barrier field %q: want %c- or %c0–%c5", s, letter, letter, letter)
	}
	return int8(s[1] - '0'), nil
}

// parseMaxasCtrl parses a maxas prefix wait:read:write:yield:stall such as
// "01:-:1:Y:5". maxas numbers the read and write barriers 1–6 (1 is barrier
// 0); the wait field is the raw mask in hex ("01" is barrier 0, "06"
// barriers 1 and 2); Y is raw yield 0; the stall is one hex digit.
func parseMaxasCtrl(s string) (isa.Ctrl, error) {
	var buf [6]string
	f := splitColons(s, buf[:])
	if len(f) != 5 {
		return isa.Ctrl{}, fmt.Errorf("maxas control %q: want wait:read:write:yield:stall", s)
	}
	c := isa.Ctrl{}
	if f[0] != "--" {
		v, err := strconv.ParseUint(f[0], 16, 8)
		if err != nil || len(f[0]) != 2 || v > 0x3f {
			return isa.Ctrl{}, fmt.Errorf("maxas wait mask %q: want -- or two hex digits up to 3f", f[0])
		}
		c.WaitMask = uint8(v)
	}
	var err error
	if c.ReadBar, err = maxasBar(f[1]); err != nil {
		return isa.Ctrl{}, err
	}
	if c.WriteBar, err = maxasBar(f[2]); err != nil {
		return isa.Ctrl{}, err
	}
	switch f[3] {
	case "Y":
	case "-":
		c.Yield = true
	default:
		return isa.Ctrl{}, fmt.Errorf("maxas yield %q: want Y or -", f[3])
	}
	v, err := strconv.ParseUint(f[4], 16, 8)
	if err != nil || len(f[4]) != 1 {
		return isa.Ctrl{}, fmt.Errorf("maxas stall %q: want one hex digit", f[4])
	}
	c.Stall = uint8(v)
	c.Raw = encodeCtrl(&c)
	return c, nil
}

func maxasBar(s string) (int8, error) {
	if s == "-" {
		return -1, nil
	}
	if len(s) != 1 || s[0] < '1' || s[0] > '6' {
		return 0, fmt.Errorf("maxas barrier %q: want - or 1–6", s)
	}
	return int8(s[0] - '1'), nil
}

// isMaxasCtrl reports whether s has the shape of a maxas prefix.
func isMaxasCtrl(s string) bool {
	if len(s) < 9 || strings.Count(s, ":") != 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == ':' || c == '-' || c == 'Y' || isHex(c)) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// annotCtrl builds the control field stated by CUDA 12.8 annotations
// (&wr=, &rd=, &wr_early=, &req={…}, ?transN, ?WAITN_END_GROUP), given as
// the blank-separated text anns. ok is false when no annotation states a
// stall.
func annotCtrl(anns string) (c isa.Ctrl, ok bool, err error) {
	c = isa.Ctrl{WriteBar: -1, ReadBar: -1}
	var buf [8]string
	for _, a := range fields(anns, buf[:0]) {
		switch {
		case strings.HasPrefix(a, "&wr="):
			v, err := annotBar(a[4:])
			if err != nil {
				return isa.Ctrl{}, false, fmt.Errorf("annotation %q: %v", a, err)
			}
			c.WriteBar = v
		case strings.HasPrefix(a, "&rd="), strings.HasPrefix(a, "&wr_early="):
			v, err := annotBar(a[strings.IndexByte(a, '=')+1:])
			if err != nil {
				return isa.Ctrl{}, false, fmt.Errorf("annotation %q: %v", a, err)
			}
			c.ReadBar = v
		case strings.HasPrefix(a, "&req={") && strings.HasSuffix(a, "}"):
			for list := a[6 : len(a)-1]; ; {
				x, more, found := strings.Cut(list, ",")
				n, err := strconv.Atoi(strings.TrimSpace(x))
				if err != nil || n < 0 || n > 5 {
					return isa.Ctrl{}, false, fmt.Errorf("annotation %q: barrier %q is not 0–5", a, x)
				}
				c.WaitMask |= 1 << n
				if !found {
					break
				}
				list = more
			}
		case strings.HasPrefix(a, "?trans"):
			n, err := strconv.Atoi(a[6:])
			if err != nil || n < 0 || n > 15 {
				return isa.Ctrl{}, false, fmt.Errorf("annotation %q: stall is not 0–15", a)
			}
			c.Stall, c.Yield, ok = uint8(n), true, true
		case strings.HasPrefix(a, "?WAIT") && strings.HasSuffix(a, "_END_GROUP"):
			n, err := strconv.Atoi(a[5 : len(a)-10])
			if err != nil || n < 0 || n > 15 {
				return isa.Ctrl{}, false, fmt.Errorf("annotation %q: stall is not 0–15", a)
			}
			c.Stall, c.Yield, ok = uint8(n), false, true
		default:
			return isa.Ctrl{}, false, fmt.Errorf("unknown scheduling annotation %q", a)
		}
	}
	c.Raw = encodeCtrl(&c)
	return c, ok, nil
}

// fields is strings.Fields(s) appended to buf, without allocating for
// ASCII text of up to cap(buf) fields.
func fields(s string, buf []string) []string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return append(buf, strings.Fields(s)...)
		}
	}
	for i := 0; i < len(s); {
		for i < len(s) && isFieldSpace(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isFieldSpace(s[j]) {
			j++
		}
		if j > i {
			buf = append(buf, s[i:j])
		}
		i = j
	}
	return buf
}

// isFieldSpace is unicode.IsSpace for bytes below 0x80 (strings.Fields).
func isFieldSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func annotBar(s string) (int8, error) {
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 8)
	if err != nil || v > 5 {
		return 0, fmt.Errorf("barrier %q is not 0x0–0x5", s)
	}
	return int8(v), nil
}
