// A pairwise spec's kernel, loaded, and what a launch of it needs beyond
// fields: the group lists of a grouped spec, and for block-on-block the
// partial-result buffers and streams it keeps between launches.
#pragma once

#include <mutex>
#include <vector>

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/pairwise/pair_slices.hpp"
#include "gpen/families/pairwise/pairwise_plan.hpp"

namespace gpen {

struct PairArgs;  // the kernel's argument blocks (families/pairwise/device/pairwise_args.h)
struct PairFoldArgs;

// The interaction lists of a grouped spec: group g's targets are
// [target_groups[g], target_groups[g+1]); its sources are the ranges
// [source_ranges[2r], source_ranges[2r+1]) for r in
// [range_offsets[g], range_offsets[g+1]).
struct PairGroupLists {
  std::vector<int> target_groups;  // groups + 1, from 0 to N, nondecreasing
  std::vector<int> range_offsets;  // groups + 1, from 0, nondecreasing
  std::vector<int> source_ranges;  // 2 per range: begin <= end <= M
  long long groups() const { return static_cast<long long>(target_groups.size()) - 1; }
};

// Throws BindingError naming the first entry that breaks the rules above.
void check_group_lists(const PairGroupLists& g, long long n_targets, long long n_sources);

// Group lists checked and uploaded.
class PairGroups {
 public:
  PairGroups(PairGroupLists lists, long long n_targets, long long n_sources);
  const PairGroupLists& lists() const { return lists_; }
  CUdeviceptr target_groups() const { return tg_.get(); }
  CUdeviceptr range_offsets() const { return ro_.get(); }
  CUdeviceptr source_ranges() const { return sr_.get(); }
  // The most targets a group has; the sources of all groups' ranges.
  long long largest_group() const { return largest_group_; }
  long long range_sources() const { return range_sources_; }
  // Blocks of `per_block` targets the groups make, each group on its own.
  long long target_blocks(long long per_block) const;

 private:
  PairGroupLists lists_;
  DeviceMemory tg_, ro_, sr_;
  long long largest_group_ = 0, range_sources_ = 0;
  mutable std::mutex last_mutex_;  // launches from several threads
  mutable long long blocks_of_ = 0, target_blocks_ = 0;  // the last target_blocks
};

// Targets, sources and (grids) the grid of a launch.
struct PairSizes {
  long long targets = 0, sources = 0;
  std::array<long long, 3> grid{1, 1, 1};
};

// check_bindings, then the sizes; grids need fewer than 2^31 cells.
PairSizes check_pairwise_bindings(const Spec& spec, const FieldBindings& fields, const ParamValues& params);

// Pairs a launch evaluates: N * M, less N when the pair i == j is left
// out; grouped: the sum over groups of targets x sources in its ranges.
double pair_count(const Spec& spec, const PairSizes& sizes, const PairGroupLists* groups = nullptr);

class PairwiseKernel : public Kernel {
 public:
  // `variant` is plan_unit(spec, choice): planned once, by whoever chose it.
  PairwiseKernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache = process_cache());
  PairwiseKernel(const Spec& spec, const TunableChoice& choice, const Context& ctx, KernelCache& cache = process_cache())
      : PairwiseKernel(spec, plan_unit(spec, choice), ctx, cache) {}

  const PairwisePlan& plan() const { return source_.plan_as<PairwisePlan>(); }
  // Every spec but a grouped one.
  void launch(const FieldBindings& fields, const ParamValues& params = {}, CUstream stream = nullptr) const override;
  // A grouped spec: `groups` drives it (must be null for the others).
  void launch(const FieldBindings& fields, const PairGroups* groups, const ParamValues& params = {}, CUstream stream = nullptr) const;

  // Block on block (grids): the partial results and streams of a grid of
  // `shape` cells, so that launches of that size allocate nothing; the
  // tile's partial results where it splits the sources at that size.
  void prepare(const std::array<long long, 3>& shape) const override;

  // The tile strategy: the slices the sources of a launch of `targets` x
  // `sources` are split into (source_slices, or where it is 0 the host's
  // choice, host_slices in pair_slices.hpp); 1 for block on block.
  long long source_slices(long long targets, long long sources) const;
  // Blocks of this kernel the GPU holds at once (the driver's occupancy).
  long long resident_blocks() const { return resident_; }

 private:
  // source_slices for a launch's load (load.resident is filled in here).
  long long source_slices_of(SliceLoad load) const;
  // The fold kernel on `stream`, a thread a cell of f.cells.
  void fold(PairFoldArgs f, CUstream stream, const std::string& doing) const;
  // Block on block: the launches over source pencils, their folds and the last fold.
  void launch_blocks(PairArgs& a, const PairSizes& sizes, CUstream stream) const;
  // Block on block: source blocks a pencil (k[0]) and pencils, the streams
  // and a stream's bytes of partials; allocated where they do not fit yet.
  struct BlockGeometry {
    long long k[3] = {1, 1, 1};
    long long pencils = 0, sinks = 0, cells = 0;
    std::size_t streams = 0, partial_bytes = 0;
  };
  BlockGeometry reserve_blocks(const std::array<long long, 3>& grid, long long cells) const;
  // Sources in slices: partial results of `slices` x `targets`, allocated where they do not fit yet.
  void* reserve_slices(long long slices, long long targets) const;

  CUfunction fold_ = nullptr;
  long long resident_ = 1;
  // Block on block: per stream, partial results of a pencil and a running
  // result; reused while the grid keeps its size. Sources in slices: the
  // slices' partial results.
  mutable std::vector<Stream> streams_;
  mutable DeviceMemory partial_, running_;
  mutable std::vector<Event> done_;
  mutable Event start_;
  // Sources in slices: recorded after each fold of the partials.
  mutable Event slices_folded_;
};

}  // namespace gpen
