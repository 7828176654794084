package input

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Hidden reports whether r changes how the text around it is shown
// rather than showing itself: C0 controls other than tab and newline,
// DEL, C1 controls, the Unicode bidirectional controls (which reorder a
// line: "Trojan Source"), zero-width characters, the byte order mark, and
// the line and paragraph separators. Text from an input (kernel names,
// file names, messages quoting a listing) is shown with such characters
// made visible (Visible), in every output format.
func Hidden(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi
		return true
	case r >= 0x200b && r <= 0x200d, r == 0xfeff, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// Visible returns s with every Hidden character written as a Go escape
// (\x1b, \u202e) and every byte that is not UTF-8 as \xNN; tab and
// newline are kept.
func Visible(s string) string {
	if !needsVisible(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case Hidden(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case Hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// OneLine is Visible with tabs as spaces and line breaks as " ", for a
// text shown on one line.
func OneLine(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\t", " ").Replace(s)
	return Visible(s)
}

func needsVisible(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || Hidden(r) {
			return true
		}
	}
	return false
}

// VisibleWriter returns a writer that writes to w what it is given with
// the Hidden characters made visible (Visible). A UTF-8 sequence cut
// between two writes is kept until the next one (Flush writes it as
// \xNN). gpuwcet writes its standard output and standard error through
// it, so that a hostile name in an input cannot send escape sequences to
// a terminal.
func VisibleWriter(w io.Writer) *VisibleW { return &VisibleW{w: w} }

// Flush writes an incomplete UTF-8 sequence kept from the last write.
func (v *VisibleW) Flush() error {
	if len(v.tail) == 0 {
		return nil
	}
	t := v.tail
	v.tail = nil
	_, err := io.WriteString(v.w, Visible(string(t)))
	return err
}

// VisibleW is the writer of VisibleWriter.
type VisibleW struct {
	w    io.Writer
	tail []byte // an incomplete UTF-8 sequence at the end of the last write
}

func (v *VisibleW) Write(p []byte) (int, error) {
	data := append(v.tail, p...)
	v.tail = nil
	// Keep an incomplete (but possibly valid) sequence at the end.
	if cut := incompleteTail(data); cut > 0 {
		v.tail = append([]byte(nil), data[len(data)-cut:]...)
		data = data[:len(data)-cut]
	}
	if _, err := io.WriteString(v.w, Visible(string(data))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// incompleteTail returns the length of a UTF-8 sequence at the end of b
// that is the start of a longer one (0 when none).
func incompleteTail(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}
