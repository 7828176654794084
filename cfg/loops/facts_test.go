package loops

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

const sha0 = "0000000000000000000000000000000000000000000000000000000000000000"

func TestDecodeFactsErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"unknown_key", "version = 1\nsha256 = \"" + sha0 + "\"\n[[kernel]]\nname = \"k\"\n[[kernel.loop]]\nlabel = \"L\"\nmax = 3\nmaxx = 4\n", `f.toml:8:1: unknown key "kernel.loop.maxx"`},
		{"negative", "version = 1\nsha256 = \"" + sha0 + "\"\n[[kernel]]\nname = \"k\"\n[[kernel.loop]]\nlabel = \"L\"\nmax = -3\n", "f.toml:7:7: negative bound -3"},
		{"bad_expr", "version = 1\nsha256 = \"" + sha0 + "\"\n[[kernel]]\nname = \"k\"\n[[kernel.loop]]\nline = 12\nmax = \"n +\"\n", "f.toml:7:11: max: want a number"},
		{"two_keys", "version = 1\nsha256 = \"" + sha0 + "\"\n[[kernel]]\nname = \"k\"\n[[kernel.loop]]\nline = 12\nlabel = \"L\"\nmax = 1\n", "f.toml:5:1: a loop is named by exactly one"},
		{"no_sha", "version = 1\n", "missing sha256"},
		{"bad_version", "version = 2\nsha256 = \"" + sha0 + "\"\n", "f.toml:1:11: version 2 is not supported"},
		{"max_type", "version = 1\nsha256 = \"" + sha0 + "\"\n[[kernel]]\nname = \"k\"\n[[kernel.loop]]\nline = 3\nmax = 1.5\n", "max must be an integer or a string"},
		{"syntax", "version = \n", "f.toml:1:"},
		// Issue 9, item 9: inline tables nested 10,000 deep took 26 s and
		// 5 GB to decode, then gave 10,001 errors at 1:1.
		{"deep", "version = 1\nsha256 = \"" + sha0 + "\"\nx = " + strings.Repeat("{a=", 10000) + "1" + strings.Repeat("}", 10000) + "\n", "f.toml:3:101: nesting deeper than 32"},
		// A key inside an inline table is found at its table's key.
		{"inline_unknown", "version = 1\nsha256 = \"" + sha0 + "\"\n[[kernel]]\nname = \"k\"\n  loop = [{line = 3, max = 1, maxx = 2}]\n", `f.toml:5:3: unknown key "kernel.loop.maxx"`},
		{"dup_loop", "version = 1\nsha256 = \"" + sha0 + "\"\n[[kernel]]\nname = \"k\"\n[[kernel.loop]]\nline = 3\nmax = 1\n[[kernel.loop]]\nline = 3\nmax = 2\n", "f.toml:8:1: loop line 3 of kernel k already has a fact at line 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeFacts("f.toml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("DecodeFacts error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestDecodeFactsErrorCap: like the listings' front ends, the facts
// decoder reports at most isa.MaxErrors errors, each at its line, then how
// many more there are.
func TestDecodeFactsErrorCap(t *testing.T) {
	src := "version = 1\nsha256 = \"" + sha0 + "\"\n"
	for i := 0; i < 50; i++ {
		src += fmt.Sprintf("k%d = 1\n", i)
	}
	_, err := DecodeFacts("f.toml", []byte(src))
	var list isa.ErrorList
	if !errors.As(err, &list) || len(list) != isa.MaxErrors+1 {
		t.Fatalf("got %d errors (%v), want %d", len(list), err, isa.MaxErrors+1)
	}
	for i, e := range list[:isa.MaxErrors] {
		if want := fmt.Sprintf("f.toml:%d:1: unknown key \"k%d\"", 3+i, i); !strings.HasPrefix(e.Error(), want) {
			t.Errorf("error %d: %s, want %s…", i, e, want)
		}
	}
	if got, want := list[isa.MaxErrors].Error(), "f.toml:13:1: too many errors: 40 more not shown"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
}

func TestFactsApply(t *testing.T) {
	src := readFile(t, "../../examples/counted-loop/kernel.ptx")
	sha := SHA256(src)
	_, gs := graphs(t, "kernel.ptx", src)
	g := gs[0]
	launch := pass.Launch{Block: [3]int{32, 1, 1}, Grid: [3]int{1, 1, 1}, Args: map[string]int64{"colsum_param_2": 100}}
	facts := func(loop string) *Facts {
		f, err := DecodeFacts("f.toml", []byte("version = 1\nsha256 = \""+sha+"\"\n[[kernel]]\nname = \"colsum\"\n[[kernel.loop]]\n"+loop))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, tc := range []struct {
		name, loop string
		max        int64
		err, warn  string
		open       bool
	}{
		{name: "override_above", loop: "label = \"LBB0_2\"\nmax = \"colsum_param_2 + ntid.x\"\nwhy = \"test\"\n", max: 132},
		{name: "below_derived_warns", loop: "label = \"LBB0_2\"\nmax = 50\n", max: 50, warn: "below its derived bound 100"},
		{name: "by_line", loop: "line = 37\nmax = 100\n", max: 100},
		{name: "open", loop: "label = \"LBB0_2\"\nmax = \"?\"\n", open: true},
		{name: "no_such_loop", loop: "label = \"LBB0_9\"\nmax = 1\n", err: "f.toml:5:1: kernel colsum has no loop with label LBB0_9"},
		{name: "unknown_name", loop: "label = \"LBB0_2\"\nmax = \"n\"\n", err: `f.toml:7:7: max n: "n" is neither a launch dimension nor a parameter`},
		{name: "missing_arg", loop: "label = \"LBB0_2\"\nmax = \"colsum_param_1\"\n", err: "pass --arg colsum_param_1=VALUE"},
		{name: "negative_expr", loop: "label = \"LBB0_2\"\nmax = \"1 - colsum_param_2\"\n", err: "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compute(g, launch, facts(tc.loop), sha)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lb := r.Loops[0]
			if tc.open {
				if lb.Bound != nil || r.Bounded() || r.Problems[0].Category != CategoryOpenFact {
					t.Fatalf("open fact: bound %v, problems %v", lb.Bound, r.Problems)
				}
				return
			}
			if lb.Bound == nil || lb.Bound.Max != tc.max || lb.Bound.Source != Annotated {
				t.Fatalf("bound %+v, want annotated %d", lb.Bound, tc.max)
			}
			var warns []string
			for _, p := range r.Problems {
				warns = append(warns, p.Message)
			}
			if got := strings.Join(warns, "\n"); tc.warn == "" && got != "" || !strings.Contains(got, tc.warn) {
				t.Errorf("problems %q, want %q", got, tc.warn)
			}
		})
	}
	// Facts for another listing.
	if _, err := Compute(g, launch, facts("line = 37\nmax = 1\n"), SHA256([]byte("other"))); err == nil || !strings.Contains(err.Error(), "facts written for another listing") {
		t.Errorf("checksum mismatch: error %v", err)
	}
}

// TestTemplateGolden writes the template of each input.ptx; the template of
// a kernel with open loops, once decoded, leaves them open.
func TestTemplateGolden(t *testing.T) {
	txtar.Golden(t, "testdata/golden/*.txtar", func(t *testing.T, a *txtar.Archive) map[string][]byte {
		src := a.Input(t, "input.ptx")
		file, gs := graphs(t, "input.ptx", src)
		var out bytes.Buffer
		sha := SHA256(src)
		if err := WriteTemplate(&out, "input.ptx", sha, file); err != nil {
			t.Fatal(err)
		}
		f, err := DecodeFacts("template.toml", out.Bytes())
		if err != nil {
			t.Fatalf("the template does not decode: %v", err)
		}
		for _, g := range gs {
			if _, err := Compute(g, pass.Launch{}, f, sha); err != nil && !strings.Contains(err.Error(), "no value") && !strings.Contains(err.Error(), "does not give") {
				t.Fatalf("the template does not apply: %v", err)
			}
		}
		return map[string][]byte{"want": out.Bytes()}
	})
}

func FuzzDecodeFacts(f *testing.F) {
	f.Add([]byte("version = 1\nsha256 = \"" + sha0 + "\"\n[[kernel]]\nname = \"k\"\n[[kernel.loop]]\nlabel = \"L\"\nmax = \"min(n, 4) * ntid.x\"\nwhy = \"x\"\n"))
	f.Add([]byte("version = 1\nsha256 = \"" + sha0 + "\"\n[[kernel]]\nname = \"k\"\n[[kernel.loop]]\nline = 2\nmax = \"?\"\n"))
	f.Add([]byte("version = 1\n[x]\ny = '''\n[[kernel]]\n'''\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		facts, err := DecodeFacts("f.toml", data)
		if err == nil && facts.Version != FactsVersion {
			t.Fatalf("decoded facts of version %d", facts.Version)
		}
	})
}
