#include "gpen/runtime/kernel_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <system_error>
#include <tuple>
#include <variant>

#include <fmt/format.h>

#include "gpen/generator/error.hpp"
#include "gpen/generator/regular_file.hpp"
#include "gpen/generator/sha256.hpp"
#include "gpen/runtime/arch.hpp"
#include "gpen/runtime/cache_entry.hpp"
#include "gpen/runtime/new_file.hpp"
#include "gpen/runtime/nvrtc_library.hpp"

namespace fs = std::filesystem;

namespace gpen {
namespace {

constexpr const char* kSuffix = ".gpenbin";

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + '\n';
  return s;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Empty when a file can be created in `dir`, else why not. The probe has a
// name no one can predict, is created exclusively and removed: a link
// planted in the directory is never followed.
std::string create_probe(const std::string& dir) {
  const std::string probe = fmt::format("{}/.probe.{}", dir, unique_name_part());
  try {
    write_new_file(probe, "");
  } catch (const std::system_error& e) {
    return e.code().message();
  }
  ::unlink(probe.c_str());
  return {};
}

// What the file at `path` holds for `key`: an entry, or why none.
struct Loaded {
  std::optional<CacheEntry> entry;
  std::string problem;    // completes "kernel cache entry '<path>' ..."
  bool expected = false;  // no file, or another version's entry: a miss that is no news
};

Loaded load_entry(const std::string& path, const std::string& key) {
  Loaded l;
  try {
    l.entry = decode_cache_entry(read_regular_file(path, kMaxCacheEntryBytes, Links::Refuse), key);
  } catch (const FileReadError& e) {
    l.problem = e.problem();
    l.expected = e.reason() == FileReadError::Reason::Missing;
  } catch (const CacheEntryError& e) {
    // Versions of gpen that share a directory replace each other's entries.
    l.problem = e.what();
    l.expected = e.kind() == CacheEntryError::Kind::OtherVersion;
  }
  return l;
}

// The parts every key shares: the NVRTC options and library, the arch and
// the gpen version; none of them opens NVRTC.
CacheKeyParts key_parts(std::string unit, std::string templates, std::string generator, const std::string& arch) {
  return CacheKeyParts{std::move(unit), std::move(templates), std::move(generator), join(nvrtc_options(arch, nvrtc_build_version())),
                       nvrtc_identity(), arch, GPEN_VERSION};
}

// Files that writes leave only when interrupted: replace_file's
// ".<name>.<unique>.tmp" and the writability probe ".probe.<unique>".
bool is_temporary(const std::string& name) {
  const auto ends_with = [&](const char* tail) {
    const std::size_t n = std::char_traits<char>::length(tail);
    return name.size() > n && name.compare(name.size() - n, n, tail) == 0;
  };
  return name.size() > 1 && name[0] == '.' && (ends_with(".tmp") || name.rfind(".probe.", 0) == 0);
}

// A directory entry as lstat sees it: a link is itself, never its target.
struct Stat {
  bool ok = false;
  struct stat st {};
};
Stat lstat_of(const fs::path& p) {
  Stat s;
  s.ok = ::lstat(p.c_str(), &s.st) == 0;
  return s;
}

}  // namespace

std::string cache_key(const CacheKeyParts& p) {
  // Each ingredient is length-prefixed so that no two lists collide.
  std::string material;
  for (const std::string* part : {&p.unit, &p.templates, &p.generator, &p.options, &p.nvrtc, &p.arch, &p.gpen_version})
    material += std::to_string(part->size()) + ":" + *part;
  return sha256_hex(material);
}

std::string cache_key(const ProgramIdentity& id, const std::string& arch) {
  return cache_key(key_parts(id.unit, id.templates, id.generator, arch));
}

std::optional<std::uint64_t> parse_byte_size(const std::string& text) {
  std::size_t i = 0;
  std::uint64_t n = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const std::uint64_t d = static_cast<std::uint64_t>(text[i] - '0');
    if (n > (UINT64_MAX - d) / 10) return std::nullopt;
    n = n * 10 + d;
  }
  if (i == 0) return std::nullopt;
  std::string unit = text.substr(i);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));  // 1g, 1GB, 1gib alike
  int shift = 0;
  if (!unit.empty() && unit != "B") {
    const std::size_t at = std::string("KMGT").find(unit[0]);
    if (at == std::string::npos) return std::nullopt;
    shift = 10 * static_cast<int>(at + 1);
    unit = unit.substr(1);
    if (!unit.empty() && unit != "B" && unit != "IB") return std::nullopt;
  }
  if (shift && n > (UINT64_MAX >> shift)) return std::nullopt;
  return n << shift;
}

std::string KernelCache::default_dir() {
  if (const char* d = std::getenv("GPEN_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/gpen";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/gpen";
  return ".gpen-cache";
}

std::uint64_t KernelCache::default_max_bytes() {
  const char* v = std::getenv("GPEN_CACHE_MAX_SIZE");
  if (!v || !*v) return kDefaultMaxBytes;
  if (const auto n = parse_byte_size(v)) return *n;
  throw std::invalid_argument(fmt::format("GPEN_CACHE_MAX_SIZE='{}' is not a size: expected bytes with an optional K, M, G or T (500M, 2G), or 0 for no cap", v));
}

KernelCache::KernelCache(std::string dir, WarningHandler on_warning) : dir_(std::move(dir)), warn_(std::move(on_warning)) {
  try {
    max_bytes_ = default_max_bytes();
  } catch (const std::invalid_argument& e) {
    warn(fmt::format("{}; the kernel cache keeps to {} bytes", e.what(), kDefaultMaxBytes));
  }
}

bool KernelCache::writable() const {
  // On first need, not at construction: a warm start reads and creates nothing.
  std::call_once(probed_, [this] {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    const std::string why = create_probe(dir_);
    if (why.empty()) return;
    writable_ = false;
    // A link whose target is gone reads as "File exists" from mkdir: say what it is.
    std::error_code lec;
    const bool dangling = fs::is_symlink(fs::symlink_status(dir_, lec)) && !fs::exists(dir_, lec);
    const std::string reason = dangling ? fmt::format("it is a link to '{}', which does not exist", fs::read_symlink(dir_, lec).string())
                               : ec     ? ec.message()
                                        : why;
    warn(fmt::format("kernel cache directory '{}' is not writable ({}); entries in it are used, new kernels are kept in memory only", dir_, reason));
  });
  return writable_;
}

void KernelCache::warn(const std::string& msg) const {
  if (warn_) warn_(msg);
  else fmt::print(stderr, "gpen: warning: {}\n", msg);
}

std::string KernelCache::entry_path(const std::string& key) const { return fmt::format("{}/{}{}", dir_, key, kSuffix); }

bool KernelCache::write_entry(const std::string& key, const std::string& spec_name, const CompiledKernel& k) {
  if (!writable()) return false;
  const std::string path = entry_path(key), bytes = encode_cache_entry(key, spec_name, k);
  if (bytes.size() > kMaxCacheEntryBytes) {  // it would never be read back
    warn(fmt::format("kernel cache entry '{}' not stored: {} bytes, more than the {} an entry may hold", path, bytes.size(), kMaxCacheEntryBytes));
    return false;
  }
  try {
    try {
      replace_file(path, bytes);
    } catch (const std::system_error& e) {
      // The directory removed since this process made it (a `rm -rf` of the
      // cache while it runs): made again, once, rather than given up on.
      if (e.code() != std::errc::no_such_file_or_directory || fs::exists(dir_)) throw;
      fs::create_directories(dir_);
      replace_file(path, bytes);
    }
  } catch (const std::system_error& e) {  // fs::filesystem_error included
    warn(fmt::format("could not store kernel cache entry '{}': {}", path, e.what()));
    return false;
  }
  after_store(bytes.size());
  return true;
}

void KernelCache::after_store(std::uint64_t bytes) {
  const std::uint64_t cap = max_bytes_;
  if (!cap) return;
  {
    std::lock_guard<std::mutex> lock(size_mu_);
    if (stored_bytes_) {
      *stored_bytes_ += bytes;
    } else {  // the first store: the one listing until the cap is near
      std::uint64_t total = 0;
      for (const fs::path& p : entry_files())
        if (const Stat s = lstat_of(p); s.ok) total += static_cast<std::uint64_t>(s.st.st_size);
      stored_bytes_ = total;
    }
    if (*stored_bytes_ <= cap) return;
  }
  // Down to 90%, so that the next stores do not each list the directory.
  prune(cap - cap / 10);
}

KernelCache::Result KernelCache::lookup(const std::string& key, const std::string& spec_name, Store store,
                                        const std::function<CompiledKernel()>& compile) {
  const auto t0 = std::chrono::steady_clock::now();
  Result r;
  r.key = key;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = memory_.find(r.key); it != memory_.end()) {
      r.kernel = it->second.kernel;
      r.source = Source::Memory;
      r.ms = ms_since(t0);
      return r;
    }
  }
  const std::string path = entry_path(r.key);
  Loaded stored = load_entry(path, r.key);
  if (stored.entry) {
    // Not kept in memory: a second copy of a kernel of a few hundred KB
    // costs a warm start more (fresh pages) than reading it again would.
    r.kernel = std::move(stored.entry->kernel);
    r.source = Source::Disk;
    // Used now: the last to go when the cache is pruned. The file was just
    // read as a regular file; a failure (a directory that is not ours, or
    // read-only) costs nothing.
    ::utimensat(AT_FDCWD, path.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
    r.ms = ms_since(t0);
    return r;
  }
  if (!stored.expected) warn(fmt::format("kernel cache entry '{}' {}; recompiling", path, stored.problem));
  r.kernel = compile();
  r.source = Source::Compiled;
  if (store == Store::Disk) write_entry(r.key, spec_name, r.kernel);
  {
    std::lock_guard<std::mutex> lock(mu_);
    memory_[r.key] = Held{r.kernel, spec_name};
  }
  r.ms = ms_since(t0);
  return r;
}

KernelCache::Result KernelCache::get(const Program& program, const std::string& arch, Store store) {
  check_arch(arch);
  return lookup(cache_key(program.identity, arch), program.label, store, [&] { return compile_with_nvrtc(program, arch); });
}

bool KernelCache::persist(const std::string& key) {
  const std::string path = entry_path(key);
  if (load_entry(path, key).entry) {  // a disk hit, or stored since
    ::utimensat(AT_FDCWD, path.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
    return true;
  }
  Held held;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = memory_.find(key);
    if (it == memory_.end()) return false;
    held = it->second;
  }
  return write_entry(key, held.spec, held.kernel);
}

std::vector<fs::path> KernelCache::entry_files() const {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == kSuffix) out.push_back(it->path());
  return out;
}

std::vector<CacheEntryInfo> KernelCache::list() const {
  std::vector<CacheEntryInfo> out;
  const std::time_t now = std::time(nullptr);
  for (const fs::path& p : entry_files()) {
    CacheEntryInfo info;
    info.path = p.string();
    info.key = p.stem().string();
    struct stat st {};
    if (::lstat(info.path.c_str(), &st) == 0) {  // the entry itself, not what a link names
      info.bytes = static_cast<std::size_t>(st.st_size);
      info.age_seconds = static_cast<long long>(now - st.st_mtime);
    }
    const Loaded stored = load_entry(info.path, info.key);
    info.valid = stored.entry.has_value();
    info.problem = stored.problem;
    if (stored.entry) {
      info.spec = stored.entry->spec;
      info.kernel = stored.entry->kernel.kernel_name;
      info.arch = stored.entry->kernel.arch;
    }
    out.push_back(info);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.age_seconds < b.age_seconds; });
  return out;
}

PruneReport KernelCache::clear() {
  const PruneReport r = prune(0);
  std::lock_guard<std::mutex> lock(mu_);
  memory_.clear();
  return r;
}

namespace {

// Unlinks an entry prune() chose. True where it is gone: removed here, or
// already by another process pruning at the same time (counting it as
// still there, each of several prunes would go on to newer entries and
// together empty the cache). Else counted, with the first reason.
bool remove_entry(const fs::path& p, PruneReport& r) {
  if (::unlink(p.c_str()) == 0) {
    ++r.entries_removed;
    return true;
  }
  const int why = errno;
  if (why == ENOENT) return true;
  if (r.entries_not_removed++ == 0) r.failure = fmt::format("cannot remove {}: {}", p.string(), std::strerror(why));
  return false;
}

}  // namespace

PruneReport KernelCache::prune(std::uint64_t max_bytes) {
  PruneReport r;
  struct Entry {
    fs::path path;
    std::uint64_t bytes;
    struct timespec used;
  };
  std::vector<Entry> entries;
  const std::time_t now = std::time(nullptr);
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    const Stat s = lstat_of(p);
    if (!s.ok || S_ISDIR(s.st.st_mode)) continue;
    if (is_temporary(p.filename().string())) {
      if (now - s.st.st_mtime >= kTemporaryAgeSeconds && ::unlink(p.c_str()) == 0) ++r.temporaries_removed;
      continue;
    }
    if (p.extension() != kSuffix) continue;
    const auto bytes = static_cast<std::uint64_t>(s.st.st_size);
    r.bytes_before += bytes;
    if (!S_ISREG(s.st.st_mode)) {  // a link (unlinked, never followed), a FIFO: never a usable entry
      if (!remove_entry(p, r)) r.bytes_after += bytes;
      continue;
    }
    entries.push_back({p, bytes, s.st.st_mtim});
  }
  // A directory that cannot be read (its mode) hides what it holds: no
  // "removed 0 entries" as if it were empty.
  if (ec && ec != std::errc::no_such_file_or_directory && r.failure.empty()) r.failure = fmt::format("cannot list {}: {}", dir_, ec.message());
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.used.tv_sec, a.used.tv_nsec, a.path) < std::tie(b.used.tv_sec, b.used.tv_nsec, b.path);
  });
  std::uint64_t total = 0;
  for (const Entry& e : entries) total += e.bytes;
  for (const Entry& e : entries) {
    if (total <= max_bytes) break;
    if (remove_entry(e.path, r)) total -= e.bytes;
  }
  r.bytes_after += total;
  std::lock_guard<std::mutex> lock(size_mu_);
  stored_bytes_ = r.bytes_after;
  return r;
}

const char* to_string(KernelCache::Source s) {
  switch (s) {
    case KernelCache::Source::Memory: return "memory";
    case KernelCache::Source::Disk: return "disk";
    case KernelCache::Source::Compiled: return "compiled";
  }
  return "?";
}

KernelCache& process_cache() {
  static KernelCache cache;
  return cache;
}

}  // namespace gpen
