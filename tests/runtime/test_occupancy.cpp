// Blocks an SM holds, against what Nsight Compute measured on the H100
// (bench/RESULTS.md: momentum_visc3d float64 2 blocks bound by shared
// memory; mhd_iso3d float64 one block of 4 warps) and the limits' arithmetic.
#include <doctest/doctest.h>

#include "gpen/runtime/arch.hpp"
#include "gpen/runtime/occupancy.hpp"

using namespace gpen;

namespace {
ResourceUsage usage(int registers) {
  ResourceUsage u;
  u.registers = registers;
  u.shared_bytes = 0;
  return u;
}
}  // namespace

TEST_CASE("occupancy: blocks an SM holds, and what bounds them") {
  const SmLimits h100 = *sm_limits("sm_90");
  CHECK(sm_limits("sm_90a")->shared_bytes == h100.shared_bytes);
  CHECK(h100.shared_bytes == 233472);
  CHECK_FALSE(sm_limits("sm_75").has_value());
  CHECK_FALSE(sm_limits("compute_90").has_value());

  // momentum_visc3d float64, stage 32x4: 168 registers, 102144 B of planes.
  Residency r = resident_blocks(usage(168), 128, 102144, h100);
  CHECK(r.blocks == 2);
  CHECK(r.warps == 8);
  CHECK(r.bound == "shared memory");
  // The same registers with little shared memory: 5376 a warp, 3 blocks of 4 warps.
  r = resident_blocks(usage(168), 128, 4096, h100);
  CHECK(r.blocks == 3);
  CHECK(r.bound == "registers");
  // mhd_iso3d float64: 255 registers, 177536 B: one block, 4 warps.
  r = resident_blocks(usage(255), 128, 177536, h100);
  CHECK(r.blocks == 1);
  CHECK(r.warps == 4);
  CHECK(r.bound == "shared memory");
  // A light kernel: threads bound it (2048 an SM), then blocks (32).
  CHECK(resident_blocks(usage(24), 256, 0, h100).bound == "threads");
  CHECK(resident_blocks(usage(24), 256, 0, h100).blocks == 8);
  CHECK(resident_blocks(usage(16), 32, 0, h100).bound == "blocks");
  CHECK(resident_blocks(usage(16), 32, 0, h100).blocks == 32);
  // A block of 33 threads takes 2 warps of registers.
  CHECK(resident_blocks(usage(255), 33, 0, h100).blocks == 4);
  // Registers from a quarter of the SM each: 40 a thread, 1280 a warp, 12
  // warps a quarter: 24 blocks of 2 warps (65536 / 2560 would say 25).
  CHECK(resident_blocks(usage(40), 64, 0, h100).blocks == 24);
  // Shared memory in 128 B units: 45600 B is 45696, 4 blocks (not 5).
  CHECK(resident_blocks(usage(32), 64, 45600, h100).blocks == 4);
  // A block that does not fit: more registers than an SM has.
  CHECK(resident_blocks(usage(255), 1024, 0, h100).blocks == 0);
  CHECK(to_string(*residency(usage(255), 1024, 0, "sm_90")).rfind("no block fits an SM, bound by registers", 0) == 0);
  CHECK(sm_limits("sm_87")->threads == 1536);

  CHECK(to_string(*residency(usage(168), 128, 102144, "sm_90")) == "2 blocks an SM (8 warps), bound by shared memory: 102144 + 1024 B a block of 233472");
  CHECK(to_string(*residency(usage(255), 128, 0, "sm_90")) == "2 blocks an SM (8 warps), bound by registers: 255 a thread, 32768 a block of 65536");
  CHECK_FALSE(residency(usage(168), 128, 102144, "sm_75").has_value());
  CHECK_FALSE(residency(usage(-1), 128, 102144, "sm_90").has_value());
  CHECK(arch_capability("sm_100f") == 100);
  CHECK(arch_capability("sm_9") == 0);
}
