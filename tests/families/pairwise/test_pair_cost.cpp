// The instructions a pair costs, counted from the IR, against the counts
// Nsight Compute measured in gpen's kernels on an H100 (bench/RESULTS.md,
// twenty-seventh session: FMA, FP64 and XU instructions a pair), and the
// unit whose bound a formula's rate is quoted against.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

#include "gpen/families/pairwise/pairwise_run.hpp"
#include "gpen/generator/family.hpp"
#include "test_nvrtc.hpp"
#include "test_support.hpp"

using namespace gpen;
using gpen::test::with;

namespace {

Spec shipped(const std::string& name, const char* math = "accurate", Dtype dt = Dtype::Float32) {
  std::string text = gpen::test::read_file(gpen::test::source_dir() + "/specs/pairwise/" + name + ".json");
  text = with(text, "\"dims\"", std::string("\"math\": \"") + math + "\", \"dims\"");
  const std::string f32 = R"("dtype": "float32")", f64 = R"("dtype": "float64")";
  if (text.find(dt == Dtype::Float32 ? f64 : f32) != std::string::npos) text = with(text, dt == Dtype::Float32 ? f64 : f32, dt == Dtype::Float32 ? f32 : f64);
  return load_spec_string(text, name);
}

DeviceInfo h100() {
  DeviceInfo d;
  d.name = "H100";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.clock_khz = 1980000;
  return d;
}

}  // namespace

TEST_CASE("pair_cost counts what the kernels execute a pair (measured on an H100)") {
  struct Want {
    const char* spec;
    const char* math;
    Dtype dtype;
    double fp32, fp64, mufu;
  };
  // The measured FMA, FP64 and XU instructions a pair (rounded down: the loop's few left out).
  const Want wants[] = {
      {"softened_potential", "accurate", Dtype::Float32, 7, 0, 1},
      {"softened_acceleration", "accurate", Dtype::Float32, 12, 0, 1},
      {"multipole_potential", "accurate", Dtype::Float32, 36, 0, 1},
      {"radiation_grid", "accurate", Dtype::Float32, 9, 0, 1},  // its geometry factor 1 / (4 pi h^2) made once a thread
      {"gaussian_sum", "accurate", Dtype::Float32, 14, 0, 1},
      {"gaussian_sum", "fast", Dtype::Float32, 8, 0, 1},
      {"coulomb_potential", "accurate", Dtype::Float64, 3, 13, 1},
      {"coulomb_potential", "fast", Dtype::Float64, 0, 13, 1},
      // float64 exp as gpen::exp_f64 (twenty-eighth session)
      {"yukawa_potential", "accurate", Dtype::Float64, 7, 41, 2},
      {"yukawa_potential", "fast", Dtype::Float64, 3, 32, 1},
  };
  for (const Want& w : wants) {
    const PairCost c = pair_cost(shipped(w.spec, w.math, w.dtype));
    INFO(w.spec << " " << w.math);
    // Within 10%: the compiler folds a constant or fuses a product here and
    // there; on the FMA pipe, or within 2 (the moves it makes with IMAD).
    CHECK(std::abs(c.fp32 - w.fp32) <= std::max(0.1 * w.fp32, 2.0));
    CHECK(c.fp64 == doctest::Approx(w.fp64).epsilon(0.1));
    CHECK(c.mufu == w.mufu);
    CHECK(c.issued() >= c.fp32 + c.fp64 + c.mufu);
  }
}

TEST_CASE("fast math: m / sqrt(s) costs what m rsqrt(s) costs, as it prints the same") {
  for (Dtype dt : {Dtype::Float32, Dtype::Float64}) {
    const PairCost r = pair_cost(shipped("softened_potential", "fast", dt));
    const std::string text = with(with(gpen::test::read_file(gpen::test::source_dir() + "/specs/pairwise/softened_potential.json"), "m_j * rsqrt(", "m_j / sqrt("),
                                  "\"dims\"", "\"math\": \"fast\", \"dims\"");
    Spec s = load_spec_string(text, "divided");
    if (dt == Dtype::Float64) s = load_spec_string(with(text, R"("dtype": "float32")", R"("dtype": "float64")"), "divided");
    const PairCost d = pair_cost(s);
    INFO(to_string(dt));
    CHECK(d.fp32 == r.fp32);
    CHECK(d.fp64 == r.fp64);
    CHECK(d.mufu == r.mufu);
    CHECK(d.issued() == r.issued());
  }
}

TEST_CASE("fast math: a sqrt(s) written out twice prints one rsqrt, as pair_cost counts it") {
  // m_j / sqrt(S) + m_j * sqrt(S), S spelled out in both: two nodes in the
  // IR, one in the printed unit (common subexpressions shared first).
  const std::string s_text = "eps2 + dx*dx + dy*dy + dz*dz";
  const std::string text = with(with(gpen::test::read_file(gpen::test::source_dir() + "/specs/pairwise/softened_potential.json"),
                                     "m_j * rsqrt(" + s_text + ")", "m_j / sqrt(" + s_text + ") + m_j * sqrt(" + s_text + ")"),
                                "\"dims\"", "\"math\": \"fast\", \"dims\"");
  const Spec s = load_spec_string(text, "twice");
  const std::string unit = generate(s, s.choose()).source;
  auto count = [&](const std::string& what) {
    int n = 0;
    for (auto at = unit.find(what); at != std::string::npos; at = unit.find(what, at + 1)) ++n;
    return n;
  };
  // One rsqrt of one S, and the sqrt made from it (fast_sqrt of two
  // arguments; of one it would make a rsqrt of its own).
  CHECK(count("gpen::fast_rsqrt(") == 1);
  CHECK(count("const real t0 = p_eps2 + l_dx * l_dx") == 1);
  CHECK(count("gpen::fast_sqrt(t0, t1)") == 1);
  CHECK(pair_cost(s).mufu == 1);
  // S used also on its own: one temporary holds it, rsqrt reads that (no copy of it).
  const Spec u = load_spec_string(with(text, "m_j * sqrt(" + s_text + ")", "(" + s_text + ")"), "used alone");
  const std::string v = generate(u, u.choose()).source;
  CHECK(v.find("const real t1 = gpen::fast_rsqrt(t0);") != std::string::npos);
  CHECK(v.find("= t0;") == std::string::npos);
  gpen::test::check_compiles(generate(s, s.choose()), s.name);
  gpen::test::check_compiles(generate(u, u.choose()), u.name);
}

TEST_CASE("the unit bound: the special-function unit for rsqrt and exp in float32, the float64 pipe in float64") {
  const DeviceInfo d = h100();
  const UnitBound soft = pair_unit_bound(pair_cost(shipped("softened_potential")), d);
  CHECK(soft.unit == "mufu");
  CHECK(soft.pairs_per_s == doctest::Approx(132 * 1.98e9 * 16));
  // 8 float32 instructions beside the MUFU: issue, not the MUFU, limits.
  const UnitBound gauss = pair_unit_bound(pair_cost(shipped("gaussian_sum", "fast")), d);
  CHECK(gauss.unit == "issue");
  CHECK(gauss.instructions == 9);
  const UnitBound multipole = pair_unit_bound(pair_cost(shipped("multipole_potential")), d);
  // Mostly float32 arithmetic: the FMA pipe takes every instruction the
  // schedulers issue but the one MUFU, so issue limits first.
  CHECK(multipole.unit == "issue");
  CHECK(multipole.pairs_per_s == doctest::Approx(132 * 1.98e9 * 128 / multipole.instructions));
  const UnitBound yukawa = pair_unit_bound(pair_cost(shipped("yukawa_potential", "fast", Dtype::Float64)), d);
  CHECK(yukawa.unit == "fp64");
  CHECK(yukawa.instructions == 31);  // the kernel executes 32 with its loop
  const UnitBound coulomb = pair_unit_bound(pair_cost(shipped("coulomb_potential", "accurate", Dtype::Float64)), d);
  CHECK(coulomb.unit == "fp64");
  CHECK(coulomb.pairs_per_s == doctest::Approx(132 * 1.98e9 * 64 / 13));
  // gpen check says the counts.
  CHECK(family_of(shipped("softened_potential")).describe(shipped("softened_potential")).find("a pair: 7 float32, 0 float64, 1 special-function (MUFU), 8 issued") !=
        std::string::npos);
  // An architecture gpen does not know: no bound.
  DeviceInfo unknown = d;
  unknown.cc_major = 5;
  CHECK(pair_unit_bound(pair_cost(shipped("softened_potential")), unknown).pairs_per_s == 0);
}
