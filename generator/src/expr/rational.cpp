#include "gpen/generator/rational.hpp"

#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "gpen/generator/limits.hpp"

namespace gpen {
namespace {

__int128 gcd128(__int128 a, __int128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    const __int128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

}  // namespace

Rational::Rational(std::int64_t n, std::int64_t d) { *this = from_wide(n, d); }

Rational Rational::from_wide(__int128 n, __int128 d) {
  if (d == 0) throw std::domain_error("rational with zero denominator");
  if (d < 0) { n = -n; d = -d; }
  const __int128 g = gcd128(n, d);
  if (g > 1) { n /= g; d /= g; }
  if (n > kMax || n < -kMax || d > kMax) throw std::overflow_error("rational coefficient overflows 64 bits");
  Rational r;
  r.num_ = static_cast<std::int64_t>(n);
  r.den_ = static_cast<std::int64_t>(d);
  return r;
}

Rational operator+(const Rational& a, const Rational& b) {
  return Rational::from_wide(static_cast<__int128>(a.num_) * b.den_ + static_cast<__int128>(b.num_) * a.den_,
                             static_cast<__int128>(a.den_) * b.den_);
}
Rational operator-(const Rational& a, const Rational& b) { return a + (-b); }
Rational operator*(const Rational& a, const Rational& b) {
  return Rational::from_wide(static_cast<__int128>(a.num_) * b.num_, static_cast<__int128>(a.den_) * b.den_);
}
Rational operator/(const Rational& a, const Rational& b) {
  return Rational::from_wide(static_cast<__int128>(a.num_) * b.den_, static_cast<__int128>(a.den_) * b.num_);
}
Rational Rational::operator-() const {
  Rational r = *this;
  r.num_ = -r.num_;
  return r;
}
bool operator<(const Rational& a, const Rational& b) {
  return static_cast<__int128>(a.num_) * b.den_ < static_cast<__int128>(b.num_) * a.den_;
}
Rational abs(const Rational& r) { return r.num() < 0 ? -r : r; }

double Rational::to_double() const {
  constexpr std::int64_t k53 = std::int64_t{1} << 53;
  if (num_ > -k53 && num_ < k53 && den_ < k53) return static_cast<double>(num_) / static_cast<double>(den_);
  return static_cast<double>(static_cast<long double>(num_) / static_cast<long double>(den_));
}

float Rational::to_float() const {
  constexpr std::int64_t k24 = std::int64_t{1} << 24;
  if (num_ > -k24 && num_ < k24 && den_ < k24) return static_cast<float>(num_) / static_cast<float>(den_);
  return static_cast<float>(to_double());
}

std::string Rational::str() const {
  return den_ == 1 ? std::to_string(num_) : std::to_string(num_) + "/" + std::to_string(den_);
}

std::optional<Rational> Rational::parse(const std::string& text) {
  // One fraction "p/q" of two decimals, or one decimal; nothing longer than
  // a spec writes (a long string would only cost time).
  if (text.size() > kMaxNumberChars) return std::nullopt;
  const auto slash = text.find('/');
  if (slash != std::string::npos) {
    if (text.find('/', slash + 1) != std::string::npos) return std::nullopt;  // "1/2/3" is no fraction
    const auto n = parse_decimal(text.substr(0, slash));
    const auto d = parse_decimal(text.substr(slash + 1));
    if (!n || !d || d->is_zero()) return std::nullopt;
    try {
      return *n / *d;
    } catch (const std::overflow_error&) {
      return std::nullopt;
    }
  }
  return parse_decimal(text);
}

std::optional<Rational> Rational::parse_decimal(const std::string& text) {
  try {
    std::size_t i = 0;
    bool neg = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) neg = text[i++] == '-';
    __int128 mant = 0;
    int scale = 0;  // value = mant * 10^scale
    bool digits = false, dot = false;
    for (; i < text.size(); ++i) {
      const char c = text[i];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        digits = true;
        mant = mant * 10 + (c - '0');
        if (mant > kMax) return std::nullopt;
        if (dot) --scale;
      } else if (c == '.' && !dot) {
        dot = true;
      } else {
        break;
      }
    }
    if (!digits) return std::nullopt;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
      ++i;
      bool eneg = false;
      if (i < text.size() && (text[i] == '-' || text[i] == '+')) eneg = text[i++] == '-';
      int e = 0;
      bool edigits = false;
      for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
        edigits = true;
        e = e * 10 + (text[i] - '0');
        if (e > 40) return std::nullopt;
      }
      if (!edigits) return std::nullopt;
      scale += eneg ? -e : e;
    }
    if (i != text.size()) return std::nullopt;
    __int128 den = 1;
    for (; scale > 0; --scale) { mant *= 10; if (mant > kMax) return std::nullopt; }
    for (; scale < 0; ++scale) { den *= 10; if (den > kMax) return std::nullopt; }
    return Rational::from_wide(neg ? -mant : mant, den);
  } catch (const std::overflow_error&) {
    return std::nullopt;
  }
}

}  // namespace gpen
