// Reductions without a GPU: what the spec says (results' shape and dtype,
// errors with their pointers), how a launch is cut, and the CPU reference
// against a direct loop.
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "test_support.hpp"
#include "gpen/families/reduce/reduce_plan.hpp"
#include "gpen/families/reduce/reduce_reference.hpp"

using namespace gpen;
using gpen::test::spec_error_at;

namespace {

std::string shipped(const std::string& name) { return gpen::test::source_dir() + "/specs/reduce/" + name + ".json"; }

// A reduction of u (3-D unless `dims`) with `reduce` as the output's "reduce" and `extra` in the root.
std::string reduce_json(const std::string& reduce, const std::string& extra = "", const std::string& dtype = "float64", int dims = 3,
                        const std::string& fields = R"([{"name": "u", "role": "input"}, {"name": "r", "role": "output"}])") {
  return fmt::format(R"({{"name": "t", "kind": "reduce", "dtype": "{}", "dims": {},
  "fields": {},
  "outputs": [{{"field": "r", "expr": "u", "reduce": {}}}]{}}})",
                     dtype, dims, fields, reduce, extra.empty() ? "" : ",\n  " + extra);
}

}  // namespace

TEST_CASE("reduction results: the inputs' shape with the reduced axes of length 1, in the accumulator's dtype") {
  const Spec me = load_spec(shipped("mass_energy"));
  for (const auto* f : me.output_fields()) {
    CHECK(field_dtype(me, *f) == Dtype::Float64);  // float32 inputs, "accumulate": "float64"
    CHECK(field_shape(*f, {5, 6, 7}) == std::array<long long, 3>{1, 1, 1});
  }
  CHECK(field_dtype(me, *me.inputs()[0]) == Dtype::Float32);
  CHECK(field_shape(*me.inputs()[0], {5, 6, 7}) == std::array<long long, 3>{5, 6, 7});
  const Spec cs = load_spec(shipped("column_sum"));
  CHECK(field_shape(*cs.output_fields()[0], {5, 6, 7}) == std::array<long long, 3>{5, 6, 1});
  const Spec rx = load_spec(shipped("row_extrema"));
  CHECK(field_dtype(rx, *rx.output_fields()[1]) == Dtype::Float32);  // float32 kept
  CHECK(field_shape(*rx.output_fields()[1], {5, 6, 7}) == std::array<long long, 3>{1, 6, 7});
  const Spec lse = load_spec(shipped("logsumexp_y"));
  CHECK(field_shape(*lse.output_fields()[0], {5, 6, 1}) == std::array<long long, 3>{5, 1, 1});
  CHECK(lse.outputs[0].op->op_text == "logaddexp(a, b)");
  CHECK(std::isinf(lse.outputs[0].op->identity));
  // Sum by default; min and max by name.
  const Spec s = load_spec_string(R"({"name": "t", "kind": "reduce", "dtype": "float64", "dims": 1,
    "fields": [{"name": "u", "role": "input"}, {"name": "r", "role": "output"}], "outputs": [{"field": "r", "expr": "u"}]})");
  CHECK(s.outputs[0].op->op_text == "a + b");
  CHECK(s.outputs[0].op->identity == 0);
}

TEST_CASE("reduction errors name the pointer and what was expected") {
  auto message = [](const SpecError& e) { return std::string(e.what()); };
  SUBCASE("an axis twice") {
    const SpecError e = spec_error_at(reduce_json("\"sum\"", R"("reduce": {"axes": ["x", "y", "x"]})"), "/reduce/axes/2");
    CHECK(message(e).find("axis x is listed twice") != std::string::npos);
  }
  SUBCASE("an axis the spec lacks") {
    const SpecError e = spec_error_at(reduce_json("\"sum\"", R"("reduce": {"axes": ["z"]})", "float64", 2), "/reduce/axes/0");
    CHECK(message(e).find("one of: x, y") != std::string::npos);
  }
  SUBCASE("no axes") { spec_error_at(reduce_json("\"sum\"", R"("reduce": {"axes": []})"), "/reduce/axes"); }
  SUBCASE("float64 inputs accumulated in float32") {
    const SpecError e = spec_error_at(reduce_json("\"sum\"", R"("reduce": {"accumulate": "float32"})"), "/reduce/accumulate");
    CHECK(message(e).find("float32 accumulation of float64 inputs") != std::string::npos);
  }
  SUBCASE("a float32 spec read as float64 combines in float64") {
    const std::string json = reduce_json("\"sum\"", R"("reduce": {"accumulate": "float32"})", "float32");
    CHECK(!load_spec_string(json).reduce().accumulate64);
    // --dtype float64 of the same spec: no error, combined in float64.
    const Spec wide = parse_spec(std::make_shared<JsonSource>(JsonSource::from_string(json, "t.json")), Dtype::Float64);
    CHECK(wide.reduce().accumulate64);
    CHECK(field_dtype(wide, *wide.output_fields()[0]) == Dtype::Float64);
  }
  SUBCASE("an identity beyond float32 is one of float32 values combined in float64, not of float32 combined in float32") {
    const std::string op = R"J({"op": "max(a, b)", "identity": -1e39})J";
    CHECK(load_spec_string(reduce_json(op, R"("reduce": {"accumulate": "float64"})", "float32")).outputs[0].op->identity == -1e39);
    const SpecError e = spec_error_at(reduce_json(op, "", "float32"), "/outputs/0/reduce/identity");
    CHECK(message(e).find("beyond the range of float32") != std::string::npos);
  }
  SUBCASE("a misspelt key") {
    const SpecError e = spec_error_at(reduce_json("\"sum\"", R"("reduce": {"axis": ["x"]})"), "/reduce/axis");
    CHECK(message(e).find("did you mean 'axes'") != std::string::npos);
  }
  SUBCASE("a result with ghost zones") {
    const SpecError e =
        spec_error_at(reduce_json("\"sum\"", "", "float64", 3, R"([{"name": "u", "role": "input"}, {"name": "r", "role": "output", "ghost": 1}])"),
                      "/fields/1/ghost");
    CHECK(message(e).find("no ghost zones (0) on a reduction's result") != std::string::npos);
  }
  SUBCASE("an operation by an unknown name") {
    const SpecError e = spec_error_at(reduce_json("\"mean\""), "/outputs/0/reduce");
    CHECK(message(e).find("one of: sum, min, max") != std::string::npos);
  }
  SUBCASE("an operation that is no name and no object") {
    const SpecError e = spec_error_at(reduce_json("3"), "/outputs/0/reduce");
    CHECK(message(e).find("found an integer") != std::string::npos);
    CHECK(message(e).find("{\"op\": \"a * b\", \"identity\": 1}") != std::string::npos);
  }
  SUBCASE("an operation whose identity is none") {
    const SpecError e = spec_error_at(reduce_json(R"J({"op": "a * b", "identity": 0})J"), "/outputs/0/reduce/identity");
    CHECK(message(e).find("0 is not an identity of 'a * b'") != std::string::npos);
  }
  SUBCASE("an operation that is not associative") {
    const SpecError e = spec_error_at(reduce_json(R"J({"op": "a - b", "identity": 0})J"), "/outputs/0/reduce/op");
    CHECK(message(e).find("is not associative") != std::string::npos);
  }
  SUBCASE("an operation without its identity") { spec_error_at(reduce_json(R"({"op": "a * b"})"), "/outputs/0/reduce"); }
  SUBCASE("an expression of the reduced values is not an input's") {
    const SpecError e = spec_error_at(reduce_json(R"({"op": "a * u", "identity": 1})"), "/outputs/0/reduce/op");
    CHECK(message(e).find("unknown identifier 'u'") != std::string::npos);
  }
}

TEST_CASE("reduction plan: chunks of rows from the size and the tunables alone") {
  const Spec sum = load_spec(shipped("sum3d"));
  const ReducePlan p = plan_reduce(sum, sum.choose());
  CHECK(p.block_x == 128);
  CHECK(p.block_y == 4);
  CHECK(p.points_per_thread == 64);
  ReduceGeometryArgs g = p.geometry({512, 512, 512});
  CHECK(g.x_blocks == 1);
  CHECK(g.kept_rows == 1);
  CHECK(g.reduced_rows == 512 * 512);
  CHECK(g.rows_per_chunk == 128 * 4 * 64 / 512);  // threads x points_per_thread points in whole rows
  CHECK(g.chunks == 512 * 512 / 64);
  CHECK(p.launch(g).grid[0] == 4096);
  CHECK(p.final_launch(g).grid[0] == 1);  // one result point: one warp
  g = p.geometry({37, 21, 19});  // one chunk holds every row
  CHECK(g.rows_per_chunk == 21 * 19);
  CHECK(g.chunks == 1);
  g = p.geometry({37, 210, 190});
  CHECK(g.rows_per_chunk == (128 * 4 * 64 + 36) / 37);
  CHECK(g.chunks == (210 * 190 + g.rows_per_chunk - 1) / g.rows_per_chunk);
  // z alone, x kept: enough blocks of columns without partials.
  const Spec col = load_spec(shipped("column_sum"));
  const ReducePlan c = plan_reduce(col, col.choose());
  g = c.geometry({512, 512, 512});
  CHECK(g.x_blocks == 512 / c.block_x);
  CHECK(g.kept_rows == 512);
  CHECK(g.chunks == 1);
  CHECK(g.rows_per_chunk == 512);
  g = c.geometry({40, 3, 1000});  // few columns: the z rows cut into chunks
  CHECK(g.x_blocks == 2);
  CHECK(g.kept_rows == 3);
  CHECK(g.chunks > 1);
  CHECK(c.result_points({40, 3, 1000}) == 120);
  // x alone: a block a row.
  const Spec rows = load_spec(shipped("row_extrema"));
  CHECK(rows.find_tunable("block_y")->values.size() == 1);
  g = plan_reduce(rows, rows.choose()).geometry({100, 30, 20});
  CHECK(g.kept_rows == 600);
  CHECK(g.reduced_rows == 1);
  CHECK(g.chunks == 1);
  // x reduced with long rows: rows cut into segments of a chunk each, so a
  // 1-D sum takes many blocks, and their partials are combined at the end.
  const Spec one = load_spec_string(reduce_json("\"sum\"", "", "float64", 1));
  const ReducePlan p1 = plan_reduce(one, one.choose());
  g = p1.geometry({1000000, 1, 1});
  CHECK(p1.threads() == 64);  // x alone: 64 threads a row
  CHECK(g.x_segment == 64 * 64);
  CHECK(g.x_blocks == (1000000 + 4095) / 4096);
  CHECK(g.chunks == 1);
  CHECK(g.partials == g.x_blocks);
  CHECK(p1.launch(g).grid[0] == g.x_blocks);
  g = p1.geometry({1000, 1, 1});  // one short row: one block, no partials
  CHECK(g.x_blocks == 1);
  CHECK(g.partials == 1);
  const Spec two = load_spec_string(reduce_json("\"sum\"", "", "float64", 2));
  g = plan_reduce(two, two.choose()).geometry({1 << 20, 8, 1});
  CHECK(g.x_blocks == 32);
  CHECK(g.rows_per_chunk == 1);
  CHECK(g.chunks == 8);
  CHECK(g.partials == 256);
  // The rule of enough blocks: 2047 blocks of columns still cut their rows, 2048 do not.
  g = c.geometry({64, 1023, 1000});
  CHECK(g.x_blocks * g.kept_rows == 2046);
  CHECK(g.chunks == 2);
  g = c.geometry({64, 1024, 1000});
  CHECK(g.x_blocks * g.kept_rows == 2048);
  CHECK(g.chunks == 1);
  CHECK(g.partials == 1);
  // Threads across rows where a result point has one row: refused.
  const Spec xonly = load_spec_string(reduce_json("\"sum\"", R"("reduce": {"axes": ["x"]}, "tunables": {"block_y": {"values": [2]}})"));
  CHECK_THROWS_WITH(generate(xonly, xonly.choose()), doctest::Contains("each result point has one row"));
  // Blocks are whole warps (they combine by shuffles).
  const Spec odd = load_spec_string(reduce_json("\"sum\"", R"("tunables": {"block_x": {"values": [48]}, "block_y": {"values": [1]}})"));
  CHECK_THROWS_WITH(generate(odd, odd.choose()), doctest::Contains("whole warps"));
  CHECK_THROWS_WITH(generate(sum, sum.choose({"block_x=512", "block_y=4"})), doctest::Contains("1 to 1024 threads"));
}

TEST_CASE("reduction reference: every result against a direct loop, along every set of axes") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  const std::array<long long, 3> n{5, 4, 3};
  HostArray u(3, n, 1);
  for (auto& v : u.data) v = dist(rng);
  for (unsigned axes = 1; axes < 8; ++axes) {
    std::vector<std::string> names;
    for (int a = 0; a < 3; ++a)
      if (axes >> a & 1u) names.push_back(fmt::format("\"{}\"", "xyz"[a]));
    const Spec s = load_spec_string(fmt::format(R"J({{"name": "t", "kind": "reduce", "dtype": "float64", "dims": 3,
      "fields": [{{"name": "u", "role": "input", "ghost": 1}}, {{"name": "s", "role": "output"}}, {{"name": "lo", "role": "output"}},
                 {{"name": "l", "role": "output"}}],
      "operators": [{{"name": "D1", "derivative": 1, "order": 2}}],
      "outputs": [{{"field": "s", "expr": "u * u + D1(u, x)", "reduce": "sum"}}, {{"field": "lo", "expr": "u", "reduce": "min"}},
                  {{"field": "l", "expr": "u", "reduce": {{"op": "logaddexp(a, b)", "identity": "-inf"}}}}],
      "reduce": {{"axes": [{}]}}}})J",
                                                fmt::join(names, ", ")));
    CAPTURE(axes);
    std::vector<HostArray> want, scale;
    for (const auto* f : s.output_fields()) want.emplace_back(3, field_shape(*f, n), 0);
    reference_reduce(s, {&u}, {}, n, want, scale);
    REQUIRE(scale.size() == 3);
    const auto shape = field_shape(*s.output_fields()[0], n);
    for (long long k = 0; k < shape[2]; ++k)
      for (long long j = 0; j < shape[1]; ++j)
        for (long long i = 0; i < shape[0]; ++i) {
          double sum = 0, lo = HUGE_VAL, lse = -HUGE_VAL;
          for (long long z = 0; z < n[2]; ++z)
            for (long long y = 0; y < n[1]; ++y)
              for (long long x = 0; x < n[0]; ++x) {
                if ((!(axes & 1u) && x != i) || (!(axes & 2u) && y != j) || (!(axes & 4u) && z != k)) continue;
                const double v = u.at(x, y, z);
                sum += v * v + 0.5 * (u.at(x + 1, y, z) - u.at(x - 1, y, z));
                lo = std::min(lo, v);
                lse = std::max(lse, v) + std::log1p(std::exp(-std::fabs(lse - v)));
              }
          CHECK(want[0].at(i, j, k) == doctest::Approx(sum).epsilon(1e-12));
          CHECK(want[1].at(i, j, k) == lo);
          CHECK(want[2].at(i, j, k) == doctest::Approx(lse).epsilon(1e-12));
          CHECK(scale[0].at(i, j, k) > 0);
          // A minimum rounds nothing but a value: its scale is the largest
          // magnitude met (no sqrt(n) growth), at least |lo|, at most 2.
          CHECK(scale[1].at(i, j, k) >= std::fabs(lo));
          CHECK(scale[1].at(i, j, k) <= 2.0);
        }
  }
}

TEST_CASE("reduction comparison: within sqrt(n) eps of the scale passes, beyond or unwritten fails") {
  const Spec s = load_spec(shipped("sum3d"));
  HostArray want(3, {1, 1, 1}, 0), scale(3, {1, 1, 1}, 0), got(3, {1, 1, 1}, 0);
  want.data[0] = 10.0;
  scale.data[0] = 100.0;
  const double bound = kReduceErrorBound * std::numeric_limits<double>::epsilon() * 100.0;
  got.data[0] = 10.0 + 0.5 * bound;
  CHECK(compare_reduce(s, got, want, scale).pass);
  got.data[0] = 10.0 + 2 * bound;
  CHECK(!compare_reduce(s, got, want, scale).pass);
  CHECK(compare_reduce(s, got, want, scale).bound_ratio == doctest::Approx(2.0));
  got.data[0] = std::nan("");
  const Comparison c = compare_reduce(s, got, want, scale);
  CHECK(!c.pass);
  CHECK(c.non_finite == 1);
  got.data[0] = 10.0;
  CHECK(compare_reduce(s, got, want, scale).pass);
}
