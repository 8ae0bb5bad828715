#include "gpen/families/stencil/stencil_plan.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpen/families/stencil/stencil_mixed.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen {

const char* to_string(StencilStrategy s) {
  switch (s) {
    case StencilStrategy::Direct: return "direct";
    case StencilStrategy::March: return "march";
    case StencilStrategy::Tile: return "tile";
    case StencilStrategy::Rolling: return "rolling";
    case StencilStrategy::Stage: return "stage";
  }
  return "?";
}

std::array<long long, 3> StencilPlan::kernel_extent(const std::array<long long, 3>& user) const {
  std::array<long long, 3> k{1, 1, 1};
  for (int ax = 0; ax < dims; ++ax) k[kernel_axis[ax]] = user[ax];
  return k;
}

LaunchDims StencilPlan::launch(const std::array<long long, 3>& user) const {
  const auto n = kernel_extent(user);
  auto ceil_div = [](long long a, long long b) { return static_cast<unsigned>((a + b - 1) / b); };
  LaunchDims d;
  d.block = {static_cast<unsigned>(block_x), static_cast<unsigned>(block_y), 1};
  d.grid[0] = ceil_div(n[0], static_cast<long long>(block_x) * vector_x);
  d.grid[1] = ceil_div(n[1], static_cast<long long>(block_y) * rows_y);
  d.grid[2] = strategy == StencilStrategy::Direct ? static_cast<unsigned>(n[2]) : ceil_div(n[2], points_per_thread);
  // The stage kernel walks nz / gridDim.z planes a block (floor or ceil):
  // each block copies 2 rz planes more than it computes, so where the grid
  // still has kStageWalkBlocks blocks or more with fewer of them along z,
  // it walks 2 or 4 times points_per_thread (the heavy defaults at 512^3:
  // bench/RESULTS.md, "forty-first session"; fewer blocks leave a tail of
  // idle SMs).
  if (strategy == StencilStrategy::Stage) {
    const long long columns = static_cast<long long>(d.grid[0]) * d.grid[1];
    for (const long long m : {4LL, 2LL}) {
      const unsigned gz = ceil_div(n[2], points_per_thread * m);
      if (columns * gz >= kStageWalkBlocks) {
        d.grid[2] = gz;
        break;
      }
    }
  }
  return d;
}

int StencilPlan::carried_values() const {
  int n = 0;
  // The march's main kernel: with a ring, the planes behind (those ahead
  // come from shared memory), else the whole queue. (Its clamped entry for
  // arrays its vector accesses do not fit keeps the whole queue.)
  if (strategy == StencilStrategy::March)
    for (const auto& r : radius) n += (ring_ahead > 0 ? r[2] : 2 * r[2] + 1) * rows_y * vector_x;
  if (strategy == StencilStrategy::Stage) {
    // An input held in registers (point_registers) is its own column's one
    // value: counted once, with or without the queues.
    for (std::size_t f = 0; f < radius.size(); ++f) n += (in_registers(f) ? 1 : z_queue ? 2 * radius[f][2] + 1 : 0) * rows_y;
    for (const auto& m : mids)
      if (m[0] == 2) n += (2 * m[1] + 1) * rows_y;
  }
  return n;
}

std::vector<int> pitch_sources(const std::vector<std::array<int, 3>>& ghosts, bool own) {
  std::vector<int> source(ghosts.size());
  for (std::size_t f = 0; f < ghosts.size(); ++f) {
    std::size_t g = own ? f : 0;
    while (ghosts[g] != ghosts[f]) ++g;
    source[f] = static_cast<int>(g);
  }
  return source;
}

std::array<int, 3> stencil_kernel_axis(int dims) { return dims == 2 ? std::array<int, 3>{0, 2, 1} : std::array<int, 3>{0, 1, 2}; }

namespace {

// compute(), remembered per spec (its hash) and `key` in this process: plans
// ask for what the spec's expressions give once a variant, and a search
// plans hundreds of thousands of variants. A spec without a hash (built in
// code) is computed each time.
template <class T, class F>
T per_spec(const Spec& spec, const std::string& key, F compute) {
  if (spec.hash.empty()) return compute();
  static std::mutex mu;
  static std::map<std::string, T> known;
  const std::string k = spec.hash + "|" + key;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (const auto it = known.find(k); it != known.end()) return it->second;
  }
  T value = compute();  // outside the lock: the compile threads plan side by side
  std::lock_guard<std::mutex> lock(mu);
  if (known.size() >= 256) known.clear();  // a long-lived process planning many specs
  return known.emplace(k, std::move(value)).first->second;
}

}  // namespace

std::vector<std::array<int, 2>> mixed_intermediates(const Spec& spec, const std::array<int, 3>& kernel_axis, bool xz_along_z) {
  return per_spec<std::vector<std::array<int, 2>>>(spec, fmt::format("mids|{}|{}", fmt::join(kernel_axis, ","), xz_along_z), [&] {
    std::vector<std::array<int, 2>> mids;
    for (const auto& g : split_mixed_derivatives(spec.output_exprs(), static_cast<int>(spec.inputs().size()), kernel_axis, xz_along_z).mids)
      mids.push_back({g.outer_axis, g.reach});
    return mids;
  });
}

namespace {

// A block's threads in whole warps: registers are given a warp at a time.
int warp_threads(const StencilPlan& p) { return (p.threads() + 31) / 32 * 32; }

// Registers a thread may have: 255, fewer where one block of these threads
// (or min_blocks of them, which __launch_bounds__ asks ptxas to fit) must
// fit an SM's registers, given in units of 8 a thread.
int register_limit(const StencilPlan& p) {
  return std::min(kMaxRegistersPerThread, kRegistersPerSm / (warp_threads(p) * std::max(1, p.min_blocks)) / 8 * 8);
}

// Refuses a variant whose values carried from plane to plane alone take
// more registers than a thread may have: ptxas would spill them, and a
// spilled queue costs these kernels several times their time. The compile
// says what the rest of the step costs (gpen tune refuses what spills).
void refuse_if_carried_values_spill(const Spec& spec, const StencilPlan& p) {
  const int words = spec.dtype == Dtype::Float64 ? 2 : 1;
  const int need = p.carried_values() * words, limit = register_limit(p);
  if (need <= limit) return;
  const bool march = p.strategy == StencilStrategy::March;
  const std::string what =
      march ? fmt::format("the march carries {} values a thread from plane to plane in its z {} ({} input{}, {}x{} points a thread)", p.carried_values(),
                          p.ring_ahead > 0 ? "planes behind" : "queues", p.radius.size(), p.radius.size() == 1 ? "" : "s", p.vector_x, p.rows_y)
            : fmt::format("the stage strategy carries {} values a thread from plane to plane in its columns (z_queue {}) and queues of intermediates read "
                          "along z ({} row{} a thread)",
                          p.carried_values(), p.z_queue ? 1 : 0, p.rows_y, p.rows_y == 1 ? "" : "s");
  // What bounds the registers: 255 a thread, or an SM's registers shared by
  // min_blocks blocks or by one block of many threads.
  const bool by_blocks = limit < kMaxRegistersPerThread;
  const std::string bound = !by_blocks ? "" : p.min_blocks > 0 ? fmt::format(" (min_blocks {} with {} threads a block)", p.min_blocks, p.threads())
                                                               : fmt::format(" (a block of {} threads)", p.threads());
  // Point at what the user may change: min_blocks where it sets the bound,
  // else the rows (march and stage), else the stage's columns.
  std::string fix = march ? "fewer rows_y or vector_x" : "fewer rows_y";
  if (!march && p.z_queue) fix += ", z_queue 0";
  const bool xz_queues = p.xz_queue && p.mixed_passes == 2;  // else xz_queue changes nothing
  if (!march && xz_queues) fix += ", xz_queue 0";
  if (!march && p.mixed_passes == 2) fix += ", mixed_passes 1";
  if (p.min_blocks > 0 && by_blocks) fix += ", a smaller min_blocks";
  else if (by_blocks) fix += ", a smaller block";
  if (march) fix += p.ring_ahead > 0 ? ", or the stage strategy" : ", ring_ahead > 0 (only the planes behind stay in registers), or the stage strategy";
  const std::string msg = fmt::format("{}: {} registers in {}, more than the {} a thread may have{}", what, need, to_string(spec.dtype), limit, bound);
  const bool blame_blocks = p.min_blocks > 0 && by_blocks;
  if (!blame_blocks && !march && p.rows_y == 1 && (p.z_queue || xz_queues))
    refuse_tunable(spec, stencil_tunable_rows(), p.z_queue ? &StencilPlan::z_queue : &StencilPlan::xz_queue, msg, fix);
  refuse_tunable(spec, stencil_tunable_rows(), blame_blocks ? &StencilPlan::min_blocks : &StencilPlan::rows_y, msg, fix);
}

// A read of an input from the rings at a plane behind the centre. The
// outputs' reads along the column come from the queues with z_queue; the
// others, and every read an intermediate is computed from (at plane k for
// one read along x, its row's halo included; at plane k + reach for one
// read along z), come from the rings. Without such a read the rings need
// not keep the planes behind (ring_behind 0); the template asserts the
// same as it compiles.
std::optional<std::pair<Access, bool>> read_behind_centre(const Spec& spec, const StencilPlan& p) {  // the read, and whether an intermediate's
  using Read = std::optional<std::pair<Access, bool>>;
  const std::string key = fmt::format("behind|{}|{}|{}|{}", fmt::join(p.kernel_axis, ","), p.mids.empty(), p.xz_queue, p.z_queue);
  return per_spec<Read>(spec, key, [&]() -> Read {
    const int inputs = static_cast<int>(spec.inputs().size());
    auto behind = [&](const Access& a, int ahead, bool queued) {
      std::array<int, 3> k{0, 0, 0};
      for (int ax = 0; ax < 3; ++ax) k[p.kernel_axis[ax]] = a.off[ax];
      return a.field < inputs && k[2] + ahead < 0 && !(queued && k[0] == 0 && k[1] == 0);
    };
    const MixedSplit split = p.mids.empty() ? MixedSplit{spec.output_exprs(), {}}
                                            : split_mixed_derivatives(spec.output_exprs(), inputs, p.kernel_axis, p.xz_queue);
    std::vector<Access> reads;
    for (const auto& r : split.roots) collect_accesses(*r, reads);
    for (const Access& a : reads)
      if (behind(a, 0, p.z_queue)) return std::make_pair(a, false);
    for (const auto& g : split.mids)
      for (const Term& t : g.terms)
        if (behind(t.access, g.outer_axis == 2 ? g.reach : 0, false)) return std::make_pair(t.access, true);
    return std::nullopt;
  });
}

}  // namespace

StencilPlan plan_stencil(const Spec& spec, const TunableChoice& choice) {
  StencilPlan p;
  const std::string& s = tunable_string(choice, kStrategyTunable);
  p.strategy = s == "direct" ? StencilStrategy::Direct
               : s == "march" ? StencilStrategy::March
               : s == "tile"  ? StencilStrategy::Tile
               : s == "stage" ? StencilStrategy::Stage
                              : StencilStrategy::Rolling;
  fill_plan(stencil_tunable_rows(), choice, p);
  p.dims = spec.dims;
  p.kernel_axis = stencil_kernel_axis(spec.dims);
  p.kernel_name = "gpen_" + spec.name;
  if (p.strategy == StencilStrategy::March && (p.vector_x > 1 || p.rows_y > 1)) p.clamped_kernel_name = p.kernel_name + "_clamped";

  const Footprint fp = spec.footprint();
  for (const auto* f : spec.inputs()) {
    std::array<int, 3> g{0, 0, 0}, r{0, 0, 0};
    for (int ax = 0; ax < spec.dims; ++ax) {
      g[p.kernel_axis[ax]] = f->ghost;
      r[p.kernel_axis[ax]] = fp[f->slot][ax];
    }
    p.in_ghost.push_back(g);
    p.radius.push_back(r);
    p.max_radius_z = std::max(p.max_radius_z, r[2]);
  }
  for (const auto* f : spec.output_fields()) {
    std::array<int, 3> g{0, 0, 0};
    int wrap = 0;
    for (int ax = 0; ax < spec.dims; ++ax) {
      g[p.kernel_axis[ax]] = f->ghost;
      if (f->periodic_images >> ax & 1u) wrap |= 1 << p.kernel_axis[ax];
    }
    p.out_ghost.push_back(g);
    p.out_wrap.push_back(wrap);
  }

  if (p.threads() > 1024) {
    refuse_tunable(spec, stencil_tunable_rows(), &StencilPlan::block_y,
                      fmt::format("block_x * block_y = {} threads, more than a block may have", p.threads()),
                      "block_x * block_y <= 1024");
  }
  if (p.vector_x != 1 && p.vector_x != 2 && p.vector_x != 4) {
    refuse_tunable(spec, stencil_tunable_rows(), &StencilPlan::vector_x, fmt::format("vector_x = {} is not a vector width", p.vector_x), "1, 2 or 4");
  }
  check_strategy_tunables(spec, choice);
  if (p.strategy == StencilStrategy::Tile || p.strategy == StencilStrategy::Rolling) {
    for (const auto& r : p.radius)
      if (r[0] > 0 || r[1] > 0) p.shared_bytes += static_cast<std::size_t>(p.block_x + 2 * r[0]) * (p.block_y + 2 * r[1]) * size_of(spec.dtype);
    if (p.shared_bytes > kMaxStaticShared) {
      refuse_tunable(spec, stencil_tunable_rows(), &StencilPlan::block_x,
                        fmt::format("the {} strategy's tiles need {} bytes of shared memory with block {}x{}", s, p.shared_bytes, p.block_x, p.block_y),
                        fmt::format("at most {} bytes: smaller block_x or block_y", kMaxStaticShared));
    }
  }
  if (p.strategy == StencilStrategy::Stage) {
    if (p.mixed_passes == 2) {
      // Intermediates read along x: each warp's rows of them, its points
      // and the reach either side along x (stencil_stage.cuh, MidRows);
      // along z: registers only.
      for (const auto& g : mixed_intermediates(spec, p.kernel_axis, p.xz_queue)) {
        p.mids.push_back(g);
        if (g[0] != 0) continue;
        // A warp computes the rows of the points it owns: whole rows or
        // whole runs of 32, and whole warps.
        const bool whole_rows = p.block_x % 32 == 0 || 32 % p.block_x == 0;
        if (!whole_rows || p.threads() % 32 != 0) {
          refuse_tunable(spec, stencil_tunable_rows(), whole_rows ? &StencilPlan::block_y : &StencilPlan::block_x,
                         fmt::format("mixed_passes 2 (the default where mixed derivatives split) computes intermediates a warp at a time, and block {}x{} {}",
                                     p.block_x, p.block_y,
                                     whole_rows ? fmt::format("is {} threads, not whole warps", p.threads()) : "has warps that cover parts of rows"),
                         "block_x a multiple or a divisor of 32 and block_x * block_y a multiple of 32, or mixed_passes 1");
        }
        const int wx = std::min(p.block_x, 32), rows = 32 / wx * p.rows_y;
        p.mid_shared_bytes += static_cast<std::size_t>(p.threads() / 32) * rows * (wx + 2 * g[1]) * size_of(spec.dtype);
      }
    }
    // ring_behind 0 drops the planes behind the centre only where nothing
    // reads them: else it makes the unit of its plain 1 (but for the banner).
    if (!p.ring_behind && (!p.z_queue || read_behind_centre(spec, p))) p.ring_behind = true;
    // Every input's ring: 2 rz + 1 + ring_ahead tiles (rz + 1 + ring_ahead
    // without the planes behind) of the block's points with the x and y
    // radius around them, corners included
    // (families/stencil/device/stencil_stage.cuh). An input read at the
    // point alone has none with point_registers: each thread reads it from
    // global memory.
    std::size_t values = 0;
    for (std::size_t f = 0; f < p.radius.size(); ++f) {
      const auto& r = p.radius[f];
      if (!p.in_registers(f))
        values += static_cast<std::size_t>(p.block_x + 2 * r[0]) * (p.block_y * p.rows_y + 2 * r[1]) * ((p.ring_behind ? 2 * r[2] : r[2]) + 1 + p.ring_ahead);
    }
    p.dynamic_shared_bytes = values * size_of(spec.dtype) + p.mid_shared_bytes;
    if (p.dynamic_shared_bytes > kMaxDynamicShared) {
      const std::string mids = p.mid_shared_bytes == 0 ? "" : fmt::format(" ({} of them for intermediates)", p.mid_shared_bytes);
      refuse_tunable(spec, stencil_tunable_rows(), &StencilPlan::block_x,
                     fmt::format("the stage strategy's planes need {} bytes of shared memory{} with block {}x{}, {} rows a thread and ring_ahead {}",
                                 p.dynamic_shared_bytes, mids, p.block_x, p.block_y, p.rows_y, p.ring_ahead),
                     fmt::format("at most {} bytes: a smaller block, rows_y or ring_ahead{}", kMaxDynamicShared,
                                 p.dynamic_shared_bytes - p.mid_shared_bytes <= kMaxDynamicShared ? ", or mixed_passes 1" : ""));
    }
  } else if (p.ring_ahead > 0) {
    // Every input's tile (the block's points, the x radius rounded up to
    // whole runs and the y radius around them) in each slot of the ring.
    std::size_t values = 0;
    for (const auto& r : p.radius) {
      const int ax = (r[0] + p.vector_x - 1) / p.vector_x * p.vector_x;
      values += static_cast<std::size_t>(p.block_x * p.vector_x + 2 * ax) * (p.block_y * p.rows_y + 2 * r[1]);
    }
    p.dynamic_shared_bytes = values * p.ring_slots() * size_of(spec.dtype);
    if (p.dynamic_shared_bytes > kMaxDynamicShared) {
      refuse_tunable(spec, stencil_tunable_rows(), &StencilPlan::ring_ahead,
                        fmt::format("the march's ring of {} planes needs {} bytes of shared memory with block {}x{} and {}x{} points a thread",
                                    p.ring_slots(), p.dynamic_shared_bytes, p.block_x, p.block_y, p.vector_x, p.rows_y),
                        fmt::format("at most {} bytes: a smaller ring_ahead, block or vector_x * rows_y", kMaxDynamicShared));
    }
  }
  refuse_if_carried_values_spill(spec, p);
  return p;
}

}  // namespace gpen
