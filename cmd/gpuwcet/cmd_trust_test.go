package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// analyzeBound runs gpuwcet analyze with args and returns the bound of its
// first kernel (JSON), failing on a non-zero exit.
func analyzeBound(t *testing.T, args ...string) int64 {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"gpuwcet", "analyze", "--format", "json"}, args...), &out, &errb); code != 0 {
		t.Fatalf("analyze %v: exit %d: %s", args, code, errb.String())
	}
	v, err := strconv.ParseInt(firstField(out.String(), `"bound_cycles": `), 10, 64)
	if err != nil {
		t.Fatalf("analyze %v: no bound: %v\n%s", args, err, out.String())
	}
	return v
}

// sassKernel writes a one-kernel sm_86 nvdisasm listing with the given
// instruction lines and returns its path.
func sassKernel(t *testing.T, name string, instrs ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("\t.headerflags\t@\"EF_CUDA_SM86 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM86)\"\n")
	b.WriteString("\t.section\t.text.k,\"ax\",@progbits\n\t.global k\n\t.type k,@function\n\t.other k,@\"STO_CUDA_ENTRY STV_DEFAULT\"\nk:\n.text.k:\n")
	for i, in := range instrs {
		b.WriteString("        /*" + strconv.FormatInt(int64(16*i), 16) + "*/ " + in + " ;\n")
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAnalyzeRegisterGroups is issue 9 item 3: LDSM.16.M88.4 writes
// R16–R19, so an FADD reading R17 and R18 waits for it exactly as after an
// LDS.128 (before the fix only R16 was written: 23 against 27 cycles on
// sass-sm86), and longer than after LDSM.16.M88, which writes R16 alone.
func TestAnalyzeRegisterGroups(t *testing.T) {
	bound := func(load string) int64 {
		return analyzeBound(t, "--hw", "sass-sm86", "--block", "32", sassKernel(t, "k.sass", load, "FADD R30, R17, R18", "EXIT"))
	}
	x4, lds, x1 := bound("LDSM.16.M88.4 R16, [R0]"), bound("LDS.128 R16, [R0]"), bound("LDSM.16.M88 R16, [R0]")
	if x4 != lds {
		t.Errorf("LDSM.16.M88.4 then FADD R30, R17, R18: bound %d, with LDS.128: %d; want equal", x4, lds)
	}
	if x1 >= x4 {
		t.Errorf("LDSM.16.M88 (one register) bound %d, LDSM.16.M88.4 %d: the x4 form must wait", x1, x4)
	}
}

// TestAnalyzeArgOutOfType: an --arg outside its parameter's type is bad
// input (exit 1) naming the parameter and its type, before any analysis
// (issue 9 item 7; before, 99999999999 reached the loop analysis).
func TestAnalyzeArgOutOfType(t *testing.T) {
	for _, v := range []string{"99999999999", "-4294967296"} {
		var out, errb bytes.Buffer
		code := run([]string{"gpuwcet", "analyze", "--hw", "rtx3070", "--block", "256", "--arg", "colsum_param_2=" + v, "../../examples/counted-loop/kernel.ptx"}, &out, &errb)
		want := "--arg colsum_param_2=" + v + ": out of range for parameter colsum_param_2 of kernel colsum, of type .u32"
		if code != ExitBadInput || !strings.Contains(errb.String(), want) {
			t.Errorf("--arg colsum_param_2=%s: exit %d, stderr %q; want exit 1 and %q", v, code, errb.String(), want)
		}
	}
}

// corpusFile returns the path of a listing of ../shared/corpus, or skips.
func corpusFile(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "corpus", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared corpus not available: %v", err)
	}
	return p
}

// TestAnalyzeListingMismatch is issue 9 item 5, on real listings: a PTX
// description on SASS and a SASS description on PTX are errors (exit 1)
// naming both sides (before, every SASS opcode fell to the PTX preset's
// default unit: LDG ready in 4 cycles); a listing for another
// architecture is a warning and an A-ARCH-MISMATCH assumption of the
// report.
func TestAnalyzeListingMismatch(t *testing.T) {
	sass := corpusFile(t, "sass/jiayi-wang98__dice-test-gpu-rodinia/cuda__backprop__backprop.sass") // sm_52
	ptx := corpusFile(t, "ptx/gtcasl__gpuocelot/tests__ptx__rodinia__hotspot.ptx")                  // sm_20
	ptx100 := corpusFile(t, "ptx/accel-sim__gpu-app-collection/src__cuda__GPU_Microbenchmark__ubench__gpgpusim_tests__fp_lowp_cvt__ptx_datatype_cases__pass__all_new_instruction_types.ptx")
	for _, tc := range []struct {
		hw, file string
		want     []string
	}{
		{"ecrts25-orin-200", sass, []string{`hardware description "ecrts25-orin-200" times PTX opcodes (isa = "ptx") but the listing is SASS (sm_52)`, "sass-sm86"}},
		{"sass-sm86", ptx, []string{`hardware description "sass-sm86" times SASS opcodes (isa = "sass") but the listing is PTX (sm_20)`, "ecrts25-orin-200"}},
	} {
		var out, errb bytes.Buffer
		code := run([]string{"gpuwcet", "analyze", "--hw", tc.hw, "--block", "64", tc.file}, &out, &errb)
		if code != ExitBadInput || out.Len() != 0 {
			t.Errorf("--hw %s %s: exit %d, stdout %q; want exit 1, no output", tc.hw, tc.file, code, out.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("--hw %s %s: stderr lacks %q:\n%s", tc.hw, tc.file, w, errb.String())
			}
		}
	}
	for _, tc := range []struct{ file, target string }{{ptx, "sm_20"}, {ptx100, "sm_100"}} {
		var out, errb bytes.Buffer
		run([]string{"gpuwcet", "analyze", "--hw", "ecrts25-orin-200", "--block", "64", "--format", "json", tc.file}, &out, &errb)
		msg := "the listing targets " + tc.target + ` and hardware description "ecrts25-orin-200" models sm_86`
		if !strings.Contains(errb.String(), "warning: "+msg) || !strings.Contains(errb.String(), "(arch-mismatch)") {
			t.Errorf("%s: stderr lacks the arch-mismatch warning:\n%s", tc.file, errb.String())
		}
		if !strings.Contains(out.String(), `"key": "A-ARCH-MISMATCH"`) || !strings.Contains(out.String(), "the listing targets "+tc.target+" and hardware description") {
			t.Errorf("%s: the JSON report lacks the A-ARCH-MISMATCH assumption", tc.file)
		}
	}
	// Same major version, older minor: binary compatible, no diagnostic.
	var out, errb bytes.Buffer
	run([]string{"gpuwcet", "analyze", "--hw", "ecrts25-orin-200", "--block", "256", "../../examples/saxpy/kernel.ptx"}, &out, &errb)
	if strings.Contains(errb.String(), "arch-mismatch") {
		t.Errorf("sm_80 PTX on an sm_86 description: %s", errb.String())
	}
}

// TestAnalyzeDefaultUnit is issue 9 item 6: the opcodes timed on the
// description's default unit are listed by opcode and count in the JSON
// kernel and as an A-DEFAULT-UNIT assumption (the goldens
// default-unit*.txtar show the diagnostics and --strict).
func TestAnalyzeDefaultUnit(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"gpuwcet", "analyze", "--hw", "ecrts25-orin-200", "--block", "64", "--format", "json", "testdata/analyze/default-unit.ptx"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, w := range []string{`"opcode": "tanh.approx.f32",
          "instructions": 2,
          "unit": "alu"`, `"key": "A-DEFAULT-UNIT"`, `lop3.b32 ×1, tanh.approx.f32 ×2`} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("JSON report lacks %q", w)
		}
	}
}
