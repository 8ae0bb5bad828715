#!/bin/bash
# gpen simulate under mpirun (issue 30), a process and a GPU a subdomain:
# the snapshots of every split equal byte for byte those of a run with the
# same kernels (the undecomposed run's, or one GPU's with the same split),
# with the stages whole before their exchanges and overlapping them
# (shipped programs: periodic, walled, mixed derivatives); more ranks than
# GPUs and a split that does not match mpirun's processes are refused by
# every rank; a rank failing mid-run ends every rank. Needs a machine with
# GPUS GPUs, Open MPI and NCCL; CTest never runs it (no GPUs there).
# Usage: tests/mpi/simulate_mpi.sh GPEN SPECS GPUS
set -u
gpen=$1 specs=$2 gpus=${3:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
run() { mpirun --oversubscribe --bind-to none -np "$@"; }

same_snapshots() {  # $1 $2: run folders; every .npy of every snapshot byte for byte
  local n=0
  for f in "$1"/snap_*/*.npy; do
    n=$((n + 1))
    cmp -s "$f" "$2/${f#$1/}" || { echo "FAIL: $2/${f#$1/} differs from the whole run's"; return 1; }
  done
  [ "$n" -gt 0 ] || { echo "FAIL: $1 holds no snapshot"; return 1; }
  echo "ok: $n snapshot files equal byte for byte"
}

case $gpus in
  2) splits="2x1x1 1x2x1 1x1x2" ;;
  4) splits="2x2x1 1x2x2 4x1x1" ;;
  *) splits="${gpus}x1x1" ;;
esac
root=$tmp
# Three ways, each run compared with one that has the same kernels: the
# periodic ghosts in the stores, each stage whole before its exchange
# (--no-overlap): the whole run's kernels; by fills, the stages overlapping
# their exchanges: the whole run with fills; in the stores, overlapping:
# kernels that store no images along split axes, those of the same split
# on one GPU (a thread a rank).
for way in stores-whole fills overlap-stores; do
  ghosts=${way%-*}; [ "$way" = overlap-stores ] && ghosts=stores
  split_args=(); [ "$way" = stores-whole ] && split_args=(--no-overlap)
  tmp=$root/$way; mkdir -p "$tmp"
  for prog in sound_wave3d heat_walls3d orszag_tang3d; do
    args=("$specs/programs/$prog.json" --size 28x24x20 --periodic-ghosts "$ghosts")
    "$gpen" simulate "${args[@]}" --steps 12 --out "$tmp/$prog-whole" >"$tmp/log" 2>&1 || { cat "$tmp/log"; echo "FAIL: $prog whole"; fail=1; continue; }
    for split in $splits; do
      np=$(( $(echo "$split" | tr x '*') ))
      # Every subdomain on one GPU, a thread each.
      "$gpen" simulate "${args[@]}" "${split_args[@]}" --steps 12 --ranks "$split" --out "$tmp/$prog-threads-$split" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail=1; }
      want=$tmp/$prog-whole
      if [ "$way" = overlap-stores ]; then
        want=$tmp/$prog-threads-$split
      else
        echo -n "[$way] $prog on one GPU, --ranks $split, a thread each: "
        same_snapshots "$want" "$tmp/$prog-threads-$split" || fail=1
      fi
      if run "$np" "$gpen" simulate "${args[@]}" "${split_args[@]}" --steps 12 --ranks "$split" --out "$tmp/$prog-$split" >"$tmp/log" 2>&1; then
        echo -n "[$way] $prog --ranks $split on $np GPUs: "
        same_snapshots "$want" "$tmp/$prog-$split" || fail=1
      else
        tail -20 "$tmp/log"; echo "FAIL: $prog --ranks $split"; fail=1
      fi
    done
    # A restart under mpirun from the whole run's snapshot: the next steps
    # of the run with the same kernels from there.
    split=${splits%% *}
    np=$(( $(echo "$split" | tr x '*') ))
    from=$tmp/$prog-whole/snap_000000012
    want_split=(); [ "$way" = overlap-stores ] && want_split=(--ranks "$split")
    "$gpen" simulate "${args[@]}" "${want_split[@]}" --steps 6 --restart "$from" --out "$tmp/$prog-want-on" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail=1; }
    run "$np" "$gpen" simulate "${args[@]}" "${split_args[@]}" --steps 6 --ranks "$split" --restart "$from" --out "$tmp/$prog-on-$split" >"$tmp/log" 2>&1 ||
      { tail -20 "$tmp/log"; fail=1; }
    echo -n "[$way] $prog restarted under mpirun --ranks $split: "
    same_snapshots "$tmp/$prog-want-on" "$tmp/$prog-on-$split" || fail=1
  done
done
tmp=$root

# The JSON of a run under mpirun: its processes, and whether its stages overlapped.
for flag in "" --no-overlap; do
  want=$([ -z "$flag" ] && echo True || echo False)
  np=$(( $(echo "${splits%% *}" | tr x '*') ))
  run "$np" "$gpen" simulate "$specs/programs/sound_wave3d.json" --size 28x24x20 --steps 2 --ranks "${splits%% *}" --no-output --json $flag >"$tmp/json" 2>"$tmp/log"
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['processes'] == $np and d['overlap'] == $want else 1)" "$tmp/json"; then
    echo "ok: --json under mpirun ${flag:-(overlap)}: processes $np, overlap $want"
  else
    cat "$tmp/json" "$tmp/log" | tail -20; echo "FAIL: --json under mpirun $flag"; fail=1
  fi
done

# A rank that fails in the middle of the run while the others wait for it
# in a collective (rank 0 cannot clear the last snapshot's folder: its old
# snapshot.json is a folder here): every rank ends (ncclCommAbort,
# MPI_Abort), none waits for ever, and rank 0 says why.
split=${splits%% *}
np=$(( $(echo "$split" | tr x '*') ))
mkdir -p "$tmp/failing/snap_000000012/snapshot.json/in_the_way"
timeout 120 mpirun --oversubscribe --bind-to none -np "$np" "$gpen" simulate "$specs/programs/sound_wave3d.json" --size 28x24x20 --steps 12 --ranks "$split" \
  --out "$tmp/failing" >"$tmp/log" 2>&1
rc=$?
if [ "$rc" = 0 ]; then echo "FAIL: a run whose rank 0 cannot write its snapshot succeeded"; fail=1
elif [ "$rc" = 124 ]; then tail -20 "$tmp/log"; echo "FAIL: a run whose rank 0 failed hung (killed after 120 s)"; fail=1
elif grep -q "snapshot.json" "$tmp/log"; then echo "ok: rank 0 failed mid-run, every rank ended (exit $rc)"
else tail -20 "$tmp/log"; echo "FAIL: rank 0's failure not reported"; fail=1; fi

expect_refusal() {  # $1: words every rank's run must end with
  local words=$1; shift
  if run "$@" >"$tmp/log" 2>&1; then echo "FAIL: ran: $*"; fail=1
  elif grep -q "$words" "$tmp/log"; then echo "ok: refused ($words)"
  else tail -20 "$tmp/log"; echo "FAIL: no '$words' from: $*"; fail=1; fi
}
more=$((gpus + 1))
expect_refusal "which has $gpus GPUs: one rank a GPU" "$more" "$gpen" simulate "$specs/programs/sound_wave3d.json" --size 28x24x20 --steps 2 --ranks "${more}x1x1" --no-output
expect_refusal "mpirun started 2 processes" 2 "$gpen" simulate "$specs/programs/sound_wave3d.json" --size 28x24x20 --steps 2 --ranks 4 --no-output
exit $fail
