// The stencil family's tunables: its table and what a spec of given
// dimensions may choose.
#include "gpen/families/common/tunable_offer.hpp"
#include "gpen/families/stencil/stencil_plan.hpp"
#include "gpen/generator/ir_common.hpp"

namespace gpen {

const std::vector<TunableRow<StencilPlan>>& stencil_tunable_rows() {
  static const std::vector<TunableRow<StencilPlan>> rows = {
      {"strategy", "direct: a thread a point; march: along z with registers or a ring; tile, rolling: planes in shared memory; stage: every input's planes in shared memory (many fields)", "", "", {}},
      {"block_x", "threads of a block along x", "kBlockX", "", &StencilPlan::block_x},
      {"block_y", "threads of a block along y (3-D arrays only)", "kBlockY", "", &StencilPlan::block_y},
      {"points_per_thread", "points a thread computes along z (the marched axis; stage: up to 4 times as many where the grid has blocks to spare)", "kPointsPerThread", "", &StencilPlan::points_per_thread},
      {"vector_x", "points a thread owns along x, moved as one vector", "kVectorX", "march", &StencilPlan::vector_x},
      {"rows_y", "rows a thread owns along y", "kRowsY", "march, stage", &StencilPlan::rows_y},
      {"unroll_z", "1: the march along z fully unrolled", "kUnrollZ", "march", &StencilPlan::unroll_z},
      {"stream_stores", "1: outputs stored evict-first, leaving the L2 to the inputs", "kStreamStores", "march, stage", &StencilPlan::stream_stores},
      {"ring_ahead", "planes copied ahead by cp.async into shared memory (march: 0 is no ring)", "kRingAhead", "march, stage", &StencilPlan::ring_ahead},
      {"mixed_passes", "2: mixed derivatives as two passes through intermediate planes of the block; 1: every product read from the planes", "", "stage", &StencilPlan::mixed_passes},
      {"z_queue", "1: each input's values along the thread's column in a register queue, one shared load a step for all of them", "kZQueue", "stage", &StencilPlan::z_queue},
      {"xz_queue", "1: an intermediate of a mixed derivative along x and z (D1(D1(u, z), x)) taken along x and read along z from a register queue; 0: taken along z and read along x from the warps' rows in shared memory", "", "stage", &StencilPlan::xz_queue},
      {"ring_behind", "1: each input's ring keeps the planes behind the centre; 0 (z_queue 1, where no read off the column reaches behind): only planes k .. k + rz and those ahead, the queues filled by warm steps before the block's first plane", "kRingBehind", "stage", &StencilPlan::ring_behind},
      {"point_registers", "1: inputs read at the point alone (radius 0, as a time loop's registers) held in registers, a plane loaded ahead, with no ring in shared memory", "kPointRegisters", "stage", &StencilPlan::point_registers},
      {"shared_pitches", "1: fields of a kind and ghost width padded alike share one row and plane stride (arrays padded unalike take a unit of their own at their first launch)", "", "stage", &StencilPlan::shared_pitches},
      {"min_blocks", "blocks an SM that __launch_bounds__ asks ptxas to fit (0: no bound)", "", "march", &StencilPlan::min_blocks},
  };
  return rows;
}

namespace {

// Distinct values a point reads above which a spec defaults to the stage
// strategy: the march keeps a queue and rows of neighbours in registers per
// input and offset, which spill for fused kernels of many fields (the
// momentum equation with viscous stress reads 291; bench/RESULTS.md,
// "eighteenth session"); single operators and continuity3d read 7 to 40.
constexpr double kStageReads = 128;

// Inputs the outputs read at the point alone (no offset along any axis).
int inputs_read_at_point(const Spec& spec) {
  for (const auto& e : spec.output_exprs())
    if (!e) return 0;  // an output that did not parse: its error is on its way
  const Footprint fp = spec.footprint();
  int n = 0;
  for (const auto* f : spec.inputs()) {
    bool point = true;
    for (int ax = 0; ax < spec.dims; ++ax) point &= fp[f->slot][ax] == 0;
    n += point;
  }
  return n;
}

}  // namespace

std::vector<TunableOffer> stencil_offers(const Spec& spec) {
  const auto& t = stencil_tunable_rows();
  const bool three = spec.dims == 3;
  const bool heavy = ir_work(spec.output_exprs()).distinct_reads > kStageReads;
  std::vector<TunableOffer> b;
  b.push_back(offer_strategy(t, {"direct", "march", "tile", "rolling", "stage"}, heavy ? "stage" : "march",
                             {"direct", "march", "tile", "rolling", "stage"}));
  b.push_back(offer(row_of(t, &StencilPlan::block_x), {16LL, 32LL, 64LL, 128LL, 256LL}, 32, 1, 1024));
  // y is marched (internally z) for 2-D arrays, so only 3-D kernels have a y block.
  // Blocks of 5 and 6 rows fit a fused kernel's staged planes into an SM's
  // shared memory with more warps resident than 4 or 8 do (mhd_iso3d,
  // induction3d; bench/RESULTS.md, "thirty-sixth session"): offered where a
  // point reads more than kStageReads distinct values.
  if (three) {
    std::vector<TunableValue> heights{1LL, 2LL, 4LL, 8LL, 16LL};
    if (heavy) heights.insert(heights.begin() + 3, {5LL, 6LL});
    b.push_back(offer(row_of(t, &StencilPlan::block_y), heights, 4, 1, 1024));
  } else {
    b.push_back(offer(row_of(t, &StencilPlan::block_y), {1LL}, 1, 1, 1));
  }
  if (spec.dims > 1)
    // The stage strategy's block copies 2 rz planes more than it computes:
    // a longer walk spreads them.
    b.push_back(offer(row_of(t, &StencilPlan::points_per_thread), {1LL, 2LL, 4LL, 8LL, 16LL, 32LL, 64LL, 128LL, 256LL}, heavy ? 32 : 8, 1, 4096));
  else b.push_back(offer(row_of(t, &StencilPlan::points_per_thread), {1LL}, 1, 1, 1));
  // Defaults: the best 8th-order Laplacian variants on an H100 (bench/RESULTS.md, "second session").
  b.push_back(offer(row_of(t, &StencilPlan::vector_x), {1LL, 2LL, 4LL}, 2, 1, 4, 1));
  // The stage strategy's rows share y neighbours (one shared load serves
  // both rows) but double the temporaries of a heavy expression: one row in
  // float64, whose registers are twice as many, two in float32, which is
  // bound by issue (bench/RESULTS.md, "twenty-first session"; a spec of
  // many fields may say 1, as mhd_iso3d does).
  const int heavy_rows = spec.dtype == Dtype::Float32 ? 2 : 1;
  if (three) b.push_back(offer(row_of(t, &StencilPlan::rows_y), {1LL, 2LL, 4LL}, heavy ? heavy_rows : 2, 1, 8, 1));
  else b.push_back(offer(row_of(t, &StencilPlan::rows_y), {1LL}, 1, 1, 1, 1));
  b.push_back(offer(row_of(t, &StencilPlan::unroll_z), {0LL, 1LL}, 0, 0, 1));
  // Stores evict-first gain in float64, not in float32 (bench/RESULTS.md,
  // "sixth session"); 0 may suit a time loop whose next kernel reads the
  // output from the L2.
  b.push_back(offer(row_of(t, &StencilPlan::stream_stores), {0LL, 1LL}, 1, 0, 1));
  // The march's ring (families/stencil/device/stencil_ring.cuh; 0 reads
  // through the L1) and the stage's planes in flight (stencil_stage.cuh).
  b.push_back(offer(row_of(t, &StencilPlan::ring_ahead), {0LL, 1LL, 2LL, 3LL, 4LL}, heavy ? 1 : 0, 0, 16));
  // Two passes where the stage strategy would split something; a spec
  // without mixed derivatives has nothing to choose.
  const auto ka = stencil_kernel_axis(spec.dims);
  if (mixed_intermediates(spec, ka).empty())
    b.push_back(offer(row_of(t, &StencilPlan::mixed_passes), {1LL}, 1, 1, 1, 1));
  else
    b.push_back(offer(row_of(t, &StencilPlan::mixed_passes), {1LL, 2LL}, 2, 1, 2, 1));
  // The stage strategy's columns in registers spare float64 kernels, bound
  // by shared-memory bandwidth, a third of their shared loads along z, and
  // cost float32 kernels, bound by issue, the queues' moves
  // (bench/RESULTS.md, "twentieth session").
  // Intermediates of x and z pairs read along z: one value a point from a
  // plane's x neighbours instead of a row and its halo, and none of the
  // row's shared loads, for a queue's registers. Float32 kernels, bound by
  // issue and shared loads, gain 10-18% ("thirty-ninth session"). In
  // float64 those queues and the columns together take more registers than
  // an SM keeps for two blocks (momentum_visc3d 254, 0.8x), but the x and z
  // queues alone, the columns read from the planes, gain 3-4% over the
  // columns alone ("fortieth session"): where such a pair splits, float64
  // takes them instead of the columns. (The Orszag-Tang program's fused
  // float64 stages spill with them; mhd_iso3d's spec says 0.)
  const bool xz_splits = mixed_intermediates(spec, ka, false) != mixed_intermediates(spec, ka, true);
  b.push_back(offer(row_of(t, &StencilPlan::z_queue), {0LL, 1LL}, spec.dtype == Dtype::Float64 && !xz_splits ? 1 : 0, 0, 1, 0));
  if (!xz_splits) {
    b.push_back(offer(row_of(t, &StencilPlan::xz_queue), {0LL}, 0, 0, 1, 0));
    b.back().values_note = "no mixed derivative along x and z splits";
  } else {
    b.push_back(offer(row_of(t, &StencilPlan::xz_queue), {0LL, 1LL}, 1, 0, 1, 0));
  }
  // Rings without the planes behind the centre (z_queue 1 reads none of
  // them where no read off the column reaches behind): less shared memory
  // a block. momentum_visc3d float64 at 32x4 1.10x its rings with them,
  // 1.07x its default; continuity3d, whose blocks its registers bound,
  // loses the warm steps (0.94x; bench/RESULTS.md, "forty-fourth session").
  b.push_back(offer(row_of(t, &StencilPlan::ring_behind), {0LL, 1LL}, 1, 0, 1, 1));
  // Inputs read at the point alone in registers rather than rings: the
  // induction equation's velocity 1.12x (float64) and 1.07x (float32) at
  // 256^3, the Orszag-Tang program's fused float32 stages 1.06x, but its
  // float64 stages, 7 such inputs of 2 words, spill and run 0.96x (bench/
  // RESULTS.md, "thirty-seventh session"): by default where they take at
  // most 8 registers a point.
  const int at_point = inputs_read_at_point(spec);
  if (at_point == 0) {
    b.push_back(offer(row_of(t, &StencilPlan::point_registers), {0LL}, 0, 0, 1, 0));
    b.back().values_note = "no input is read at the point alone";
  } else {
    const int words = at_point * (spec.dtype == Dtype::Float64 ? 2 : 1);
    b.push_back(offer(row_of(t, &StencilPlan::point_registers), {0LL, 1LL}, words <= 8 ? 1 : 0, 0, 1, 0));
  }
  // One stride for many fields: fused stage kernels gain (mhd_iso3d 1.2x),
  // continuity3d in float64 loses 2-3% (bench/RESULTS.md, "thirty-fifth
  // session"; its spec says 0).
  b.push_back(offer(row_of(t, &StencilPlan::shared_pitches), {0LL, 1LL}, 1, 0, 1, 0));
  // The ring's shared memory may allow fewer blocks an SM than registers do.
  b.push_back(offer(row_of(t, &StencilPlan::min_blocks), {0LL, 1LL, 2LL, 3LL, 4LL}, 0, 0, 32));
  return b;
}

// Two tunables may leave a choice's kernel as another value makes it:
//   - xz_queue under mixed_passes 1: the plan splits nothing into
//     intermediates, so xz_queue has nothing to take along x; 1 makes the
//     unit of its plain 0 (but for the banner);
//   - ring_behind 0 where a read needs the planes behind the centre (z_queue
//     0, a read off the column there): the plan keeps them, the unit of 1;
//   - points_per_thread of the stage strategy, at a shape: the stage
//     kernel's code does not read it (its blocks take their planes from the
//     grid, which StencilPlan::launch makes from it and lengthens where
//     blocks are to spare), so values that make one grid on `shape` make one
//     kernel launched alike; the twin takes the first declared.
std::optional<TunableChoice> stencil_plain_twin(const Spec& spec, const TunableChoice& choice, const std::array<long long, 3>* shape) {
  const auto& t = stencil_tunable_rows();
  TunableChoice twin = choice;
  const auto passes = choice.find(row_of(t, &StencilPlan::mixed_passes).name);
  const auto xz = choice.find(row_of(t, &StencilPlan::xz_queue).name);
  if (passes != choice.end() && xz != choice.end() && passes->second == TunableValue{1LL} && xz->second != TunableValue{0LL}) twin[xz->first] = 0LL;
  const std::string& ppt = row_of(t, &StencilPlan::points_per_thread).name;
  const auto strategy = choice.find(strategy_row(t).name);
  const auto behind = choice.find(row_of(t, &StencilPlan::ring_behind).name);
  if (strategy != choice.end() && to_string(strategy->second) == "stage" && behind != choice.end() && behind->second == TunableValue{0LL}) {
    try {
      if (plan_stencil(spec, twin).ring_behind) twin[behind->first] = 1LL;
    } catch (const SpecError&) {
      // Refused for another reason; the space says why.
    }
  }
  const TunableDecl* decl = spec.find_tunable(ppt);
  if (shape && decl && strategy != choice.end() && to_string(strategy->second) == "stage") {
    try {
      const StencilPlan own = plan_stencil(spec, twin);
      const LaunchDims own_dims = own.launch(*shape);
      for (const TunableValue& v : decl->values) {
        TunableChoice other = twin;
        other[ppt] = v;
        const StencilPlan p = plan_stencil(spec, other);
        const LaunchDims d = p.launch(*shape);
        if (d.grid == own_dims.grid && d.block == own_dims.block && p.dynamic_shared_bytes == own.dynamic_shared_bytes) {
          twin[ppt] = v;
          break;
        }
      }
    } catch (const SpecError&) {
      // A choice the plan refuses has no twin of this kind; the space says why it is refused.
    }
  }
  if (twin == choice) return std::nullopt;
  return twin;
}

}  // namespace gpen
