package sass

import (
	"strconv"
	"strings"
)

// resInfo is what a listing states about a function's registers and
// shared memory (isa.Resources).
type resInfo struct {
	regs     int
	regsFrom string
	shared   int64
	sharedOK bool
}

func (p *parser) resOf(name string) *resInfo {
	if p.res == nil {
		p.res = map[string]*resInfo{}
	}
	r := p.res[name]
	if r == nil {
		r = &resInfo{}
		p.res[name] = r
	}
	return r
}

// resourceLine reads a line of a cuobjdump "Resource usage:" block:
// " Function NAME:" then "  REG:10 STACK:0 SHARED:0 LOCAL:0 ...".
func (p *parser) resourceLine(s string) {
	if name, ok := strings.CutPrefix(s, "Function "); ok && strings.HasSuffix(name, ":") {
		p.resFunc = strings.Clone(strings.TrimSpace(strings.TrimSuffix(name, ":")))
		return
	}
	if p.resFunc == "" || !strings.Contains(s, "REG:") {
		return
	}
	r := p.resOf(p.resFunc)
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			continue
		}
		switch k {
		case "REG":
			r.regs, r.regsFrom = int(n), "REG:"+v+" (cuobjdump -res-usage)"
		case "SHARED":
			r.shared, r.sharedOK = n, true
		}
	}
}

// maxasHeader reads "# RegCnt: N" and "# SharedSize: N" of a maxas
// listing (the kernel named by "# Kernel:").
func (p *parser) maxasHeader(s string) {
	for _, k := range []string{"# RegCnt:", "# SharedSize:"} {
		v, ok := strings.CutPrefix(s, k)
		if !ok || p.maxasName == "" {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return
		}
		r := p.resOf(p.maxasName)
		if k == "# RegCnt:" {
			r.regs, r.regsFrom = int(n), "RegCnt "+strconv.FormatInt(n, 10)+" (maxas)"
		} else {
			r.shared, r.sharedOK = n, true
		}
	}
}

// sectionInfo reads `.sectioninfo @"SHI_REGISTERS=N"` of a text section
// (nvdisasm, CuAssembler).
func (p *parser) sectionInfo(rest string) {
	i := strings.Index(rest, "SHI_REGISTERS=")
	if i < 0 || p.sectKernel == "" {
		return
	}
	v := rest[i+len("SHI_REGISTERS="):]
	if j := strings.IndexFunc(v, func(c rune) bool { return c < '0' || c > '9' }); j >= 0 {
		v = v[:j]
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		r := p.resOf(p.sectKernel)
		r.regs, r.regsFrom = n, "SHI_REGISTERS="+v+" (nvdisasm .sectioninfo)"
	}
}

// applyResources records what the listing stated on each function.
func (p *parser) applyResources() {
	for _, fn := range p.out.Funcs {
		r := p.res[fn.Name]
		if r == nil {
			continue
		}
		fn.Res.Regs, fn.Res.RegsFrom = r.regs, r.regsFrom
		fn.Res.SharedBytes, fn.Res.SharedStated = r.shared, r.sharedOK
	}
}
