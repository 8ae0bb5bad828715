#include "gpen/runtime/checksum.hpp"

#include <cstring>

#include <fmt/format.h>

namespace gpen {
namespace {

constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ULL, kP2 = 0xC2B2AE3D27D4EB4FULL, kP3 = 0x165667B19E3779F9ULL,
                        kP4 = 0x85EBCA77C2B2AE63ULL, kP5 = 0x27D4EB2F165667C5ULL;

std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// A little-endian load of a T, whatever the host; memcpy: no unaligned access.
template <class T>
std::uint64_t load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  if constexpr (sizeof v == 8) v = __builtin_bswap64(v);
  else v = __builtin_bswap32(v);
#endif
  return v;
}

std::uint64_t round(std::uint64_t acc, std::uint64_t input) { return rotl(acc + input * kP2, 31) * kP1; }
std::uint64_t merge(std::uint64_t acc, std::uint64_t v) { return (acc ^ round(0, v)) * kP1 + kP4; }

}  // namespace

std::uint64_t xxh64(std::string_view data, std::uint64_t seed) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const unsigned char* const end = p + data.size();
  std::uint64_t h;
  if (data.size() >= 32) {
    std::uint64_t v1 = seed + kP1 + kP2, v2 = seed + kP2, v3 = seed, v4 = seed - kP1;
    for (; end - p >= 32; p += 32) {
      v1 = round(v1, load<std::uint64_t>(p));
      v2 = round(v2, load<std::uint64_t>(p + 8));
      v3 = round(v3, load<std::uint64_t>(p + 16));
      v4 = round(v4, load<std::uint64_t>(p + 24));
    }
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else {
    h = seed + kP5;
  }
  h += static_cast<std::uint64_t>(data.size());
  for (; end - p >= 8; p += 8) h = rotl(h ^ round(0, load<std::uint64_t>(p)), 27) * kP1 + kP4;
  if (end - p >= 4) {
    h = rotl(h ^ (load<std::uint32_t>(p) * kP1), 23) * kP2 + kP3;
    p += 4;
  }
  for (; p < end; ++p) h = rotl(h ^ (*p * kP5), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

std::string xxh64_hex(std::string_view data, std::uint64_t seed) { return fmt::format("{:016x}", xxh64(data, seed)); }

}  // namespace gpen
