#!/bin/sh
# Regenerates the SASS listings of spin.cu (nvcc 11.8 from /opt/cuda-11.8,
# host compiler g++-11): one per architecture.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for arch in sm_62 sm_70 sm_80 sm_90; do
	/opt/cuda-11.8/bin/nvcc -ccbin g++-11 -arch=$arch -cubin -O2 spin.cu -o "$tmp/spin.cubin"
	{
		echo "# cuobjdump -sass of spin.cu: nvcc 11.8 -arch=$arch -cubin -O2 (gen.sh)"
		/opt/cuda-11.8/bin/cuobjdump -sass "$tmp/spin.cubin"
	} > spin_$arch.sass
done
