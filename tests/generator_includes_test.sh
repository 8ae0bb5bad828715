#!/usr/bin/env bash
# gpen::generator needs no CUDA: no file compiled into it may include a CUDA
# header (cuda.h, nvrtc.h, cuda_runtime*.h) or one of gpen's runtime headers,
# directly or through another header. Each source is preprocessed with the
# runtime's and CUDA's include directories on the path (so that such an
# include would be found, and listed) and its dependencies are read.
# Usage: generator_includes_test.sh CXX SOURCE_ROOT "CUDA_INCLUDE_DIR[;DIR...]"
set -u
cxx=$1 root=$2
cuda_flags=()
IFS=';' read -ra dirs <<<"$3"
for d in "${dirs[@]}"; do cuda_flags+=("-I$d"); done
fail=0 n=0
while IFS= read -r src; do
  n=$((n + 1))
  deps=$("$cxx" -std=c++17 -M -MG -I"$root/generator/include" -I"$root/templates" -I"$root/runtime/include" "${cuda_flags[@]}" \
         -DGPEN_VERSION='"test"' "$src" 2>&1) || { echo "FAIL: cannot preprocess $src:"; echo "$deps" | head -5; fail=1; continue; }
  bad=$(tr ' \\' '\n\n' <<<"$deps" | grep -E '(^|/)(cuda\.h|nvrtc\.h|cuda_runtime[a-z_]*\.h)$|/gpen/runtime/|^gpen/runtime/' | sort -u)
  if [ -n "$bad" ]; then echo "FAIL: ${src#$root/} includes: $bad"; fail=1; fi
done < <(find "$root/generator" -name "*.cpp" | sort)
[ $n -gt 0 ] || { echo "FAIL: no sources under $root/generator"; exit 1; }
[ $fail = 0 ] && echo "ok: none of the $n sources of gpen::generator includes a CUDA or runtime header"
exit $fail
