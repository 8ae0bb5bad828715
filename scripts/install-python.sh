#!/usr/bin/env bash
# Installs the gpen Python module for the current user, from this checkout:
# the Debian packages it builds with, the build (./build, Release), and a
# copy of build/python/gpen in the user's site-packages, so that
# `python3 -c "import gpen"` works from anywhere. `--prefix DIR` copies it
# into DIR instead (a virtual environment's site-packages, say).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=""
if [ "${1:-}" = "--prefix" ]; then dest=${2:?"--prefix needs a folder"}; fi
bash scripts/build.sh
python=$(sed -n 's/^Python_EXECUTABLE:[A-Z]*=//p' build/CMakeCache.txt)
python=${python:-python3}
[ -f build/python/gpen/__init__.py ] || { echo "error: the Python module was not built (see the cmake output above: pybind11-dev, python3-dev)" >&2; exit 1; }
[ -n "$dest" ] || dest=$("$python" -m site --user-site)
mkdir -p "$dest"
rm -rf "$dest/gpen"
cp -r build/python/gpen "$dest/gpen"
echo "installed gpen into $dest/gpen (for $("$python" --version))"
(cd / && "$python" -c "import gpen; print('import gpen: ok;', 'GPU:', gpen.gpu_available())")
