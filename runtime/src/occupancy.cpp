#include "gpen/runtime/occupancy.hpp"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "gpen/runtime/arch.hpp"

namespace gpen {

std::optional<SmLimits> sm_limits(const std::string& arch) {
  SmLimits s;
  switch (arch_capability(arch)) {  // the a/f forms have the limits of their base
    case 80: s.shared_bytes = 164 * 1024; break;
    case 86: s.shared_bytes = 100 * 1024, s.threads = 1536, s.blocks = 16; break;
    case 87: s.shared_bytes = 164 * 1024, s.threads = 1536, s.blocks = 16; break;
    case 89: s.shared_bytes = 100 * 1024, s.threads = 1536, s.blocks = 24; break;
    case 90:
    case 100: s.shared_bytes = 228 * 1024; break;
    default: return std::nullopt;
  }
  return s;
}

Residency resident_blocks(const ResourceUsage& usage, int threads, std::size_t dynamic_shared_bytes, const SmLimits& sm) {
  const int warps = (threads + 31) / 32;
  const int per_warp = (usage.registers + 7) / 8 * 8 * 32;
  // Each of an SM's 4 schedulers has a quarter of the registers, and a
  // warp's stay in one quarter (cuda_occupancy.h).
  const int warps_by_registers = sm.registers / 4 / per_warp * 4;
  const std::size_t shared = (static_cast<std::size_t>(std::max(usage.shared_bytes, 0)) + dynamic_shared_bytes + 127) / 128 * 128;
  struct Bound {
    int blocks;
    const char* what;
  };
  const Bound bounds[] = {
      {warps_by_registers / warps, "registers"},
      {shared == 0 ? INT_MAX : static_cast<int>(sm.shared_bytes / (shared + sm.reserved_per_block)), "shared memory"},
      {sm.threads / (warps * 32), "threads"},
      {sm.blocks, "blocks"},
  };
  const Bound* least = std::min_element(std::begin(bounds), std::end(bounds), [](const Bound& a, const Bound& b) { return a.blocks < b.blocks; });
  return {least->blocks, least->blocks * warps, least->what, usage.registers, per_warp * warps, shared, sm};
}

std::optional<Residency> residency(const ResourceUsage& usage, int threads, std::size_t dynamic_shared_bytes, const std::string& arch) {
  const auto sm = sm_limits(arch);
  if (!sm || usage.registers <= 0 || threads <= 0) return std::nullopt;
  return resident_blocks(usage, threads, dynamic_shared_bytes, *sm);
}

std::string to_string(const Residency& r) {
  const std::string blocks =
      r.blocks == 0 ? std::string("no block fits an SM") : fmt::format("{} block{} an SM ({} warps)", r.blocks, r.blocks == 1 ? "" : "s", r.warps);
  if (r.bound == "registers")
    return fmt::format("{}, bound by registers: {} a thread, {} a block of {}", blocks, r.thread_registers, r.block_registers, r.sm.registers);
  if (r.bound == "shared memory")
    return fmt::format("{}, bound by shared memory: {} + {} B a block of {}", blocks, r.block_shared_bytes, r.sm.reserved_per_block, r.sm.shared_bytes);
  if (r.bound == "threads") return fmt::format("{}, bound by threads ({} an SM)", blocks, r.sm.threads);
  return fmt::format("{}, bound by blocks ({} an SM)", blocks, r.sm.blocks);
}

}  // namespace gpen
