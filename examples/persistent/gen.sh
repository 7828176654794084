#!/bin/sh
# Regenerates kernel.ptx from kernel.cu for the Jetson TX2 (sm_62) with
# clang 19's NVPTX back end:
#   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_62 -O2 -S kernel.cu -o kernel.ptx
set -eu
cd "$(dirname "$0")"
clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_62 -O2 -S kernel.cu -o kernel.ptx
