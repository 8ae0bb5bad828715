#!/bin/bash
# Scaling of gpen simulate over GPUs (issue 30), under mpirun, the grid
# split along z (whole planes: contiguous slabs) and along x:
#   weak:   N^3 cells a GPU, the grid grown with the GPUs;
#   strong: one N^3 grid on 1 and on P GPUs (float32 lets 1024^3 fit one H100).
# The time a step (diagnostics every 10 steps included, no output) from
# each run's JSON, the efficiency t(1) / t(P) (weak) or t(1) / (P t(P))
# (strong), each with the stages' exchanges hidden behind their cores (the
# default) and without (--no-overlap): the time the overlap hides.
# Usage: bench/scaling.sh weak|strong GPEN SPECS P [N] [STEPS] [PROGRAM] [DTYPE]
set -u
mode=$1 gpen=$2 specs=$3 gpus=$4 n=${5:-512} steps=${6:-60} prog=${7:-sound_wave3d} dtype=${8:-float64}
case $mode in weak | strong) ;; *) echo "usage: $0 weak|strong GPEN SPECS P [N] [STEPS] [PROGRAM] [DTYPE]"; exit 2 ;; esac
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
ms() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["ms_per_step"])'; }
run=("$specs/programs/$prog.json" --dtype "$dtype" --steps "$steps" --no-output --json)
one=$("$gpen" simulate "${run[@]}" --size "${n}x${n}x${n}" 2>/dev/null | ms)
echo "$prog ${n}^3 $dtype on 1 GPU: $one ms a step"
for split in "1x1x$gpus" "${gpus}x1x1"; do
  size="${n}x${n}x${n}"
  [ "$mode" = weak ] && size="$((n * ${split%%x*}))x${n}x$((n * ${split##*x}))"
  declare -A t
  for way in overlap no-overlap; do
    flag=$([ "$way" = no-overlap ] && echo --no-overlap)
    t[$way]=$(mpirun --bind-to none -np "$gpus" "$gpen" simulate "${run[@]}" --size "$size" --ranks "$split" $flag 2>/dev/null | ms)
  done
  python3 -c "
o, w, one, p = ${t[overlap]}, ${t[no-overlap]}, $one, $gpus
ideal = one if '$mode' == 'weak' else one / p
print('$mode: $prog $size on {} GPUs (--ranks $split): {:.2f} ms a step, efficiency {:.1%}; without overlap {:.2f} ms, {:.1%}; hidden {:.2f} ms a step'.format(p, o, ideal / o, w, ideal / w, w - o))"
done
