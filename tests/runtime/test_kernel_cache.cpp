// The kernel cache without a GPU: NVRTC compiles, the cache stores; and
// what it makes of entries that an attacker with write access to the cache
// directory planted (links, FIFOs, forged headers, other versions).
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpen/families/common/spec_program.hpp"
#include "gpen/generator/sha256.hpp"
#include "gpen/runtime/arch.hpp"
#include "gpen/runtime/cache_entry.hpp"
#include "gpen/runtime/kernel_cache.hpp"
#include "test_support.hpp"

using namespace gpen;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using gpen::test::in_child;
using gpen::test::read_file;
using gpen::test::TempDir;

Variant sample(const std::string& strategy = "direct") {
  static const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json");
  return generate(s, s.choose({"strategy=" + strategy}));
}

// sample()'s kernel for sm_90, compiled once, and its key.
const CompiledKernel& sample_kernel() {
  static const CompiledKernel k = compile_with_nvrtc(source_program(sample(), "t"), "sm_90");
  return k;
}
std::string sample_key() { return cache_key(source_program(sample(), "t").identity, "sm_90"); }
std::string sample_entry_path(const std::string& dir) { return dir + "/" + sample_key() + ".gpenbin"; }

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// A warning handler that keeps the warnings in `into`.
KernelCache::WarningHandler collect(std::vector<std::string>& into) {
  return [&into](const std::string& w) { into.push_back(w); };
}

// What get() warns of a bad entry at `path`.
std::string recompiling(const std::string& path, const std::string& problem) {
  return fmt::format("kernel cache entry '{}' {}; recompiling", path, problem);
}

// In a forked child (in_child): a new cache in `dir` gets sample() for sm_90.
// "" when it came from `want` with exactly the warnings `warnings`; else
// what differed.
std::string get_sample_in(const std::string& dir, KernelCache::Source want, const std::vector<std::string>& warnings) {
  std::vector<std::string> got;
  const auto r = KernelCache(dir, collect(got)).get(source_program(sample(), "t"), "sm_90");
  std::string bad;
  if (r.source != want) bad += fmt::format("source {}, not {}\n", to_string(r.source), to_string(want));
  if (got != warnings) bad += fmt::format("warnings:\n  {}\nnot:\n  {}\n", fmt::join(got, "\n  "), fmt::join(warnings, "\n  "));
  if (r.kernel.cubin != sample_kernel().cubin) bad += "another CUBIN\n";
  return bad;
}

// What decode_cache_entry says of `bytes` under sample_key(); "" if it takes them.
std::string problem_of(const std::string& bytes) {
  try {
    decode_cache_entry(bytes, sample_key());
  } catch (const CacheEntryError& e) {
    return e.what();
  }
  return "";
}

// sample_kernel()'s entry with its header changed by `edit`, and sealed: the
// checksum fits, so only the reader's checks of the header stand between
// the forgery and a hit.
std::string forged(const std::function<void(json&)>& edit) {
  json h = cache_entry_header(sample_key(), "t", sample_kernel());
  edit(h);
  return seal_cache_entry(h.dump(), sample_kernel().cubin + sample_kernel().ptx);
}

// A file that a planted link points at, outside the cache.
struct Outside {
  TempDir dir;
  std::string path = dir.path + "/precious";
  Outside() { write_bytes(path, "precious"); }
  bool untouched() const { return read_file(path) == "precious"; }
};

std::string only_entry(const std::string& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".gpenbin") return e.path().string();
  return {};
}

}  // namespace

TEST_CASE("miss compiles and stores, a new cache in the same directory hits on disk, then memory") {
  TempDir d;
  const Variant g = sample();
  KernelCache a(d.path);
  const auto r1 = a.get(source_program(g, "laplacian3d_o2"), "sm_90");
  CHECK(r1.source == KernelCache::Source::Compiled);
  CHECK(a.get(source_program(g, "laplacian3d_o2"), "sm_90").source == KernelCache::Source::Memory);
  KernelCache b(d.path);  // as a new process would
  const auto r2 = b.get(source_program(g, "laplacian3d_o2"), "sm_90");
  CHECK(r2.source == KernelCache::Source::Disk);
  CHECK(r2.kernel.cubin == r1.kernel.cubin);
  CHECK(r2.kernel.ptx == r1.kernel.ptx);
  CHECK(r2.kernel.usage.registers == r1.kernel.usage.registers);
  const auto entries = b.list();
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].spec == "laplacian3d_o2");
  CHECK(entries[0].kernel == "gpen_laplacian3d_o2");
  CHECK(entries[0].valid);
  CHECK(b.clear().entries_removed == 1);
  CHECK(b.list().empty());
}

TEST_CASE("a disk hit reports the named entry's resources, as the compile did, in a unit of two entries") {
  // The ring march's unit holds the main entry and the clamped one (more
  // registers, and spills in float64); the ptxas log names both.
  TempDir d;
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  const Variant g = generate(s, s.choose({}));
  KernelCache a(d.path);
  const auto r1 = a.get(source_program(g, s.name), "sm_90");
  REQUIRE(r1.kernel.log.find("Compiling entry function", r1.kernel.log.find("Compiling entry function") + 1) != std::string::npos);
  KernelCache b(d.path);
  const auto r2 = b.get(source_program(g, s.name), "sm_90");
  REQUIRE(r2.source == KernelCache::Source::Disk);
  CHECK(r2.kernel.usage.registers == r1.kernel.usage.registers);
  CHECK(r2.kernel.usage.spill_stores == r1.kernel.usage.spill_stores);
  CHECK(r2.kernel.usage.spill_loads == r1.kernel.usage.spill_loads);
  CHECK(r2.kernel.usage.stack_bytes == r1.kernel.usage.stack_bytes);
  CHECK(r2.kernel.usage.shared_bytes == r1.kernel.usage.shared_bytes);
}

TEST_CASE("the key changes with each ingredient") {
  const CacheKeyParts base{"src", "templates", "generator", "opts", "cuda 13.0; libnvrtc.so.13", "sm_90", "0.1.0"};
  const std::string k = cache_key(base);
  CHECK(k.size() == 64);
  auto changed = [&](auto edit) {
    CacheKeyParts p = base;
    edit(p);
    return cache_key(p) != k;
  };
  CHECK(changed([](CacheKeyParts& p) { p.unit += " "; }));
  CHECK(changed([](CacheKeyParts& p) { p.templates = "templates2"; }));
  CHECK(changed([](CacheKeyParts& p) { p.generator = "generator2"; }));
  CHECK(changed([](CacheKeyParts& p) { p.options = "opts2"; }));
  CHECK(changed([](CacheKeyParts& p) { p.nvrtc = "cuda 13.1; libnvrtc.so.13"; }));
  CHECK(changed([](CacheKeyParts& p) { p.arch = "sm_80"; }));
  CHECK(changed([](CacheKeyParts& p) { p.gpen_version = "0.2.0"; }));
  // no ambiguity from moving a boundary between ingredients
  CHECK(changed([](CacheKeyParts& p) { p.unit = "srco"; p.options = "pts"; }));
  CHECK(cache_key(source_program(sample("direct"), "t").identity, "sm_90") != cache_key(source_program(sample("tile"), "t").identity, "sm_90"));
  CHECK(cache_key(source_program(sample(), "t").identity, "sm_90") != cache_key(source_program(sample(), "t").identity, "sm_89"));
}

TEST_CASE("corrupt and truncated entries are recompiled and replaced, with a warning") {
  TempDir d;
  const Variant g = sample();
  KernelCache(d.path).get(source_program(g, "t"), "sm_90");
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
    const auto r = c.get(source_program(g, "t"), "sm_90");
    CHECK(r.source == KernelCache::Source::Compiled);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("is corrupt") != std::string::npos);
    // replaced: the next process hits a valid entry
    CHECK(KernelCache(d.path).get(source_program(g, "t"), "sm_90").source == KernelCache::Source::Disk);
  }
}

TEST_CASE("two processes filling the same key at once leave one valid entry") {
  TempDir d;
  const Variant g = sample("rolling");
  pid_t kids[2];
  for (pid_t& k : kids) {
    k = fork();
    if (k == 0) {
      KernelCache c(d.path);
      const auto r = c.get(source_program(g, "t"), "sm_90");
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
  CHECK(c.get(source_program(g, "t"), "sm_90").source == KernelCache::Source::Disk);
  int files = 0;
  for (const auto& e : fs::directory_iterator(d.path)) { (void)e; ++files; }
  CHECK(files == 1);
}

TEST_CASE("an unwritable cache directory falls back to memory with a warning") {
  std::vector<std::string> warnings;
  KernelCache c("/proc/gpen-cannot-exist/cache", [&](const std::string& w) { warnings.push_back(w); });
  CHECK_FALSE(c.writable());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("is not writable") != std::string::npos);
  const Variant g = sample();
  CHECK(c.get(source_program(g, "t"), "sm_90").source == KernelCache::Source::Compiled);
  CHECK(c.get(source_program(g, "t"), "sm_90").source == KernelCache::Source::Memory);
  CHECK(c.list().empty());
}

TEST_CASE("a cache directory that is a link to nothing says so; one removed while in use is made again") {
  TempDir d;
  fs::create_symlink(d.path + "/gone", d.path + "/cache");
  std::vector<std::string> warnings;
  KernelCache dangling(d.path + "/cache", [&](const std::string& w) { warnings.push_back(w); });
  CHECK_FALSE(dangling.writable());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find(fmt::format("(it is a link to '{}/gone', which does not exist)", d.path)) != std::string::npos);

  const std::string dir = d.path + "/real";
  KernelCache c(dir, [&](const std::string& w) { warnings.push_back(w); });
  const Variant g = sample();
  CHECK(c.get(source_program(g, "t"), "sm_90").source == KernelCache::Source::Compiled);
  fs::remove_all(dir);  // `rm -rf` of the cache while this process uses it
  const Variant other = sample("tile");
  CHECK(c.get(source_program(other, "t2"), "sm_90").source == KernelCache::Source::Compiled);
  CHECK(c.list().size() == 1);  // stored again, in the directory made again
  CHECK(warnings.size() == 1);
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

TEST_CASE("an entry that is a link is not followed: recompiled, the link replaced by an entry, its target untouched") {
  const Outside outside;
  for (const std::string target : {"/dev/zero", "/dev/urandom", outside.path.c_str()}) {
    CAPTURE(target);
    TempDir d;
    const std::string path = sample_entry_path(d.path);
    fs::create_symlink(target, path);
    CHECK(in_child(60, [&] {
      return get_sample_in(d.path, KernelCache::Source::Compiled, {recompiling(path, "is a symbolic link, which is not followed here")});
    }) == "");
    CHECK(fs::is_regular_file(fs::symlink_status(path)));
    CHECK(outside.untouched());
    CHECK(KernelCache(d.path).get(source_program(sample(), "t"), "sm_90").source == KernelCache::Source::Disk);
  }
}

TEST_CASE("an entry that is a FIFO does not block: recompiled and replaced") {
  TempDir d;
  const std::string path = sample_entry_path(d.path);
  REQUIRE(mkfifo(path.c_str(), 0600) == 0);
  CHECK(in_child(20, [&] {
    return get_sample_in(d.path, KernelCache::Source::Compiled, {recompiling(path, "is a FIFO, not a regular file")});
  }) == "");
  CHECK(fs::is_regular_file(fs::symlink_status(path)));
}

TEST_CASE("an entry larger than 256 MiB is not read: recompiled and replaced") {
  TempDir d;
  const std::string path = sample_entry_path(d.path);
  write_bytes(path, "");
  fs::resize_file(path, kMaxCacheEntryBytes + 1);  // sparse: no disk space taken
  CHECK(in_child(60, [&] {
    return get_sample_in(d.path, KernelCache::Source::Compiled,
                         {recompiling(path, fmt::format("has {} bytes, more than the {} read here", kMaxCacheEntryBytes + 1, kMaxCacheEntryBytes))});
  }) == "");
  CHECK(fs::file_size(path) < kMaxCacheEntryBytes);
}

TEST_CASE("a link planted where the write probe used to go is not followed") {
  // gpen once probed with <cache>/.probe.<pid>, opened where it stood. The
  // probe's name is unpredictable now and the file created exclusively
  // (test_files.cpp plants a link at the very name).
  TempDir d;
  const Outside outside;
  fs::create_symlink(outside.path, fmt::format("{}/.probe.{}", d.path, getpid()));
  KernelCache c(d.path);
  CHECK(c.writable());
  CHECK(outside.untouched());
}

TEST_CASE("header fields of the wrong type and sizes that wrap read as corrupt, though the checksum fits") {
  const CompiledKernel& k = sample_kernel();
  const std::size_t payload = k.cubin.size() + k.ptx.size();
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const std::string usage_range = "-1 or a count below 2^31";
  struct Case {
    std::string what;
    std::function<void(json&)> edit;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"cubin_bytes a string", [](json& h) { h["cubin_bytes"] = "x"; }, "header field 'cubin_bytes' is a string, not an unsigned integer"},
      {"cubin_bytes 2^64-1", [&](json& h) { h["cubin_bytes"] = max; },
       fmt::format("{} payload bytes, the header says {} of CUBIN and {} of PTX", payload, max, k.ptx.size())},
      {"sizes whose sum wraps to the payload's", [&](json& h) { h["cubin_bytes"] = max; h["ptx_bytes"] = payload + 1; },
       fmt::format("{} payload bytes, the header says {} of CUBIN and {} of PTX", payload, max, payload + 1)},
      {"ptx_bytes negative", [](json& h) { h["ptx_bytes"] = -1; }, "header field 'ptx_bytes' is a negative integer, not an unsigned integer"},
      {"kernel an object", [](json& h) { h["kernel"] = json::object(); }, "header field 'kernel' is an object, not a string"},
      {"spec a number", [](json& h) { h["spec"] = 7; }, "header field 'spec' is an unsigned integer, not a string"},
      {"arch an array", [](json& h) { h["arch"] = json::array(); }, "header field 'arch' is an array, not a string"},
      {"log null", [](json& h) { h["log"] = nullptr; }, "header field 'log' is null, not a string"},
      {"an option a number", [](json& h) { h["options"].push_back(1); }, "header field 'options' is an array, not an array of strings"},
      {"usage a string", [](json& h) { h["usage"] = "40"; }, "header field 'usage' is a string, not an object"},
      {"registers 2^31", [](json& h) { h["usage"]["registers"] = 1LL << 31; }, "header field 'usage.registers' is an unsigned integer, not " + usage_range},
      {"spill_loads -2", [](json& h) { h["usage"]["spill_loads"] = -2; }, "header field 'usage.spill_loads' is a negative integer, not " + usage_range},
      {"stack_bytes 1.5", [](json& h) { h["usage"]["stack_bytes"] = 1.5; }, "header field 'usage.stack_bytes' is a floating-point number, not " + usage_range},
      {"shared_bytes true", [](json& h) { h["usage"]["shared_bytes"] = true; }, "header field 'usage.shared_bytes' is a boolean, not " + usage_range},
      {"no key", [](json& h) { h.erase("key"); }, "the header has no field 'key'"},
      {"another key", [](json& h) { h["key"] = std::string(64, '0'); }, "it holds another key than its name says"},
  };
  CHECK(problem_of(forged([](json&) {})) == "");  // unedited, it is taken
  for (const auto& c : cases) {
    CAPTURE(c.what);
    CHECK(problem_of(forged(c.edit)) == "is corrupt (" + c.problem + ")");
  }
}

TEST_CASE("entries of the wrong shape read as corrupt") {
  const std::string entry = encode_cache_entry(sample_key(), "t", sample_kernel());
  const std::string payload = sample_kernel().cubin + sample_kernel().ptx;
  const std::size_t sum_at = entry.find('\n') + 1, header_at = entry.find('\n', sum_at) + 1;
  std::string huge_registers = cache_entry_header(sample_key(), "t", sample_kernel()).dump();
  huge_registers = gpen::test::with(huge_registers, "\"registers\":", "\"registers\":" + std::string(100000, '9') + ",\"x\":");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "its first line is not GPENBIN3"},
      {"not a cache entry", "its first line is not GPENBIN3"},
      {"GPENBIN3", "no checksum line"},
      {"GPENBIN3\n" + entry.substr(header_at), "no checksum line"},
      {entry.substr(0, sum_at) + "xxh64 null\n" + entry.substr(header_at), "checksum mismatch"},
      {entry.substr(0, sum_at) + "sha256 " + sha256_hex(entry.substr(header_at)) + "\n" + entry.substr(header_at), "no checksum line"},
      {entry.substr(0, entry.size() - 1), "checksum mismatch"},
      {seal_cache_entry("", payload), "the header is not a JSON object of the expected shape"},
      {seal_cache_entry("[]", payload), "the header is not a JSON object of the expected shape"},
      {seal_cache_entry(std::string(1000000, '['), payload), "the header is not a JSON object of the expected shape"},
      {seal_cache_entry(huge_registers, payload), "the header is not a JSON object of the expected shape"},
      {seal_cache_entry("{}", ""), "the header has no field 'key'"},
  };
  for (const auto& [bytes, problem] : cases) {
    CAPTURE(bytes.substr(0, 40));
    CHECK(problem_of(bytes) == "is corrupt (" + problem + ")");
  }
}

TEST_CASE("a forged header is recompiled with a warning and replaced, and the next process hits") {
  TempDir d;
  const std::string path = sample_entry_path(d.path);
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const std::size_t payload = sample_kernel().cubin.size() + sample_kernel().ptx.size();
  write_bytes(path, forged([](json& h) { h["kernel"] = json::object(); }));
  CHECK(get_sample_in(d.path, KernelCache::Source::Compiled,
                      {recompiling(path, "is corrupt (header field 'kernel' is an object, not a string)")}) == "");
  write_bytes(path, forged([&](json& h) { h["cubin_bytes"] = max; h["ptx_bytes"] = payload + 1; }));
  CHECK(get_sample_in(d.path, KernelCache::Source::Compiled,
                      {recompiling(path, fmt::format("is corrupt ({} payload bytes, the header says {} of CUBIN and {} of PTX)", payload, max, payload + 1))}) == "");
  CHECK(get_sample_in(d.path, KernelCache::Source::Disk, {}) == "");
}

TEST_CASE("the checksum covers the whole entry: a bit flipped anywhere is a miss") {
  const std::string entry = encode_cache_entry(sample_key(), "t", sample_kernel());
  REQUIRE(problem_of(entry) == "");
  const std::size_t payload_at = entry.find('\n', entry.find('\n', entry.find('\n') + 1) + 1) + 1;
  // Every bit of the magic, the checksum and the header (log, options and
  // usage in it); one bit of every 61st byte of the payload, where any
  // change is as good as another to a hash.
  std::size_t tried = 0;
  std::vector<std::size_t> taken;
  for (std::size_t i = 0; i < entry.size(); i += i < payload_at ? 1 : 61)
    for (int bit = 0; bit < 8; ++bit) {
      if (i >= payload_at && bit != static_cast<int>(i % 8)) continue;
      std::string flipped = entry;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      ++tried;
      if (problem_of(flipped).empty()) taken.push_back(i);
    }
  CHECK(tried > 8 * payload_at);
  CHECK(taken.empty());
}

TEST_CASE("a bit flipped in the stored log is a miss, not a hit that reports the flipped register count") {
  TempDir d;
  const auto compiled = KernelCache(d.path).get(source_program(sample(), "t"), "sm_90");
  const std::string path = only_entry(d.path);
  std::string bytes = read_file(path);
  const std::string used = fmt::format("Used {} registers", compiled.kernel.usage.registers);
  const std::size_t at = bytes.find(used);
  REQUIRE(at != std::string::npos);
  bytes[at + 5] = static_cast<char>(bytes[at + 5] ^ 1);  // 40 -> 50: still a count
  write_bytes(path, bytes);
  CHECK(get_sample_in(d.path, KernelCache::Source::Compiled, {recompiling(path, "is corrupt (checksum mismatch)")}) == "");
  const auto again = KernelCache(d.path).get(source_program(sample(), "t"), "sm_90");
  CHECK(again.source == KernelCache::Source::Disk);
  CHECK(again.kernel.usage.registers == compiled.kernel.usage.registers);
}

TEST_CASE("a stored log with a register count of 10^5 digits is no crash") {
  TempDir d;
  const std::string path = sample_entry_path(d.path);
  const CompiledKernel& k = sample_kernel();
  const std::string used = fmt::format("Used {} registers", k.usage.registers);
  const std::string huge = "Used " + std::string(100000, '9') + " registers";
  // Changed in the file, the checksum left as it was: corrupt.
  write_bytes(path, gpen::test::with(encode_cache_entry(sample_key(), "t", k), used, huge));
  CHECK(in_child(60, [&] { return get_sample_in(d.path, KernelCache::Source::Compiled, {recompiling(path, "is corrupt (checksum mismatch)")}); }) == "");
  // Forged with a checksum that fits: a hit that reports the usage its
  // header states; the log is kept for people, never parsed again.
  CompiledKernel forgery = k;
  forgery.log = gpen::test::with(k.log, used, huge);
  write_bytes(path, encode_cache_entry(sample_key(), "t", forgery));
  CHECK(in_child(60, [&]() -> std::string {
    const auto r = KernelCache(d.path).get(source_program(sample(), "t"), "sm_90");
    if (r.source != KernelCache::Source::Disk) return "not a disk hit";
    if (r.kernel.usage.registers != k.usage.registers) return fmt::format("{} registers", r.kernel.usage.registers);
    return "";
  }) == "");
}

TEST_CASE("an entry of another format version is a miss without a warning, then replaced") {
  const CompiledKernel& k = sample_kernel();
  const std::string payload = k.cubin + k.ptx;
  // Format 1 as gpen wrote it: a checksum of the payload only, in the header.
  const json v1 = {{"key", sample_key()}, {"spec", "t"}, {"kernel", k.kernel_name}, {"arch", k.arch}, {"options", k.options},
                   {"cubin_bytes", k.cubin.size()}, {"ptx_bytes", k.ptx.size()}, {"sha256", sha256_hex(payload)},
                   {"usage", to_json(k.usage)}, {"log", k.log}};
  // Format 2: a SHA-256 of the whole file less its line.
  const std::string rest = cache_entry_header(sample_key(), "t", k).dump() + "\n" + payload;
  const std::string v2 = "GPENBIN2\nsha256 " + sha256_hex("GPENBIN2\n" + rest) + "\n" + rest;
  for (const auto& [version, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"1", "GPENBIN1\n" + v1.dump() + "\n" + payload},
           {"2", v2},
           {"4", gpen::test::with(encode_cache_entry(sample_key(), "t", k), "GPENBIN3", "GPENBIN4")}}) {
    CAPTURE(version);
    TempDir d;
    const std::string path = sample_entry_path(d.path);
    write_bytes(path, bytes);
    const auto listed = KernelCache(d.path).list();
    REQUIRE(listed.size() == 1);
    CHECK_FALSE(listed[0].valid);
    CHECK(listed[0].problem == "is of format version " + version + "; this gpen reads version 3");
    CHECK(get_sample_in(d.path, KernelCache::Source::Compiled, {}) == "");
    CHECK(get_sample_in(d.path, KernelCache::Source::Disk, {}) == "");
  }
}

namespace {

// Makes `dir` read-only for this process and its children, for real: root
// passes any chmod, so as root a read-only bind mount of the directory over
// itself, in a mount namespace of this (forked) process alone; as anyone
// else, chmod 0555. False when neither is possible here.
bool make_read_only(const std::string& dir) {
  if (geteuid() != 0) return chmod(dir.c_str(), 0555) == 0 && access(dir.c_str(), W_OK) != 0;
  return unshare(CLONE_NEWNS) == 0 && mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
         mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) == 0 &&
         mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) == 0 && access(dir.c_str(), W_OK) != 0;
}

}  // namespace

TEST_CASE("a directory that cannot be written still serves the entries it holds, with one warning") {
  TempDir d;
  KernelCache(d.path).get(source_program(sample(), "t"), "sm_90");  // stored while it could be
  const std::string said = in_child(120, [&]() -> std::string {
    if (!make_read_only(d.path)) return "skip";
    const std::string why = std::strerror(geteuid() == 0 ? EROFS : EACCES);
    std::vector<std::string> warnings;
    KernelCache c(d.path, collect(warnings));
    std::string bad;
    if (c.writable()) bad += "writable\n";
    if (c.get(source_program(sample(), "t"), "sm_90").source != KernelCache::Source::Disk) bad += "no disk hit\n";
    if (c.get(source_program(sample("tile"), "t"), "sm_90").source != KernelCache::Source::Compiled) bad += "the other kernel not compiled\n";
    const std::vector<std::string> want = {fmt::format(
        "kernel cache directory '{}' is not writable ({}); entries in it are used, new kernels are kept in memory only", d.path, why)};
    if (warnings != want) bad += fmt::format("warnings:\n  {}\n", fmt::join(warnings, "\n  "));
    return bad;
  });
  if (said == "skip") MESSAGE("[SKIP] cannot make a directory read-only here (neither a read-only bind mount nor chmod)");
  else CHECK(said == "");
  CHECK(KernelCache(d.path).list().size() == 1);  // the other kernel was not stored
}

TEST_CASE("cache list and clear follow no link and open no FIFO: such entries are listed as unusable and removed, a link's target stays") {
  TempDir d;
  const Outside outside;
  KernelCache(d.path).get(source_program(sample(), "t"), "sm_90");
  const std::string to_zero(64, 'a'), to_outside(64, 'b'), fifo(64, 'c');
  fs::create_symlink("/dev/zero", d.path + "/" + to_zero + ".gpenbin");
  fs::create_symlink(outside.path, d.path + "/" + to_outside + ".gpenbin");
  REQUIRE(mkfifo((d.path + "/" + fifo + ".gpenbin").c_str(), 0600) == 0);
  CHECK(in_child(20, [&] {
    KernelCache c(d.path);
    std::map<std::string, std::string> problems;
    for (const auto& e : c.list()) problems[e.key] = e.valid ? "valid " + e.spec : e.problem;
    const std::map<std::string, std::string> want = {{sample_key(), "valid t"},
                                                     {to_zero, "is a symbolic link, which is not followed here"},
                                                     {to_outside, "is a symbolic link, which is not followed here"},
                                                     {fifo, "is a FIFO, not a regular file"}};
    std::string bad;
    if (problems != want) bad += "listed otherwise\n";
    if (const std::size_t n = c.clear().entries_removed; n != 4) bad += fmt::format("cleared {}\n", n);
    return bad;
  }) == "");
  CHECK(fs::is_empty(d.path));
  CHECK(outside.untouched());
}

TEST_CASE("an arch is sm_ and 2 or 3 digits, then a or f or nothing; get refuses any other before it makes a key") {
  for (const std::string ok : {"sm_75", "sm_90", "sm_90a", "sm_100a", "sm_100f", "sm_120"}) {
    CAPTURE(ok);
    CHECK(valid_arch(ok));
  }
  for (const std::string bad : {"sm_90\n", "sm_9", "sm_1000", "sm_90b", "sm_90aa", "sm_090", "compute_90", "SM_90", " sm_90", "sm_", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(valid_arch(bad));
  }
  TempDir d;
  KernelCache c(d.path);
  CHECK_THROWS_WITH_AS(c.get(source_program(sample(), "t"), "sm_90\n"),
                       "\"sm_90\\n\" is not a GPU architecture: expected sm_ and 2 or 3 digits, optionally followed by a or f (sm_90, sm_90a, sm_100f)",
                       std::invalid_argument);
  CHECK(fs::is_empty(d.path));
}
