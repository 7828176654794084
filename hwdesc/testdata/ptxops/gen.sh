#!/bin/sh
# Regenerates the PTX of ops.cu with nvcc (CUDA 11.8) and clang (19) for
# sm_80, the listings TestPTXPresetCoverage routes through every PTX
# preset. Run from this directory:
#
#	sh gen.sh [/opt/cuda-11.8/bin] [clang-19] [/opt/cuda-clang]
set -eu
bin=${1:-/opt/cuda-11.8/bin}
clang=${2:-clang-19}
cudapath=${3:-/opt/cuda-clang}
"$bin/nvcc" -ccbin g++-11 -O3 -arch=sm_80 -ptx -o ops.nvcc.sm_80.ptx ops.cu
"$clang" --cuda-path="$cudapath" --cuda-gpu-arch=sm_80 --cuda-device-only -S -O2 -o ops.clang.sm_80.ptx ops.cu
