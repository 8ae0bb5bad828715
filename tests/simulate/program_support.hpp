// Programs for the tests: the shipped sound wave, edited as a test needs,
// read from a string whose kernel specs are found in specs/.
#pragma once

#include <string>

#include "gpen/simulate/program.hpp"
#include "test_support.hpp"

namespace gpen::test {

// The shipped sound-wave program's text.
// A shipped program's JSON text (specs/programs/NAME.json).
inline std::string shipped_program(const std::string& name) { return read_file(source_dir() + "/specs/programs/" + name + ".json"); }

inline std::string sound_wave_text() { return read_file(source_dir() + "/specs/programs/sound_wave3d.json"); }

// The sound wave made a test of conservation: a wave of finite amplitude in
// all three directions, a flow across it and seeded noise, with enough
// viscosity that it stays smooth for thousands of steps (without it the
// wave steepens into a shock and the run blows up, as it should).
inline std::string conserving_wave_text() {
  std::string j = with(sound_wave_text(), R"~("init": "1 + amplitude * sin(x)")~", R"~("init": "1 + amplitude * sin(x) * cos(2 * y) + 0.5 * amplitude * sin(z)")~");
  j = with(j, R"~({"name": "uy", "ghost": 3})~", R"~({"name": "uy", "ghost": 3, "init": "0.1 * cos(x + z)", "noise": {"amplitude": 1e-3, "seed": 3}})~");
  j = with(j, R"~({"name": "nu", "value": 0.0,)~", R"~({"name": "nu", "value": 0.01,)~");
  return with(j, R"~({"name": "amplitude", "value": 1e-3,)~", R"~({"name": "amplitude", "value": 0.1,)~");
}

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
