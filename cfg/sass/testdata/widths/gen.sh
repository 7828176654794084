#!/bin/sh
# Regenerates the SASS listings of widths.cu with nvcc and nvdisasm of
# CUDA 11.8 (../shared/tools/cuda-tools.sh installs them; no GPU needed).
# Run from this directory:
#
#	sh gen.sh [/opt/cuda-11.8/bin]
#
# For each architecture it writes sm_NN.plr.sass: nvdisasm -c -lrm narrow
# (register life ranges, one column per register), the oracle of
# TestWidthsAgainstLifeRanges. To keep the files small, the blanks that pad
# every line to the life-range table are squeezed to one (the table keeps
# its layout: its columns are counted from its first '|'). sm_89 is left
# out: its listing equals sm_86's but for the header.
#
# It also writes ldsm.sm_86.plr.sass, the raw default output of
# nvdisasm -c -plr (wide life-range columns) for ldsm.cu, the example of
# issue 9 item 3,
# and ldsm.sm_100.plr.sass, a copy whose .headerflags line is replaced by
# ".target sm_100" by hand (CUDA 11.8 cannot compile for sm_100): the
# listing of issue 9 item 18.
set -eu
bin=${1:-/opt/cuda-11.8/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for sm in 52 61 70 75 80 86 90; do
	"$bin/nvcc" -ccbin g++-11 -O3 -arch=sm_$sm -cubin -o "$tmp/k$sm.cubin" widths.cu
	"$bin/nvdisasm" -c -lrm narrow "$tmp/k$sm.cubin" |
		sed -E 's/[[:space:]]+$//; s/^(.*[^[:space:]])[[:space:]]{2,}(\/\/ [|+])/\1 \2/; s/^[[:space:]]+(\/\/ [|+])/\1/' >sm_$sm.plr.sass
done
"$bin/nvcc" -ccbin g++-11 -O3 -arch=sm_86 -cubin -o "$tmp/ldsm.cubin" ldsm.cu
"$bin/nvdisasm" -c -plr "$tmp/ldsm.cubin" >ldsm.sm_86.plr.sass
sed '1s/.*/.target sm_100/' ldsm.sm_86.plr.sass >ldsm.sm_100.plr.sass
