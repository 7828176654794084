package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDeterminism runs every command with a text, JSON or DOT output twice
// on the same input and compares the bytes (docs/cli.md: "The same input
// gives the same bytes"), then once more from another directory with the
// inputs given by absolute paths: the output may differ only by those paths
// (and by the report hash, which covers them: analyze's reports are
// compared by TestAnalyzeReports).
func TestDeterminism(t *testing.T) {
	const (
		reduce = "../../examples/reduce/kernel.ptx"
		fig2   = "../../examples/paper-fig2/kernel.ptx"
		fig2hw = "../../examples/paper-fig2/hw.toml"
	)
	inputs := map[string]string{"PTX": reduce}
	for name, p := range map[string]string{
		"SASS":   "../../../shared/corpus/sass/Jokeren__PTX-Samples/local-memory-1__main.sass",
		"TRACE":  "../../../shared/reference/accelsim-singlewarp/backprop-rodinia-2.0-ft/_Z22bpnn_layerforward_CUDAPfS_S_S_ii1.trace",
		"CONFIG": "../../../shared/reference/ecrts25-configs/SM86_ORIN_200l_lrr/gpgpusim.config",
	} {
		if _, err := os.Stat(p); err == nil {
			inputs[name] = p
		}
	}
	tests := [][]string{
		{"cfg", "PTX"},
		{"cfg", "--format", "dot", "PTX"},
		{"cfg", "--format", "json", "--instrs", "PTX"},
		{"cfg", "--warp", "--block", "256", "PTX"},
		{"cfg", "--warp", "--block", "256", "--format", "dot", "PTX"},
		{"cfg", "--warp", "--block", "256", "--format", "json", "PTX"},
		{"cfg", "SASS"},
		{"cfg", "--format", "dot", "SASS"},
		{"cfg", "--warp", "--block", "128", "--format", "json", "SASS"},
		{"cfg", "--format", "dot", "TRACE"},
		{"phases", "--hw", "paper-fig2", "--explain", fig2},
		{"phases", "--hw", "ecrts25-orin-200", "--explain", "TRACE"},
		{"phases", "--hw", "ecrts25-orin-200", "--format", "json", "TRACE"},
		{"bound", "--hw", fig2hw, "--warps", "2", "--phases", fig2},
		{"bound", "--hw", "ecrts25-orin-200", "--format", "json", "TRACE"},
		{"bound", "--hw", "ecrts25-orin-200", "--phases", "--warps", "8", "TRACE"},
		{"analyze", "--hw", "ecrts25-orin-200", "--block", "256", "--blocks", "PTX"},
		{"analyze", "--hw", "sass-sm86", "--block", "128", "SASS"},
		{"simulate", "--hw", "ecrts25-orin-200", "--timeline", "TRACE"},
		{"simulate", "--hw", "ecrts25-orin-200", "--format", "json", "--warps", "4", "--policy", "random:7", "TRACE"},
		{"simulate", "--hw", "ecrts25-orin-200", "--paths-seed", "3", "--block", "256", "--check-bound", "PTX"},
		{"simulate", "--hw", "ecrts25-orin-200", "--paths-seed", "3", "--block", "256", "--format", "json", "--policy", "adversarial", "PTX"},
		{"facts", "template", "PTX"},
		{"facts", "template", "SASS"},
		{"facts", "check", "--block", "256", "PTX"},
		{"hw", "show", fig2hw},
		{"hw", "show", "ecrts25-orin-200"},
		{"hw", "import", "CONFIG"},
		{"passes"},
		{"passes", "--markdown"},
	}
	type result struct {
		out, err string
		code     int
	}
	exec := func(args []string) result {
		var out, errb bytes.Buffer
		code := run(append([]string{"gpuwcet"}, args...), &out, &errb)
		return result{out.String(), errb.String(), code}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	ran := 0
	for _, tt := range tests {
		args := slices.Clone(tt)
		abs := slices.Clone(tt)
		var paths []string // relative path, absolute path
		skip := false
		for i, a := range args {
			p, ok := inputs[a]
			if !ok && strings.HasPrefix(a, "../") {
				p, ok = a, true
			}
			if a == "SASS" || a == "TRACE" || a == "CONFIG" {
				if _, has := inputs[a]; !has {
					skip = true
				}
			}
			if ok {
				args[i] = p
				abs[i] = filepath.Join(wd, p)
				paths = append(paths, filepath.Clean(p), abs[i])
			}
		}
		if skip {
			continue
		}
		name := strings.Join(args, " ")
		first := exec(args)
		if first.code != 0 {
			t.Errorf("gpuwcet %s: exit %d: %s", name, first.code, first.err)
			continue
		}
		if second := exec(args); second != first {
			t.Errorf("gpuwcet %s: two runs differ", name)
		}
		t.Chdir(other)
		moved := exec(abs)
		t.Chdir(wd)
		// Paths appear as given: map the absolute ones back.
		for i := 0; i < len(paths); i += 2 {
			moved.out = strings.ReplaceAll(moved.out, paths[i+1], paths[i])
			moved.err = strings.ReplaceAll(moved.err, paths[i+1], paths[i])
		}
		if moved != first {
			t.Errorf("gpuwcet %s: output depends on the current directory:\nfirst:\n%.2000s\nfrom %s:\n%.2000s", name, first.out+first.err, other, moved.out+moved.err)
		}
		ran++
	}
	if ran < 10 {
		t.Errorf("only %d commands ran", ran)
	}
}
