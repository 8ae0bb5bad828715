#!/usr/bin/env bash
# `gpen gen --standalone` of every shipped spec, for every strategy its
# tunables allow (scans: the one unit), compiled by nvcc alone (-c: device
# and host code), two compilations at a time. The unit must not lean on what
# NVRTC's options do: its -default-device makes unannotated functions device
# ones, which nvcc takes as host ones. Without nvcc it exits 77, which CTest
# reports as skipped.
#   standalone_nvcc_test.sh GPEN SPEC_DIR NVCC [ARCH]
set -u
gpen=$1 specs=$2 nvcc=${3:-} arch=${4:-sm_80}
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
  echo "[SKIP] no nvcc (looked for '${nvcc}'): the standalone units were not compiled"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GPEN_CACHE_DIR=$tmp/cache GPEN_DISABLE_DRIVER=1
fail=0
for spec in $(find "$specs" -name '*.json' ! -name '*.schema.json' ! -path '*/programs/*' | sort); do
  base=$(basename "$(dirname "$spec")")_$(basename "$spec" .json)
  # The strategies this spec allows, as gpen lists them when refusing one it
  # does not; a kind without strategies (scan) names no such tunable.
  refusal=$("$gpen" gen "$spec" --set strategy=? 2>&1)
  strategies=$(sed -n 's/.*; allowed: //p' <<<"$refusal" | tr -d ',')
  if [ -z "$strategies" ] && ! grep -q "names no tunable" <<<"$refusal"; then
    echo "FAIL: cannot list the strategies of $spec:"; echo "$refusal"; fail=1; continue
  fi
  for st in ${strategies:-""}; do
    unit=$tmp/$base${st:+.$st}.cu
    if ! "$gpen" gen "$spec" --standalone ${st:+--set strategy=$st} -o "$unit" 2>"$unit.log"; then
      echo "FAIL: gpen gen $spec --standalone ${st:+--set strategy=$st}:"; cat "$unit.log"; fail=1
    fi
  done
done
units=$(ls "$tmp"/*.cu | wc -l)
# One line a unit: "ok NAME" or "FAIL NAME" and nvcc's first errors.
ls "$tmp"/*.cu | xargs -P 2 -I{} sh -c '
  if "$0" -c -arch="$1" -std=c++17 -o "{}.o" "{}" >"{}.nvcc" 2>&1; then echo "ok: nvcc $(basename {})";
  else echo "FAIL: nvcc -c -arch=$1 $(basename {}):"; grep -m 10 -E "error" "{}.nvcc"; fi' "$nvcc" "$arch" >"$tmp/results"
cat "$tmp/results"
grep -q '^FAIL' "$tmp/results" && fail=1
echo "$units standalone units, $(grep -c '^ok' "$tmp/results") compiled by $nvcc for $arch"
exit $fail
