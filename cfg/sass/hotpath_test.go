package sass

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The hand-written scanners of the hot path must agree with the library
// functions they replace.

func TestParseHexMatchesStrconv(t *testing.T) {
	for _, s := range []string{
		"", "0", "f", "F", "0x1", "g", "-1", "+1", "1_0", " 1",
		"000fc40000000f00", "ffffffffffffffff", "10000000000000000",
		"7fffffffffffffff", "8000000000000000", "00000000000000000001",
		"0000000000000000ffffffffffffffff", "00000000000000010000000000000000",
		"deadBEEF", "0010", "1b0", "12345678901234567",
	} {
		for _, bits := range []uint{63, 64} {
			want, err := strconv.ParseUint(s, 16, int(bits))
			got, ok := parseHex(s, bits)
			if ok != (err == nil) || ok && got != want {
				t.Errorf("parseHex(%q, %d) = %#x, %v; strconv: %#x, %v", s, bits, got, ok, want, err)
			}
		}
	}
}

func TestFieldsMatchesStrings(t *testing.T) {
	for _, s := range []string{"", " ", "a", " a  b\tc\r\n", "&wr=0x1   ?trans7", "a\u00a0b c", "a\u2003b", "x\x85y"} {
		want := strings.Fields(s)
		got := fields(s, nil)
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("fields(%q) (-want +got):\n%s", s, diff)
		}
	}
}

func TestSplitColonsMatchesStrings(t *testing.T) {
	for _, s := range []string{"", ":", "a", "a:b", "B------:R-:W-:Y:S01", "-R--:B------:R-:W-:-:S01", "1:2:3:4:5:6:7", "::::::::"} {
		want := strings.Split(s, ":")
		var buf [6]string
		got := splitColons(s, buf[:])
		if len(want) > 6 {
			if len(got) != 7 {
				t.Errorf("splitColons(%q): %d fields, want 7 (more than 6)", s, len(got))
			}
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("splitColons(%q) (-want +got):\n%s", s, diff)
		}
	}
}

// TestKeepStable checks that arena strings survive later copies, also
// across arena chunks.
func TestKeepStable(t *testing.T) {
	var a alloc
	var kept, want []string
	for i := 0; i < 20000; i++ {
		s := strings.Repeat(strconv.Itoa(i), 1+i%7)
		kept = append(kept, a.keep(s))
		want = append(want, s)
	}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("kept strings changed (-want +got):\n%s", diff)
	}
}
