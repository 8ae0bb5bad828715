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
#include <string>
#include <vector>

#include "gpen/families/common/device_compare.hpp"
#include "gpen/families/common/host_array.hpp"
#include "gpen/families/common/kernel.hpp"

namespace gpen {

// Memory a problem instance asks for, checked before any of it is
// allocated, so that a --size too large ends with the size and the bytes
// rather than std::bad_alloc or a failed cuMemAlloc. Counts saturate at
// kBytesPastLimit: more than 64 bits hold.
constexpr std::uint64_t kBytesPastLimit = ~std::uint64_t{0};
struct MemoryNeed {
  std::string what;          // "laplacian3d_o8 (float64) at 512x512x512"
  std::uint64_t host = 0;    // bytes in the host's memory
  std::uint64_t device = 0;  // bytes in the GPU's memory
};
struct MemoryHave {
  std::uint64_t host_total = 0;   // the host's physical memory
  std::uint64_t device_free = 0;  // free on the GPU now (cuMemGetInfo)
  std::uint64_t device_total = 0;
};
// a * b and a + b, saturating at kBytesPastLimit.
std::uint64_t bytes_times(std::uint64_t a, std::uint64_t b);
std::uint64_t bytes_plus(std::uint64_t a, std::uint64_t b);
// Elements of a 1-3-D array of `shape` padded by `ghost` on each of its `dims` axes.
std::uint64_t padded_elements(int dims, const std::array<long long, 3>& shape, int ghost);
// "1073741824 bytes (1.0 GiB)"; "18446744073709551615 bytes or more (16 EiB)" at the limit.
std::string bytes_text(std::uint64_t bytes);
// A Workload of `spec` at `size`: host, its inputs in double; device, one
// set of padded inputs and outputs in the dtype.
MemoryNeed workload_memory(const Spec& spec, const std::array<long long, 3>& size);
// Empty when `need` fits in `have`; else the message, which names what asks,
// and the bytes asked for and available on the host and the GPU:
//   laplacian3d_o8 (float64) at 4096x4096x4096 does not fit in the GPU's memory
//     GPU:  needs 1102739148800 bytes (1.0 TiB); 84825604096 bytes (79.0 GiB) free of 85899345920 bytes (80.0 GiB)
//     host: needs 552983334912 bytes (515.0 GiB) of 1099511627776 bytes (1.0 TiB)
std::string memory_problem(const MemoryNeed& need, const MemoryHave& have);
// What this machine has: its physical memory, the GPU's free and total memory.
MemoryHave memory_have(const Context& ctx);
// The host's physical memory alone (kBytesPastLimit when it cannot tell).
std::uint64_t host_memory_total();
// Throws std::runtime_error with memory_problem() when `need` does not fit.
void check_memory(const MemoryNeed& need, const Context& ctx);
// "512x512x512": the first `dims` axes of a size.
std::string size_text(const std::array<long long, 3>& size, int dims);

struct WorkloadOptions {
  ParamValues params;
  std::uint64_t seed = 12345;
  bool periodic = false;    // input ghosts filled on the GPU (periodic) instead of random values
  bool rotate_for_l2 = true;  // extra copies for timing when one set fits in the L2 a few times
};

class Workload {
 public:
  // Throws std::runtime_error (memory_problem) before allocating anything
  // when the inputs, outputs and timing sets do not fit.
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
  // Set 0's outputs against the CPU reference (computed once, then kept);
  // refused (std::runtime_error) when the host cannot hold it.
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
