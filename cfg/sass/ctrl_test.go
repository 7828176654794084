package sass

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// TestCtrlWorkedExamples checks the worked examples of
// ../shared/notes/isa-and-hardware.md §2.3 ("Decoded from the corpus"):
// each row's high word decodes to the fields the notes give, prints in
// CuAssembler notation as they say, and the CUDA 12.8 annotations of the
// listing line state the same field. Where the notes print no high word
// (–), it is the word of that line in the corpus file.
func TestCtrlWorkedExamples(t *testing.T) {
	none := int8(-1)
	tests := []struct {
		line string // listing line (corpus file)
		hi   uint64 // high word of the encoding
		want isa.Ctrl
		fmt  string // CuAssembler notation; "" where the notes give fields only
		ann  string // annotations of the listing line, "" where none
	}{
		{
			line: "MOV R1, c[0x0][0x28] (Jokeren__PTX-Samples/local-memory-1__main.sass)",
			hi:   0x000fc40000000f00,
			want: isa.Ctrl{Stall: 2, Yield: false, WriteBar: none, ReadBar: none, Raw: 0x7e2},
			fmt:  "[----:B------:R-:W-:Y:S02]",
		},
		{
			line: "S2R R9, SR_TID.X (same)",
			hi:   0x000e220000002100,
			want: isa.Ctrl{Stall: 1, Yield: true, WriteBar: 0, ReadBar: none, Raw: 0x711},
			fmt:  "[----:B------:R-:W0:-:S01]",
		},
		{
			line: "SHF.L.U32 R0, R9, 0x2, RZ (same; waits on the S2R)",
			hi:   0x001fe400000006ff,
			want: isa.Ctrl{Stall: 2, Yield: true, WriteBar: none, ReadBar: none, WaitMask: 1 << 0, Raw: 0xff2},
			fmt:  "[----:B0-----:R-:W-:-:S02]",
		},
		{
			line: "S2R R0, SR_TID.X (uliegecsm__reprospect/…ifs.sm_120.sass): W1, yield raw 1, S07",
			hi:   0x000e6e0000002100,
			want: isa.Ctrl{Stall: 7, Yield: true, WriteBar: 1, ReadBar: none, Raw: 0x737},
			ann:  "&wr=0x1 ?trans7",
		},
		{
			line: "ISETP.GE.U32.AND P0, PT, R5, UR6, PT (same): waits on barrier 2, yield raw 0, S13",
			hi:   0x004fda000bf06070,
			want: isa.Ctrl{Stall: 13, Yield: false, WriteBar: none, ReadBar: none, WaitMask: 1 << 2, Raw: 0x27ed},
			ann:  "&req={2} ?WAIT13_END_GROUP",
		},
		{
			line: "@P0 STG.E desc[UR4][R2.64], R7 (same): read barrier 0",
			hi:   0x0001e2000c101904,
			want: isa.Ctrl{Stall: 1, Yield: true, WriteBar: none, ReadBar: 0, Raw: 0x0f1},
			ann:  "&rd=0x0 ?trans1",
		},
		{
			line: "ATOM.E.ADD.64.STRONG.GPU P0, RZ, desc[UR10][R4.64], R2 (…atomic_add.int64.sm_120.sass): read-barrier field 0",
			hi:   0x0011e4000810f50a,
			want: isa.Ctrl{Stall: 2, Yield: true, WriteBar: none, ReadBar: 0, WaitMask: 1 << 0, Raw: 0x8f2},
			ann:  "&req={0} &wr_early=0x0 ?trans2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, err := VoltaCtrl(tt.hi)
			if err != nil {
				t.Fatalf("VoltaCtrl(%#016x): %v", tt.hi, err)
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("VoltaCtrl(%#016x) (-want +got):\n%s", tt.hi, diff)
			}
			if got.Raw != uint32(tt.hi>>41&0x1fffff) {
				t.Errorf("Raw = %#x, want the high word >> 41 = %#x", got.Raw, tt.hi>>41&0x1fffff)
			}
			if tt.fmt != "" {
				if f := FormatCtrl(got); f != tt.fmt {
					t.Errorf("FormatCtrl = %s, want %s", f, tt.fmt)
				}
				c, err := parseCuasmCtrl(tt.fmt[1 : len(tt.fmt)-1])
				if err != nil {
					t.Fatalf("parseCuasmCtrl(%s): %v", tt.fmt, err)
				}
				if diff := cmp.Diff(tt.want, c); diff != "" {
					t.Errorf("parseCuasmCtrl(%s) (-want +got):\n%s", tt.fmt, diff)
				}
			}
			if tt.ann != "" {
				a, ok, err := annotCtrl(tt.ann)
				if err != nil || !ok {
					t.Fatalf("annotCtrl(%q) = ok %v, err %v", tt.ann, ok, err)
				}
				if diff := cmp.Diff(tt.want, a); diff != "" {
					t.Errorf("annotCtrl(%q) (-want +got):\n%s", tt.ann, diff)
				}
			}
		})
	}
}

// TestCtrlAnnotationEquivalences checks the summary of §2.3: &wr=N is write
// barrier N, &rd=N (and &wr_early=N) read barrier N, &req={…} the wait-mask
// bits, ?transN stall N with yield raw 1, ?WAITN_END_GROUP stall N with
// yield raw 0; each compared with the field decoded from the raw bits of
// the layout table (stall 0–3, yield 4, write barrier 5–7, read barrier
// 8–10, wait mask 11–16).
func TestCtrlAnnotationEquivalences(t *testing.T) {
	const noBars = 7<<5 | 7<<8
	type eq struct {
		ann string
		raw uint32
	}
	var eqs []eq
	for n := uint32(0); n <= 15; n++ {
		eqs = append(eqs,
			eq{fmt.Sprintf("?trans%d", n), noBars | 1<<4 | n},
			eq{fmt.Sprintf("?WAIT%d_END_GROUP", n), noBars | n})
	}
	for b := uint32(0); b <= 5; b++ {
		eqs = append(eqs,
			eq{fmt.Sprintf("&wr=0x%x ?trans1", b), 7<<8 | b<<5 | 1<<4 | 1},
			eq{fmt.Sprintf("&rd=0x%x ?trans1", b), 7<<5 | b<<8 | 1<<4 | 1},
			eq{fmt.Sprintf("&wr_early=0x%x ?trans1", b), 7<<5 | b<<8 | 1<<4 | 1},
			eq{fmt.Sprintf("&req={%d} ?trans1", b), noBars | 1<<(11+b) | 1<<4 | 1})
	}
	eqs = append(eqs,
		eq{"&req={0,2,5} ?WAIT3_END_GROUP", noBars | (1|1<<2|1<<5)<<11 | 3},
		eq{"&wr=0x2 &rd=0x4 &req={1} ?trans15", 2<<5 | 4<<8 | 1<<12 | 1<<4 | 15})
	for _, e := range eqs {
		want, err := DecodeCtrl(e.raw)
		if err != nil {
			t.Fatalf("DecodeCtrl(%#x): %v", e.raw, err)
		}
		got, ok, err := annotCtrl(e.ann)
		if err != nil || !ok {
			t.Errorf("annotCtrl(%q) = ok %v, err %v", e.ann, ok, err)
			continue
		}
		if diff := cmp.Diff(*want, got); diff != "" {
			t.Errorf("annotCtrl(%q) (-want +got):\n%s", e.ann, diff)
		}
	}
	// An annotation without a stall states no field.
	if _, ok, err := annotCtrl("&wr_early=0x0"); ok || err != nil {
		t.Errorf(`annotCtrl("&wr_early=0x0") = ok %v, err %v; want no field, no error`, ok, err)
	}
	// CuAssembler [----:B------:R-:W-:Y:S00] is raw 0x7e0.
	c, err := parseCuasmCtrl("----:B------:R-:W-:Y:S00")
	if err != nil || c.Raw != 0x7e0 {
		t.Errorf("parseCuasmCtrl(----:B------:R-:W-:Y:S00) = raw %#x, err %v; want 0x7e0", c.Raw, err)
	}
}
