package hwdesc

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeStrictIndexedLines: DecodeStrict gives the line of each element
// of an array of tables and of the tables under an element, by index.
func TestDecodeStrictIndexedLines(t *testing.T) {
	doc := `top = 1
[[kernel]]
id = "a"
[[kernel]]
id = "b"
  [kernel.phases]
  prefetch = { region = "p" }
[[bound]]
kernel = "b"
`
	var v struct {
		Top    int
		Kernel []struct {
			ID     string `toml:"id"`
			Phases struct{ Prefetch struct{ Region string } }
		}
		Bound []struct{ Kernel string }
	}
	lines, err := DecodeStrict("f.toml", []byte(doc), &v, Schema{Keys: map[string][]string{
		"": {"top", "kernel", "bound"}, "kernel": {"id", "phases"}, "kernel.phases": {"prefetch"}, "kernel.phases.prefetch": {"region"}, "bound": {"kernel"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"top": 1, "kernel": 2, "kernel.id": 3, "kernel[0]": 2, "kernel[0].id": 3, "kernel[1]": 4, "kernel[1].id": 5,
		"kernel.phases": 6, "kernel.phases.prefetch": 7, "kernel[1].phases": 6, "kernel[1].phases.prefetch": 7,
		"bound": 8, "bound.kernel": 9, "bound[0]": 8, "bound[0].kernel": 9}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("lines mismatch (-want +got):\n%s", d)
	}
}

// A key inside an inline table is reported at the line of the table's key.
func TestDecodeStrictInlineUnknownKey(t *testing.T) {
	doc := "a = 1\nt = { good = 1, bda = 2 }\n"
	var v struct {
		A int
		T struct{ Good int }
	}
	_, err := DecodeStrict("f.toml", []byte(doc), &v, Schema{Keys: map[string][]string{"": {"a", "t"}, "t": {"good"}}})
	if err == nil || err.Error() != `f.toml:2: unknown key "t.bda"` {
		t.Errorf("err = %v, want f.toml:2: unknown key \"t.bda\"", err)
	}
}
