#include "gpen/families/sbp/sbp_plan.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "gpen/generator/gpu_limits.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen {

const char* to_string(SbpStrategy s) { return s == SbpStrategy::Direct ? "direct" : "pencil"; }

namespace {

unsigned blocks(long long n, long long per, long long limit, const char* what) {
  const long long b = (n + per - 1) / per;
  if (b > limit) throw std::invalid_argument(fmt::format("{} blocks along the {} exceed the grid limit of {}", b, what, limit));
  return static_cast<unsigned>(b);
}

}  // namespace

LaunchDims SbpPlan::launch(const std::array<long long, 3>& size) const {
  LaunchDims d;
  d.block = {static_cast<unsigned>(block_x), static_cast<unsigned>(block_y), 1};
  if (strategy == SbpStrategy::Direct) {
    d.grid = {blocks(size[0], block_x, 0x7fffffff, "x axis"), blocks(size[1], block_y, 65535, "y axis"), blocks(size[2], 1, 65535, "z axis")};
  } else {
    d.grid = {blocks(size[axis], along, 0x7fffffff, "operator's axis"), blocks(size[across_axis], across, 65535, "pencil's cross axis"),
              blocks(size[third_axis], 1, 65535, "third axis")};
  }
  return d;
}

SbpPlan plan_sbp(const Spec& spec, const TunableChoice& choice) {
  SbpPlan p;
  p.strategy = tunable_string(choice, kStrategyTunable) == "pencil" ? SbpStrategy::Pencil : SbpStrategy::Direct;
  fill_plan(sbp_tunable_rows(), choice, p);
  auto fail = [&](auto member, const std::string& msg, const std::string& expected) { refuse_tunable(spec, sbp_tunable_rows(), member, msg, expected); };
  if (p.threads() > 1024) fail(&SbpPlan::block_x, fmt::format("block_x * block_y = {} threads", p.threads()), "at most 1024 threads a block");
  check_strategy_tunables(spec, choice);  // pencil sides with the direct strategy would be ignored
  if (p.strategy == SbpStrategy::Pencil) {
    if (spec.sbp().axes.size() != 1)
      refuse_strategy(spec, sbp_tunable_rows(), fmt::format("strategy pencil for an operator along {} axes", spec.sbp().axes.size()),
           "strategy direct: a pencil follows one axis");
    p.axis = spec.sbp().axes[0];
    p.across_axis = p.axis == 0 ? 1 : 0;
    p.third_axis = 3 - p.axis - p.across_axis;
    // Threads along x run along the contiguous axis, whichever it is.
    const int threads_along = p.axis == 0 ? p.block_x : p.block_y, threads_across = p.axis == 0 ? p.block_y : p.block_x;
    if (p.along % threads_along || p.across % threads_across)
      fail(&SbpPlan::along,
           fmt::format("a pencil of {} points along {} by {} across for {} threads along by {} across (block {}x{})", p.along,
                       axis_name(p.axis), p.across, threads_along, threads_across, p.block_x, p.block_y),
           "pencil_along a multiple of the threads along the operator's axis, pencil_across of those across it");
    p.shared_bytes = static_cast<std::size_t>(p.along + 2 * spec.sbp().radius()) * p.across * size_of(spec.dtype);
    if (p.shared_bytes > kMaxStaticShared)
      fail(&SbpPlan::along, fmt::format("a pencil of {} bytes with its halo", p.shared_bytes), "at most 48 KiB of shared memory a block");
  }
  p.kernel_name = fmt::format("gpen_{}_sbp_{}", spec.name, to_string(p.strategy));
  return p;
}

}  // namespace gpen
