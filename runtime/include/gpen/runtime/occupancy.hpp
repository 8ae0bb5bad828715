// How many blocks of a compiled kernel an SM holds at once, from its
// registers, shared memory and threads and the SM's limits for the target
// architecture (the CUDA programming guide's table of limits per compute
// capability), so that `gpen compile` can say what bounds a heavy kernel
// without a profiler: a fused stage kernel whose rings take
// 180 KB runs one block an SM, 4 warps, whatever its registers allow.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "gpen/runtime/nvrtc_compiler.hpp"

namespace gpen {

struct SmLimits {
  int registers = 64 * 1024;
  std::size_t shared_bytes = 0;          // an SM's shared memory for blocks
  std::size_t reserved_per_block = 1024;  // shared memory the driver keeps a block
  int threads = 2048;
  int blocks = 32;
};

// The limits of `arch` (sm_80, sm_86, sm_87, sm_89, sm_90, sm_100 and
// their a/f forms); none for an architecture this table does not know.
std::optional<SmLimits> sm_limits(const std::string& arch);

struct Residency {
  int blocks = 0;        // an SM holds at once
  int warps = 0;         // theirs
  std::string bound;     // what stops one more: "registers", "shared memory", "threads" or "blocks"
  int thread_registers = 0;         // a thread's, as compiled
  int block_registers = 0;          // a block's, as they are given
  std::size_t block_shared_bytes = 0;  // a block's static and dynamic, as it is given (without the reserve)
  SmLimits sm;
};

// Registers are given a warp at a time, each thread's rounded up to 8,
// from one of the SM's 4 quarters; shared memory in 128 B units, with
// sm.reserved_per_block more. 0 blocks: one block does not fit. Requires
// usage.registers > 0 and threads > 0.
Residency resident_blocks(const ResourceUsage& usage, int threads, std::size_t dynamic_shared_bytes, const SmLimits& sm);

// The same on `arch`; none where its limits or the usage are unknown.
std::optional<Residency> residency(const ResourceUsage& usage, int threads, std::size_t dynamic_shared_bytes, const std::string& arch);

// "2 blocks an SM (8 warps), bound by shared memory: 102144 + 1024 B a
// block of 233472" ("no block fits an SM, bound by ..." where none does).
std::string to_string(const Residency& r);

}  // namespace gpen
