#!/usr/bin/env bash
# The main job: build gpen, then survey every shipped spec: check, generate
# and NVRTC-compile each spec and strategy; with a GPU also run and verify
# each against the CPU reference. Without a GPU it says why nothing launched.
# Then a short shipped simulation (specs/programs/heat_walls3d.json): on the
# GPU where there is one, else on the CPU reference at a small size, and
# where its pictures are.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/build.sh
./build/cli/gpen survey specs
echo
out=gpen-out/heat_walls3d
rm -rf "$out"
rc=0
./build/cli/gpen simulate specs/programs/heat_walls3d.json --until 0.05 --out "$out" || rc=$?
if [ $rc = 3 ]; then  # no GPU (the message above says why)
  echo "so heat_walls3d runs on the CPU reference, at 17x16x17:"
  ./build/cli/gpen simulate specs/programs/heat_walls3d.json --device cpu --size 17x16x17 --until 0.05 --out "$out"
elif [ $rc != 0 ]; then
  exit $rc
fi
echo "pictures: $(ls "$out"/snap_*/*.png 2>/dev/null | tr '\n' ' ')"
echo "time series: $out/diagnostics.csv"
