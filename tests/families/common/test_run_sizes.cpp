// `--size` as the run commands read it, and the memory a run asks for,
// without a GPU: a size that is no size is a usage error naming the --size;
// a size too large for the memory is refused before anything is allocated,
// with the bytes asked for and those there are.
#include <limits>

#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/workload.hpp"
#include "gpen/families/pairwise/pairwise_run.hpp"
#include "gpen/generator/error.hpp"
#include "test_support.hpp"

using namespace gpen;

namespace {

std::string spec_path(const std::string& name) { return gpen::test::source_dir() + "/specs/" + name + ".json"; }

}  // namespace

TEST_CASE("--size: one number is a cube, NXxNYxNZ an axis each, anything else a usage error naming it") {
  CHECK(parse_size("256", 3) == std::array<long long, 3>{256, 256, 256});
  CHECK(parse_size("256", 2) == std::array<long long, 3>{256, 256, 1});
  CHECK(parse_size("67x45x33", 3) == std::array<long long, 3>{67, 45, 33});
  CHECK(parse_size("007", 1) == std::array<long long, 3>{7, 1, 1});
  CHECK(parse_size("2147483647", 1) == std::array<long long, 3>{2147483647, 1, 1});  // the most an axis has
  const std::string syntax = "not N or NXxNYxNZ, numbers of points (digits only) joined by 'x'";
  CHECK_THROWS_WITH_AS(parse_size("abc", 3), ("--size abc: " + syntax).c_str(), UsageError);
  for (const char* bad : {"", "64x", "x64", "64xx64", "1x2x3x4", "-5", "+5", " 5", "5.0", "1e3"})
    CHECK_THROWS_WITH_AS(parse_size(bad, 3), ("--size " + std::string(bad) + ": " + syntax).c_str(), UsageError);
  CHECK_THROWS_WITH_AS(parse_size("0", 3), "--size 0: 0 points along an axis; at least 1", UsageError);
  CHECK_THROWS_WITH_AS(parse_size("64x0x64", 3), "--size 64x0x64: 0 points along an axis; at least 1", UsageError);
  CHECK_THROWS_WITH_AS(parse_size("64x64", 3),
                       "--size 64x64: 2 axes, the spec's arrays have 3; expected N or NXxNYxNZ (one number: that many points along every axis)",
                       UsageError);
  // Past 31 bits an axis, and past 64 bits of points: once "stoll".
  CHECK_THROWS_WITH_AS(parse_size("2147483648", 1),
                       "--size 2147483648: 2147483648 points along an axis; at most 2147483647 (2^31 - 1: the kernels count an axis in int)", UsageError);
  CHECK_THROWS_WITH_AS(parse_size("99999999999999999999", 3),
                       "--size 99999999999999999999: 99999999999999999999 points along an axis; at most 2147483647 (2^31 - 1: the kernels count an axis in int)",
                       UsageError);
  CHECK_THROWS_WITH_AS(parse_size("2000000000x2000000000x2000000000", 3),
                       "--size 2000000000x2000000000x2000000000: 8e+27 points, more than a 64-bit count holds", UsageError);
  CHECK_NOTHROW(parse_size("2097152x2097152x2097151", 3));  // just below 2^63 points
}

TEST_CASE("--size of pairwise specs: N, NxM for separate sources, a grid of fewer than 2^31 cells") {
  const Spec same = load_spec(spec_path("pairwise/softened_potential"));
  CHECK(parse_pair_size(same, "4099").targets == 4099);
  CHECK_THROWS_WITH_AS(parse_pair_size(same, "10x10"),
                       "--size 10x10: spec 'softened_potential': its sources are its targets, so the size is one number N", UsageError);
  CHECK_THROWS_WITH_AS(parse_pair_size(same, "10x10x10"), "--size 10x10x10: not N, numbers of points (digits only) joined by 'x'", UsageError);
  const Spec separate = load_spec(spec_path("pairwise/multipole_potential"));
  const PairSizes s = parse_pair_size(separate, "4096x300");
  CHECK(s.targets == 4096);
  CHECK(s.sources == 300);
  const Spec grid = load_spec(spec_path("pairwise/radiation_grid"));
  CHECK(parse_pair_size(grid, "16").targets == 16 * 16 * 16);
  CHECK_THROWS_WITH_AS(parse_pair_size(grid, "2000"), "--size 2000: 8000000000 cells; a grid has at most 2147483647 (2^31 - 1)", UsageError);
}

TEST_CASE("memory a run asks for: padded arrays in the dtype on the GPU, inputs in double on the host, saturating past 64 bits") {
  CHECK(padded_elements(3, {64, 32, 16}, 4) == 72ull * 40 * 24);
  CHECK(padded_elements(2, {64, 32, 1}, 4) == 72ull * 40);  // no ghosts on an axis the array lacks
  CHECK(padded_elements(3, {2147483647, 2147483647, 2147483647}, 4) == kBytesPastLimit);
  CHECK(bytes_times(1ull << 32, 1ull << 32) == kBytesPastLimit);
  CHECK(bytes_plus(kBytesPastLimit - 1, 2) == kBytesPastLimit);

  // The 8th-order Laplacian: u with 4 ghosts, lap with none.
  const Spec o8 = load_spec(spec_path("stencil/laplacian3d_o8"));
  const MemoryNeed n = workload_memory(o8, {512, 512, 512});
  CHECK(n.what == "laplacian3d_o8 (float64) at 512x512x512");
  CHECK(n.host == 520ull * 520 * 520 * 8);
  CHECK(n.device == (520ull * 520 * 520 + 512ull * 512 * 512) * 8);
  const Spec o8f = load_spec(spec_path("stencil/laplacian3d_o8"), Dtype::Float32);
  CHECK(workload_memory(o8f, {512, 512, 512}).device == n.device / 2);
  CHECK(workload_memory(o8, {2147483647, 2147483647, 2}).device == kBytesPastLimit);

  const Spec pot = load_spec(spec_path("pairwise/softened_potential"));  // x, y, z, m in; phi out
  const MemoryNeed p = pair_workload_memory(pot, parse_pair_size(pot, "1000"));
  CHECK(p.what == "softened_potential (float32) at 1000");
  CHECK(p.host == 4 * 1000 * 8);
  CHECK(p.device == 5 * 1000 * 4);
}

TEST_CASE("a run that does not fit is refused with the size, the bytes asked for and the memory there is") {
  MemoryNeed need{"laplacian3d_o8 (float64) at 4096x4096x4096", 4104ull * 4104 * 4104 * 8, (4104ull * 4104 * 4104 + 4096ull * 4096 * 4096) * 8};
  const MemoryHave have{64ull << 30, 79ull << 30, 80ull << 30};
  CHECK(memory_problem(need, have) ==
        "laplacian3d_o8 (float64) at 4096x4096x4096 does not fit in the GPU's memory nor the host's\n"
        "  GPU:  needs 1102739148800 bytes (1.0 TiB); 84825604096 bytes (79.0 GiB) free of 85899345920 bytes (80.0 GiB)\n"
        "  host: needs 552983334912 bytes (515.0 GiB) of 68719476736 bytes (64.0 GiB)");
  need.host = 1 << 20;
  CHECK(memory_problem(need, have).find("does not fit in the GPU's memory\n") != std::string::npos);
  need.device = kBytesPastLimit;
  CHECK(memory_problem(need, have).find("  GPU:  needs 18446744073709551615 bytes or more (16 EiB);") != std::string::npos);
  need.device = have.device_free;  // all there is free fits
  CHECK(memory_problem(need, have).empty());
  CHECK(bytes_text(1000) == "1000 bytes");
  CHECK(bytes_text(1536) == "1536 bytes (1.5 KiB)");
}
