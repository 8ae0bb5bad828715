// Exact rational numbers for stencil coefficients: Fornberg weights and SBP
// closures stay exact until the last print. 64-bit parts, 128-bit
// intermediates; an overflow throws instead of wrapping.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpen {

class Rational {
 public:
  Rational() = default;
  Rational(std::int64_t n) : num_(n) {}  // NOLINT: integers convert implicitly
  Rational(std::int64_t n, std::int64_t d);

  std::int64_t num() const { return num_; }
  std::int64_t den() const { return den_; }
  bool is_zero() const { return num_ == 0; }
  bool is_integer() const { return den_ == 1; }

  // Nearest double (IEEE division of two exactly representable integers is
  // correctly rounded while both fit in 53 bits).
  double to_double() const;
  // Nearest float, with the same care.
  float to_float() const;
  // "3/4", "-2", "0"
  std::string str() const;

  // Parses "3", "-3/4", "0.125", "1e-3", "2.5e2" exactly (one '/' at most,
  // 64 characters at most); nullopt if the text is not such a number or
  // does not fit.
  static std::optional<Rational> parse(const std::string& text);

  friend Rational operator+(const Rational& a, const Rational& b);
  friend Rational operator-(const Rational& a, const Rational& b);
  friend Rational operator*(const Rational& a, const Rational& b);
  friend Rational operator/(const Rational& a, const Rational& b);
  Rational operator-() const;
  Rational& operator+=(const Rational& b) { return *this = *this + b; }
  Rational& operator-=(const Rational& b) { return *this = *this - b; }
  Rational& operator*=(const Rational& b) { return *this = *this * b; }
  Rational& operator/=(const Rational& b) { return *this = *this / b; }
  friend bool operator==(const Rational& a, const Rational& b) { return a.num_ == b.num_ && a.den_ == b.den_; }
  friend bool operator!=(const Rational& a, const Rational& b) { return !(a == b); }
  friend bool operator<(const Rational& a, const Rational& b);

 private:
  static std::optional<Rational> parse_decimal(const std::string& text);
  static Rational from_wide(__int128 n, __int128 d);
  std::int64_t num_ = 0;
  std::int64_t den_ = 1;  // always > 0, gcd(num, den) == 1
};

Rational abs(const Rational& r);

}  // namespace gpen
