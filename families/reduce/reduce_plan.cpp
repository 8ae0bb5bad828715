#include "gpen/families/reduce/reduce_plan.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpen {

std::array<bool, 3> reduced_axes(const Spec& spec) {
  std::array<bool, 3> r{};
  for (int a = 0; a < 3; ++a) r[a] = a >= spec.dims || (spec.reduce().axes >> a & 1u);
  return r;
}

bool reduces_rows(const Spec& spec) {
  const auto r = reduced_axes(spec);
  return (spec.dims > 1 && r[1]) || (spec.dims > 2 && r[2]);
}

std::string reduced_axis_names(const Spec& spec) {
  std::vector<std::string> v;
  for (int a = 0; a < spec.dims; ++a)
    if (reduced_axes(spec)[a]) v.push_back(axis_name(a));
  return fmt::format("{}", fmt::join(v, ", "));
}

Dtype accumulator_dtype(const Spec& spec) { return spec.reduce().accumulate64 ? Dtype::Float64 : spec.dtype; }

ReduceGeometryArgs ReducePlan::geometry(const std::array<long long, 3>& interior) const {
  ReduceGeometryArgs g{};
  g.nx = interior[0];
  g.ny = interior[1];
  g.nz = interior[2];
  g.kept_rows = (reduced[1] ? 1 : g.ny) * (reduced[2] ? 1 : g.nz);
  g.reduced_rows = (reduced[1] ? g.ny : 1) * (reduced[2] ? g.nz : 1);
  // A block's chunk: about threads x points_per_thread points, in whole
  // rows, or parts of rows longer than that (x reduced), or rows of block_x
  // columns (x kept).
  const long long chunk_points = static_cast<long long>(threads()) * points_per_thread;
  if (reduced[0]) {
    g.x_segment = g.nx > chunk_points ? (chunk_points + block_x - 1) / block_x * block_x : g.nx;
    g.x_blocks = (g.nx + g.x_segment - 1) / g.x_segment;
    g.rows_per_chunk = g.x_blocks > 1 ? 1 : (chunk_points + g.nx - 1) / g.nx;
  } else {
    g.x_segment = block_x;
    g.x_blocks = (g.nx + block_x - 1) / block_x;
    g.rows_per_chunk = static_cast<long long>(block_y) * points_per_thread;
  }
  // Enough blocks without partials: each walks its result points' rows whole.
  if (g.x_blocks * g.kept_rows >= kReduceEnoughBlocks && !reduced[0]) g.rows_per_chunk = g.reduced_rows;
  if (reduced[0] && g.kept_rows >= kReduceEnoughBlocks) {
    g.x_segment = g.nx;
    g.x_blocks = 1;
    g.rows_per_chunk = g.reduced_rows;
  }
  g.rows_per_chunk = std::max(1LL, std::min(g.rows_per_chunk, g.reduced_rows));
  g.chunks = (g.reduced_rows + g.rows_per_chunk - 1) / g.rows_per_chunk;
  g.partials = g.chunks * (reduced[0] ? g.x_blocks : 1);
  return g;
}

long long ReducePlan::result_points(const std::array<long long, 3>& interior) const {
  long long n = 1;
  for (int a = 0; a < 3; ++a) n *= reduced[a] ? 1 : interior[a];
  return n;
}

LaunchDims ReducePlan::launch(const ReduceGeometryArgs& g) const {
  LaunchDims d;
  d.grid = {static_cast<unsigned>(g.x_blocks * g.chunks * g.kept_rows), 1, 1};
  d.block = {static_cast<unsigned>(block_x), static_cast<unsigned>(block_y), 1};
  return d;
}

LaunchDims ReducePlan::final_launch(const ReduceGeometryArgs& g) const {
  const long long points = (reduced[0] ? 1 : g.nx) * g.kept_rows;
  constexpr long long per_block = kReduceFinalThreads / 32;
  LaunchDims d;
  d.grid = {static_cast<unsigned>((points + per_block - 1) / per_block), 1, 1};
  d.block = {static_cast<unsigned>(kReduceFinalThreads), 1, 1};
  return d;
}

ReducePlan plan_reduce(const Spec& spec, const TunableChoice& choice) {
  ReducePlan p;
  fill_plan(reduce_tunable_rows(), choice, p);
  p.reduced = reduced_axes(spec);
  p.kernel_name = "gpen_" + spec.name;
  p.final_kernel_name = p.kernel_name + "_final";
  auto fail = [&](auto member, const std::string& msg, const std::string& expected) { refuse_tunable(spec, reduce_tunable_rows(), member, msg, expected); };
  if (p.block_x < 1 || p.block_y < 1 || p.threads() > 1024) fail(&ReducePlan::block_x, fmt::format("block_x * block_y = {} threads", p.threads()), "1 to 1024 threads a block");
  if (p.threads() % 32) fail(&ReducePlan::block_x, fmt::format("block_x * block_y = {} threads", p.threads()), "whole warps: a multiple of 32 threads (warps combine by shuffles)");
  if (p.points_per_thread < 1) fail(&ReducePlan::points_per_thread, fmt::format("points_per_thread = {}", p.points_per_thread), "at least 1");
  if (p.batch < 1 || p.batch > 16) fail(&ReducePlan::batch, fmt::format("batch = {}", p.batch), "1 to 16 points computed before they are combined");
  if (p.block_y > 1 && !reduces_rows(spec))
    fail(&ReducePlan::block_y, fmt::format("block_y = {} with no axis but x reduced: each result point has one row", p.block_y),
         "1 (threads across rows take every block_y-th row of a result point)");
  return p;
}

}  // namespace gpen
