#!/usr/bin/env bash
# gen.sh regenerates the gpuwcet kernel corpus from src/*.cu:
#
#   listings/<compiler>-<opt>-<arch>/<stem>.ptx    PTX (--cuda-device-only -S, nvcc -ptx)
#   listings/<compiler>-<opt>-<arch>/<stem>.sass.gz  cuobjdump -sass of the same build's cubin (gzip -n)
#   listings/<compiler>-<opt>-<arch>/<stem>.lines  SASS offset -> source line (nvdisasm -g)
#   dot/<compiler>-<opt>-<arch>/<stem>.dot.gz      nvdisasm -cfg -poff (DOT_CONFIGS only; gzip -n)
#   resusage.tsv                                   cuobjdump -res-usage, per function
#
# Tool versions used for the committed files (the script checks them and
# stops on any other version unless GEN_ANY_VERSION=1):
#   clang-19      Debian clang version 19.1.7 (3~deb12u1)
#   /opt/cuda-clang   CUDA 11.8.89 layout for clang (ptxas, libdevice)
#   /opt/cuda-11.8    nvcc, ptxas, cuobjdump, nvdisasm: release 11.8, V11.8.89
#   g++-11        host compiler for nvcc: g++-11 (Debian 11.3.0-12) 11.3.0
#
# Configurations:
#   clang  -O0 -O1 -O2 -O3  x  sm_52 sm_70 sm_80 sm_90
#          clang-19 --cuda-path=/opt/cuda-clang --cuda-gpu-arch=ARCH
#            --cuda-device-only -OLEVEL -gline-directives-only -fdebug-compilation-dir=.
#          (-S for PTX, -c for the cubin: clang runs ptxas -OLEVEL -lineinfo).
#          clang picks PTX ISA 7.8 for CUDA 11.8, which ptxas 11.8 assembles
#          for every arch here: no -target-feature flag is needed.
#          -gline-directives-only adds .loc/.file directives and an empty
#          .debug_loc section, and nothing else (-gline-tables-only adds full
#          DWARF sections and ".target sm_XX, debug" at -O0: 1.5 times the
#          PTX of -gline-directives-only). The PTX instructions are the same
#          as without it; the .loc directives do change what ptxas makes of
#          clang's PTX (all -O0 builds, some -O1 to -O3 ones:
#          check-lineinfo.sh), so the SASS here is that of a build with
#          line information, as a user compiling with it gets.
#   nvcc   -O0 -O3  x  sm_62 sm_87
#          nvcc -ccbin g++-11 -arch=ARCH -lineinfo (-ptx | -cubin) plus
#            O3: -O3 (device code is optimised by default: cicc and ptxas -O3)
#            O0: -Xcicc -O0 -Xptxas -O0 (unoptimised NVVM and ptxas, without
#                the full debug information of -G, which also disables
#                optimisation but makes 2.4 times the PTX with DWARF)
#          nvcc writes the absolute source path into the PTX .file directive;
#          gen.sh rewrites it to "./<stem>.cu" (the only edit of any
#          compiler output besides the provenance comment) so the files do
#          not depend on where the repository is checked out.
#
# Every file starts with a provenance line ("//" in PTX, SASS and DOT,
# which the project's parsers and Graphviz read as a comment; "#" in the
# .lines and .tsv tables); below it is the tool's output unchanged. SASS
# listings and DOT graphs are compressed with gzip -n -9 (deterministic:
# no name, no time stamp) because the plain SASS of the corpus is about
# 30 MB, mostly cuobjdump's column padding.
#
# Usage: testdata/kernels/gen.sh [stem ...]   (default: every src/*.cu)
# JOBS=N runs N compilations at a time (default 2).
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD

CLANG=${CLANG:-clang-19}
CUDA_CLANG=${CUDA_CLANG:-/opt/cuda-clang}
CUDA=${CUDA:-/opt/cuda-11.8}
HOSTCXX=${HOSTCXX:-g++-11}
JOBS=${JOBS:-2}

CLANG_OPTS="O0 O1 O2 O3"
CLANG_ARCHS="sm_52 sm_70 sm_80 sm_90"
NVCC_OPTS="O0 O3"
NVCC_ARCHS="sm_62 sm_87"
DOT_CONFIGS="clang-O2-sm_80 clang-O3-sm_52 nvcc-O3-sm_87 nvcc-O0-sm_62"

check_version() { # name, command, expected substring
  local got
  got=$("${@:2:$#-2}" 2>&1 | tr '\n' ' ')
  if [[ $got != *"${!#}"* ]]; then
    if [[ ${GEN_ANY_VERSION:-0} != 1 ]]; then
      echo "gen.sh: $1: want version ${!#}, got: $got (GEN_ANY_VERSION=1 to go on)" >&2
      exit 1
    fi
    echo "gen.sh: warning: $1 is not ${!#}: $got" >&2
  fi
}
check_version clang "$CLANG" --version "clang version 19.1.7"
check_version nvcc "$CUDA/bin/nvcc" --version "V11.8.89"
check_version cuda-clang cat "$CUDA_CLANG/version.txt" "11.8.89"
check_version g++-11 "$HOSTCXX" --version "11.3.0"

if [[ $# -gt 0 ]]; then
  STEMS="$*"
else
  STEMS=$(cd src && ls *.cu | sed 's/\.cu$//')
fi

configs() {
  for o in $CLANG_OPTS; do for a in $CLANG_ARCHS; do echo "clang-$o-$a"; done; done
  for o in $NVCC_OPTS; do for a in $NVCC_ARCHS; do echo "nvcc-$o-$a"; done; done
}

# build CONFIG STEM: one compilation unit in one configuration.
build() {
  set -euo pipefail
  local cfg=$1 stem=$2
  local comp=${cfg%%-*} rest=${cfg#*-}
  local opt=${rest%%-*} arch=${rest#*-}
  local out=$ROOT/listings/$cfg tmp
  tmp=$(mktemp -d)
  mkdir -p "$out"
  local flags cmd
  cd "$ROOT/src"
  if [[ $comp == clang ]]; then
    flags="--cuda-path=$CUDA_CLANG --cuda-gpu-arch=$arch --cuda-device-only -$opt -gline-directives-only -fdebug-compilation-dir=."
    cmd="$CLANG $flags"
    $cmd -S "$stem.cu" -o "$tmp/k.ptx"
    $cmd -c "$stem.cu" -o "$tmp/k.cubin"
  else
    if [[ $opt == O0 ]]; then
      flags="-Xcicc -O0 -Xptxas -O0"
    else
      flags="-O3"
    fi
    flags="-ccbin $HOSTCXX -arch=$arch -lineinfo $flags"
    cmd="nvcc $flags"
    "$CUDA/bin/nvcc" $flags -ptx "$stem.cu" -o "$tmp/k.ptx"
    "$CUDA/bin/nvcc" $flags -cubin "$stem.cu" -o "$tmp/k.cubin"
    sed -i -E "s|^(\s*\.file\s+[0-9]+\s+\")[^\"]*/$stem\.cu\"|\1./$stem.cu\"|" "$tmp/k.ptx"
  fi
  {
    echo "// gpuwcet kernel corpus: src/$stem.cu, $cmd (-S/-ptx), testdata/kernels/gen.sh"
    cat "$tmp/k.ptx"
  } >"$out/$stem.ptx"
  {
    echo "// gpuwcet kernel corpus: src/$stem.cu, $cmd (-c/-cubin), cuobjdump -sass, testdata/kernels/gen.sh"
    "$CUDA/bin/cuobjdump" -sass "$tmp/k.cubin"
  } | gzip -n -9 >"$out/$stem.sass.gz"
  # Offset -> line of src/$stem.cu at every change (other files: line 0).
  echo "# gpuwcet kernel corpus: src/$stem.cu, $cmd (-c/-cubin), nvdisasm -g -c, testdata/kernels/gen.sh" >"$out/$stem.lines"
  "$CUDA/bin/nvdisasm" -g -c "$tmp/k.cubin" | awk -v src="$stem.cu" '
    /^\.text\./ { fn = substr($1, 7); sub(/:$/, "", fn); last = -1; next }
    /\/\/## File / {
      f = $0; sub(/^.*File "/, "", f); sub(/".*$/, "", f)
      l = $0; sub(/^.*line /, "", l); sub(/[^0-9].*$/, "", l)
      n = split(f, parts, "/"); cur = (parts[n] == src) ? l + 0 : 0; next
    }
    /^ *\/\*[0-9a-f]+\*\// {
      off = $0; sub(/^ *\/\*/, "", off); sub(/\*\/.*$/, "", off)
      if (fn != "" && cur != last) { printf "%s\t0x%s\t%d\n", fn, off, cur; last = cur }
    }' >>"$out/$stem.lines"
  "$CUDA/bin/cuobjdump" -res-usage "$tmp/k.cubin" | awk -v cfg="$cfg" -v stem="$stem" '
    /^ Function / { fn = $2; sub(/:$/, "", fn); next }
    /REG:/ && fn != "" {
      delete v
      for (i = 1; i <= NF; i++) { split($i, kv, ":"); v[kv[1]] = kv[2] }
      n = split("REG STACK SHARED LOCAL CONSTANT[0] CONSTANT[2] TEXTURE SURFACE SAMPLER", keys, " ")
      line = cfg "\t" stem "\t" fn
      for (i = 1; i <= n; i++) line = line "\t" ((keys[i] in v) ? v[keys[i]] : 0)
      print line; fn = ""
    }' >"$out/$stem.res"
  if [[ " $DOT_CONFIGS " == *" $cfg "* ]]; then
    mkdir -p "$ROOT/dot/$cfg"
    {
      echo "// gpuwcet kernel corpus: src/$stem.cu, $cmd (-c/-cubin), nvdisasm -cfg -poff, testdata/kernels/gen.sh"
      "$CUDA/bin/nvdisasm" -cfg -poff "$tmp/k.cubin"
    } | gzip -n -9 >"$ROOT/dot/$cfg/$stem.dot.gz"
  fi
  rm -rf "$tmp"
}
export -f build
export ROOT CLANG CUDA_CLANG CUDA HOSTCXX DOT_CONFIGS

for stem in $STEMS; do
  for cfg in $(configs); do echo "$cfg $stem"; done
done | xargs -P "$JOBS" -n 2 bash -c 'build "$0" "$1"'

# resusage.tsv: the rows of the stems just built replace their old rows;
# sorted by configuration and source, functions in cuobjdump's order.
header='config\tsource\tfunction\tREG\tSTACK\tSHARED\tLOCAL\tCONSTANT0\tCONSTANT2\tTEXTURE\tSURFACE\tSAMPLER'
{
  echo "# gpuwcet kernel corpus: cuobjdump -res-usage of every cubin of testdata/kernels/gen.sh"
  printf "$header\n"
  {
    if [[ -f resusage.tsv ]]; then
      awk -F'\t' -v stems=" $(echo $STEMS) " '!/^#/ && $1 != "config" && index(stems, " " $2 " ") == 0' resusage.tsv
    fi
    cat listings/*/*.res
  } | sort -t"$(printf '\t')" -s -k1,1 -k2,2
} >resusage.tsv.new
mv resusage.tsv.new resusage.tsv
rm -f listings/*/*.res
echo "gen.sh: $(find listings dot -type f | wc -l) files, $(du -sh listings dot resusage.tsv | awk '{print $1}' | tr '\n' ' ')"
