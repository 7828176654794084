#!/bin/sh
# Regenerates devfacts.ptx and devfacts.sass (clang 19, sm_80, -O2; the SASS
# by ptxas 11.8 through clang -c, then cuobjdump: the device functions are
# in each kernel's code section, split off by the front end).
set -e
cd "$(dirname "$0")"
clang-19 --cuda-path=/opt/cuda-clang --cuda-gpu-arch=sm_80 --cuda-device-only -S -O2 devfacts.cu -o devfacts.ptx
clang-19 --cuda-path=/opt/cuda-clang --cuda-gpu-arch=sm_80 --cuda-device-only -c -O2 devfacts.cu -o /tmp/devfacts.$$.cubin
/opt/cuda-11.8/bin/cuobjdump -sass /tmp/devfacts.$$.cubin > devfacts.sass
rm -f /tmp/devfacts.$$.cubin
