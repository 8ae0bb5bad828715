#!/usr/bin/env bash
# One device call: configure, build, run every test (GPU tests included),
# compute-sanitizer over small runs of each strategy, then the benchmarks.
# Logs and JSON go to $OUT (or ./gpu-out). Usage, on the GPU machine:
#   source .device/bootstrap.sh && bash bench/gpu_session.sh [quick]
set -uo pipefail
out=${OUT:-gpu-out}
mkdir -p "$out"
export GPEN_CACHE_DIR=/tmp/gpen-cache
rm -rf "$GPEN_CACHE_DIR"
step() { echo; echo "=== $* ($(date +%T))"; }

step build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
gpen=build-gpu/cli/gpen

step tests
ctest --test-dir build-gpu --output-on-failure -j4 >"$out/ctest.log" 2>&1
grep -E "tests passed|Failed|Skipped|\*\*\*" "$out/ctest.log"

step "gpen run --verify at 512^3 (the issue's done-when)"
$gpen run specs/stencil/laplacian3d_o8.json --size 512x512x512 --verify 2>&1

step "cold compile, then warm load in a new process"
rm -rf /tmp/gpen-cache-cold
GPEN_CACHE_DIR=/tmp/gpen-cache-cold $gpen compile specs/stencil/laplacian3d_o8.json --json | grep -E '"cache"|"ms"'
GPEN_CACHE_DIR=/tmp/gpen-cache-cold $gpen run specs/stencil/laplacian3d_o8.json --size 64 --repeat 1 2>&1 | grep kernel

[ "${1:-}" = quick ] && exit 0

step "compute-sanitizer: memcheck and racecheck, every strategy, odd sizes"
for tool in memcheck racecheck; do
  for s in direct march tile rolling; do
    for spec in laplacian3d_o8 continuity3d laplacian2d_o4; do
      size=37x21x19; [ $spec = laplacian2d_o4 ] && size=67x45
      r=$(compute-sanitizer --tool $tool --error-exitcode 9 $gpen run specs/stencil/$spec.json --size $size --set strategy=$s --repeat 1 --verify 2>&1)
      rc=$?
      echo "$tool $spec $s rc=$rc $(echo "$r" | grep -E 'ERROR SUMMARY|verify' | tr '\n' ' ')"
    done
  done
done > "$out/sanitizer.txt"
echo "sanitizer runs: $(wc -l < "$out/sanitizer.txt"), with errors or failed checks: $(grep -vc 'rc=0.*ERROR SUMMARY: 0 errors.*PASS' "$out/sanitizer.txt")"
grep -v 'rc=0.*ERROR SUMMARY: 0 errors.*PASS' "$out/sanitizer.txt" | head -5

step "benchmarks: 512^3 Laplacians, fp64 and fp32, strategies x block shapes x points per thread"
for dt in float64 float32; do
  for ppt in 16 64; do
    $gpen bench specs/stencil/laplacian3d_o2.json specs/stencil/laplacian3d_o8.json --size 512 --dtype $dt \
      --blocks 32x8,64x4,32x4,128x2,32x16 --set points_per_thread=$ppt --repeat 20 >"$out/bench_${dt}_ppt$ppt.txt" 2>&1
  done
done
grep -h "device-to-device copy" "$out"/bench_*.txt
for f in "$out"/bench_*.txt; do echo "-- best of $(basename $f)"; grep -E "^laplacian" "$f" | sort -k1,1 -k8,8nr | awk '$1!=p{print; p=$1}'; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version --format=csv,noheader
