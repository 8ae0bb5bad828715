set -e
cmake --build build-gpu 2>&1 | tail -1
g=build-gpu/cli/gpen
S=specs/stencil
echo "== momentum f64 512, ring_ahead 1 (default); 32x16 now skipped"
$g bench $S/momentum_visc3d.json --size 512 --strategies stage --blocks 32x5 32x16 32x8 32x5 --repeat 20 --json > /tmp/b.json 2>/tmp/b.txt; echo "rc $?"; cat /tmp/b.txt | cut -c1-60,200-
python3 -c "import json; d=json.load(open('/tmp/b.json')); print(len(d['runs']), 'runs;', [s['reason'][:80] for s in d['skipped']])"
echo "== momentum f64 512, ring_ahead 0"
$g bench $S/momentum_visc3d.json --size 512 --strategies stage --blocks 32x8 32x4 --set ring_ahead=0 --repeat 20 2>&1 | cut -c1-60,200-
