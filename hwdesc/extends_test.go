package hwdesc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// orinShfl extends ecrts25-orin-200 to time shfl, which the preset rejects
// (issue 9 item 16): the timing of the sixth int slot of Accel-Sim's
// SM7_QV100 configuration (latency 21, initiation 4).
const orinShfl = `name = "orin-200-shfl"
extends = "ecrts25-orin-200"
notes = ["shfl: -ptx_opcode_latency_int slot [5] = 21, -ptx_opcode_initiation_int slot [5] = 4 of accel-sim/gpgpu-sim_distribution@667834c configs/tested-cfgs/SM7_QV100"]

[[unit]]
name = "int_shfl"
init = 4
lat = 17
group = "int"
doc = "shfl (SHFL_OP): GPGPU-Sim int slot [5]"

[[unit]]
name = "sfu"
lat = 20

[[map]]
match = "shfl*"
unit = "int_shfl"
`

func TestExtendBuiltin(t *testing.T) {
	base, err := Builtin("ecrts25-orin-200")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := base.Lookup("shfl.sync.bfly.b32"); err == nil || !strings.Contains(err.Error(), `extends = "ecrts25-orin-200"`) || !strings.Contains(err.Error(), "Extending a description") {
		t.Errorf("the preset's shfl error does not name the way to extend it: %v", err)
	}
	d, err := Decode("shfl.toml", []byte(orinShfl))
	if err != nil {
		t.Fatal(err)
	}
	u, rule, err := d.Lookup("shfl.sync.bfly.b32")
	if err != nil || d.Units[u].Name != "int_shfl" || rule != 0 {
		t.Fatalf("shfl: unit %d rule %d err %v; want int_shfl by the extension's rule", u, rule, err)
	}
	sfu := d.Units[d.UnitIndex("sfu")]
	bsfu := base.Units[base.UnitIndex("sfu")]
	if sfu.Init != bsfu.Init || sfu.Lat != 20 || sfu.GPGPUSimLatency != 0 {
		t.Errorf("sfu overridden to %+v; want init %d kept, lat 20, no gpgpusim_latency", sfu, bsfu.Init)
	}
	if u, _, _ := d.Lookup("add.f32"); d.Units[u].Name != "sp" {
		t.Errorf("add.f32 no longer routed by the base's rules")
	}
	want := []string{
		`shfl.toml:5: unit int_shfl added: init 4, lat 17, group int`,
		`shfl.toml:12: unit sfu: lat 13 -> 20`,
		`shfl.toml:16: rule "shfl*" -> unit int_shfl, before the base's rules`,
	}
	if strings.Join(d.Overrides, "\n") != strings.Join(want, "\n") {
		t.Errorf("Overrides:\n%s\nwant:\n%s", strings.Join(d.Overrides, "\n"), strings.Join(want, "\n"))
	}
	if d.Base != "ecrts25-orin-200" || d.BaseSHA256 != base.Hash() || d.Hash() == base.Hash() || d.Extends != "" {
		t.Errorf("Base %q %q, hash %s (base %s), extends %q", d.Base, d.BaseSHA256, d.Hash(), base.Hash(), d.Extends)
	}
	if !strings.Contains(strings.Join(d.Notes, "\n"), "override: unit sfu: lat 13 -> 20") {
		t.Errorf("notes do not record the overrides: %q", d.Notes)
	}
	// A rule with a base rule's pattern replaces it.
	r, err := Decode("r.toml", []byte("name = \"r\"\nextends = \"ecrts25-orin-200\"\n[[map]]\nmatch = \"shfl.*\"\nunit = \"int\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if u, _, err := r.Lookup("shfl.sync.idx.b32"); err != nil || r.Units[u].Name != "int" || !strings.Contains(r.Overrides[0], "replacing the base's rule (rejected (") {
		t.Errorf("replacing rule: %v %v %q", u, err, r.Overrides)
	}
	// The merged description is whole: it encodes and decodes to itself.
	var b strings.Builder
	if err := Encode(&b, d); err != nil {
		t.Fatal(err)
	}
	d2, err := Decode("x", []byte(b.String()))
	if err != nil || d2.Hash() != d.Hash() {
		t.Errorf("round trip: %v, hash %s vs %s", err, d2.Hash(), d.Hash())
	}
}

func TestExtendErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"unknown preset", "name = \"x\"\nextends = \"orin-200\"\n", `x.toml:2: extends: "orin-200" is not a built-in description (known: `},
		{"empty", "name = \"x\"\nextends = \"\"\n", "x.toml:2: extends: empty"},
		{"file from bytes", "name = \"x\"\nextends = \"base.toml\"\n", `x.toml:2: extends: "base.toml" is a file: only a description loaded from a file may extend a file`},
		{"no name", "extends = \"rtx3070\"\nclock_mhz = 1\n", `x.toml:1: a description that extends "rtx3070" needs a name of its own`},
		{"base name", "name = \"rtx3070\"\nextends = \"rtx3070\"\n", `x.toml:1: name "rtx3070" is a built-in description's`},
		{"unknown unit", "name = \"x\"\nextends = \"rtx3070\"\n\n[[map]]\nmatch = \"shfl*\"\nunit = \"nope\"\n", `x.toml:6: rule "shfl*": unit "nope" is not defined`},
		{"bad override", "name = \"x\"\nextends = \"rtx3070\"\n\n[[unit]]\nname = \"sfu\"\ninit = 0\n", "x.toml:6: unit \"sfu\": init must be"},
		{"wrong type", "name = \"x\"\nextends = 3\n", "x.toml:2: extends must be a string"},
	} {
		_, err := Decode("x.toml", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want %q", tc.name, err, tc.want)
		}
	}
}

func TestExtendFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("base.toml", "name = \"b\"\nextends = \"sass-sm86\"\nclock_mhz = 1300\n")
	top := write("top.toml", "name = \"t\"\nextends = \"base.toml\"\ndefault_unit = \"\"\n")
	d, err := Load(top)
	if err != nil {
		t.Fatal(err)
	}
	if d.ClockMHz != 1300 || d.DefaultUnit != "" || d.Base != "b" {
		t.Errorf("chain: clock %v, default unit %q, base %q", d.ClockMHz, d.DefaultUnit, d.Base)
	}
	if _, _, err := d.Lookup("NOTANOPCODE"); err == nil {
		t.Errorf("default_unit = \"\" did not remove the base's default unit")
	}
	write("a.toml", "name = \"a\"\nextends = \"c.toml\"\n")
	write("c.toml", "name = \"c\"\nextends = \"a.toml\"\n")
	_, err = Load(filepath.Join(dir, "a.toml"))
	if err == nil || !strings.Contains(err.Error(), "extends: cycle: ") || !strings.Contains(err.Error(), "a.toml -> ") {
		t.Errorf("cycle: %v", err)
	}
	_, err = Load(write("self.toml", "name = \"s\"\nextends = \"self.toml\"\n"))
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("self: %v", err)
	}
}
