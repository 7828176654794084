package prem

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// FuzzDecode: no input makes Decode panic or accept a schedule that
// Evaluate cannot check; every error is positioned in the file.
//
//	go test ./prem -run '^$' -fuzz FuzzDecode -fuzztime 2m
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/golden/*.txtar")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if src, ok := txtar.Parse(data).Get("schedule.toml"); ok {
			f.Add(src)
		}
	}
	f.Add([]byte("schema_version = 1\n[schedule]\nmode = \"table\"\n[[schedule.window]]\nparticipant = \"k.0\"\n"))
	f.Add([]byte("a = [[[[[[[[[[[[1]]]]]]]]]]]]\n"))
	defer func(n int) { MaxSweepWindows = n }(MaxSweepWindows)
	MaxSweepWindows = 100_000
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode("f.toml", data)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "f.toml") {
					t.Fatalf("error line without the file's name: %q", line)
				}
			}
			return
		}
		r, _, err := Evaluate(s, Bounds(s, nil))
		if err != nil {
			return // overflowing bounds are reported, not checked
		}
		var b bytes.Buffer
		if err := WriteText(&b, r); err != nil {
			t.Fatal(err)
		}
		if r.Verdict != "pass" && r.Verdict != "fail" {
			t.Fatalf("verdict %q", r.Verdict)
		}
	})
}

// TestSchemaKeys: the unknown-key hints list exactly the decoded keys.
func TestSchemaKeys(t *testing.T) {
	tags := func(v any) []string {
		var out []string
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			if tag := rt.Field(i).Tag.Get("toml"); tag != "" {
				out = append(out, tag)
			}
		}
		return out
	}
	for table, v := range map[string]any{"": rawSchedule{}, "platform": rawPlatform{}, "schedule": rawSched{}, "schedule.window": rawWindow{},
		"kernel": rawKernel{}, "kernel.phases": rawPhases{}, "kernel.phases.prefetch": rawRegion{}, "bound": rawBound{}, "output": rawOutput{}} {
		if got, want := tags(v), schemaKeys[table]; !reflect.DeepEqual(got, want) {
			t.Errorf("table %q: struct tags %v, schemaKeys %v", table, got, want)
		}
	}
}
