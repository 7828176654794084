package loops

import (
	"bytes"
	"fmt"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// TestDeviceFunctionFacts: the loops of device functions (issue 9 item 14)
// are named by the device function's own keys in a [[kernel]] entry of
// that function, which bounds every call; a kernel's entry bounds one call
// by its prefixed label; keys naming nothing and functions no kernel calls
// are errors; the template lists each device loop once, under its
// function, and its filled-in form bounds the kernels.
func TestDeviceFunctionFacts(t *testing.T) {
	const path = "testdata/devfacts/devfacts.ptx"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sha := SHA256(src)
	fset := token.NewFileSet()
	file, err := load.File(fset, path, src, load.PTX)
	if err != nil {
		t.Fatal(err)
	}
	launch := pass.Launch{Block: [3]int{64, 1, 1}, Grid: [3]int{1, 1, 1}, Args: map[string]int64{"_Z2k1PKiPii_param_2": 5}}
	header := fmt.Sprintf("version = 1\nlisting = %q\nsha256 = %q\n", path, sha)
	// analyze runs every kernel: each Result, or the first error.
	analyze := func(facts string) (map[string]*Result, error) {
		opts := pass.Options{Launch: launch, Inputs: map[string]any{ListingSHAInput: sha}}
		if facts != "" {
			f, err := DecodeFacts("f.toml", []byte(header+facts))
			if err != nil {
				t.Fatal(err)
			}
			opts.Inputs[FactsInput] = f
		}
		res, err := pass.Run([]*pass.Analyzer{Analyzer}, file, opts)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*Result{}
		for _, fn := range res.Funcs {
			if !fn.Entry {
				continue
			}
			act := res.Get(Analyzer, fn)
			if act.Err != nil {
				return nil, act.Err
			}
			out[fn.Name] = act.Result.(*Result)
		}
		return out, nil
	}
	walk := func(r *Result) *LoopBound {
		for _, lb := range r.Loops {
			if lb.Callee != nil && lb.Callee.Name == "_Z4walkPKii" {
				return lb
			}
		}
		t.Fatalf("%s: no loop of walk", r.Func.Name)
		return nil
	}

	// Without facts: one error per kernel, naming the device function and
	// its own key, at the loop's position.
	rs, err := analyze("")
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range rs {
		if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message, "loop label $L__BB0_2, line 34 of device function _Z4walkPKii is not bounded") ||
			!strings.HasPrefix(r.Problems[0].Context, "called from "+name+" at ") || r.Problems[0].Pos.Line != 34 {
			t.Errorf("%s: problems %v", name, r.Problems)
		}
	}
	// The run's diagnostics: that loop is one finding (issue 10: one
	// loop, one diagnostic), listing both kernels' calls.
	res, err := pass.Run([]*pass.Analyzer{Analyzer}, file, pass.Options{Launch: launch, Inputs: map[string]any{ListingSHAInput: sha}})
	if err != nil {
		t.Fatal(err)
	}
	var at34 []pass.Diagnostic
	for _, d := range res.Diagnostics() {
		if pass.Position(fset, d.Pos).Line == 34 {
			at34 = append(at34, d)
		}
	}
	if len(at34) != 1 || strings.Join(at34[0].Funcs, " ") != "_Z2k1PKiPii _Z2k2PKiPi" ||
		strings.Count(at34[0].Context, "called from ") != 2 || !strings.Contains(at34[0].Text(), at34[0].Message+" (called from _Z2k1PKiPii at ") {
		t.Errorf("diagnostics at line 34: %+v", at34)
	}

	// A device function's fact bounds every call.
	dev := "[[kernel]]\nname = \"_Z4walkPKii\"\n[[kernel.loop]]\nlabel = \"$L__BB0_2\"\nmax = 17\nwhy = \"lists of 16 nodes\"\n"
	if rs, err = analyze(dev); err != nil {
		t.Fatal(err)
	}
	for name, r := range rs {
		if lb := walk(r); lb.Bound == nil || lb.Bound.Max != 17 || lb.Bound.Source != Annotated || !r.Bounded() {
			t.Errorf("%s: walk's loop %+v, problems %v", name, lb.Bound, r.Problems)
		}
	}
	// By its line, too.
	if rs, err = analyze(strings.Replace(dev, "label = \"$L__BB0_2\"", "line = 34", 1)); err != nil || walk(rs["_Z2k2PKiPi"]).Bound == nil {
		t.Errorf("by line: %v", err)
	}

	// A kernel's fact for one call replaces the device function's there.
	ctx := dev + "[[kernel]]\nname = \"_Z2k1PKiPii\"\n[[kernel.loop]]\nlabel = \"_Z4walkPKii.1.$L__BB0_2\"\nmax = 5\n"
	if rs, err = analyze(ctx); err != nil {
		t.Fatal(err)
	}
	if a, b := walk(rs["_Z2k1PKiPii"]).Bound, walk(rs["_Z2k2PKiPi"]).Bound; a == nil || a.Max != 5 || b == nil || b.Max != 17 {
		t.Errorf("per call: k1 %+v, k2 %+v", a, b)
	}

	// Facts that bound nothing are errors.
	for _, tc := range []struct{ facts, want string }{
		{strings.Replace(dev, "$L__BB0_2", "$L__BB0_9", 1), "device function _Z4walkPKii has no loop with label $L__BB0_9 (its loops: label $L__BB0_2, line 34)"},
		{strings.Replace(dev, "_Z4walkPKii", "nosuch", 1), "no function nosuch"},
		{"[[kernel]]\nname = \"dead\"\n[[kernel.loop]]\nline = 12\nmax = 3\n", "device function dead is called by no kernel"},
		{strings.Replace(dev, "max = 17", "max = \"n\"", 1), "\"n\" is neither a launch dimension nor a parameter of device function _Z4walkPKii"},
	} {
		if _, err := analyze(tc.facts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("facts %q: error %v, want %q", tc.facts, err, tc.want)
		}
	}

	// The template lists walk's loop once, under walk, open; filled in,
	// it bounds both kernels.
	var out bytes.Buffer
	if err := WriteTemplate(&out, path, sha, file); err != nil {
		t.Fatal(err)
	}
	tmpl := out.String()
	if strings.Count(tmpl, "label = \"$L__BB0_2\"") != 1 || !strings.Contains(tmpl, "name = \"_Z4walkPKii\"") || strings.Count(tmpl, "called from ") != 2 {
		t.Fatalf("template:\n%s", tmpl)
	}
	filled := strings.Replace(tmpl, "max = \"?\"", "max = 17", 1)
	f, err := DecodeFacts("t.toml", []byte(filled))
	if err != nil {
		t.Fatalf("%v\n%s", err, filled)
	}
	res, err = pass.Run([]*pass.Analyzer{Analyzer}, file, pass.Options{Launch: launch, Inputs: map[string]any{ListingSHAInput: sha, FactsInput: f}})
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range res.Funcs {
		if act := res.Get(Analyzer, fn); fn.Entry && (act.Err != nil || !act.Result.(*Result).Bounded()) {
			t.Errorf("filled template: %s: %v", fn.Name, act.Err)
		}
	}
}

// TestDeviceFunctionFactsSASS: the SASS of the same file, whose device
// functions the front end splits off each kernel's section
// ($<kernel>$L_0x<addr>): the template lists each device loop under its
// function; filled in, it bounds both kernels.
func TestDeviceFunctionFactsSASS(t *testing.T) {
	const path = "testdata/devfacts/devfacts.sass"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sha := SHA256(src)
	file, err := load.File(token.NewFileSet(), path, src, load.SASS)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteTemplate(&out, path, sha, file); err != nil {
		t.Fatal(err)
	}
	tmpl := out.String()
	if strings.Count(tmpl, "max = \"?\"") != 2 || strings.Count(tmpl, "# Device function $") != 2 {
		t.Fatalf("template:\n%s", tmpl)
	}
	launch := pass.Launch{Block: [3]int{64, 1, 1}, Grid: [3]int{1, 1, 1}, Args: map[string]int64{"_Z2k1PKiPii_param_2": 5}}
	for _, filled := range []bool{false, true} {
		text := tmpl
		if filled {
			text = strings.ReplaceAll(tmpl, "max = \"?\"", "max = 17")
		}
		f, err := DecodeFacts("t.toml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		res, err := pass.Run([]*pass.Analyzer{Analyzer}, file, pass.Options{Launch: launch, Inputs: map[string]any{ListingSHAInput: sha, FactsInput: f}})
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range res.Funcs {
			if !fn.Entry {
				continue
			}
			act := res.Get(Analyzer, fn)
			if act.Err != nil {
				t.Fatal(act.Err)
			}
			if r := act.Result.(*Result); r.Bounded() != filled {
				t.Errorf("filled %v: %s bounded %v: %v", filled, fn.Name, r.Bounded(), r.Problems)
			}
		}
	}
}
