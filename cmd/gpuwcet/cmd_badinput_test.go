package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badInputFiles writes the malformed inputs of TestBadInput into dir.
func badInputFiles(t *testing.T, dir string) {
	t.Helper()
	saxpy, err := os.ReadFile("../../examples/saxpy/kernel.ptx")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"empty.ptx":  "",
		"binary.bin": "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00\n\x00\x01",
		// Cut in the middle of the body: a label is missing and the body
		// is not closed (two errors, both printed).
		"trunc.ptx":  ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tbra.uni LBB0_4;\n\tret;\n",
		"unkdir.ptx": strings.Replace(string(saxpy), ".target", ".frobnicate 3\n.target", 1),
		"bad.sass": "\tcode for sm_80\n\t\tFunction : k\n" +
			"        /*0000*/                   MOV R1, c[0x0][0x28] ;\n" +
			"        /*00zz*/                   S2R R9, SR_TID.X ;\n" +
			"        /*0020*/                   EXIT\n",
		"bad.trace": "warp 0 :  PC=0x1c8 (k.ptx:26) ret;\nwarp 0 :  PC=zz (k.ptx:27) ret;\n",
		// Facts written for another listing (its SHA-256 is not saxpy's).
		"other.facts.toml": "version = 1\nsha256 = \"" + strings.Repeat("0", 64) + "\"\n[[kernel]]\nname = \"saxpy\"\n",
		"not-a-config":     strings.Repeat("hello\n", 100),
		// Inline tables nested 10,000 deep: 26 s and 5 GB to decode
		// before the nesting limit (issue 9, item 9).
		"deep.facts.toml": "version = 1\nsha256 = \"" + strings.Repeat("0", 64) + "\"\nx = " + strings.Repeat("{a=", 10000) + "1" + strings.Repeat("}", 10000) + "\n",
		"deep.hw.toml":    "name = \"t\"\nclock_mhz = 1\nnotes = [" + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "]\n",
		// 50 unknown keys: at most 10 errors, then how many more.
		"keys.facts.toml": "version = 1\nsha256 = \"" + strings.Repeat("0", 64) + "\"\n" + manyKeys(50),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// manyKeys returns n lines "kI = 1".
func manyKeys(n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "k%d = 1\n", i)
	}
	return sb.String()
}

// TestBadInput runs every command on bad input: each must exit with the
// documented code (docs/cli.md) and say what is wrong on standard error,
// one line per error with its position where there is one, without a
// panic.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	badInputFiles(t, dir)
	in := func(name string) string { return filepath.Join(dir, name) }
	const (
		saxpy   = "../../examples/saxpy/kernel.ptx"
		reduce  = "../../examples/reduce/kernel.ptx"
		counted = "../../examples/counted-loop/kernel.ptx"
		fig2    = "../../examples/paper-fig2/kernel.ptx"
	)
	openFacts := in("open.facts.toml")
	{
		// A facts file for counted-loop with its loop left open.
		var out, errb bytes.Buffer
		if code := run([]string{"gpuwcet", "facts", "template", counted}, &out, &errb); code != 0 {
			t.Fatalf("facts template: exit %d: %s", code, errb.String())
		}
		src := strings.Replace(out.String(), "# [[kernel.loop]]\n# label = \"LBB0_2\"\n# max = \"(colsum_param_2 - 1) % 4294967296 + 1\"", "[[kernel.loop]]\nlabel = \"LBB0_2\"\nmax = \"?\"", 1)
		if err := os.WriteFile(openFacts, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hw := []string{"--hw", "rtx3070"}
	cat := func(parts ...[]string) []string {
		var a []string
		for _, p := range parts {
			a = append(a, p...)
		}
		return a
	}
	a := func(s ...string) []string { return s }
	tests := []struct {
		args []string
		code int
		want []string // fragments of standard error, in order
	}{
		// cfg
		{a("cfg", in("missing.ptx")), 1, a("missing.ptx: no such file or directory")},
		{a("cfg", in("empty.ptx")), 1, a("empty.ptx: empty file")},
		{a("cfg", in("binary.bin")), 1, a("binary ELF file")},
		{a("cfg", in("trunc.ptx")), 1, a("trunc.ptx:6:10: undefined label LBB0_4\n", "trunc.ptx:7:7: unexpected end of file")},
		{a("cfg", in("unkdir.ptx")), 1, a("unkdir.ptx:6:1: unknown directive .frobnicate")},
		{a("cfg", in("bad.sass")), 1, a(`bad.sass:4:9: bad address "00zz"`+"\n", "bad.sass:5:40: expected ';' at end of instruction")},
		{a("cfg", in("bad.trace")), 1, a(`bad.trace:2:14: expected a hexadecimal PC`)},
		{a("cfg", "--input-format", "sass", saxpy), 1, a("kernel.ptx:15:2: expected ';'", "\n", "kernel.ptx:16:2: expected ';'")},
		{a("cfg", "--input-format", "cubin", saxpy), 1, a(`unknown input format "cubin"`)},
		{a("cfg"), 1, a("cfg: no input file")},
		{a("cfg", "--format", "svg", saxpy), 1, a(`unknown --format "svg"`)},
		{a("cfg", "--block", "256", saxpy), 1, a("cfg: --block needs --warp")},
		{a("cfg", "--warp", "--block", "2048", saxpy), 1, a("at most 1024 threads")},
		{a("cfg", "--warp", "--block", "4294967296x4294967296", saxpy), 1, a("at most 1024 threads")},
		// phases and bound
		{a("phases", saxpy), 1, a(`Required flag "hw" not set`)},
		{cat(a("phases"), hw), 1, a("phases: want exactly one INPUT, got 0")},
		{cat(a("phases"), hw, a(saxpy, reduce)), 1, a("phases: want exactly one INPUT, got 2")},
		{a("phases", "--hw", "nosuch", saxpy), 1, a(`unknown hardware description "nosuch"`)},
		{a("phases", "--hw", in("nosuch.toml"), saxpy), 1, a("nosuch.toml: no such file or directory")},
		{a("phases", "--hw", in("deep.hw.toml"), saxpy), 1, a("deep.hw.toml:3:41: nesting deeper than 32")},
		// Input size (issue 9, item 10): refused before reading, with
		// the flag that raises the limit.
		{cat(a("phases"), hw, a("--max-input-size", "100", saxpy)), 1, a("kernel.ptx: ", " bytes, above the input size limit of 100 bytes (raise it with --max-input-size)")},
		{cat(a("cfg"), a("--max-input-size", "1MiB", "/dev/zero")), 1, a("/dev/zero: more than 1048576 bytes, above the input size limit (raise it with --max-input-size)")},
		{cat(a("cfg"), a("--max-input-size", "12XB", saxpy)), 1, a(`--max-input-size "12XB": unknown unit "XB"`)},
		{cat(a("cfg"), a("--max-input-size", "0", saxpy)), 1, a(`--max-input-size "0": want a positive number of bytes`)},
		{a("hw", "import", "--max-input-size", "100", in("not-a-config")), 1, a("not-a-config: 600 bytes, above the input size limit of 100 bytes")},
		{cat(a("phases"), hw, a(in("empty.ptx"))), 1, a("empty.ptx: empty file")},
		{cat(a("phases"), hw, a(in("bad.trace"))), 1, a("bad.trace:2:14:")},
		{cat(a("phases"), hw, a("--warps", "-1", saxpy)), 1, a("--warps -1: want 1 to 32")},
		{a("bound", "--hw", "paper-fig2", "--warps", "99999999999", fig2), 1, a("--warps 99999999999: want 1 to 32")},
		{a("bound", "--hw", "paper-fig2", "--warps", "abc", fig2), 1, a(`invalid value "abc"`)},
		{a("bound", "--hw", "paper-fig2", "--deadline", "-5", fig2), 1, a("--deadline must not be negative")},
		{cat(a("bound"), hw, a(reduce)), 1, a("kernel.ptx:40:2:", "use `gpuwcet analyze`")},
		{cat(a("bound"), hw, a(in("binary.bin"))), 1, a("binary ELF file")},
		// analyze --deadline and --deadline-level
		{cat(a("analyze"), hw, a("--block", "256", "--deadline", "-5", saxpy)), 1, a(`--deadline "-5": want a non-negative integer with an optional unit`)},
		{cat(a("analyze"), hw, a("--block", "256", "--deadline", "1.5ms", saxpy)), 1, a(`--deadline "1.5ms": unknown unit ".5ms"`, "1500us, not 1.5ms")},
		{cat(a("analyze"), hw, a("--block", "256", "--deadline", "5kb", saxpy)), 1, a(`--deadline "5kb": unknown unit "kb"`)},
		{cat(a("analyze"), hw, a("--block", "256", "--deadline", "99999999999999999999", saxpy)), 1, a(`--deadline "99999999999999999999": 99999999999999999999 is out of range`)},
		{cat(a("analyze"), hw, a("--block", "256", "--deadline", "9999999999s", saxpy)), 1, a(`--deadline "9999999999s": above the largest deadline, 2^62 ns`)},
		{cat(a("analyze"), hw, a("--block", "256", "--deadline-level", "grid", "--deadline", "1ms", saxpy)), 1, a(`--deadline-level "grid": want block or kernel`)},
		{cat(a("analyze"), hw, a("--block", "256", "--deadline-level", "kernel", saxpy)), 1, a(`--deadline-level needs --deadline`)},
		{cat(a("analyze"), hw, a("--block", "256", "--deadline-level", "kernel", "--deadline", "1ms", saxpy)), 1, a(`--deadline-level kernel needs the kernel-level bound: give --grid`)},
		{cat(a("analyze"), hw, a("--block", "256", "--grid", "64", "--deadline-level", "kernel", "--deadline", "1ms", saxpy)), 1, a(`--deadline-level kernel: the kernel-level bound is not computed: no SM count: give --platform or --sms`)},
		{cat(a("analyze"), hw, a("--block", "256", "--grid", "64", "--arch", "sm_86", "--sms", "4", "--deadline-level", "kernel", "--deadline", "100000", saxpy)), 1, a(`a kernel's deadline is a time`, "give it in ns, us, ms or s")},
		// analyze
		{cat(a("analyze"), hw, a("--block", "256", in("missing.ptx"))), 1, a("missing.ptx: no such file or directory")},
		{cat(a("analyze"), hw, a("--block", "256", in("trunc.ptx"))), 1, a("trunc.ptx:6:10:", "trunc.ptx:7:7:")},
		{cat(a("analyze"), hw, a("--block", "256", in("unkdir.ptx"))), 1, a("unkdir.ptx:6:1: unknown directive")},
		{a("analyze", "--hw", "sass-sm86", "--block", "32", in("bad.sass")), 1, a("bad.sass:4:9:")},
		{cat(a("analyze"), hw, a(saxpy)), 1, a("missing launch configuration", "--block")},
		{cat(a("analyze"), hw, a("--block", "2x", saxpy)), 1, a(`--block: "2x": dimension "" is not a positive integer`)},
		{cat(a("analyze"), hw, a("--block", "0", saxpy)), 1, a(`dimension "0" is not a positive integer`)},
		{cat(a("analyze"), hw, a("--block", "1025", saxpy)), 1, a(`--block: "1025": a thread block has at most 1024 threads`)},
		{cat(a("analyze"), hw, a("--block", "256", "--arg", "colsum_param_2", counted)), 1, a(`--arg "colsum_param_2": want NAME=VALUE`)},
		{cat(a("analyze"), hw, a("--block", "256", "--arg", "colsum_param_2=ten", counted)), 1, a("value is not an integer")},
		{cat(a("analyze"), hw, a("--block", "256", counted)), 1, a("kernel.ptx:37:2:", "pass --arg colsum_param_2=VALUE")},
		// An --arg naming no parameter of the kernels analysed, in every
		// command that takes --arg.
		{cat(a("analyze"), hw, a("--block", "256", "--arg", "colsum_param_2=8", "--arg", "nosuch=3", counted)), 1, a("--arg nosuch=3: nosuch is not a parameter of kernel colsum (its parameters: colsum_param_0, colsum_param_1, colsum_param_2)")},
		{a("cfg", "--warp", "--block", "256", "--arg", "nosuch=3", counted), 1, a("cfg: --arg nosuch=3: nosuch is not a parameter of kernel colsum")},
		{cat(a("simulate"), hw, a("--paths-seed", "1", "--block", "256", "--arg", "nosuch=3", reduce)), 1, a("simulate: --arg nosuch=3: nosuch is not a parameter of kernel blocksum (its parameters: blocksum_param_0, blocksum_param_1)")},
		{a("facts", "check", "--block", "256", "--arg", "nosuch=3", counted), 1, a("facts check: --arg nosuch=3: nosuch is not a parameter of kernel colsum")},
		{cat(a("analyze"), hw, a("--block", "256", "--facts", in("other.facts.toml"), saxpy)), 1, a("other.facts.toml: facts written for another listing")},
		{cat(a("analyze"), hw, a("--block", "256", "--facts", in("binary.bin"), saxpy)), 1, a("binary.bin:1:1:")},
		{cat(a("analyze"), hw, a("--block", "256", "--facts", in("deep.facts.toml"), saxpy)), 1, a("deep.facts.toml:3:101: nesting deeper than 32")},
		{cat(a("analyze"), hw, a("--block", "256", "--facts", in("keys.facts.toml"), saxpy)), 1, a("keys.facts.toml:3:1: unknown key \"k0\"", "keys.facts.toml:12:1: unknown key \"k9\"", "keys.facts.toml:13:1: too many errors: 40 more not shown")},
		{cat(a("analyze"), hw, a("--block", "256", "--facts", "/dev/zero", saxpy)), 1, a("/dev/zero: more than 4194304 bytes, above the input size limit")},
		{cat(a("analyze"), hw, a("--block", "256", "--arg", "colsum_param_2=8", "--facts", openFacts, counted)), 2, a("error: "+openFacts+":", `has max = "?"`)},
		{cat(a("analyze"), hw, a("--block", "256", "--report", in("no/such/dir/r.md"), saxpy)), 1, a("--report: write ", "no/such/dir/r.md: no such file or directory")},
		// A valid kernel refused for an analysis limit is not bounded
		// (exit 2), not bad input (issue 9, item 15).
		{cat(a("analyze"), hw, a("--block", "64", "testdata/analyze/serial.ptx")), 2, a("serial.ptx:19:2: divergence: serial: warps 0-1: divergent branch \"@%p1 bra A\" splits lanes that each loop back to it", "serialized loop iterations are not modelled")},
		{cat(a("analyze"), hw, a("--block", "256", "--format", "yaml", saxpy)), 1, a(`unknown --format "yaml"`)},
		{cat(a("analyze"), hw, a("--block", "256", saxpy, reduce)), 1, a("want exactly one INPUT, got 2")},
		// Flags after the input (issue 9, item 15): urfave/cli stops
		// reading flags at the first argument.
		{a("analyze", saxpy, "--hw", "rtx3070", "--block", "256"), 1, a(`Required flag "hw" not set (--hw is given after the input, where it is not read: flags go before the input)`)},
		{cat(a("analyze"), hw, a(saxpy, "--block", "256")), 1, a(`analyze: "--block" comes after the input "` + saxpy + `": flags go before the input (gpuwcet analyze [flags] INPUT)`)},
		{a("facts", "template", saxpy, "-o", "x"), 1, a(`facts template: "-o" comes after the input`)},
		{a("cfg", saxpy, "--format", "dot"), 1, a(`cfg: "--format" comes after the input`, "(gpuwcet cfg [flags] FILE...)")},
		{cat(a("analyze"), hw, a("--block", "256", "--kernel", "(", saxpy)), 1, a("--kernel: error parsing regexp")},
		// simulate
		{cat(a("simulate"), hw, a("--policy", "fastest", fig2)), 1, a(`unknown policy "fastest"`)},
		{cat(a("simulate"), hw, a("--barriers", "never", fig2)), 1, a(`unknown barrier semantics "never"`)},
		{cat(a("simulate"), hw, a("--block", "64", fig2)), 1, a("--block needs --paths-seed")},
		{cat(a("simulate"), hw, a("--paths-seed", "1", reduce)), 1, a("needs the launch configuration")},
		{cat(a("simulate"), hw, a("--warps", "33", fig2)), 1, a("--warps 33: want 1 to 32")},
		{cat(a("simulate"), hw, a(fig2, saxpy)), 1, a("want exactly one INPUT, got 2")},
		{cat(a("simulate"), hw, a(in("bad.trace"))), 1, a("bad.trace:2:14:")},
		// facts
		{a("facts", "template"), 1, a("want exactly one FILE, got 0")},
		{a("facts", "template", saxpy, reduce), 1, a("want exactly one FILE, got 2")},
		{a("facts", "template", in("trunc.ptx")), 1, a("trunc.ptx:6:10:", "trunc.ptx:7:7:")},
		{a("facts", "template", "-o", saxpy, saxpy), 1, a("--output " + saxpy + " is also the input " + saxpy)},
		{a("facts", "check", "--facts", in("other.facts.toml"), saxpy), 1, a("facts written for another listing")},
		{a("facts", "check", "--facts", in("missing.toml"), saxpy), 1, a("missing.toml: no such file or directory")},
		{a("facts", "check", "--block", "2y", saxpy), 1, a(`--block: "2y"`)},
		{a("facts", "check", "--block", "2048", saxpy), 1, a("at most 1024 threads")},
		{a("facts", "check", "--block", "256", "--facts", openFacts, counted), 2, a(`has max = "?"`)},
		{a("facts", "nosuch"), 1, a(`facts: unknown command "nosuch"`)},
		// hw
		{a("hw", "check"), 1, a("needs at least one FILE")},
		{a("hw", "check", in("missing.toml")), 1, a("missing.toml: no such file or directory")},
		{a("hw", "check", in("empty.ptx")), 1, a("empty.ptx: name is missing\n", "empty.ptx: clock_mhz is missing")},
		{a("hw", "check", in("binary.bin")), 1, a("binary.bin:1:1: TOML files cannot contain control characters")},
		{a("hw", "show"), 1, a("hw show takes one built-in name or file")},
		{a("hw", "show", "rtx3070", "paper-fig2"), 1, a("hw show takes one built-in name or file")},
		{a("hw", "show", "nosuch"), 1, a(`unknown hardware description "nosuch"`)},
		{a("hw", "import"), 1, a("hw import takes one gpgpusim.config file")},
		{a("hw", "import", in("missing.config")), 1, a("missing.config: no such file or directory")},
		{a("hw", "import", in("not-a-config")), 1, a(`not-a-config:1: expected "-option value"`, "not-a-config:10: too many errors")},
		{a("hw", "list", "extra"), 1, a("hw list takes no arguments")},
		{a("hw", "nosuch"), 1, a(`hw: unknown command "nosuch"`)},
		// experiment, passes, unknown commands
		{a("experiment", "tightness", "--latencies", "x"), 1, a(`--latencies: bad value "x"`)},
		{a("experiment", "tightness", "--warps", "64"), 1, a("--warps 64: want 1 to 32")},
		{a("experiment", "tightness", saxpy), 1, a("takes no arguments")},
		{a("experiment", "sgemm", "--warps", "64"), 1, a("--warps 64: want 1 to 32")},
		// Outside the development checkout (issue 9, item 19): say what
		// the experiment needs and which flag gives it.
		{a("experiment", "sgemm", "--ptx", in("sgemm.ptx")), 1, a("experiment sgemm: --ptx "+in("sgemm.ptx")+": no such file: the SGEMM double-buffer listing", "give its path with --ptx FILE")},
		{a("experiment", "tightness", "--traces", "", "--kernels", in("k.ptx")), 1, a("experiment tightness: --kernels "+in("k.ptx")+": no such file", "give its path with --kernels FILE")},
		{a("experiment", "nosuch"), 1, a(`experiment: unknown command "nosuch"`)},
		{a("passes", "extra"), 1, a("passes takes no arguments")},
		{a("nosuch"), 1, a(`unknown command "nosuch" (see gpuwcet --help)`)},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run(append([]string{"gpuwcet"}, tt.args...), &out, &errb)
		stderr := errb.String()
		if code != tt.code {
			t.Errorf("gpuwcet %s: exit %d, want %d; stderr:\n%s", strings.Join(tt.args, " "), code, tt.code, stderr)
			continue
		}
		rest := stderr
		for _, w := range tt.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("gpuwcet %s: stderr %q lacks %q (in order)", strings.Join(tt.args, " "), stderr, w)
				break
			}
			rest = rest[i+len(w):]
		}
		if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
			t.Errorf("gpuwcet %s: stderr has a stack trace:\n%s", strings.Join(tt.args, " "), stderr)
		}
		if !strings.HasPrefix(stderr, "gpuwcet: ") && !strings.Contains(stderr, "\ngpuwcet: ") {
			t.Errorf("gpuwcet %s: stderr %q has no gpuwcet: line", strings.Join(tt.args, " "), stderr)
		}
		if len(stderr) > 0 && (strings.Contains(stderr, "\n\n") || strings.Count(stderr, "\n") > 12) {
			t.Errorf("gpuwcet %s: stderr is not one line per error:\n%s", strings.Join(tt.args, " "), stderr)
		}
	}
}
