#!/usr/bin/env bash
# gen.sh regenerates the PTX of barriers.cu that TestBarrierLoopsAgainstSimulation
# reads (clang 19.1.7 with CUDA 11.8's layout in /opt/cuda-clang; nvcc 11.8.89
# with g++-11 as host compiler).
set -euo pipefail
cd "$(dirname "$0")"
clang-19 --cuda-path=/opt/cuda-clang --cuda-gpu-arch=sm_80 --cuda-device-only -S -O2 barriers.cu -o clang-O2-sm_80.ptx
/opt/cuda-11.8/bin/nvcc -ccbin g++-11 -arch=sm_62 -ptx -O3 barriers.cu -o nvcc-O3-sm_62.ptx
