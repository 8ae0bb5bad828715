// GPU: SBP operators against the CPU reference in double precision, outputs
// poisoned with NaN first: every shipped operator along every axis of 2-D
// and 3-D arrays, both strategies, fp64 and fp32, at sizes that are not
// multiples of the block or the pencil, down to the shortest line the
// closures allow; the shipped Laplacians; refusals of short lines.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpu_support.hpp"
#include "test_support.hpp"
#include "gpen/families/common/grid_run.hpp"

using namespace gpen;

namespace {

Context& sbp_ctx() {
  static Context c(0);
  return c;
}

// A shipped operator file rewritten for `dims`-D arrays along `axes`.
Spec sbp_along(const std::string& path, int dims, const std::vector<std::string>& axes, Dtype dtype) {
  nlohmann::json j = nlohmann::json::parse(gpen::test::read_file(path));
  j["dims"] = dims;
  j["sbp"]["axes"] = axes;
  j["dtype"] = to_string(dtype);
  return load_spec_string(j.dump(2), path);
}

RunReport check_sbp(const Spec& s, const std::vector<std::string>& set, std::array<long long, 3> size, ParamValues params = {}) {
  RunOptions opt;
  opt.params = std::move(params);
  return gpen::test::check_verified(sbp_ctx(), s, set, size, opt);
}

const char* kAxes[] = {"x", "y", "z"};

}  // namespace

TEST_CASE("every shipped SBP operator along every axis of 2-D and 3-D arrays, both strategies, fp64 and fp32") {
  int runs = 0;
  for (const auto& path : gpen::test::shipped_specs("sbp")) {
    const Spec probe = load_spec(path);
    if (probe.sbp().axes.size() != 1) continue;  // the Laplacians: next test
    const long long m = probe.sbp().min_length();
    for (int dims : {2, 3})
      for (int ax = 0; ax < dims; ++ax)
        for (Dtype d : {Dtype::Float64, Dtype::Float32}) {
          const Spec s = sbp_along(path, dims, {kAxes[ax]}, d);
          // Odd sizes, and the shortest line the closures allow along the axis.
          std::array<long long, 3> odd = dims == 2 ? std::array<long long, 3>{203, 77, 1} : std::array<long long, 3>{67, 45, 33};
          std::array<long long, 3> shortest = odd;
          shortest[ax] = m;
          for (const char* strategy : {"direct", "pencil"}) {
            check_sbp(s, {fmt::format("strategy={}", strategy)}, odd);
            check_sbp(s, {fmt::format("strategy={}", strategy)}, shortest);
            runs += 2;
          }
          // Pencils whose sides cut the array unevenly, threads looping twice over each side.
          if (ax == 0) check_sbp(s, {"strategy=pencil", "block_x=32", "block_y=1", "pencil_along=64", "pencil_across=2"}, odd);
          else check_sbp(s, {"strategy=pencil", "block_x=32", "block_y=8", "pencil_along=16", "pencil_across=64"}, odd);
          ++runs;
        }
  }
  CHECK(runs == 5 * 5 * 2 * 5);
}

TEST_CASE("the shipped SBP Laplacians, 2-D and 3-D, fp64 and fp32, with a grid spacing") {
  for (const char* name : {"laplacian2d_o4", "laplacian3d_o4"})
    for (Dtype d : {Dtype::Float64, Dtype::Float32}) {
      const Spec s = load_spec(gpen::test::source_dir() + "/specs/sbp/" + name + ".json", d);
      const bool three = s.dims == 3;
      check_sbp(s, {}, three ? std::array<long long, 3>{67, 45, 33} : std::array<long long, 3>{203, 77, 1});
      check_sbp(s, {"block_x=64", "block_y=2"}, three ? std::array<long long, 3>{10, 10, 10} : std::array<long long, 3>{10, 10, 1}, {{"h", 0.25}});
    }
}

TEST_CASE("an SBP launch refuses lines shorter than two closures, before touching the GPU") {
  const Spec s = sbp_along(gpen::test::source_dir() + "/specs/sbp/d2_o4.json", 2, {"y"}, Dtype::Float64);
  RunOptions opt;
  opt.size = {100, 9, 1};
  opt.repeat = 1;
  opt.warmup = 0;
  CHECK_THROWS_WITH_AS(run_spec(sbp_ctx(), s, s.choose(), opt), doctest::Contains("9 points along y, but the operator needs at least 10"), BindingError);
}
