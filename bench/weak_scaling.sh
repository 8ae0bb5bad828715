#!/bin/bash
# Weak scaling of gpen simulate over GPUs (issue 30): the same cells a GPU
# (N^3, default 512^3) on 1 GPU and on P GPUs under mpirun, the grid split
# along z (whole planes: contiguous slabs) and along x; the time a step
# (diagnostics every 10 steps included, no output) from each run's JSON,
# and the efficiency t(1) / t(P), with each stage's exchange hidden behind
# its core (the default) and without (--no-overlap): the time the overlap hides. Usage: bench/weak_scaling.sh GPEN SPECS P [N] [STEPS] [PROGRAM]
set -u
gpen=$1 specs=$2 gpus=$3 n=${4:-512} steps=${5:-60} prog=${6:-sound_wave3d}
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
ms() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["ms_per_step"])'; }
one=$("$gpen" simulate "$specs/programs/$prog.json" --size "${n}x${n}x${n}" --steps "$steps" --no-output --json 2>/dev/null | ms)
echo "$prog ${n}^3 on 1 GPU: $one ms a step"
for split in "1x1x$gpus" "${gpus}x1x1"; do
  size="$((n * ${split%%x*}))x${n}x$((n * ${split##*x}))"
  # Each stage's exchange hidden behind its core (the default), and not.
  declare -A t
  for way in overlap no-overlap; do
    flag=$([ "$way" = no-overlap ] && echo --no-overlap)
    t[$way]=$(mpirun --bind-to none -np "$gpus" "$gpen" simulate "$specs/programs/$prog.json" --size "$size" --ranks "$split" --steps "$steps" --no-output --json $flag 2>/dev/null | ms)
  done
  python3 -c "o, w = ${t[overlap]}, ${t[no-overlap]}; print('$prog $size on $gpus GPUs (--ranks $split): {:.2f} ms a step, efficiency {:.1%}; without overlap {:.2f} ms, {:.1%}; hidden {:.2f} ms a step'.format(o, $one / o, w, $one / w, w - o))"
done
