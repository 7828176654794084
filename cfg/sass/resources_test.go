package sass

import (
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// TestResources reads the stated registers and shared memory of the three
// forms: cuobjdump -res-usage, nvdisasm .sectioninfo, maxas headers.
func TestResources(t *testing.T) {
	src := `
Fatbin elf code:
================
arch = sm_86
code version = [1,7]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:0
 Function k(int*):
  REG:28 STACK:0 SHARED:4096 LOCAL:0 CONSTANT[0]:360 TEXTURE:0 SURFACE:0 SAMPLER:0

	code for sm_86
		Function : k(int*)
	.headerflags	@"EF_CUDA_SM86 EF_CUDA_PTX_SM(EF_CUDA_SM86)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;                  /* 0x00000a0000017a02 */
                                                                           /* 0x000fe40000000f00 */
        /*0010*/                   EXIT ;                                  /* 0x000000000000794d */
                                                                           /* 0x000fea0003800000 */
`
	f, err := ParseFile(token.NewFileSet(), "k.sass", []byte(src), AllErrors)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Funcs[0].Res
	if r.Regs != 28 || r.RegsFrom == "" || r.SharedBytes != 4096 || !r.SharedStated {
		t.Errorf("res-usage: %+v", r)
	}
	for _, c := range []struct {
		file       string
		regs       int
		shared     int64
		sharedStat bool
	}{
		{"uliegecsm__reprospect/tests__tools__binaries__sass__assets__saxpy.sass", 10, 0, true},
		{"YKTian-x2b__AmpereArchViaMicroBenchMark/SMem_Bandwidth_Latency__latency_midRes__smem_latency_ld.sm_86.cuasm.sass", 16, 0, false},
		{"NervanaSystems__maxas/sgemm__sgemm_extracted.sass", 123, 16384, true},
	} {
		path := filepath.Join(corpusDir, c.file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Skipf("shared corpus not available: %v", err)
		}
		f, err := ParseFile(token.NewFileSet(), path, data, AllErrors)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		var k *isa.Resources
		for _, fn := range f.Funcs {
			if fn.Entry {
				k = &fn.Res
				break
			}
		}
		if k == nil || k.Regs != c.regs || k.SharedBytes != c.shared || k.SharedStated != c.sharedStat {
			t.Errorf("%s: resources %+v, want %d registers, shared %d (stated %v)", c.file, k, c.regs, c.shared, c.sharedStat)
		}
	}
}
