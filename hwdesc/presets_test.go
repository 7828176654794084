package hwdesc

import (
	"regexp"
	"strings"
	"testing"
)

// upstreamRE matches a repository and a commit: owner/name@hex.
var upstreamRE = regexp.MustCompile(`[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@[0-9a-f]{7,40}`)

// TestBuiltinProvenance: the provenance of every built-in (source, notes,
// docs) names upstream repositories and commits, which a certification
// report can cite; never the development checkout's ../shared files or
// their notes (issue 9 item 17). paper-fig2 cites a paper.
func TestBuiltinProvenance(t *testing.T) {
	for _, n := range Names() {
		d, err := Builtin(n)
		if err != nil {
			t.Fatal(err)
		}
		texts := append([]string{d.Source, d.Description}, d.Notes...)
		texts = append(texts, d.Pipeline.Doc)
		for _, u := range d.Units {
			texts = append(texts, u.Doc)
		}
		for _, r := range d.Map {
			texts = append(texts, r.Doc, r.Reject)
		}
		for _, s := range texts {
			for _, bad := range []string{"../shared", "shared/hw", "shared/reference", "reference-data.md", "isa-and-hardware.md", "published_latencies.tsv", "sass_opcodes.tsv"} {
				if strings.Contains(s, bad) {
					t.Errorf("%s: provenance names %q, which users do not have: %q", n, bad, s)
				}
			}
		}
		if n != "paper-fig2" && !upstreamRE.MatchString(d.Source) {
			t.Errorf("%s: source names no repository@commit: %q", n, d.Source)
		}
	}
}

// TestSASSPresetRouting: texture, surface and cache-control opcodes are
// timed as memory accesses in every SASS preset (Accel-Sim's op classes
// make some of them 4-cycle ALU operations), and the sm_87/sm_90 presets
// route Ampere SASS and refuse Hopper's asynchronous opcodes.
func TestSASSPresetRouting(t *testing.T) {
	for _, n := range []string{"sass-sm61", "sass-sm70", "sass-sm75", "sass-sm86", "sass-sm87", "sass-sm90"} {
		d, err := Builtin(n)
		if err != nil {
			t.Fatal(err)
		}
		for op, want := range map[string]string{
			"TEX.SCR.LL": "tex", "TEXS.T": "tex", "TLD.LZ": "tex", "TLD4.G": "tex", "SULD.D.BA.2D.128.TRAP": "tex", "SUST.D.BA.2D.TRAP": "tex",
			"CCTL.IVALL": "global", "ERRBAR": "global", "LDG.E.128": "global", "STS.128": "shared",
		} {
			u, _, err := d.Lookup(op)
			if err != nil || d.Units[u].Name != want {
				got := ""
				if err == nil {
					got = d.Units[u].Name
				}
				t.Errorf("%s: %s routed to %q (%v), want %s", n, op, got, err, want)
			}
		}
	}
	for n, want := range map[string]map[string]Cycles{
		"sass-sm87": {"LDG.E": 551, "LDS": 29, "FFMA": 4, "MUFU.EX2": 23, "DFMA": 64},
		"sass-sm90": {"LDG.E": 290, "LDS": 23, "FFMA": 4, "MUFU.EX2": 23, "HMMA.16816.F32": 64},
	} {
		d, err := Builtin(n)
		if err != nil {
			t.Fatal(err)
		}
		for op, f := range want {
			u, _, err := d.Lookup(op)
			if err != nil || d.Units[u].Init+d.Units[u].Lat != f {
				t.Errorf("%s: %s: unit %d (%v), want ready %d cycles after its start", n, op, u, err, f)
			}
		}
	}
	d, _ := Builtin("sass-sm90")
	for _, op := range []string{"UTMALDG.2D", "HGMMA.64x128x16.F32", "SYNCS.ARRIVE.TRANS64"} {
		if _, _, err := d.Lookup(op); err == nil || !strings.Contains(err.Error(), "asynchronous") && !strings.Contains(err.Error(), "not modelled") {
			t.Errorf("sass-sm90: %s: %v, want a rejection", op, err)
		}
	}
}
