// The tuner's log (--log) read back to go on where a search stopped
// (--resume): its lines, and the logs that must not be resumed.
#include <fstream>

#include "gpen/generator/tunables.hpp"
#include "gpen/measure/tune/tune_log.hpp"
#include "test_support.hpp"

using namespace gpen;

namespace {

Spec o8() { return load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json"); }

TuneLogHeader header_of(const Spec& s) { return {s.name, s.hash, "256x256x256", "NVIDIA H100 80GB HBM3", "sm_90"}; }

TunedVariant variant(const Spec& s, const std::vector<std::string>& set, std::optional<double> ms, const std::string& reason = "") {
  TunedVariant v;
  v.choice = s.choose(set);
  v.variant = describe(s.tunables, v.choice);
  v.ms = ms;
  v.teff_gbs = ms ? 2000.0 : 0;
  v.registers = ms ? 40 : -1;
  v.reason = reason;
  return v;
}

std::string write(const gpen::test::TempDir& dir, const std::string& text) {
  const std::string path = dir.path + "/tune.log";
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("a tune log reads back the variants it recorded, failures with their reasons") {
  const Spec s = o8();
  gpen::test::TempDir dir;
  const TunedVariant a = variant(s, {"strategy=march", "block_x=64"}, 0.25);
  const TunedVariant b = variant(s, {"strategy=tile"}, std::nullopt, "does not compile: \"quoted\"\nsecond line");
  TunedVariant c = variant(s, {"strategy=march", "rows_y=4", "vector_x=4"}, std::nullopt, "refused: spills 96 B ...");
  c.refused = true;
  c.registers = 255;
  c.spill_bytes = 96;
  const std::string path =
      write(dir, tune_log_line(header_of(s)) + "\n" + tune_log_line(a) + "\n" + tune_log_line(b) + "\n" + tune_log_line(c) + "\n");
  const TuneLog log = read_tune_log(path, s, header_of(s));
  REQUIRE(log.variants.size() == 3);
  CHECK(!log.variants[0].refused);
  CHECK(log.variants[2].refused);
  CHECK(log.variants[2].spill_bytes == 96);
  CHECK(log.variants[2].registers == 255);
  CHECK(!log.variants[2].ms);
  CHECK(log.warnings.empty());
  CHECK(log.variants[0].choice == a.choice);
  CHECK(*log.variants[0].ms == 0.25);
  CHECK(log.variants[0].teff_gbs == 2000.0);
  CHECK(log.variants[0].registers == 40);
  CHECK(log.variants[1].choice == b.choice);
  CHECK(!log.variants[1].ms);
  CHECK(log.variants[1].reason == b.reason);
  CHECK(log.header.size == "256x256x256");
}

TEST_CASE("a tune log of another spec, size or GPU, or no log at all, is refused with the line") {
  const Spec s = o8();
  gpen::test::TempDir dir;
  const std::string body = tune_log_line(variant(s, {}, 0.3)) + "\n";
  auto refusal = [&](TuneLogHeader written, const std::string& text_after = "") {
    const std::string path = write(dir, tune_log_line(written) + "\n" + (text_after.empty() ? body : text_after));
    try {
      read_tune_log(path, s, header_of(s));
    } catch (const TuneLogError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  TuneLogHeader h = header_of(s);
  h.size = "512x512x512";
  CHECK(refusal(h).find("tune.log:1: the log is of the size '512x512x512', this search of '256x256x256'") != std::string::npos);
  h = header_of(s);
  h.spec_hash = "0123";
  CHECK(refusal(h).find("the spec hash") != std::string::npos);
  h = header_of(s);
  h.gpu = "NVIDIA A100";
  CHECK(refusal(h).find("the GPU") != std::string::npos);
  CHECK(refusal(header_of(s), "{\"variant\": \"strategy=march\"}\n" + body).find("tune.log:2: a variant line needs") != std::string::npos);
  CHECK(refusal(header_of(s), "[1, 2]\n" + body).find("tune.log:2: not a line of a gpen tune log") != std::string::npos);
  // Only the last line may be cut short: a broken line before others is no log.
  CHECK(refusal(header_of(s), "{\"variant\": \"strat\n" + body).find("tune.log:2: not a line of a gpen tune log") != std::string::npos);
  CHECK(refusal(header_of(s), "{\"variant\": \"x\", \"reason\": \"\", \"ms\": -1}\n").find("positive number or null") != std::string::npos);
  CHECK(refusal(header_of(s), "{\"variant\": \"x\", \"reason\": \"\", \"ms\": 0.2, \"refused\": true}\n").find("a refused variant has no \"ms\"") !=
        std::string::npos);
  {
    const std::string path = write(dir, "{\"spec\": \"lap\"}\n" + body);
    CHECK_THROWS_WITH_AS(read_tune_log(path, s, header_of(s)), doctest::Contains("not a gpen tune log"), TuneLogError);
  }
  CHECK_THROWS_WITH_AS(read_tune_log(write(dir, ""), s, header_of(s)), doctest::Contains("empty"), TuneLogError);
  CHECK_THROWS_WITH_AS(read_tune_log(dir.path + "/none.log", s, header_of(s)), doctest::Contains("--resume"), TuneLogError);
}

TEST_CASE("a tune log's last line cut short, or a variant the spec no longer allows, is skipped with a warning") {
  const Spec s = o8();
  gpen::test::TempDir dir;
  const std::string whole = tune_log_line(variant(s, {"block_x=64"}, 0.3));
  const std::string path = write(dir, tune_log_line(header_of(s)) + "\n" + whole + "\n" +
                                          "{\"variant\": \"strategy=march block_x=33\", \"ms\": 0.1, \"reason\": \"\"}\n" +
                                          whole.substr(0, whole.size() / 2));
  const TuneLog log = read_tune_log(path, s, header_of(s));
  CHECK(log.variants.size() == 1);
  REQUIRE(log.warnings.size() == 2);
  CHECK(log.warnings[0].find("tune.log:3: skipped") != std::string::npos);
  CHECK(log.warnings[1].find("tune.log:4: skipped: not a whole JSON line") != std::string::npos);
}
