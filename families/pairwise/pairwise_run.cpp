#include "gpen/families/pairwise/pairwise_run.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <stdexcept>

#include <fmt/format.h>

#include "gpen/families/common/roofline.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen {

PairSizes parse_pair_size(const Spec& spec, const std::string& text) {
  PairSizes s;
  if (spec.pairwise().grid) {
    s.grid = parse_size(text, spec.dims);
    s.targets = s.sources = s.grid[0] * s.grid[1] * s.grid[2];
    if (s.targets > kMaxSizeAxis)
      throw UsageError(fmt::format("--size {}: {} cells; a grid has at most {} (2^31 - 1)", text, s.targets, kMaxSizeAxis));
    return s;
  }
  // Particles: "N", or "NxM" for separate sets.
  const auto n = parse_size_numbers(text, 2, spec.pairwise().same_set ? "N" : "N or NxM");
  if (n.size() == 2 && spec.pairwise().same_set)
    throw UsageError(fmt::format("--size {}: spec '{}': its sources are its targets, so the size is one number N", text, spec.name));
  s.targets = n[0];
  s.sources = n.size() == 2 ? n[1] : n[0];
  return s;
}

TuningKey pair_tuning_key(const Spec& spec, const PairSizes& sizes, const DeviceInfo& device) {
  if (spec.pairwise().grid) return tuning_key(spec, sizes.grid, device);
  TuningKey k = tuning_key(spec, std::array<long long, 3>{sizes.targets, sizes.sources, 1}, device);
  k.size_class = size_class({sizes.targets, sizes.sources, 1}, spec.pairwise().same_set ? 1 : 2);
  return k;
}

std::string pair_size_text(const Spec& spec, const PairSizes& sizes) {
  if (spec.pairwise().grid) return size_text(sizes.grid, spec.dims);
  return spec.pairwise().same_set ? std::to_string(sizes.targets) : fmt::format("{}x{}", sizes.targets, sizes.sources);
}

MemoryNeed pair_workload_memory(const Spec& spec, const PairSizes& sizes) {
  MemoryNeed need;
  need.what = fmt::format("{} ({}) at {}", spec.name, to_string(spec.dtype), pair_size_text(spec, sizes));
  const auto count = [](long long n) { return static_cast<std::uint64_t>(n); };
  for (const auto* f : spec.inputs()) {
    const std::uint64_t n = count(f->set == FieldDecl::Set::Sources ? sizes.sources : sizes.targets);
    need.host = bytes_plus(need.host, bytes_times(n, sizeof(double)));
    need.device = bytes_plus(need.device, bytes_times(n, size_of(spec.dtype)));
  }
  need.device = bytes_plus(need.device, bytes_times(bytes_times(count(sizes.targets), spec.output_fields().size()), size_of(spec.dtype)));
  if (spec.pairwise().grouped) {
    // At most a group a target, each with up to 4 ranges (random_groups):
    // 1 + 1 + 8 ints a target, on the host and the GPU.
    const std::uint64_t lists = bytes_times(bytes_plus(count(sizes.targets), 1), 10 * sizeof(int));
    need.host = bytes_plus(need.host, lists);
    need.device = bytes_plus(need.device, lists);
  }
  return need;
}

namespace {

// Groups of 1-160 targets, each with 0-4 ranges of up to 2048 sources; every
// third range starts at the group's own first target.
PairGroupLists random_groups(const PairSizes& sz, std::uint64_t seed) {
  PairGroupLists g;
  auto next = [&](long long n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<long long>((seed >> 33) % static_cast<std::uint64_t>(std::max(1LL, n)));
  };
  g.target_groups.push_back(0);
  g.range_offsets.push_back(0);
  int ranges = 0;
  while (g.target_groups.back() < sz.targets) {
    const long long first = g.target_groups.back();
    g.target_groups.push_back(static_cast<int>(std::min(sz.targets, first + 1 + next(160))));
    const long long n = next(5);
    for (long long r = 0; r < n; ++r, ++ranges) {
      const long long b = ranges % 3 == 0 ? std::min(first, sz.sources) : next(sz.sources);
      const long long e = std::min(sz.sources, b + next(2049));
      g.source_ranges.push_back(static_cast<int>(b));
      g.source_ranges.push_back(static_cast<int>(e));
    }
    g.range_offsets.push_back(static_cast<int>(g.source_ranges.size() / 2));
  }
  return g;
}

}  // namespace

PairWorkload::PairWorkload(const Context& ctx, const Spec& spec, PairSizes sizes, ParamValues params, std::uint64_t seed)
    : spec_(spec), sizes_(sizes), params_(std::move(params)) {
  const std::array<long long, 3> target_shape = spec.pairwise().grid ? sizes.grid : std::array<long long, 3>{sizes.targets, 1, 1};
  const std::array<long long, 3> source_shape = spec.pairwise().grid ? sizes.grid : std::array<long long, 3>{sizes.sources, 1, 1};
  const MemoryNeed need = pair_workload_memory(spec, sizes);
  check_memory(need, ctx);
  try {
    for (const auto* f : spec.inputs()) {
      HostArray h(spec.dims, f->set == FieldDecl::Set::Sources ? source_shape : target_shape, 0);
      fill_random(h, seed++, spec.dtype);
      in_host_.push_back(h.data);
      in_.emplace_back(spec.dtype, spec.dims, h.shape, 0);
      in_.back().upload(h.data);
    }
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(fmt::format("{}: the host could not allocate {} for the inputs", need.what, bytes_text(need.host)));
  }
  for (std::size_t i = 0; i < spec.output_fields().size(); ++i) out_.emplace_back(spec.dtype, spec.dims, target_shape, 0);
  for (std::size_t i = 0; i < in_.size(); ++i) bind_[spec.inputs()[i]->name] = &in_[i];
  for (std::size_t i = 0; i < out_.size(); ++i) bind_[spec.output_fields()[i]->name] = &out_[i];
  if (spec.pairwise().grouped) groups_.emplace(random_groups(sizes, seed), sizes.targets, sizes.sources);
  poison_outputs();
  GPEN_CU(cuCtxSynchronize(), "preparing the pairwise workload");
}

double PairWorkload::pairs() const { return pair_count(spec_, sizes_, groups_ ? &groups_->lists() : nullptr); }

void PairWorkload::poison_outputs(CUstream stream) {
  // All bits set is a NaN in float32 and float64 alike.
  for (auto& o : out_) GPEN_CU(cuMemsetD8Async(o.get(), 0xFF, o.bytes(), stream), "poisoning an output with NaN");
}

Comparison PairWorkload::verify(long long sample) {
  if (!reference_) {
    // About 3e8 pairs of reference work (seconds on a few cores) at most.
    const double per_target = std::max(1.0, pairs() / static_cast<double>(sizes_.targets));
    const long long count = sample > 0 ? sample : std::max(64LL, static_cast<long long>(3e8 / per_target));
    std::vector<double> params;
    for (const auto& p : spec_.params) params.push_back(params_.count(p.name) ? params_.at(p.name) : p.value);
    reference_ = reference_pairwise(spec_, in_host_, sizes_, params, sample_targets(sizes_.targets, count, 777),
                                    groups_ ? &groups_->lists() : nullptr);
  }
  return compare_pairwise(spec_, download_outputs(), *reference_);
}

std::vector<std::vector<double>> PairWorkload::download_outputs() const {
  GPEN_CU(cuCtxSynchronize(), "waiting for the launch to check");
  std::vector<std::vector<double>> got;
  for (const auto& o : out_) got.push_back(o.download());
  return got;
}

void PairWorkload::keep_as_reference() { kept_ = download_outputs(); }

Comparison PairWorkload::compare_to_reference() const {
  GPEN_INTERNAL_CHECK(!kept_.empty(), "compare_to_reference before keep_as_reference");
  return compare_pairwise_outputs(spec_.dtype, download_outputs(), kept_);
}

PairRunReport measure_pairwise(const Context& ctx, PairWorkload& w, const Variant& variant, int warmup, int repeat, bool verify) {
  const Spec& spec = w.spec();
  const PairwiseKernel kernel(spec, variant, ctx);
  PairRunReport rep;
  static_cast<VariantFacts&>(rep) = variant_facts(kernel, spec);
  Stream stream;
  w.poison_outputs(stream.get());
  kernel.launch(w.bindings(), w.groups(), w.params(), stream.get());
  stream.synchronize();
  if (verify) rep.check = w.verify();
  Event e0, e1;
  std::vector<float> times;
  for (int r = 0; r < warmup + repeat; ++r) {
    e0.record(stream.get());
    kernel.launch(w.bindings(), w.groups(), w.params(), stream.get());
    e1.record(stream.get());
    const float ms = e1.since(e0);
    if (r >= warmup) times.push_back(ms);
  }
  rep.median_ms = median_of(times);
  rep.min_ms = times.empty() ? 0 : *std::min_element(times.begin(), times.end());
  rep.pairs = w.pairs();
  rep.pairs_per_s = rep.median_ms > 0 ? rep.pairs / (rep.median_ms * 1e-3) : 0;
  return rep;
}

double rsqrt_bound_per_s(const DeviceInfo& d) { return static_cast<double>(d.sm_count) * 16.0 * d.clock_khz * 1e3; }

UnitBound pair_unit_bound(const PairCost& cost, const DeviceInfo& d) {
  UnitBound best;
  const double per_clock = static_cast<double>(d.sm_count) * d.clock_khz * 1e3;
  if (per_clock <= 0 || fma_per_s(d, Dtype::Float32) <= 0) return best;
  // Lanes an SM a clock: the FMA pipes' from the programming guide's
  // throughput table (roofline.cpp), 16 special-function lanes and four
  // schedulers issuing a warp instruction each on every architecture gpen knows.
  const struct {
    const char* unit;
    double lanes, instructions;
  } units[] = {{"fp32", fma_per_s(d, Dtype::Float32) / per_clock, cost.fp32},
               {"fp64", fma_per_s(d, Dtype::Float64) / per_clock, cost.fp64},
               {"mufu", 16, cost.mufu},
               {"issue", 128, cost.issued()}};
  for (const auto& u : units) {
    if (u.instructions <= 0) continue;
    const double rate = per_clock * u.lanes / u.instructions;
    if (best.unit.empty() || rate < best.pairs_per_s) best = {u.unit, rate, u.lanes, u.instructions};
  }
  return best;
}

}  // namespace gpen
