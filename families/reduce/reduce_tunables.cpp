// The reduction family's tunables: its table and what a spec may choose.
#include "gpen/families/common/tunable_offer.hpp"
#include "gpen/families/reduce/reduce_plan.hpp"

namespace gpen {

const std::vector<TunableRow<ReducePlan>>& reduce_tunable_rows() {
  static const std::vector<TunableRow<ReducePlan>> rows = {
      {"block_x", "threads of a block along x (x reduced: along its rows; x kept: its columns)", "kBlockX", "", &ReducePlan::block_x},
      {"block_y", "threads of a block across rows, each taking every block_y-th row", "kBlockY", "", &ReducePlan::block_y},
      {"points_per_thread", "points a thread combines before the block does (the chunk a block takes)", "", "", &ReducePlan::points_per_thread},
      {"batch", "points a thread computes before it combines them (loads in flight)", "kBatch", "", &ReducePlan::batch},
  };
  return rows;
}

std::vector<TunableOffer> reduce_offers(const Spec& spec) {
  const auto& t = reduce_tunable_rows();
  const bool x_reduced = reduced_axes(spec)[0];
  // Rows of other rows to take: a result of x alone has one row.
  const bool rows_reduced = reduces_rows(spec);
  std::vector<TunableOffer> b;
  // Defaults, on an H100 at 512^3 (bench/RESULTS.md, "twenty-second
  // session"): the float64 sum and maximum at 99-101% of copy with 128 x 4
  // threads and 64 points a thread, float32 with 8 loads in flight a thread;
  // rows along x alone at 79% with 64 threads a row (128: 44%); columns
  // (x kept) at 67% whatever the block, and slower with 8 loads in flight.
  b.push_back(offer(row_of(t, &ReducePlan::block_x), {32LL, 64LL, 128LL, 256LL, 512LL}, !x_reduced ? 32 : rows_reduced ? 128 : 64, 1, 1024));
  if (rows_reduced) b.push_back(offer(row_of(t, &ReducePlan::block_y), {1LL, 2LL, 4LL, 8LL}, x_reduced ? 4 : 8, 1, 1024));
  else b.push_back(offer(row_of(t, &ReducePlan::block_y), {1LL}, 1, 1, 1024));
  b.push_back(offer(row_of(t, &ReducePlan::points_per_thread), {4LL, 8LL, 16LL, 32LL, 64LL, 128LL}, 64, 1, 1 << 20));
  b.push_back(offer(row_of(t, &ReducePlan::batch), {1LL, 2LL, 4LL, 8LL}, spec.dtype == Dtype::Float32 && x_reduced && rows_reduced ? 8 : 4, 1, 16));
  return b;
}

}  // namespace gpen
