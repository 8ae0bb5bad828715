#include "gpen/families/pairwise/pair_slices.hpp"

#include <algorithm>
#include <cmath>

namespace gpen {

namespace {
constexpr long long kWaves = 8;
constexpr long long kMaxSlices = 32;
constexpr double kLeastTiles = 2;  // an average block's tiles a slice
}  // namespace

long long most_host_slices(long long blocks, long long resident) {
  const long long b = std::max(1LL, blocks), r = std::max(1LL, resident);
  return std::clamp((kWaves * r + b - 1) / b, 1LL, kMaxSlices);
}

long long host_slices(const SliceLoad& load) {
  const auto by_tiles = static_cast<long long>(std::floor(std::max(0.0, load.mean_tiles) / kLeastTiles));
  return std::clamp(most_host_slices(load.blocks, load.resident), 1LL, std::max(1LL, by_tiles));
}

}  // namespace gpen
