set -u
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release > $OUT/cmake.log 2>&1; cmake --build build-gpu > $OUT/build.log 2>&1 || { echo BUILD FAILED; tail -30 $OUT/build.log; exit 1; }
echo "built at $(( $(date +%s) - t0 )) s"
G=$PWD/build-gpu/cli/gpen
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PYTHONPATH=build-gpu/python timeout 240 python3 bench/pairwise_handwritten.py --gpen $G --only yukawa_potential --repeat 20 --variant flag_chunk=1 --variant flag_chunk=4 --variant block_x=256,flag_chunk=1 > $OUT/hw_yukawa.md 2> $OUT/hw_yukawa.err
grep -E "^\|" $OUT/hw_yukawa.md | cut -d'|' -f4-9; tail -2 $OUT/hw_yukawa.err
echo "at $(( $(date +%s) - t0 )) s"
$G compile specs/pairwise/yukawa_potential.json | head -3
build-gpu/tests/gpen_gpu_tests -sf='*pairwise*,*math64*' > $OUT/gpu_pairwise.log 2>&1; echo "gpu tests rc=$?"; grep -E "test cases|assertions|ERROR" $OUT/gpu_pairwise.log | head
echo "at $(( $(date +%s) - t0 )) s"
for tool in memcheck racecheck; do timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $G run specs/pairwise/yukawa_potential.json --size 1001 --repeat 1 --verify --no-tuned > $OUT/san_$tool.txt 2>&1; echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|verify' $OUT/san_$tool.txt | tr '\n' ' ' | cut -c1-220)"; done
echo "total $(( $(date +%s) - t0 )) s"
