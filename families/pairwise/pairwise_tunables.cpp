// The pairwise family's tunables: its table and what a spec of given
// domain and pairs may choose. Threads a block (= sources a shared-memory
// tile), targets a thread, the unrolling of the source loop, one or two
// tiles (double buffering); cell blocks
// and streams for the block-on-block schedule on grids.
#include "gpen/families/common/tunable_offer.hpp"
#include "gpen/families/pairwise/pair_cost.hpp"
#include "gpen/families/pairwise/pairwise_plan.hpp"

namespace gpen {

const std::vector<TunableRow<PairwisePlan>>& pairwise_tunable_rows() {
  static const std::vector<TunableRow<PairwisePlan>> rows = {
      {"strategy", "tile: sources staged a tile at a time; grouped: interaction lists; blocks: block on block over a grid", "", "", {}},
      {"block_x", "threads of a block, and sources a shared-memory tile", "kBlock", "", &PairwisePlan::block},
      {"targets_per_thread", "targets a thread keeps in registers", "kTargetsPerThread", "", &PairwisePlan::targets_per_thread},
      {"unroll", "staged sources applied per step of the unrolled loop", "kUnroll", "", &PairwisePlan::unroll},
      {"buffers", "source tiles in shared memory: 1, or 2 used in turn with the next source loaded while a tile is applied", "kBuffers", "",
       &PairwisePlan::buffers},
      {"source_slices", "slices the sources (grouped: a group's) are split into, a block each, their partial results folded; 0: as many as fill the GPU",
       "kSourceSlices", "tile, grouped",
       &PairwisePlan::source_slices},
      {"target_lanes", "grouped: at most this many threads share a target of a small group, each taking every lane-th source of a tile",
       "kTargetLanes", "grouped", &PairwisePlan::target_lanes},
      {"flag_chunk",
       "float64 accurate: staged sources whose pairs are computed without the branches of IEEE sqrt, division and exp and tested once",
       "kFlagChunk", "", &PairwisePlan::flag_chunk},
      {"cell_block", "blocks: a cell block's side along every grid axis", "kCellBlock", "blocks", &PairwisePlan::cell_block},
      {"streams", "blocks: streams the source pencils are spread over", "", "blocks", &PairwisePlan::streams},
  };
  return rows;
}

std::vector<TunableOffer> pairwise_offers(const Spec& spec) {
  const auto& t = pairwise_tunable_rows();
  const PairwiseDecl& d = spec.pairwise();
  std::vector<std::string> strategies;
  if (d.grouped) strategies.push_back("grouped");
  else strategies.push_back("tile");
  if (d.grid && !d.grouped) strategies.push_back("blocks");
  std::vector<TunableOffer> b;
  b.push_back(offer_strategy(t, strategies, strategies.front(), {"tile", "grouped", "blocks"}));
  b.back().values_note = d.grouped ? "the kernel of \"pairs\": \"grouped\" walks its interaction lists (grouped)"
                         : d.grid  ? "grouped needs \"pairs\": \"grouped\""
                                   : "block on block (blocks) needs \"domain\": \"grid\", and grouped needs \"pairs\": \"grouped\"";
  // Defaults (bench/RESULTS.md, "fifth session"): block 256, 2 targets a
  // thread, unroll 8: close to the best variant for the softened potential
  // at N = 2^20. The twenty-eighth session, with source slices: grouped 64
  // threads, a target each, unroll 32 (the best for groups of 1-160
  // targets before lanes; float64 keeps it); grids 256 x 2, unroll 32 in
  // float32 and 4 in float64 (the one unrolling at which neither float64
  // strategy spills); float64 particles 2 targets (1.04-1.09x one for the
  // Yukawa and Coulomb potentials at N = 2^16).
  const bool f32 = spec.dtype == Dtype::Float32, particles = !d.grouped && !d.grid;
  const bool short_pair = pair_cost(spec).issued() <= 24;
  // Float64 particles with a short formula (Coulomb's): 64 threads x 4
  // targets (twenty-eighth session: 1.02x 256 x 2 at N = 2^16; the Yukawa
  // formula spills with 4).
  const bool four = particles && !f32 && short_pair;
  // Grouped in float32: 128 x 2 with lanes (twenty-ninth session: faster
  // than 64 x 1 on groups of 512 and of 64 targets, as fast on gpen run's
  // groups of 1-160); float64, without lanes, keeps 64 x 1.
  const bool grouped_lanes = d.grouped && f32;
  // Float64 particles with a long formula (Yukawa's): 128 x 2 (thirty-
  // seventh session: 1.01-1.02x 256 x 2 at N = 2^14 and 2^16, as fast at
  // 2^18).
  const bool long64 = particles && !f32 && !short_pair;
  const long long block = grouped_lanes || long64 ? 128 : d.grouped || four ? 64 : 256;
  b.push_back(offer(row_of(t, &PairwisePlan::block), {64LL, 128LL, 256LL, 512LL}, block, 32, 1024));
  // Float32 particles whose source is one 16-byte word (a position and a
  // weight) and whose formula is short (at most 24 instructions a pair,
  // pair_cost.hpp): 8 targets a thread, the tile unrolled 16 (twenty-seventh
  // session, with source slices: 1.03-1.09x two targets and unroll 8 for
  // softened_potential, softened_acceleration and gaussian_sum at N = 2^14
  // to 2^20; multipole_potential's 64-byte sources lose up to 3.4x with 8,
  // and the Yukawa formula in float32 spills with 8).
  const bool eight = particles && f32 && packed_source_bytes(spec) == 16 && short_pair;
  b.push_back(offer(row_of(t, &PairwisePlan::targets_per_thread), {1LL, 2LL, 4LL, 8LL}, grouped_lanes ? 2 : d.grouped ? 1 : eight ? 8 : four ? 4 : 2, 1, 16));
  b.push_back(offer(row_of(t, &PairwisePlan::unroll), {1LL, 4LL, 8LL, 16LL, 32LL}, eight ? 16 : (d.grid && f32) || d.grouped ? 32 : d.grid ? 4 : 8, 1, 1024));
  b.push_back(offer(row_of(t, &PairwisePlan::buffers), {1LL, 2LL}, 1, 1, 2));
  // Sources split over blocks when the targets alone leave SMs idle
  // (twenty-seventh session: 23-34% occupancy at N = 2^16 to 2^18 on an
  // H100); 0 lets the host choose for the size it launches (pair_slices.hpp).
  b.push_back(offer(row_of(t, &PairwisePlan::source_slices), {0LL, 1LL, 2LL, 4LL, 8LL, 16LL, 32LL}, 0, 0, 64, 1));
  // Groups smaller than half a block's targets share each target among
  // lanes (pairwise_grouped), so that a block of several targets a thread
  // keeps its threads busy on groups of tens of targets. Not by default in
  // float64: with a kernel body per lane count, ptxas saves registers to
  // the stack around the calls of CUDA's rsqrt's slow path (spills, which
  // the tuner refuses).
  if (d.grouped) b.push_back(offer(row_of(t, &PairwisePlan::target_lanes), {1LL, 2LL, 4LL, 8LL, 16LL}, f32 ? 8 : 1, 1, 16, 1));
  // Two sources a test for float64 particles of a long formula (thirty-
  // seventh session: the Yukawa kernel 1.01-1.02x one at N = 2^14 and
  // 2^16, as fast at 2^18; the radiation grid's float64 tile spills 16 B
  // with two).
  if (pair_has_flagged_terms(spec)) {
    b.push_back(offer(row_of(t, &PairwisePlan::flag_chunk), {1LL, 2LL, 4LL}, long64 ? 2 : 1, 1, 4, 1));
  } else {
    b.push_back(offer(row_of(t, &PairwisePlan::flag_chunk), {1LL}, 1, 1, 1, 1));
    b.back().values_note = "1 only: the pair has no float64 IEEE sqrt, division or exp to test (float32, or \"math\": \"fast\")";
  }
  if (strategies.size() > 1) {  // block-on-block is possible
    b.push_back(offer(row_of(t, &PairwisePlan::cell_block), {4LL, 8LL, 16LL}, 8, 1, 64));
    b.push_back(offer(row_of(t, &PairwisePlan::streams), {1LL, 2LL, 3LL, 4LL}, 3, 1, 16));
  }
  return b;
}

}  // namespace gpen
