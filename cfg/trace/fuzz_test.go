package trace_test

import (
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/trace"
	"github.com/gpuwcet/gpuwcet/cfg/txtar"
)

// FuzzParseFile checks that ParseFile never panics and that every
// successful parse satisfies the invariants. Seeds: the golden inputs and a
// few edge cases; the module of the golden case is offered to the reader.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte("warp 0 :  PC=0x1c8 (m.ptx:1) setp.ne.s32%p2, %r4, 0;\nkernel_execution_time : 5"), []byte(""), false)
	f.Add([]byte("File start...\nwarp 1 :  PC=0x8 (m.ptx:2) @!%p1 bra L;\nwarp 1 :  PC=0x8 (m.ptx:2) @!%p1 bra L;\n"), []byte(""), true)
	f.Add([]byte("warp 0 :  PC=0x0 (m.ptx:3) ret;"), []byte(".version 7.0\n.target sm_75\n.visible .entry k()\n{\nret;\n}\n"), false)
	f.Add([]byte(""), []byte(""), false)
	f.Add([]byte("\x00\xff"), []byte(""), false)
	files, _ := filepath.Glob("testdata/golden/*.txtar")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		a := txtar.Parse(data)
		var tr, mod []byte
		for _, s := range a.Files {
			if filepath.Ext(s.Name) == ".trace" && tr == nil {
				tr = s.Data
			}
			if filepath.Ext(s.Name) == ".ptx" {
				mod = s.Data
			}
		}
		f.Add(tr, mod, true)
		f.Add(tr, mod, false)
	}
	f.Fuzz(func(t *testing.T, src, mod []byte, dedupe bool) {
		opts := &trace.Options{Dedupe: dedupe}
		if len(mod) > 0 {
			opts.Module = func(name string) (string, []byte, error) {
				if name == "" {
					return "", nil, fs.ErrNotExist
				}
				return name, mod, nil
			}
		}
		file, err := trace.ParseFile(token.NewFileSet(), "fuzz.trace", src, opts)
		if err != nil {
			return
		}
		checkInvariants(t, file)
	})
}
