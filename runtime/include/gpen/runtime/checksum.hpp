// XXH64, the 64-bit xxHash: a checksum fast enough to verify a kernel cache
// entry of a few hundred KB within a warm start, where the SHA-256 it
// replaced was most of a hit's time (bench/RESULTS.md, "fifteenth session").
// It finds damage, not forgery (cache_entry.hpp says why none is needed).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpen {

// XXH64 of `data` with `seed`, as the reference implementation computes it
// (xxhsum -H1 prints the same).
std::uint64_t xxh64(std::string_view data, std::uint64_t seed = 0);
// The same as 16 lowercase hex digits.
std::string xxh64_hex(std::string_view data, std::uint64_t seed = 0);

}  // namespace gpen
