#!/usr/bin/env bash
# Exploration run: build, the GPU tests, then march register blocks of the
# 8th-order Laplacian at 512^3 (one workload per spec and dtype).
#   source .device/bootstrap.sh && bash bench/explore_march.sh
set -uo pipefail
out=${OUT:-gpu-out}; mkdir -p "$out"
export GPEN_CACHE_DIR=/tmp/gpen-cache
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
gpen=build-gpu/cli/gpen
timeout 200 build-gpu/tests/gpen_gpu_tests -tc="march with several*" >"$out/gpu_march.log" 2>&1; echo "gpu march tests rc=$?"; tail -4 "$out/gpu_march.log"
grep -m5 -B2 -A8 "ERROR" "$out/gpu_march.log" | head -40
for dt in float64 float32; do
  for vy in "2 2 0" "2 2 1" "4 1 0" "4 1 1" "2 1 1" "1 2 1" "2 4 1" "4 2 1" "1 1 1"; do
    for ppt in 8 16 32; do
      set -- $vy
      $gpen bench specs/stencil/laplacian3d_o8.json --size 512 --dtype $dt --strategies march \
        --blocks 32x4,32x8,64x2,16x8 --set vector_x=$1 --set rows_y=$2 --set unroll_z=$3 --set points_per_thread=$ppt --repeat 10 2>&1 | grep -E "^laplacian|copy"
    done
  done
done > "$out/explore.txt"
grep -m1 copy "$out/explore.txt"
grep ^lap "$out/explore.txt" | awk '{print $2, $4, $5, $6, $7, $8, $9, $12, $10, $13}' | sort -k1,1 -k8,8nr | awk '{c[$1]++; if (c[$1]<=12) print}'
