// One measured, verified run of a pairwise spec: random inputs, outputs
// poisoned with NaN, one launch checked against the CPU reference on a
// sample of targets, then timed launches; pairs per second. Under the
// pairwise Problem (problem.hpp), and used by the GPU tests.
#pragma once

#include <optional>
#include <string>

#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/tuning_key.hpp"
#include "gpen/families/pairwise/pair_cost.hpp"
#include "gpen/families/pairwise/pairwise_kernel.hpp"
#include "gpen/families/pairwise/pairwise_reference.hpp"

namespace gpen {

// "N" (particles), "NxM" (N targets, M separate sources), or a grid's
// "NX[xNY[xNZ]]" (one number: a cube). Throws UsageError (parse_size).
PairSizes parse_pair_size(const Spec& spec, const std::string& text);
// The other way: "N", "NxM" or the grid's "NXxNYxNZ".
std::string pair_size_text(const Spec& spec, const PairSizes& sizes);

// What a PairWorkload at `sizes` asks for (workload.hpp): host, its inputs in
// double (and group lists); device, inputs and outputs in the dtype.
MemoryNeed pair_workload_memory(const Spec& spec, const PairSizes& sizes);

// The tuning database's key of a pairwise problem: a grid's shape; N, or
// N x M for separate sources, each rounded up to a power of two.
TuningKey pair_tuning_key(const Spec& spec, const PairSizes& sizes, const DeviceInfo& device);

// A problem instance on the GPU: inputs (uniform in [-1, 1), rounded to the
// dtype), outputs, and for grouped specs group lists of random sizes with
// random source ranges, some holding the group's own targets.
class PairWorkload {
 public:
  // Throws std::runtime_error (memory_problem) before allocating when it does not fit.
  PairWorkload(const Context& ctx, const Spec& spec, PairSizes sizes, ParamValues params = {}, std::uint64_t seed = 12345);
  const Spec& spec() const { return spec_; }
  const PairSizes& sizes() const { return sizes_; }
  const FieldBindings& bindings() const { return bind_; }
  const ParamValues& params() const { return params_; }
  const PairGroups* groups() const { return groups_ ? &*groups_ : nullptr; }
  double pairs() const;  // evaluated by one launch

  void poison_outputs(CUstream stream = nullptr);
  // The outputs against the CPU reference at up to `sample` targets (all when 0
  // and the pairs are few), computed once and kept.
  Comparison verify(long long sample = 0);
  // Keeps the outputs (of a verified variant) on the host ...
  void keep_as_reference();
  // ... and compares every target of later outputs with them
  // (compare_pairwise_outputs).
  Comparison compare_to_reference() const;
  // The outputs on the host, by output slot.
  std::vector<std::vector<double>> download_outputs() const;

 private:
  const Spec& spec_;
  PairSizes sizes_;
  ParamValues params_;
  std::vector<std::vector<double>> in_host_;
  std::vector<DeviceBuffer> in_, out_;
  FieldBindings bind_;
  std::optional<PairGroups> groups_;
  std::optional<PairReference> reference_;
  std::vector<std::vector<double>> kept_;
};

struct PairRunReport : VariantFacts {
  double median_ms = 0, min_ms = 0;
  double pairs = 0, pairs_per_s = 0;
  std::optional<Comparison> check;
};

// Compiles through the cache, launches once on poisoned outputs, verifies
// (when `verify`), then times `repeat` launches after `warmup`.
PairRunReport measure_pairwise(const Context& ctx, PairWorkload& w, const Variant& variant, int warmup, int repeat, bool verify);

// rsqrt throughput of the GPU: SMs x 16 a clock (the special-function
// units of compute capability 7.0-9.0) x the clock it reports.
double rsqrt_bound_per_s(const DeviceInfo& d);

// Pairs a second that the unit limiting `cost` allows on `d`, at the boost
// clock: min over units of SMs x clock x (the unit's lanes an SM) / (its
// instructions a pair). `unit` names it ("fp32", "fp64", "mufu", "issue");
// pairs_per_s is 0 for an architecture gpen does not know.
struct UnitBound {
  std::string unit;
  double pairs_per_s = 0;
  double lanes = 0;         // of that unit, an SM a clock
  double instructions = 0;  // of that unit, a pair
};
UnitBound pair_unit_bound(const PairCost& cost, const DeviceInfo& d);

}  // namespace gpen
