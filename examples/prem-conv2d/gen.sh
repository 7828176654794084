#!/bin/sh
# Regenerates kernel.ptx from kernel.cu (and stream.ptx from stream.cu) with clang 19's NVPTX back end
# (Debian clang version 19; the CUDA headers are not used: ../cuda_decls.h
# declares what the kernel needs):
set -eu
cd "$(dirname "$0")"
clang-19 -x cuda --cuda-path=/opt/cuda-clang --cuda-gpu-arch=sm_62 --cuda-device-only -nocudainc -nocudalib -S -O2 kernel.cu -o kernel.ptx
clang-19 -x cuda --cuda-path=/opt/cuda-clang --cuda-gpu-arch=sm_62 --cuda-device-only -nocudainc -nocudalib -S -O2 stream.cu -o stream.ptx
