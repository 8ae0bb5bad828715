#include "gpen/runtime/kernel_cache.hpp"

#include "gpen/generator/templates.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpen/generator/sha256.hpp"

namespace fs = std::filesystem;

namespace gpen {
namespace {

constexpr const char* kMagic = "GPENBIN1";
constexpr const char* kSuffix = ".gpenbin";

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + '\n';
  return s;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Header line and payload of one entry file; false if the layout is broken.
bool split_entry(const std::string& data, nlohmann::json& header, std::string& payload) {
  const std::string magic = std::string(kMagic) + "\n";
  if (data.compare(0, magic.size(), magic) != 0) return false;
  const std::size_t nl = data.find('\n', magic.size());
  if (nl == std::string::npos) return false;
  header = nlohmann::json::parse(data.substr(magic.size(), nl - magic.size()), nullptr, false);
  if (header.is_discarded() || !header.is_object()) return false;
  payload = data.substr(nl + 1);
  return true;
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
  const std::string probe = fmt::format("{}/.probe.{}", dir_, getpid());
  std::ofstream(probe) << "x";
  if (ec || !fs::exists(probe)) {
    disk_ok_ = false;
    warn(fmt::format("kernel cache directory '{}' is not writable ({}); kernels are cached in memory only",
                     dir_, ec ? ec.message() : "cannot create files"));
  }
  fs::remove(probe, ec);
}

void KernelCache::warn(const std::string& msg) const {
  if (warn_) warn_(msg);
  else fmt::print(stderr, "gpen: warning: {}\n", msg);
}

bool KernelCache::read_entry(const std::string& path, const std::string& key, CompiledKernel& out, std::string& why) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;  // absent: not a problem
  std::ostringstream ss;
  ss << in.rdbuf();
  nlohmann::json h;
  std::string payload;
  if (!split_entry(ss.str(), h, payload)) return why = "bad header", false;
  const std::size_t nc = h.value("cubin_bytes", std::size_t{0}), np = h.value("ptx_bytes", std::size_t{0});
  if (payload.size() != nc + np) return why = fmt::format("{} payload bytes, header says {}", payload.size(), nc + np), false;
  if (sha256_hex(payload) != h.value("sha256", "")) return why = "checksum mismatch", false;
  if (h.value("key", "") != key) return why = "key mismatch", false;
  out.cubin = payload.substr(0, nc);
  out.ptx = payload.substr(nc);
  out.kernel_name = h.value("kernel", "");
  out.arch = h.value("arch", "");
  out.log = h.value("log", "");
  out.options = h.value("options", std::vector<std::string>{});
  out.usage = parse_ptxas_usage(out.log, out.kernel_name);  // the named entry's section, as after a compile
  return true;
}

void KernelCache::write_entry(const std::string& key, const std::string& spec_name, const CompiledKernel& k) {
  if (!disk_ok_) return;
  const std::string payload = k.cubin + k.ptx;
  const nlohmann::json h = {{"key", key},
                            {"spec", spec_name},
                            {"kernel", k.kernel_name},
                            {"arch", k.arch},
                            {"gpen", GPEN_VERSION},
                            {"nvrtc", nvrtc_version()},
                            {"options", k.options},
                            {"created", std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count()},
                            {"cubin_bytes", k.cubin.size()},
                            {"ptx_bytes", k.ptx.size()},
                            {"sha256", sha256_hex(payload)},
                            {"usage", to_json(k.usage)},
                            {"log", k.log}};
  const std::string final_path = fmt::format("{}/{}{}", dir_, key, kSuffix);
  std::random_device rd;
  const std::string tmp = fmt::format("{}/.{}.{}.{:x}.tmp", dir_, key, getpid(), rd());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << kMagic << '\n' << h.dump() << '\n' << payload;
    if (!out.flush()) {
      warn(fmt::format("could not write kernel cache entry '{}'", tmp));
      std::error_code ec;
      fs::remove(tmp, ec);
      return;
    }
  }
  std::error_code ec;
  fs::rename(tmp, final_path, ec);  // atomic on POSIX: readers see the old file or the new one
  if (ec) {
    warn(fmt::format("could not store kernel cache entry '{}': {}", final_path, ec.message()));
    fs::remove(tmp, ec);
  }
}

KernelCache::Result KernelCache::get(const GeneratedSource& src, const std::string& arch, const std::string& spec_name) {
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
  const std::string path = fmt::format("{}/{}{}", dir_, r.key, kSuffix);
  std::string why;
  if (disk_ok_ && read_entry(path, r.key, r.kernel, why)) {
    r.source = Source::Disk;
  } else {
    if (!why.empty()) warn(fmt::format("kernel cache entry '{}' is corrupt ({}); recompiling", path, why));
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

std::vector<CacheEntryInfo> KernelCache::list() const {
  std::vector<CacheEntryInfo> out;
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) return out;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (e.path().extension() != kSuffix) continue;
    CacheEntryInfo info;
    info.path = e.path().string();
    info.key = e.path().stem().string();
    info.bytes = e.file_size(ec);
    info.age_seconds = std::chrono::duration_cast<std::chrono::seconds>(now - e.last_write_time(ec)).count();
    std::ifstream in(info.path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    nlohmann::json h;
    std::string payload;
    if (split_entry(ss.str(), h, payload)) {
      info.spec = h.value("spec", "");
      info.kernel = h.value("kernel", "");
      info.arch = h.value("arch", "");
      info.valid = payload.size() == h.value("cubin_bytes", std::size_t{0}) + h.value("ptx_bytes", std::size_t{0}) &&
                   sha256_hex(payload) == h.value("sha256", "");
    }
    out.push_back(info);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.age_seconds < b.age_seconds; });
  return out;
}

std::size_t KernelCache::clear() {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : list()) n += fs::remove(e.path, ec) ? 1 : 0;
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
