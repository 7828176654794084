package prem

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// check decodes a schedule and evaluates it with its [[bound]] entries.
func check(t testing.TB, name string, src []byte) *Result {
	t.Helper()
	s, err := Decode(name, src)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	r, _, err := Evaluate(s, Bounds(s, nil))
	if err != nil {
		t.Fatalf("evaluate: %v", err)
	}
	return r
}

// TestGolden checks each testdata/golden/*.txtar schedule (the golden
// verdicts of prem-schedules.md §6) against its text and JSON reports
// (-update rewrites them). TestNotesNumbers checks the numbers the notes
// derive independently of these files.
func TestGolden(t *testing.T) {
	txtar.Golden(t, "testdata/golden/*.txtar", func(t *testing.T, a *txtar.Archive) map[string][]byte {
		r := check(t, "schedule.toml", a.Input(t, "schedule.toml"))
		var text bytes.Buffer
		if err := WriteText(&text, r); err != nil {
			t.Fatal(err)
		}
		js, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return map[string][]byte{"want": text.Bytes(), "want.json": append(js, '\n')}
	})
}
