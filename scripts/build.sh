#!/usr/bin/env bash
# Configures and builds gpen in ./build (Release).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The Python module is built for Debian's python3 (where install-deps.sh put
# numpy and pytest), not whichever python3 comes first on PATH (pyenv, conda);
# GPEN_PYTHON_EXECUTABLE names another (scripts/install-python.sh: the one on PATH).
python_exe=${GPEN_PYTHON_EXECUTABLE:-/usr/bin/python3}
python_arg=()
[ -x "$python_exe" ] && python_arg=(-DPython_EXECUTABLE="$python_exe")
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda "${python_arg[@]}"
cmake --build build
