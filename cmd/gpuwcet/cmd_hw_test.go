package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/hwdesc"
)

func runHW(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(append([]string{"gpuwcet", "hw"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestHWList(t *testing.T) {
	code, out, errs := runHW(t, "list")
	if code != ExitOK || errs != "" {
		t.Fatalf("hw list: exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"paper-fig2", "ecrts25-orin-5 ", "ecrts25-orin-800", "rtx3070", "source: "} {
		if !strings.Contains(out, want) {
			t.Errorf("hw list output lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "ecrts25-orin-5 ") > strings.Index(out, "ecrts25-orin-10 ") {
		t.Errorf("hw list is not in natural order:\n%s", out)
	}
}

func TestHWShowAndCheck(t *testing.T) {
	code, out, errs := runHW(t, "show", "paper-fig2")
	if code != ExitOK || !strings.Contains(out, `name = "paper-fig2"`) {
		t.Fatalf("hw show: exit %d, stderr %q, out:\n%s", code, errs, out)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	if err := os.WriteFile(good, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runHW(t, "check", good)
	if code != ExitOK || !strings.Contains(out, "good.toml: ok") || errs != "" {
		t.Errorf("hw check good: exit %d, out %q, stderr %q", code, out, errs)
	}
	code, out, _ = runHW(t, "show", "--hash", good)
	d, _ := hwdesc.Builtin("paper-fig2")
	if code != ExitOK || strings.TrimSpace(out) != d.Hash() {
		t.Errorf("hw show --hash = %q (exit %d), want %s", out, code, d.Hash())
	}

	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("name = \"b\"\nclock_mhz = 1\n[[unit]]\nname = \"u\"\ninit = 0\nlat = 1\nlatency = 2\n"), 0o644)
	code, _, errs = runHW(t, "check", bad)
	if code != ExitBadInput || !strings.Contains(errs, "bad.toml:7: unknown key \"unit.latency\"") {
		t.Errorf("hw check bad: exit %d, stderr %q", code, errs)
	}
	os.WriteFile(bad, []byte("name = \"b\"\nclock_mhz = 1\ndefault_unit = \"u\"\n[[unit]]\nname = \"u\"\ninit = 0\nlat = 1\n"), 0o644)
	code, _, errs = runHW(t, "check", bad)
	if code != ExitBadInput || !strings.Contains(errs, "bad.toml:6: unit \"u\": init must be ≥ 1") {
		t.Errorf("hw check invalid: exit %d, stderr %q", code, errs)
	}
	os.WriteFile(bad, []byte("name = \"b\nclock_mhz = 1\n"), 0o644)
	code, _, errs = runHW(t, "check", bad)
	if code != ExitBadInput || !strings.Contains(errs, "bad.toml:1:") || !strings.Contains(errs, "^") {
		t.Errorf("hw check syntax: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runHW(t, "check"); code != ExitBadInput {
		t.Errorf("hw check without files: exit %d", code)
	}
	if code, _, errs := runHW(t, "show", "nonesuch"); code != ExitBadInput || !strings.Contains(errs, "paper-fig2") {
		t.Errorf("hw show nonesuch: exit %d, stderr %q", code, errs)
	}
}

func TestHWImport(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "SM_TEST", "gpgpusim.config")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	os.WriteFile(cfg, []byte("-gpgpu_clock_domains 930:930:930:1600\n-gpgpu_num_sp_units 1\n-gpgpu_num_sfu_units 1\n-gpgpu_num_dp_units 1\n-gpgpu_num_int_units 1\n-gpgpu_smem_latency 2\n-gpgpu_perfect_mem 1\n"), 0o644)
	code, _, errs := runHW(t, "import", cfg)
	if code != ExitBadInput || !strings.Contains(errs, "gpgpusim.config:7:") || !strings.Contains(errs, "--mem-latency") {
		t.Errorf("import without --mem-latency under perfect memory: exit %d, stderr %q", code, errs)
	}
	code, out, errs := runHW(t, "import", "--mem-latency", "12", cfg)
	if code != ExitOK {
		t.Fatalf("import: exit %d, stderr %q", code, errs)
	}
	d, err := hwdesc.Decode("imported", []byte(out))
	if err != nil {
		t.Fatalf("imported TOML does not decode: %v", err)
	}
	u := d.Units[d.UnitIndex("gmem")]
	if d.Name != "sm_test" || u.Init+u.Lat != 12 {
		t.Errorf("imported %s: gmem %+v", d.Name, u)
	}
	if code, _, _ := runHW(t, "import", "--mem-latency", "0", cfg); code != ExitBadInput {
		t.Errorf("--mem-latency 0: exit %d", code)
	}
	// The real ECRTS config, when ../shared is present, imports to the
	// built-in description (up to name, source and description).
	shared := filepath.Join("..", "..", "..", "shared", "reference", "ecrts25-configs", "SM86_ORIN_25l_gto", "gpgpusim.config")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	code, out, errs = runHW(t, "import", "--name", "ecrts25-orin-25", shared)
	if code != ExitOK {
		t.Fatalf("import %s: exit %d, stderr %q", shared, code, errs)
	}
	got, err := hwdesc.Decode("imported", []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := hwdesc.Builtin("ecrts25-orin-25")
	got.Source, got.Description = want.Source, want.Description
	if got.Hash() != want.Hash() {
		t.Errorf("imported GTO config differs from the built-in ecrts25-orin-25")
	}
}
