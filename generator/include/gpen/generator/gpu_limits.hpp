// Limits of a CUDA block that every plan checks before it generates code.
#pragma once

#include <cstddef>

namespace gpen {

// Static shared memory a block may declare.
constexpr std::size_t kMaxStaticShared = 48 * 1024;
// Dynamic shared memory a block may have on any GPU (sm_90's opt-in
// limit); the runtime checks the device's own limit before a launch.
constexpr std::size_t kMaxDynamicShared = 227 * 1024;
// Registers a thread may have, and an SM's, on every GPU since sm_50 (a
// block of more threads gets fewer a thread).
constexpr int kMaxRegistersPerThread = 255;
constexpr int kRegistersPerSm = 64 * 1024;

}  // namespace gpen
