package platform

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/hwdesc"
)

func TestBuiltins(t *testing.T) {
	if diff := cmp.Diff([]string{"jetson-agx-orin", "jetson-agx-xavier", "jetson-tx2"}, Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	for _, n := range Names() {
		p, err := Builtin(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if _, err := p.ArchLimits(); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		if !strings.Contains(p.Source, "https://") {
			t.Errorf("%s: source %q has no upstream URL", n, p.Source)
		}
	}
	tx2, _ := Builtin("jetson-tx2")
	if tx2.Arch != "sm_62" || tx2.SMs != 2 || tx2.LaunchOverhead == nil || tx2.LaunchOverhead.MaxNS != 49000 || tx2.LaunchOverhead.Kind != KindMeasured {
		t.Errorf("jetson-tx2: %+v, launch %+v", tx2, tx2.LaunchOverhead)
	}
	if tx2.DispatchLatency != nil {
		t.Errorf("jetson-tx2: a dispatch latency with no source in the seeds: %+v", tx2.DispatchLatency)
	}
}

// TestSchemaMatchesStruct checks the schema against the struct tags.
func TestSchemaMatchesStruct(t *testing.T) {
	tags := func(v any) []string {
		var ks []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			if tag := rt.Field(i).Tag.Get("toml"); tag != "" && tag != "-" {
				ks = append(ks, strings.Split(tag, ",")[0])
			}
		}
		slices.Sort(ks)
		return ks
	}
	sorted := func(ks []string) []string { ks = slices.Clone(ks); slices.Sort(ks); return ks }
	for table, v := range map[string]any{"": Platform{}, "launch_overhead": Overhead{}, "persistent_handshake": Overhead{}, "dispatch_latency": Latency{}} {
		if diff := cmp.Diff(tags(v), sorted(schema.Keys[table])); diff != "" {
			t.Errorf("table %q: schema keys (-struct +schema):\n%s", table, diff)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	const good = `name = "p"
arch = "sm_62"
sms = 2
clock_mhz = 1300
source = "data sheet"
`
	if _, err := Decode("p.toml", []byte(good)); err != nil {
		t.Fatalf("good platform: %v", err)
	}
	for _, c := range []struct {
		name, text, want string
	}{
		{"unknown key", good + "sm_count = 4\n", `p.toml:6: unknown key "sm_count" (did you mean "sms"?)`},
		{"unknown arch", strings.Replace(good, "sm_62", "sm_99", 1), "p.toml:2: arch: unknown architecture \"sm_99\""},
		{"zero sms", strings.Replace(good, "sms = 2", "sms = 0", 1), "p.toml:3: sms is 0"},
		{"negative clock", strings.Replace(good, "1300", "-1", 1), "p.toml:4: clock_mhz is -1"},
		{"no source", strings.Replace(good, `source = "data sheet"`, "", 1), "source is required"},
		{"wrong type", strings.Replace(good, "sms = 2", `sms = "two"`, 1), "p.toml:3"},
		{"syntax", good + "[launch_overhead\n", "p.toml:7"},
		{"overhead without kind", good + "[launch_overhead]\nmax_ns = 5\nsource = \"x\"\n", "p.toml:6: launch_overhead: kind is required"},
		{"bad kind", good + "[launch_overhead]\nmax_ns = 5\nkind = \"typical\"\nsource = \"x\"\n", "p.toml:8: launch_overhead: unknown kind \"typical\""},
		{"min above max", good + "[launch_overhead]\nmax_ns = 5\nmin_ns = 6\nkind = \"bound\"\nsource = \"x\"\n", "want 0 <= min_ns <= max_ns"},
		{"dispatch without source", good + "[dispatch_latency]\nmax_cycles = 100\nkind = \"assumed\"\n", "dispatch_latency: source is required"},
		// Refused before decoding (hwdesc.DecodeStrict calls
		// input.CheckTOML): the decoder is quadratic in the nesting.
		{"deep", good + "x = " + strings.Repeat("{a=", 10000) + "1" + strings.Repeat("}", 10000) + "\n", "p.toml:6:101: nesting deeper than 32"},
		{"dispatch unknown key", good + "[dispatch_latency]\nmax_ns = 100\nkind = \"assumed\"\nsource = \"x\"\n", `unknown key "dispatch_latency.max_ns" (did you mean "max_cycles"?)`},
	} {
		_, err := Decode("p.toml", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	var uk *hwdesc.UnknownKeysError
	if _, err := Decode("p.toml", []byte(good+"foo = 1\n")); !errors.As(err, &uk) {
		t.Errorf("unknown key: %T, want *hwdesc.UnknownKeysError", err)
	}
}

func TestResolve(t *testing.T) {
	if p, err := Resolve("jetson-tx2"); err != nil || p.Name != "jetson-tx2" {
		t.Errorf("Resolve(jetson-tx2) = %v, %v", p, err)
	}
	for _, s := range []string{"", "tx2", "nosuch.toml"} {
		if _, err := Resolve(s); err == nil {
			t.Errorf("Resolve(%q): no error", s)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, n := range Names() {
		data, _ := builtinFS.ReadFile("builtin/" + n + ".toml")
		f.Add(data)
	}
	f.Add([]byte("name = \"x\"\narch = \"sm_62\"\nsms = 1\nclock_mhz = 1\nsource = \"s\"\n[dispatch_latency]\nmax_cycles = 3\nkind = \"bound\"\nsource = \"s\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode("fuzz.toml", data)
		if err != nil {
			return
		}
		if p.SMs < 1 || p.ClockMHz <= 0 || p.Source == "" {
			t.Fatalf("accepted an invalid platform: %+v", p)
		}
		if _, err := p.ArchLimits(); err != nil {
			t.Fatalf("accepted an unknown architecture: %v", err)
		}
	})
}
