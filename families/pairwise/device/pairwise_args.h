// The pairwise kernels' argument blocks: the one definition, included by the
// generated units (NVRTC) and by the host (families/pairwise/pairwise_kernel.cpp),
// so that both sides lay them out alike. Plain types only, no includes.
#pragma once

namespace gpen {

// What one argument block holds at most (a spec with more is refused when
// it is read).
constexpr int kPairMaxInputs = 32;
constexpr int kPairMaxOutputs = 16;
constexpr int kPairMaxParams = 16;

struct PairArgs {
  const void* in[kPairMaxInputs];  // the spec's inputs, in order
  void* out[kPairMaxOutputs];      // its outputs, in order
  long long n_targets, n_sources;
  long long grid[3];   // grids: cells along x, y, z (1 for axes the grid lacks)
  // grouped: group g's targets are [target_groups[g], target_groups[g+1]);
  // its source ranges are source_ranges[2r], [2r+1] for r in
  // [range_offsets[g], range_offsets[g+1]).
  const int* target_groups;
  const int* range_offsets;
  const int* source_ranges;
  long long groups;
  long long pencil[2];  // blocks: the source pencil's block coordinates along y, z
  void* partial;        // blocks: [output][source block of the pencil][cell]; tile in slices: [output][slice][target]
  double params[kPairMaxParams];
};

// The fold of partial results: dest = combine(dest?, partial[0..count-1]).
struct PairFoldArgs {
  const void* partial;   // [output][count][cells]
  void* running;         // [output * running_stride + cell], or null: into out
  void* out[kPairMaxOutputs];
  long long count, cells, running_stride;
  long long accumulate;  // 1: fold into what `running` holds
};

}  // namespace gpen
