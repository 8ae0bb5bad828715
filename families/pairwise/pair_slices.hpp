// How many slices the host cuts a pairwise launch's sources into where the
// variant leaves it open (source_slices 0): enough blocks for eight times
// what the GPU holds at once (the driver's occupancy of the kernel), so
// that blocks of uneven groups, and the last blocks of an uneven split,
// leave no SM idle for long; but each slice two tiles or more of an
// average block's sources, and 32 slices at most. A slice costs a block's
// start and stores and a fold of its partial results. (A model of whole
// waves of uniform blocks chose fewer slices and lost up to 14% at the
// issue's sizes: bench/RESULTS.md, thirtieth session.)
#pragma once

namespace gpen {

struct SliceLoad {
  long long blocks = 1;     // blocks of targets (grouped: the groups' chunks that hold targets)
  double mean_tiles = 1;    // tiles of sources a block applies, on average
  long long resident = 1;   // blocks the GPU holds at once (SMs x blocks an SM)
};

// The most slices the host takes for `blocks` blocks, whatever the sources
// (PairwiseKernel::prepare reserves this many partial results).
long long most_host_slices(long long blocks, long long resident);

long long host_slices(const SliceLoad& load);

}  // namespace gpen
