#include "gpen/generator/fornberg.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpen {

std::vector<Rational> fornberg_weights(int derivative, const std::vector<int>& offsets) {
  const int n = static_cast<int>(offsets.size());
  const int m = derivative;
  if (m < 0 || n <= m) throw std::invalid_argument("fornberg_weights: need more points than the derivative order");
  // c[i][k]: weight of point i for the k-th derivative, using points 0..i so far.
  std::vector<std::vector<Rational>> c(n, std::vector<Rational>(m + 1));
  Rational c1 = 1;
  Rational c4 = offsets[0];
  c[0][0] = 1;
  for (int i = 1; i < n; ++i) {
    const int mn = std::min(i, m);
    Rational c2 = 1;
    const Rational c5 = c4;
    c4 = offsets[i];
    for (int j = 0; j < i; ++j) {
      const Rational c3 = Rational(offsets[i]) - Rational(offsets[j]);
      c2 *= c3;
      if (j == i - 1) {
        for (int k = mn; k >= 1; --k) c[i][k] = c1 * (Rational(k) * c[i - 1][k - 1] - c5 * c[i - 1][k]) / c2;
        c[i][0] = -c1 * c5 * c[i - 1][0] / c2;
      }
      for (int k = mn; k >= 1; --k) c[j][k] = (c4 * c[j][k] - Rational(k) * c[j][k - 1]) / c3;
      c[j][0] = c4 * c[j][0] / c3;
    }
    c1 = c2;
  }
  std::vector<Rational> w(n);
  for (int i = 0; i < n; ++i) w[i] = c[i][m];
  return w;
}

int central_radius(int derivative, int order) { return (derivative - 1) / 2 + order / 2; }

std::vector<Rational> central_weights(int derivative, int order) {
  if (derivative < 1 || order < 2 || order % 2 != 0) {
    throw std::invalid_argument("central_weights: derivative >= 1 and an even order >= 2");
  }
  const int r = central_radius(derivative, order);
  std::vector<int> offsets;
  for (int k = -r; k <= r; ++k) offsets.push_back(k);
  return fornberg_weights(derivative, offsets);
}

}  // namespace gpen
