#!/bin/sh
# Regenerates every examples/*/kernel.ptx from its kernel.cu with clang's
# NVPTX back end (Debian clang 14.0.6 was used for the committed files):
#   clang -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -O2 -S kernel.cu -o kernel.ptx
set -eu
cd "$(dirname "$0")"
for d in */; do
  [ -f "$d/kernel.cu" ] || continue
  if [ -x "$d/gen.sh" ]; then "$d/gen.sh"; continue; fi # its own command (prem-conv2d: clang 19, sm_62)
  (cd "$d" && clang -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -O2 -S kernel.cu -o kernel.ptx)
done
