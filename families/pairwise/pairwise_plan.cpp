#include "gpen/families/pairwise/pairwise_plan.hpp"

#include <fmt/format.h>

#include "gpen/families/pairwise/pairwise_scope.hpp"
#include "gpen/generator/gpu_limits.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen {

const char* to_string(PairStrategy s) {
  return s == PairStrategy::Tile ? "tile" : s == PairStrategy::Grouped ? "grouped" : "blocks";
}

std::size_t packed_source_bytes(const Spec& spec) {
  const std::size_t values = spec.pairwise().read_by(true, spec.output_exprs()).size();
  const std::size_t bytes = values * size_of(spec.dtype);
  return (bytes + 15) / 16 * 16;
}

PairwisePlan plan_pairwise(const Spec& spec, const TunableChoice& choice) {
  PairwisePlan p;
  const std::string st = tunable_string(choice, kStrategyTunable);
  p.strategy = st == "grouped" ? PairStrategy::Grouped : st == "blocks" ? PairStrategy::Blocks : PairStrategy::Tile;
  fill_plan(pairwise_tunable_rows(), choice, p);
  auto fail = [&](auto member, const std::string& msg, const std::string& expected) { refuse_tunable(spec, pairwise_tunable_rows(), member, msg, expected); };
  if (p.block % 32) fail(&PairwisePlan::block, fmt::format("block_x = {} threads", p.block), "a multiple of 32: whole warps share each source tile");
  if (p.target_lanes < 1 || (p.target_lanes & (p.target_lanes - 1)))
    fail(&PairwisePlan::target_lanes, fmt::format("target_lanes = {}", p.target_lanes), "a power of two: lanes halve a chunk's targets");
  if (p.flag_chunk != 1 && p.flag_chunk != 2 && p.flag_chunk != 4)
    fail(&PairwisePlan::flag_chunk, fmt::format("flag_chunk = {}", p.flag_chunk), "1, 2 or 4 sources a test");
  if (p.block % p.unroll) fail(&PairwisePlan::unroll, fmt::format("unroll = {} for tiles of {} sources", p.unroll, p.block), "a divisor of block_x");
  // Block on block's tunables are refused with the others rather than ignored.
  check_strategy_tunables(spec, choice);
  p.source_bytes = packed_source_bytes(spec);
  p.shared_bytes = p.source_bytes * static_cast<std::size_t>(p.block) * static_cast<std::size_t>(p.buffers);
  if (p.shared_bytes > kMaxStaticShared)
    fail(&PairwisePlan::block, fmt::format("{} source tile(s) of {} x {} bytes", p.buffers, p.block, p.source_bytes),
         "at most 48 KiB of shared memory a block: a smaller block_x or one buffer");
  p.kernel_name = fmt::format("gpen_{}_pairwise_{}", spec.name, st);
  p.fold_kernel_name = fmt::format("gpen_{}_pairwise_fold", spec.name);
  return p;
}

}  // namespace gpen
