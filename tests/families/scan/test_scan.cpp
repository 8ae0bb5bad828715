// Scan specs on the CPU: parsing and its errors (pointer, line, column,
// expectation), the checks of the operation, the plan's refusals, the
// generated source and its NVRTC compile, and the CPU reference and
// comparison that the GPU tests rely on.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "gpen/generator/associative_op.hpp"
#include "gpen/families/scan/scan_reference.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/runtime/nvrtc_compiler.hpp"
#include "gpen/families/scan/scan_plan.hpp"
#include "test_nvrtc.hpp"
#include "test_support.hpp"

using namespace gpen;
using gpen::test::spec_error_of;
using gpen::test::with;

namespace {

// One key a line, so that tests can predict lines: "scan" is line 7.
std::string scan_json(const std::string& scan = R"J({"axis": "y", "op": "a + b", "identity": 0})J", int dims = 2) {
  return "{\n"
         "  \"name\": \"t\",\n"
         "  \"kind\": \"scan\",\n"
         "  \"dtype\": \"float64\",\n"
         "  \"dims\": " + std::to_string(dims) + ",\n"
         "  \"fields\": [{\"name\": \"u\", \"role\": \"input\"}, {\"name\": \"s\", \"role\": \"output\"}],\n"
         "  \"scan\": " + scan + "\n"
         "}\n";
}

std::string message(const SpecError& e) { return e.what(); }

}  // namespace

TEST_CASE("a scan spec parses: axis, operation, identity, direction") {
  const Spec s = load_spec_string(scan_json(R"J({"axis": "y", "op": "max(a, b)", "identity": "-inf", "exclusive": true, "reverse": true})J"));
  CHECK(s.kind == "scan");
  CHECK(s.scan().axis == 1);
  CHECK(s.scan().identity == -HUGE_VAL);
  CHECK(s.scan().exclusive);
  CHECK(s.scan().reverse);
  CHECK(apply_op(s.scan(), 2.0, -3.0) == 2.0);
  CHECK(s.find_tunable("strategy") == nullptr);
  CHECK(s.find_tunable("values_per_thread") != nullptr);
}

TEST_CASE("scan errors name the pointer, line and column, and what was expected") {
  SUBCASE("missing identity") {
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "y", "op": "a + b"})J"));
    CHECK(e.pointer() == "/scan");
    CHECK(e.line() == 7);
    CHECK(message(e).find("missing key 'identity'") != std::string::npos);
  }
  SUBCASE("wrong arity") {
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "y", "op": "max(a)", "identity": 0})J"));
    CHECK(e.pointer() == "/scan/op");
    CHECK(e.line() == 7);
    CHECK(e.column() == 32);  // the 'm' of max inside the string
    CHECK(message(e).find("'max' takes 2 arguments, got 1") != std::string::npos);
  }
  SUBCASE("a name that is neither value") {
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "y", "op": "a + c", "identity": 0})J"));
    CHECK(e.pointer() == "/scan/op");
    CHECK(e.column() == 36);
    CHECK(message(e).find("unknown identifier 'c'") != std::string::npos);
    CHECK(message(e).find("a (the running value) and b (the next input): a, b") != std::string::npos);
  }
  SUBCASE("an operation of one value") {
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "y", "op": "2 * a", "identity": 0})J"));
    CHECK(e.pointer() == "/scan/op");
    CHECK(message(e).find("never reads b") != std::string::npos);
  }
  SUBCASE("not associative") {
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "y", "op": "a - b", "identity": 0})J"));
    CHECK(e.pointer() == "/scan/op");
    CHECK(message(e).find("is not associative") != std::string::npos);
    CHECK(message(e).find("an associative operation") != std::string::npos);
  }
  SUBCASE("an identity that is not one") {
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "y", "op": "max(a, b)", "identity": 0})J"));
    CHECK(e.pointer() == "/scan/identity");
    CHECK(message(e).find("0 is not an identity of 'max(a, b)'") != std::string::npos);
    CHECK(message(e).find("\"-inf\" for max(a, b)") != std::string::npos);
  }
  SUBCASE("identity of the wrong type") {
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "y", "op": "a + b", "identity": "zero"})J"));
    CHECK(e.pointer() == "/scan/identity");
    CHECK(message(e).find("a number, or \"inf\" / \"-inf\"") != std::string::npos);
  }
  SUBCASE("an axis the arrays do not have") {
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "z", "op": "a + b", "identity": 0})J"));
    CHECK(e.pointer() == "/scan/axis");
    CHECK(message(e).find("one of: x, y") != std::string::npos);
  }
  SUBCASE("exclusive must be a boolean") {
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "y", "op": "a + b", "identity": 0, "exclusive": 1})J"));
    CHECK(e.pointer() == "/scan/exclusive");
    CHECK(message(e).find("true or false") != std::string::npos);
  }
  SUBCASE("stencil keys do not belong to a scan") {
    const SpecError e = spec_error_of(with(scan_json(), "  \"scan\"", "  \"outputs\": [],\n  \"scan\""));
    CHECK(e.pointer() == "/outputs");
    CHECK(message(e).find("unknown key 'outputs'") != std::string::npos);
  }
  SUBCASE("one input and one output, no ghosts") {
    const SpecError two = spec_error_of(with(scan_json(), R"J({"name": "s", "role": "output"})J", R"J({"name": "s", "role": "output"}, {"name": "w", "role": "output"})J"));
    CHECK(two.pointer() == "/fields");
    CHECK(message(two).find("exactly one input and one output") != std::string::npos);
    const SpecError ghost = spec_error_of(with(scan_json(), R"J("role": "input")J", R"J("role": "input", "ghost": 2)J"));
    CHECK(ghost.pointer() == "/fields/0/ghost");
  }
}

TEST_CASE("the plan refuses tunables a scan layout cannot run") {
  const Spec rows = load_spec_string(scan_json(R"J({"axis": "x", "op": "a + b", "identity": 0})J"));
  CHECK_THROWS_WITH(generate(rows, rows.choose({"vector_x=4"})), doctest::Contains("at most 16 bytes an access"));
  const Spec odd = load_spec_string(with(scan_json(R"J({"axis": "x", "op": "a + b", "identity": 0})J"), "  \"scan\"",
                                          "  \"tunables\": {\"block_x\": {\"values\": [48]}},\n  \"scan\""));
  CHECK_THROWS_WITH(generate(odd, odd.choose()), doctest::Contains("a multiple of 32"));
  CHECK_THROWS_WITH(generate(rows, rows.choose({"values_per_thread=1", "vector_x=2"})), doctest::Contains("does not divide values_per_thread"));
  CHECK_THROWS_WITH(generate(rows, rows.choose({"block_x=512", "block_y=4"})), doctest::Contains("at most 1024 threads"));
  const Spec cols = load_spec_string(scan_json());
  // Columns: block_y stacks groups of threads along the axis.
  CHECK(generate(cols, cols.choose({"block_x=32", "block_y=32"})).source.find("kBlockY = 32;") != std::string::npos);
  CHECK_THROWS_WITH(generate(cols, cols.choose({"block_x=256", "block_y=8"})), doctest::Contains("at most 1024 threads"));
  // The L2 prefetch ahead of a row's tiles: rows only.
  CHECK(generate(rows, rows.choose({"prefetch_tiles=512"})).source.find("kPrefetchTiles = 512;") != std::string::npos);
  CHECK_THROWS_WITH(cols.choose({"prefetch_tiles=256"}), doctest::Contains("not an allowed value"));
  // Striped accesses: rows only; the default of one long row, not of short rows.
  CHECK(generate(rows, rows.choose({"striped=1"})).source.find("kStriped = true;") != std::string::npos);
  CHECK(generate(rows, rows.choose()).source.find("kStriped = false;") != std::string::npos);
  CHECK_THROWS_WITH(cols.choose({"striped=1"}), doctest::Contains("not an allowed value"));
  const Spec one_row = load_spec(gpen::test::source_dir() + "/specs/scan/cumsum_1d.json");
  CHECK(plan_scan(one_row, one_row.choose()).striped);
  // The look-back's delay: rows only; by default on one long row 4000 ns in
  // float32, 2000 ns (and 16 values a thread) in float64.
  CHECK(generate(rows, rows.choose({"lookback_delay=500"})).source.find("kLookbackDelay = 500;") != std::string::npos);
  CHECK(plan_scan(rows, rows.choose()).lookback_delay == 0);
  CHECK(plan_scan(one_row, one_row.choose()).lookback_delay == 4000);
  const Spec one_row64 = load_spec(gpen::test::source_dir() + "/specs/scan/cumsum_1d.json", Dtype::Float64);
  CHECK(plan_scan(one_row64, one_row64.choose()).lookback_delay == 2000);
  CHECK(plan_scan(one_row64, one_row64.choose()).values_per_thread == 16);
  CHECK_THROWS_WITH(cols.choose({"lookback_delay=500"}), doctest::Contains("not an allowed value"));
}

TEST_CASE("the columns layout spreads consecutive runs of tiles across a plane, visiting every tile once") {
  // The walking kernel's tiles (cumsum_z.json chains layers by default).
  const Spec z = load_spec(gpen::test::source_dir() + "/specs/scan/cumsum_z.json");
  const ScanPlan p = plan_scan(z, z.choose({"chained=0"}));
  REQUIRE(p.stripes == 16);
  // 512^3 float64, 32 x 16 threads, 16 groups along: a tile is 32 columns
  // (256 bytes), a run 8 tiles (2 KiB), 1024 runs a plane; 64 shares a
  // factor with 1024, so the spread is 65.
  const ScanGeometry g = p.geometry(3, 2, {512, 512, 512});
  CHECK(g.plane_tiles == 8192);
  CHECK(g.run_tiles == 8);
  CHECK(g.spread == 65);
  CHECK(g.tile_of_block(0) == 0);
  CHECK(g.tile_of_block(7) == 7);
  CHECK(g.tile_of_block(8) == 65 * 8);
  CHECK(g.tile_of_block(9) == 65 * 8 + 1);
  // float32 moves 2 values a thread: the same 256 bytes a tile.
  const Spec z32 = load_spec(gpen::test::source_dir() + "/specs/scan/cumsum_z.json", Dtype::Float32);
  CHECK(plan_scan(z32, z32.choose({"chained=0"})).geometry(3, 2, {512, 512, 512}).run_tiles == 8);
  // Along y of 512^3 a plane has 16 tiles: too few runs to spread.
  const Spec y = load_spec(gpen::test::source_dir() + "/specs/scan/cumsum_y.json");
  CHECK(plan_scan(y, y.choose()).geometry(3, 1, {512, 512, 512}).spread == 1);
  // stripes = 1 keeps the order.
  CHECK(plan_scan(z, z.choose({"chained=0", "stripes=1"})).geometry(3, 2, {512, 512, 512}).spread == 1);
  // Every tile exactly once, ragged tails in place, at sizes no run divides.
  for (long long stripes : {4LL, 16LL, 64LL})
    for (const auto& size : std::vector<std::array<long long, 3>>{{512, 480, 512}, {301, 200, 37}, {1000, 999, 5}, {37, 3, 1000}, {65536, 3, 7}}) {
      const ScanGeometry h = plan_scan(z, z.choose({"chained=0", fmt::format("stripes={}", stripes)})).geometry(3, 2, size);
      INFO(stripes << " " << size[0] << "x" << size[1] << "x" << size[2] << ": " << h.plane_tiles << " tiles, spread " << h.spread);
      std::vector<int> seen(static_cast<std::size_t>(h.plane_tiles), 0);
      for (long long b = 0; b < h.plane_tiles; ++b) {
        const long long t = h.tile_of_block(b);
        REQUIRE(t >= 0);
        REQUIRE(t < h.plane_tiles);
        ++seen[static_cast<std::size_t>(t)];
      }
      CHECK(std::count(seen.begin(), seen.end(), 1) == h.plane_tiles);
      const long long runs = h.plane_tiles / h.run_tiles;
      CHECK((h.spread > 1) == (runs >= 2 * stripes));
      CHECK(std::gcd(h.spread, std::max(runs, 1LL)) == 1);
    }
  // The rows layout has only stripes = 1.
  const Spec x = load_spec(gpen::test::source_dir() + "/specs/scan/cumsum_x.json");
  CHECK_THROWS_WITH(x.choose({"stripes=16"}), doctest::Contains("not an allowed value"));
}

TEST_CASE("chained columns: layers of values_per_thread steps, every group side by side, a carry a column group") {
  const Spec z = load_spec(gpen::test::source_dir() + "/specs/scan/cumsum_z.json");
  const ScanPlan p = plan_scan(z, z.choose());
  REQUIRE(p.chained);  // cumsum_z.json's default
  CHECK(generate(z, z.choose()).source.find("kChained = true;") != std::string::npos);
  CHECK(generate(z, z.choose({"chained=0"})).source.find("kChained = false;") != std::string::npos);
  // 512^3 float64, 32 x 16 threads side by side, 8 steps a layer: 512
  // columns a tile, 512 tiles a plane, 64 layers, a 16-byte carry a column.
  const ScanGeometry g = p.geometry(3, 2, {512, 512, 512});
  CHECK(g.along == 1);
  CHECK(g.plane_tiles == 512);
  CHECK(g.layers == 64);
  CHECK(g.tiles == 512 * 64);
  CHECK(p.carry_bytes(g) == 512LL * 512 * 16);
  // Ragged: 60200 columns in 118 tiles, 37 steps in 5 layers.
  const ScanGeometry r = p.geometry(3, 2, {301, 200, 37});
  CHECK(r.plane_tiles == 118);
  CHECK(r.layers == 5);
  CHECK(r.tiles == 118 * 5);
  // One layer needs no carries.
  CHECK(p.carry_bytes(p.geometry(3, 2, {301, 200, 8})) == 0);
  CHECK(p.carry_bytes(p.geometry(3, 2, {301, 200, 9})) == 60200 * 16);
  // Carries beyond an eighth of the L2 (6.25 MiB of an H100's 50): the
  // blocks walk the axis as unchained, groups stacked along it.
  const ScanGeometry wide = p.geometry(3, 2, {1024, 512, 256});  // 8 MiB of carries
  CHECK(wide.layers == 1);
  CHECK(wide.along == 16);
  CHECK(wide.plane_tiles == 1024 * 512 / 32);
  CHECK(p.carry_bytes(wide) == 0);
  CHECK(p.geometry(3, 2, {1024, 512, 256}, 64LL << 20).layers == 32);  // 8 MiB fit an eighth of 64 MiB
  CHECK(p.geometry(3, 2, {512, 512, 512}, 16LL << 20).layers == 1);   // 4 MiB do not fit an eighth of 16 MiB
  // Along y, a carry for each plane's columns; float32 groups 2 columns a carry.
  const Spec y = load_spec(gpen::test::source_dir() + "/specs/scan/cumsum_y.json", Dtype::Float32);
  const ScanPlan py = plan_scan(y, y.choose({"chained=1"}));
  REQUIRE(py.vector_x == 2);
  const ScanGeometry gy = py.geometry(3, 1, {1001, 33, 7});
  CHECK(gy.layers == 3);  // 16 steps a layer
  CHECK(gy.tiles == 1 * 3 * 7);
  CHECK(py.carry_bytes(gy) == 7 * 501 * 16);
  // Without chaining nothing changes: one layer, no carries.
  const ScanPlan walk = plan_scan(y, y.choose());
  CHECK(walk.geometry(3, 1, {1001, 33, 7}).layers == 1);
  CHECK(walk.carry_bytes(walk.geometry(3, 1, {1001, 33, 7})) == 0);
  // A carry holds 8 bytes of values.
  CHECK_THROWS_WITH(generate(z, z.choose({"vector_x=2"})), doctest::Contains("at most 8 bytes when chained"));
  CHECK_THROWS_WITH(generate(y, y.choose({"chained=1", "vector_x=4"})), doctest::Contains("at most 8 bytes when chained"));
  // The rows layout has no layers.
  const Spec x = load_spec(gpen::test::source_dir() + "/specs/scan/cumsum_x.json");
  CHECK_THROWS_WITH(x.choose({"chained=1"}), doctest::Contains("not an allowed value"));
}

TEST_CASE("the columns layout stacks as many groups along the axis as its length fills") {
  const Spec y = load_spec_string(scan_json(R"J({"axis": "y", "op": "a + b", "identity": 0})J", 3));
  const ScanPlan p = plan_scan(y, y.choose({"block_x=32", "block_y=32", "values_per_thread=16", "vector_x=1"}));
  auto at = [&](long long ny) { return p.geometry(3, 1, {100, ny, 7}); };
  // 512 steps: 32 groups of 16 fill them; a block covers 32 columns.
  CHECK(at(512).along == 32);
  CHECK(at(512).tiles == 4 * 7);
  // 64 steps: 4 groups along (8 would pad 64 steps to 128), 8 side by side,
  // so a block covers 256 columns.
  CHECK(at(64).along == 4);
  CHECK(at(64).tiles == 1 * 7);
  // 16 steps: one group; 300 steps: 4 groups pad them to 320 (8 to 384).
  CHECK(at(16).along == 1);
  CHECK(at(300).along == 4);
  CHECK(at(1).along == 1);
  // 1000 steps: 32 x 16 pads to 1024, within an eighth.
  CHECK(at(1000).along == 32);
  // A block_y that is not a power of two stacks a divisor of it.
  const Spec odd = load_spec_string(with(scan_json(R"J({"axis": "y", "op": "a + b", "identity": 0})J", 3), "  \"scan\"",
                                          "  \"tunables\": {\"block_y\": {\"values\": [12]}},\n  \"scan\""));
  const ScanPlan q = plan_scan(odd, odd.choose({"block_x=32", "values_per_thread=16", "vector_x=1"}));
  CHECK(q.geometry(3, 1, {100, 96, 7}).along == 6);
  CHECK(q.geometry(3, 1, {100, 96, 7}).tiles == 2 * 7);
  // The rows layout has no groups along its axis.
  const Spec x = load_spec_string(scan_json(R"J({"axis": "x", "op": "a + b", "identity": 0})J", 3));
  CHECK(plan_scan(x, x.choose()).geometry(3, 0, {1000, 5, 7}).along == 1);
}

TEST_CASE("generated scan units: banner, layout, the operation, infinite identities") {
  const Spec s = load_spec_string(scan_json(R"J({"axis": "x", "op": "max(a, b)", "identity": "-inf", "reverse": true})J"));
  const Variant g = generate(s, s.choose());
  CHECK(g.name == "t.scan_rows.cu");
  CHECK(g.source.find("spec hash: sha256:" + s.hash) != std::string::npos);
  CHECK(g.source.find("tunables:  block_x=128 block_y=2 values_per_thread=4 vector_x=2") != std::string::npos);
  CHECK(g.source.find("#include \"gpen/scan_rows.cuh\"") != std::string::npos);
  CHECK(g.source.find("return fmax(a, b);") != std::string::npos);
  CHECK(g.source.find("__longlong_as_double(0xfff0000000000000LL)") != std::string::npos);
  CHECK(g.source.find("kReverse = true") != std::string::npos);
  const Spec y = load_spec_string(scan_json());
  CHECK(generate(y, y.choose()).name == "t.scan_columns.cu");
}

TEST_CASE("every shipped scan spec compiles for sm_90, without spills") {
  int compiled = 0;
  for (const auto& path : gpen::test::shipped_specs("scan"))
    for (Dtype d : {Dtype::Float64, Dtype::Float32}) {
      const Spec spec = load_spec(path, d);
      // Columns: one group of threads walking the axis besides the default,
      // and the axis in chained layers.
      std::vector<std::vector<std::string>> sets = {
          {}, spec.scan().axis == 0 ? std::vector<std::string>{"values_per_thread=16", "vector_x=1"}
                                  : std::vector<std::string>{"block_x=128", "block_y=1", "values_per_thread=1", "vector_x=2", "chained=0"}};
      // Rows: the other mapping of values onto lanes than the default's.
      if (spec.scan().axis == 0) sets.push_back({spec.dims == 1 ? "striped=0" : "striped=1", "values_per_thread=8", "lookback_delay=500"});
      else sets.push_back({"chained=1", "vector_x=1", "values_per_thread=16"});
      for (const auto& set : sets) {
        const Variant g = generate(spec, spec.choose(set));
        const CompiledKernel k = gpen::test::check_compiles(g, spec.name);
        // The block's registers fit an SM's 64K (__launch_bounds__): float32's
        // 32 x 32 default takes 66 registers a thread without it.
        CHECK(k.usage.registers * g.plan_as<ScanPlan>().threads() <= 65536);
        ++compiled;
      }
    }
  CHECK(compiled == 7 * 2 * 3);
}

namespace {
HostArray line(std::vector<double> v) {
  HostArray a(1, {static_cast<long long>(v.size()), 1, 1}, 0);
  a.data = std::move(v);
  return a;
}
}  // namespace

TEST_CASE("the CPU reference: inclusive, exclusive, reverse, along y, other operations") {
  auto run = [](const std::string& scan, int dims, HostArray in) {
    const Spec s = load_spec_string(scan_json(scan, dims));
    HostArray want(in.dims, in.shape, 0), scale(in.dims, in.shape, 0);
    reference_scan(s, in, want, scale);
    return want.data;
  };
  const HostArray x = line({1, 2, 3, 4});
  CHECK(run(R"J({"axis": "x", "op": "a + b", "identity": 0})J", 1, x) == std::vector<double>{1, 3, 6, 10});
  CHECK(run(R"J({"axis": "x", "op": "a + b", "identity": 0, "exclusive": true})J", 1, x) == std::vector<double>{0, 1, 3, 6});
  CHECK(run(R"J({"axis": "x", "op": "a + b", "identity": 0, "reverse": true})J", 1, x) == std::vector<double>{10, 9, 7, 4});
  CHECK(run(R"J({"axis": "x", "op": "a * b", "identity": 1, "exclusive": true, "reverse": true})J", 1, x) == std::vector<double>{24, 12, 4, 1});
  CHECK(run(R"J({"axis": "x", "op": "max(a, b)", "identity": "-inf"})J", 1, line({3, 1, 4, 1})) == std::vector<double>{3, 3, 4, 4});
  HostArray grid(2, {2, 3, 1}, 0);  // x fastest: rows (1, 2), (3, 4), (5, 6)
  grid.data = {1, 2, 3, 4, 5, 6};
  CHECK(run(R"J({"axis": "y", "op": "a + b", "identity": 0})J", 2, grid) == std::vector<double>{1, 2, 4, 6, 9, 12});
  CHECK(run(R"J({"axis": "x", "op": "a + b", "identity": 0})J", 2, grid) == std::vector<double>{1, 3, 3, 7, 5, 11});
}

TEST_CASE("the scan comparison fails on a wrong value, an unwritten one, and passes roundings within the bound") {
  const Spec s = load_spec_string(scan_json(R"J({"axis": "x", "op": "a + b", "identity": 0})J", 1));
  HostArray in = line(std::vector<double>(1000, 0.5)), want(1, {1000, 1, 1}, 0), scale(1, {1000, 1, 1}, 0);
  reference_scan(s, in, want, scale);
  HostArray got = want;
  CHECK(compare_scan(s, got, want, scale).pass);
  got.data[700] += 3 * std::numeric_limits<double>::epsilon() * want.data[700];  // a rounding
  CHECK(compare_scan(s, got, want, scale).pass);
  got.data[700] = want.data[700] + 0.5;  // one value dropped or counted twice
  const Comparison wrong = compare_scan(s, got, want, scale);
  CHECK_FALSE(wrong.pass);
  CHECK(wrong.worst[0] == 700);
  CHECK(wrong.bound_ratio > 1);
  got = want;
  got.data[999] = std::nan("");
  const Comparison unwritten = compare_scan(s, got, want, scale);
  CHECK_FALSE(unwritten.pass);
  CHECK(unwritten.non_finite == 1);
}

TEST_CASE("a scan op that does not give the identity from the identity is refused at /scan/op") {
  SUBCASE("a log-sum-exp written out, identity -inf: NaN, and logaddexp as the fix") {
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "x", "op": "max(a, b) + log(1 + exp(-abs(a - b)))", "identity": "-inf"})J", 1));
    CHECK(e.pointer() == "/scan/op");
    CHECK(e.line() == 7);
    CHECK(e.column() == 31);  // the opening quote of the op
    CHECK(e.detail().message == "'max(a, b) + log(1 + exp(-abs(a - b)))' gives nan at a = b = -inf, the identity");
    CHECK(e.detail().expected ==
          "op(e, e) = e = -inf: the kernels pad lines and blocks with the identity and combine it with itself; "
          "this operation is a log-sum-exp: write logaddexp(a, b), which gives -inf there");
  }
  SUBCASE("another operation that fails at -inf, -inf: logaddexp named for log-sum-exps") {
    // (1/2) logaddexp(2a, 2b): associative, -inf an identity for finite x
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "x", "op": "max(a, b) + log(1 + exp(-2 * abs(a - b))) / 2", "identity": "-inf"})J", 1));
    CHECK(e.pointer() == "/scan/op");
    CHECK(e.detail().expected ==
          "op(e, e) = e = -inf: the kernels pad lines and blocks with the identity and combine it with itself; "
          "for a log-sum-exp write logaddexp(a, b), which gives -inf there");
  }
  SUBCASE("a soft minimum with identity inf: the reason, no logaddexp") {
    const SpecError e = spec_error_of(scan_json(R"J({"axis": "x", "op": "min(a, b) - log(1 + exp(-abs(a - b)))", "identity": "inf"})J", 1));
    CHECK(e.pointer() == "/scan/op");
    CHECK(e.detail().message == "'min(a, b) - log(1 + exp(-abs(a - b)))' gives nan at a = b = inf, the identity");
    CHECK(e.detail().expected == "op(e, e) = e = inf: the kernels pad lines and blocks with the identity and combine it with itself");
  }
  SUBCASE("what gives the identity there is accepted") {
    const Spec lse = load_spec_string(scan_json(R"J({"axis": "x", "op": "logaddexp(a, b)", "identity": "-inf"})J", 1));
    CHECK(apply_op(lse.scan(), -HUGE_VAL, -HUGE_VAL) == -HUGE_VAL);
    CHECK(apply_op(lse.scan(), -HUGE_VAL, 0.5) == 0.5);
    // log(0) is -inf: the naive form overflows for large values, but keeps the identity.
    CHECK_NOTHROW(load_spec_string(scan_json(R"J({"axis": "x", "op": "log(exp(a) + exp(b))", "identity": "-inf"})J", 1)));
    CHECK_NOTHROW(load_spec_string(scan_json(R"J({"axis": "x", "op": "-logaddexp(-a, -b)", "identity": "inf"})J", 1)));
    CHECK_NOTHROW(load_spec_string(scan_json(R"J({"axis": "x", "op": "max(a, b)", "identity": "-inf"})J", 1)));
    CHECK_NOTHROW(load_spec_string(scan_json(R"J({"axis": "x", "op": "a * b", "identity": 1})J", 1)));
  }
}

TEST_CASE("the shipped log-cumsum-exp: its reference on lines with -inf, and its comparison") {
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/scan/logcumsumexp.json");
  CHECK(s.scan().op_text == "logaddexp(a, b)");
  CHECK(s.scan().identity == -HUGE_VAL);
  const HostArray in = line({-HUGE_VAL, 0, -HUGE_VAL, 0, 1000, -HUGE_VAL});
  HostArray want(in.dims, in.shape, 0), scale(in.dims, in.shape, 0);
  reference_scan(s, in, want, scale);
  CHECK(want.data[0] == -HUGE_VAL);
  CHECK(want.data[1] == 0);
  CHECK(want.data[2] == 0);
  CHECK(want.data[3] == doctest::Approx(std::log(2.0)).epsilon(1e-15));
  CHECK(want.data[4] == 1000);  // log(2 + e^1000) rounds to 1000
  CHECK(want.data[5] == 1000);
  CHECK(compare_scan(s, want, want, scale).pass);

  // The -inf inputs leave the bound finite: a wrong value after them fails.
  HostArray got = want;
  got.data[3] += 1e-6;
  CHECK_FALSE(compare_scan(s, got, want, scale).pass);
  // A line of -inf stays -inf; NaN (what the op written out gives) fails.
  const HostArray empty = line({-HUGE_VAL, -HUGE_VAL, -HUGE_VAL});
  HostArray w(empty.dims, empty.shape, 0), sc(empty.dims, empty.shape, 0);
  reference_scan(s, empty, w, sc);
  CHECK(w.data == std::vector<double>(3, -HUGE_VAL));
  HostArray poisoned = w;
  poisoned.data[2] = std::nan("");
  CHECK_FALSE(compare_scan(s, poisoned, w, sc).pass);
}
