// One measured, verified run of a stencil variant: random inputs, outputs
// poisoned with NaN, launch, event timing (median after warm-up), and the
// comparison with the CPU reference. Under the grid kinds' Problem
// (problem.hpp), and used by the GPU tests.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpen/families/common/host_array.hpp"
#include "gpen/families/common/workload.hpp"

namespace gpen {

struct RunOptions {
  std::array<long long, 3> size{64, 64, 64};  // user axes; unused axes 1
  int warmup = 3;
  int repeat = 20;
  bool verify = true;
  std::uint64_t seed = 12345;
  ParamValues params;
  bool periodic = false;  // fill input ghosts on the GPU (periodic) instead of random values
};

// What a report says of the variant it ran, whatever the kind.
struct VariantFacts {
  std::string spec;
  std::string variant;  // "strategy=... block_x=..."
  TunableChoice tunables;  // every tunable's value, defaults included
  std::string unit;     // generated file name
  std::string cache;    // "memory", "disk" or "compiled"
  double cache_ms = 0;
  double load_ms = 0;   // cuModuleLoadData + cuModuleGetFunction
  ResourceUsage usage;
};
VariantFacts variant_facts(const Kernel& kernel, const Spec& spec);

struct RunReport : VariantFacts {
  double median_ms = 0, min_ms = 0;
  double bytes = 0;     // one read of every input, one write of every output (interiors)
  double teff_gbs = 0;  // bytes / median time
  std::optional<Comparison> check;
};

RunReport run_spec(const Context& ctx, const Spec& spec, const TunableChoice& choice, const RunOptions& opt);

// One variant on an existing workload (so that many variants share its
// inputs): compile through the cache, launch once on poisoned outputs,
// check, then time.
struct MeasureOptions {
  int warmup = 3;
  int repeat = 20;
  enum class Check { None, Cpu, Reference } check = Check::Cpu;  // Reference: the workload's kept output, on the GPU
};
RunReport measure_variant(const Context& ctx, Workload& w, const Variant& variant, const MeasureOptions& opt);

// Device-to-device copy bandwidth, bytes read + written per second (GB/s),
// median of `repeat` copies of `bytes` bytes.
double measure_copy_gbs(const Context& ctx, std::size_t bytes, int repeat = 20);

// The most points along one axis of a --size: kernels count an axis in int.
constexpr long long kMaxSizeAxis = 2147483647;

// --size "67x45x33" -> {67, 45, 33} for a 3-D spec; one number is that many
// points along each of the `dims` axes ("256" -> {256, 256, 256}); unused
// axes 1. Throws UsageError ("--size TEXT: ...") for anything else: no
// digits, 0, an axis past kMaxSizeAxis, a point count past 64 bits.
std::array<long long, 3> parse_size(const std::string& text, int dims);
// The numbers of "NxMx..." (at most `most`), each from 1 to kMaxSizeAxis;
// `form` says what was expected ("N or NxM"). Throws UsageError.
std::vector<long long> parse_size_numbers(const std::string& text, std::size_t most, const std::string& form);

}  // namespace gpen
