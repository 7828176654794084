#!/bin/sh
# Regenerates devfacts.ptx (clang 19, sm_80, -O2). (ptxas keeps the device
# functions of this file as subroutines of each kernel's SASS, reached by
# CALL.REL: the SASS front end does not inline them yet.)
set -e
cd "$(dirname "$0")"
clang-19 --cuda-path=/opt/cuda-clang --cuda-gpu-arch=sm_80 --cuda-device-only -S -O2 devfacts.cu -o devfacts.ptx
