// Target architectures as NVRTC's --gpu-architecture takes them for a CUBIN:
// "sm_" then the compute capability's two or three digits, and optionally
// 'a' (arch-specific features) or 'f' (family): sm_75, sm_90a, sm_100f.
// Checked before the name reaches a cache key or a compile, so that
// "sm_90\n" is an error rather than a kernel cache entry of its own.
#pragma once

#include <string>

namespace gpen {

bool valid_arch(const std::string& arch);

// The compute capability a valid arch names, as its digits read (sm_90a:
// 90, sm_100f: 100); 0 for an invalid one.
int arch_capability(const std::string& arch);

// Why `arch` is not valid, e.g. "\"sm_90\\n\" is not a GPU architecture:
// expected sm_ and 2 or 3 digits, optionally followed by a or f (sm_90,
// sm_90a, sm_100f)"; empty when it is valid.
std::string arch_problem(const std::string& arch);

// Throws std::invalid_argument with arch_problem(arch) unless it is valid.
void check_arch(const std::string& arch);

}  // namespace gpen
