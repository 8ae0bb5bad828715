#include "gpen/generator/ir.hpp"
#include "gpen/generator/ir_common.hpp"
#include "gpen/generator/lower.hpp"
#include "test_support.hpp"

using namespace gpen;

TEST_CASE("operator application merges into one exact linear combination") {
  const Spec s = load_spec_string(gpen::test::minimal_spec("D2(u, x) + D2(u, y)"));
  const Ir& e = *s.outputs[0].ir;
  REQUIRE(e.kind == Ir::Kind::Linear);
  CHECK(e.terms.size() == 5);  // the centre appears once, with coefficient -4
  bool centre = false;
  for (const auto& t : e.terms)
    if (t.access.off == std::array<int, 3>{0, 0, 0}) {
      centre = true;
      CHECK(t.coeff == Rational(-4));
    }
  CHECK(centre);
}

TEST_CASE("D(u) - D(u) cancels to zero") {
  const Spec s = load_spec_string(gpen::test::minimal_spec("D2(u, x) - D2(u, x) + k"));
  // 0 + k: the linear part vanished exactly
  const Ir& e = *s.outputs[0].ir;
  CHECK(e.kind == Ir::Kind::Add);
  CHECK(e.args[0]->kind == Ir::Kind::Const);
  CHECK(e.args[0]->number.r.is_zero());
}

TEST_CASE("mixed derivative composes offsets, footprint per axis") {
  const Spec s = load_spec_string(gpen::test::minimal_spec("D2(D2(u, x) * u, y)"));
  const Footprint fp = s.footprint();
  CHECK(fp[0] == std::array<int, 3>{1, 1, 0});
  std::vector<Access> acc;
  collect_accesses(*s.outputs[0].ir, acc);
  // (x +-1, y +-1) corners come from shifting the nonlinear product
  CHECK(std::count_if(acc.begin(), acc.end(), [](const Access& a) { return a.off[0] == 1 && a.off[1] == 1; }) == 1);
}

TEST_CASE("evaluate matches a hand computation") {
  const Spec s = load_spec_string(gpen::test::minimal_spec("k * sqrt(abs(u)) + D2(u, x)"));
  // u(x, y) = x^2 + 3: D2 along x is 2 exactly at unit spacing
  auto read = [](const Access& a) { double x = 5 + a.off[0]; return x * x + 3; };
  const double v = evaluate(*s.outputs[0].ir, read, {2.0});
  CHECK(v == doctest::Approx(2 * std::sqrt(28.0) + 2.0).epsilon(1e-15));
}

TEST_CASE("the work of a point: reads and operations as written, and with common work once") {
  const auto work = [](const std::string& expr) {
    const Spec s = load_spec_string(gpen::test::minimal_spec(expr));
    return ir_work({s.outputs[0].ir});
  };
  // The same derivative twice: written twice, its reads and sum counted once.
  const IrWork twice = work("D2(u, x) * k + D2(u, x)");
  CHECK(twice.reads == 6);
  CHECK(twice.distinct_reads == 3);
  CHECK(twice.ops == 3 + 1 + 3 + 1);
  CHECK(twice.distinct_ops == 3 + 1 + 1);
  // As instructions: the sum of 3 terms, and the product fused into the add.
  CHECK(twice.fma_pipe == 3 + 1);
  CHECK(twice.divisions_and_calls == 0);
  // A mixed derivative is one linear combination of its 9 points.
  const IrWork mixed = work("D2(D2(u, x), y)");
  CHECK(mixed.reads == 9);
  CHECK(mixed.distinct_reads == 9);
  CHECK(mixed.ops == 9);
  CHECK(mixed.distinct_ops == 9);
  // A let used twice is written out at each use.
  const Spec l = load_spec_string(gpen::test::minimal_spec("a * a", "  \"lets\": [{\"name\": \"a\", \"expr\": \"D2(u, y) + k\"}],\n"));
  const IrWork let = ir_work({l.outputs[0].ir});
  CHECK(let.reads == 6);
  CHECK(let.distinct_reads == 3);
  CHECK(let.ops == 2 * (3 + 1) + 1);
  CHECK(let.distinct_ops == 3 + 1 + 1);
  // a * a is a product used by no sum: it stays a multiply.
  CHECK(let.fma_pipe == 3 + 1 + 1);
  // A product used by a sum and by a division is not fused; the division
  // and sqrt count apart, abs and the negation nowhere.
  const IrWork apart = work("D2(u, x) * k + (D2(u, x) * k) / sqrt(abs(u)) - -u");
  CHECK(apart.fma_pipe == 3 + 1 + 1 + 1);  // the sum, the product, the add, the subtract
  CHECK(apart.divisions_and_calls == 1 + 1);  // the division and sqrt
  // An FMA takes one product: the sum of two is a multiply and an FMA.
  CHECK(work("u * k + u * u").fma_pipe == 2);
  // A negated product fuses too: -(u * k) + u is one FMA.
  CHECK(work("-(u * k) + u").fma_pipe == 1);
}
