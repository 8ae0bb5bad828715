// The tuning database: round trip, what changes the key, and records that
// no longer fit the spec or a corrupt file (ignored, never a crash); a link
// or a FIFO planted in the cache directory (never followed, never a hang).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpen/families/common/problem.hpp"
#include "gpen/measure/tune/tuned_kernel.hpp"
#include "gpen/measure/tune/tuning_db.hpp"
#include "gpen/runtime/nvrtc_library.hpp"
#include "test_support.hpp"

using namespace gpen;

namespace {

DeviceInfo h100() {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.driver_version = 13000;
  return d;
}

// Stores `r` under `key` and reads it back for `spec`.
std::optional<TuningRecord> round_trip(const TuningDb& db, const TuningKey& key, const Spec& spec, const TuningRecord& r) {
  db.store(key, r);
  return db.find(key, spec);
}

// A record of the default variant of `s`.
TuningRecord record_of(const Spec& s) {
  TuningRecord r;
  r.spec = s.name;
  r.strategy = "local";
  r.choice = s.choose({});
  r.ms = 1.5;
  return r;
}

Spec o8(std::optional<Dtype> dt = std::nullopt) { return load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json", dt); }

}  // namespace

TEST_CASE("size classes round each axis up to a power of two") {
  CHECK(size_class({512, 512, 512}, 3) == "2^9x2^9x2^9");
  CHECK(size_class({300, 257, 1}, 2) == "2^9x2^9");
  CHECK(size_class({256, 1, 1}, 1) == "2^8");
  CHECK(size_class({1, 1, 1}, 3) == "2^0x2^0x2^0");
}

TEST_CASE("the key changes with the spec, its dtype, the size class, the GPU and the driver") {
  const Spec s = o8();
  const std::string k = tuning_key(s, {512, 512, 512}, h100()).str();
  CHECK(tuning_key(s, {500, 480, 300}, h100()).str() == k);  // same class
  CHECK(tuning_key(s, {256, 512, 512}, h100()).str() != k);
  CHECK(tuning_key(o8(Dtype::Float32), {512, 512, 512}, h100()).str() != k);
  CHECK(tuning_key(load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json"), {512, 512, 512}, h100()).str() != k);
  DeviceInfo other = h100();
  other.name = "NVIDIA H200";
  CHECK(tuning_key(s, {512, 512, 512}, other).str() != k);
  other = h100();
  other.cc_minor = 1;
  CHECK(tuning_key(s, {512, 512, 512}, other).str() != k);
  other = h100();
  other.driver_version = 13010;
  CHECK(tuning_key(s, {512, 512, 512}, other).str() != k);
}

TEST_CASE("records round-trip, other keys, stale choices and corrupt files find nothing") {
  gpen::test::TempDir dir;
  const TuningDb db(dir.path + "/sub/tuning.json");  // the directory is created on store
  const Spec s = o8();
  const TuningKey key = tuning_key(s, {512, 512, 512}, h100());
  CHECK(!db.find(key, s));
  TuningRecord r;
  r.spec = s.name;
  r.size = "512x512x512";
  r.strategy = "local";
  r.date = "2026-11-22";
  r.choice = s.choose({"strategy=march", "block_x=64", "block_y=2", "vector_x=4", "rows_y=1"});
  r.ms = 1.25;
  r.evaluations = 40;
  const auto got = round_trip(db, key, s, r);
  REQUIRE(got);
  CHECK(got->choice == r.choice);
  CHECK(got->ms == 1.25);
  CHECK(got->evaluations == 40);
  CHECK(got->strategy == "local");
  CHECK(!db.find(tuning_key(s, {128, 128, 128}, h100()), s));

  // A second record keeps the first.
  const TuningKey key2 = tuning_key(s, {64, 64, 64}, h100());
  db.store(key2, r);
  CHECK(db.find(key, s));
  CHECK(db.find(key2, s));

  // A spec that no longer allows the stored value: the record is ignored.
  std::string js = gpen::test::read_file(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  js = gpen::test::with(js, "\"tunables\": {", "\"tunables\": {\n    \"block_x\": {\"values\": [32]},");
  const Spec narrowed = load_spec_string(js);
  CHECK(!db.find(key, narrowed));

  // A record from before a tunable existed (one of its tunables taken out
  // of the stored choice): ignored, not completed with today's default.
  {
    nlohmann::json all = nlohmann::json::parse(gpen::test::read_file(db.path()));
    REQUIRE(all[key.str()]["choice"].contains("rows_y"));
    all[key.str()]["choice"].erase("rows_y");
    std::ofstream(db.path()) << all.dump();
    CHECK(!db.find(key, s));
    CHECK(db.find(key2, s));
    db.store(key, r);
  }

  // A corrupt file: nothing found, and the next store starts over, the
  // damaged file kept beside it (its records may be worth more).
  std::ofstream(db.path()) << "{ not json";
  CHECK(!db.find(key, s));
  db.store(key, r);
  CHECK(db.find(key, s));
  CHECK(!db.find(key2, s));
  CHECK(gpen::test::read_file(db.path() + ".damaged") == "{ not json");
}

TEST_CASE("stores at once keep every record: the read-modify-write holds a lock") {
  gpen::test::TempDir dir;
  const std::string path = dir.path + "/tuning.json";
  const Spec s = o8();
  constexpr int kWriters = 6, kEach = 20;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      const TuningDb db(path);  // each its own, as separate processes would be
      for (int i = 0; i < kEach; ++i) {
        DeviceInfo gpu = h100();
        gpu.name += fmt::format(" #{}", w * kEach + i);  // a key each (sizes would share size classes)
        db.store(tuning_key(s, {512, 512, 512}, gpu), record_of(s));
      }
    });
  for (auto& t : writers) t.join();
  CHECK(TuningDb(path).list().size() == kWriters * kEach);
}

TEST_CASE("a store that cannot write throws, naming the database and why") {
  gpen::test::TempDir dir;
  std::ofstream(dir.path + "/afile") << "x";
  const TuningDb db(dir.path + "/afile/tuning.json");
  const Spec s = o8();
  const std::string why = fmt::format("could not store the tuning database '{}/afile/tuning.json'", dir.path);
  CHECK_THROWS_WITH_AS(db.store(tuning_key(s, {8, 8, 8}, h100()), record_of(s)), doctest::Contains(why.c_str()), std::runtime_error);
}

TEST_CASE("a tuned tile of a grid pairwise spec round-trips: block on block's tunables hold their plain values") {
  gpen::test::TempDir dir;
  const TuningDb db(dir.path + "/tuning.json");
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/pairwise/radiation_grid.json");
  const TuningKey key = tuning_key(s, {64, 64, 64}, h100());
  TuningRecord r;
  r.spec = s.name;
  r.choice = s.choose({"strategy=tile", "block_x=256"});
  CHECK(to_string(r.choice.at("cell_block")) == "0");  // not one of cell_block's values
  r.pairs_per_s = 2.5e12;
  const auto got = round_trip(db, key, s, r);
  REQUIRE(got);
  CHECK(got->choice == r.choice);
  CHECK(got->pairs_per_s == 2.5e12);
  r.choice = s.choose({"strategy=blocks", "cell_block=16", "streams=2"});
  const auto blocks = round_trip(db, key, s, r);
  REQUIRE(blocks);
  CHECK(blocks->choice == r.choice);
}

TEST_CASE("a link at the database's path is not followed: nothing found, the store replaces the link, its target stays") {
  gpen::test::TempDir dir, outside;
  const std::string target = outside.path + "/tuning.json";
  const Spec s = o8();
  const TuningKey key = tuning_key(s, {512, 512, 512}, h100());
  TuningDb(target).store(key, record_of(s));  // a real database, elsewhere
  const std::string before = gpen::test::read_file(target);
  const TuningDb db(dir.path + "/tuning.json");
  std::filesystem::create_symlink(target, db.path());
  CHECK(!db.find(key, s));
  db.store(tuning_key(s, {64, 64, 64}, h100()), record_of(s));
  CHECK(std::filesystem::is_regular_file(std::filesystem::symlink_status(db.path())));
  CHECK(gpen::test::read_file(target) == before);
  CHECK(!db.find(key, s));  // the link's records were never read
  CHECK(db.find(tuning_key(s, {64, 64, 64}, h100()), s));
}

TEST_CASE("a FIFO at the database's path blocks neither find nor store") {
  gpen::test::TempDir dir;
  const TuningDb db(dir.path + "/tuning.json");
  REQUIRE(mkfifo(db.path().c_str(), 0600) == 0);
  const Spec s = o8();
  const TuningKey key = tuning_key(s, {512, 512, 512}, h100());
  CHECK(gpen::test::in_child(20, [&]() -> std::string {
    if (db.find(key, s)) return "found a record in a FIFO";
    db.store(key, record_of(s));
    return db.find(key, s) ? "" : "stored record not found";
  }) == "");
  CHECK(std::filesystem::is_regular_file(std::filesystem::symlink_status(db.path())));
}

TEST_CASE("a link planted where the temporary file used to go is not followed") {
  // gpen once wrote <path>.tmp.<pid>, opened where it stood; the temporary
  // name is unpredictable now and the file created exclusively.
  gpen::test::TempDir dir, outside;
  const std::string target = outside.path + "/precious";
  std::ofstream(target) << "precious";
  const TuningDb db(dir.path + "/tuning.json");
  std::filesystem::create_symlink(target, db.path() + ".tmp." + std::to_string(getpid()));
  const Spec s = o8();
  db.store(tuning_key(s, {512, 512, 512}, h100()), record_of(s));
  CHECK(gpen::test::read_file(target) == "precious");
  CHECK(db.find(tuning_key(s, {512, 512, 512}, h100()), s));
}


TEST_CASE("list gives every well-formed record as stored; clear removes the file, a link there but not its target") {
  gpen::test::TempDir dir, outside;
  const TuningDb db(dir.path + "/tuning.json");
  CHECK(db.list().empty());
  CHECK(db.clear() == 0);
  const Spec s = o8(), s32 = o8(Dtype::Float32);
  TuningRecord r = record_of(s);
  r.size = "512x512x512";
  r.choice = s.choose({"strategy=tile"});
  db.store(tuning_key(s, {512, 512, 512}, h100()), r);
  db.store(tuning_key(s32, {64, 64, 64}, h100()), record_of(s32));
  // A record of the wrong shape, written by hand: not listed.
  std::string text = gpen::test::read_file(db.path());
  text = gpen::test::with(text, "{\n", "{\n  \"broken\": {\"spec\": 7, \"choice\": {}},\n");
  std::ofstream(db.path()) << text;
  const auto listed = db.list();
  REQUIRE(listed.size() == 2);
  std::map<std::string, TuningRecord> by_key(listed.begin(), listed.end());
  const TuningRecord& got = by_key.at(tuning_key(s, {512, 512, 512}, h100()).str());
  CHECK(got.spec == "laplacian3d_o8");
  CHECK(got.size == "512x512x512");
  CHECK(got.choice == s.choose({"strategy=tile"}));
  CHECK(got.ms == 1.5);
  CHECK(db.clear() == 3);
  CHECK_FALSE(std::filesystem::exists(db.path()));
  const std::string target = outside.path + "/precious";
  std::ofstream(target) << "{\"k\": {\"spec\": \"x\", \"choice\": {}}}";
  std::filesystem::create_symlink(target, db.path());
  CHECK(db.list().empty());  // not followed
  CHECK(db.clear() == 0);
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(db.path())));
  CHECK(gpen::test::read_file(target) == "{\"k\": {\"spec\": \"x\", \"choice\": {}}}");
}

// CTest runs each test case in a process of its own (doctest_discover_tests),
// so NVRTC is not loaded when this one starts there; run together with the
// others it may be, and then there is nothing to see.
TEST_CASE("looking a tuning record up does not open NVRTC (gpen run's warm start)") {
  if (nvrtc_loaded()) {
    MESSAGE("NVRTC was opened by an earlier test of this process: run this test case alone to check");
    return;
  }
  gpen::test::TempDir dir;
  const TuningDb db(dir.path + "/tuning.json");
  const Spec s = o8();
  const TuningKey key = tuning_key(s, {512, 512, 512}, h100());
  db.store(key, record_of(s));
  CHECK(db.find(key, s));
  CHECK(key.nvrtc == fmt::format("{}.{}", nvrtc_build_version().first, nvrtc_build_version().second));
  CHECK(!nvrtc_loaded());
}

TEST_CASE("a kernel's variant for a size in one call: the tuned one for its size class and GPU, else the defaults") {
  gpen::test::TempDir dir;
  const TuningDb db(dir.path + "/tuning.json");
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/reduce/sum3d.json");
  TunedChoice none = tuned_choice(s, "512", h100(), db);
  CHECK(!none.record);
  CHECK(none.choice == s.choose());
  TuningRecord r = record_of(s);
  r.choice = s.choose({"block_x=256", "block_y=2", "points_per_thread=128"});
  db.store(problem_tuning_key(s, "512", h100()), r);
  const TunedChoice t = tuned_choice(s, "500x480x300", h100(), db);  // the same size class
  REQUIRE(t.record);
  CHECK(t.choice == r.choice);
  CHECK(!tuned_choice(s, "256", h100(), db).record);  // another size class
  DeviceInfo a100 = h100();
  a100.name = "NVIDIA A100-SXM4-80GB";
  a100.cc_major = 8;
  CHECK(!tuned_choice(s, "512", a100, db).record);  // another GPU
}
