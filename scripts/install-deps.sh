#!/usr/bin/env bash
# Installs what gpen builds with, from Debian's packages. The CUDA toolkit
# (NVRTC and headers; no driver needed) is expected at /usr/local/cuda.
set -euo pipefail
pkgs=(cmake ninja-build g++ nlohmann-json3-dev libfmt-dev doctest-dev libcli11-dev libpng-dev python3
      # the Python module (python/) and its tests
      pybind11-dev python3-dev python3-numpy python3-pytest
      # several GPUs (issue 30): MPI starts the processes (nccl.h comes with the CUDA toolkit)
      libopenmpi-dev)
# The spec fuzzer (scripts/fuzz.sh): clang with libFuzzer and the sanitizers.
if [ "${GPEN_FUZZ_DEPS:-0}" = 1 ]; then pkgs+=(clang libclang-rt-dev); fi
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ "${GPEN_FUZZ_DEPS:-0}" != 1 ] && [ ! -f /usr/local/cuda/include/nvrtc.h ]; then
  echo "error: the CUDA toolkit (NVRTC) was not found at /usr/local/cuda" >&2
  exit 1
fi
echo "dependencies ok"
