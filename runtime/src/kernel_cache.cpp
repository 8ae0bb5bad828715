#include "gpen/runtime/kernel_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "gpen/generator/regular_file.hpp"
#include "gpen/generator/sha256.hpp"
#include "gpen/generator/templates.hpp"
#include "gpen/runtime/arch.hpp"
#include "gpen/runtime/cache_entry.hpp"
#include "gpen/runtime/new_file.hpp"

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

}  // namespace

std::string cache_key(const CacheKeyParts& p) {
  // Each ingredient is length-prefixed so that no two lists collide.
  std::string material;
  for (const std::string* part : {&p.source, &p.headers, &p.options, &p.nvrtc_version, &p.arch, &p.gpen_version})
    material += std::to_string(part->size()) + ":" + *part;
  return sha256_hex(material);
}

std::string cache_key(const GeneratedSource& src, const std::string& arch) {
  // The unit #includes the templates, so their text is part of what is
  // compiled: an edited template (or a GPEN_TEMPLATE_DIR) must miss.
  return cache_key(CacheKeyParts{src.source, template_headers_sha256(), join(nvrtc_options(arch)), nvrtc_version(), arch, GPEN_VERSION});
}

std::string KernelCache::default_dir() {
  if (const char* d = std::getenv("GPEN_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/gpen";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/gpen";
  return ".gpen-cache";
}

KernelCache::KernelCache(std::string dir, WarningHandler on_warning) : dir_(std::move(dir)), warn_(std::move(on_warning)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  const std::string why = create_probe(dir_);
  if (!why.empty()) {
    writable_ = false;
    warn(fmt::format("kernel cache directory '{}' is not writable ({}); entries in it are used, new kernels are kept in memory only",
                     dir_, ec ? ec.message() : why));
  }
}

void KernelCache::warn(const std::string& msg) const {
  if (warn_) warn_(msg);
  else fmt::print(stderr, "gpen: warning: {}\n", msg);
}

std::string KernelCache::entry_path(const std::string& key) const { return fmt::format("{}/{}{}", dir_, key, kSuffix); }

void KernelCache::write_entry(const std::string& key, const std::string& spec_name, const CompiledKernel& k) {
  if (!writable_) return;
  const std::string path = entry_path(key), bytes = encode_cache_entry(key, spec_name, k);
  if (bytes.size() > kMaxCacheEntryBytes) {  // it would never be read back
    warn(fmt::format("kernel cache entry '{}' not stored: {} bytes, more than the {} an entry may hold", path, bytes.size(), kMaxCacheEntryBytes));
    return;
  }
  try {
    replace_file(path, bytes);
  } catch (const std::system_error& e) {
    warn(fmt::format("could not store kernel cache entry '{}': {}", path, e.what()));
  }
}

KernelCache::Result KernelCache::get(const GeneratedSource& src, const std::string& arch, const std::string& spec_name) {
  check_arch(arch);
  const auto t0 = std::chrono::steady_clock::now();
  Result r;
  r.key = cache_key(src, arch);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = memory_.find(r.key); it != memory_.end()) {
      r.kernel = it->second;
      r.source = Source::Memory;
      r.ms = ms_since(t0);
      return r;
    }
  }
  const std::string path = entry_path(r.key);
  if (Loaded stored = load_entry(path, r.key); stored.entry) {
    r.kernel = std::move(stored.entry->kernel);
    r.source = Source::Disk;
  } else {
    if (!stored.expected) warn(fmt::format("kernel cache entry '{}' {}; recompiling", path, stored.problem));
    r.kernel = compile_with_nvrtc(src, arch, spec_name);
    r.source = Source::Compiled;
    write_entry(r.key, spec_name, r.kernel);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    memory_[r.key] = r.kernel;
  }
  r.ms = ms_since(t0);
  return r;
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

std::size_t KernelCache::clear() {
  std::size_t n = 0;
  std::error_code ec;
  for (const fs::path& p : entry_files()) n += fs::remove(p, ec) ? 1 : 0;  // unlink: a link goes, its target stays
  std::lock_guard<std::mutex> lock(mu_);
  memory_.clear();
  return n;
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
