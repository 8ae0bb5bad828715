#!/usr/bin/env bash
# Builds the spec fuzzer (clang, libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer) in ./build-fuzz and runs it for SECONDS
# (default 120) on tests/fuzz/corpus and the shipped specs. An input that
# crashes, trips a sanitizer, takes more than 10 s or 2 GiB fails the run and
# is left as ./build-fuzz/crash-* (copy it into tests/fuzz/corpus once fixed).
#   scripts/fuzz.sh [SECONDS] [extra libFuzzer flags, e.g. -runs=10000000 -jobs=2]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-120}
shift || true
GPEN_FUZZ_DEPS=1 bash scripts/install-deps.sh
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPEN_FUZZ=ON >/dev/null
cmake --build build-fuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The first directory takes what the run finds; the others are read only.
build-fuzz/fuzz_spec -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
  -dict=tests/fuzz/spec.dict -print_final_stats=1 -artifact_prefix=build-fuzz/ "$@" \
  "$work" tests/fuzz/corpus specs/stencil specs/scan specs/sbp specs/pairwise specs/reduce specs/programs bench/specs
