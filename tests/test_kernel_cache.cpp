// The kernel cache without a GPU: NVRTC compiles, the cache stores.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gpen/runtime/kernel_cache.hpp"
#include "test_support.hpp"

using namespace gpen;
namespace fs = std::filesystem;

namespace {

using gpen::test::TempDir;

GeneratedSource sample(const std::string& strategy = "direct") {
  static const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json");
  return generate(s, s.choose({"strategy=" + strategy}));
}

std::string only_entry(const std::string& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".gpenbin") return e.path().string();
  return {};
}

}  // namespace

TEST_CASE("miss compiles and stores, a new cache in the same directory hits on disk, then memory") {
  TempDir d;
  const GeneratedSource g = sample();
  KernelCache a(d.path);
  const auto r1 = a.get(g, "sm_90", "laplacian3d_o2");
  CHECK(r1.source == KernelCache::Source::Compiled);
  CHECK(a.get(g, "sm_90", "laplacian3d_o2").source == KernelCache::Source::Memory);
  KernelCache b(d.path);  // as a new process would
  const auto r2 = b.get(g, "sm_90", "laplacian3d_o2");
  CHECK(r2.source == KernelCache::Source::Disk);
  CHECK(r2.kernel.cubin == r1.kernel.cubin);
  CHECK(r2.kernel.ptx == r1.kernel.ptx);
  CHECK(r2.kernel.usage.registers == r1.kernel.usage.registers);
  const auto entries = b.list();
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].spec == "laplacian3d_o2");
  CHECK(entries[0].kernel == "gpen_laplacian3d_o2");
  CHECK(entries[0].valid);
  CHECK(b.clear() == 1);
  CHECK(b.list().empty());
}

TEST_CASE("a disk hit reports the named entry's resources, as the compile did, in a unit of two entries") {
  // The ring march's unit holds the main entry and the clamped one (more
  // registers, and spills in float64); the ptxas log names both.
  TempDir d;
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  const GeneratedSource g = generate(s, s.choose({}));
  KernelCache a(d.path);
  const auto r1 = a.get(g, "sm_90", s.name);
  REQUIRE(r1.kernel.log.find("Compiling entry function", r1.kernel.log.find("Compiling entry function") + 1) != std::string::npos);
  KernelCache b(d.path);
  const auto r2 = b.get(g, "sm_90", s.name);
  REQUIRE(r2.source == KernelCache::Source::Disk);
  CHECK(r2.kernel.usage.registers == r1.kernel.usage.registers);
  CHECK(r2.kernel.usage.spill_stores == r1.kernel.usage.spill_stores);
  CHECK(r2.kernel.usage.spill_loads == r1.kernel.usage.spill_loads);
  CHECK(r2.kernel.usage.stack_bytes == r1.kernel.usage.stack_bytes);
  CHECK(r2.kernel.usage.shared_bytes == r1.kernel.usage.shared_bytes);
}

TEST_CASE("the key changes with each ingredient") {
  const CacheKeyParts base{"src", "headers", "opts", "13.0", "sm_90", "0.1.0"};
  const std::string k = cache_key(base);
  CHECK(k.size() == 64);
  auto changed = [&](auto edit) {
    CacheKeyParts p = base;
    edit(p);
    return cache_key(p) != k;
  };
  CHECK(changed([](CacheKeyParts& p) { p.source += " "; }));
  CHECK(changed([](CacheKeyParts& p) { p.headers = "headers2"; }));
  CHECK(changed([](CacheKeyParts& p) { p.options = "opts2"; }));
  CHECK(changed([](CacheKeyParts& p) { p.nvrtc_version = "13.1"; }));
  CHECK(changed([](CacheKeyParts& p) { p.arch = "sm_80"; }));
  CHECK(changed([](CacheKeyParts& p) { p.gpen_version = "0.2.0"; }));
  // no ambiguity from moving a boundary between ingredients
  CHECK(changed([](CacheKeyParts& p) { p.source = "srco"; p.options = "pts"; }));
  CHECK(cache_key(sample("direct"), "sm_90") != cache_key(sample("tile"), "sm_90"));
  CHECK(cache_key(sample(), "sm_90") != cache_key(sample(), "sm_89"));
}

TEST_CASE("corrupt and truncated entries are recompiled and replaced, with a warning") {
  TempDir d;
  const GeneratedSource g = sample();
  KernelCache(d.path).get(g, "sm_90", "t");
  const std::string path = only_entry(d.path);
  REQUIRE(!path.empty());
  const auto size = fs::file_size(path);

  for (const char* damage : {"flip", "truncate", "garbage"}) {
    CAPTURE(damage);
    if (std::string(damage) == "flip") {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(size - 100));
      f.put('\x5a');
    } else if (std::string(damage) == "truncate") {
      fs::resize_file(path, size / 2);
    } else {
      std::ofstream(path, std::ios::binary) << "not a cache entry";
    }
    std::vector<std::string> warnings;
    KernelCache c(d.path, [&](const std::string& w) { warnings.push_back(w); });
    const auto r = c.get(g, "sm_90", "t");
    CHECK(r.source == KernelCache::Source::Compiled);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("is corrupt") != std::string::npos);
    // replaced: the next process hits a valid entry
    CHECK(KernelCache(d.path).get(g, "sm_90", "t").source == KernelCache::Source::Disk);
  }
}

TEST_CASE("two processes filling the same key at once leave one valid entry") {
  TempDir d;
  const GeneratedSource g = sample("rolling");
  pid_t kids[2];
  for (pid_t& k : kids) {
    k = fork();
    if (k == 0) {
      KernelCache c(d.path);
      const auto r = c.get(g, "sm_90", "t");
      _exit(r.kernel.cubin.empty() ? 1 : 0);
    }
  }
  for (pid_t k : kids) {
    int status = 0;
    waitpid(k, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  KernelCache c(d.path);
  const auto entries = c.list();
  REQUIRE(entries.size() == 1);  // no temporary files left behind either
  CHECK(entries[0].valid);
  CHECK(c.get(g, "sm_90", "t").source == KernelCache::Source::Disk);
  int files = 0;
  for (const auto& e : fs::directory_iterator(d.path)) { (void)e; ++files; }
  CHECK(files == 1);
}

TEST_CASE("an unwritable cache directory falls back to memory with a warning") {
  std::vector<std::string> warnings;
  KernelCache c("/proc/gpen-cannot-exist/cache", [&](const std::string& w) { warnings.push_back(w); });
  CHECK_FALSE(c.on_disk());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("is not writable") != std::string::npos);
  const GeneratedSource g = sample();
  CHECK(c.get(g, "sm_90", "t").source == KernelCache::Source::Compiled);
  CHECK(c.get(g, "sm_90", "t").source == KernelCache::Source::Memory);
  CHECK(c.list().empty());
}

TEST_CASE("default directory: GPEN_CACHE_DIR, then XDG_CACHE_HOME, then HOME") {
  setenv("GPEN_CACHE_DIR", "/x/gpen-dir", 1);
  CHECK(KernelCache::default_dir() == "/x/gpen-dir");
  unsetenv("GPEN_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/x/xdg", 1);
  CHECK(KernelCache::default_dir() == "/x/xdg/gpen");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/x/home", 1);
  CHECK(KernelCache::default_dir() == "/x/home/.cache/gpen");
}
