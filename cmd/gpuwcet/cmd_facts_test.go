package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFactsCommand(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "f.toml")
	var out bytes.Buffer
	if code := run([]string{"gpuwcet", "facts", "template", "-o", tmpl, "../../examples/reduce/kernel.ptx"}, &out, &out); code != 0 {
		t.Fatalf("template: exit %d: %s", code, out.String())
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"facts", "check", "--facts", tmpl, "../../examples/reduce/kernel.ptx"}, 0, "max 8 = 8 (derived"},
		{[]string{"facts", "check", "--facts", tmpl, "../../examples/counted-loop/kernel.ptx"}, 1, "facts written for another listing"},
		{[]string{"facts", "check", "--block", "32", "../../examples/counted-loop/kernel.ptx"}, 1, "pass --arg colsum_param_2=VALUE"},
		{[]string{"facts", "check", "--arg", "colsum_param_2=7", "../../examples/counted-loop/kernel.ptx"}, 0, "max 7 = (colsum_param_2 - 1) % 4294967296 + 1"},
	} {
		out.Reset()
		code := run(append([]string{"gpuwcet"}, tc.args...), &out, &out)
		if code != tc.code || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: exit %d, output:\n%s\nwant exit %d and %q", tc.args, code, out.String(), tc.code, tc.want)
		}
	}
	// An open fact: exit 2 naming the loop.
	src, _ := os.ReadFile(tmpl)
	open := strings.Replace(string(src), "# [[kernel.loop]]\n# label = \"LBB0_1\"\n# max = 8", "[[kernel.loop]]\nlabel = \"LBB0_1\"\nmax = \"?\"", 1)
	open = strings.Replace(open, "# why = \"derived\"", "", 1)
	os.WriteFile(tmpl, []byte(open), 0o644)
	out.Reset()
	if code := run([]string{"gpuwcet", "facts", "check", "--facts", tmpl, "../../examples/reduce/kernel.ptx"}, &out, &out); code != 2 || !strings.Contains(out.String(), `has max = "?"`) {
		t.Errorf("open fact: exit %d:\n%s", code, out.String())
	}
}

// TestFactsDeviceFunction: facts template lists a device function's loop
// once under the device function; filled in, facts check and analyze bound
// it alike in both kernels (one path: the loops pass); without it both
// report the loop at its position in the device function (issue 9 item 14).
func TestFactsDeviceFunction(t *testing.T) {
	const listing = "../../cfg/loops/testdata/devfacts/devfacts.ptx"
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "f.toml")
	var out bytes.Buffer
	if code := run([]string{"gpuwcet", "facts", "template", "-o", tmpl, listing}, &out, &out); code != 0 {
		t.Fatalf("template: exit %d: %s", code, out.String())
	}
	src, _ := os.ReadFile(tmpl)
	if !strings.Contains(string(src), "name = \"_Z4walkPKii\"") {
		t.Fatalf("template without the device function:\n%s", src)
	}
	launch := []string{"--block", "64", "--arg", "_Z2k1PKiPii_param_2=5"}
	for _, cmd := range [][]string{{"facts", "check"}, {"analyze", "--hw", "ecrts25-orin-200"}} {
		out.Reset()
		args := append(append(append([]string{"gpuwcet"}, cmd...), launch...), listing)
		if code := run(args, &out, &out); code != 2 || !strings.Contains(out.String(), "devfacts.ptx:34:2") || !strings.Contains(out.String(), "device function _Z4walkPKii") {
			t.Errorf("%v without facts: exit %d:\n%s", cmd, code, out.String())
		}
	}
	filled := filepath.Join(dir, "filled.toml")
	os.WriteFile(filled, []byte(strings.Replace(string(src), "max = \"?\"", "max = 17", 1)), 0o644)
	for _, cmd := range [][]string{{"facts", "check"}, {"analyze", "--hw", "ecrts25-orin-200"}} {
		out.Reset()
		args := append(append(append(append([]string{"gpuwcet"}, cmd...), launch...), "--facts", filled), listing)
		if code := run(args, &out, &out); code != 0 || strings.Count(out.String(), "max 17") != 2 {
			t.Errorf("%v with facts: exit %d:\n%s", cmd, code, out.String())
		}
	}
}

// TestFactsCheckOnce: facts check reports an unbounded loop once: its
// error on standard error, at its position, with the reason; the loop's
// line on standard output points to it. Before, the reason was printed
// three times (the loop line, a problems list on standard output and the
// exit error).
func TestFactsCheckOnce(t *testing.T) {
	dir := t.TempDir()
	listing := filepath.Join(dir, "spin.ptx")
	os.WriteFile(listing, []byte(`.version 7.0
.target sm_80
.address_size 64
.visible .entry spin(.param .u64 spin_param_0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [spin_param_0];
LOOP:
	ld.volatile.global.u32 %r1, [%rd1];
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra LOOP;
	ret;
}
`), 0o644)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"gpuwcet", "facts", "check", "--block", "64", listing}, &stdout, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2:\n%s%s", code, stdout.String(), stderr.String())
	}
	all := stdout.String() + stderr.String()
	if n := strings.Count(all, "is not modelled"); n != 1 {
		t.Errorf("the reason is printed %d times, want once:\n%s", n, all)
	}
	if want := listing + ":11:2: error: loop label LOOP"; !strings.Contains(stderr.String(), want) {
		t.Errorf("standard error lacks %q:\n%s", want, stderr.String())
	}
	if want := "unbounded (the error at " + listing + ":11:2)"; !strings.Contains(stdout.String(), want) {
		t.Errorf("standard output lacks %q:\n%s", want, stdout.String())
	}
}
