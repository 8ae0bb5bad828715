#include "gpen/runtime/cache_entry.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "gpen/runtime/bounded_json.hpp"
#include "gpen/runtime/checksum.hpp"

namespace gpen {
namespace {

using nlohmann::json;

const std::string kMagicStem = "GPENBIN";
const std::string kMagic = kMagicStem + std::to_string(kCacheFormatVersion);
const std::string kChecksumTag = "xxh64 ";
constexpr int kHeaderDepth = 2;  // the header object, and usage and options in it

[[noreturn]] void corrupt(const std::string& why) { throw CacheEntryError(CacheEntryError::Kind::Corrupt, "is corrupt (" + why + ")"); }

// What a JSON value is, for "header field 'x' is <this>, not <that>".
std::string kind_of(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_unsigned()) return "an unsigned integer";
  if (v.is_number_integer()) return "a negative integer";
  if (v.is_number()) return "a floating-point number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

bool is_string(const json& v) { return v.is_string(); }
bool is_object(const json& v) { return v.is_object(); }
bool is_size(const json& v) { return v.is_number_unsigned(); }
bool is_strings(const json& v) {
  if (!v.is_array()) return false;
  for (const auto& x : v)
    if (!x.is_string()) return false;
  return true;
}
// A ptxas figure: -1 (not reported) or a count that fits an int.
bool is_usage(const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= INT_MAX;
  return v.is_number_integer() && v.get<std::int64_t>() == -1;
}

// obj[name] when `ok` holds for it; else the entry is corrupt, and the
// message names the field (`path` is its full name) and what it holds.
const json& field(const json& obj, const std::string& path, const char* name, bool (*ok)(const json&), const char* expected) {
  const auto it = obj.find(name);
  if (it == obj.end()) corrupt(fmt::format("the header has no field '{}'", path));
  if (!ok(*it)) corrupt(fmt::format("header field '{}' is {}, not {}", path, kind_of(*it), expected));
  return *it;
}
std::string string_field(const json& h, const char* name) { return field(h, name, name, is_string, "a string").get<std::string>(); }
std::uint64_t size_field(const json& h, const char* name) { return field(h, name, name, is_size, "an unsigned integer").get<std::uint64_t>(); }

ResourceUsage usage_of(const json& h) {
  const json& u = field(h, "usage", "usage", is_object, "an object");
  auto figure = [&](const char* name) {
    return field(u, std::string("usage.") + name, name, is_usage, "-1 or a count below 2^31").get<int>();
  };
  ResourceUsage r;
  r.registers = figure("registers");
  r.spill_stores = figure("spill_stores");
  r.spill_loads = figure("spill_loads");
  r.shared_bytes = figure("shared_bytes");
  r.stack_bytes = figure("stack_bytes");
  return r;
}

// Throws unless the first line is this version's magic.
void check_magic(const std::string& line) {
  if (line == kMagic) return;
  const std::string version = line.compare(0, kMagicStem.size(), kMagicStem) == 0 ? line.substr(kMagicStem.size()) : "";
  if (!version.empty() && version.size() <= 9 && version.find_first_not_of("0123456789") == std::string::npos)
    throw CacheEntryError(CacheEntryError::Kind::OtherVersion,
                          fmt::format("is of format version {}; this gpen reads version {}", version, kCacheFormatVersion));
  corrupt(fmt::format("its first line is not {}", kMagic));
}

}  // namespace

json cache_entry_header(const std::string& key, const std::string& spec, const CompiledKernel& k) {
  const auto created = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return {{"key", key},
          {"spec", spec},
          {"kernel", k.kernel_name},
          {"arch", k.arch},
          {"options", k.options},
          {"cubin_bytes", k.cubin.size()},
          {"ptx_bytes", k.ptx.size()},
          {"usage", to_json(k.usage)},
          {"log", k.log},
          {"gpen", GPEN_VERSION},
          {"nvrtc", nvrtc_version()},
          {"created", created}};
}

std::string seal_cache_entry(const std::string& header_line, const std::string& payload) {
  const std::string rest = header_line + '\n' + payload;
  return kMagic + '\n' + kChecksumTag + xxh64_hex(rest) + '\n' + rest;
}

std::string encode_cache_entry(const std::string& key, const std::string& spec, const CompiledKernel& k) {
  // A byte of the log that is not UTF-8 becomes U+FFFD rather than an exception.
  return seal_cache_entry(cache_entry_header(key, spec, k).dump(-1, ' ', false, json::error_handler_t::replace), k.cubin + k.ptx);
}

CacheEntry decode_cache_entry(std::string bytes, const std::string& key) {
  const std::size_t magic_end = bytes.find('\n');
  check_magic(bytes.substr(0, std::min(magic_end, std::size_t{64})));  // a file with no newline is not copied whole
  const std::size_t sum_at = magic_end + 1, sum_end = bytes.find('\n', sum_at);
  if (sum_end == std::string::npos || bytes.compare(sum_at, kChecksumTag.size(), kChecksumTag) != 0) corrupt("no checksum line");
  const std::string sum = bytes.substr(sum_at + kChecksumTag.size(), sum_end - sum_at - kChecksumTag.size());
  if (sum != xxh64_hex(std::string_view(bytes).substr(sum_end + 1))) corrupt("checksum mismatch");

  const std::size_t header_at = sum_end + 1, header_end = bytes.find('\n', header_at);
  if (header_end == std::string::npos) corrupt("no header line");
  const json h = parse_bounded_json(bytes.substr(header_at, header_end - header_at), kHeaderDepth);
  if (!h.is_object()) corrupt("the header is not a JSON object of the expected shape");
  if (string_field(h, "key") != key) corrupt("it holds another key than its name says");
  const std::size_t payload = bytes.size() - header_end - 1;
  const std::uint64_t nc = size_field(h, "cubin_bytes"), np = size_field(h, "ptx_bytes");
  if (nc > payload || np != payload - nc)  // no sum that could wrap
    corrupt(fmt::format("{} payload bytes, the header says {} of CUBIN and {} of PTX", payload, nc, np));

  CacheEntry e;
  e.spec = string_field(h, "spec");
  e.kernel.kernel_name = string_field(h, "kernel");
  e.kernel.arch = string_field(h, "arch");
  e.kernel.options = field(h, "options", "options", is_strings, "an array of strings").get<std::vector<std::string>>();
  e.kernel.usage = usage_of(h);
  e.kernel.log = string_field(h, "log");
  // The CUBIN keeps the bytes' buffer: fresh pages for a copy of a few
  // hundred KB cost more page faults than a warm start may spend.
  e.kernel.ptx = bytes.substr(header_end + 1 + nc);
  bytes.erase(0, header_end + 1);
  bytes.resize(nc);
  e.kernel.cubin = std::move(bytes);
  return e;
}

}  // namespace gpen
