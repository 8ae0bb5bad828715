#include "gpen/runtime/occupancy.hpp"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

namespace gpen {

std::optional<SmLimits> sm_limits(const std::string& arch) {
  // "sm_90a" -> 90; the a/f forms have the limits of their base.
  if (arch.rfind("sm_", 0) != 0) return std::nullopt;
  int cc = 0;
  for (std::size_t i = 3; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i) cc = cc * 10 + (arch[i] - '0');
  SmLimits s;
  switch (cc) {
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

namespace {

// A block's shared memory (static and dynamic) in the 128 B units it is given in.
std::size_t block_shared_bytes(const ResourceUsage& usage, std::size_t dynamic_shared_bytes) {
  const std::size_t shared = static_cast<std::size_t>(std::max(usage.shared_bytes, 0)) + dynamic_shared_bytes;
  return (shared + 127) / 128 * 128;
}

}  // namespace

Residency resident_blocks(const ResourceUsage& usage, int threads, std::size_t dynamic_shared_bytes, const SmLimits& sm) {
  const int warps = (threads + 31) / 32;
  const int per_warp = (usage.registers + 7) / 8 * 8 * 32;
  // Each of an SM's 4 schedulers has a quarter of the registers, and a
  // warp's stay in one quarter (cuda_occupancy.h).
  const int warps_by_registers = sm.registers / 4 / per_warp * 4;
  const std::size_t shared = block_shared_bytes(usage, dynamic_shared_bytes);
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
  return {least->blocks, least->blocks * warps, least->what};
}

std::string residency_text(const ResourceUsage& usage, int threads, std::size_t dynamic_shared_bytes, const std::string& arch) {
  const auto sm = sm_limits(arch);
  if (!sm || usage.registers <= 0 || threads <= 0) return "";
  const Residency r = resident_blocks(usage, threads, dynamic_shared_bytes, *sm);
  const std::string blocks = r.blocks == 0 ? std::string("no block fits an SM") : fmt::format("{} block{} an SM ({} warps)", r.blocks, r.blocks == 1 ? "" : "s", r.warps);
  if (r.bound == "registers")
    return fmt::format("{}, bound by registers: {} a thread, {} a block of {}", blocks, usage.registers,
                       (usage.registers + 7) / 8 * 8 * 32 * ((threads + 31) / 32), sm->registers);
  if (r.bound == "shared memory")
    return fmt::format("{}, bound by shared memory: {} + {} B a block of {}", blocks, block_shared_bytes(usage, dynamic_shared_bytes),
                       sm->reserved_per_block, sm->shared_bytes);
  return fmt::format("{}, bound by {}", blocks, r.bound == "threads" ? fmt::format("threads ({} an SM)", sm->threads) : fmt::format("blocks ({} an SM)", sm->blocks));
}

}  // namespace gpen
