#!/usr/bin/env bash
# The CLI's exit codes and messages: 0 ok, 1 invalid spec, 2 usage, 3 no GPU.
# Run with GPEN_DISABLE_DRIVER=1 so that the no-driver path is exercised
# whether or not this machine has a GPU.
set -u
gpen=$1 specs=$2 tmp=$(mktemp -d)
export GPEN_CACHE_DIR=$tmp/cache GPEN_DISABLE_DRIVER=1
fail=0
expect() {  # expect CODE PATTERN -- command...
  local code=$1 pat=$2; shift 3
  local out; out=$("$@" 2>&1); local rc=$?
  if [ $rc -ne $code ] || ! grep -qE -- "$pat" <<<"$out"; then
    echo "FAIL: $* -> rc=$rc (want $code), output:"; echo "$out" | head -20; fail=1
  else echo "ok: $*"; fi
}
# --json: stdout is one document (docs/json.md) whose fields the Python
# expression checks (d: the document); the text goes to stderr.
expect_json() {  # expect_json CODE EXPR -- command...
  local code=$1 expr=$2; shift 3
  local out; out=$("$@" 2>/dev/null); local rc=$?
  if [ $rc -ne $code ] || ! python3 -c "import json, sys; d = json.loads(sys.argv[1]); assert $expr, d" "$out" 2>/dev/null; then
    echo "FAIL: $* -> rc=$rc (want $code), stdout:"; echo "$out" | head -30; fail=1
  else echo "ok (json): $*"; fi
}
cat > $tmp/bad.json <<'JSON'
{
  "name": "bad", "kind": "stencil", "dtype": "float64", "dims": 3,
  "fields": [{"name": "u", "role": "input", "ghost": 1}, {"name": "v", "role": "output"}],
  "operators": [{"name": "D2", "derivative": 2, "order": 2}],
  "outputs": [{"field": "v", "expr": "D2(uu, x)"}]
}
JSON
expect 0 '^ok .*laplacian3d_o8' -- $gpen check $specs/stencil/laplacian3d_o8.json
expect 1 'bad.json:5:42: error: /outputs/0/expr: unknown identifier .uu.' -- $gpen check $tmp/bad.json
expect 1 '/bad.json: 1 error$' -- $gpen check $tmp/bad.json
# Three independent mistakes: check reports each, and counts them.
sed -e 's/"float64"/"float65"/' -e 's/"ghost"/"ghots"/' $tmp/bad.json > $tmp/bad3.json
expect 1 "bad3.json:2:46: error: /dtype: 'float65' is not allowed here; did you mean 'float64'\?" -- $gpen check $tmp/bad3.json
expect 1 "bad3.json:3:45: error: /fields/0/ghots: unknown key 'ghots'; did you mean 'ghost'\?" -- $gpen check $tmp/bad3.json
expect 1 "bad3.json:5:42: error: /outputs/0/expr: unknown identifier 'uu'; did you mean 'u'\?" -- $gpen check $tmp/bad3.json
expect 1 '/bad3.json: 3 errors$' -- $gpen check $tmp/bad3.json
expect 2 'required' -- $gpen check
expect 2 "subcommand is required" -- $gpen
expect 0 'gpen_laplacian3d_o8' -- $gpen gen $specs/stencil/laplacian3d_o8.json --set strategy=rolling
expect 2 'float16 not in \{float32,float64\}' -- $gpen gen $specs/stencil/laplacian3d_o8.json --dtype float16
expect 0 'using real = float;' -- $gpen gen $specs/stencil/laplacian3d_o8.json --dtype float32
expect 2 '^gpen: usage: --set block_x=33: 33 is not an allowed value of block_x; allowed: 16, 32, 64, 128, 256$' -- $gpen gen $specs/stencil/laplacian3d_o8.json --set block_x=33
expect 0 '#line 1 "families/stencil/device/stencil_common.cuh"' -- $gpen gen $specs/stencil/laplacian3d_o2.json --standalone
expect 0 'cache miss \(compiled\)' -- $gpen compile $specs/stencil/laplacian3d_o2.json --arch sm_90
expect 0 'cache hit \(disk\)' -- $gpen compile $specs/stencil/laplacian3d_o2.json --arch sm_90
expect 0 'resident: 1 block an SM \(4 warps\), bound by shared memory: 177536 \+ 1024 B a block of 233472' -- $gpen compile $specs/stencil/mhd_iso3d.json --arch sm_90
expect 0 'laplacian3d_o2' -- $gpen cache list
# Planted in the cache directory: a link (here to a device) is not followed,
# a FIFO does not block; both are listed as unusable, the link recompiled over.
for f in $tmp/cache/*.gpenbin; do ln -sf /dev/zero "$f"; done
mkfifo $tmp/cache/$(printf 'f%.0s' {1..64}).gpenbin
expect 0 'unusable: it is a FIFO, not a regular file; will be recompiled' -- timeout 20 $gpen cache list
expect 0 'is a symbolic link, which is not followed here; recompiling' -- timeout 60 $gpen compile $specs/stencil/laplacian3d_o2.json --arch sm_90
expect 2 '"sm_90\\n" is not a GPU architecture: expected sm_ and 2 or 3 digits' -- $gpen compile $specs/stencil/laplacian3d_o2.json --arch $'sm_90\n'
expect 3 'cannot run laplacian3d_o8: no CUDA driver: disabled by GPEN_DISABLE_DRIVER' -- $gpen run $specs/stencil/laplacian3d_o8.json --size 64 --verify
expect 3 'cannot benchmark: no CUDA driver' -- $gpen bench $specs/stencil/laplacian3d_o8.json
expect 3 'cannot tune laplacian3d_o8: no CUDA driver' -- $gpen tune $specs/stencil/laplacian3d_o8.json --size 64 --strategy local --budget 4
# NaN passed CLI::Range (both comparisons false) and meant no time limit.
expect 2 '^--time: not seconds from 0 \(no limit\) to 10000000$' -- $gpen tune $specs/stencil/laplacian3d_o8.json --size 64 --time nan
expect 2 '^--time: not seconds from 0 \(no limit\) to 10000000$' -- $gpen tune $specs/stencil/laplacian3d_o8.json --size 64 --time 1e12
expect 2 "^gpen: usage: --set blok_x=3: 'blok_x' names no tunable \(tunables: strategy, block_x, .*\)" -- $gpen tune $specs/stencil/laplacian3d_o8.json --set blok_x=3
# Usage errors exit 2 and name the option and its argument.
o8=$specs/stencil/laplacian3d_o8.json
expect 2 "^gpen: usage: --size abc: not N or NXxNYxNZ, numbers of points \(digits only\) joined by 'x'$" -- $gpen run $o8 --size abc
expect 2 '^gpen: usage: --size 0: 0 points along an axis; at least 1$' -- $gpen run $o8 --size 0
expect 2 '^gpen: usage: --size 99999999999999999999: 99999999999999999999 points along an axis; at most 2147483647 ' -- $gpen run $o8 --size 99999999999999999999
expect 2 '^gpen: usage: --size 2000000000x2000000000x2000000000: 8e\+27 points, more than a 64-bit count holds$' -- $gpen run $o8 --size 2000000000x2000000000x2000000000
expect 2 "^gpen: usage: --size 64x64: 2 axes, the spec's arrays have 3" -- $gpen run $o8 --size 64x64
expect 2 '^gpen: usage: --size 2000: 8000000000 cells; a grid has at most 2147483647' -- $gpen run $specs/pairwise/radiation_grid.json --size 2000
for cmd in compile bench tune; do expect 2 '^gpen: usage: --size 1x2x3x4: not N or NXxNYxNZ' -- $gpen $cmd $o8 --size 1x2x3x4; done
expect 2 '^gpen: usage: --size abc: not N or NXxNYxNZ' -- $gpen survey $specs --size abc
expect 2 '^--repeat: Value 0 not in range 1 to 100000$' -- $gpen run $o8 --repeat 0
expect 2 '^--repeat: Value 0 not in range 1 to 100000$' -- $gpen bench $o8 --repeat 0
expect 2 "^--blocks: '32x' is not a block shape: expected X or XxY" -- $gpen bench $o8 --blocks 32x
expect 2 "^gpen: usage: --set blok_x=3: 'blok_x' names no tunable" -- $gpen bench $o8 --set blok_x=3
expect 2 '^--output: cannot write /nonexistent/x.cu: directory /nonexistent does not exist$' -- $gpen gen $o8 -o /nonexistent/x.cu
expect 2 '^gpen: usage: --set block_x: not name=value \(tunables: strategy, block_x' -- $gpen gen $o8 --set block_x
expect 2 "^gpen: usage: --set strategy=rollin: rollin is not an allowed value of strategy; allowed: direct, march, tile, rolling" -- $gpen gen $o8 --set strategy=rollin
# A --set's mistake names the --set, not a line of the spec (laplacian3d_o2 has no "tunables").
expect 2 '^gpen: usage: --set ring_ahead=2: only the march and stage strategies have ring_ahead, and the strategy is rolling \(--set strategy=rolling\); expected ring_ahead = 0, or strategy march or stage$' -- $gpen gen $specs/stencil/laplacian3d_o2.json --set strategy=rolling --set ring_ahead=2
expect 2 '^gpen: usage: --set block_x=256 --set block_y=16: block_x \* block_y = 4096 threads, more than a block may have; expected block_x \* block_y <= 1024$' -- $gpen gen $specs/stencil/laplacian3d_o2.json --set block_x=256 --set block_y=16
# Every command's help shows its options' defaults, tune's included.
expect 0 '--size TEXT=128 ' -- $gpen run --help
expect 0 '--repeat INT:.*=20$' -- $gpen run --help
expect 0 '--size TEXT=512 ' -- $gpen bench --help
expect 0 '--size TEXT=256 ' -- $gpen tune --help
expect 0 '--size TEXT=67x45x33 ' -- $gpen survey --help
# Particles limited to block on block: refused where the spec says so (once "map::at");
# a grid limited to it checks and generates.
at=$(grep -n '"outputs": \[' $specs/pairwise/softened_potential.json | cut -d: -f1)
sed 's|^  "outputs": \[|  "tunables": {"strategy": {"values": ["blocks"]}},\n  "outputs": [|' $specs/pairwise/softened_potential.json > $tmp/blocks_particles.json
expect 1 "blocks_particles.json:$at:40: error: /tunables/strategy/values/0: \"blocks\" is not a strategy of this spec: block on block \(blocks\) needs" -- $gpen check $tmp/blocks_particles.json
expect 1 "blocks_particles.json:$at:40: error: /tunables/strategy/values/0" -- $gpen gen $tmp/blocks_particles.json
sed 's|^  "outputs": \[|  "tunables": {"strategy": {"values": ["blocks"]}},\n  "outputs": [|' $specs/pairwise/radiation_grid.json > $tmp/blocks_grid.json
expect 0 "^ok .*blocks_grid.json: pairwise 'radiation_grid'" -- $gpen check $tmp/blocks_grid.json
expect 0 'tunables:  strategy=blocks block_x=256 targets_per_thread=2 unroll=32 buffers=1 source_slices=1 flag_chunk=1 cell_block=8 streams=3' -- $gpen gen $tmp/blocks_grid.json
expect 0 'laplacian3d_o8.march.cu' -- $gpen compile $specs/stencil/laplacian3d_o8.json --size 64
expect 0 'none was launched' -- $gpen survey $specs
# One schema per command, one vocabulary, errors as documents.
expect_json 0 'd["schema"] == "gpen.check/1" and d["specs"][0]["ok"] and d["specs"][0]["kind"] == "stencil"' -- $gpen check $o8 --json
expect_json 0 '[t["name"] for t in d["specs"][0]["tunables"]][:2] == ["strategy", "block_x"] and d["specs"][0]["tunables"][4]["strategy"] == "march" and d["specs"][0]["tunables"][1]["values"][0] == 16 and d["specs"][0]["tunables"][1]["doc"]' -- $gpen check $o8 --json
expect 0 '^    stripes +columns: parts of a plane .*; default 16; allowed 1, 4, 16, 64$' -- $gpen check $specs/scan/cumsum_z.json --tunables
expect_json 1 'd["schema"] == "gpen.check/1" and d["specs"][0]["error_count"] == 3 and d["specs"][0]["errors"][1]["pointer"] == "/fields/0/ghots" and d["specs"][0]["errors"][1]["line"] == 3' -- $gpen check $tmp/bad3.json --json
expect_json 0 'd["schema"] == "gpen.compile/1" and d["cache"]["source"] == "disk" and d["tunables"]["strategy"] == "march" and d["tunables"]["block_x"] == 32 and d["usage"]["registers"] > 0' -- $gpen compile $o8 --json
expect_json 0 'd["resident"]["blocks"] >= 1 and d["resident"]["bound"] in ("registers", "shared memory", "threads", "blocks")' -- $gpen compile $o8 --json --arch sm_90
expect_json 0 '"resident" not in d' -- $gpen compile $o8 --json --arch sm_120
expect_json 0 'd["schema"] == "gpen.compile/1" and d["cache"]["source"] == "compiled" and d["tunables"]["strategy"] == "tile" and d["arch"] == "sm_80"' -- $gpen compile $o8 --json --set strategy=tile --arch sm_80
expect_json 1 'd["schema"] == "gpen.error/1" and d["command"] == "compile" and d["kind"] == "spec" and d["exit_code"] == 1 and d["errors"][0]["column"] == 42' -- $gpen compile $tmp/bad.json --json
expect_json 3 'd["schema"] == "gpen.error/1" and d["kind"] == "no_device" and d["command"] == "run"' -- $gpen run $o8 --json
expect_json 2 'd["schema"] == "gpen.error/1" and d["kind"] == "usage" and d["message"].startswith("--size abc")' -- $gpen run $o8 --size abc --json
expect_json 2 'd["schema"] == "gpen.error/1" and d["kind"] == "usage" and d["command"] == "bench"' -- $gpen bench $o8 --repeat 0 --json
expect_json 3 'd["schema"] == "gpen.error/1" and d["command"] == "tune"' -- $gpen tune $o8 --json
expect_json 0 'd["schema"] == "gpen.cache-list/1" and any(k["spec"] == "laplacian3d_o8" for k in d["kernels"])' -- $gpen cache list --json
expect_json 0 'd["schema"] == "gpen.survey/1" and d["gpu"] is None and len(d["rows"]) > 40 and all(r["compiled"] and not r["launched"] for r in d["rows"])' -- $gpen survey $specs --json
expect 0 '^ok .*laplacian3d_o8' -- $gpen check $o8 --json
expect 0 'removed [0-9]+ entries' -- $gpen cache clear
expect 0 "$tmp/cache" -- $gpen cache path
cat > $tmp/bad_scan.json <<'JSON'
{"name": "bad_scan", "kind": "scan", "dtype": "float64", "dims": 1,
 "fields": [{"name": "u", "role": "input"}, {"name": "s", "role": "output"}],
 "scan": {"axis": "x", "op": "a - b", "identity": 0}}
JSON
expect 0 "scan 'cumsum_z'.*s = inclusive scan of u along z" -- $gpen check $specs/scan/cumsum_z.json
expect 1 "bad_scan.json:3:30: error: /scan/op: 'a - b' is not associative" -- $gpen check $tmp/bad_scan.json
expect 0 "cumsum_1d.scan_rows.cu .*cache miss" -- $gpen compile $specs/scan/cumsum_1d.json
expect 3 "cannot run exclusive_sum" -- $gpen run $specs/scan/exclusive_sum.json --size 1000
# Defaults that do not go together are found by check, which plans the default variant.
sed 's|"chained": {"default": 1}|"chained": {"default": 1}, "vector_x": {"default": 2}|' $specs/scan/cumsum_z.json > $tmp/bad_chain.json
expect 1 "bad_chain.json:16:44: error: /tunables/vector_x: vector_x = 2 of float64 is 16 bytes a column group, chained" -- $gpen check $tmp/bad_chain.json
sed 's|"17/48", "59/48", "43/48", "49/48"|"17/48", "59/48", "0", "49/48"|' $specs/sbp/d2_o4.json > $tmp/bad_sbp.json
expect 0 "sbp 'sbp_d2_o4'.*d2u = D2 u along x; interior order 4, boundary order 2, 4 closure rows a side, lines of >= 10 points" -- $gpen check $specs/sbp/d2_o4.json
expect 1 "bad_sbp.json:27:32: error: /sbp/norm/2: weight 0 is not positive" -- $gpen check $tmp/bad_sbp.json
expect 0 "sbp_laplacian3d_o4.sbp_direct.cu .*cache miss" -- $gpen compile $specs/sbp/laplacian3d_o4.json
expect 3 "cannot run sbp_d1_o6" -- $gpen run $specs/sbp/d1_o6.json --size 1000
sed 's|"m_j \* rsqrt(eps2|"m * rsqrt(eps2|' $specs/pairwise/softened_potential.json > $tmp/bad_pair.json
expect 0 "pairwise 'radiation_grid', float32, 3-D grid cells; self skipped; flux_i = sum over j of e_j \* inv_d \* inv_d \* geometry" -- $gpen check $specs/pairwise/radiation_grid.json
expect 1 "bad_pair.json:23:31: error: /outputs/0/expr: field 'm' is read without saying at which end of the pair" -- $gpen check $tmp/bad_pair.json
expect 0 "radiation_grid.pairwise_blocks.cu .*cache miss" -- $gpen compile $specs/pairwise/radiation_grid.json --set strategy=blocks
expect 3 "cannot run softened_potential" -- $gpen run $specs/pairwise/softened_potential.json --size 4099
expect 3 "cannot tune multipole_potential: no CUDA driver" -- $gpen tune $specs/pairwise/multipole_potential.json --size 4096x300 --budget 4
expect 2 "^gpen: usage: --size 4096x300: spec 'softened_potential': its sources are its targets, so the size is one number N$" -- $gpen tune $specs/pairwise/softened_potential.json --size 4096x300
# The cache's size: prune keeps the most recently used entries under the cap
# and removes what interrupted writes left; a store past $GPEN_CACHE_MAX_SIZE
# prunes by itself; clear leaves tuning records unless told.
$gpen cache clear >/dev/null
expect 0 'cache miss' -- $gpen compile $specs/stencil/laplacian3d_o2.json --arch sm_90 --set strategy=direct
touch -h -d '1 hour ago' $tmp/cache/*.gpenbin
expect 0 'cache miss' -- $gpen compile $specs/stencil/laplacian3d_o2.json --arch sm_90 --set strategy=tile
: > $tmp/cache/.0123.gpenbin.1.00000000deadbeef.tmp && touch -d '1 hour ago' $tmp/cache/.0123.gpenbin.1.00000000deadbeef.tmp
ln -s $tmp/bad.json $tmp/cache/.planted.tmp && touch -h -d '1 hour ago' $tmp/cache/.planted.tmp
newest=$(ls -t $tmp/cache/*.gpenbin | head -1)
expect 0 "removed 1 entries and 2 temporary files from $tmp/cache: $(stat -c %s $newest) bytes of entries" -- $gpen cache prune --max-size $(stat -c %s $newest)
expect 0 '^1 entries' -- $gpen cache list
expect 0 'bad.json' -- ls $tmp/bad.json
expect 0 'cache hit \(disk\)' -- $gpen compile $specs/stencil/laplacian3d_o2.json --arch sm_90 --set strategy=tile
expect 2 'expected bytes with an optional K, M, G or T' -- $gpen cache prune --max-size 2X
expect 0 "removed 1 entries and 0 temporary files from $tmp/cache: 0 bytes of entries" -- $gpen cache prune --max-size 0
expect 0 'removed 0 entries and 0 temporary files' -- $gpen cache prune
expect 0 'cache miss' -- env GPEN_CACHE_MAX_SIZE=1K $gpen compile $specs/stencil/laplacian3d_o2.json --arch sm_90 --set strategy=rolling
expect 0 '^0 entries' -- $gpen cache list
expect 0 "GPEN_CACHE_MAX_SIZE='lots' is not a size" -- env GPEN_CACHE_MAX_SIZE=lots $gpen compile $specs/stencil/laplacian3d_o2.json --arch sm_90
cat > $tmp/cache/tuning.json <<'JSON'
{"0123|2^9x2^9x2^9|NVIDIA H100|sm_90|driver 13000|nvrtc 13.0": {"spec": "laplacian3d_o8", "size": "512x512x512", "strategy": "local",
 "date": "2026-01-02", "choice": {"strategy": "march", "block_x": 64}, "ms": 1.25, "evaluations": 40}}
JSON
expect 0 'tuned: laplacian3d_o8 size 512x512x512 \(2026-01-02\), 1.2500 ms, 40 evaluations, block_x=64 strategy=march: 2\^9x2\^9x2\^9\|NVIDIA H100' -- $gpen cache list
expect 0 '^1 tuning records in' -- $gpen cache list
expect 0 'removed [0-9]+ entries' -- $gpen cache clear
expect 0 '^1 tuning records in' -- $gpen cache list
expect 0 "removed 1 tuning records \($tmp/cache/tuning.json\)" -- $gpen cache clear --tuning
expect 0 '^0 tuning records in' -- $gpen cache list
# A damaged tuning database is said (lookups fall back to the defaults); a
# GPEN_CACHE_MAX_SIZE that is no size is prune's usage error.
printf '{"truncated' > $tmp/cache/tuning.json
expect 0 "warning: the tuning database '$tmp/cache/tuning.json' cannot be read: it is not JSON" -- $gpen cache list
expect 0 "removed 0 tuning records" -- $gpen cache clear --tuning
expect 2 "GPEN_CACHE_MAX_SIZE='lots' is not a size" -- env GPEN_CACHE_MAX_SIZE=lots $gpen cache prune
# A cache this user may not change: clear and prune say what they left, and exit 1
# (as root: run as nobody, whom the folder's mode keeps out).
ro=$(mktemp -d) && chmod 755 $ro
expect 0 'cache miss' -- env GPEN_CACHE_DIR=$ro $gpen compile $specs/stencil/laplacian3d_o2.json --arch sm_90
other=()
if [ "$(id -u)" = 0 ]; then command -v setpriv >/dev/null && other=(setpriv --reuid=65534 --regid=65534 --clear-groups); else chmod 555 $ro; fi
if [ "$(id -u)" = 0 ] && { [ ${#other[@]} = 0 ] || ! "${other[@]}" $gpen --version >/dev/null 2>&1; }; then
  echo "skip: a cache this user may not change (root, and no setpriv to drop to nobody, or nobody cannot run $gpen)"
else
  expect 1 "1 entry not removed; cannot remove $ro/[0-9a-f]+\.gpenbin: Permission denied" -- env GPEN_CACHE_DIR=$ro "${other[@]}" $gpen cache clear
  expect 1 "1 entry not removed; cannot remove $ro/[0-9a-f]+\.gpenbin: Permission denied" -- env GPEN_CACHE_DIR=$ro "${other[@]}" $gpen cache prune --max-size 0
  chmod 311 $ro  # entered, not listed: no "removed 0 entries" as if empty
  expect 1 "cannot list $ro: Permission denied" -- env GPEN_CACHE_DIR=$ro "${other[@]}" $gpen cache clear
fi
chmod 755 $ro && rm -rf $ro
# Programs: checked, run on the CPU reference, refused in words.
expect 0 "^ok .*program 'heat_walls3d', float64, 3-D 33x32x33, 1 field" -- $gpen check $specs/programs/heat_walls3d.json
expect 0 'last snapshot: .*/snap_000000010' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 10 --out $tmp/sim
expect 0 'step,t,dt,total' -- head -1 $tmp/sim/diagnostics.csv
expect 0 'T.npy' -- ls $tmp/sim/snap_000000010
expect 0 'heat_walls3d: initial values set in [0-9.]+ s' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 1 --no-output
expect 0 'heat_walls3d: fields read from .*/snap_000000010 in [0-9.]+ s' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 1 --no-output --restart $tmp/sim/snap_000000010
expect 0 'stopped at step 20' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 10 --out $tmp/sim --restart $tmp/sim/snap_000000010
expect 0 'stopped at step 10, t = .*\(--until 1e-09 was already past: the state read is later\); 0 steps' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --until 1e-9 --no-output --restart $tmp/sim/snap_000000010
expect_json 0 'd["stop"] == "time" and d["steps"] == 0 and d["message"] == "--until 1e-09 was already past: the state read is later"' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --until 1e-9 --no-output --restart $tmp/sim/snap_000000010 --json
expect_json 0 'd["stop"] == "time" and d["message"] is None' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --until 1e-4 --no-output --json
# A restart into another folder starts its series with the state read (as a first run with step 0), once.
expect 0 'stopped at step 12' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 2 --out $tmp/sim_new --restart $tmp/sim/snap_000000010
expect 0 '^10 12$' -- python3 -c "import sys; print(' '.join(r.split(',')[0] for r in open(sys.argv[1]).readlines()[1:]))" $tmp/sim_new/diagnostics.csv
expect 0 'already past' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --until 1e-9 --out $tmp/sim_zero --restart $tmp/sim/snap_000000010
expect 0 '^10$' -- python3 -c "import sys; print(' '.join(r.split(',')[0] for r in open(sys.argv[1]).readlines()[1:]))" $tmp/sim_zero/diagnostics.csv
# A restart into its own folder from a snapshot between diagnostic rows (t = 0.1, step 77) adds no row there: rows 0 and the stop, as one run.
expect 0 'stopped at step 100' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 100 --out $tmp/sim_own
expect 0 'stopped at step 90' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 13 --out $tmp/sim_own --restart $tmp/sim_own/snap_000000077
expect 0 '^0 90$' -- python3 -c "import sys; print(' '.join(r.split(',')[0] for r in open(sys.argv[1]).readlines()[1:]))" $tmp/sim_own/diagnostics.csv
expect 1 "program sound_wave3d \(float64\) at 10000x10000x1000 does not fit in the host's memory" -- $gpen simulate $specs/programs/sound_wave3d.json --device cpu --size 10000x10000x1000 --steps 1
expect_json 0 'd["schema"] == "gpen.simulate/1" and d["steps"] == 5 and d["stop"] == "steps" and "total" in d["diagnostics"] and d["last_snapshot"] is None and d["setup_seconds"]["backend"] > 0 and d["setup_seconds"]["fields"] > 0' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 5 --no-output --json
expect 2 'give --steps N or --until T' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu
expect 3 'no GPU for gpen simulate .*--device cpu runs' -- $gpen simulate $specs/programs/heat_walls3d.json --steps 1
# Subdomains (issue 30): the CPU reference split 2x2x1 writes the undecomposed run's snapshots bit for bit.
expect 0 'last snapshot: .*/snap_000000010' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 10 --out $tmp/whole
expect 0 'on 2x2x1 subdomains' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 10 --out $tmp/split --ranks 2x2
expect_json 0 'd["ranks"] == [2, 2, 1] and d["processes"] == 1 and "subdomains" in d["device"]' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 2 --no-output --ranks 2x2 --json
for f in $tmp/whole/snap_000000010/*.npy; do
  if cmp -s "$f" "$tmp/split/snap_000000010/$(basename "$f")"; then echo "ok: $(basename "$f") split 2x2x1 = whole"
  else echo "FAIL: $(basename "$f") of the run split 2x2x1 differs from the whole run's"; fail=1; fi
done
# A split the program cannot take is refused on the GPU path too, before a GPU is looked for.
expect 2 "the subdomain at the lower x face holds 1 point" -- $gpen simulate $specs/programs/heat_walls3d.json --size 9x8x9 --steps 1 --ranks 9
expect 2 "more axes than the program's 3" -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --steps 1 --ranks 2x2x2x2
expect 2 "the subdomain at the lower x face holds 1 point; field 'T''s symmetric condition there \(.*heat_walls3d.json /boundaries/0, line 19, column 5\) reads 2 points" -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 9x8x9 --steps 1 --ranks 9
# Ctrl-C: a clean stop with a last snapshot (exit 130), sent once the run
# shows its first step (not after a fixed sleep: a slow machine may not be there yet).
wait_for_line() {  # PATTERN FILE PID: up to 120 s, while PID runs
  for _ in $(seq 1200); do
    grep -q -- "$1" "$2" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
$gpen simulate $specs/programs/heat_walls3d.json --device cpu --size 33x32x33 --until 1000 --out $tmp/int >$tmp/int.txt 2>&1 &
pid=$!
wait_for_line '^step ' $tmp/int.txt $pid || echo "(gpen simulate showed no step before the Ctrl-C)"
kill -INT $pid
rc=0; wait $pid || rc=$?
if [ $rc = 130 ] && grep -q 'stopped at step .*(Ctrl-C)' $tmp/int.txt && grep -q "stopping after the CPU reference's rows in progress (their step undone)" $tmp/int.txt \
   && ls $tmp/int/snap_*/T.npy >/dev/null 2>&1; then echo "ok: Ctrl-C stops a simulation with a last snapshot"
else echo "FAIL: Ctrl-C on gpen simulate -> rc=$rc (want 130), output:"; head -20 $tmp/int.txt; fail=1; fi
# Ctrl-C stops a survey after the spec it is at, with the rows it has (a cold cache: it compiles for many seconds).
GPEN_CACHE_DIR=$tmp/cold $gpen survey $specs --json >$tmp/sv.json 2>$tmp/sv.txt &
pid=$!
wait_for_line '\.json ' $tmp/sv.txt $pid || echo "(gpen survey showed no row before the Ctrl-C)"
kill -INT $pid
rc=0; wait $pid || rc=$?
if [ $rc = 130 ] && grep -q 'stopping after the current spec' $tmp/sv.txt && grep -q 'Stopped by Ctrl-C' $tmp/sv.txt \
   && python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d['interrupted'] and 0 < len(d['rows']) < 40, d" $tmp/sv.json; then
  echo "ok: Ctrl-C stops a survey with the rows it has"
else echo "FAIL: Ctrl-C on gpen survey -> rc=$rc (want 130), output:"; head -20 $tmp/sv.txt; head -c 600 $tmp/sv.json; fail=1; fi
# Options whose empty value would read as absent, an output folder that cannot be, a time past float64, an architecture NVRTC lacks.
expect 2 '^--size: an empty value' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --steps 1 --size ""
expect 2 '^--ranks: an empty value' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --steps 1 --ranks ""
expect 2 '^--size: an empty value' -- $gpen compile $specs/stencil/laplacian3d_o2.json --size ""
expect 2 '^gpen: usage: --set block_x=64: block_x is set twice \(also --set block_x=32\)' -- $gpen gen $specs/stencil/laplacian3d_o2.json --set block_x=32 --set block_x=64
touch $tmp/afile
expect 2 "^--out: cannot write into $tmp/afile/out: $tmp/afile is not a folder" -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --steps 1 --out $tmp/afile/out
expect 2 '^--out: an empty folder name' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --steps 1 --out ""
expect 2 '^--until: not a finite time >= 0' -- $gpen simulate $specs/programs/heat_walls3d.json --device cpu --until 1e400
expect 2 "^--output: cannot write $tmp/afile/x.cu: $tmp/afile is not a directory" -- $gpen gen $specs/stencil/laplacian3d_o2.json -o $tmp/afile/x.cu
expect 2 "^gpen: usage: NVRTC [0-9.]+ does not compile for sm_35 \\(the --arch given, else this GPU's\\): it compiles for sm_" -- $gpen compile $specs/stencil/laplacian3d_o2.json --arch sm_35
mkdir -p $tmp/programs && ln -s $specs/stencil $specs/reduce $tmp/
sed -e 's/"kappa \/ (hx \* hx)"/"kapa \/ (hx * hx)"/' $specs/programs/heat_walls3d.json > $tmp/programs/prog.json
expect 1 "prog.json:[0-9]+:[0-9]+: error: /rhs/0/params/inv_h2: unknown name 'kapa'" -- $gpen check $tmp/programs/prog.json
sed -e 's|"../stencil/laplacian3d_o2.json"|"../stencil/laplacian3d_o3.json"|' $specs/programs/heat_walls3d.json > $tmp/programs/prog2.json
expect 1 "prog2.json:[0-9]+:[0-9]+: error: /rhs/0/spec: no spec file '../stencil/laplacian3d_o3.json'" -- $gpen check $tmp/programs/prog2.json
rm -rf $tmp
exit $fail
