#include "gpen/families/scan/scan_plan.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "gpen/generator/tunables.hpp"

namespace gpen {

namespace {

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// Chained columns: a 16-byte carry a column group of vector_x columns of each plane.
long long all_carry_bytes(const ScanGeometry& g, int vector_x) { return g.outer * ceil_div(g.inner, vector_x) * 16; }

}  // namespace

const char* to_string(ScanLayout l) { return l == ScanLayout::Rows ? "rows" : "columns"; }

ScanGeometry scan_lines(int dims, int axis, const std::array<long long, 3>& size) {
  ScanGeometry g;
  for (int ax = 0; ax < dims; ++ax) {
    if (ax < axis) g.inner *= size[ax];
    else if (ax == axis) g.length = size[ax];
    else g.outer *= size[ax];
  }
  return g;
}

ScanGeometry ScanPlan::geometry(int dims, int axis, const std::array<long long, 3>& size, long long l2_bytes) const {
  ScanGeometry g = scan_lines(dims, axis, size);
  if (layout == ScanLayout::Rows) {
    g.segments = ceil_div(g.length, segment());
    g.tiles = ceil_div(g.outer, block_y) * g.segments;
  } else {
    // The block_y groups of threads stack along the axis, each taking
    // values_per_thread steps of a stretch of along * values_per_thread
    // (scan_columns.cuh), unless the axis is too short for them: a stretch
    // past the end leaves its groups idle. So `along` is the largest divisor
    // of block_y whose stretches pad the axis by no more than an eighth of
    // it (or than one group alone would); the other groups sit side by side
    // across the columns. A full stack on a 64-long axis ran far below one
    // group (bench/RESULTS.md, "tenth session").
    //
    // Chained, the axis is cut into layers of values_per_thread steps, one
    // block a layer of its columns, every group side by side
    // (scan_column_layers.cuh), if the carries stay in the L2: they must
    // leave it room for the data streaming through, so at most an eighth of
    // it. Otherwise the blocks walk the axis as unchained: with larger
    // carries, chaining fell below walking (bench/RESULTS.md, "thirteenth session").
    if (chained && all_carry_bytes(g, vector_x) <= l2_bytes / 8) g.layers = ceil_div(g.length, values_per_thread);
    const bool layered = g.layers > 1;
    auto padding = [&](long long d) { return ceil_div(g.length, d * values_per_thread) * d * values_per_thread - g.length; };
    const long long slack = std::max(padding(1), g.length / 8);
    for (long long d = 1; d <= block_y && !layered; ++d)
      if (block_y % d == 0 && padding(d) <= slack) g.along = d;
    const long long across = block_y / g.along;
    const long long tile_columns = static_cast<long long>(block_x) * vector_x * across;
    g.plane_tiles = ceil_div(g.inner, tile_columns);
    g.tiles = g.plane_tiles * g.layers * g.outer;
    // The blocks that run at once take consecutive tiles. In order, they read
    // one window of each plane, and planes that lie a multiple of the memory's
    // interleave apart send every window to the same few DRAM channels (z of
    // 512 x 480 x 512 float64, planes 1.875 MiB apart). So runs of 2 KiB of
    // adjacent columns (which DRAM reads best together) go out spread over
    // `stripes` parts of the plane (bench/RESULTS.md, "twelfth session").
    // spread = the first count >= runs / stripes coprime with runs, so that
    // j -> j * spread mod runs visits every run once.
    g.run_tiles = std::max(1LL, 2048 / (tile_columns * dtype_bytes));
    const long long runs = g.plane_tiles / g.run_tiles;
    if (stripes > 1 && runs >= 2LL * stripes) {
      g.spread = ceil_div(runs, stripes);
      while (std::gcd(g.spread, runs) != 1) ++g.spread;
    }
  }
  return g;
}

long long ScanPlan::carry_bytes(const ScanGeometry& g) const {
  return g.layers > 1 ? all_carry_bytes(g, vector_x) : 0;  // layers > 1 only when chained
}

long long ScanGeometry::tile_of_block(long long b) const {
  const long long runs = plane_tiles / run_tiles;
  if (b >= runs * run_tiles) return b;
  return b / run_tiles * spread % runs * run_tiles + b % run_tiles;
}

LaunchDims ScanPlan::launch(const ScanGeometry& g) const {
  LaunchDims d;
  d.block = {static_cast<unsigned>(block_x), static_cast<unsigned>(block_y), 1};
  d.grid = {static_cast<unsigned>(g.tiles), 1, 1};
  return d;
}

ScanPlan plan_scan(const Spec& spec, const TunableChoice& choice) {
  ScanPlan p;
  p.layout = spec.scan().axis == 0 ? ScanLayout::Rows : ScanLayout::Columns;
  fill_plan(scan_tunable_rows(), choice, p);
  p.dtype_bytes = static_cast<int>(size_of(spec.dtype));
  auto fail = [&](auto member, const std::string& msg, const std::string& expected) { refuse_tunable(spec, scan_tunable_rows(), member, msg, expected); };
  if (p.vector_x != 1 && p.vector_x != 2 && p.vector_x != 4) fail(&ScanPlan::vector_x, fmt::format("vector_x = {} is not a vector width", p.vector_x), "1, 2 or 4");
  if (p.vector_x * size_of(spec.dtype) > 16)
    fail(&ScanPlan::vector_x, fmt::format("vector_x = {} of {} is {} bytes an access", p.vector_x, to_string(spec.dtype), p.vector_x * size_of(spec.dtype)),
         "at most 16 bytes an access (vector_x <= 2 for float64)");
  if (p.chained && p.vector_x * size_of(spec.dtype) > 8)
    fail(&ScanPlan::vector_x, fmt::format("vector_x = {} of {} is {} bytes a column group, chained", p.vector_x, to_string(spec.dtype), p.vector_x * size_of(spec.dtype)),
         "at most 8 bytes when chained, the values a carry holds (vector_x = 1 for float64, <= 2 for float32)");
  if (p.threads() > 1024) fail(&ScanPlan::block_x, fmt::format("block_x * block_y = {} threads", p.threads()), "at most 1024 threads a block");
  if (p.layout == ScanLayout::Rows) {
    if (p.block_x % 32) fail(&ScanPlan::block_x, fmt::format("block_x = {} along a row", p.block_x), "a multiple of 32: each row of a block is whole warps");
    if (p.values_per_thread % p.vector_x)
      fail(&ScanPlan::vector_x, fmt::format("vector_x = {} does not divide values_per_thread = {}", p.vector_x, p.values_per_thread),
           "a vector width that divides values_per_thread");
  }
  p.kernel_name = fmt::format("gpen_{}_scan_{}", spec.name, to_string(p.layout));
  return p;
}

}  // namespace gpen
