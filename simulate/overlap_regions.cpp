#include "overlap_regions.hpp"

#include <algorithm>

namespace gpen::sim {

long long Box::points() const {
  const auto s = shape();
  return std::max(0LL, s[0]) * std::max(0LL, s[1]) * std::max(0LL, s[2]);
}

OverlapRegions overlap_regions(const std::array<long long, 3>& extent, int dims, const std::array<std::array<bool, 2>, 3>& exchanged,
                               const std::array<long long, 3>& width) {
  OverlapRegions r;
  Box rest;  // what the slabs so far left
  for (int a = 0; a < dims; ++a) rest.hi[static_cast<std::size_t>(a)] = extent[static_cast<std::size_t>(a)];
  for (std::size_t a = 0; a < static_cast<std::size_t>(dims); ++a) {
    if (rest.points() == 0) break;
    if (width[a] <= 0) continue;  // no slab: all core
    if (exchanged[a][0]) {
      Box slab = rest;
      slab.hi[a] = std::min(rest.hi[a], rest.lo[a] + width[a]);
      rest.lo[a] = slab.hi[a];
      r.shell.push_back(slab);
    }
    if (exchanged[a][1] && rest.hi[a] > rest.lo[a]) {
      Box slab = rest;
      slab.lo[a] = std::max(rest.lo[a], rest.hi[a] - width[a]);
      rest.hi[a] = slab.lo[a];
      r.shell.push_back(slab);
    }
  }
  if (rest.points() > 0) r.core.push_back(rest);
  return r;
}

DeviceBuffer moved_view(const DeviceBuffer& b, const std::array<long long, 3>& by, const std::array<long long, 3>& shape, int ghost) {
  const Pitch pitch = b.pitch();  // the caller's, or packed
  long long offset = by[0];
  if (b.dims() > 1) offset += by[1] * pitch.row;
  if (b.dims() > 2) offset += by[2] * pitch.plane;
  return DeviceBuffer::view(b.get() + static_cast<CUdeviceptr>(offset * static_cast<long long>(size_of(b.dtype()))), b.dtype(), b.dims(), shape, ghost,
                            b.dims() == 1 ? Pitch{} : pitch);
}

}  // namespace gpen::sim
