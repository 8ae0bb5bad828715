// Compiled kernels, cached in memory and on disk so that the second process
// to need a kernel loads it instead of compiling it.
//
// Key: SHA-256 of the generated source, the template headers it may include, the NVRTC options, the NVRTC
// version, the target arch and the gpen version. An entry is one file,
// <key>.gpenbin: a magic line, a JSON header (spec, kernel, sizes, checksum,
// ptxas usage, log), then the CUBIN and the PTX. Files are written to a
// temporary name and renamed, so a reader never sees half an entry; an entry
// whose checksum, sizes or key do not match is recompiled and replaced.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gpen/runtime/nvrtc_compiler.hpp"

namespace gpen {

struct CacheKeyParts {
  std::string source, headers, options, nvrtc_version, arch, gpen_version;  // headers: hash of the template files
};
std::string cache_key(const CacheKeyParts& parts);
std::string cache_key(const GeneratedSource& src, const std::string& arch);

struct CacheEntryInfo {
  std::string key;
  std::string path;
  std::string spec;
  std::string kernel;
  std::string arch;
  std::size_t bytes = 0;
  long long age_seconds = 0;
  bool valid = false;  // false: corrupt or truncated, will be recompiled
};

class KernelCache {
 public:
  enum class Source { Memory, Disk, Compiled };
  struct Result {
    CompiledKernel kernel;
    Source source;
    std::string key;
    double ms = 0;  // lookup (and compile) time
  };

  // $GPEN_CACHE_DIR, else $XDG_CACHE_HOME/gpen, else $HOME/.cache/gpen.
  static std::string default_dir();
  using WarningHandler = std::function<void(const std::string&)>;
  // Warnings (unwritable directory, corrupt entry) go to `on_warning`, default stderr.
  explicit KernelCache(std::string dir = default_dir(), WarningHandler on_warning = {});

  Result get(const GeneratedSource& src, const std::string& arch, const std::string& spec_name);

  const std::string& dir() const { return dir_; }
  bool on_disk() const { return disk_ok_; }
  std::vector<CacheEntryInfo> list() const;
  std::size_t clear();  // removes every entry file; returns how many


 private:
  bool read_entry(const std::string& path, const std::string& key, CompiledKernel& out, std::string& why) const;
  void write_entry(const std::string& key, const std::string& spec_name, const CompiledKernel& k);
  void warn(const std::string& msg) const;

  std::string dir_;
  bool disk_ok_ = true;
  mutable std::mutex mu_;
  std::map<std::string, CompiledKernel> memory_;
  WarningHandler warn_;
};

// "memory", "disk" or "compiled".
const char* to_string(KernelCache::Source s);

// One cache for the process, in the default directory.
KernelCache& process_cache();

}  // namespace gpen
