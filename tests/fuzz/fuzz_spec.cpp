// libFuzzer target: bytes -> load, check, generate (spec_harness.hpp).
// Built by scripts/fuzz.sh with clang, AddressSanitizer and
// UndefinedBehaviorSanitizer; CI runs it on tests/fuzz/corpus and the
// shipped specs for a bounded time.
#include <cstddef>
#include <cstdint>

#include "spec_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpen::fuzz::run_spec_input(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
