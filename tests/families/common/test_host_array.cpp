// The interior of a padded host array, out and back: what snapshots and
// the GPU loop's uploads go through, on one core and spread over the cores.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "gpen/families/common/host_array.hpp"

using gpen::HostArray;

namespace {

// Every point distinct (the ghosts negative), the interior set from its flat
// index and read back; the ghosts untouched.
void check_round_trip(int dims, std::array<long long, 3> shape, int ghost) {
  HostArray a(dims, shape, ghost);
  for (std::size_t f = 0; f < a.data.size(); ++f) a.data[f] = -1.0 - static_cast<double>(f);
  const std::vector<double> ghosts_before = a.data;
  std::vector<double> v(static_cast<std::size_t>(shape[0] * shape[1] * shape[2]));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) * 0.5;
  gpen::set_interior(a, v);
  long long wrong = 0, ghost_changed = 0;
  for (long long k = 0; k < shape[2]; ++k)
    for (long long j = 0; j < shape[1]; ++j)
      for (long long i = 0; i < shape[0]; ++i)
        if (a.at(i, j, k) != static_cast<double>(i + shape[0] * (j + shape[1] * k)) * 0.5) ++wrong;
  for (std::size_t f = 0; f < a.data.size(); ++f)
    if (!a.is_interior(f) && a.data[f] != ghosts_before[f]) ++ghost_changed;
  CHECK(wrong == 0);
  CHECK(ghost_changed == 0);
  CHECK(gpen::interior_values(a) == v);
}

}  // namespace

TEST_CASE("a host array's interior out and back, small (one core) and large (every core), 1-D to 3-D, with and without ghosts") {
  check_round_trip(3, {7, 5, 3}, 2);
  check_round_trip(2, {11, 6, 1}, 3);
  check_round_trip(1, {13, 1, 1}, 1);
  check_round_trip(3, {5, 4, 3}, 0);
  // Over 2^22 points: rows spread over the cores.
  check_round_trip(3, {129, 181, 181}, 3);
  check_round_trip(2, {2053, 2049, 1}, 2);
}

TEST_CASE("a host array's interior from too few or too many values is refused") {
  HostArray a(3, {4, 3, 2}, 1);
  CHECK_THROWS_AS(gpen::set_interior(a, std::vector<double>(23)), std::invalid_argument);
  CHECK_THROWS_AS(gpen::set_interior(a, std::vector<double>(25)), std::invalid_argument);
  CHECK_NOTHROW(gpen::set_interior(a, std::vector<double>(24)));
}

TEST_CASE("the comparison of arrays larger than its stretches finds what one pass over them finds") {
  // 104 x 64 x 44 padded points: five stretches of 2^16, compared side by side.
  const std::array<long long, 3> shape{100, 60, 40};
  HostArray want(3, shape, 2), got(3, shape, 2), poison(3, shape, 2);
  for (std::size_t f = 0; f < want.data.size(); ++f) want.data[f] = std::sin(0.001 * static_cast<double>(f)) + 2.0;
  want.at(3, 40, 10) = want.at(99, 59, 39) = 2.0;  // errors of 2^-10 there are exact: a tie
  gpen::fill_nan(poison);
  got.data = poison.data;
  for (long long k = 0; k < shape[2]; ++k)
    for (long long j = 0; j < shape[1]; ++j)
      for (long long i = 0; i < shape[0]; ++i) got.at(i, j, k) = want.at(i, j, k);
  gpen::Comparison c = gpen::compare(got, want, poison, 1e-12);
  CHECK(c.pass);
  CHECK(c.max_abs == 0);
  CHECK(c.rel_l2 == 0);
  // The largest error twice, in the second and the last stretch: the first is named.
  got.at(3, 40, 10) += 0x1p-10;
  got.at(99, 59, 39) -= 0x1p-10;
  got.at(50, 2, 1) += 1e-4;
  got.at(7, 7, 30) = std::nan("");
  got.at(-2, 0, 0) = 1.0;   // a ghost written
  got.at(0, 60, 39) = 2.0;  // another
  c = gpen::compare(got, want, poison, 1e-12);
  CHECK(!c.pass);
  CHECK(c.max_abs == 0x1p-10);
  CHECK(c.worst == std::array<long long, 3>{3, 40, 10});
  CHECK(c.non_finite == 1);
  CHECK(c.ghost_changed == 2);
  double num = 0, den = 0;
  for (long long k = 0; k < shape[2]; ++k)
    for (long long j = 0; j < shape[1]; ++j)
      for (long long i = 0; i < shape[0]; ++i) {
        if (!std::isfinite(got.at(i, j, k))) continue;
        const double d = got.at(i, j, k) - want.at(i, j, k);
        num += d * d;
        den += want.at(i, j, k) * want.at(i, j, k);
      }
  CHECK(c.rel_l2 == doctest::Approx(std::sqrt(num / den)).epsilon(1e-12));
}
