#include "gpen/generator/fornberg.hpp"
#include "test_support.hpp"

using namespace gpen;

static std::vector<Rational> R(std::initializer_list<const char*> xs) {
  std::vector<Rational> v;
  for (const char* x : xs) v.push_back(*Rational::parse(x));
  return v;
}

// Fornberg (1988), Table 1; checked against the standard central tables.
TEST_CASE("central first derivatives, orders 2-8") {
  CHECK(central_weights(1, 2) == R({"-1/2", "0", "1/2"}));
  CHECK(central_weights(1, 4) == R({"1/12", "-2/3", "0", "2/3", "-1/12"}));
  CHECK(central_weights(1, 6) == R({"-1/60", "3/20", "-3/4", "0", "3/4", "-3/20", "1/60"}));
  CHECK(central_weights(1, 8) == R({"1/280", "-4/105", "1/5", "-4/5", "0", "4/5", "-1/5", "4/105", "-1/280"}));
}

TEST_CASE("central second derivatives, orders 2-8") {
  CHECK(central_weights(2, 2) == R({"1", "-2", "1"}));
  CHECK(central_weights(2, 4) == R({"-1/12", "4/3", "-5/2", "4/3", "-1/12"}));
  CHECK(central_weights(2, 6) == R({"1/90", "-3/20", "3/2", "-49/18", "3/2", "-3/20", "1/90"}));
  CHECK(central_weights(2, 8) == R({"-1/560", "8/315", "-1/5", "8/5", "-205/72", "8/5", "-1/5", "8/315", "-1/560"}));
}

TEST_CASE("third and fourth derivatives, order 2") {
  CHECK(central_weights(3, 2) == R({"-1/2", "1", "0", "-1", "1/2"}));
  CHECK(central_weights(4, 2) == R({"1", "-4", "6", "-4", "1"}));
}

TEST_CASE("one-sided weights and exactness on polynomials") {
  CHECK(fornberg_weights(1, {0, 1, 2}) == R({"-3/2", "2", "-1/2"}));
  // D1 of order 8 differentiates x^k exactly for k <= 8: sum_j w_j j^k = k * 0^(k-1)
  const auto w = central_weights(1, 8);
  for (int k = 0; k <= 8; ++k) {
    Rational s = 0;
    for (int j = -4; j <= 4; ++j) {
      Rational p = 1;
      for (int e = 0; e < k; ++e) p *= j;
      s += w[j + 4] * p;
    }
    CHECK(s == Rational(k == 1 ? 1 : 0));
  }
}

TEST_CASE("rational parsing and printing") {
  CHECK(Rational::parse("0.125") == Rational(1, 8));
  CHECK(Rational::parse("-3/12") == Rational(-1, 4));
  CHECK(Rational::parse("2.5e2") == Rational(250));
  CHECK(Rational::parse("1e-3") == Rational(1, 1000));
  CHECK_FALSE(Rational::parse("1/0").has_value());
  CHECK_FALSE(Rational::parse("abc").has_value());
  CHECK_FALSE(Rational::parse("1e400").has_value());
  CHECK(Rational(6, -4).str() == "-3/2");
  CHECK(Rational(1, 3).to_double() == 1.0 / 3.0);
  CHECK_THROWS_AS(Rational(INT64_MAX) * Rational(2), std::overflow_error);
}
