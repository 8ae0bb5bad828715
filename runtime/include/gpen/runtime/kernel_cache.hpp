// Compiled kernels, cached in memory and on disk so that the second process
// to need a kernel loads it instead of compiling it.
//
// Keys. A Program (program.hpp) is looked up without printing its source,
// so that a warm start costs a hash, a file read and no NVRTC: its key is
// the SHA-256 of its identity (for a spec's kernel: the spec's hash, the
// tunable choice, the templates in use and the generator's fingerprint;
// families/common/spec_program.hpp), the NVRTC library's identity
// (nvrtc_identity(): build-time CUDA version, path, size and mtime of the
// library, known without opening it), the NVRTC options, the arch and the
// gpen version. The source is printed, and NVRTC opened, on a miss only.
//
// Entries. One file, <key>.gpenbin, in the format that cache_entry.hpp
// describes (magic line with the format version, checksum of everything,
// JSON header, CUBIN and PTX). Files are written under a new name and
// renamed, so a reader never sees half an entry; an entry that is corrupt,
// of another format version or not a regular file is recompiled and replaced.
//
// Size. A disk hit sets the entry's mtime to now (one utimensat), so mtime
// orders entries by last use. After each store, when the entries pass the
// cap ($GPEN_CACHE_MAX_SIZE, default 1 GiB; 0 for none), the least recently
// used are removed down to 90% of it: the first store of a KernelCache lists
// the directory once, later ones add their own size, so the check costs
// nothing until the cap is near. prune() (`gpen cache prune`) does the same
// on demand, and removes what interrupted writes left (temporaries older
// than 10 minutes). A search that compiles thousands of variants keeps them
// in memory (Store::Memory) and persist()s the few worth keeping.
//
// The directory may be shared, or writable by someone else: entries are read
// without following links or blocking and bounded in size, whatever a file
// holds ends in a hit or a miss (never an exception, a hang or a crash), and
// files are only ever created anew (O_EXCL), never opened where a link may
// have been planted; prune and clear unlink links, never their targets. A
// directory gpen can read but not write still serves its entries; only
// storing is skipped.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpen/runtime/nvrtc_compiler.hpp"
#include "gpen/runtime/program.hpp"

namespace gpen {

struct CacheKeyParts {
  std::string unit;       // ProgramIdentity's three parts
  std::string templates;
  std::string generator;
  std::string options;    // the NVRTC options, one a line
  std::string nvrtc;      // nvrtc_identity()
  std::string arch, gpen_version;
};
std::string cache_key(const CacheKeyParts& parts);
// The key of a program by its identity: nothing is printed, NVRTC is not opened.
std::string cache_key(const ProgramIdentity& identity, const std::string& arch);

// "500M", "2G", "1GiB", "64k", "1048576": bytes, with K, M, G or T (powers
// of 1024, optionally followed by B or iB; any case). nullopt for anything else.
std::optional<std::uint64_t> parse_byte_size(const std::string& text);

struct CacheEntryInfo {
  std::string key;
  std::string path;
  std::string spec;
  std::string kernel;
  std::string arch;
  std::size_t bytes = 0;  // of the directory entry itself (a link's own size)
  long long age_seconds = 0;  // since its last use (mtime)
  bool valid = false;   // false: will be recompiled, problem says why
  std::string problem;  // completes "entry ...": "is a FIFO, not a regular file", "is corrupt (checksum mismatch)"
};

// What prune() did.
struct PruneReport {
  std::size_t entries_removed = 0;      // least recently used first; links and other non-files always
  std::size_t temporaries_removed = 0;  // left by interrupted writes
  std::uint64_t bytes_before = 0, bytes_after = 0;  // of the entries
  std::size_t entries_not_removed = 0;  // that were to go but could not (a directory this user may not change)
  std::string failure;                  // the first of those, and why; or why the directory could not be listed
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
  // Where a kernel this object compiles goes: into its memory and onto
  // disk, or into its memory only, until persist(). A hit is never written
  // again. (A disk hit is not kept in memory: a second copy of every kernel
  // a process loads would cost a warm start more than a second read.)
  enum class Store { Disk, Memory };

  static constexpr std::uint64_t kDefaultMaxBytes = std::uint64_t{1} << 30;
  // Temporary files younger than this may belong to a write under way.
  static constexpr int kTemporaryAgeSeconds = 600;

  // $GPEN_CACHE_DIR, else $XDG_CACHE_HOME/gpen, else $HOME/.cache/gpen.
  static std::string default_dir();
  // $GPEN_CACHE_MAX_SIZE (parse_byte_size; 0: no cap), else kDefaultMaxBytes.
  // Throws std::invalid_argument for a value that is no size.
  static std::uint64_t default_max_bytes();
  using WarningHandler = std::function<void(const std::string&)>;
  // Warnings (unwritable directory, corrupt entry, a GPEN_CACHE_MAX_SIZE
  // that is no size) go to `on_warning`, default stderr.
  explicit KernelCache(std::string dir = default_dir(), WarningHandler on_warning = {});

  // The program's kernel for `arch`: its source is printed, and NVRTC
  // opened, only on a miss. Throws std::invalid_argument for an arch that
  // valid_arch() refuses, and CompileError when NVRTC fails; a bad entry on
  // disk is only a miss.
  Result get(const Program& program, const std::string& arch, Store store = Store::Disk);

  // Writes the kernel held in memory under `key` (Result::key of a get with
  // Store::Memory) to disk, unless a valid entry is there already (then it
  // only marks it used). True when it is on disk now; false when neither
  // disk nor this object holds it, or the directory is not writable, or
  // the write failed (warned).
  bool persist(const std::string& key);

  const std::string& dir() const { return dir_; }
  // False when no file could be created in dir(): entries there are still
  // read, new kernels are kept in memory only. Found out (the directory
  // created, a probe file written) on the first call or store, with one
  // warning when not: constructing a cache touches no file.
  bool writable() const;
  // The cap of the automatic prune; 0: none.
  std::uint64_t max_bytes() const { return max_bytes_.load(); }
  void set_max_bytes(std::uint64_t bytes) { max_bytes_ = bytes; }
  // Every <key>.gpenbin, each read as get() would (no link followed, nothing
  // blocks), most recently used first.
  std::vector<CacheEntryInfo> list() const;
  // Removes every <key>.gpenbin, valid or not (a link is removed, never its
  // target), and what interrupted writes left long ago: prune(0), and the
  // kernels held in memory forgotten.
  PruneReport clear();
  // Removes temporaries left by interrupted writes, every <key>.gpenbin that
  // is not a regular file (links unlinked, never followed), then regular
  // entries, least recently used first, until they hold at most
  // `max_bytes`. Kernels held in memory stay usable. An entry another
  // process removed meanwhile counts as gone (prunes may run at once); one
  // this process may not remove is counted in entries_not_removed.
  PruneReport prune(std::uint64_t max_bytes);

 private:
  struct Held {
    CompiledKernel kernel;
    std::string spec;
  };
  Result lookup(const std::string& key, const std::string& spec_name, Store store,
                const std::function<CompiledKernel()>& compile);
  bool write_entry(const std::string& key, const std::string& spec_name, const CompiledKernel& k);
  void after_store(std::uint64_t bytes);
  std::string entry_path(const std::string& key) const;
  std::vector<std::filesystem::path> entry_files() const;  // every <key>.gpenbin, whatever it is
  void warn(const std::string& msg) const;

  std::string dir_;
  mutable std::once_flag probed_;
  mutable bool writable_ = true;
  std::atomic<std::uint64_t> max_bytes_{kDefaultMaxBytes};
  mutable std::mutex mu_;
  std::map<std::string, Held> memory_;
  std::mutex size_mu_;                         // the automatic prune's running total:
  std::optional<std::uint64_t> stored_bytes_;  // the entries' bytes at the last listing, plus stores since
  WarningHandler warn_;
};

// "memory", "disk" or "compiled".
const char* to_string(KernelCache::Source s);

// One cache for the process, in the default directory.
KernelCache& process_cache();

}  // namespace gpen
