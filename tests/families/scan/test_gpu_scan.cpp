// GPU: scans against the CPU reference in double precision, outputs poisoned
// with NaN first: every shipped spec, every axis, both dtypes, inclusive and
// exclusive, forward and reverse, at sizes that cut blocks and segments
// unevenly, at 512^3, and along one 2^28-value row (look-back over tens of
// thousands of segments); log-cumsum-exp on inputs with -inf entries.
#include <cmath>
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "gpu_support.hpp"
#include "test_support.hpp"
#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/scan/scan_reference.hpp"
#include "gpen/families/scan/scan_plan.hpp"

using namespace gpen;

namespace {

Context& scan_ctx() {
  static Context c(0);
  return c;
}

// A scan spec written for the test: `op` with `identity` along `axis`.
Spec scan_spec(int dims, const std::string& axis, const std::string& dtype, bool exclusive, bool reverse,
               const std::string& op = "a + b", const std::string& identity = "0") {
  return load_spec_string(fmt::format(R"({{"name": "t", "kind": "scan", "dtype": "{}", "dims": {},
      "fields": [{{"name": "u", "role": "input"}}, {{"name": "s", "role": "output"}}],
      "scan": {{"axis": "{}", "op": "{}", "identity": {}, "exclusive": {}, "reverse": {}}}}})",
                                      dtype, dims, axis, op, identity, exclusive, reverse));
}

void check_scan(const Spec& s, const std::vector<std::string>& set, std::array<long long, 3> size) {
  INFO("axis " << axis_name(s.scan().axis) << (s.scan().exclusive ? " exclusive" : " inclusive") << (s.scan().reverse ? " reverse" : " forward"));
  gpen::test::check_verified(scan_ctx(), s, set, size);
}

const char* kAxes[] = {"x", "y", "z"};

}  // namespace

TEST_CASE("every shipped scan spec at odd sizes, fp64 and fp32") {
  int runs = 0;
  for (const auto& path : gpen::test::shipped_specs("scan"))
    for (Dtype d : {Dtype::Float64, Dtype::Float32}) {
      const Spec s = load_spec(path, d);
      for (const auto& size : std::vector<std::array<long long, 3>>{{1, 1, 1}, {31, 33, 5}, {1000, 7, 3}, {67, 45, 33}}) {
        std::array<long long, 3> n = size;
        for (int ax = s.dims; ax < 3; ++ax) n[ax] = 1;
        check_scan(s, {}, n);
        ++runs;
      }
    }
  CHECK(runs == 7 * 2 * 4);
}

TEST_CASE("every axis of 1-3-D arrays: inclusive and exclusive, forward and reverse") {
  for (int dims = 1; dims <= 3; ++dims)
    for (int ax = 0; ax < dims; ++ax)
      for (const char* dtype : {"float64", "float32"})
        for (bool exclusive : {false, true})
          for (bool reverse : {false, true}) {
            const Spec s = scan_spec(dims, kAxes[ax], dtype, exclusive, reverse);
            const std::array<long long, 3> size = dims == 1 ? std::array<long long, 3>{4099, 1, 1}
                                                  : dims == 2 ? std::array<long long, 3>{1000, 33, 1}
                                                              : std::array<long long, 3>{67, 45, 33};
            check_scan(s, {}, size);
          }
}

TEST_CASE("other operations: running max and min with infinite identities, products") {
  for (const char* dtype : {"float64", "float32"})
    for (int ax = 0; ax < 3; ++ax) {
      check_scan(scan_spec(3, kAxes[ax], dtype, false, false, "max(a, b)", "\"-inf\""), {}, {67, 45, 33});
      check_scan(scan_spec(3, kAxes[ax], dtype, true, true, "min(a, b)", "\"inf\""), {}, {67, 45, 33});
      check_scan(scan_spec(3, kAxes[ax], dtype, false, false, "a * b", "1"), {}, {31, 33, 5});
    }
}

namespace {

// A log-cumsum-exp on inputs the random workload never holds: uniform values
// times `spread` (a power of two, so still exact in the dtype), about one in
// four -inf (log 0), the first line all -inf. The padding's op(-inf, -inf)
// meets real -inf entries there, and wide spreads put exp() past its range.
void check_logcumsumexp(const Spec& s, const std::vector<std::string>& set, std::array<long long, 3> size, double spread) {
  HostArray in(s.dims, size, 0), got(s.dims, size, 0), want(s.dims, size, 0), scale(s.dims, size, 0);
  fill_random(in, 7, s.dtype);
  const ScanGeometry g = scan_lines(s.dims, s.scan().axis, size);
  for (std::size_t i = 0; i < in.data.size(); ++i) {
    const long long l = static_cast<long long>(i) % g.inner + static_cast<long long>(i) / (g.inner * g.length) * g.inner;
    const bool empty = (static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL) >> 62 == 0;  // one in four, scattered
    in.data[i] = l == 0 || empty ? -HUGE_VAL : in.data[i] * spread;
  }
  DeviceBuffer u(s.dtype, s.dims, size, 0), out(s.dtype, s.dims, size, 0);
  u.upload(in.data);
  out.upload(std::vector<double>(out.elements(), std::nan("")));
  const std::unique_ptr<Kernel> k = make_kernel(s, s.choose(set), scan_ctx());
  k->launch({{"u", &u}, {"s", &out}});
  got.data = out.download();
  reference_scan(s, in, want, scale);
  const Comparison c = compare_scan(s, got, want, scale);
  INFO(to_string(s.dtype) << " axis " << axis_name(s.scan().axis) << (s.scan().exclusive ? " exclusive" : " inclusive")
                          << (s.scan().reverse ? " reverse" : " forward") << " spread " << spread << " size " << size[0] << "x"
                          << size[1] << "x" << size[2]);
  INFO(c.summary());
  CHECK(c.pass);
}

}  // namespace

TEST_CASE("log-cumsum-exp with -inf entries against the CPU reference: every axis, both dtypes, rows chained by look-back") {
  const Spec shipped = load_spec(gpen::test::source_dir() + "/specs/scan/logcumsumexp.json");
  check_logcumsumexp(shipped, {}, {1000, 37, 1}, 1);
  check_logcumsumexp(shipped, {}, {1000, 37, 1}, 1024);
  for (const char* dtype : {"float64", "float32"})
    for (int ax = 0; ax < 3; ++ax)
      for (bool exclusive : {false, true}) {
        const Spec s = scan_spec(3, kAxes[ax], dtype, exclusive, exclusive, "logaddexp(a, b)", "\"-inf\"");
        check_logcumsumexp(s, {}, {67, 45, 33}, 1);
        check_logcumsumexp(s, {}, {67, 45, 33}, 1024);
      }
  for (const char* dtype : {"float64", "float32"}) {
    const Spec row = scan_spec(1, "x", dtype, false, false, "logaddexp(a, b)", "\"-inf\"");
    check_logcumsumexp(row, {"values_per_thread=8", "vector_x=2"}, {300001, 1, 1}, 1);
  }
}

TEST_CASE("block shapes, values a thread and vector widths that cut rows and segments unevenly") {
  for (const char* dtype : {"float64", "float32"})
    for (bool exclusive : {false, true}) {
      const Spec rows2 = scan_spec(2, "x", dtype, exclusive, exclusive);
      for (const char* bx : {"32", "64", "256", "512"})
        for (const char* v : {"1", "2", "16"})
          check_scan(rows2, {fmt::format("block_x={}", bx), fmt::format("values_per_thread={}", v), "vector_x=1",
                             std::string(bx) == "512" ? "block_y=1" : std::string(bx) == "256" ? "block_y=2" : "block_y=4"}, {3001, 7, 1});
      check_scan(rows2, {"values_per_thread=16", "vector_x=2"}, {3002, 5, 1});  // vector runs
      check_scan(rows2, {"values_per_thread=16", "vector_x=2"}, {3001, 5, 1});  // rows not whole vectors
      const Spec cols = scan_spec(3, "z", dtype, exclusive, !exclusive);
      for (const auto& block : std::vector<std::vector<std::string>>{{"block_x=32", "block_y=32"}, {"block_x=256", "block_y=1"}, {"block_x=64", "block_y=4"}})
        for (const char* v : {"1", "16"})
          for (const char* w : {"1", "2"}) {
            std::vector<std::string> set = block;
            set.push_back(fmt::format("values_per_thread={}", v));
            set.push_back(fmt::format("vector_x={}", w));
            check_scan(cols, set, {67, 5, 33});
          }
      check_scan(cols, {"vector_x=2"}, {68, 5, 33});
    }
}

TEST_CASE("groups stacked along a strided axis: stretches that cut the axis unevenly, short axes") {
  // The host stacks as many groups as the axis fills (1, 4, 8 ... 32 of
  // them for these lengths) and sets the rest side by side across 37
  // columns, which no block width divides.
  int runs = 0;
  for (const char* dtype : {"float64", "float32"})
    for (const char* axis : {"y", "z"})
      for (bool exclusive : {false, true}) {
        const Spec s = scan_spec(3, axis, dtype, exclusive, exclusive);
        for (long long n : {1LL, 17LL, 64LL, 300LL, 1000LL})
          for (const auto& set : std::vector<std::vector<std::string>>{{"block_x=32", "block_y=32", "values_per_thread=16", "vector_x=1"},
                                                                        {"block_x=32", "block_y=16", "values_per_thread=4", "vector_x=2"},
                                                                        {"block_x=64", "block_y=4", "values_per_thread=1", "vector_x=2"}}) {
            check_scan(s, set, std::string(axis) == "y" ? std::array<long long, 3>{37, n, 3} : std::array<long long, 3>{37, 3, n});
            ++runs;
          }
      }
  CHECK(runs == 2 * 2 * 2 * 5 * 3);
}

TEST_CASE("tiles spread across a plane in runs: wide planes, ragged runs and tails, every stripe count") {
  // Planes of 60200, 999000 and 65536 columns hold hundreds of tiles, so the
  // host spreads their runs (ScanGeometry::tile_of_block); no run length
  // divides them, so each plane ends in a partial run left in place.
  int runs = 0;
  for (const char* dtype : {"float64", "float32"})
    for (bool exclusive : {false, true})
      for (const char* stripes : {"stripes=1", "stripes=4", "stripes=16", "stripes=64"}) {
        const Spec z = scan_spec(3, "z", dtype, exclusive, !exclusive);
        for (const auto& size : std::vector<std::array<long long, 3>>{{301, 200, 37}, {1000, 999, 5}}) {
          check_scan(z, {stripes}, size);
          check_scan(z, {stripes, "block_x=64", "block_y=4", "values_per_thread=4", "vector_x=1"}, size);
          runs += 2;
        }
        const Spec y = scan_spec(3, "y", dtype, exclusive, exclusive);
        check_scan(y, {stripes}, {65536, 40, 3});
        ++runs;
      }
  CHECK(runs == 2 * 2 * 4 * 5);
}

TEST_CASE("chained columns: ragged layers and column groups, deep chains, every plane its own carries") {
  // Layers of 8 steps (cumsum_z.json's), of 16, and of 1 step in tiles of
  // 64 columns (up to 1000 layers a column); sizes that no layer or tile
  // divides; along y several planes, each with its own carries.
  int runs = 0;
  for (const char* dtype : {"float64", "float32"})
    for (bool exclusive : {false, true}) {
      const Spec z = scan_spec(3, "z", dtype, exclusive, !exclusive);
      const Spec y = scan_spec(3, "y", dtype, exclusive, exclusive);
      for (const auto& set : std::vector<std::vector<std::string>>{{"chained=1", "block_y=16", "values_per_thread=8"},
                                                                   {"chained=1", "values_per_thread=16", "stripes=1"},
                                                                   {"chained=1", "block_x=64", "block_y=1", "values_per_thread=1", "vector_x=1"}}) {
        for (const auto& size : std::vector<std::array<long long, 3>>{{301, 200, 37}, {67, 45, 33}, {37, 3, 1000}, {5, 7, 8}}) {
          check_scan(z, set, size);
          ++runs;
        }
        check_scan(y, set, {1001, 33, 7});
        check_scan(y, set, {65536, 40, 3});
        runs += 2;
      }
      // Carries that would take more than an eighth of this GPU's L2: the
      // chained unit walks the axis instead.
      const std::array<long long, 3> wide{1000, 1000, 20};  // 16 MB of carries in float64, 8 MB in float32
      const ScanPlan p = plan_scan(z, z.choose({"chained=1"}));
      REQUIRE(p.carry_bytes(p.geometry(3, 2, wide)) == 0);
      CHECK(p.geometry(3, 2, wide, scan_ctx().info().l2_bytes).layers == 1);
      check_scan(z, {"chained=1"}, wide);
      ++runs;
    }
  CHECK(runs == 2 * 2 * (3 * 6 + 1));
}

TEST_CASE("a scan kernel launched again on other inputs takes nothing its last launch left in its status") {
  // The second launch finds a status or carry from the first at every slot,
  // with the tags a launch uses but another epoch: taking one would add the
  // first input's sums to the second's.
  const std::string specs = gpen::test::source_dir() + "/specs/scan/";
  struct Case {
    std::string spec;
    std::vector<std::string> set;
    std::array<long long, 3> size;
  };
  for (const Case& c : std::vector<Case>{{"cumsum_z.json", {"chained=1"}, {301, 200, 37}},
                                         {"cumsum_z.json", {"chained=1", "block_x=64", "block_y=1", "values_per_thread=1"}, {67, 45, 33}},
                                         {"cumsum_1d.json", {}, {3000001, 1, 1}}}) {
    const Spec s = load_spec(specs + c.spec);
    const std::unique_ptr<Kernel> k = make_kernel(s, s.choose(c.set), scan_ctx());
    WorkloadOptions first, second;
    first.seed = 1;
    second.seed = 2;
    Workload a(scan_ctx(), s, c.size, first), b(scan_ctx(), s, c.size, second);
    Stream stream;
    k->launch(a.bindings(), a.params(), stream.get());
    b.poison_outputs(stream.get());
    k->launch(b.bindings(), b.params(), stream.get());
    stream.synchronize();
    const Comparison r = b.verify_on_cpu();
    INFO(c.spec << " " << c.size[0] << "x" << c.size[1] << "x" << c.size[2]);
    INFO(r.summary());
    CHECK(r.pass);
  }
}

TEST_CASE("both mappings of a warp's values onto its lanes: striped and runs, uneven rows and segments") {
  int runs = 0;
  for (const char* dtype : {"float64", "float32"})
    for (bool exclusive : {false, true})
      for (const char* striped : {"striped=0", "striped=1"}) {
        // Short rows: several per block, a segment each or a few.
        const Spec rows2 = scan_spec(2, "x", dtype, exclusive, exclusive);
        for (const char* bx : {"32", "256"})
          for (const char* v : {"1", "2", "16"})
            for (const char* w : {"1", "2"}) {
              if (std::string(v) == "1" && std::string(w) == "2") continue;  // vector_x must divide values_per_thread
              for (long long nx : {3001LL, 3002LL}) {
                check_scan(rows2, {striped, fmt::format("block_x={}", bx), fmt::format("values_per_thread={}", v), fmt::format("vector_x={}", w)}, {nx, 7, 1});
                ++runs;
              }
            }
        // One long row: many segments chained by the look-back, a ragged last one.
        const Spec row = scan_spec(1, "x", dtype, exclusive, !exclusive);
        for (long long n : {300001LL, 300002LL}) {
          check_scan(row, {striped, "values_per_thread=8", "vector_x=2"}, {n, 1, 1});
          ++runs;
        }
      }
  CHECK(runs == 2 * 2 * 2 * (2 * 5 * 2 + 2));
}

TEST_CASE("repeated launches reuse the look-back status: every launch is right") {
  const Spec s = scan_spec(1, "x", "float64", false, false);
  Workload w(scan_ctx(), s, {1000003, 1, 1});
  const auto k = make_kernel(s, s.choose({"values_per_thread=2"}), scan_ctx());
  for (int r = 0; r < 4; ++r) {
    w.poison_outputs();
    k->launch(w.bindings(), w.params());
    const Comparison c = w.verify_on_cpu();
    INFO("launch " << r << ": " << c.summary());
    CHECK(c.pass);
  }
  // Another shape on the same kernel: the status is laid out anew.
  Workload w2(scan_ctx(), s, {5000011, 1, 1});
  w2.poison_outputs();
  k->launch(w2.bindings(), w2.params());
  CHECK(w2.verify_on_cpu().pass);
}

TEST_CASE("512^3 along every axis: fp64 inclusive, fp32 exclusive") {
  for (int ax = 0; ax < 3; ++ax) {
    check_scan(scan_spec(3, kAxes[ax], "float64", false, false), {}, {512, 512, 512});
    check_scan(scan_spec(3, kAxes[ax], "float32", true, false), {}, {512, 512, 512});
  }
}

TEST_CASE("one row of 2^28 values, fp32 and fp64") {
  for (const char* dtype : {"float32", "float64"}) check_scan(scan_spec(1, "x", dtype, false, false), {}, {1LL << 28, 1, 1});
}
