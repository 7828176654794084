#!/usr/bin/env bash
# check-lineinfo.sh checks that the line information gen.sh asks for does
# not change the code: for every source and configuration it builds once
# more without it (clang: no -gline-directives-only; nvcc: no -lineinfo) and
# compares
#   - the PTX, without .loc/.file directives, the $L__tmp/$L__func labels
#     clang adds around them, .debug_* sections (clang's empty .debug_loc,
#     nvcc's .debug_str of inlined function names) and comments;
#   - the SASS listing (cuobjdump -sass), byte for byte, and when it
#     differs, again with register numbers and encodings blanked, to tell
#     a register allocation that differs ("registers") from different
#     instructions ("code").
# It prints one line per difference and a summary; exit status 1 if the
# PTX differs anywhere.
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
  awk '/^[ \t]*\.section[ \t]+\.debug/ { skip = 1; depth = 0 }
    skip { depth += gsub(/\{/, "{"); depth -= gsub(/\}/, "}"); if (depth <= 0 && /\}/) skip = 0; next }
    { print }' "$1" |
    grep -v -E '^\s*\.loc\s|^\s*\.file\s|^\$L__(tmp|func_begin|func_end)[0-9]*:|^\s*//|^\s*$' |
    sed -E 's/\s+\/\/.*$//' || true
}

# blank_regs blanks register numbers and encoding words of a SASS listing.
blank_regs() {
  sed -E 's|/\* 0x[0-9a-f]+ \*/||g; s/\b(U?R|U?P|B)[0-9]+\b/\1#/g' "$1"
}

# compare NAME: compares $tmp/{plain,line}.{sptx,sass}.
compare() {
  n=$((n + 1))
  cmp -s "$tmp/plain.sptx" "$tmp/line.sptx" || { echo "PTX differs: $1"; diffs=$((diffs + 1)); }
  if ! cmp -s "$tmp/plain.sass" "$tmp/line.sass"; then
    if cmp -s <(blank_regs "$tmp/plain.sass") <(blank_regs "$tmp/line.sass"); then
      echo "SASS differs (registers): $1"; regs=$((regs + 1))
    else
      echo "SASS differs (code): $1"; code=$((code + 1))
    fi
  fi
}

diffs=0 n=0 regs=0 code=0
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
      compare "clang-$o-$a/$stem"
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
      compare "nvcc-$o-$a/$stem"
    done
  done
done
echo "check-lineinfo.sh: $n builds compared: PTX differs in $diffs; SASS differs in $((regs + code)) ($regs by register allocation only, $code in the instructions)"
[[ $diffs == 0 ]]
