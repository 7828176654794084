package hwdesc

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestImportRouting routes representative PTX opcodes through the
// ECRTS 2025 description and checks unit and timing against the table of
// reference-data.md §5.2 (paper init/lat).
func TestImportRouting(t *testing.T) {
	d, err := Builtin("ecrts25-orin-200")
	if err != nil {
		t.Fatal(err)
	}
	type timing struct {
		Unit      string
		Init, Lat Cycles
	}
	want := map[string]timing{
		"add.s32": {"int", 2, 2}, "add.s64": {"int", 2, 2}, "sub.s32": {"int", 2, 2}, "max.s32": {"int", 2, 2},
		"mul.lo.s32": {"int", 2, 2}, "mul.wide.u32": {"int", 2, 2}, "mul.wide.s32": {"int", 2, 2}, "mad.lo.s32": {"int", 2, 2},
		"addc.cc.u32": {"int", 2, 2}, "add.f16": {"int", 2, 2}, "fma.rn.f16x2": {"int", 2, 2},
		"mul24.lo.s32": {"int24", 3, 2}, "mad24.lo.u32": {"int24", 3, 2},
		"add.f32": {"sp", 1, 3}, "add.rn.f32": {"sp", 1, 3}, "add.ftz.f32": {"sp", 1, 3}, "sub.f32": {"sp", 1, 3}, "mul.f32": {"sp", 1, 3},
		"mul.rn.ftz.f32": {"sp", 1, 3}, "fma.rn.f32": {"sp", 1, 3}, "fma.rn.ftz.sat.f32": {"sp", 1, 3}, "mad.f32": {"sp", 1, 3}, "max.f32": {"sp", 1, 3},
		"add.f64": {"dp", 64, 0}, "sub.f64": {"dp", 64, 0}, "mul.f64": {"dp", 64, 0}, "fma.rn.f64": {"dp", 64, 0}, "min.f64": {"dp", 64, 0},
		"div.rn.f32": {"sfu_fdiv", 2, 37}, "div.full.f32": {"sfu_fdiv", 2, 37}, "div.approx.f32": {"sfu_fdiv", 2, 37}, "div.approx.ftz.f32": {"sfu_fdiv", 2, 37},
		"div.rn.f64": {"sfu_ddiv", 130, 200}, "div.s32": {"sfu_idiv", 2, 19}, "div.u64": {"sfu_idiv", 2, 19}, "rem.s32": {"sfu_idiv", 2, 19},
		"rcp.rn.f32": {"sfu", 8, 13}, "rcp.approx.ftz.f64": {"sfu", 8, 13}, "lg2.approx.f32": {"sfu", 8, 13}, "ex2.approx.f32": {"sfu", 8, 13},
		"sqrt.rn.f32": {"sfu", 8, 13}, "sin.approx.f32": {"sfu", 8, 13}, "rsqrt.approx.f32": {"sfu", 8, 13},
		"ld.global.f32": {"gmem", 1, 199}, "ld.global.nc.v4.f32": {"gmem", 1, 199}, "ld.volatile.global.u32": {"gmem", 1, 199},
		"ldu.global.f32": {"gmem", 1, 199}, "tex.2d.v4.f32.s32": {"gmem", 1, 199},
		"ld.shared.f32": {"smem", 1, 1}, "ld.shared::cta.u32": {"smem", 1, 1}, "ld.volatile.shared.u32": {"smem", 1, 1}, "st.shared.f32": {"smem", 1, 1},
		"ld.param.u64": {"alu", 1, 0}, "ld.local.u32": {"alu", 1, 0}, "ld.const.f32": {"alu", 1, 0}, "ld.u32": {"alu", 1, 0},
		"st.global.f32": {"ldst", 1, 199}, "st.global.u8": {"ldst", 1, 199}, "atom.global.add.u32": {"ldst", 1, 199}, "membar.gl": {"ldst", 1, 199},
		"wmma.load.a.sync.aligned.row.m16n16k16.f16": {"ldst", 1, 199}, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32": {"tensor", 64, 0},
		"mov.u32": {"alu", 1, 0}, "mov.f32": {"alu", 1, 0}, "setp.lt.s32": {"alu", 1, 0}, "setp.ltu.f32": {"alu", 1, 0}, "selp.b32": {"alu", 1, 0},
		"cvt.f64.f32": {"alu", 1, 0}, "cvt.rn.f32.f64": {"alu", 1, 0}, "cvta.to.global.u64": {"alu", 1, 0}, "shl.b32": {"alu", 1, 0},
		"and.pred": {"alu", 1, 0}, "neg.s32": {"alu", 1, 0}, "neg.f32": {"alu", 1, 0}, "abs.f32": {"alu", 1, 0},
		"bra": {"alu", 1, 0}, "bra.uni": {"alu", 1, 0}, "bar.sync": {"alu", 1, 0}, "ret": {"alu", 1, 0}, "exit": {"alu", 1, 0},
		"red.global.add.u32": {"alu", 1, 0}, "lop3.b32": {"alu", 1, 0}, "testp.finite.f32": {"alu", 1, 0},
	}
	got := map[string]timing{}
	for op := range want {
		u, _, err := d.Lookup(op)
		if err != nil {
			t.Errorf("Lookup(%q): %v", op, err)
			continue
		}
		got[op] = timing{d.Units[u].Name, d.Units[u].Init, d.Units[u].Lat}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("routing mismatch (-want +got):\n%s", diff)
	}
	for _, op := range []string{"shfl.sync.bfly.b32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "cp.async.ca.shared.global"} {
		if _, _, err := d.Lookup(op); err == nil {
			t.Errorf("Lookup(%q) succeeded; want a rejection", op)
		}
	}
}

// TestImportRoutingUpstream checks the routing differences of a config
// without the mem_impostor unit: every non-shared load goes to the LD/ST
// unit at the global latency.
func TestImportRoutingUpstream(t *testing.T) {
	d, err := Builtin("rtx3070")
	if err != nil {
		t.Fatal(err)
	}
	for op, want := range map[string]string{"ld.global.f32": "gmem", "ld.param.u64": "gmem", "ld.u32": "gmem", "ld.shared.f32": "smem", "mov.u32": "alu"} {
		u, _, err := d.Lookup(op)
		if err != nil || d.Units[u].Name != want {
			t.Errorf("rtx3070: Lookup(%q) = %v, %v; want %s", op, u, err, want)
		}
	}
	u := d.Units[d.UnitIndex("gmem")]
	if u.Init+u.Lat != 480 || u.Count != 1 || d.Units[d.UnitIndex("int")].Count != 4 {
		t.Errorf("rtx3070: gmem = %+v", u)
	}
}

var opcodeRE = regexp.MustCompile(`^\s*(?:@!?%\w+\s+)?([a-z][a-z0-9_.:]*)`)

// TestCorpusOpcodes routes every opcode of the single-warp PTX corpus
// through each ECRTS built-in: none may fail, and none of the arithmetic,
// memory or SFU opcodes may fall through to the default unit.
func TestCorpusOpcodes(t *testing.T) {
	shared := sharedDir(t)
	files, _ := filepath.Glob(filepath.Join(shared, "reference", "accelsim-singlewarp", "*", "*.ptx"))
	if len(files) == 0 {
		t.Skip("no PTX in the corpus")
	}
	ops := map[string]bool{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			if m := opcodeRE.FindStringSubmatch(line); m != nil && !strings.HasSuffix(line, ":") {
				ops[m[1]] = true
			}
		}
		fh.Close()
	}
	var list []string
	for op := range ops {
		list = append(list, op)
	}
	sort.Strings(list)
	d, err := Builtin("ecrts25-orin-200")
	if err != nil {
		t.Fatal(err)
	}
	unitOf := map[string]string{}
	for _, op := range list {
		u, rule, err := d.Lookup(op)
		if err != nil {
			t.Errorf("%s: %v", op, err)
			continue
		}
		unitOf[op] = d.Units[u].Name
		if rule < 0 {
			t.Errorf("%s reached the default unit; every corpus opcode should have an explicit rule", op)
		}
	}
	// Spot checks on the corpus' own spellings.
	for op, want := range map[string]string{"mad.lo.s32": "int", "mul.wide.u32": "int", "fma.rn.f32": "sp", "fma.rn.f64": "dp",
		"div.rn.f32": "sfu_fdiv", "rem.s32": "sfu_idiv", "ld.global.f32": "gmem", "ld.shared.f32": "smem", "setp.lt.s32": "alu"} {
		if ops[op] && unitOf[op] != want {
			t.Errorf("%s → %s, want %s", op, unitOf[op], want)
		}
	}
	if len(list) < 40 {
		t.Errorf("only %d distinct opcodes found in the corpus", len(list))
	}
}

func TestImportErrors(t *testing.T) {
	base := "-gpgpu_clock_domains 930:930:930:1600\n-gpgpu_num_sp_units 1\n-gpgpu_num_sfu_units 1\n-gpgpu_num_dp_units 1\n-gpgpu_num_int_units 1\n-gpgpu_smem_latency 2\n"
	impostor := "-specialized_unit_1 1,1,5,4,1,mem_impostor\n-ptx_opcode_latency_mem_impostor 5\n-ptx_opcode_initiation_mem_impostor 1\n"
	tests := []struct {
		name, cfg string
		mem       Cycles
		want      string // substring of the error; "" = success
	}{
		{"ok", base + impostor, 0, ""},
		{"unknown options ignored", base + impostor + "-gpgpu_foo bar\n-icnt_x 1 # c\n", 0, ""},
		{"override", base + impostor, 300, ""},
		{"perfect mem needs --mem-latency", base + "-gpgpu_perfect_mem 1\n", 0, "gpgpusim.config:7: under -gpgpu_perfect_mem 1"},
		{"perfect mem with --mem-latency", base + "-gpgpu_perfect_mem 1\n", 10, ""},
		{"malformed list", base + impostor + "-ptx_opcode_latency_int 4,4,x,4,21\n", 0, "gpgpusim.config:10: -ptx_opcode_latency_int: value 3"},
		{"short list", base + impostor + "-ptx_opcode_latency_fp 4,4\n", 0, "gpgpusim.config:10: -ptx_opcode_latency_fp: want 5 to 5"},
		{"negative", base + impostor + "-gpgpu_smem_latency -2\n", 0, "gpgpusim.config:10: -gpgpu_smem_latency"},
		{"latency below initiation", base + impostor + "-ptx_opcode_latency_sfu 4\n-ptx_opcode_initiation_sfu 8\n", 0, "latency 4 < initiation 8"},
		{"misspelt tensor", base + impostor + "-ptx_opcode_latency_tensor 64\n", 0, "spells this option -ptx_opcode_latency_tesnor"},
		{"not an option", base + "hello\n", 0, "gpgpusim.config:7: expected \"-option value\""},
		{"not a config", strings.Repeat("hello\n", 1000), 0, "gpgpusim.config:10: too many errors"},
		{"missing clock", "-gpgpu_num_sp_units 1\n", 0, "-gpgpu_clock_domains is missing"},
		{"bad clock", strings.Replace(base, "930:", "fast:", 1) + impostor, 0, "gpgpusim.config:1: -gpgpu_clock_domains"},
		{"bad specialized unit", base + "-specialized_unit_1 1,1,5\n", 0, "gpgpusim.config:7: -specialized_unit_1"},
	}
	for _, tt := range tests {
		d, err := ImportOptions{Name: "t", MemLatency: tt.mem}.Import(strings.NewReader(tt.cfg))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error = %v, want %q", tt.name, err, tt.want)
		case err != nil && strings.Count(err.Error(), "\n") > maxLineErrors:
			t.Errorf("%s: %d error lines, want at most %d", tt.name, strings.Count(err.Error(), "\n")+1, maxLineErrors+1)
		case tt.want == "" && tt.mem > 0:
			u := d.Units[d.UnitIndex("gmem")]
			if u.Init+u.Lat != tt.mem || d.MemLatency != tt.mem {
				t.Errorf("%s: gmem = %+v, want latency %d after dispatch", tt.name, u, tt.mem)
			}
		}
	}
}

// FuzzImportGPGPUSim: the importer never panics, and what it produces
// validates and round-trips through Encode/Decode.
func FuzzImportGPGPUSim(f *testing.F) {
	f.Add("-gpgpu_clock_domains 930:930:930:1600\n-gpgpu_num_sp_units 1\n-gpgpu_num_sfu_units 1\n-gpgpu_num_dp_units 0\n-gpgpu_num_int_units 0\n-gpgpu_smem_latency 2\n-gpgpu_l1_latency 1\n-gpgpu_l2_rop_latency 1\n-dram_latency 1\n")
	f.Add("-gpgpu_clock_domains 1:1:1:1\n-gpgpu_num_sp_units 1\n-gpgpu_num_sfu_units 1\n-gpgpu_num_dp_units 1\n-gpgpu_num_int_units 1\n-gpgpu_smem_latency 0\n-specialized_unit_1 1,1,5,4,1,mem_impostor\n-ptx_opcode_latency_mem_impostor 5\n-ptx_opcode_initiation_mem_impostor 1\n-ptx_opcode_latency_int 1,2,3,4,5,6\n-ptx_opcode_initiation_int 1,1,1,1,1,1\n")
	f.Add("# comment\n-x\n- \n-gpgpu_clock_domains 0\n")
	if data, err := os.ReadFile(filepath.Join("..", "..", "shared", "reference", "ecrts25-configs", "SM86_ORIN_5l_lrr", "gpgpusim.config")); err == nil {
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, cfg string) {
		d, err := ImportOptions{Name: "fuzz"}.Import(strings.NewReader(cfg))
		if err != nil {
			return
		}
		var b strings.Builder
		if err := Encode(&b, d); err != nil {
			t.Fatal(err)
		}
		d2, err := Decode("enc", []byte(b.String()))
		if err != nil {
			t.Fatalf("imported description does not decode: %v\n%s", err, b.String())
		}
		if diff := cmp.Diff(d, stripPos(d2)); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}
