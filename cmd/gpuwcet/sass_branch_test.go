package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sm80Listing writes a cuobjdump-style sm_80 listing of one kernel whose
// instructions are instrs (addresses every 16 bytes; "%END" in an
// instruction is the address of the final STG) and returns its path.
func sm80Listing(t *testing.T, name string, instrs []string) string {
	t.Helper()
	end := len(instrs) * 16
	var b strings.Builder
	b.WriteString("\tcode for sm_80\n\t\tFunction : _Z4sidePf\n")
	b.WriteString("\t.headerflags    @\"EF_CUDA_SM80 EF_CUDA_PTX_SM(EF_CUDA_SM80)\"\n")
	for k, in := range append(instrs, "STG.E [R4.64], R3 ;", "EXIT ;") {
		in = strings.ReplaceAll(in, "%END", fmt.Sprintf("0x%x", end))
		fmt.Fprintf(&b, "        /*%04x*/                   %s\n", k*16, in)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// analyzeSideBound runs analyze (one warp) on path and returns the bound and
// the divergent branches' instructions.
func analyzeSideBound(t *testing.T, path string) (int64, []string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"gpuwcet", "analyze", "--hw", "sass-sm86", "--block", "32", "--format", "json", path}, &out, &errb); code != 0 {
		t.Fatalf("%s: exit %d: %s", path, code, errb.String())
	}
	var j struct {
		Kernels []struct {
			BoundCycles int64 `json:"bound_cycles"`
			Divergent   []struct {
				Instr string `json:"instr"`
			} `json:"divergent_branches"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal(out.Bytes(), &j); err != nil || len(j.Kernels) != 1 {
		t.Fatalf("%s: report: %v", path, err)
	}
	var div []string
	for _, d := range j.Kernels[0].Divergent {
		div = append(div, d.Instr)
	}
	return j.Kernels[0].BoundCycles, div
}

// TestAnalyzeSASSBranchConditions: a SASS branch whose condition is more
// than its guard. "@!P0 BRA P1, L" is taken when P0 is false and P1 true;
// with P0 false and P1 the lane's parity it is the branch "@P1 BRA L", and
// its two heavy sides run one after the other. The analysis read the guard
// alone: P0 is uniform, so the branch was taken for uniform and one side
// bounded (458 cycles against 596 for the "@P1 BRA L" form). BRA.DIV is
// taken when the warp is divergent: its fall-through (the converged warp's
// path, here the heavy one) was unreachable, the bound covering the light
// side only.
func TestAnalyzeSASSBranchConditions(t *testing.T) {
	pre := []string{
		"S2R R0, SR_TID.X ;",
		"LOP3.LUT R2, R0, 0x1, RZ, 0xc0, !PT ;",
		"ISETP.NE.AND P1, PT, R2, RZ, PT ;",
		"ISETP.NE.AND P0, PT, RZ, RZ, PT ;",
		"I2F R3, R0 ;",
	}
	sides := func(branch string) []string {
		elseAt := (len(pre) + 8) * 16
		out := append(append([]string(nil), pre...), fmt.Sprintf(branch, elseAt))
		for k := 0; k < 6; k++ {
			out = append(out, "MUFU.SIN R3, R3 ;")
		}
		out = append(out, "BRA %END ;")
		for k := 0; k < 6; k++ {
			out = append(out, "MUFU.COS R3, R3 ;")
		}
		return out
	}
	guard, gdiv := analyzeSideBound(t, sm80Listing(t, "guard.sass", sides("@P1 BRA 0x%x ;")))
	operand, odiv := analyzeSideBound(t, sm80Listing(t, "operand.sass", sides("@!P0 BRA P1, 0x%x ;")))
	if len(gdiv) != 1 {
		t.Fatalf("@P1 BRA: divergent branches %v, want the branch", gdiv)
	}
	if len(odiv) != 1 || !strings.Contains(odiv[0], "BRA P1") {
		t.Errorf("@!P0 BRA P1: divergent branches %v, want the branch", odiv)
	}
	if operand < guard {
		t.Errorf("@!P0 BRA P1 (P0 false): bound %d below the bound %d of the same branch written @P1 BRA", operand, guard)
	}

	// BRA.DIV: the fall-through is the heavy path.
	fast := append(append([]string(nil), pre...), "BRA.DIV ~URZ, %END ;")
	for k := 0; k < 6; k++ {
		fast = append(fast, "MUFU.SIN R3, R3 ;")
	}
	straight := append(append([]string(nil), pre...), "NOP ;")
	straight = append(straight, fast[len(pre)+1:]...)
	div, _ := analyzeSideBound(t, sm80Listing(t, "div.sass", fast))
	line, _ := analyzeSideBound(t, sm80Listing(t, "straight.sass", straight))
	if div < line {
		t.Errorf("BRA.DIV: bound %d below the bound %d of its fall-through path alone", div, line)
	}
}
