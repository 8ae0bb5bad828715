// Compiled kernels, cached in memory and on disk so that the second process
// to need a kernel loads it instead of compiling it.
//
// Key: SHA-256 of the generated source, the template headers it may include,
// the NVRTC options, the NVRTC version, the target arch and the gpen version.
// An entry is one file, <key>.gpenbin, in the format that cache_entry.hpp
// describes (magic line with the format version, checksum of everything,
// JSON header, CUBIN and PTX). Files are written under a new name and
// renamed, so a reader never sees half an entry; an entry that is corrupt,
// of another format version or not a regular file is recompiled and replaced.
//
// The directory may be shared, or writable by someone else: entries are read
// without following links or blocking and bounded in size, whatever a file
// holds ends in a hit or a miss (never an exception, a hang or a crash), and
// files are only ever created anew (O_EXCL), never opened where a link may
// have been planted. A directory gpen can read but not write still serves
// its entries; only storing is skipped.
#pragma once

#include <filesystem>
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
  std::size_t bytes = 0;  // of the directory entry itself (a link's own size)
  long long age_seconds = 0;
  bool valid = false;   // false: will be recompiled, problem says why
  std::string problem;  // completes "entry ...": "is a FIFO, not a regular file", "is corrupt (checksum mismatch)"
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

  // Throws std::invalid_argument for an arch that valid_arch() refuses, and
  // CompileError when NVRTC fails; a bad entry on disk is only a miss.
  Result get(const GeneratedSource& src, const std::string& arch, const std::string& spec_name);

  const std::string& dir() const { return dir_; }
  // False when no file could be created in dir(): entries there are still
  // read, new kernels are kept in memory only (one warning, at construction).
  bool writable() const { return writable_; }
  // Every <key>.gpenbin, each read as get() would (no link followed, nothing
  // blocks), newest first.
  std::vector<CacheEntryInfo> list() const;
  // Removes every <key>.gpenbin, valid or not (a link is removed, never its
  // target); returns how many.
  std::size_t clear();

 private:
  void write_entry(const std::string& key, const std::string& spec_name, const CompiledKernel& k);
  std::string entry_path(const std::string& key) const;
  std::vector<std::filesystem::path> entry_files() const;  // every <key>.gpenbin, whatever it is
  void warn(const std::string& msg) const;

  std::string dir_;
  bool writable_ = true;
  mutable std::mutex mu_;
  std::map<std::string, CompiledKernel> memory_;
  WarningHandler warn_;
};

// "memory", "disk" or "compiled".
const char* to_string(KernelCache::Source s);

// One cache for the process, in the default directory.
KernelCache& process_cache();

}  // namespace gpen
