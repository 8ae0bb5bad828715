#!/usr/bin/env bash
# The whole build and the CPU suite under AddressSanitizer and
# UndefinedBehaviorSanitizer, in ./build-asan. Run it each session that
# changes the generator or the runtime (it takes longer than CI allows).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT=/usr/local/cuda -DGPEN_SANITIZE=ON
cmake --build build-asan
# NVRTC is not instrumented and keeps what it allocates until exit.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir build-asan --output-on-failure
