// SHA-256 (FIPS 180-4): content hashes of specs and the kernel-cache keys.
#pragma once

#include <string>

namespace gpen {

std::string sha256_hex(const std::string& data);

}  // namespace gpen
