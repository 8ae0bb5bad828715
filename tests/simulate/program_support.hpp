// Programs for the tests: the shipped sound wave, edited as a test needs,
// read from a string whose kernel specs are found in specs/.
#pragma once

#include <string>

#include "gpen/simulate/program.hpp"
#include "test_support.hpp"

namespace gpen::test {

// The shipped sound-wave program's text.
inline std::string sound_wave_text() { return read_file(source_dir() + "/specs/programs/sound_wave3d.json"); }

inline sim::Program program_of(const std::string& json, std::optional<std::array<long long, 3>> size = std::nullopt) {
  return sim::parse_program(std::make_shared<const JsonSource>(JsonSource::from_string(json, "p.json")), source_dir() + "/specs/programs",
                           size ? sim::fixed_size(*size) : sim::SizeOverride{});
}

// The error at `pointer` among those reading `json` reports (fails the test if none).
inline SpecError program_error_at(const std::string& json, const std::string& pointer) {
  try {
    program_of(json);
  } catch (const SpecErrors& all) {
    for (const auto& e : all.errors())
      if (e.pointer() == pointer) return e;
    std::string got;
    for (const auto& e : all.errors()) got += e.pointer() + ": " + e.detail().message + "\n";
    FAIL("expected an error at " << pointer << "; got:\n" << got);
  }
  FAIL("expected errors for:\n" << json);
  throw std::logic_error("unreachable");
}

}  // namespace gpen::test
