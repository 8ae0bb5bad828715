#!/usr/bin/env bash
# The layers, as ARCHITECTURE.md draws them, checked on what each source
# includes (directly or through another header: each is preprocessed with
# every include directory on the path, so that a forbidden include would be
# found, and listed):
#   gpen::generator (generator/ and the families' generator halves) needs no
#     CUDA: no CUDA header (cuda.h, nvrtc.h, cuda_runtime*.h), no runtime,
#     family runtime-half or measure header;
#   runtime/ knows no spec and no family: of the generator only its error,
#     sha256 and regular_file utilities, nothing of families/ or measure/;
#   families/ is below measure/ and simulate/, measure/ below simulate/.
# And no family is told apart by a string outside families/ and the spec
# reader (generator/src/spec/spec_parse.cpp, which reads the "kind" key).
# Usage: layers_test.sh CXX SOURCE_ROOT BUILD_INCLUDE_DIR "CUDA_INCLUDE_DIR[;DIR...]" "GENERATOR_SOURCE[;...]"
set -u
cxx=$1 root=$2 build_include=$3
cuda_flags=()
IFS=';' read -ra dirs <<<"$4"
for d in "${dirs[@]}"; do cuda_flags+=("-I$d"); done
IFS=';' read -ra family_generator_sources <<<"$5"
fail=0
# What SRC includes, one path a line; fails (with the compiler's words on
# stderr) when it cannot be preprocessed. -MG lists a header it cannot find
# as written ("gpen/families/..."), so the patterns match such names too.
deps_of() {
  local out
  out=$("$cxx" -std=c++17 -M -MG -I"$root/generator/include" -I"$root/runtime/include" -I"$build_include" "${cuda_flags[@]}" \
        -DGPEN_VERSION='"test"' -DGPEN_NVRTC_PATH='"test"' -DGPEN_NVRTC_SONAME='"test"' -DGPEN_CUDA_VERSION_MAJOR=13 -DGPEN_CUDA_VERSION_MINOR=0 "$1" 2>/tmp/layers_test.$$.err) || { cat /tmp/layers_test.$$.err >&2; rm -f /tmp/layers_test.$$.err; return 1; }
  rm -f /tmp/layers_test.$$.err
  tr ' \\' '\n\n' <<<"$out"
}
# check NAME PATTERN ALLOWED FILES...: no file may depend on a path matching
# PATTERN, unless it matches ALLOWED too ("" allows none).
check() {
  local name=$1 pattern=$2 allowed=${3:-^$} n=0
  shift 3
  for src in "$@"; do
    n=$((n + 1))
    if ! deps=$(deps_of "$src"); then echo "FAIL: cannot preprocess ${src#$root/}"; fail=1; continue; fi
    bad=$(grep -E "$pattern" <<<"$deps" | grep -vE "$allowed" | sed "s|^$root/||; s|^$build_include/||" | sort -u | tr '\n' ' ')
    if [ -n "$bad" ]; then echo "FAIL: ${src#$root/} ($name) includes: $bad"; fail=1; fi
  done
  [ $n -gt 0 ] || { echo "FAIL: no sources for $name"; fail=1; }
  echo "checked $n sources: $name"
}
mapfile -t generator_sources < <(find "$root/generator" -name "*.cpp" | sort)
family_runtime='families/[a-z]+/[a-z_]+_(kernel|reference|run|runtime)\.hpp$|families/common/([a-z_]+)\.hpp$'
generator_ok='families/common/(tunable_offer|utility_units)\.hpp$'
check "gpen::generator: no CUDA, no runtime" \
  '(^|/)(cuda\.h|nvrtc\.h|cuda_runtime[a-z_]*\.h)$|(^|/)gpen/runtime/|(^|/)gpen/measure/|/measure/' '' \
  "${generator_sources[@]}" "${family_generator_sources[@]}"
for src in "${generator_sources[@]}" "${family_generator_sources[@]}"; do
  bad=$(deps_of "$src" | grep -E "$family_runtime" | grep -vE "$generator_ok" | sed "s|^$build_include/||" | sort -u | tr '\n' ' ')
  if [ -n "$bad" ]; then echo "FAIL: ${src#$root/} (gpen::generator) includes a family's runtime half: $bad"; fail=1; fi
done
mapfile -t runtime_sources < <(find "$root/runtime" -name "*.cpp" | sort)
check "runtime/: no spec, no family; of the generator its error, sha256 and regular_file alone" \
  '(^|/)gpen/families/|(^|/)gpen/measure/|(^|/)gpen/generator/([a-z_]+)\.hpp$' 'gpen/generator/(error|sha256|regular_file)\.hpp$' \
  "${runtime_sources[@]}"
mapfile -t family_sources < <(find "$root/families" -name "*.cpp" | sort)
check "families/: below measure/ and simulate/" '(^|/)gpen/(measure|simulate)/' '' "${family_sources[@]}"
mapfile -t measure_sources < <(find "$root/measure" -name "*.cpp" | sort)
check "measure/: any family, through families/common/ alone" '(^|/)gpen/families/[a-z]+/|(^|/)gpen/simulate/' 'gpen/families/common/' "${measure_sources[@]}"
# Family names as strings: comparisons with a kind outside families/.
strays=$(grep -rnE '(kind|is_[a-z]+\(\)) *(==|!=) *"(stencil|scan|sbp|pairwise)"|is_(scan|sbp|pairwise)\(\)' \
  "$root/generator" "$root/runtime" "$root/measure" "$root/cli" "$root/python" --include=*.cpp --include=*.hpp |
  grep -v "^$root/generator/src/spec/spec_parse.cpp:" | sed "s|^$root/||")
if [ -n "$strays" ]; then echo "FAIL: a family told apart by a string outside families/:"; echo "$strays"; fail=1; fi
[ $fail = 0 ] && echo "ok: the layers hold"
exit $fail
