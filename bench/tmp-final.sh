source .device/bootstrap.sh > /dev/null
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release > $OUT/configure.log 2>&1 && cmake --build build-gpu > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
export PYTHONPATH=$PWD/build-gpu/python GPEN_SOURCE_DIR=$PWD GPEN_CACHE_DIR=/tmp/gpen-cache GPEN_CLI=$PWD/build-gpu/cli/gpen
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 build-gpu/tests/gpen_gpu_tests -sf='*test_gpu_pairwise*' > $OUT/pair.log 2>&1; echo "pairwise GPU tests rc=$?"; grep -E "test cases|assertions|ERROR" $OUT/pair.log | head -8
timeout 200 python3 tests/python/run_pytest.py gpu > $OUT/pygpu.log 2>&1; echo "python gpu rc=$?"; tail -1 $OUT/pygpu.log; grep -E "^FAILED" $OUT/pygpu.log | head -5
timeout 150 python3 bench/pairwise_handwritten.py 2>&1 | tee $OUT/pairwise_handwritten.md
for s in gaussian_sum yukawa_potential; do r=$(compute-sanitizer --tool memcheck build-gpu/cli/gpen run specs/pairwise/$s.json --size 1031 --verify 2>&1); echo "memcheck $s: $(echo "$r" | grep -E 'ERROR SUMMARY|verify|PASS|FAIL' | tr '\n' ' ' | cut -c1-200)"; done
