#!/usr/bin/env bash
# check-lineinfo.sh checks that the line information gen.sh asks for does
# not change the code: for every source and configuration it builds once
# more without it (clang: no -gline-directives-only; nvcc: no -lineinfo) and
# compares
#   - the PTX, without .loc/.file directives, the $L__tmp/$L__func labels
#     clang adds around them, the empty .debug_loc section and comments;
#   - the SASS listing (cuobjdump -sass), byte for byte.
# It prints one line per difference and a summary; exit status 1 if any.
#
# Usage: testdata/kernels/check-lineinfo.sh [stem ...]
set -euo pipefail
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-19}
CUDA_CLANG=${CUDA_CLANG:-/opt/cuda-clang}
CUDA=${CUDA:-/opt/cuda-11.8}
HOSTCXX=${HOSTCXX:-g++-11}
if [[ $# -gt 0 ]]; then STEMS="$*"; else STEMS=$(cd src && ls *.cu | sed 's/\.cu$//'); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

strip_ptx() {
  grep -v -E '^\s*\.loc\s|^\s*\.file\s|^\$L__(tmp|func_begin|func_end)[0-9]*:|^\s*\.section\s+\.debug_loc|^\s*//' "$1" |
    sed -E 's/\s+\/\/.*$//' || true
}

diffs=0 n=0
cd src
for stem in $STEMS; do
  for o in O0 O1 O2 O3; do
    for a in sm_52 sm_70 sm_80 sm_90; do
      base="--cuda-path=$CUDA_CLANG --cuda-gpu-arch=$a --cuda-device-only -$o"
      for v in plain line; do
        extra=""
        [[ $v == line ]] && extra="-gline-directives-only -fdebug-compilation-dir=."
        $CLANG $base $extra -S "$stem.cu" -o "$tmp/$v.ptx"
        $CLANG $base $extra -c "$stem.cu" -o "$tmp/$v.cubin"
        strip_ptx "$tmp/$v.ptx" >"$tmp/$v.sptx"
        "$CUDA/bin/cuobjdump" -sass "$tmp/$v.cubin" >"$tmp/$v.sass"
      done
      n=$((n + 1))
      cmp -s "$tmp/plain.sptx" "$tmp/line.sptx" || { echo "PTX differs: clang-$o-$a/$stem"; diffs=$((diffs + 1)); }
      cmp -s "$tmp/plain.sass" "$tmp/line.sass" || { echo "SASS differs: clang-$o-$a/$stem"; diffs=$((diffs + 1)); }
    done
  done
  for o in O0 O3; do
    for a in sm_62 sm_87; do
      if [[ $o == O0 ]]; then of="-Xcicc -O0 -Xptxas -O0"; else of="-O3"; fi
      for v in plain line; do
        extra=""
        [[ $v == line ]] && extra="-lineinfo"
        "$CUDA/bin/nvcc" -ccbin "$HOSTCXX" -arch=$a $extra $of -ptx "$stem.cu" -o "$tmp/$v.ptx"
        "$CUDA/bin/nvcc" -ccbin "$HOSTCXX" -arch=$a $extra $of -cubin "$stem.cu" -o "$tmp/$v.cubin"
        strip_ptx "$tmp/$v.ptx" >"$tmp/$v.sptx"
        "$CUDA/bin/cuobjdump" -sass "$tmp/$v.cubin" >"$tmp/$v.sass"
      done
      n=$((n + 1))
      cmp -s "$tmp/plain.sptx" "$tmp/line.sptx" || { echo "PTX differs: nvcc-$o-$a/$stem"; diffs=$((diffs + 1)); }
      cmp -s "$tmp/plain.sass" "$tmp/line.sass" || { echo "SASS differs: nvcc-$o-$a/$stem"; diffs=$((diffs + 1)); }
    done
  done
done
echo "check-lineinfo.sh: $n builds compared, $diffs differences"
[[ $diffs == 0 ]]
