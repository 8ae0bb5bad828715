// The kernel cache's warm start and its size, without a GPU: a spec's kernel
// is found without printing its source or calling NVRTC, what changes the
// generated code or the compile misses, kernels may stay in memory until
// persisted, and prune keeps the directory under its cap, least recently
// used first, following no link.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <thread>
#include <fstream>

#include <fmt/format.h>

#include "gpen/families/common/spec_program.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/generator/templates.hpp"
#include "gpen/runtime/checksum.hpp"
#include "gpen/runtime/kernel_cache.hpp"
#include "gpen/runtime/nvrtc_library.hpp"
#include "test_support.hpp"

using namespace gpen;
namespace fs = std::filesystem;
using gpen::test::read_file;
using gpen::test::TempDir;

namespace {

const Spec& lap() {
  static const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json");
  return s;
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// Sets the mtime of `path` itself (a link's own) to `seconds_ago`.
void set_age(const std::string& path, long seconds_ago) {
  const timespec t{std::time(nullptr) - seconds_ago, 0};
  const timespec times[2] = {t, t};
  REQUIRE(utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
}

long age_of(const std::string& path) {
  struct stat st {};
  REQUIRE(lstat(path.c_str(), &st) == 0);
  return static_cast<long>(std::time(nullptr) - st.st_mtime);
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A file named like an entry, of `bytes` bytes, last used `seconds_ago`.
std::string fake_entry(const std::string& dir, char name, std::size_t bytes, long seconds_ago) {
  const std::string path = fmt::format("{}/{}.gpenbin", dir, std::string(64, name));
  write_bytes(path, std::string(bytes, 'x'));
  set_age(path, seconds_ago);
  return path;
}

// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) { setenv(name.c_str(), value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("a spec's kernel: the miss prints and compiles it once; a new cache on the same directory hits on disk with no printing and no NVRTC") {
  TempDir d;
  const TunableChoice choice = lap().choose();
  const std::size_t printed = units_printed(), compiled = nvrtc_compiles();
  const auto miss = KernelCache(d.path).get(spec_program(lap(), choice), "sm_90");
  CHECK(miss.source == KernelCache::Source::Compiled);
  CHECK(units_printed() == printed + 1);
  CHECK(nvrtc_compiles() == compiled + 1);
  const auto hit = KernelCache(d.path).get(spec_program(lap(), plan_unit(lap(), choice)), "sm_90");  // as a new process would
  CHECK(hit.source == KernelCache::Source::Disk);
  CHECK(hit.key == miss.key);
  CHECK(hit.kernel.cubin == miss.kernel.cubin);
  CHECK(hit.kernel.kernel_name == plan_unit(lap(), choice).kernel_name);
  CHECK(units_printed() == printed + 1);
  CHECK(nvrtc_compiles() == compiled + 1);
  // The unit the miss printed is the one generate() prints.
  CHECK(miss.kernel.cubin == compile_with_nvrtc(source_program(generate(lap(), choice), "t"), "sm_90").cubin);
}

TEST_CASE("a spec's key is made without generating anything, and changes with the choice, the dtype, the arch and the templates") {
  const std::size_t printed = units_printed();
  const std::string k = cache_key(spec_identity(lap(), lap().choose()), "sm_90");
  CHECK(units_printed() == printed);
  CHECK(k.size() == 64);
  // The same spec read again: the same key (it is the JSON's hash, not the object).
  CHECK(cache_key(spec_identity(load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json"), lap().choose()), "sm_90") == k);
  CHECK(cache_key(spec_identity(lap(), lap().choose({"strategy=tile"})), "sm_90") != k);
  CHECK(cache_key(spec_identity(lap(), lap().choose({"block_x=64"})), "sm_90") != k);
  CHECK(cache_key(spec_identity(load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json", Dtype::Float32), lap().choose()), "sm_90") != k);
  CHECK(cache_key(spec_identity(lap(), lap().choose()), "sm_80") != k);
  // A template directory whose unit skeleton (not a header: the unit's own
  // text) differs: another key, so an edited template misses.
  TempDir t;
  write_bytes(t.path + "/stencil_unit.cu.in", template_text("stencil_unit.cu.in") + "// edited\n");
  {
    ScopedEnv env("GPEN_TEMPLATE_DIR", t.path);
    CHECK(templates_sha256() != embedded_templates_sha256());
    CHECK(cache_key(spec_identity(lap(), lap().choose()), "sm_90") != k);
  }
  CHECK(cache_key(spec_identity(lap(), lap().choose()), "sm_90") == k);
  // The generator and NVRTC are in it (the ingredient test shows each one counts).
  CHECK(std::string(generator_fingerprint()).size() == 64);
  CHECK(nvrtc_identity().find("cuda ") == 0);
}

TEST_CASE("a spec that was not parsed has no hash: its kernel is keyed by its text") {
  TempDir d;
  Spec built = lap();
  built.hash.clear();
  CHECK_THROWS_AS(cache_key(spec_identity(built, built.choose()), "sm_90"), InternalError);
  const auto r = KernelCache(d.path).get(spec_program(built, built.choose()), "sm_90");
  CHECK(r.key == cache_key(source_program(generate(built, built.choose()), built.name).identity, "sm_90"));
  CHECK(KernelCache(d.path).get(spec_program(built, built.choose()), "sm_90").source == KernelCache::Source::Disk);
}

TEST_CASE("an edited template misses and compiles the edited text; the embedded one still hits") {
  TempDir d, t;
  KernelCache(d.path).get(spec_program(lap(), lap().choose()), "sm_90");
  write_bytes(t.path + "/stencil_unit.cu.in", gpen::test::with(template_text("stencil_unit.cu.in"), "${entries}", "${entries}\n__device__ int gpen_edited;"));
  {
    ScopedEnv env("GPEN_TEMPLATE_DIR", t.path);
    const auto r = KernelCache(d.path).get(spec_program(lap(), lap().choose()), "sm_90");
    CHECK(r.source == KernelCache::Source::Compiled);
    CHECK(r.kernel.ptx.find("gpen_edited") != std::string::npos);
  }
  const auto r = KernelCache(d.path).get(spec_program(lap(), lap().choose()), "sm_90");
  CHECK(r.source == KernelCache::Source::Disk);
  CHECK(r.kernel.ptx.find("gpen_edited") == std::string::npos);
}

TEST_CASE("a spec's entry that is corrupt is recompiled with a warning and replaced") {
  TempDir d;
  const auto first = KernelCache(d.path).get(spec_program(lap(), lap().choose()), "sm_90");
  const std::string path = d.path + "/" + first.key + ".gpenbin";
  std::string bytes = read_file(path);
  REQUIRE(bytes.size() > 200);
  bytes[bytes.size() - 100] = static_cast<char>(bytes[bytes.size() - 100] ^ 1);
  write_bytes(path, bytes);
  std::vector<std::string> warnings;
  const auto r = KernelCache(d.path, [&](const std::string& w) { warnings.push_back(w); }).get(spec_program(lap(), lap().choose()), "sm_90");
  CHECK(r.source == KernelCache::Source::Compiled);
  CHECK(warnings == std::vector<std::string>{fmt::format("kernel cache entry '{}' is corrupt (checksum mismatch); recompiling", path)});
  CHECK(KernelCache(d.path).get(spec_program(lap(), lap().choose()), "sm_90").source == KernelCache::Source::Disk);
}

TEST_CASE("Store::Memory keeps a compiled kernel off the disk until persist() writes it") {
  TempDir d;
  KernelCache c(d.path);
  const auto r = c.get(spec_program(lap(), lap().choose({"strategy=direct"})), "sm_90", KernelCache::Store::Memory);
  CHECK(r.source == KernelCache::Source::Compiled);
  CHECK(fs::is_empty(d.path));
  CHECK(c.get(spec_program(lap(), lap().choose({"strategy=direct"})), "sm_90").source == KernelCache::Source::Memory);  // a hit is not written
  CHECK(fs::is_empty(d.path));
  CHECK(KernelCache(d.path).get(spec_program(lap(), lap().choose({"strategy=direct"})), "sm_90", KernelCache::Store::Memory).source ==
        KernelCache::Source::Compiled);
  CHECK(c.persist(r.key));
  CHECK(names_in(d.path) == std::vector<std::string>{r.key + ".gpenbin"});
  CHECK(c.persist(r.key));  // there already
  const auto again = KernelCache(d.path).get(spec_program(lap(), lap().choose({"strategy=direct"})), "sm_90");
  CHECK(again.source == KernelCache::Source::Disk);
  CHECK(again.kernel.cubin == r.kernel.cubin);
  CHECK(KernelCache(d.path).list().at(0).spec == lap().name);
  CHECK_FALSE(c.persist(std::string(64, '0')));  // nothing held under that key
  CHECK_FALSE(c.persist(again.key + "x"));
}

TEST_CASE("NVRTC is opened by dlopen; a missing library is an error that names each file tried") {
  const auto candidates = nvrtc_candidates();
  REQUIRE(candidates.size() == 2);
  CHECK(candidates[1].rfind("libnvrtc.so.", 0) == 0);
  if (fs::exists(candidates[0])) CHECK(nvrtc_identity().find(candidates[0] + " -> ") != std::string::npos);
  try {
    open_nvrtc({"/nonexistent/libnvrtc.so.99", "libgpen-no-such-nvrtc.so", "libm.so.6"});
    FAIL("opened");
  } catch (const NvrtcUnavailable& e) {
    const std::string what = e.what();
    CHECK(what.find("cannot compile kernels: no usable NVRTC library (tried, in order:\n  /nonexistent/libnvrtc.so.99: ") == 0);
    CHECK(what.find("\n  libgpen-no-such-nvrtc.so: ") != std::string::npos);
    CHECK(what.find("\n  libm.so.6: has no nvrtcGetErrorString") != std::string::npos);
    CHECK(what.find("install the CUDA toolkit's NVRTC (gpen was built against CUDA ") != std::string::npos);
  }
  CHECK(reinterpret_cast<void*>(open_nvrtc(candidates).nvrtcVersion) != nullptr);
}

TEST_CASE("the entries' checksum is XXH64 as the reference computes it (xxhsum -H1)") {
  // Short inputs take the tail loops alone; 43 bytes one stripe of 32 and a
  // tail of 8, 2 and 1; 1000 bytes 31 stripes and every tail.
  std::string alphabet;
  for (int i = 0; i < 1000; ++i) alphabet += static_cast<char>('a' + i % 26);
  CHECK(xxh64_hex("") == "ef46db3751d8e999");
  CHECK(xxh64_hex("abc") == "44bc2cf5ad770999");
  CHECK(xxh64_hex("The quick brown fox jumps over the lazy dog") == "0b242d361fda71bc");
  CHECK(xxh64_hex(alphabet) == "94b86db9a16d86a9");
}

TEST_CASE("sizes: bytes with K, M, G or T in powers of 1024") {
  CHECK(parse_byte_size("0") == 0u);
  CHECK(parse_byte_size("1048576") == 1048576u);
  CHECK(parse_byte_size("500M") == 500ull << 20);
  CHECK(parse_byte_size("2G") == 2ull << 30);
  CHECK(parse_byte_size("2g") == 2ull << 30);
  CHECK(parse_byte_size("1GiB") == 1ull << 30);
  CHECK(parse_byte_size("64KB") == 64ull << 10);
  CHECK(parse_byte_size("3T") == 3ull << 40);
  CHECK(parse_byte_size("100B") == 100u);
  for (const char* any_case : {"1gB", "1Gb", "1gib", "1GIB"}) CHECK(parse_byte_size(any_case) == 1ull << 30);
  for (const char* bad : {"", "G", "-1", "1.5G", "2 G", "2X", "2GB2", "2Gi", "2GiBB", "18446744073709551616", "17179869184G"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_byte_size(bad).has_value());
  }
}

TEST_CASE("the cap: GPEN_CACHE_MAX_SIZE, 1 GiB without it, a warning and 1 GiB for a value that is no size") {
  CHECK(KernelCache::default_max_bytes() == std::uint64_t{1} << 30);
  TempDir d;
  {
    ScopedEnv env("GPEN_CACHE_MAX_SIZE", "300M");
    CHECK(KernelCache(d.path).max_bytes() == 300ull << 20);
  }
  {
    ScopedEnv env("GPEN_CACHE_MAX_SIZE", "lots");
    std::vector<std::string> warnings;
    CHECK(KernelCache(d.path, [&](const std::string& w) { warnings.push_back(w); }).max_bytes() == std::uint64_t{1} << 30);
    CHECK(warnings == std::vector<std::string>{"GPEN_CACHE_MAX_SIZE='lots' is not a size: expected bytes with an optional K, M, G or T "
                                               "(500M, 2G), or 0 for no cap; the kernel cache keeps to 1073741824 bytes"});
  }
}

TEST_CASE("prune removes the least recently used entries until the rest fit, and old temporaries") {
  TempDir d;
  const std::string a = fake_entry(d.path, 'a', 1000, 400), b = fake_entry(d.path, 'b', 1000, 100), c = fake_entry(d.path, 'c', 1000, 300),
                    e = fake_entry(d.path, 'e', 1000, 200);
  // Left by interrupted writes an hour ago; and one of a write under way.
  const std::string old_tmp = d.path + "/." + std::string(64, 'f') + ".gpenbin.123.00000000deadbeef.tmp";
  const std::string old_probe = d.path + "/.probe.123.00000000deadbeef";
  const std::string new_tmp = d.path + "/.tuning.json.123.00000000deadbeef.tmp";
  for (const auto& p : {old_tmp, old_probe, new_tmp}) write_bytes(p, "partial");
  set_age(old_tmp, 3600);
  set_age(old_probe, 3600);
  write_bytes(d.path + "/tuning.json", "{}");
  set_age(d.path + "/tuning.json", 9999);
  KernelCache cache(d.path);
  const PruneReport r = cache.prune(2500);
  CHECK(r.entries_removed == 2);
  CHECK(r.temporaries_removed == 2);
  CHECK(r.bytes_before == 4000);
  CHECK(r.bytes_after == 2000);
  // a (400 s) and c (300 s) went; b and e, used since, stay; so do the
  // tuning database and the temporary of a write that may be under way.
  CHECK(names_in(d.path) == std::vector<std::string>{fs::path(new_tmp).filename().string(), fs::path(b).filename().string(),
                                                     fs::path(e).filename().string(), "tuning.json"});
  CHECK(cache.prune(2000).entries_removed == 0);  // fits: nothing to do
  CHECK(cache.prune(0).entries_removed == 2);
}

TEST_CASE("prunes at once keep what one prune would: an entry another removed counts as gone") {
  // Counted as still there, it made each prune go on to newer entries, and
  // prunes at once emptied the cache.
  for (int round = 0; round < 5; ++round) {
    CAPTURE(round);
    TempDir d;
    std::vector<std::string> entries;  // the oldest first
    for (int i = 0; i < 40; ++i) entries.push_back(fake_entry(d.path, static_cast<char>('A' + i), 1000, 1000 - i));
    std::vector<std::thread> prunes;
    for (int t = 0; t < 8; ++t) prunes.emplace_back([&] { KernelCache(d.path).prune(20500); });
    for (auto& t : prunes) t.join();
    CHECK(names_in(d.path).size() == 20);
    for (int i = 0; i < 40; ++i) CHECK(fs::exists(entries[static_cast<std::size_t>(i)]) == (i >= 20));  // the newest 20 stay
  }
}

TEST_CASE("a disk hit marks the entry used, so prune keeps it over one unused since") {
  TempDir d;
  const auto used = KernelCache(d.path).get(spec_program(lap(), lap().choose({"strategy=direct"})), "sm_90");
  const auto unused = KernelCache(d.path).get(spec_program(lap(), lap().choose({"strategy=tile"})), "sm_90");
  const std::string used_path = d.path + "/" + used.key + ".gpenbin", unused_path = d.path + "/" + unused.key + ".gpenbin";
  set_age(used_path, 7200);
  set_age(unused_path, 3600);
  REQUIRE(KernelCache(d.path).get(spec_program(lap(), lap().choose({"strategy=direct"})), "sm_90").source == KernelCache::Source::Disk);
  CHECK(age_of(used_path) < 60);
  const auto bytes = fs::file_size(used_path);
  CHECK(KernelCache(d.path).prune(bytes).entries_removed == 1);
  CHECK(fs::exists(used_path));
  CHECK_FALSE(fs::exists(unused_path));
}

TEST_CASE("prune follows no link: links named as entries or temporaries are unlinked, their targets untouched") {
  TempDir d, outside;
  const std::string target = outside.path + "/precious";
  write_bytes(target, std::string(100000, 'p'));
  const std::string entry_link = d.path + "/" + std::string(64, 'a') + ".gpenbin", tmp_link = d.path + "/.x.gpenbin.1.2.tmp";
  fs::create_symlink(target, entry_link);
  fs::create_symlink(target, tmp_link);
  fs::create_symlink(outside.path, d.path + "/" + std::string(64, 'b') + ".gpenbin");  // to a directory
  set_age(tmp_link, 3600);
  set_age(target, 99999);
  const std::string real = fake_entry(d.path, 'c', 1000, 10);
  const PruneReport r = KernelCache(d.path).prune(1u << 30);  // under the cap: only what is never an entry goes
  CHECK(r.entries_removed == 2);
  CHECK(r.temporaries_removed == 1);
  CHECK(names_in(d.path) == std::vector<std::string>{fs::path(real).filename().string()});
  CHECK(read_file(target) == std::string(100000, 'p'));
  CHECK(names_in(outside.path) == std::vector<std::string>{"precious"});
}

TEST_CASE("past the cap, a store prunes the least recently used entries down to 90% of it") {
  TempDir d;
  const auto first = KernelCache(d.path).get(spec_program(lap(), lap().choose({"strategy=direct"})), "sm_90");
  const std::string first_path = d.path + "/" + first.key + ".gpenbin";
  const auto entry = fs::file_size(first_path);
  // Two entries older than the first, of its size. A cap of two entries:
  // storing a second kernel (block_x differs: about the same size) passes
  // it, and what stays must fit in 90% of it: the new kernel alone.
  fake_entry(d.path, 'a', entry, 5000);
  fake_entry(d.path, 'b', entry, 4000);
  set_age(first_path, 3000);
  KernelCache c(d.path);
  c.set_max_bytes(entry * 2);
  const auto second = c.get(spec_program(lap(), lap().choose({"strategy=direct", "block_x=64"})), "sm_90");
  REQUIRE(fs::exists(d.path + "/" + second.key + ".gpenbin"));
  std::uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(d.path)) total += fs::file_size(e.path());
  CHECK(total <= entry * 2 - entry * 2 / 10);
  CHECK(names_in(d.path) == std::vector<std::string>{second.key + ".gpenbin"});
  // Kernels pruned from disk are still served from memory.
  CHECK(c.get(spec_program(lap(), lap().choose({"strategy=direct", "block_x=64"})), "sm_90").source == KernelCache::Source::Memory);
  // 0: no cap.
  c.set_max_bytes(0);
  c.get(spec_program(lap(), lap().choose({"strategy=direct"})), "sm_90");
  c.get(spec_program(lap(), lap().choose({"strategy=direct", "block_x=128"})), "sm_90");
  CHECK(names_in(d.path).size() == 3);
}

// The host writes each argument block as the header it was built with lays
// it out; a header swapped at run time that lays it out otherwise must not
// compile (else the kernel would read its arguments at the wrong offsets).
TEST_CASE("an argument block's header swapped through GPEN_TEMPLATE_DIR, laid out otherwise, does not compile") {
  TempDir d;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"gpen/scan_args.h", "/specs/scan/cumsum_x.json"},
      {"gpen/stencil_args.h", "/specs/stencil/laplacian3d_o2.json"},
      {"gpen/sbp_args.h", "/specs/sbp/d2_o4.json"},
      {"gpen/pairwise_args.h", "/specs/pairwise/softened_potential.json"}};
  for (const auto& [header, spec_file] : cases) {
    CAPTURE(header);
    TempDir t;  // a directory a case: a process reads each once
    std::filesystem::create_directories(t.path + "/gpen");
    const Spec s = load_spec(gpen::test::source_dir() + spec_file);
    // One more member at the end of the first struct of the header.
    const std::string text = template_text(header);
    const auto end = text.find("\n};");
    REQUIRE(end != std::string::npos);
    write_bytes(t.path + "/" + header, text.substr(0, end) + "\n  long long added;" + text.substr(end));
    ScopedEnv env("GPEN_TEMPLATE_DIR", t.path);
    try {
      KernelCache(d.path).get(spec_program(s, s.choose()), "sm_90");
      FAIL("compiled with a swapped " << header);
    } catch (const CompileError& e) {
      CHECK(std::string(e.what()).find("kernel arguments as the host writes them") != std::string::npos);
    }
  }
}
