// One problem instance of a spec (any kind) on the GPU, shared by every variant
// that runs on it: inputs filled once (random values rounded to the dtype,
// or periodic ghosts), outputs, and what a variant is checked against: the
// CPU reference in double precision, or a kept reference output compared on
// the GPU. For timing, it holds enough copies of the inputs and outputs that
// rotating through them overflows the L2, so a small problem is not timed
// from cache.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "gpen/runtime/device_compare.hpp"
#include "gpen/runtime/host_array.hpp"
#include "gpen/runtime/kernel.hpp"

namespace gpen {

struct WorkloadOptions {
  ParamValues params;
  std::uint64_t seed = 12345;
  bool periodic = false;    // input ghosts filled on the GPU (periodic) instead of random values
  bool rotate_for_l2 = true;  // extra copies for timing when one set fits in the L2 a few times
};

class Workload {
 public:
  Workload(const Context& ctx, const Spec& spec, std::array<long long, 3> size, WorkloadOptions opt = {});
  Workload(const Workload&) = delete;

  const Spec& spec() const { return spec_; }
  const std::array<long long, 3>& size() const { return size_; }
  const ParamValues& params() const { return opt_.params; }
  // Bytes a launch must move: one read of every input, one write of every output (interiors).
  double bytes() const;
  // Sets of buffers for timing; set 0 is the one that is verified.
  std::size_t sets() const { return sets_.size(); }
  const FieldBindings& bindings(std::size_t set = 0) const { return sets_.at(set).bind; }

  // Every output value of set 0, ghosts included, to NaN.
  void poison_outputs(CUstream stream = nullptr);
  // Set 0's outputs against the CPU reference (computed once, then kept).
  Comparison verify_on_cpu();
  // Copies set 0's outputs into reference buffers on the GPU ...
  void keep_as_reference(CUstream stream = nullptr);
  bool has_reference() const { return !reference_.empty(); }
  // ... and compares later outputs with them there (worst output reported).
  Comparison compare_to_reference(CUstream stream = nullptr) const;

 private:
  struct Set {
    std::vector<DeviceBuffer> in, out;
    FieldBindings bind;
  };
  const Context& ctx_;
  const Spec& spec_;
  std::array<long long, 3> size_;
  WorkloadOptions opt_;
  std::vector<HostArray> in_host_;
  std::vector<Set> sets_;
  std::vector<HostArray> cpu_reference_;
  std::vector<HostArray> cpu_scale_;  // scans: the magnitude their rounding errors scale with
  std::vector<DeviceBuffer> reference_;
  std::optional<DeviceComparer> comparer_;
};

// Median (and minimum) of `repeat` timed launches after `warmup`, rotating
// through the workload's sets; milliseconds.
struct LaunchTimes {
  double median_ms = 0, min_ms = 0;
};
double median_of(std::vector<float> v);
LaunchTimes time_launches(const Kernel& kernel, const Workload& w, int warmup, int repeat, CUstream stream = nullptr);

}  // namespace gpen
