// Replays what the spec fuzzer starts from (tests/fuzz/corpus/: the
// reproducers of every crash and blow-up found, and the shipped specs)
// through the fuzzer's own harness, so that the CPU suite keeps them fixed
// without clang or libFuzzer.
#include <filesystem>

#include "fuzz/spec_harness.hpp"
#include "test_support.hpp"

TEST_CASE("every fuzz reproducer and shipped spec gives a result or a SpecError, nothing else") {
  std::vector<std::string> files;
  for (const char* dir : {"tests/fuzz/corpus", "specs/stencil", "specs/scan", "specs/sbp", "specs/pairwise", "specs/reduce", "specs/programs"})
    for (const auto& e : std::filesystem::directory_iterator(gpen::test::source_dir() + "/" + dir)) files.push_back(e.path().string());
  CHECK(files.size() > 50);
  for (const auto& f : files) {
    CAPTURE(f);
    CHECK_NOTHROW(gpen::fuzz::run_spec_input(gpen::test::read_file(f)));
  }
}
