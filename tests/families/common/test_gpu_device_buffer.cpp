// GPU: a field's interior up and down (DeviceBuffer::upload_interior and
// download_interior) against the host model (HostArray's set_interior and
// interior_values): the ghosts 0 on the way up, every value rounded to the
// dtype once, 1-D to 3-D, at a size whose rows spread over the cores.
#include <array>
#include <cmath>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "gpen/families/common/device_buffer.hpp"
#include "gpen/families/common/host_array.hpp"
#include "gpen/runtime/device.hpp"

using namespace gpen;

namespace {

std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

double rounded(double v, Dtype dt) { return dt == Dtype::Float32 ? static_cast<double>(static_cast<float>(v)) : v; }

void check_round_trip(Dtype dt, int dims, std::array<long long, 3> shape, int ghost) {
  CAPTURE(to_string(dt));
  CAPTURE(dims);
  CAPTURE(shape[0]);
  CAPTURE(ghost);
  const std::vector<double> values = random_values(static_cast<std::size_t>(shape[0] * shape[1] * shape[2]), 11 + static_cast<std::uint64_t>(dims));
  HostArray want(dims, shape, ghost);
  set_interior(want, values);
  for (double& v : want.data) v = rounded(v, dt);

  DeviceBuffer b(dt, dims, shape, ghost);
  b.upload(std::vector<double>(b.elements(), std::nan("")));  // ghosts the upload must clear
  b.upload_interior(values);
  const std::vector<double> padded = b.download();
  long long differ = 0;
  for (std::size_t i = 0; i < padded.size(); ++i) differ += padded[i] != want.data[i];  // NaN differs
  CHECK(differ == 0);

  const std::vector<double> back = b.download_interior();
  REQUIRE(back.size() == values.size());
  differ = 0;
  for (std::size_t i = 0; i < back.size(); ++i) differ += back[i] != rounded(values[i], dt);
  CHECK(differ == 0);
  CHECK(back == interior_values(want));
}

}  // namespace

TEST_CASE("a field's interior up and down: ghosts 0, values the host model's") {
  static Context ctx(0);
  for (Dtype dt : {Dtype::Float64, Dtype::Float32}) {
    check_round_trip(dt, 1, {23, 1, 1}, 2);
    check_round_trip(dt, 2, {17, 9, 1}, 3);
    check_round_trip(dt, 3, {13, 11, 9}, 3);
    check_round_trip(dt, 3, {13, 11, 9}, 0);
    check_round_trip(dt, 3, {301, 150, 97}, 4);  // 2^22 points and more: the rows on every core
  }
  DeviceBuffer b(Dtype::Float64, 3, {5, 4, 3}, 1);
  CHECK_THROWS_WITH(b.upload_interior(std::vector<double>(59)), doctest::Contains("59 values into the interior of 5x4x3 = 60 points"));
  const DeviceBuffer pitched = DeviceBuffer::view(b.get(), Dtype::Float64, 3, {5, 4, 1}, 1, Pitch{8, 8 * 6});
  CHECK_THROWS_WITH(pitched.download_interior(), doctest::Contains("only packed arrays"));
}
