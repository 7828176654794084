package main

import (
	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/bound/report"
)

// catRecord is the help category of the configuration record's flags.
const catRecord = "CONFIGURATION RECORD"

// configItems are the configuration record's flags, in report order: the
// system a bound is meant for, which the listing does not say. They are
// recorded in the report, and hashed with it, not checked: a report that
// lacks one says so (docs/report.md, "Configuration record").
var configItems = []struct{ flag, usage string }{
	{"gpu-model", "record the GPU `MODEL` the bound is for (e.g. \"Jetson AGX Orin 64GB\")"},
	{"driver", "record the GPU driver `VERSION` (nvidia-smi, or the L4T/JetPack release)"},
	{"cuda-toolkit", "record the CUDA toolkit `VERSION` that built the binary (nvcc --version)"},
	{"compiler-flags", "record the compiler `FLAGS` that built the binary (nvcc/ptxas options, e.g. \"-O3 -arch=sm_87 -Xptxas -dlcm=cg\")"},
	{"clocks", "record the `CLOCKS` the GPU runs at (SM and memory clocks and how they are fixed, e.g. \"SM 1300 MHz, EMC 3199 MHz, jetson_clocks\")"},
}

// configFlags are the configuration record's flags.
func configFlags() []cli.Flag {
	var fs []cli.Flag
	for _, it := range configItems {
		fs = append(fs, &cli.StringFlag{Name: it.flag, Usage: it.usage, Category: catRecord})
	}
	return fs
}

// configRecord reads the configuration record's flags.
func configRecord(c *cli.Context) report.Configuration {
	get := func(f string) string { return c.String(f) }
	r := report.Configuration{GPUModel: get("gpu-model"), Driver: get("driver"), CUDAToolkit: get("cuda-toolkit"),
		CompilerFlags: get("compiler-flags"), Clocks: get("clocks"), NotRecorded: []string{}}
	for _, it := range configItems {
		if get(it.flag) == "" {
			r.NotRecorded = append(r.NotRecorded, it.flag)
		}
	}
	return r
}
