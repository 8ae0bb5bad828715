#include "gpen/families/pairwise/pairwise_kernel.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpen/families/pairwise/device/pairwise_args.h"

namespace gpen {

namespace {

unsigned grid_x(long long blocks, const Spec& spec, const char* what) {
  if (blocks > 0x7fffffffLL) throw BindingError(fmt::format("spec '{}': {} blocks of {} exceed the grid limit", spec.name, blocks, what));
  return static_cast<unsigned>(blocks);
}

// A fold of `count` partial results a cell, [output][count][cells], into a's outputs.
PairFoldArgs fold_into_outputs(const PairArgs& a, void* partial, long long count, long long cells) {
  PairFoldArgs f{};
  f.partial = partial;
  for (int i = 0; i < kPairMaxOutputs; ++i) f.out[i] = a.out[i];
  f.count = count;
  f.cells = cells;
  return f;
}

}  // namespace

void check_group_lists(const PairGroupLists& g, long long n_targets, long long n_sources) {
  auto fail = [](const std::string& msg) { throw BindingError("group lists: " + msg); };
  if (g.target_groups.empty() || g.range_offsets.size() != g.target_groups.size())
    fail(fmt::format("{} target_groups and {} range_offsets entries", g.target_groups.size(), g.range_offsets.size()) +
         "; expected groups + 1 of each");
  if (g.target_groups.front() != 0 || g.target_groups.back() != n_targets)
    fail(fmt::format("target_groups run from {} to {}; expected 0 to the {} targets", g.target_groups.front(), g.target_groups.back(), n_targets));
  if (g.range_offsets.front() != 0 || 2LL * g.range_offsets.back() != static_cast<long long>(g.source_ranges.size()))
    fail(fmt::format("range_offsets run from {} to {} for {} source_ranges entries; expected 0 to half of them", g.range_offsets.front(),
                     g.range_offsets.back(), g.source_ranges.size()));
  for (std::size_t i = 1; i < g.target_groups.size(); ++i) {
    if (g.target_groups[i] < g.target_groups[i - 1]) fail(fmt::format("target_groups[{}] = {} is below the entry before it", i, g.target_groups[i]));
    if (g.range_offsets[i] < g.range_offsets[i - 1]) fail(fmt::format("range_offsets[{}] = {} is below the entry before it", i, g.range_offsets[i]));
  }
  for (std::size_t r = 0; r + 1 < g.source_ranges.size(); r += 2)
    if (g.source_ranges[r] < 0 || g.source_ranges[r] > g.source_ranges[r + 1] || g.source_ranges[r + 1] > n_sources)
      fail(fmt::format("range {} is [{}, {}); expected 0 <= begin <= end <= {} sources", r / 2, g.source_ranges[r], g.source_ranges[r + 1], n_sources));
}

PairGroups::PairGroups(PairGroupLists lists, long long n_targets, long long n_sources) : lists_(std::move(lists)) {
  check_group_lists(lists_, n_targets, n_sources);
  auto up = [](DeviceMemory& d, const std::vector<int>& v) {
    d = DeviceMemory(std::max<std::size_t>(1, v.size()) * sizeof(int));
    if (!v.empty()) d.upload(v.data(), v.size() * sizeof(int));
  };
  up(tg_, lists_.target_groups);
  up(ro_, lists_.range_offsets);
  up(sr_, lists_.source_ranges);
  for (long long g = 0; g < lists_.groups(); ++g) {
    largest_group_ = std::max<long long>(largest_group_, lists_.target_groups[g + 1] - lists_.target_groups[g]);
    for (int r = lists_.range_offsets[g]; r < lists_.range_offsets[g + 1]; ++r) range_sources_ += lists_.source_ranges[2 * r + 1] - lists_.source_ranges[2 * r];
  }
}

long long PairGroups::target_blocks(long long per_block) const {
  const std::lock_guard<std::mutex> lock(last_mutex_);
  if (per_block != blocks_of_) {
    target_blocks_ = 0;
    for (long long g = 0; g < lists_.groups(); ++g) target_blocks_ += (lists_.target_groups[g + 1] - lists_.target_groups[g] + per_block - 1) / per_block;
    blocks_of_ = per_block;
  }
  return target_blocks_;
}

PairSizes check_pairwise_bindings(const Spec& spec, const FieldBindings& fields, const ParamValues& params) {
  const auto shape = check_bindings(spec, fields, params);
  PairSizes s;
  if (spec.pairwise().grid) {
    s.grid = shape;
    s.targets = s.sources = shape[0] * shape[1] * shape[2];
    if (s.targets >= (1LL << 31)) throw BindingError(fmt::format("spec '{}': {} cells; at most 2^31 - 1", spec.name, s.targets));
    return s;
  }
  s.targets = s.sources = shape[0];
  for (const auto& f : spec.fields)
    if (f.set == FieldDecl::Set::Sources) s.sources = fields.at(f.name)->shape()[0];
  if (spec.pairwise().grouped && (s.targets >= (1LL << 31) || s.sources >= (1LL << 31)))
    throw BindingError(fmt::format("spec '{}': group lists index at most 2^31 - 1 targets and sources", spec.name));
  return s;
}

double pair_count(const Spec& spec, const PairSizes& sizes, const PairGroupLists* groups) {
  if (groups) {
    double n = 0;
    for (long long g = 0; g < groups->groups(); ++g) {
      const long long targets = groups->target_groups[g + 1] - groups->target_groups[g];
      for (int r = groups->range_offsets[g]; r < groups->range_offsets[g + 1]; ++r) {
        const long long b = groups->source_ranges[2 * r], e = groups->source_ranges[2 * r + 1];
        n += static_cast<double>(targets) * (e - b);
        if (spec.pairwise().skip_self) {  // targets inside the range meet themselves
          const long long lo = std::max<long long>(b, groups->target_groups[g]), hi = std::min<long long>(e, groups->target_groups[g + 1]);
          if (hi > lo) n -= hi - lo;
        }
      }
    }
    return n;
  }
  return static_cast<double>(sizes.targets) * sizes.sources - (spec.pairwise().skip_self ? sizes.targets : 0);
}

PairwiseKernel::PairwiseKernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache)
    : Kernel(spec, std::move(variant), ctx, cache) {
  check_block_fits(function(), plan().block, "use a smaller block_x or fewer targets_per_thread");
  if (!plan().fold_kernel_name.empty()) fold_ = module_.function(plan().fold_kernel_name);
  // Where the driver cannot say, the threads of a full SM.
  int per_sm = 0;
  if (driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, function(), plan().block, 0) != CUDA_SUCCESS || per_sm < 1)
    per_sm = std::max(1, 2048 / plan().block);
  resident_ = static_cast<long long>(std::max(1, ctx.info().sm_count)) * per_sm;
}

long long PairwiseKernel::source_slices(long long targets, long long sources) const {
  const PairwisePlan& p = plan();
  const long long tiles = sources / p.block;
  return source_slices_of({(targets + p.targets_per_block() - 1) / p.targets_per_block(), static_cast<double>(tiles)});
}

long long PairwiseKernel::source_slices_of(SliceLoad load) const {
  const PairwisePlan& p = plan();
  if (p.strategy == PairStrategy::Blocks) return 1;
  if (p.source_slices > 0) return p.source_slices;
  load.resident = resident_;
  return host_slices(load);
}

void PairwiseKernel::launch(const FieldBindings& fields, const ParamValues& params, CUstream stream) const {
  launch(fields, nullptr, params, stream);
}

void PairwiseKernel::launch(const FieldBindings& fields, const PairGroups* groups, const ParamValues& params, CUstream stream) const {
  const PairSizes sizes = check_pairwise_bindings(spec_, fields, params);
  if (spec_.pairwise().grouped != (groups != nullptr))
    throw BindingError(fmt::format("spec '{}': {}", spec_.name,
                                   groups ? "group lists given, but its pairs are \"all\"" : "its pairs are \"grouped\": the launch needs group lists"));
  if (groups) check_group_lists(groups->lists(), sizes.targets, sizes.sources);
  PairArgs a{};
  const auto ins = spec_.inputs();
  const auto outs = spec_.output_fields();
  for (std::size_t i = 0; i < ins.size(); ++i) a.in[i] = device_pointer(fields.at(ins[i]->name)->get());
  for (std::size_t i = 0; i < outs.size(); ++i) a.out[i] = device_pointer(fields.at(outs[i]->name)->get());
  a.n_targets = sizes.targets;
  a.n_sources = sizes.sources;
  for (int ax = 0; ax < 3; ++ax) a.grid[ax] = sizes.grid[ax];
  for (std::size_t i = 0; i < spec_.params.size(); ++i) {
    const auto it = params.find(spec_.params[i].name);
    a.params[i] = it != params.end() ? it->second : spec_.params[i].value;
  }
  const PairwisePlan& p = plan();
  const std::string doing = fmt::format("launching {} of spec '{}'", source_.name, spec_.name);
  if (p.strategy == PairStrategy::Blocks) {
    launch_blocks(a, sizes, stream);
    return;
  }
  // Tile: blocks of targets x slices of the sources. Grouped: groups x
  // chunks of a group's targets (enough for the largest) x slices of a
  // group's sources (the chunks that hold targets, against a group's mean
  // sources).
  long long blocks = (sizes.targets + p.targets_per_block() - 1) / p.targets_per_block(), chunks = 1, slices = 1;
  if (groups) {
    a.target_groups = device_pointer<const int>(groups->target_groups());
    a.range_offsets = device_pointer<const int>(groups->range_offsets());
    a.source_ranges = device_pointer<const int>(groups->source_ranges());
    a.groups = groups->lists().groups();
    blocks = a.groups;
    chunks = std::clamp((groups->largest_group() + p.targets_per_block() - 1) / p.targets_per_block(), 1LL, 65535LL);
    if (blocks > 0)
      slices = source_slices_of({groups->target_blocks(p.targets_per_block()), static_cast<double>(groups->range_sources()) / blocks / p.block});
  } else {
    slices = source_slices(sizes.targets, sizes.sources);
  }
  if (blocks == 0) return;
  if (slices > 1) a.partial = reserve_slices(slices, sizes.targets);
  // The slices' partials are one buffer: a launch on another stream waits
  // until the last launch that used it has folded them.
  if (slices > 1) slices_folded_.make_wait(stream);
  const unsigned grid_y = static_cast<unsigned>(groups ? chunks : slices), grid_z = static_cast<unsigned>(groups ? slices : 1);
  void* kp[] = {&a};
  GPEN_CU(cuLaunchKernel(function(), grid_x(blocks, spec_, "targets"), grid_y, grid_z, p.block, 1, 1, 0, stream, kp, nullptr), doing);
  if (slices == 1) return;
  fold(fold_into_outputs(a, a.partial, slices, sizes.targets), stream, doing + " (folding the source slices' results)");
  slices_folded_.record(stream);
}

void PairwiseKernel::fold(PairFoldArgs f, CUstream stream, const std::string& doing) const {
  void* fp[] = {&f};
  GPEN_CU(cuLaunchKernel(fold_, grid_x((f.cells + 255) / 256, spec_, "cells"), 1, 1, 256, 1, 1, 0, stream, fp, nullptr), doing);
}

PairwiseKernel::BlockGeometry PairwiseKernel::reserve_blocks(const std::array<long long, 3>& grid, long long cells) const {
  const PairwisePlan& p = plan();
  BlockGeometry b;
  for (int ax = 0; ax < 3; ++ax) b.k[ax] = ax < spec_.dims ? (grid[ax] + p.cell_block - 1) / p.cell_block : 1;
  b.pencils = b.k[1] * b.k[2];
  b.sinks = b.k[0] * b.k[1] * b.k[2];
  b.cells = cells;
  if (b.k[0] > 65535) throw BindingError(fmt::format("spec '{}': {} source blocks a pencil exceed the grid limit of 65535; a larger cell_block", spec_.name, b.k[0]));
  b.streams = static_cast<std::size_t>(std::min<long long>(p.streams, b.pencils));
  const std::size_t outs = spec_.outputs.size(), real = size_of(spec_.dtype);
  b.partial_bytes = outs * static_cast<std::size_t>(b.k[0] * cells) * real;  // a stream's
  const std::size_t running_bytes = outs * b.streams * static_cast<std::size_t>(cells) * real;
  if (partial_.bytes() < b.streams * b.partial_bytes) partial_ = DeviceMemory(b.streams * b.partial_bytes);
  if (running_.bytes() < running_bytes) running_ = DeviceMemory(running_bytes);
  while (streams_.size() < b.streams) {
    streams_.emplace_back();
    done_.emplace_back();
  }
  return b;
}

void* PairwiseKernel::reserve_slices(long long slices, long long targets) const {
  const std::size_t bytes = spec_.outputs.size() * static_cast<std::size_t>(slices * targets) * size_of(spec_.dtype);
  if (partial_.bytes() < bytes) partial_ = DeviceMemory(bytes);
  return device_pointer(partial_.get());
}

void PairwiseKernel::prepare(const std::array<long long, 3>& shape) const {
  if (plan().strategy != PairStrategy::Blocks) {
    check_extents(shape);
    const long long targets = shape[0] * shape[1] * shape[2];
    // As many slices as any number of sources may take (grouped: groups
    // make at least as many blocks as their targets alone).
    const PairwisePlan& p = plan();
    const long long blocks = (targets + p.targets_per_block() - 1) / p.targets_per_block();
    if (const long long slices = p.source_slices > 0 ? p.source_slices : most_host_slices(blocks, resident_); slices > 1) reserve_slices(slices, targets);
    return;
  }
  check_extents(shape);
  std::array<long long, 3> grid{1, 1, 1};
  long long cells = 1;
  for (int ax = 0; ax < spec_.dims; ++ax) {
    grid[ax] = shape[ax];
    cells *= shape[ax];
  }
  reserve_blocks(grid, cells);
}

void PairwiseKernel::launch_blocks(PairArgs& a, const PairSizes& sizes, CUstream stream) const {
  const PairwisePlan& p = plan();
  const std::string doing = fmt::format("launching {} of spec '{}'", source_.name, spec_.name);
  const BlockGeometry b = reserve_blocks(sizes.grid, sizes.targets);
  const long long* k = b.k;
  const long long pencils = b.pencils, sinks = b.sinks, cells = b.cells;
  const std::size_t streams = b.streams, partial_bytes = b.partial_bytes, real = size_of(spec_.dtype);
  start_.record(stream);
  for (std::size_t s = 0; s < streams; ++s) start_.make_wait(streams_[s].get());
  for (long long pencil = 0; pencil < pencils; ++pencil) {
    const std::size_t s = static_cast<std::size_t>(pencil) % streams;
    CUstream st = streams_[s].get();
    a.pencil[0] = pencil % k[1];
    a.pencil[1] = pencil / k[1];
    a.partial = device_pointer(partial_.get() + s * partial_bytes);
    void* kp[] = {&a};
    GPEN_CU(cuLaunchKernel(function(), grid_x(sinks, spec_, "sink cells"), static_cast<unsigned>(k[0]), 1, p.block, 1, 1, 0, st, kp, nullptr), doing);
    PairFoldArgs f{};
    f.partial = a.partial;
    f.running = device_pointer(running_.get() + s * cells * real);
    f.count = k[0];
    f.cells = cells;
    f.running_stride = static_cast<long long>(streams) * cells;
    f.accumulate = pencil >= static_cast<long long>(streams);
    fold(f, st, doing + " (folding a pencil's partial results)");
  }
  for (std::size_t s = 0; s < streams; ++s) {
    done_[s].record(streams_[s].get());
    done_[s].make_wait(stream);
  }
  fold(fold_into_outputs(a, device_pointer(running_.get()), static_cast<long long>(streams), cells), stream, doing + " (folding the streams' results)");
}

}  // namespace gpen
