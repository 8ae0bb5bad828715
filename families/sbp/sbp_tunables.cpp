// The SBP family's tunables: its table and what an operator along given
// axes may choose. A thread a point (direct) or pencils staged in shared
// memory along one axis, whose two sides are tunables of their own,
// independent of the block's threads (seed 001's Approach 3).
#include "gpen/families/common/tunable_offer.hpp"
#include "gpen/families/sbp/sbp_plan.hpp"

namespace gpen {

const std::vector<TunableRow<SbpPlan>>& sbp_tunable_rows() {
  static const std::vector<TunableRow<SbpPlan>> rows = {
      {"strategy", "direct: a thread a point; pencil: a block stages a pencil of the array in shared memory (one axis)", "", "", {}},
      {"block_x", "threads of a block along x", "kBlockX", "", &SbpPlan::block_x},
      {"block_y", "threads of a block along y", "kBlockY", "", &SbpPlan::block_y},
      {"pencil_along", "points of a pencil along the operator's axis", "kAlong", "pencil", &SbpPlan::along},
      {"pencil_across", "points of a pencil across it", "kAcross", "pencil", &SbpPlan::across},
  };
  return rows;
}

std::vector<TunableOffer> sbp_offers(const Spec& spec) {
  const auto& t = sbp_tunable_rows();
  const bool one_axis = spec.sbp().axes.size() == 1;
  const bool along_x = one_axis && spec.sbp().axes[0] == 0;
  // Defaults: the fastest variants of D2 order 4 on an H100 (bench/RESULTS.md, "fourth session"):
  // along y or z, 32x32 pencils for 32x4 threads; along x, long 256-point
  // pencils for 64 threads, except in 3-D, where a thread a point (128x1) wins.
  const bool direct = !one_axis || (along_x && spec.dims == 3);
  // A pencil follows one axis: operators along several axes (a Laplacian) are direct only.
  std::vector<std::string> strategies = {"direct"};
  if (one_axis) strategies.push_back("pencil");
  std::vector<TunableOffer> b;
  b.push_back(offer_strategy(t, strategies, direct ? "direct" : "pencil", {"direct", "pencil"}));
  if (!one_axis) b.back().values_note = "a pencil follows one axis, and this operator is along several";
  b.push_back(offer(row_of(t, &SbpPlan::block_x), {32LL, 64LL, 128LL, 256LL}, along_x ? (spec.dims == 3 ? 128 : 64) : 32, 1, 1024));
  if (spec.dims > 1) b.push_back(offer(row_of(t, &SbpPlan::block_y), {1LL, 2LL, 4LL, 8LL, 16LL}, along_x ? 1 : 4, 1, 1024));
  else b.push_back(offer(row_of(t, &SbpPlan::block_y), {1LL}, 1, 1, 1));
  const long long along = along_x ? 256 : 32, across = spec.dims == 1 || along_x ? 1 : 32;
  b.push_back(offer(row_of(t, &SbpPlan::along), {8LL, 16LL, 32LL, 64LL, 128LL, 256LL}, along, 1, 4096, along));
  if (spec.dims > 1) b.push_back(offer(row_of(t, &SbpPlan::across), {1LL, 2LL, 4LL, 8LL, 16LL, 32LL, 64LL}, across, 1, 1024, across));
  else b.push_back(offer(row_of(t, &SbpPlan::across), {1LL}, 1, 1, 1, 1));
  return b;
}

}  // namespace gpen
