// logaddexp(a, b) in the expression language: its special values on the
// CPU, its error magnitude in the pairwise reference, and NVRTC compiles of
// it in every family that has expressions. The scan rule it serves (op(e, e)
// = e) and the shipped log-cumsum-exp are tested in test_scan.cpp.
#include <cmath>
#include <limits>

#include "gpen/generator/codegen.hpp"
#include "gpen/generator/ir.hpp"
#include "test_nvrtc.hpp"
#include "test_support.hpp"

using namespace gpen;
using gpen::test::spec_error_of;
using gpen::test::with;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Spec logcumsumexp(Dtype dtype = Dtype::Float64) {
  return load_spec(gpen::test::source_dir() + "/specs/scan/logcumsumexp.json", dtype);
}

}  // namespace

TEST_CASE("logaddexp on the CPU: -inf is its identity, +inf absorbs, NaN propagates, as torch.logaddexp") {
  const double nan = std::nan("");
  CHECK(logaddexp(-kInf, -kInf) == -kInf);  // max(a, b) + log1p(exp(-|a - b|)) gives NaN here
  CHECK(logaddexp(2.5, -kInf) == 2.5);
  CHECK(logaddexp(-kInf, -3.0) == -3.0);
  CHECK(logaddexp(kInf, 1.0) == kInf);
  CHECK(logaddexp(-kInf, kInf) == kInf);
  CHECK(logaddexp(kInf, kInf) == kInf);
  CHECK(std::isnan(logaddexp(nan, -kInf)));
  CHECK(std::isnan(logaddexp(1.0, nan)));
  CHECK(std::isnan(logaddexp(kInf, nan)));
  CHECK(logaddexp(0.0, 0.0) == doctest::Approx(std::log(2.0)).epsilon(1e-15));
  CHECK(logaddexp(1.0, 2.0) == doctest::Approx(std::log(std::exp(1.0) + std::exp(2.0))).epsilon(1e-15));
  // Where exp overflows or underflows
  CHECK(logaddexp(1000.0, 1000.0) == doctest::Approx(1000.0 + std::log(2.0)).epsilon(1e-15));
  CHECK(logaddexp(-1000.0, -1001.0) == doctest::Approx(-1000.0 + std::log1p(std::exp(-1.0))).epsilon(1e-15));

  // In an expression, through the IR's evaluation: u = -inf leaves k.
  const Spec s = load_spec_string(gpen::test::minimal_spec("logaddexp(u, k)"));
  CHECK(evaluate(*s.outputs[0].ir, [](const Access&) { return -kInf; }, {2.0}) == 2.0);
  CHECK(evaluate(*s.outputs[0].ir, [](const Access&) { return 0.0; }, {0.0}) == doctest::Approx(std::log(2.0)));
  const SpecError one = spec_error_of(gpen::test::minimal_spec("logaddexp(u)"));
  CHECK(one.detail().message == "'logaddexp' takes 2 arguments, got 1");
  const SpecError reserved = spec_error_of(with(gpen::test::minimal_spec(), "\"name\": \"k\"", "\"name\": \"logaddexp\""));
  CHECK(reserved.detail().message == "'logaddexp' is reserved (an axis or a math function)");
}

TEST_CASE("logaddexp compiles with NVRTC in scans, stencil outputs and pairwise formulas, both dtypes") {
  for (Dtype dt : {Dtype::Float64, Dtype::Float32}) {
    CAPTURE(to_string(dt));
    const Spec scan = logcumsumexp(dt);
    const Variant g = generate(scan, scan.choose());
    CHECK(g.source.find("return gpen::logaddexp(a, b);") != std::string::npos);
    gpen::test::check_compiles(g, scan.name);

    const std::string dtype = dt == Dtype::Float32 ? "float32" : "float64";
    const Spec stencil = load_spec_string(with(gpen::test::minimal_spec("logaddexp(D2(u, x), k * u)"), "float64", dtype));
    const Variant gs = generate(stencil, stencil.choose());
    CHECK(gs.source.find("gpen::logaddexp(") != std::string::npos);
    gpen::test::check_compiles(gs, stencil.name);

    const Spec pair = load_spec_string(R"J({"name": "p", "kind": "pairwise", "dtype": ")J" + dtype + R"J(", "dims": 1,
      "fields": [{"name": "x", "role": "input"}, {"name": "phi", "role": "output"}],
      "pairwise": {"sources": "targets", "self": "include"},
      "outputs": [{"field": "phi", "expr": "logaddexp(x_i, -x_j)"}]})J");
    const Variant gp = generate(pair, pair.choose());
    CHECK(gp.source.find("gpen::logaddexp(") != std::string::npos);
    gpen::test::check_compiles(gp, pair.name);
  }
}

TEST_CASE("IrTape: logaddexp passes its arguments' magnitudes through, and an argument of -inf adds none") {
  const IrTape tape({ir_call(MathFn::LogAddExp, {ir_field(Access{0, {0, 0, 0}}), ir_field(Access{1, {0, 0, 0}})})});
  double r = 0, m = 0;
  const double half[2] = {-0.5, -0.5};  // r = ln 2 - 1/2 = 0.19: the arguments' errors are larger than r
  tape.run(half, nullptr, &r, &m);
  CHECK(r == doctest::Approx(std::log(2.0) - 0.5).epsilon(1e-15));
  CHECK(m == doctest::Approx(r + 1.0).epsilon(1e-15));
  const double one_empty[2] = {-kInf, 2.0};
  tape.run(one_empty, nullptr, &r, &m);
  CHECK(r == 2.0);
  CHECK(m == 4.0);
}
