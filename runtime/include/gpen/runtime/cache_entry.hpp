// One kernel cache entry on disk, the file <cache dir>/<key>.gpenbin. This
// comment is the one description of the format; its version is in the
// first line.
//
// Format 3:
//
//   GPENBIN3\n                       magic and format version
//   xxh64 <16 lowercase hex>\n       XXH64 (seed 0, checksum.hpp) of all that follows
//   {"arch":"sm_90",...}\n           the header: one line of JSON
//   <CUBIN><PTX>                     the payload: cubin_bytes, then ptx_bytes
//
// The header's fields, each checked for its type before it is used:
//
//   key          string            the cache key; the file's name must match
//   spec         string            the spec's name (for `gpen cache list`)
//   kernel       string            the entry function's name
//   arch         string            "sm_90"
//   options      array of strings  the NVRTC options
//   cubin_bytes  unsigned integer  the CUBIN's size; it comes first
//   ptx_bytes    unsigned integer  the PTX's size; the two are the payload's
//   usage        object            registers, spill_stores, spill_loads,
//                                  shared_bytes, stack_bytes: integers from -1
//                                  (unknown) up, as ptxas reported them at
//                                  the compile; a hit reports these
//   log          string            NVRTC's log, kept for people
//   gpen, nvrtc  string            the versions that wrote the entry, and
//   created      integer           seconds since 1970: for people, not read
//
// The checksum covers everything after itself, and the magic line must be
// exact, so a changed log, option or size is a miss, not a hit reporting
// what the change says. It is not a signature: whoever may write the cache directory may also write a
// checksummed entry, and gpen then only promises not to crash, hang or
// follow links (kernel_cache.hpp).
//
// A reader takes a regular file of at most kMaxCacheEntryBytes, never a link,
// never blocking (read_regular_file). A first line GPENBIN<n> for another n is
// an entry of another version: a miss without a warning, replaced when the
// kernel is stored. Whatever else does not fit is corrupt: a miss with a
// warning, replaced too.
//
// Earlier formats, read as other versions (a miss, then replaced):
//   2: "GPENBIN2" and "sha256 <64 hex>" of the whole file less that line.
//      Verifying SHA-256 was most of a warm start; XXH64 finds the same
//      damage far faster (bench/RESULTS.md, "fifteenth session").
//   1: "GPENBIN1", a header whose sha256 covered the payload only, and no
//      bound on sizes.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "gpen/runtime/nvrtc_compiler.hpp"

namespace gpen {

constexpr int kCacheFormatVersion = 3;
// Far above any CUBIN (a few MiB at most); a larger file is not read.
constexpr std::size_t kMaxCacheEntryBytes = std::size_t{256} << 20;

// Why bytes are not an entry this gpen can use. what() completes "kernel
// cache entry '<path>' ...": "is corrupt (checksum mismatch)", "is of format
// version 2; this gpen reads version 3".
class CacheEntryError : public std::runtime_error {
 public:
  enum class Kind { OtherVersion, Corrupt };
  CacheEntryError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

struct CacheEntry {
  std::string spec;
  CompiledKernel kernel;  // compile_ms 0
};

// The header of the entry of `k` under `key`, made at `spec`'s compile.
nlohmann::json cache_entry_header(const std::string& key, const std::string& spec, const CompiledKernel& k);

// The entry file: magic, checksum, `header_line` and `payload`. Tests use it
// to make entries whose header is wrong but whose checksum is right.
std::string seal_cache_entry(const std::string& header_line, const std::string& payload);

// seal_cache_entry of cache_entry_header and k's CUBIN and PTX.
std::string encode_cache_entry(const std::string& key, const std::string& spec, const CompiledKernel& k);

// The entry in `bytes`, which must be stored under `key`. Throws
// CacheEntryError; nothing else escapes, whatever the bytes.
CacheEntry decode_cache_entry(std::string bytes, const std::string& key);

}  // namespace gpen
