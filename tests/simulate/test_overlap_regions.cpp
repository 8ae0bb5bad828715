// The cut of a subdomain into shell and core for the overlap (issue 30):
// every point in exactly one box; a point in the shell exactly where it
// lies within its axis's width of a face with a neighbour; thin axes; and the
// views a box's kernel launches on, checked against offsets by hand.
#include <vector>

#include <doctest/doctest.h>

#include "gpen/simulate/overlap_regions.hpp"

using namespace gpen;
using namespace gpen::sim;

namespace {

// How many of `boxes` hold point (x, y, z).
int covering(const std::vector<HaloBox>& boxes, long long x, long long y, long long z) {
  int n = 0;
  for (const HaloBox& b : boxes)
    n += b.begin[0] <= x && x < b.end[0] && b.begin[1] <= y && y < b.end[1] && b.begin[2] <= z && z < b.end[2];
  return n;
}

}  // namespace

TEST_CASE("a subdomain's shell and core cover it once, the shell being the points within the width of an exchanged face") {
  int cases = 0;
  for (const std::array<long long, 3> extent : {std::array<long long, 3>{9, 7, 6}, std::array<long long, 3>{4, 5, 3}, std::array<long long, 3>{2, 11, 1}})
    for (int dims = 1; dims <= 3; ++dims)
      for (unsigned faces = 0; faces < 64; ++faces)
        for (const std::array<long long, 3> width : {std::array<long long, 3>{1, 1, 1}, std::array<long long, 3>{2, 2, 2}, std::array<long long, 3>{3, 1, 2},
                                                     std::array<long long, 3>{4, 3, 3}}) {
          std::array<std::array<bool, 2>, 3> exchanged{};
          for (int a = 0; a < dims; ++a)
            for (int side = 0; side < 2; ++side) exchanged[a][side] = faces >> (2 * a + side) & 1u;
          if (faces >> (2 * dims)) continue;  // faces of axes the grid lacks
          std::array<long long, 3> e{1, 1, 1};
          for (int a = 0; a < dims; ++a) e[a] = extent[a];
          const OverlapRegions r = overlap_regions(e, dims, exchanged, width);
          CAPTURE(dims);
          CAPTURE(faces);
          CAPTURE(width[0]);
          CAPTURE(width[1]);
          CAPTURE(width[2]);
          CHECK(r.core.size() <= 1);
          for (const HaloBox& b : r.shell) CHECK(b.points() > 0);
          std::vector<HaloBox> all = r.shell;
          all.insert(all.end(), r.core.begin(), r.core.end());
          long long wrong = 0, total = 0;
          for (long long z = 0; z < e[2]; ++z)
            for (long long y = 0; y < e[1]; ++y)
              for (long long x = 0; x < e[0]; ++x) {
                const long long at[3] = {x, y, z};
                bool near = false;
                for (int a = 0; a < dims; ++a)
                  near = near || (exchanged[a][0] && at[a] < width[a]) || (exchanged[a][1] && at[a] >= e[a] - width[a]);
                wrong += covering(all, x, y, z) != 1 || covering(r.shell, x, y, z) != (near ? 1 : 0);
                ++total;
              }
          for (const HaloBox& b : all)
            for (int a = 0; a < 3; ++a) CHECK((b.begin[a] >= 0 && b.end[a] <= e[a]));
          CHECK(wrong == 0);
          CHECK(total == e[0] * e[1] * e[2]);
          ++cases;
        }
  CHECK(cases == 3 * (4 + 16 + 64) * 4);
  // A width of 0: no slab along that axis.
  const OverlapRegions none_along_x = overlap_regions({9, 7, 6}, 3, {{{true, true}, {true, false}, {false, false}}}, {0, 2, 2});
  REQUIRE(none_along_x.shell.size() == 1);
  CHECK(none_along_x.shell[0].end[1] == 2);
  REQUIRE(none_along_x.core.size() == 1);
  CHECK(none_along_x.core[0].points() == 9 * 5 * 6);
  // No neighbour: the core alone; every face exchanged on a thin axis: the shell alone.
  CHECK(overlap_regions({9, 7, 6}, 3, {}, {2, 2, 2}).shell.empty());
  const OverlapRegions thin = overlap_regions({3, 8, 8}, 3, {{{true, true}, {false, false}, {false, false}}}, {2, 2, 2});
  CHECK(thin.core.empty());
  REQUIRE(thin.shell.size() == 2);
  CHECK(thin.shell[0].end[0] == 2);
  CHECK(thin.shell[1].begin[0] == 2);
}

TEST_CASE("a box's view: the array's memory from the box's first point, in its pitches, with its ghosts around the box") {
  const CUdeviceptr base = 0x100000;  // never dereferenced
  // Packed 3-D, ghost 2: padded 14 x 11 x 10.
  const DeviceBuffer b = DeviceBuffer::view(base, Dtype::Float64, 3, {10, 7, 6}, 2);
  const DeviceBuffer box = box_view(b, HaloBox{{3, 1, 4}, {8, 3, 6}});
  CHECK(box.get() == base + 8 * (3 + 1 * 14 + 4 * 14 * 11));
  CHECK(box.shape() == std::array<long long, 3>{5, 2, 2});
  CHECK(box.ghost() == 2);
  CHECK(box.pitch().row == 14);
  CHECK(box.pitch().plane == 14 * 11);
  CHECK(!box.packed());
  // The same array with one ghost: one point in along each axis.
  const DeviceBuffer narrower = moved_view(b, {1, 1, 1}, b.shape(), 1);
  CHECK(narrower.get() == base + 8 * (1 + 14 + 14 * 11));
  CHECK(narrower.pitch().row == 14);
  // The caller's pitched 2-D float32 array: its row pitch kept.
  const DeviceBuffer pitched = DeviceBuffer::view(base, Dtype::Float32, 2, {10, 7, 1}, 1, Pitch{32, 0});
  const DeviceBuffer row_box = moved_view(pitched, {0, 5, 0}, {10, 2, 1}, 1);
  CHECK(row_box.get() == base + 4 * 5 * 32);
  CHECK(row_box.pitch().row == 32);
  // 1-D: no pitch.
  const DeviceBuffer line = DeviceBuffer::view(base, Dtype::Float64, 1, {20, 1, 1}, 3);
  CHECK(moved_view(line, {17, 0, 0}, {3, 1, 1}, 3).get() == base + 8 * 17);
}
