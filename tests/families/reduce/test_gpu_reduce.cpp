// GPU: reductions against the CPU reference in double precision, results
// poisoned with NaN first: every shipped spec in both dtypes and several
// block shapes, chunk sizes and batches; every set of axes with a sum, a
// min and a custom operation, at sizes that cut rows, chunks and blocks
// unevenly; 512^3; and the same bits launch after launch, also beside
// another stream's kernels.
#include <cmath>
#include <cstring>
#include <tuple>

#include <fmt/format.h>

#include "gpu_support.hpp"
#include "test_support.hpp"
#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/workload.hpp"
#include "gpen/families/reduce/reduce_plan.hpp"

using namespace gpen;

namespace {

Context& reduce_ctx() {
  static Context c(0);
  return c;
}

void check_reduce(const Spec& s, const std::vector<std::string>& set, std::array<long long, 3> size) {
  for (int ax = s.dims; ax < 3; ++ax) size[ax] = 1;
  gpen::test::check_verified(reduce_ctx(), s, set, size);
}

// A 3-D float32 spec of u (ghost 1) whose results are a sum with a
// derivative, a min and a log-sum-exp along `axes` (JSON strings).
Spec axes_spec(const std::string& axes, const std::string& dtype, const std::string& accumulate) {
  return load_spec_string(fmt::format(R"J({{"name": "axes", "kind": "reduce", "dtype": "{}", "dims": 3,
      "fields": [{{"name": "u", "role": "input", "ghost": 1}}, {{"name": "s", "role": "output"}}, {{"name": "lo", "role": "output"}},
                 {{"name": "l", "role": "output"}}],
      "operators": [{{"name": "D1", "derivative": 1, "order": 2}}],
      "outputs": [{{"field": "s", "expr": "u * u + D1(u, y)", "reduce": "sum"}}, {{"field": "lo", "expr": "u", "reduce": "min"}},
                  {{"field": "l", "expr": "u", "reduce": {{"op": "logaddexp(a, b)", "identity": "-inf"}}}}],
      "reduce": {{"axes": [{}], "accumulate": "{}"}}}})J",
                                      dtype, axes, accumulate));
}

// The results' bytes of one launch of `k` on set 0 of `w`.
std::vector<std::vector<double>> results_of(const Kernel& k, Workload& w, const Spec& s, CUstream stream) {
  w.poison_outputs(stream);
  k.launch(w.bindings(0), w.params(), stream);
  GPEN_CU(cuStreamSynchronize(stream), "waiting for the reduction");
  std::vector<std::vector<double>> out;
  for (const auto* f : s.output_fields()) out.push_back(w.bindings(0).at(f->name)->download());
  return out;
}

bool same_bits(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].size() != b[i].size() || std::memcmp(a[i].data(), b[i].data(), a[i].size() * sizeof(double)) != 0) return false;
  return true;
}

}  // namespace

TEST_CASE("every shipped reduction spec at odd sizes, float64 and float32, several shapes of blocks and chunks") {
  int runs = 0;
  const auto specs = gpen::test::shipped_specs("reduce");
  CHECK(specs.size() >= 10);
  for (const auto& path : specs)
    for (Dtype d : {Dtype::Float64, Dtype::Float32}) {
      const Spec s = load_spec(path, d);
      const std::vector<std::vector<std::string>> sets = {{}, {"block_x=32", "points_per_thread=4", "batch=1"}, {"block_x=256", "block_y=1", "batch=8"},
                                                          {"block_x=64", "points_per_thread=8"}};
      for (const auto& set : sets)
        for (const auto& size : std::vector<std::array<long long, 3>>{{1, 1, 1}, {37, 21, 19}, {67, 45, 33}, {1000, 7, 3}}) {
          check_reduce(s, set, size);
          ++runs;
        }
    }
  CHECK(runs == static_cast<int>(specs.size()) * 2 * 4 * 4);
}

TEST_CASE("every set of axes: sums with a derivative, minima and a log-sum-exp, float32 combined in float32 and float64") {
  const std::vector<std::string> all = {R"("x")", R"("y")", R"("z")", R"("x", "y")", R"("x", "z")", R"("y", "z")", R"("x", "y", "z")"};
  for (const auto& axes : all)
    for (const char* acc : {"float32", "float64"}) {
      const Spec s = axes_spec(axes, "float32", acc);
      for (const auto& set : std::vector<std::vector<std::string>>{{}, {"block_x=32", "points_per_thread=4"}, {"block_y=8", "batch=2"}})
        for (const auto& size : std::vector<std::array<long long, 3>>{{37, 21, 19}, {129, 3, 200}, {5, 300, 7}}) {
          if (s.find_tunable("block_y")->values.size() == 1 && set.size() == 2 && set[0] == "block_y=8") continue;
          INFO("axes " << axes << ", accumulate " << acc);
          check_reduce(s, set, size);
        }
    }
}

TEST_CASE("1-D and 2-D reductions: long rows cut into segments, along x, y and both") {
  for (const char* dtype : {"float64", "float32"})
    for (const auto& [dims, axes, size] : std::vector<std::tuple<int, std::string, std::array<long long, 3>>>{
             {1, R"("x")", {1000003, 1, 1}}, {1, R"("x")", {77, 1, 1}}, {2, R"("x", "y")", {300001, 7, 1}}, {2, R"("x")", {100003, 5, 1}},
             {2, R"("y")", {37, 9001, 1}}, {2, R"("x", "y")", {45, 37, 1}}}) {
      const Spec s = load_spec_string(fmt::format(R"J({{"name": "d{}", "kind": "reduce", "dtype": "{}", "dims": {},
          "fields": [{{"name": "u", "role": "input"}}, {{"name": "s", "role": "output"}}, {{"name": "m", "role": "output"}}],
          "outputs": [{{"field": "s", "expr": "u * u", "reduce": "sum"}}, {{"field": "m", "expr": "u", "reduce": "max"}}],
          "reduce": {{"axes": [{}], "accumulate": "float64"}}}})J",
                                                  dims, dtype, dims, axes));
      INFO(dims << "-D along " << axes);
      check_reduce(s, {}, size);
      check_reduce(s, {"block_x=32", "points_per_thread=4"}, size);
    }
}

TEST_CASE("a float64 sum and a maximum over 512^3, against the CPU") {
  check_reduce(load_spec(gpen::test::source_dir() + "/specs/reduce/sum3d.json"), {}, {512, 512, 512});
  check_reduce(load_spec(gpen::test::source_dir() + "/specs/reduce/cfl_speed.json"), {}, {512, 512, 512});
}

TEST_CASE("the same bits launch after launch, and beside another stream's kernels") {
  Context& ctx = reduce_ctx();
  for (const char* name : {"sum3d", "mass_energy", "column_sum"}) {
    const Spec s = load_spec(gpen::test::source_dir() + "/specs/reduce/" + name + ".json");
    // Sizes whose result points have several partials each.
    const std::array<long long, 3> size = std::string(name) == "column_sum" ? std::array<long long, 3>{64, 8, 1500} : std::array<long long, 3>{301, 203, 107};
    Workload w(ctx, s, size);
    const auto k = make_kernel(s, s.choose(), ctx);
    REQUIRE(k->source().plan_as<ReducePlan>().geometry(size).partials > 1);
    Stream mine, other;
    const auto first = results_of(*k, w, s, mine.get());
    // Another stream keeps the GPU busy with the same kernel on a second
    // workload, so this one's blocks run beside others'.
    Workload busy(ctx, s, size, WorkloadOptions{{}, 999});
    const auto k2 = make_kernel(s, s.choose(), ctx);
    for (int r = 0; r < 5; ++r) {
      for (int b = 0; b < 3; ++b) k2->launch(busy.bindings(0), busy.params(), other.get());
      CHECK_MESSAGE(same_bits(first, results_of(*k, w, s, mine.get())), name << ": launch " << r + 1 << " gave other bits");
    }
    GPEN_CU(cuStreamSynchronize(other.get()), "waiting for the other stream");
  }
}

TEST_CASE("minima and maxima of a field are exact; a result reaches the host in the caller's stream") {
  Context& ctx = reduce_ctx();
  const Spec rows = load_spec(gpen::test::source_dir() + "/specs/reduce/row_extrema.json");
  const RunReport r = gpen::test::check_verified(ctx, rows, {}, {333, 17, 9});
  CHECK(r.check->max_abs == 0);  // the smallest and largest value of each row, bit for bit
  // The float64 sum of 301 x 203 x 107 points, its partials combined by the
  // final kernel, copied to the host in the launch's stream.
  const Spec sum = load_spec(gpen::test::source_dir() + "/specs/reduce/sum3d.json");
  Workload w(ctx, sum, {301, 203, 107});
  const auto k = make_kernel(sum, sum.choose(), ctx);
  Stream stream;
  w.poison_outputs(stream.get());
  k->launch(w.bindings(0), w.params(), stream.get());
  double host = std::nan("");
  w.bindings(0).at("total")->copy_to_host_async(&host, stream.get());
  stream.synchronize();
  CHECK(host == w.bindings(0).at("total")->download().at(0));
  CHECK(w.verify_on_cpu().pass);
}

TEST_CASE("a kernel made from a temporary spec owns it") {
  Context& ctx = reduce_ctx();
  const std::string path = gpen::test::source_dir() + "/specs/reduce/mass_energy.json";
  const auto k = make_kernel(load_spec(path), load_spec(path).choose(), ctx);  // both specs die here
  const Spec s = load_spec(path);
  Workload w(ctx, s, {64, 48, 40});
  w.poison_outputs();
  k->launch(w.bindings(0), w.params());
  CHECK(w.verify_on_cpu().pass);
}
