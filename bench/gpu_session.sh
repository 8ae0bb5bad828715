#!/usr/bin/env bash
# The GPU session in device calls of one phase each (each under the 600 s limit):
#   source .device/bootstrap.sh && bash bench/gpu_session.sh tests   # build, ctest, verify 512^3, load times, sanitizer
#   source .device/bootstrap.sh && bash bench/gpu_session.sh bench   # build, stencil benchmarks
#   source .device/bootstrap.sh && bash bench/gpu_session.sh tune    # build, tuning benchmark (issue 7)
#   source .device/bootstrap.sh && bash bench/gpu_session.sh scan    # build, scan GPU tests, scan benchmarks, sanitizer
#   source .device/bootstrap.sh && bash bench/gpu_session.sh sbp     # build, SBP GPU tests, SBP benchmarks, sanitizer
#   source .device/bootstrap.sh && bash bench/gpu_session.sh pairwise  # build, pairwise GPU tests, benchmarks, sanitizer
#   source .device/bootstrap.sh && bash bench/gpu_session.sh reduce    # build, reduction GPU tests, sanitizers, 512^3 benchmarks beside CuPy/CUB and PyTorch (issue 26)
#   source .device/bootstrap.sh && bash bench/gpu_session.sh tunetime  # build, the tuner's time budget, log, resume, Ctrl-C, disk use
#   source .device/bootstrap.sh && bash bench/gpu_session.sh suite     # build, CPU ctest, the GPU suite (GPU_TEST_FILES: doctest -sf filter)
#   source .device/bootstrap.sh && bash bench/gpu_session.sh warm      # build, warm start from spec to loaded module, every shipped spec (issue 23)
#   source .device/bootstrap.sh && bash bench/gpu_session.sh json      # build, --json of run, bench and tune on the GPU, each document checked
#   source .device/bootstrap.sh && bash bench/gpu_session.sh families  # build, survey verified on the GPU, sanitizers on a variant of each family
#   source .device/bootstrap.sh && bash bench/gpu_session.sh defaults  # build, every shipped spec's default variant timed (GPEN_OLD_TREE: beside an older tree)
#   source .device/bootstrap.sh && bash bench/gpu_session.sh heavy     # build, the fused multi-field specs in several variants (HEAVY_SPECS, HEAVY_SIZES, HEAVY_LARGE, HEAVY_VARIANTS), stage under the sanitizers
#   source .device/bootstrap.sh && bash bench/gpu_session.sh fission   # build, the heavy specs beside their outputs split over kernels (FISSION_SIZE, default 512; FISSION_DTYPES, default float64: one dtype takes about 6 minutes)
#   source .device/bootstrap.sh && bash bench/gpu_session.sh profile   # build, ncu of one launch of each PROFILE_RUNS line ("spec.json --set ..."): occupancy, issue, shared memory, stalls
#   source .device/bootstrap.sh && bash bench/gpu_session.sh simulate  # build, the time loop's GPU tests (issue 27), sanitizer runs, a step against its parts alone (SIM_SIZES)
#   source .device/bootstrap.sh && bash bench/gpu_session.sh python    # build, the Python module's tests on CuPy and PyTorch (issue 28), memcheck, launch overhead, the CuPy example
#   source .device/bootstrap.sh && bash bench/gpu_session.sh handwritten  # build, pairwise GPU tests, the math functions' and pairwise kernels' instructions by pipe (ncu), every pairwise spec beside a hand-written kernel, default and tuned (HW_TUNE_S s each; 0: none) (issue 29)
#   source .device/bootstrap.sh && bash bench/gpu_session.sh ranks     # build, several GPUs (issue 30) on one: the decomposed and halo GPU tests, memcheck of the overlap
#   source .device/bootstrap.sh && bash bench/gpu_session.sh mpi       # build, tests/mpi/simulate_mpi.sh on every GPU of the machine (issue 30)
#   source .device/bootstrap.sh && bash bench/gpu_session.sh weak      # build, weak scaling on every GPU of the machine (512^3 f64 a GPU; issue 30)
#   source .device/bootstrap.sh && bash bench/gpu_session.sh strong    # build, strong scaling of STRONG_N^3 (default 1024) float32 on every GPU of the machine (issue 30)
# Logs, JSON and SVG go to $OUT (or ./gpu-out). SKIP_SCAN_TESTS=1 leaves out the
# scan phase's GPU tests (about 3 minutes) when the tests phase runs them anyway;
# SKIP_GPU_SUITE=1 leaves the CPU ctest and the GPU suite out of the tests phase,
# and SKIP_CTEST=1 the CPU ctest out of the suite phase, when the suite runs in
# calls of its own (it takes more than 430 s).
set -uo pipefail
case "${1:-tests}" in
  tests | suite | bench | tune | tunetime | scan | sbp | pairwise | reduce | warm | json | families | defaults | heavy | fission | profile | simulate | python | handwritten | ranks | mpi | weak | strong) ;;
  *) echo "gpu_session.sh: unknown phase '$1' (tests, suite, bench, tune, tunetime, scan, sbp, pairwise, reduce, warm, json, families, defaults, heavy, fission, profile, simulate, python, handwritten, ranks, mpi, weak or strong)" >&2; exit 2 ;;
esac
out=${OUT:-gpu-out}
mkdir -p "$out"
export GPEN_CACHE_DIR=/tmp/gpen-cache
step() { echo; echo "=== $* ($(date +%T))"; }

step build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
gpen=build-gpu/cli/gpen

# One `gpen run ARGS...` under compute-sanitizer TOOL: a line with the tool,
# LABEL, the exit status, the summary (racecheck prints a RACECHECK SUMMARY,
# not an ERROR SUMMARY) and the verification.
sanitize() {  # sanitize TOOL LABEL ARGS...
  local tool=$1 label=$2 r rc
  shift 2
  r=$(compute-sanitizer --tool "$tool" --error-exitcode 9 $gpen run "$@" 2>&1)
  rc=$?
  echo "$tool $label rc=$rc $(echo "$r" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|verify' | tr '\n' ' ')"
}
# The count of FILE's sanitizer lines, and those that found errors or failed their check.
sanitizer_report() {  # sanitizer_report FILE
  local bad
  bad=$(awk '!(/rc=0/ && (/ERROR SUMMARY: 0 errors/ || /RACECHECK SUMMARY: 0 hazards/) && /PASS/)' "$1")
  echo "sanitizer runs: $(wc -l < "$1"), with errors or failed checks: $(echo -n "$bad" | grep -c .)"
  [ -z "$bad" ] || echo "$bad" | head -5
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version --format=csv,noheader

if [ "${1:-tests}" = tunetime ]; then
  # Each line of the command stamped with the seconds since it started:
  # piped output must come within seconds, and the end by --time + a few.
  since() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }
  stamped() {
    local t0; t0=$(date +%s.%N)
    "$@" 2>&1 | while IFS= read -r line; do printf '%6s %s\n' "$(since $t0)" "$line"; done
    echo "wall $(since $t0) s"
  }
  rm -rf "$GPEN_CACHE_DIR"
  step "tuner GPU tests: time limit, interrupt"
  build-gpu/tests/gpen_gpu_tests -tc='*time limit*,*interrupted search*' >"$out/gpu_tunetime_tests.log" 2>&1; echo "gpu tune-time tests rc=$?"
  grep -E "test cases|assertions|ERROR|with expansion" "$out/gpu_tunetime_tests.log" | head -20
  step "gpen tune laplacian3d_o8 --size 512 --time 60, piped, cold cache"
  stamped $gpen tune specs/stencil/laplacian3d_o8.json --size 512 --time 60 --log "$out/tune_o8.log" --no-save
  echo "log lines: $(wc -l < "$out/tune_o8.log"); kernel cache: $(du -sh "$GPEN_CACHE_DIR" | cut -f1)"
  step "--resume: 30 s more, the same log"
  stamped $gpen tune specs/stencil/laplacian3d_o8.json --size 512 --time 30 --log "$out/tune_o8.log" --resume "$out/tune_o8.log" --no-save | grep -vE "^ *[0-9.]+ +(rank|[0-9]+ |dflt)"
  echo "log lines: $(wc -l < "$out/tune_o8.log"); kernel cache: $(du -sh "$GPEN_CACHE_DIR" | cut -f1)"
  step "Ctrl-C after 25 s of a 120 s search"
  $gpen tune specs/stencil/laplacian3d_o2.json --size 256 --time 120 >"$out/tune_ctrlc.txt" 2>&1 &
  pid=$!
  sleep 25
  kill -INT $pid
  t0=$(date +%s.%N); wait $pid; rc=$?
  echo "rc=$rc, ended $(since $t0) s after the Ctrl-C"
  grep -E "stopping|search:|best of|saved" "$out/tune_ctrlc.txt"
  step "a heavy spec at 512^3 within --time 60: its search space and the CPU check of its default (tens of seconds on every core) inside the budget"
  stamped $gpen tune specs/stencil/momentum_visc3d.json --dtype float64 --size 512 --time 60 --no-save | grep -vE "^ *[0-9.]+ +([2-9]|10) "
  step "--time 20 that the CPU check of a heavier default at 512^3 cannot keep: refused at the budget"
  stamped $gpen tune specs/stencil/mhd_iso3d.json --dtype float64 --size 512 --time 20 --no-save
  step "Ctrl-C 15 s after mhd_iso3d float64 at 512^3 began its default (compile, then the CPU check)"
  $gpen tune specs/stencil/mhd_iso3d.json --dtype float64 --size 512 --time 0 --no-save >"$out/tune_ctrlc_check.txt" 2>&1 &
  pid=$!
  for _ in $(seq 120); do grep -q "checking it against the CPU" "$out/tune_ctrlc_check.txt" && break; sleep 0.5; done
  sleep 15
  kill -INT $pid
  t0=$(date +%s.%N); wait $pid; rc=$?
  echo "rc=$rc, ended $(since $t0) s after the Ctrl-C"
  tr '\r' '\n' <"$out/tune_ctrlc_check.txt" | grep -vE "^ *$" | tail -6
  step "the README's plain command: gpen tune SPEC --size N (default budget)"
  stamped $gpen tune specs/stencil/laplacian3d_o2.json --size 256 --no-save | grep -vE "^ *[0-9.]+ +([2-9]|10) "
  echo "kernel cache: $(du -sh "$GPEN_CACHE_DIR" | cut -f1), $(ls "$GPEN_CACHE_DIR" | wc -l) files"
  exit 0
fi

if [ "${1:-tests}" = warm ]; then
  step "warm start: spec load, choose, disk lookup (a new KernelCache each time) and module load, every shipped spec's default, median of 20 (target < 1 ms)"
  build-gpu/bench/gpen_bench_warm --repeat 20 2>&1 | tee "$out/bench_warm.txt"
  step "the same in new processes: a cold compile, then gpen run twice on the warm cache"
  rm -rf /tmp/gpen-cache-warm
  for spec in stencil/laplacian3d_o8 scan/logcumsumexp; do
    GPEN_CACHE_DIR=/tmp/gpen-cache-warm $gpen run specs/$spec.json --size 64 --repeat 1 --no-tuned 2>&1 | grep kernel
    for i in 1 2; do GPEN_CACHE_DIR=/tmp/gpen-cache-warm $gpen run specs/$spec.json --size 64 --repeat 1 --no-tuned 2>&1 | grep kernel; done
  done
  exit 0
fi

if [ "${1:-tests}" = families ]; then
  step "survey: every shipped spec and strategy, run and verified on the GPU"
  $gpen survey specs --json >"$out/survey.json" 2>"$out/survey.txt"; echo "survey rc=$?"
  python3 -c "import json, sys; rows = json.load(open(sys.argv[1]))['rows']; bad = [r for r in rows if not (r.get('verify') or {}).get('pass')]
print(len(rows), 'rows,', len(bad), 'not verified'); [print(r) for r in bad[:5]]" "$out/survey.json"
  step "compute-sanitizer memcheck and racecheck: variants of each family at sizes off the tile"
  for tool in memcheck racecheck; do
    sanitize $tool "laplacian3d_o8 march 37x21x19" specs/stencil/laplacian3d_o8.json --size 37x21x19 --repeat 1 --verify --no-tuned
    sanitize $tool "continuity3d rolling 37x21x19" specs/stencil/continuity3d.json --size 37x21x19 --set strategy=rolling --repeat 1 --verify --no-tuned
    sanitize $tool "cumsum_x 1000x37x5" specs/scan/cumsum_x.json --size 1000x37x5 --repeat 1 --verify --no-tuned
    sanitize $tool "cumsum_z 67x45x133" specs/scan/cumsum_z.json --size 67x45x133 --repeat 1 --verify --no-tuned
    sanitize $tool "sbp d2_o4 pencil 1001" specs/sbp/d2_o4.json --size 1001 --set strategy=pencil --repeat 1 --verify --no-tuned
    sanitize $tool "sbp laplacian3d_o4 37x21x19" specs/sbp/laplacian3d_o4.json --size 37x21x19 --repeat 1 --verify --no-tuned
    sanitize $tool "softened_potential 4099" specs/pairwise/softened_potential.json --size 4099 --repeat 1 --verify --no-tuned
    sanitize $tool "radiation_grid blocks 9" specs/pairwise/radiation_grid.json --size 9 --set strategy=blocks --repeat 1 --verify --no-tuned
    sanitize $tool "grouped_potential 1000" specs/pairwise/grouped_potential.json --size 1000 --repeat 1 --verify --no-tuned
  done >"$out/sanitizer.txt"
  sanitizer_report "$out/sanitizer.txt"
  exit 0
fi

if [ "${1:-tests}" = heavy ]; then
  heavy=(specs/stencil/continuity3d.json specs/stencil/momentum_visc3d.json specs/stencil/induction3d.json specs/stencil/mhd_iso3d.json)
  step "the stage strategy under the sanitizers, at sizes off the tile"
  for tool in memcheck racecheck; do
    sanitize $tool "momentum_visc3d stage 37x21x19" specs/stencil/momentum_visc3d.json --size 37x21x19 --set strategy=stage --set ring_ahead=1 --repeat 1 --verify --no-tuned
    sanitize $tool "mhd_iso3d stage ahead 0 rows 1 33x19x11" specs/stencil/mhd_iso3d.json --size 33x19x11 --set strategy=stage --set ring_ahead=0 --set rows_y=1 --repeat 1 --verify --no-tuned
    sanitize $tool "laplacian2d_o4 stage 1001x37" specs/stencil/laplacian2d_o4.json --size 1001x37 --set strategy=stage --set ring_ahead=2 --repeat 1 --verify --no-tuned
    sanitize $tool "continuity3d default (stage, columns in registers) 37x21x19" specs/stencil/continuity3d.json --size 37x21x19 --repeat 1 --verify --no-tuned
    sanitize $tool "induction3d float32 stage z_queue 1 rows_y 2 33x19x11" specs/stencil/induction3d.json --size 33x19x11 --dtype float32 --set z_queue=1 --set rows_y=2 --repeat 1 --verify --no-tuned
    sanitize $tool "momentum_visc3d float32 stage walk of 4 planes 3x5x16390" specs/stencil/momentum_visc3d.json --size 3x5x16390 --dtype float32 --set points_per_thread=1 --repeat 1 --verify --no-tuned
  done >"$out/sanitizer.txt"
  sanitizer_report "$out/sanitizer.txt"
  step "heavy specs: variants x dtypes x sizes (gpen run --json; verified at 67x45x33)"
  variants=()
  [ -n "${HEAVY_VARIANTS:-}" ] && variants=(--variants "$HEAVY_VARIANTS")
  python3 bench/heavy.py $gpen ${HEAVY_SPECS:-${heavy[*]}} --sizes "${HEAVY_SIZES:-256}" --large "${HEAVY_LARGE-512}" "${variants[@]}" >"$out/heavy.md" 2>"$out/heavy.log"
  echo "heavy rc=$?"
  cat "$out/heavy.md"
  exit 0
fi

if [ "${1:-tests}" = fission ]; then
  # Each heavy spec beside its outputs split over kernels, every part at its
  # default; induction3d's parts, light enough for the march, again as stage
  # kernels.
  step "fission: the fused heavy specs beside their outputs split over kernels (bench/fission.py, ${FISSION_SIZE:-512}^3)"
  for dtype in ${FISSION_DTYPES:-float64}; do
    python3 bench/fission.py $gpen specs/stencil/momentum_visc3d.json $dtype ${FISSION_SIZE:-512} dux_dt/duy_dt/duz_dt dux_dt,duy_dt/duz_dt
    for parts in "" "--parts-set strategy=stage"; do
      python3 bench/fission.py $gpen specs/stencil/induction3d.json $dtype ${FISSION_SIZE:-512} dax_dt/day_dt/daz_dt $parts
    done
    python3 bench/fission.py $gpen specs/stencil/mhd_iso3d.json $dtype ${FISSION_SIZE:-512} dlnrho_dt,dux_dt,duy_dt,duz_dt/dax_dt,day_dt,daz_dt \
      dlnrho_dt/dux_dt,duy_dt,duz_dt/dax_dt,day_dt,daz_dt
  done 2>&1 | tee "$out/fission.txt" | grep -E "fused / split|fission.py:"
  exit 0
fi

if [ "${1:-tests}" = profile ]; then
  # One launch of each run (the second: the first may load the module), its
  # counters as ncu reads them (clocks left as they are), the lines that say
  # where the time goes printed, the whole report in $out/profile_N.txt.
  runs=${PROFILE_RUNS:-"specs/stencil/momentum_visc3d.json --size 256
specs/stencil/momentum_visc3d.json --size 256 --dtype float32
specs/stencil/mhd_iso3d.json --size 256
specs/stencil/continuity3d.json --size 256"}
  stalls=$(printf 'smsp__average_warps_issue_stalled_%s_per_issue_active.ratio,' barrier long_scoreboard short_scoreboard mio_throttle \
    math_pipe_throttle wait not_selected selected lg_throttle dispatch_stall no_instruction membar drain branch_resolving misc)
  stalls=${stalls%,}
  n=0
  while IFS= read -r run; do
    [ -z "$run" ] && continue
    n=$((n + 1))
    step "ncu: $run"
    ncu --clock-control none -k regex:3d --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,$stalls \
      $gpen run $run --no-tuned --repeat 2 >"$out/profile_$n.txt" 2>&1
    echo "ncu rc=$?"
    grep -E "^  [a-zA-Z_]+.*gpen_|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Dynamic Shared|Issue Slots Busy|Issued Warp|No Eligible|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Shared Memory|L1/TEX Hit|Warp Cycles Per Issued|wavefronts|bank_conflicts|inst_executed|dfma|ffma|Stall|stall" "$out/profile_$n.txt" | head -60
  done <<< "$runs"
  exit 0
fi

if [ "${1:-tests}" = ranks ] || [ "${1:-tests}" = mpi ] || [ "${1:-tests}" = weak ] || [ "${1:-tests}" = strong ]; then
  gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
  if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
  if [ "$1" = ranks ]; then
    step "subdomains on one GPU (local transport) and the halo exchange: GPU tests"
    timeout 330 build-gpu/tests/gpen_gpu_tests -sf='*test_gpu_decomposed*,*test_gpu_halo*' >"$out/gpu_ranks_tests.log" 2>&1; echo "gpu ranks tests rc=$?"
    grep -E "test cases|assertions|ERROR|FAILED" "$out/gpu_ranks_tests.log" | head -30
    step "compute-sanitizer memcheck of the overlapped stages (float32, cores cut along x)"
    timeout 240 compute-sanitizer --tool memcheck build-gpu/tests/gpen_gpu_tests -tc='*overlapping*' -sc='float32,*288*' >"$out/memcheck_overlap.log" 2>&1; echo "memcheck rc=$?"
    grep -E "test cases|assertions|ERROR SUMMARY" "$out/memcheck_overlap.log"
  elif [ "$1" = mpi ]; then
    if [ "$gpus" -gt 1 ]; then
      step "gpen simulate under mpirun on $gpus GPUs: snapshots byte for byte"
      timeout 400 bash tests/mpi/simulate_mpi.sh $gpen "$PWD/specs" "$gpus" >"$out/simulate_mpi.log" 2>&1; echo "simulate_mpi rc=$?"
      grep -v ": ok\|^ok" "$out/simulate_mpi.log" | tail -20; echo "$(grep -c ': ok\|^ok' "$out/simulate_mpi.log") ok"
    else
      echo "one GPU on this machine: tests/mpi/simulate_mpi.sh needs several"
    fi
  else
    $gpen run specs/stencil/laplacian3d_o8.json --json 2>/dev/null | python3 -c "import json,sys; print('copy GB/s', json.load(sys.stdin)['copy_gbs'])"
    if [ "$1" = weak ]; then
      step "weak scaling on $gpus GPUs"
      timeout 480 bash bench/scaling.sh weak $gpen "$PWD/specs" "$gpus" 512 60 | tee "$out/weak.txt"
    else
      n=${STRONG_N:-1024}
      step "strong scaling of ${n}^3 float32 on $gpus GPUs"
      timeout 480 bash bench/scaling.sh strong $gpen "$PWD/specs" "$gpus" "$n" 30 sound_wave3d float32 | tee "$out/strong.txt"
    fi
  fi
  exit 0
fi

if [ "${1:-tests}" = simulate ]; then
  step "the time loop's GPU tests: boundaries, steps against the CPU, conservation, restart"
  build-gpu/tests/gpen_gpu_tests -sf='*test_gpu_simulation*' >"$out/gpu_simulation_tests.log" 2>&1; echo "gpu simulation tests rc=$?"
  grep -E "test cases|assertions|ERROR|with expansion|values" "$out/gpu_simulation_tests.log" | head -30
  step "compute-sanitizer memcheck of a short GPU run (odd size)"
  r=$(compute-sanitizer --tool memcheck --error-exitcode 9 $gpen simulate specs/programs/sound_wave3d.json --size 37x21x19 --steps 3 --out /tmp/sim-memcheck 2>&1)
  echo "memcheck rc=$? $(echo "$r" | grep -E 'ERROR SUMMARY')"
  step "compute-sanitizer racecheck and memcheck of a short GPU run of each shipped program (odd size)"
  for run in "sound_wave3d 33x19x11" "heat_walls3d 33x19x11" "orszag_tang3d 33x19x11" "alfven_wave3d 33x5x5" "wave2d_sbp 37x29"; do
    set -- $run
    for tool in racecheck memcheck; do
      r=$(compute-sanitizer --tool $tool --error-exitcode 9 $gpen simulate specs/programs/$1.json --size $2 --steps 2 --no-output 2>&1)
      echo "$tool $1 $2 rc=$? $(echo "$r" | grep -E 'RACECHECK SUMMARY|ERROR SUMMARY')"
    done
  done
  sizes=${SIM_SIZES:-256,512}
  step "a step against its parts alone: sound_wave3d (hydro, RK3, CFL) at $sizes, float64 and float32"
  build-gpu/bench/gpen_bench_simulate specs/programs/sound_wave3d.json --size "$sizes" --dtype float64,float32 --steps 50 2>"$out/bench_simulate_parts.txt" | tee "$out/bench_simulate.md"
  step "sound_wave3d at 64 and 256: the time step on the device (steps launched ahead) against the host's (each step waits for the speed)"
  for ts in device host; do
    build-gpu/bench/gpen_bench_simulate specs/programs/sound_wave3d.json --size 64,256 --dtype float64,float32 --steps 200 --time-step $ts 2>/dev/null | grep -E "^variant|^\| sound"
  done
  step "the same for orszag_tang3d (isothermal MHD) and heat_walls3d (diffusion, walls) at 256"
  for prog in orszag_tang3d heat_walls3d; do
    build-gpu/bench/gpen_bench_simulate specs/programs/$prog.json --size 256 --dtype float64,float32 --steps 30 2>>"$out/bench_simulate_parts.txt" | tail -2
  done
  cat "$out/bench_simulate_parts.txt"
  step "gpen simulate sound_wave3d 256^3, 100 steps, no output (the runner's own figure)"
  $gpen simulate specs/programs/sound_wave3d.json --size 256 --steps 100 --no-output 2>&1 | grep -E "stopped"
  exit 0
fi

if [ "${1:-tests}" = python ]; then
  grep -E "Python module|pybind11|Found Python" "$out/configure.log"
  [ -f build-gpu/python/gpen/__init__.py ] || { echo "the Python module was not built"; exit 1; }
  export PYTHONPATH=$PWD/build-gpu/python GPEN_SOURCE_DIR=$PWD GPEN_CLI=$PWD/$gpen
  step "the Python module's CPU and GPU tests (CuPy and PyTorch)"
  python3 tests/python/run_pytest.py cpu >"$out/python_cpu.log" 2>&1; echo "python cpu tests rc=$?"; tail -3 "$out/python_cpu.log"
  timeout 400 python3 -X faulthandler -u tests/python/run_pytest.py gpu ${PY_TEST_ARGS:-} >"$out/python_gpu.log" 2>&1; echo "python gpu tests rc=$?"
  grep -E "passed|failed|^FAILED|^ERROR|Error|Fatal|File " "$out/python_gpu.log" | head -30
  step "compute-sanitizer memcheck of Python launches (CuPy and PyTorch, views and streams)"
  r=$(timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider tests/python/test_gpu.py \
      -k "laplacian_against or pitched or dlpack or stream or reduction" 2>&1)
  echo "memcheck rc=$? $(echo "$r" | grep -E 'ERROR SUMMARY|passed|failed' | tr '\n' ' ')"
  step "the Python overhead of one launch, beside CuPy RawKernel"
  python3 bench/python_overhead.py --n 10000 2>"$out/python_overhead.err" | tee "$out/python_overhead.md"
  step "examples/diffusion_cupy.py"
  (cd "$out" && timeout 120 python3 "$OLDPWD/examples/diffusion_cupy.py" --n 512 --steps 2000 --out diffusion.png 2>&1 | tail -5)
  exit 0
fi

if [ "${1:-tests}" = handwritten ]; then
  [ -f build-gpu/python/gpen/__init__.py ] || { echo "the Python module was not built"; exit 1; }
  export PYTHONPATH=$PWD/build-gpu/python
  step "pairwise GPU tests (fast math of every shipped spec included)"
  build-gpu/tests/gpen_gpu_tests -sf='*pairwise*' >"$out/gpu_pairwise_tests.log" 2>&1; echo "gpu pairwise tests rc=$?"
  grep -E "test cases|assertions|ERROR|FAILED" "$out/gpu_pairwise_tests.log" | head -20
  step "memcheck of fast float64 and float32 launches"
  for f in specs/pairwise/yukawa_potential.json specs/pairwise/gaussian_sum.json; do
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['math']='fast'; json.dump(d, open('/tmp/fast_'+d['name']+'.json','w'))" "$f"
  done
  sanitize memcheck "yukawa fast f64" /tmp/fast_yukawa_potential.json --size 1031 --verify
  sanitize memcheck "gaussian fast f32" /tmp/fast_gaussian_sum.json --size 1031x517 --verify
  step "instructions a math function executes, by pipe (ncu)"
  bash bench/math_costs.sh sm_90 | tee "$out/math_costs.md"
  step "instructions a pair executes in gpen's kernels, by pipe (ncu), beside the model"
  python3 bench/pairwise_pipes.py $gpen | tee "$out/pairwise_pipes.md"
  step "every shipped pairwise spec beside a hand-written tile kernel"
  python3 bench/pairwise_handwritten.py ${HW_ARGS:-} 2>&1 | tee "$out/pairwise_handwritten.md"
  if [ "${HW_TUNE_S:-22}" != 0 ]; then
    step "each spec (and the fast ones) tuned for ${HW_TUNE_S:-22} s, then beside the hand-written kernels again"
    for n in yukawa_potential coulomb_potential gaussian_sum; do
      python3 -c "import json, sys; d = json.load(open(sys.argv[1])); d['math'] = 'fast'; open(sys.argv[2], 'w').write(json.dumps(d))" \
        specs/pairwise/$n.json /tmp/${n}_fast.json  # as pairwise_handwritten.py writes them: the same hash
    done
    for s in softened_potential:262144 softened_acceleration:262144 yukawa_potential:65536 coulomb_potential:65536 gaussian_sum:262144x262144 \
             grouped_potential:262144 radiation_grid:40 multipole_potential:262144x4096 /tmp/yukawa_potential_fast:65536 \
             /tmp/coulomb_potential_fast:65536 /tmp/gaussian_sum_fast:262144x262144; do
      f=${s%%:*}; case $f in /*) ;; *) f=specs/pairwise/$f ;; esac
      echo "## $f.json"; timeout 60 $gpen tune "$f.json" --size "${s##*:}" --time "${HW_TUNE_S:-22}" 2>&1 | grep -E "^ *1 |^dflt|best of|search:"
    done | tee "$out/pairwise_tune.txt" | grep -E "^##|^ *1 |^dflt"
    python3 bench/pairwise_handwritten.py --tuned ${HW_ARGS:-} 2>&1 | tee "$out/pairwise_handwritten_tuned.md"
  fi
  exit 0
fi

if [ "${1:-tests}" = defaults ]; then
  # GPEN_OLD_TREE: the source of an earlier gpen (git archive), built here
  # and timed beside this one, spec by spec.
  old=()
  if [ -n "${GPEN_OLD_TREE:-}" ]; then
    step "build $GPEN_OLD_TREE"
    { cmake -S "$GPEN_OLD_TREE" -B /tmp/build-old -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/build-old --target gpen; } >"$out/build_old.log" 2>&1 \
      || { tail -30 "$out/build_old.log"; exit 1; }
    old=(before=/tmp/build-old/cli/gpen)
  fi
  step "every shipped spec's default variant (gpen run --no-tuned --repeat 20), a copy measured in each process"
  python3 bench/defaults.py specs "${old[@]}" after=$gpen >"$out/defaults.md" 2>"$out/defaults.log"; echo "defaults rc=$?"
  tail -3 "$out/defaults.log"
  cat "$out/defaults.md"
  exit 0
fi

if [ "${1:-tests}" = json ]; then
  step "--json on the GPU: run (grid and pairwise), bench, tune; each document read back and checked (docs/json.md)"
  # json_check FILE EXPR: FILE holds one JSON document d for which EXPR holds.
  json_check() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert $2, d; print('ok', sys.argv[1], d['schema'])" "$1" 2>&1 | tail -3; }
  $gpen run specs/stencil/laplacian3d_o8.json --size 67x45x33 --verify --json >"$out/run.json"; echo "run rc=$?"
  json_check "$out/run.json" 'd["schema"] == "gpen.run/1" and d["verify"]["pass"] and d["copy_gbs"] > 0 and 0 < d["pct_copy"] and d["tunables"]["strategy"] == "march" and d["cache"]["source"] in ("compiled", "disk")'
  $gpen run specs/pairwise/softened_potential.json --size 4099 --verify --json >"$out/run_pairwise.json"; echo "run pairwise rc=$?"
  json_check "$out/run_pairwise.json" 'd["schema"] == "gpen.run/1" and d["kind"] == "pairwise" and d["pairs_per_s"] > 0 and d["rsqrt_bound_per_s"] > 0 and d["verify"]["worst_of_bound"] <= 1 and d["unit_bound_per_s"] > 0 and d["bound_unit"] == "mufu" and d["pair_mufu"] == 1 and 0 < d["pct_unit"] and abs(d["pct_rsqrt"] - d["pct_unit"]) < 1e-9'
  $gpen bench specs/stencil/laplacian3d_o8.json specs/scan/cumsum_x.json --size 128 --strategies direct,march --verify --json >"$out/bench.json"; echo "bench rc=$?"
  json_check "$out/bench.json" 'd["schema"] == "gpen.bench/1" and len(d["runs"]) == 2 and all(r["verify"]["pass"] for r in d["runs"]) and len(d["skipped"]) == 2 and d["skipped"][0]["spec"] == "cumsum_x"'
  $gpen tune specs/stencil/laplacian3d_o2.json --size 128 --time 20 --json --no-save >"$out/tune.json" 2>"$out/tune_stderr.txt"; echo "tune rc=$? (stderr: $(wc -l < "$out/tune_stderr.txt") lines)"
  json_check "$out/tune.json" 'd["schema"] == "gpen.tune/1" and d["stop"] == "time" and d["best"]["ms"] > 0 and len(d["evaluations"]) > 0 and d["total_s"] < 25'
  $gpen tune specs/pairwise/softened_potential.json --size 65536 --time 20 --json --no-save >"$out/tune_pairwise.json" 2>"$out/tune_pairwise_stderr.txt"; echo "tune pairwise rc=$?"
  json_check "$out/tune_pairwise.json" 'd["schema"] == "gpen.tune/1" and d["kind"] == "pairwise" and d["best"]["pairs_per_s"] > 0 and d["rsqrt_bound_per_s"] > 0 and d["unit_bound_per_s"] > 0 and d["bound_unit"] == "mufu" and d["total_s"] < 25'
  grep -E "search:|best of" "$out/tune_pairwise_stderr.txt"
  $gpen run specs/stencil/laplacian3d_o8.json --size 4000 --json >"$out/run_error.json"; echo "run --size 4000 rc=$?"
  json_check "$out/run_error.json" 'd["schema"] == "gpen.error/1" and d["command"] == "run" and d["exit_code"] == 1'
  cat "$out/run_error.json"
  exit 0
fi

if [ "${1:-tests}" = scan ]; then
  if [ "${SKIP_SCAN_TESTS:-0}" != 1 ]; then
    step "scan GPU tests"
    build-gpu/tests/gpen_gpu_tests -sf='*scan*' >"$out/gpu_scan_tests.log" 2>&1; echo "gpu scan tests rc=$?"
    grep -E "test cases|assertions|ERROR|FAILED|CHECK\(|with expansion|PASS|FAIL" "$out/gpu_scan_tests.log" | head -30
  fi

  step "scan benchmarks: 512^3 fp64 along x, y, z; 2^28 fp32 (copy measured in the same run)"
  for v in 1 2 4 8 16; do
    $gpen bench specs/scan/cumsum_x.json --size 512 --blocks 128x2,64x4,256x1 --set values_per_thread=$v --set vector_x=1 --repeat 20 2>&1
    # Columns: groups stacked along the axis (block_y) against one group (x1) with 8- and 16-byte accesses.
    $gpen bench specs/scan/cumsum_y.json specs/scan/cumsum_z.json --size 512 --blocks 32x32,32x16,64x16,64x1,128x1,256x1 --set values_per_thread=$v --repeat 20 2>&1
    $gpen bench specs/scan/cumsum_y.json specs/scan/cumsum_z.json --size 512 --blocks 128x1,256x1 --set values_per_thread=$v --set vector_x=2 --repeat 20 2>&1
    [ $v -ge 4 ] && $gpen bench specs/scan/cumsum_x.json --size 512 --blocks 128x2,64x4 --set values_per_thread=$v --repeat 20 2>&1
    [ $v = 4 ] && $gpen bench specs/scan/cumsum_x.json --size 512 --blocks 128x2,256x1 --set values_per_thread=4 --set striped=1 --repeat 20 2>&1
    [ $v -ge 8 ] && $gpen bench specs/scan/cumsum_1d.json --size 268435456 --blocks 128,256,512 --set values_per_thread=$v --repeat 20 2>&1
  done | grep -v "^spec" | sort -u >"$out/bench_scan.txt"
  # One long row: the float32 default (256 x 32 striped, prefetch 256, delay 4000)
  # against each of its choices changed alone.
  for set in "values_per_thread=32" "values_per_thread=32 striped=0" "values_per_thread=32 prefetch_tiles=0" "values_per_thread=32 prefetch_tiles=128" \
             "values_per_thread=32 lookback_delay=0" "values_per_thread=32 lookback_delay=2000" "values_per_thread=32 lookback_delay=8000"; do
    $gpen bench specs/scan/cumsum_1d.json --size 268435456 --blocks 256 $(printf -- "--set %s " $set) --repeat 20 2>&1
  done | grep -v "^spec" | sort -u >>"$out/bench_scan.txt"
  # float64: the default (16 values, delay 2000) against delays 0 and 4000.
  for d in 2000 0 4000; do
    $gpen bench specs/scan/exclusive_sum.json --size 268435456 --blocks 256 --set lookback_delay=$d --repeat 20 2>&1
  done | grep -v "^spec" | sort -u >>"$out/bench_scan.txt"
  grep -h "device-to-device" "$out/bench_scan.txt" | head -1
  echo "-- best variant of each spec (by % of copy)"
  awk '$1 ~ /^cumsum/{for(i=1;i<=NF;i++) if($i ~ /%$/) p=$i; print p, $0}' "$out/bench_scan.txt" | sort -k2,2 -k1,1nr | awk '$2!=q{print; q=$2}'

  step "gpen run --verify of the shipped scans at their benchmark sizes"
  for a in x y z; do $gpen run specs/scan/cumsum_$a.json --size 512 --verify 2>&1 | tail -2; done
  echo "-- rows of 520 values along y, a 64-step y and a 16-step z: the default, then one group of 128 x 16 values"
  for run in "cumsum_y.json --size 520x512x512" "cumsum_y.json --size 4096x64x512" "cumsum_z.json --size 4096x4096x16"; do
    set -- $run
    $gpen run specs/scan/$1 "${@:2}" --verify 2>&1 | tail -2
    $gpen run specs/scan/$1 "${@:2}" --verify --set block_x=128 --set block_y=1 2>&1 | tail -2
  done
  $gpen run specs/scan/cumsum_1d.json --size 268435456 --verify 2>&1 | tail -2
  echo "-- z across planes 1.875 MiB apart (512x480x512) and 2 MiB apart (512^3): chained layers (cumsum_z.json's default) against the walking kernel, tiles in order (stripes=1) or spread over 16 stripes"
  for s in 512x480x512 512; do
    for set in "chained=1" "chained=1 stripes=1" "chained=0" "chained=0 stripes=1"; do
      $gpen bench specs/scan/cumsum_z.json --size $s $(printf -- "--set %s " $set) --repeat 20 2>&1 | awk -v s=$s -v set="$set" '/cumsum/{for (i = 1; i <= NF; i++) if ($i ~ /%$/) print s, set, $(i-2) " ms", $(i-1) " GB/s", $i}'
    done
  done
  $gpen run specs/scan/cumsum_z.json --size 512x480x512 --verify 2>&1 | tail -2

  step "compute-sanitizer on scans: both layouts, look-back, odd sizes"
  for tool in memcheck racecheck; do
    for run in "cumsum_x.json --size 1001x7x3" "cumsum_z.json --size 67x5x33" "cumsum_y.json --size 37x300x3" "cumsum_z.json --size 37x3x1000" "cumsum_z.json --size 301x200x37 --set chained=0 --set stripes=4" "cumsum_z.json --size 67x45x33 --set block_x=64 --set block_y=1 --set values_per_thread=1" "cumsum_y.json --size 1001x33x7 --set chained=1" "cumsum_1d.json --size 300001" "cumsum_1d.json --size 300001 --set striped=0" "cumsum_x.json --size 1001x7x3 --set striped=1" "exclusive_sum.json --size 100003" "running_max.json --size 67x45"; do
      set -- $run
      sanitize $tool "$run" specs/scan/$1 "${@:2}" --repeat 2 --verify --no-tuned
    done
  done > "$out/sanitizer_scan.txt"
  sanitizer_report "$out/sanitizer_scan.txt"
  exit 0
fi

if [ "${1:-tests}" = pairwise ]; then
  step "pairwise GPU tests"
  build-gpu/tests/gpen_gpu_tests -sf='*pairwise*' >"$out/gpu_pairwise_tests.log" 2>&1; echo "gpu pairwise tests rc=$?"
  grep -E "test cases|assertions|ERROR|FAILED|PASS|FAIL" "$out/gpu_pairwise_tests.log" | head -30

  step "pairwise benchmarks: softened potential fp32 N = 2^20; radiation on a 64^3 grid, tile and block on block"
  {
    for t in 1 2 4 8; do for u in 8; do
      $gpen bench specs/pairwise/softened_potential.json --size 1048576 --blocks 128,256,512 --set targets_per_thread=$t --set unroll=$u --repeat 5 2>&1
    done; done
    for t in 1 2 4; do
      $gpen bench specs/pairwise/radiation_grid.json --size 64 --strategies tile --blocks 128,256 --set targets_per_thread=$t --repeat 3 2>&1
      for c in 8 16; do
        $gpen bench specs/pairwise/radiation_grid.json --size 64 --strategies blocks --blocks 64,128,256 --set targets_per_thread=$t --set cell_block=$c --repeat 3 2>&1
      done
    done
  } | grep -v "^spec" | grep -v skipped | sort -u >"$out/bench_pairwise.txt"
  grep -h "device-to-device" "$out/bench_pairwise.txt" | head -2
  echo "-- fastest variants of each (by median time)"
  for pat in softened "radiation.*strategy=tile" "radiation.*strategy=blocks"; do
    grep "$pat" "$out/bench_pairwise.txt" | awk '{print $(NF-7), $0}' | sort -g | head -3 | cut -d' ' -f2-
  done

  step "pairwise tuning: GPU test, then the softened potential at N = 2^20 (exhaustive over block_x x targets_per_thread, local over the whole space)"
  build-gpu/tests/gpen_gpu_tests -tc='tuning pairwise*' >"$out/gpu_pairwise_tune_tests.log" 2>&1; echo "gpu pairwise tuning test rc=$?"
  grep -E "test cases|assertions|ERROR" "$out/gpu_pairwise_tune_tests.log" | head -10
  $gpen tune specs/pairwise/softened_potential.json --size 1048576 --set unroll=8 --repeat 3 --strategy exhaustive \
    --json --plot "$out/tune_pairwise_exhaustive.svg" 2>&1 >"$out/tune_pairwise_exhaustive.json" | grep -v "^  \["
  $gpen tune specs/pairwise/softened_potential.json --size 1048576 --repeat 3 --strategy local --budget 20 --no-save \
    --json --plot "$out/tune_pairwise_local.svg" 2>&1 >"$out/tune_pairwise_local.json" | grep -v "^  \["
  echo "-- gpen run picks the tuned variant"
  $gpen run specs/pairwise/softened_potential.json --size 1048576 --verify --repeat 5 2>&1 | tail -4

  step "gpen run --verify of the shipped pairwise specs"
  $gpen run specs/pairwise/softened_potential.json --size 1048576 --verify --repeat 5 2>&1 | tail -3
  $gpen run specs/pairwise/softened_acceleration.json --size 1048576 --verify --repeat 5 2>&1 | tail -3
  $gpen run specs/pairwise/coulomb_potential.json --size 262144 --verify --repeat 5 2>&1 | tail -3
  $gpen run specs/pairwise/multipole_potential.json --size 1048576x4096 --verify --repeat 5 2>&1 | tail -3
  $gpen run specs/pairwise/grouped_potential.json --size 1048576 --verify --repeat 5 2>&1 | tail -3
  $gpen run specs/pairwise/radiation_grid.json --size 64 --verify --repeat 3 2>&1 | tail -3
  $gpen run specs/pairwise/radiation_grid.json --size 64 --set strategy=blocks --verify --repeat 3 2>&1 | tail -3

  step "compute-sanitizer on pairwise kernels: ragged tiles, self skip, groups, block on block"
  for tool in memcheck racecheck; do
    for run in "softened_potential.json --size 1001" "coulomb_potential.json --size 999" "grouped_potential.json --size 1234" "multipole_potential.json --size 777x33" "radiation_grid.json --size 9x7x5" "radiation_grid.json --size 9x7x5 --set strategy=blocks --set cell_block=4"; do
      set -- $run
      sanitize $tool "$run" specs/pairwise/$1 "${@:2}" --repeat 1 --verify
    done
  done > "$out/sanitizer_pairwise.txt"
  sanitizer_report "$out/sanitizer_pairwise.txt"
  exit 0
fi

if [ "${1:-tests}" = reduce ]; then
  step "reduction GPU tests"
  build-gpu/tests/gpen_gpu_tests -sf='*reduce*' >"$out/gpu_reduce_tests.log" 2>&1; echo "gpu reduce tests rc=$?"
  grep -E "test cases|assertions|ERROR|FAILED|with expansion|FAIL" "$out/gpu_reduce_tests.log" | head -30

  step "compute-sanitizer memcheck and racecheck: chunks, columns, rows, several results, a 2-D custom operation"
  for tool in memcheck racecheck; do
    sanitize $tool "sum3d default 37x21x19" specs/reduce/sum3d.json --size 37x21x19 --verify --repeat 1
    sanitize $tool "divergence_norm 32x1, 4 points a thread, 33x19x11" specs/reduce/divergence_norm.json --size 33x19x11 --verify --repeat 1 --set block_x=32 --set block_y=1 --set points_per_thread=4
    sanitize $tool "mass_energy 256x2, batch 8, 37x21x19" specs/reduce/mass_energy.json --size 37x21x19 --verify --repeat 1 --set block_x=256 --set batch=8
    sanitize $tool "column_sum 40x3x1000 (chunks of columns)" specs/reduce/column_sum.json --size 40x3x1000 --verify --repeat 1
    sanitize $tool "row_extrema 37x21x19" specs/reduce/row_extrema.json --size 37x21x19 --verify --repeat 1
    sanitize $tool "logsumexp_y 37x1000" specs/reduce/logsumexp_y.json --size 37x1000 --verify --repeat 1
  done >"$out/sanitize_reduce.txt"
  sanitizer_report "$out/sanitize_reduce.txt"

  step "gpen run of every shipped reduction at 512^3 (copy measured in the same run), verified"
  for spec in sum3d cfl_speed mass_energy column_sum row_extrema divergence_norm; do
    $gpen run specs/reduce/$spec.json --size 512 --repeat 20 --no-tuned --verify 2>&1 | grep -E "copy|T_eff|verify|time|ms" | head -6
  done
  $gpen run specs/reduce/logsumexp_y.json --size 16384x8192 --repeat 20 --no-tuned --verify 2>&1 | grep -E "copy|T_eff|verify|time|ms" | head -6
  step "variants at 512^3: the sum and the maximum (whole interior), columns along z, rows along x"
  {
    for spec in sum3d cfl_speed; do
      for ppt in 32 64 128; do
        $gpen bench specs/reduce/$spec.json --size 512 --blocks 128x2,128x4,256x2,64x8 --set points_per_thread=$ppt --repeat 20 2>&1
      done
    done
    for b in 4 8; do
      $gpen bench specs/reduce/sum3d.json --size 512 --dtype float32 --blocks 128x4,256x2,128x8 --set batch=$b --repeat 20 2>&1
      $gpen bench specs/reduce/column_sum.json --size 512 --blocks 32x8,64x4,128x2,256x1,128x1 --set batch=$b --repeat 20 2>&1
      $gpen bench specs/reduce/row_extrema.json --size 512 --blocks 32x1,64x1,128x1,256x1 --set batch=$b --repeat 20 2>&1
    done
  } | grep -v "^spec" | sort -u >"$out/bench_reduce.txt"
  grep -h "device-to-device" "$out/bench_reduce.txt" | head -1
  echo "-- best of each spec (by % of copy)"
  awk '$1 ~ /^(sum3d|cfl_speed|column_sum|row_extrema)/{for(i=1;i<=NF;i++) if($i ~ /%$/) p=$i; print p, $0}' "$out/bench_reduce.txt" | sort -k2,3 -k1,1nr | awk '$2" "$3!=q{print; q=$2" "$3}'
  step "peers: CuPy (CUB) and PyTorch at 512^3, copy measured in the same process"
  python3 bench/reduce_peers.py 2>&1 | tail -20
  exit 0
fi

if [ "${1:-tests}" = sbp ]; then
  step "SBP GPU tests"
  build-gpu/tests/gpen_gpu_tests -sf='*sbp*' >"$out/gpu_sbp_tests.log" 2>&1; echo "gpu sbp tests rc=$?"
  grep -E "test cases|assertions|ERROR|FAILED" "$out/gpu_sbp_tests.log" | head -20

  step "SBP benchmarks: D2 order 4 along each axis of 8192^2 and 512^3 fp64, every tile shape (copy measured in the same run)"
  {
    for f in bench/specs/sbp_d2_o4_2d_x.json bench/specs/sbp_d2_o4_2d_y.json; do
      $gpen bench $f --size 8192x8192 --strategies direct --blocks 32x2,32x4,32x8,64x2,64x4,128x1,128x2,256x1 --repeat 20 2>&1
    done
    for f in bench/specs/sbp_d2_o4_3d_x.json bench/specs/sbp_d2_o4_3d_y.json bench/specs/sbp_d2_o4_3d_z.json; do
      $gpen bench $f --size 512 --strategies direct --blocks 32x2,32x4,32x8,64x2,64x4,128x1,128x2,256x1 --repeat 20 2>&1
    done
    for f in bench/specs/sbp_d2_o4_2d_x.json bench/specs/sbp_d2_o4_3d_x.json; do
      [ $f = bench/specs/sbp_d2_o4_2d_x.json ] && size=8192x8192 || size=512
      for al in 64 128 256; do for ac in 1 2 4 8; do
        $gpen bench $f --size $size --strategies pencil --blocks 32x1,32x2,64x1,64x2,32x4 --set pencil_along=$al --set pencil_across=$ac --repeat 20 2>&1
      done; done
    done
    for f in bench/specs/sbp_d2_o4_2d_y.json bench/specs/sbp_d2_o4_3d_y.json bench/specs/sbp_d2_o4_3d_z.json; do
      [ $f = bench/specs/sbp_d2_o4_2d_y.json ] && size=8192x8192 || size=512
      for al in 8 16 32 64; do for ac in 32 64; do
        $gpen bench $f --size $size --strategies pencil --blocks 32x1,32x2,32x4,32x8,64x1,64x2 --set pencil_along=$al --set pencil_across=$ac --repeat 20 2>&1
      done; done
    done
  } | grep -v "^spec" | grep -v skipped | sort -u >"$out/bench_sbp.txt"
  grep -h "device-to-device" "$out/bench_sbp.txt" | sort -k6,6n | sed -n '1p;$p'
  echo "-- best variant of each benchmark (by % of copy), and the best of each strategy"
  awk '$1 ~ /^sbp/{for(i=1;i<=NF;i++) if($i ~ /%$/) p=$i; print p, $0}' "$out/bench_sbp.txt" | sort -k2,2 -k1,1nr | awk '$2!=q{print; q=$2}'
  awk '$1 ~ /^sbp/{for(i=1;i<=NF;i++) if($i ~ /%$/) p=$i; print p, $0}' "$out/bench_sbp.txt" | sort -k2,2 -k4,4 -k1,1nr | awk '$2" "$4!=q{print; q=$2" "$4}'

  step "gpen run --verify of the benchmark specs (defaults) and the Laplacians"
  for a in x y; do $gpen run bench/specs/sbp_d2_o4_2d_$a.json --size 8192x8192 --verify 2>&1 | tail -2; done
  for a in x y z; do $gpen run bench/specs/sbp_d2_o4_3d_$a.json --size 512 --verify 2>&1 | tail -2; done
  $gpen run specs/sbp/laplacian3d_o4.json --size 512 --verify 2>&1 | tail -2

  step "compute-sanitizer on SBP: both strategies, every axis, odd sizes, the shortest lines"
  for tool in memcheck racecheck; do
    for run in "bench/specs/sbp_d2_o4_3d_x.json 37x21x19" "bench/specs/sbp_d2_o4_3d_y.json 37x21x19" "bench/specs/sbp_d2_o4_3d_z.json 37x21x10" \
               "specs/sbp/d1_o6.json 1001" "specs/sbp/laplacian3d_o4.json 10x11x12"; do
      set -- $run
      for st in direct pencil; do
        [ $1 = specs/sbp/laplacian3d_o4.json ] && [ $st = pencil ] && continue
        sanitize $tool "$run $st" $1 --size $2 --set strategy=$st --repeat 2 --verify --no-tuned
      done
    done
  done > "$out/sanitizer_sbp.txt"
  sanitizer_report "$out/sanitizer_sbp.txt"
  exit 0
fi

# The CPU ctest (without its gpu_ entry: the GPU suite runs by itself, in
# files chosen by GPU_TEST_FILES).
run_suite() {
  if [ "${SKIP_CTEST:-0}" != 1 ]; then
    ctest --test-dir build-gpu --output-on-failure -j4 -E "^gpu_" >"$out/ctest.log" 2>&1
    grep -E "tests passed|Failed|Skipped|\*\*\*" "$out/ctest.log"
  fi
  build-gpu/tests/gpen_gpu_tests -sf="${GPU_TEST_FILES:-*}" >"$out/gpu_tests.log" 2>&1; echo "gpu tests (${GPU_TEST_FILES:-*}) rc=$?"
  grep -E "test cases|assertions|ERROR|FAILED" "$out/gpu_tests.log" | head -20
}

if [ "${1:-tests}" = suite ]; then
  step "suite"
  run_suite
  exit 0
fi

if [ "${1:-tests}" = tests ]; then
  step tests
  [ "${SKIP_GPU_SUITE:-0}" = 1 ] || run_suite

  step "gpen run --verify at 512^3 (issue 3's done-when), default variant and fp32"
  $gpen run specs/stencil/laplacian3d_o8.json --size 512x512x512 --verify --no-tuned 2>&1
  $gpen run specs/stencil/laplacian3d_o8.json --size 512x512x512 --verify --no-tuned --dtype float32 \
    --set vector_x=4 --set rows_y=2 --set unroll_z=1 --set ring_ahead=0 --set points_per_thread=8 2>&1

  step "cold compile, then warm load in a new process"
  rm -rf /tmp/gpen-cache-cold
  GPEN_CACHE_DIR=/tmp/gpen-cache-cold $gpen compile specs/stencil/laplacian3d_o8.json --json | grep -E '"source"|"ms"'
  GPEN_CACHE_DIR=/tmp/gpen-cache-cold $gpen run specs/stencil/laplacian3d_o8.json --size 64 --repeat 1 2>&1 | grep kernel

  step "compute-sanitizer: memcheck and racecheck, every strategy, the march's register, ring and clamped entries"
  # march: the spec's default (the ring for laplacian3d_o8), the register
  # queue, and the ring with one point a thread (continuity3d's four inputs).
  for tool in memcheck racecheck; do
    for s in direct "march" "march --set ring_ahead=0" "march --set ring_ahead=3 --set vector_x=1 --set rows_y=1 --set points_per_thread=8" tile rolling; do
      for spec in laplacian3d_o8 continuity3d; do
        for size in 37x21x19 64x44x20; do
          [ "${s%% *}" != march ] && [ $size = 64x44x20 ] && continue
          sanitize $tool "$spec $s $size" specs/stencil/$spec.json --size $size --set strategy=$s --repeat 1 --verify --no-tuned
        done
      done
    done
    sanitize $tool "laplacian2d_o4 ring 130x77" specs/stencil/laplacian2d_o4.json --size 130x77 --set ring_ahead=2 --set points_per_thread=16 --repeat 1 --verify --no-tuned
  done > "$out/sanitizer.txt"
  sanitizer_report "$out/sanitizer.txt"
  exit 0
fi

if [ "${1:-tests}" = bench ]; then
step "benchmarks: 512^3 Laplacians, fp64 and fp32, every strategy, a few shapes (one workload per spec)"
for dt in float64 float32; do
  $gpen bench specs/stencil/laplacian3d_o2.json specs/stencil/laplacian3d_o8.json --size 512 --dtype $dt \
    --strategies direct,tile,rolling --blocks 32x4,32x8,64x4 --set points_per_thread=16 --repeat 20 >"$out/bench_${dt}_smem.txt" 2>&1
  for vy in "1 1" "2 2" "4 1" "4 2"; do
    set -- $vy
    $gpen bench specs/stencil/laplacian3d_o2.json specs/stencil/laplacian3d_o8.json --size 512 --dtype $dt \
      --strategies march --blocks 32x4,32x8,64x2 --set points_per_thread=8 --set vector_x=$1 --set rows_y=$2 --set ring_ahead=0 --repeat 20 2>&1 | grep -v "^spec"
  done >"$out/bench_${dt}_march.txt"
done
# The march's ring of planes (ring_ahead): the 8th-order Laplacian's
# defaults and shapes around them; each shipped spec's default against the ring.
{
  for p in 32 128 256; do for d in 2 3; do for vy in "2 4" "2 2"; do set -- $vy
    $gpen bench specs/stencil/laplacian3d_o8.json --size 512 --strategies march --blocks 32x4,32x8,64x4 \
      --set points_per_thread=$p --set ring_ahead=$d --set vector_x=$1 --set rows_y=$2 --repeat 20 2>&1 | grep -v "^spec"
  done; done; done
  $gpen bench specs/stencil/laplacian3d_o8.json --size 512 --dtype float32 --strategies march --blocks 32x4,32x8 \
    --set points_per_thread=128 --set ring_ahead=2 --set vector_x=4 --set rows_y=2 --repeat 20 2>&1 | grep -v "^spec"
  for s in laplacian3d_o2 diffusion3d continuity3d; do
    $gpen bench specs/stencil/$s.json --size 512 --strategies march --blocks 32x4 --repeat 20 2>&1 | grep -v "^spec"
    $gpen bench specs/stencil/$s.json --size 512 --strategies march --blocks 32x4 --set ring_ahead=2 --set points_per_thread=128 --repeat 20 2>&1 | grep -v "^spec"
  done
  for r in 0 2; do
    $gpen bench specs/stencil/laplacian2d_o4.json --size 8192 --strategies march --blocks 128x1,256x1 --set ring_ahead=$r --set points_per_thread=128 --repeat 20 2>&1 | grep -v "^spec"
  done
} >"$out/bench_ring.txt"
grep -h "device-to-device copy" "$out"/bench_*.txt | head -2
# The best row of each spec and dtype, by the field that ends in %.
for f in "$out"/bench_*.txt; do
  echo "-- best of $(basename $f)"
  grep -E "^[a-z_0-9]+ +float" "$f" | awk '{for (i = 1; i <= NF; i++) if ($i ~ /%$/) p = $i + 0; print p, $0}' | sort -k2,3 -k1,1nr | awk '$2" "$3 != k {print; k = $2" "$3}'
done

exit 0
fi

# tune
step "tuning benchmark: laplacian3d_o8 fp64 512^3, exhaustive vs local with 25% of the evaluations"
$gpen tune bench/specs/laplacian3d_o8_tune.json --size 512 --strategy exhaustive --json --plot "$out/tune_exhaustive.svg" 2>&1 >"$out/tune_exhaustive.json" | grep -v "^  \["
$gpen tune bench/specs/laplacian3d_o8_tune.json --size 512 --strategy local --budget 68 --no-save --json --plot "$out/tune_local.svg" 2>&1 >"$out/tune_local.json" | grep -v "^  \["
step "run picks the tuned variant"
$gpen run bench/specs/laplacian3d_o8_tune.json --size 512 --verify 2>&1 | head -4
