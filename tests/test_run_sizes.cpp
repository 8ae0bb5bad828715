// `--size` as the run commands read it, without a GPU: a size that is no
// size is a usage error naming the --size.
#include <limits>

#include "gpen/generator/error.hpp"
#include "gpen/runtime/pairwise_run.hpp"
#include "gpen/runtime/stencil_run.hpp"
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
