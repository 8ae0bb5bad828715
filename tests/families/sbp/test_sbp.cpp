// SBP specs on the CPU, in exact arithmetic where it can be: the shipped
// operators' summation-by-parts property and polynomial accuracy, their
// convergence on smooth functions (CPU reference), the checks `gpen check`
// runs and their errors (pointer, line, expectation), the plan's refusals,
// and the NVRTC compile of every shipped operator and strategy.
#include <cmath>

#include <nlohmann/json.hpp>

#include "gpen/families/sbp/sbp_check.hpp"
#include "gpen/families/sbp/sbp_reference.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/runtime/nvrtc_compiler.hpp"
#include "gpen/families/sbp/sbp_plan.hpp"
#include "test_nvrtc.hpp"
#include "test_support.hpp"

using namespace gpen;
using gpen::test::spec_error_of;
using gpen::test::with;

namespace {

std::string sbp_path(const std::string& name) { return gpen::test::source_dir() + "/specs/sbp/" + name + ".json"; }
const char* kOperators[] = {"d1_o2", "d1_o4", "d1_o6", "d2_o2", "d2_o4"};

Rational rat(const nlohmann::json& j) { return *Rational::parse(j.is_string() ? j.get<std::string>() : j.dump()); }

// D on n points built here from the file's JSON, independently of
// sbp_matrix: closure rows at the left, the same mirrored with the sign
// (-1)^derivative at the right, the interior stencil between.
RationalMatrix matrix_from_json(const nlohmann::json& op, long long n) {
  const int d = op["derivative"];
  const auto& left = op["left"];
  const auto& in = op["interior"];
  const long long rows = static_cast<long long>(left.size()), r = static_cast<long long>(in.size() / 2);
  RationalMatrix m(n, std::vector<Rational>(n));
  for (long long i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < left[i].size(); ++j) {
      m[i][j] = rat(left[i][j]);
      m[n - 1 - i][n - 1 - j] = d % 2 ? -rat(left[i][j]) : rat(left[i][j]);
    }
  for (long long i = rows; i < n - rows; ++i)
    for (long long k = -r; k <= r; ++k) m[i][i + k] = rat(in[k + r]);
  return m;
}

// Positive semi-definite by an LDL^T in long double: no pivot below
// -1e-12 of the largest entry. (Exact elimination overflows 64-bit
// fractions already for D2 of order 4; symmetry is checked exactly.)
bool positive_semidefinite(const RationalMatrix& m) {
  const std::size_t n = m.size();
  std::vector<std::vector<long double>> a(n, std::vector<long double>(n));
  long double top = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      a[i][j] = static_cast<long double>(m[i][j].num()) / static_cast<long double>(m[i][j].den());
      top = std::max(top, std::fabs(a[i][j]));
    }
  const long double tiny = 1e-12L * top;
  for (std::size_t k = 0; k < n; ++k) {
    if (a[k][k] < -tiny) return false;
    if (a[k][k] <= tiny) {
      for (std::size_t i = k + 1; i < n; ++i)
        if (std::fabs(a[i][k]) > tiny) return false;
      continue;
    }
    for (std::size_t i = k + 1; i < n; ++i) {
      const long double f = a[i][k] / a[k][k];
      for (std::size_t j = k; j < n; ++j) a[i][j] -= f * a[k][j];
    }
  }
  return true;
}

// (D x^p)(x_i) - (d^derivative/dx^derivative x^p)(x_i) on the integers x_i = i.
Rational poly_error(const RationalMatrix& m, long long i, int p, int derivative) {
  auto pw = [](long long x, int e) {
    Rational r(1);
    for (int k = 0; k < e; ++k) r *= Rational(x);
    return r;
  };
  Rational got;
  for (std::size_t j = 0; j < m.size(); ++j)
    if (!m[i][j].is_zero()) got += m[i][j] * pw(static_cast<long long>(j), p);
  Rational want;
  if (p >= derivative) {
    Rational c(1);
    for (int k = 0; k < derivative; ++k) c *= Rational(p - k);
    want = c * pw(i, p - derivative);
  }
  return got - want;
}

}  // namespace

TEST_CASE("each shipped operator is summation-by-parts: H D1 + (H D1)^T = B, H D2 = -M + B S with M symmetric positive semi-definite") {
  for (const std::string name : kOperators) {
    CAPTURE(name);
    const Spec s = load_spec(sbp_path(name));
    const nlohmann::json op = nlohmann::json::parse(gpen::test::read_file(sbp_path(name)))["sbp"];
    // The shortest line has every interaction of the closures and the
    // interior (and keeps the exact elimination below within 64 bits).
    const long long n = s.sbp().min_length();
    const RationalMatrix d = matrix_from_json(op, n);
    CHECK(d == sbp_matrix(s.sbp(), n));  // what the generator and the reference use
    std::vector<Rational> h(n, Rational(1));
    for (std::size_t i = 0; i < op["norm"].size(); ++i) h[i] = h[n - 1 - i] = rat(op["norm"][i]);
    if (s.sbp().derivative == 1) {
      for (long long i = 0; i < n; ++i)
        for (long long j = 0; j < n; ++j) {
          const Rational b = i == j && i == 0 ? Rational(-1) : i == j && i == n - 1 ? Rational(1) : Rational(0);
          CHECK_MESSAGE(h[i] * d[i][j] + h[j] * d[j][i] == b, "at " << i << "," << j);
        }
    } else {
      REQUIRE(op.contains("boundary_derivative"));
      RationalMatrix m(n, std::vector<Rational>(n));
      for (long long i = 0; i < n; ++i)
        for (long long j = 0; j < n; ++j) m[i][j] = -h[i] * d[i][j];
      for (std::size_t j = 0; j < op["boundary_derivative"].size(); ++j) {
        m[0][j] -= rat(op["boundary_derivative"][j]);          // (B S)[0] = -S[0]
        m[n - 1][n - 1 - j] -= rat(op["boundary_derivative"][j]);  // (B S)[n-1] = S[n-1], S[n-1] mirrored with a sign flip
      }
      for (long long i = 0; i < n; ++i)
        for (long long j = 0; j < n; ++j) CHECK_MESSAGE(m[i][j] == m[j][i], "at " << i << "," << j);
      CHECK(positive_semidefinite(m));
    }
  }
}

TEST_CASE("\"sat\": \"neumann\" folds the Neumann SAT term into the first closure rows: D2 - H^-1 B S = -H^-1 M, M symmetric positive semi-definite") {
  for (const std::string name : {"d2_o2", "d2_o4"}) {
    CAPTURE(name);
    const std::string text = gpen::test::read_file(sbp_path(name));
    const Spec plain = load_spec(sbp_path(name));
    const Spec sat = load_spec_string(with(text, R"~("boundary_derivative":)~", R"~("sat": "neumann", "boundary_derivative":)~"));
    CHECK(sat.sbp().neumann_sat);
    CHECK(sat.hash != plain.hash);
    const nlohmann::json op = nlohmann::json::parse(text)["sbp"];
    const long long n = plain.sbp().min_length() + 2;
    const RationalMatrix d = sbp_matrix(plain.sbp(), n), ds = sbp_matrix(sat.sbp(), n);
    std::vector<Rational> h(n, Rational(1));
    for (std::size_t i = 0; i < op["norm"].size(); ++i) h[i] = h[n - 1 - i] = rat(op["norm"][i]);
    // Only the first and last rows change, by S's boundary rows over H's first weight.
    for (long long i = 0; i < n; ++i)
      for (long long j = 0; j < n; ++j) {
        Rational gain;
        const auto& bd = op["boundary_derivative"];
        if (i == 0 && j < static_cast<long long>(bd.size())) gain = rat(bd[j]) / h[0];
        if (i == n - 1 && n - 1 - j < static_cast<long long>(bd.size())) gain = rat(bd[n - 1 - j]) / h[0];
        CHECK_MESSAGE(ds[i][j] == d[i][j] + gain, "at " << i << "," << j);
      }
    // -H Ds = M: symmetric and positive semi-definite.
    RationalMatrix m(n, std::vector<Rational>(n));
    for (long long i = 0; i < n; ++i)
      for (long long j = 0; j < n; ++j) m[i][j] = -h[i] * ds[i][j];
    for (long long i = 0; i < n; ++i)
      for (long long j = 0; j < n; ++j) CHECK_MESSAGE(m[i][j] == m[j][i], "at " << i << "," << j);
    CHECK(positive_semidefinite(m));
  }
  // Only a second derivative with its S row can fold it.
  const std::string d1 = gpen::test::read_file(sbp_path("d1_o4"));
  const SpecError e = spec_error_of(with(d1, R"~("norm":)~", R"~("sat": "neumann", "norm":)~"));
  CHECK(e.pointer() == "/sbp/sat");
  CHECK(e.detail().expected.find("\"derivative\": 2") != std::string::npos);
}

TEST_CASE("each shipped operator differentiates polynomials exactly up to its interior and boundary orders, and no further") {
  for (const std::string name : kOperators) {
    CAPTURE(name);
    const Spec s = load_spec(sbp_path(name));
    const SbpDecl& o = s.sbp();
    const long long n = o.min_length() + 6;
    const RationalMatrix m = sbp_matrix(o, n);
    const int rows = o.rows();
    for (long long i = 0; i < n; ++i) {
      const bool closure = i < rows || i >= n - rows;
      const int exact = (closure ? o.boundary_order : o.order) + o.derivative - 1;
      CAPTURE(i);
      for (int p = 0; p <= exact; ++p) CHECK(poly_error(m, i, p, o.derivative).is_zero());
    }
    // The stated orders are the true ones: one degree more is not exact.
    bool interior_exceeds = true, boundary_exceeds = false;
    interior_exceeds = poly_error(m, n / 2, o.order + o.derivative, o.derivative).is_zero();
    for (long long i = 0; i < rows; ++i) boundary_exceeds |= !poly_error(m, i, o.boundary_order + o.derivative, o.derivative).is_zero();
    CHECK_FALSE(interior_exceeds);
    CHECK(boundary_exceeds);
  }
}

TEST_CASE("observed convergence in the max norm matches the boundary order, and the interior order away from the closures") {
  // u = sin(2x + 1/2) + exp(7x/10) on [0, 1], h = 1/(n-1), through the CPU reference.
  auto u = [](double x) { return std::sin(2 * x + 0.5) + std::exp(0.7 * x); };
  auto du = [](double x, int d) { return d == 1 ? 2 * std::cos(2 * x + 0.5) + 0.7 * std::exp(0.7 * x) : -4 * std::sin(2 * x + 0.5) + 0.49 * std::exp(0.7 * x); };
  for (const std::string name : kOperators) {
    CAPTURE(name);
    const Spec s = load_spec(sbp_path(name));
    const SbpDecl& o = s.sbp();
    double prev_all = 0, prev_inside = 0, order_all = 0, order_inside = 0;
    for (long long n : {24LL, 48LL, 96LL}) {
      const double h = 1.0 / static_cast<double>(n - 1);
      HostArray in(1, {n, 1, 1}, 0), out(1, {n, 1, 1}, 0);
      for (long long i = 0; i < n; ++i) in.at(i, 0, 0) = u(static_cast<double>(i) * h);
      reference_sbp(s, in, {{"h", h}}, out);
      double all = 0, inside = 0;
      // "Inside": the middle half, beyond every closure's reach.
      for (long long i = 0; i < n; ++i) {
        const double e = std::fabs(out.at(i, 0, 0) - du(static_cast<double>(i) * h, o.derivative));
        all = std::max(all, e);
        if (i >= n / 4 && i < n - n / 4) inside = std::max(inside, e);
      }
      if (prev_all > 0) {
        order_all = std::log(prev_all / all) / std::log((static_cast<double>(n) - 1) / (static_cast<double>(n / 2) - 1));
        order_inside = std::log(prev_inside / inside) / std::log((static_cast<double>(n) - 1) / (static_cast<double>(n / 2) - 1));
      }
      prev_all = all;
      prev_inside = inside;
    }
    MESSAGE(name << ": observed order " << order_all << " in the max norm, " << order_inside << " inside");
    CHECK(order_all == doctest::Approx(o.boundary_order).epsilon(0.25 / o.boundary_order));
    CHECK(order_inside == doctest::Approx(o.order).epsilon(0.25 / o.order));
  }
}

namespace {

// One key a line, so that tests can predict lines: "sbp" starts on line 8,
// "left" is line 15 and its rows lines 16-19, "norm" line 21.
std::string d2_json() {
  return "{\n"
         "  \"name\": \"t\",\n"
         "  \"kind\": \"sbp\",\n"
         "  \"dtype\": \"float64\",\n"
         "  \"dims\": 2,\n"
         "  \"fields\": [{\"name\": \"u\", \"role\": \"input\"}, {\"name\": \"v\", \"role\": \"output\"}],\n"
         "  \"params\": [{\"name\": \"h\", \"value\": 0.5}],\n"
         "  \"sbp\": {\n"
         "    \"derivative\": 2,\n"
         "    \"order\": 4,\n"
         "    \"boundary_order\": 2,\n"
         "    \"axes\": [\"y\"],\n"
         "    \"spacing\": \"h\",\n"
         "    \"interior\": [\"-1/12\", \"4/3\", \"-5/2\", \"4/3\", \"-1/12\"],\n"
         "    \"left\": [\n"
         "      [2, -5, 4, -1],\n"
         "      [1, -2, 1],\n"
         "      [\"-4/43\", \"59/43\", \"-110/43\", \"59/43\", \"-4/43\"],\n"
         "      [\"-1/49\", 0, \"59/49\", \"-118/49\", \"64/49\", \"-4/49\"]\n"
         "    ],\n"
         "    \"norm\": [\"17/48\", \"59/48\", \"43/48\", \"49/48\"],\n"
         "    \"boundary_derivative\": [\"-11/6\", 3, \"-3/2\", \"1/3\"]\n"
         "  }\n"
         "}\n";
}

std::string message(const SpecError& e) { return e.what(); }

}  // namespace

TEST_CASE("an SBP spec parses: axes, spacing, rows, the right closure mirrored") {
  const Spec s = load_spec_string(d2_json());
  CHECK(s.kind == "sbp");
  CHECK(s.sbp().axes == std::vector<int>{1});
  CHECK(s.sbp().spacing == std::vector<int>{0});
  CHECK(s.sbp().radius() == 2);
  CHECK(s.sbp().rows() == 4);
  CHECK(s.sbp().left_width() == 6);
  CHECK(s.sbp().min_length() == 10);
  CHECK(s.sbp().right[2][2] == Rational(-110, 43));  // even derivative: same sign
  const Spec d1 = load_spec(sbp_path("d1_o4"));
  CHECK(d1.sbp().right[0][0] == Rational(24, 17));  // odd derivative: flipped
  CHECK(s.find_tunable("pencil_along") != nullptr);
}

TEST_CASE("SBP errors name the row or weight, the line, and what was expected") {
  SUBCASE("a closure row that fails its accuracy conditions") {
    const SpecError e = spec_error_of(with(d2_json(), "\"-110/43\"", "\"-111/43\""));
    CHECK(e.pointer() == "/sbp/left/2");
    CHECK(e.line() == 18);
    CHECK(message(e).find("not accurate to order 2") != std::string::npos);
    CHECK(message(e).find("exact for polynomials of degree up to 3") != std::string::npos);
  }
  SUBCASE("a norm weight that is not positive") {
    const SpecError e = spec_error_of(with(d2_json(), "\"59/48\", \"43/48\"", "\"59/48\", \"-43/48\""));
    CHECK(e.pointer() == "/sbp/norm/2");
    CHECK(e.line() == 21);
    CHECK(message(e).find("weight -43/48 is not positive") != std::string::npos);
  }
  SUBCASE("a norm under which the rows are not summation-by-parts") {
    const SpecError e = spec_error_of(with(d2_json(), "\"43/48\"", "\"44/48\""));
    CHECK(e.pointer().rfind("/sbp/left/", 0) == 0);
    CHECK(message(e).find("M = B S - H D2 is not symmetric") != std::string::npos);
  }
  SUBCASE("a boundary derivative on a first derivative, which has no S") {
    std::string j = gpen::test::read_file(sbp_path("d1_o4"));
    j = with(j, "\"norm\":", "\"boundary_derivative\": [\"-11/6\", 3, \"-3/2\", \"1/3\"], \"norm\":");
    const SpecError e = spec_error_of(j);
    CHECK(e.pointer() == "/sbp/boundary_derivative");
    CHECK(e.detail().message == "a boundary derivative for a first derivative");
  }
  SUBCASE("a first derivative that is accurate but not SBP") {
    std::string j = gpen::test::read_file(sbp_path("d1_o4"));
    j = with(j, "\"-24/17\", \"59/34\", \"-4/17\", \"-3/34\"", "\"-3/2\", 2, \"-1/2\"");  // one-sided, accurate, not SBP
    const SpecError e = spec_error_of(j);
    CHECK(e.pointer() == "/sbp/left/0");
    CHECK(message(e).find("not summation-by-parts with this norm") != std::string::npos);
  }
  SUBCASE("fewer closure rows than the interior stencil reaches") {
    std::string j = with(d2_json(), "      [1, -2, 1],\n", "");
    j = with(with(j, "      [\"-4/43\", \"59/43\", \"-110/43\", \"59/43\", \"-4/43\"],\n", ""), "      [2, -5, 4, -1],\n", "");
    j = with(j, "\"norm\": [\"17/48\", \"59/48\", \"43/48\", \"49/48\"]", "\"norm\": [\"49/48\"]");
    const SpecError e = spec_error_of(j);
    CHECK(e.pointer() == "/sbp/left");
    CHECK(message(e).find("at least 2 closure rows") != std::string::npos);
  }
  SUBCASE("a norm with another length than the closure") {
    const SpecError e = spec_error_of(with(d2_json(), "\"17/48\", ", ""));
    CHECK(e.pointer() == "/sbp/norm");
    CHECK(message(e).find("3 weights for 4 closure rows") != std::string::npos);
  }
  SUBCASE("an interior stencil of even length") {
    const SpecError e = spec_error_of(with(d2_json(), "\"-1/12\", \"4/3\", \"-5/2\"", "\"4/3\", \"-5/2\""));
    CHECK(e.pointer() == "/sbp/interior");
    CHECK(e.line() == 14);
  }
  SUBCASE("an all-zero closure row") {
    const SpecError e = spec_error_of(with(d2_json(), "[1, -2, 1]", "[0, 0]"));
    CHECK(e.pointer() == "/sbp/left/1");
    CHECK(message(e).find("every coefficient is zero") != std::string::npos);
  }
  SUBCASE("a right closure with another row count") {
    const SpecError e = spec_error_of(with(d2_json(), "    \"norm\"", "    \"right\": [[2, -5, 4, -1]],\n    \"norm\""));
    CHECK(e.pointer() == "/sbp/right");
  }
  SUBCASE("an axis the array lacks") {
    const SpecError e = spec_error_of(with(d2_json(), "[\"y\"]", "[\"z\"]"));
    CHECK(e.pointer() == "/sbp/axes/0");
    CHECK(e.line() == 12);
  }
  SUBCASE("a spacing that names no param") {
    const SpecError e = spec_error_of(with(d2_json(), "\"spacing\": \"h\"", "\"spacing\": \"dx\""));
    CHECK(e.pointer() == "/sbp/spacing");
    CHECK(message(e).find("no param named 'dx'") != std::string::npos);
  }
  SUBCASE("ghost zones") {
    const SpecError e = spec_error_of(with(d2_json(), "\"role\": \"input\"}", "\"role\": \"input\", \"ghost\": 2}"));
    CHECK(e.pointer() == "/fields/0/ghost");
  }
  SUBCASE("a fraction that is not a number") {
    const SpecError e = spec_error_of(with(d2_json(), "\"59/49\"", "\"59/x\""));
    CHECK(e.pointer() == "/sbp/left/3/2");
    CHECK(e.line() == 19);
  }
}

TEST_CASE("the SBP plan refuses what cannot run, naming the tunable") {
  const Spec lap = load_spec(sbp_path("laplacian2d_o4"));
  CHECK(lap.find_tunable("strategy")->values.size() == 1);  // direct only: a pencil follows one axis
  const Spec s = load_spec_string(d2_json());
  CHECK_THROWS_WITH_AS(s.choose({"strategy=direct", "pencil_along=64"}), doctest::Contains("--set pencil_along=64: only the pencil strategy has"), UsageError);
  TunableChoice direct = s.choose({"strategy=direct"});
  direct["pencil_along"] = 64LL;
  CHECK_THROWS_WITH_AS(plan_sbp(s, direct), doctest::Contains("pencil_along = 64 with strategy direct"), SpecError);
  CHECK_THROWS_WITH_AS(plan_sbp(s, s.choose({"strategy=pencil", "block_x=64", "pencil_across=32"})),
                       doctest::Contains("pencil_across of those across it"), SpecError);
  CHECK_THROWS_WITH_AS(plan_sbp(s, s.choose({"strategy=pencil", "block_x=256", "block_y=8"})), doctest::Contains("at most 1024 threads"), SpecError);
  CHECK_THROWS_WITH_AS(plan_sbp(s, s.choose({"strategy=pencil", "pencil_along=256", "pencil_across=64", "block_x=32", "block_y=8"})),
                       doctest::Contains("at most 48 KiB"), SpecError);
  const SbpPlan p = plan_sbp(s, s.choose({"strategy=pencil"}));
  CHECK(p.axis == 1);
  CHECK(p.across_axis == 0);
  CHECK(p.third_axis == 2);
  const LaunchDims d = p.launch({100, 1000, 1});
  CHECK(d.grid == std::array<unsigned, 3>{static_cast<unsigned>((1000 + p.along - 1) / p.along), static_cast<unsigned>((100 + p.across - 1) / p.across), 1});
}

TEST_CASE("every shipped SBP operator and strategy compiles for sm_90, without spills") {
  int compiled = 0;
  for (const auto& path : gpen::test::shipped_specs("sbp"))
    for (Dtype d : {Dtype::Float64, Dtype::Float32}) {
      const Spec spec = load_spec(path, d);
      for (const auto& v : spec.find_tunable("strategy")->values) {
        gpen::test::check_compiles(generate(spec, spec.choose({"strategy=" + to_string(v)})), spec.name);
        ++compiled;
      }
    }
  CHECK(compiled == (5 * 2 + 3) * 2);
}

TEST_CASE("the SBP reference applies the closures at both ends and scales by 1/h^derivative") {
  const Spec s = load_spec(sbp_path("d1_o2"));
  HostArray in(1, {5, 1, 1}, 0), out(1, {5, 1, 1}, 0);
  const double u[] = {1, 4, 9, 16, 25};
  for (int i = 0; i < 5; ++i) in.at(i, 0, 0) = u[i];
  reference_sbp(s, in, {{"h", 0.5}}, out);
  // Rows: [-1, 1] at the left, [-1/2, 0, 1/2] inside, [-1, 1] mirrored at the right; / h.
  CHECK(out.at(0, 0, 0) == doctest::Approx((4 - 1) / 0.5));
  CHECK(out.at(2, 0, 0) == doctest::Approx((16 - 4) / 2.0 / 0.5));
  CHECK(out.at(4, 0, 0) == doctest::Approx((25 - 16) / 0.5));
}
