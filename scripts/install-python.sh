#!/usr/bin/env bash
# Installs the gpen Python module from this checkout: the Debian packages it
# builds with, the build (./build, Release), and a copy of build/python/gpen
# into the site-packages of the Python it was built for (the active virtual
# environment's, else the user's), so that `python3 -c "import gpen"` works
# from anywhere. `--prefix DIR` copies it into DIR instead.
set -euo pipefail
cd "$(dirname "$0")/.."
dest="" prefix=""
if [ "${1:-}" = "--prefix" ]; then dest=${2:?"--prefix needs a folder"}; prefix=$dest; fi
GPEN_PYTHON_EXECUTABLE=${GPEN_PYTHON_EXECUTABLE:-$(command -v python3)} bash scripts/build.sh
python=$(sed -n 's/^Python_EXECUTABLE:[A-Z]*=//p' build/CMakeCache.txt)
python=${python:-python3}
[ -f build/python/gpen/__init__.py ] || { echo "error: the Python module was not built (see the cmake output above: pybind11-dev, python3-dev)" >&2; exit 1; }
[ -n "$dest" ] || dest=$("$python" -c 'import site, sys, sysconfig; print(sysconfig.get_paths()["platlib"] if sys.prefix != sys.base_prefix else site.getusersitepackages())')
mkdir -p "$dest"
rm -rf "$dest/gpen"
cp -r build/python/gpen "$dest/gpen"
echo "installed gpen into $dest/gpen (for $("$python" --version))"
# From another folder, as a user would (a --prefix folder is on no path of its own).
(cd / && PYTHONPATH="$prefix${PYTHONPATH:+:$PYTHONPATH}" "$python" -c "import gpen; print('import gpen: ok from', gpen.__file__, '; GPU:', gpen.gpu_available())")
