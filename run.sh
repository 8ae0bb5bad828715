#!/usr/bin/env bash
# The main job: build gpen, then survey every shipped spec: check, generate
# and NVRTC-compile each spec and strategy; with a GPU also run and verify
# each against the CPU reference. Without a GPU it says why nothing launched.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/build.sh
./build/cli/gpen survey specs
