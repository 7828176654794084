package trace_test

import (
	"bytes"
	"fmt"
	"go/token"
	"io/fs"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
	"github.com/gpuwcet/gpuwcet/cfg/trace"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// TestGolden runs every testdata/golden/*.txtar: the first section whose
// name ends in ".trace" is the input, sections ending in ".ptx" are the
// modules the trace may name, and the comment's "flags:" line may hold
// -dedupe, -name=NAME and -nomodule (no module lookup at all). "want" is
// trace.Format of the result, or "error: " and the error list.
func TestGolden(t *testing.T) {
	txtar.Golden(t, "testdata/golden/*.txtar", func(t *testing.T, a *txtar.Archive) map[string][]byte {
		opts, noModule := goldenFlags(t, string(a.Comment))
		var name string
		var src []byte
		mods := map[string][]byte{}
		for _, f := range a.Files {
			switch {
			case strings.HasSuffix(f.Name, ".trace") && name == "":
				name, src = f.Name, f.Data
			case strings.HasSuffix(f.Name, ".ptx"):
				mods[f.Name] = f.Data
			}
		}
		if name == "" {
			t.Fatal("no *.trace section")
		}
		if !noModule {
			opts.Module = func(m string) (string, []byte, error) {
				if s, ok := mods[m]; ok {
					return m, s, nil
				}
				return "", nil, fmt.Errorf("open %s: %w", m, fs.ErrNotExist)
			}
		}
		fset := token.NewFileSet()
		f, err := trace.ParseFile(fset, name, src, opts)
		var out bytes.Buffer
		if err != nil {
			out.WriteString("error:\n")
			if l, ok := err.(isa.ErrorList); ok {
				for _, e := range l {
					fmt.Fprintf(&out, "%s\n", e)
				}
			} else {
				fmt.Fprintf(&out, "%v\n", err)
			}
			return map[string][]byte{"want": out.Bytes()}
		}
		checkInvariants(t, f)
		if err := trace.Format(&out, f); err != nil {
			t.Fatal(err)
		}
		return map[string][]byte{"want": out.Bytes()}
	})
}

func goldenFlags(t *testing.T, comment string) (*trace.Options, bool) {
	opts := &trace.Options{}
	noModule := false
	for _, line := range strings.Split(comment, "\n") {
		rest, ok := strings.CutPrefix(line, "flags:")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(rest) {
			switch {
			case f == "-dedupe":
				opts.Dedupe = true
			case f == "-nomodule":
				noModule = true
			case strings.HasPrefix(f, "-name="):
				opts.Name = strings.TrimPrefix(f, "-name=")
			default:
				t.Fatalf("unknown golden flag %q", f)
			}
		}
	}
	return opts, noModule
}

// checkInvariants verifies the structure every successful parse must have.
func checkInvariants(t testing.TB, f *isa.File) {
	t.Helper()
	if f.Dialect != isa.DialectTrace {
		t.Errorf("Dialect = %v, want trace", f.Dialect)
	}
	if len(f.Funcs) != 1 {
		t.Fatalf("got %d funcs, want 1", len(f.Funcs))
	}
	fn := f.Funcs[0]
	if !fn.Entry || fn.Trace == nil {
		t.Fatalf("func %s: Entry=%v Trace=%v", fn.Name, fn.Entry, fn.Trace != nil)
	}
	for i, in := range fn.Instrs {
		if in.Index != i {
			t.Errorf("Instrs[%d].Index = %d", i, in.Index)
		}
		if i > 0 && !(fn.Instrs[i-1].Pos != in.Pos) {
			t.Errorf("Instrs[%d] and [%d] share a position", i-1, i)
		}
	}
	last := -1
	for _, wp := range fn.Trace.Warps {
		if wp.Warp <= last {
			t.Errorf("warps not sorted: %d after %d", wp.Warp, last)
		}
		last = wp.Warp
		prev := token.NoPos
		for _, in := range wp.Instrs {
			if in.Index < 0 || in.Index >= len(fn.Instrs) {
				t.Fatalf("warp %d: Index %d out of range", wp.Warp, in.Index)
			}
			s := fn.Instrs[in.Index]
			if s.Op() != in.Op() || s.Guard != in.Guard || s.Kind != in.Kind {
				t.Errorf("warp %d: path instruction %s differs from static #%d %s", wp.Warp, in.Op(), in.Index, s.Op())
			}
			if !in.Pos.IsValid() || in.Pos <= prev {
				t.Errorf("warp %d: positions not increasing at %s", wp.Warp, f.Fset.Position(in.Pos))
			}
			prev = in.Pos
		}
	}
}
