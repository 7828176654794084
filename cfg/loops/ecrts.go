package loops

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// ECRTSBound is one entry of an ECRTS 2025 bounds.txt file:
// "<block index>,<max iterations>" (../shared/notes/reference-data.md §6).
type ECRTSBound struct {
	Block int   // 0-based block index in textual order (leaders: labels, after branches)
	Max   int64 // executions of that block per entry into its loop
	Line  int   // line in bounds.txt
}

// ParseECRTS parses a bounds.txt file; an empty file means no loop.
func ParseECRTS(name string, data []byte) ([]ECRTSBound, error) {
	var out []ECRTSBound
	var errs isa.ErrorList
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		p := token.Position{Filename: name, Line: i + 1, Column: 1}
		a, b, ok := strings.Cut(line, ",")
		bi, err1 := strconv.Atoi(strings.TrimSpace(a))
		mx, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
		if !ok || err1 != nil || err2 != nil || bi < 0 || mx < 0 {
			errs.Addf(p, "want \"<block index>,<max iterations>\", got %q", line)
			continue
		}
		out = append(out, ECRTSBound{Block: bi, Max: mx, Line: i + 1})
	}
	return out, errs.Err()
}

// ecrtsLeaders returns the first instruction of each block in the ECRTS
// numbering: a block starts at the first instruction, at every labelled
// instruction and after every branch.
func ecrtsLeaders(fn *isa.Func) []*isa.Instr {
	labelled := map[int]bool{}
	for _, i := range fn.Labels {
		labelled[i] = true
	}
	var out []*isa.Instr
	for i, in := range fn.Instrs {
		if i == 0 || labelled[i] || fn.Instrs[i-1].Kind.IsTerminator() {
			out = append(out, in)
		}
	}
	return out
}

// ConvertECRTS turns the bounds of one kernel into a facts file for the
// listing with the given SHA-256, keying each loop by its header label (or
// line). An index that names no loop header is an error: the file was
// written for another compilation.
func ConvertECRTS(name string, bs []ECRTSBound, g *cfg.Graph, listing, sha string) (*Facts, error) {
	leaders := ecrtsLeaders(g.Func)
	heads := map[*isa.Instr]*cfg.Loop{}
	for _, l := range g.Loops {
		if len(l.Header.Instrs) > 0 {
			heads[l.Header.Instrs[0]] = l
		}
	}
	f := &Facts{File: name, Version: FactsVersion, Listing: listing, SHA256: sha}
	kf := &KernelFacts{Name: g.Func.Name}
	var errs isa.ErrorList
	for _, b := range bs {
		p := token.Position{Filename: name, Line: b.Line, Column: 1}
		if b.Block >= len(leaders) {
			errs.Addf(p, "block %d: %s has %d blocks", b.Block, g.Func.Name, len(leaders))
			continue
		}
		l := heads[leaders[b.Block]]
		if l == nil {
			errs.Addf(p, "block %d (%s) is not a loop header of %s", b.Block, leaders[b.Block].Text, g.Func.Name)
			continue
		}
		kf.Loops = append(kf.Loops, &LoopFact{Key: keyOf(g, l), Max: Const(b.Max), Why: "ECRTS 2025 bounds.txt", Pos: p, MaxPos: p})
		k := &kf.Loops[len(kf.Loops)-1].Key
		if k.Label != "" {
			k.Line, k.Offset = 0, -1
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	f.Kernels = []*KernelFacts{kf}
	return f, nil
}

// String returns the ECRTS entry as written ("2,32").
func (b ECRTSBound) String() string { return fmt.Sprintf("%d,%d", b.Block, b.Max) }
